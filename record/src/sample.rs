//! Training samples cut from records: input planes, a dense policy target and a value
//! target per trainable position, under a random symmetry of the board.

use super::{GameRecord, RecordError, RecordOutcome, SampleError};
use dojo_base::rng::Rng;
use dojo_game::returns::{ReturnScale, DEFAULT_MAX_RETURN};
use dojo_game::{Action, Game, Outcome, PlaneShape, ToMove};
use rand::RngExt;

/// How samples are made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleOptions {
    /// AlphaFive's late-position weighting: a position `k` player moves before the end
    /// weighs `factor^k` (e.g. 0.94), so the last move weighs 1 and early ones, seen far
    /// more often across games, less. `None` weighs every position 1.
    pub late_weight: Option<f32>,
    /// Apply a random symmetry of the board per sample.
    pub augment: bool,
    /// Weight of the search's root value in the value target of a win/draw game:
    /// `(1 - w)·z + w·q` with `z` the final result and `q` the root value the self-play
    /// search saw. 0 trains on the result alone (AlphaZero); mixing in `q` lowers the
    /// target's noise, since one game's result is a coin flip for most of its positions
    /// early in a run (averaging them helped Connect Four learning in Oracle's "Lessons
    /// from AlphaZero"). Score games (2048, 2584) always use the return still to come.
    pub search_value_weight: f32,
    /// Score games' value target: the Monte-Carlo return still to come (this move's reward
    /// and every later one), mapped into the value head's range by this scale. It must be
    /// the scale the search reads the network with (`search.max_return`).
    pub return_scale: ReturnScale,
}

impl Default for SampleOptions {
    fn default() -> Self {
        SampleOptions {
            late_weight: None,
            augment: true,
            search_value_weight: 0.0,
            return_scale: ReturnScale::new(DEFAULT_MAX_RETURN),
        }
    }
}

/// One training example.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// `plane_shape().len()` floats, channels of `height × width`, row-major.
    pub planes: Vec<f32>,
    /// Dense over the action space (`num_actions`), zero off the recorded policy.
    pub policy: Vec<f32>,
    /// The final result from the side to move's view in {-1, 0, 1}, mixed with the search's
    /// root value by [`SampleOptions::search_value_weight`]; for one-player score games the
    /// return still to come (the sum of this and later moves' rewards), scaled by
    /// [`SampleOptions::return_scale`].
    pub value: f32,
    /// Player moves played before this position.
    pub ply: usize,
    pub weight: f32,
    /// The symmetry applied (0 = identity).
    pub symmetry: usize,
}

/// The targets [`TrainingGame::write_sample`] does not write into the caller's buffers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleTarget {
    pub value: f32,
    pub weight: f32,
    pub ply: usize,
}

struct Position<G> {
    state: G,
    move_index: u32,
    /// The game's result from the side to move's view, or the return still to come (in
    /// points, unscaled).
    value: f64,
    /// Player moves after this one until the end of the game.
    moves_after: u32,
}

/// A validated record replayed once, keeping the position before every trainable move, so
/// a trainer can cut any sample from it in O(planes) without replaying: a replay buffer
/// holds these and fills batches with [`TrainingGame::write_sample`].
pub struct TrainingGame<G: Game> {
    record: GameRecord,
    positions: Vec<Position<G>>,
    shape: PlaneShape,
    num_actions: usize,
    num_symmetries: usize,
}

impl<G: Game> TrainingGame<G> {
    /// Replays `record` from `start` (its [`GameRecord::start`] position), with every check
    /// of [`GameRecord::validate_with`]: samples are never cut from a bad record.
    pub fn new(record: GameRecord, start: G) -> Result<TrainingGame<G>, RecordError> {
        let shape = start.plane_shape();
        let num_actions = start.num_actions();
        let num_symmetries = start.num_symmetries().max(1);
        let mut kept: Vec<(u32, G, ToMove, usize)> = Vec::with_capacity(record.moves.len());
        let mut player_moves = 0usize;
        let mut rewards = Vec::with_capacity(record.moves.len());
        record.replay_impl(
            start,
            |i, g, mv| {
                if !mv.chance {
                    if mv.train {
                        kept.push((i as u32, g.clone(), g.to_move(), player_moves));
                    }
                    player_moves += 1;
                }
            },
            Some(&mut rewards),
        )?;
        // Returns still to come from each move on, for score games.
        let mut to_come = vec![0u64; rewards.len() + 1];
        for i in (0..rewards.len()).rev() {
            to_come[i] = to_come[i + 1] + u64::from(rewards[i]);
        }
        let outcome = Outcome::from(record.outcome);
        let positions = kept
            .into_iter()
            .map(|(i, state, to_move, before)| {
                let value = match (record.outcome, to_move) {
                    (RecordOutcome::Score(_), _) => to_come[i as usize] as f64,
                    (_, ToMove::Player(p)) => f64::from(outcome.value_for(p)),
                    (_, ToMove::Chance) => 0.0,
                };
                Position { state, move_index: i, value, moves_after: (player_moves - before - 1) as u32 }
            })
            .collect();
        Ok(TrainingGame { record, positions, shape, num_actions, num_symmetries })
    }

    /// The value target of `pos`: its result, mixed with the search's root value for
    /// win/draw games (see [`SampleOptions::search_value_weight`]).
    fn value_of(&self, pos: &Position<G>, opts: &SampleOptions) -> f32 {
        if matches!(self.record.outcome, RecordOutcome::Score(_)) {
            return opts.return_scale.to_value(pos.value);
        }
        let w = opts.search_value_weight;
        let z = pos.value as f32;
        if w <= 0.0 {
            return z;
        }
        // Validation only promises a finite root value; a win/draw value lies in [-1, 1].
        let q = self.record.moves[pos.move_index as usize].root_value.clamp(-1.0, 1.0);
        (1.0 - w) * z + w * q
    }

    /// Number of trainable positions.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    pub fn record(&self) -> &GameRecord {
        &self.record
    }

    pub fn into_record(self) -> GameRecord {
        self.record
    }

    /// The position before trainable move `index`.
    pub fn position(&self, index: usize) -> Option<&G> {
        self.positions.get(index).map(|p| &p.state)
    }

    pub fn plane_shape(&self) -> PlaneShape {
        self.shape
    }

    pub fn num_actions(&self) -> usize {
        self.num_actions
    }

    pub fn num_symmetries(&self) -> usize {
        self.num_symmetries
    }

    /// The symmetry a sample should use: uniform when augmenting, else the identity.
    #[inline]
    pub fn pick_symmetry(&self, rng: &mut Rng, opts: &SampleOptions) -> usize {
        if opts.augment && self.num_symmetries > 1 {
            rng.random_range(..self.num_symmetries)
        } else {
            0
        }
    }

    /// Writes sample `index` under symmetry `sym` into caller buffers of
    /// `plane_shape().len()` and `num_actions()` floats (a trainer's batch rows) and returns
    /// its value, weight and ply. Allocates nothing for boards up to 32×32.
    pub fn write_sample(
        &self,
        index: usize,
        sym: usize,
        opts: &SampleOptions,
        planes_out: &mut [f32],
        policy_out: &mut [f32],
    ) -> Result<SampleTarget, RecordError> {
        let pos = self.positions.get(index).ok_or(SampleError::Position { index, positions: self.positions.len() })?;
        if planes_out.len() != self.shape.len() {
            return Err(SampleError::PlanesBuffer { len: planes_out.len(), needed: self.shape.len() }.into());
        }
        if policy_out.len() != self.num_actions {
            return Err(SampleError::PolicyBuffer { len: policy_out.len(), actions: self.num_actions }.into());
        }
        if sym >= self.num_symmetries {
            return Err(SampleError::Symmetry { symmetry: sym, symmetries: self.num_symmetries }.into());
        }
        let g = &pos.state;
        g.encode_planes(planes_out);
        let hw = self.shape.height * self.shape.width;
        if sym != 0 && hw > 0 {
            let mut stack = [0f32; 1024];
            let mut heap = Vec::new();
            let scratch: &mut [f32] = if hw <= stack.len() {
                &mut stack[..hw]
            } else {
                heap.resize(hw, 0.0);
                &mut heap
            };
            for plane in planes_out.chunks_exact_mut(hw) {
                scratch.copy_from_slice(plane);
                g.map_plane(sym, scratch, plane);
            }
        }
        write_policy(g, sym, &self.record.moves[pos.move_index as usize].policy, policy_out)?;
        Ok(SampleTarget { value: self.value_of(pos, opts), weight: self.weight_of(pos, opts), ply: g.ply() })
    }

    /// Writes the opponent's reply to trainable position `index` under symmetry `sym` into
    /// `out` (`num_actions()` floats), KataGo's auxiliary policy target: the search's policy
    /// at the next move where the record has it, else the move played there (a fast search
    /// of playout cap randomisation records none). False, and `out` all zeros, where there
    /// is no reply: the game's last move, or a one-player game.
    pub fn write_opponent_policy(&self, index: usize, sym: usize, out: &mut [f32]) -> Result<bool, RecordError> {
        let pos = self.positions.get(index).ok_or(SampleError::Position { index, positions: self.positions.len() })?;
        if out.len() != self.num_actions {
            return Err(SampleError::PolicyBuffer { len: out.len(), actions: self.num_actions }.into());
        }
        if sym >= self.num_symmetries {
            return Err(SampleError::Symmetry { symmetry: sym, symmetries: self.num_symmetries }.into());
        }
        let g = &pos.state;
        let reply = self.record.moves.get(pos.move_index as usize + 1);
        let Some(reply) = reply.filter(|m| !m.chance && !g.is_one_player()) else {
            out.fill(0.0);
            return Ok(false);
        };
        let played = [(reply.action, 1.0)];
        write_policy(g, sym, if reply.policy.is_empty() { &played } else { &reply.policy }, out)?;
        Ok(true)
    }

    /// The training weight of position `index` (1 without late weighting).
    pub fn weight(&self, index: usize, opts: &SampleOptions) -> Option<f32> {
        self.positions.get(index).map(|p| self.weight_of(p, opts))
    }

    fn weight_of(&self, pos: &Position<G>, opts: &SampleOptions) -> f32 {
        match opts.late_weight {
            Some(f) => f.powi(pos.moves_after.min(i32::MAX as u32) as i32),
            None => 1.0,
        }
    }

    /// Sample `index` under a symmetry drawn by [`TrainingGame::pick_symmetry`].
    pub fn sample(&self, index: usize, rng: &mut Rng, opts: &SampleOptions) -> Result<Sample, RecordError> {
        let sym = self.pick_symmetry(rng, opts);
        let mut planes = vec![0.0; self.shape.len()];
        let mut policy = vec![0.0; self.num_actions];
        let t = self.write_sample(index, sym, opts, &mut planes, &mut policy)?;
        Ok(Sample { planes, policy, value: t.value, ply: t.ply, weight: t.weight, symmetry: sym })
    }

    /// Every trainable position, in game order, each under its own random symmetry.
    pub fn samples(&self, rng: &mut Rng, opts: &SampleOptions) -> Result<Vec<Sample>, RecordError> {
        (0..self.len()).map(|i| self.sample(i, rng, opts)).collect()
    }
}

/// Writes `policy` (actions of `g`'s board) into the dense `out` under symmetry `sym`, zero
/// elsewhere.
fn write_policy<G: Game>(g: &G, sym: usize, policy: &[(Action, f32)], out: &mut [f32]) -> Result<(), RecordError> {
    out.fill(0.0);
    for &(a, p) in policy {
        let mapped = g.map_action(sym, a);
        let slot =
            out.get_mut(mapped as usize).ok_or(SampleError::ActionOutside { symmetry: sym, action: a, mapped })?;
        *slot = p;
    }
    Ok(())
}

/// Every training sample of `record`, replayed from `start` (its [`GameRecord::start`]
/// position); the record is validated on the way.
pub fn samples<G: Game>(
    record: &GameRecord,
    start: G,
    rng: &mut Rng,
    opts: &SampleOptions,
) -> Result<Vec<Sample>, RecordError> {
    TrainingGame::new(record.clone(), start)?.samples(rng, opts)
}
