//! The self-play engine: G games at once, one batched network call per step.
//!
//! Each step runs every game's search until it needs the network (or finishes a move),
//! collects those leaves into one batch, evaluates it, and hands each game its result. One
//! leaf per game per step keeps the search exact (no virtual loss) while the batch is as
//! wide as the number of games in flight. Network results are also cached per game by
//! position hash, so a position met again after the graph was trimmed costs nothing.

use super::config::{SearchConfig, SelfPlayConfig};
use super::evaluator::Evaluator;
use super::puct::{HashIndex, Search, Step};
use crate::game::{Game, Outcome, Player, ToMove};
use crate::record::{new_game_id, GameRecord, MoveRecord, RecordOutcome};
use crate::rng::Rng;
use std::time::{Duration, Instant};

/// Most cached network results kept per game before the cache is emptied.
const CACHE_LIMIT: usize = 50_000;

struct Slot<G: Game> {
    game: G,
    search: Search<G>,
    record: GameRecord,
    no_resign: bool,
    /// Consecutive moves each player's root value was below the resign threshold.
    low_streak: [u32; 2],
    cache: HashIndex<(Box<[f32]>, f32)>,
}

/// Counters for throughput reports.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineStats {
    pub games: u64,
    pub moves: u64,
    pub evals: u64,
    pub batches: u64,
    pub cache_hits: u64,
    /// Time spent inside the evaluator.
    pub eval_time: Duration,
    pub resigned: u64,
    /// Played-out no-resign games in which the player who would have resigned did not lose.
    pub false_resigns: u64,
    pub would_resign_games: u64,
}

/// Plays self-play games with a shared evaluator.
pub struct SelfPlayEngine<G: Game> {
    search: SearchConfig,
    play: SelfPlayConfig,
    start: Box<dyn FnMut(&mut Rng) -> G + Send>,
    rng: Rng,
    model_version: u64,
    slots: Vec<Option<Slot<G>>>,
    /// Games that may still be started (None: unlimited).
    games_left: Option<u64>,
    planes: Vec<f32>,
    logits: Vec<f32>,
    values: Vec<f32>,
    pending: Vec<usize>,
    pub stats: EngineStats,
}

impl<G: Game> SelfPlayEngine<G> {
    /// An engine whose games start from `start(rng)`; `max_games` bounds how many games it
    /// starts (None: as many as it is stepped for).
    pub fn new(
        search: SearchConfig,
        play: SelfPlayConfig,
        start: Box<dyn FnMut(&mut Rng) -> G + Send>,
        rng: Rng,
        max_games: Option<u64>,
    ) -> Result<SelfPlayEngine<G>, String> {
        search.validate()?;
        play.validate()?;
        let mut engine = SelfPlayEngine {
            slots: Vec::new(),
            search,
            play,
            start,
            rng,
            model_version: 0,
            games_left: max_games,
            planes: Vec::new(),
            logits: Vec::new(),
            values: Vec::new(),
            pending: Vec::new(),
            stats: EngineStats::default(),
        };
        let probe = (engine.start)(&mut engine.rng);
        if probe.num_players() != 2 || !matches!(probe.to_move(), ToMove::Player(_)) || probe.outcome().is_some() {
            return Err(format!("{}: self-play with the network search needs a two-player game", probe.spec()));
        }
        for _ in 0..engine.play.parallel_games {
            let slot = engine.new_slot();
            engine.slots.push(slot);
        }
        Ok(engine)
    }

    /// The model version recorded in games started from now on.
    pub fn set_model_version(&mut self, version: u64) {
        self.model_version = version;
    }

    /// Stops starting new games after `n` more.
    pub fn set_games_left(&mut self, n: Option<u64>) {
        self.games_left = n;
    }

    /// Games currently being played.
    pub fn active(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }

    fn new_slot(&mut self) -> Option<Slot<G>> {
        if let Some(left) = self.games_left.as_mut() {
            if *left == 0 {
                return None;
            }
            *left -= 1;
        }
        let game = (self.start)(&mut self.rng);
        let mut search = Search::new(self.search.clone(), true, Rng::seed(self.rng.next_u64()));
        search.set_root(&game);
        let record = GameRecord::new(new_game_id(&mut self.rng), game.spec(), self.model_version);
        let no_resign = self.play.resign_threshold > 0.0 && self.rng.f32() < self.play.no_resign_fraction;
        Some(Slot { game, search, record, no_resign, low_streak: [0; 2], cache: HashIndex::default() })
    }

    /// Advances every game by one batched evaluation; finished games are appended to
    /// `finished`. Returns false once no game is left to play.
    pub fn step(&mut self, evaluator: &mut dyn Evaluator, finished: &mut Vec<GameRecord>) -> bool {
        self.pending.clear();
        self.planes.clear();
        for i in 0..self.slots.len() {
            self.advance_slot(i, finished);
        }
        if self.pending.is_empty() {
            return self.active() > 0;
        }
        let batch = self.pending.len();
        let actions = self.slots[self.pending[0]].as_ref().expect("pending slot").game.num_actions();
        self.logits.resize(batch * actions, 0.0);
        self.values.resize(batch, 0.0);
        let t = Instant::now();
        evaluator.evaluate(&self.planes, batch, &mut self.logits, &mut self.values);
        self.stats.eval_time += t.elapsed();
        self.stats.evals += batch as u64;
        self.stats.batches += 1;
        for (k, &i) in self.pending.iter().enumerate() {
            let slot = self.slots[i].as_mut().expect("pending slot");
            let logits = &self.logits[k * actions..(k + 1) * actions];
            if slot.cache.len() >= CACHE_LIMIT {
                slot.cache.clear();
            }
            slot.cache.insert(slot.search.leaf().hash(), (logits.into(), self.values[k]));
            slot.search.deliver(logits, self.values[k]);
        }
        true
    }

    /// Runs slot `i` until it needs the network; plays moves and finishes games on the way.
    fn advance_slot(&mut self, i: usize, finished: &mut Vec<GameRecord>) {
        let simulations = self.search.simulations;
        loop {
            let Some(slot) = self.slots[i].as_mut() else { return };
            match slot.search.run(simulations) {
                Step::NeedsEval => {
                    let hash = slot.search.leaf().hash();
                    // Disjoint fields: the cached logits are read in place, not copied.
                    if let Some((logits, value)) = slot.cache.get(&hash) {
                        self.stats.cache_hits += 1;
                        slot.search.deliver(logits, *value);
                        continue;
                    }
                    let leaf = slot.search.leaf();
                    let len = leaf.plane_shape().len();
                    let at = self.planes.len();
                    self.planes.resize(at + len, 0.0);
                    leaf.encode_planes(&mut self.planes[at..]);
                    self.pending.push(i);
                    return;
                }
                Step::Done => {
                    if let Some(record) = self.play_move(i) {
                        finished.push(record);
                        self.stats.games += 1;
                        self.slots[i] = self.new_slot();
                    }
                }
            }
        }
    }

    /// Plays the searched move in slot `i`; returns the record if the game ended.
    fn play_move(&mut self, i: usize) -> Option<GameRecord> {
        let play = &self.play;
        let slot = self.slots[i].as_mut().expect("active slot");
        let ToMove::Player(mover) = slot.game.to_move() else { unreachable!("two-player games only") };
        let (root_value, _) = slot.search.root_value();
        if play.resign_threshold > 0.0 {
            let streak = &mut slot.low_streak[mover.index()];
            *streak = if root_value < -play.resign_threshold { *streak + 1 } else { 0 };
            if *streak >= play.resign_consecutive.max(1) {
                if slot.no_resign {
                    slot.record.would_have_resigned.get_or_insert(mover);
                } else {
                    slot.record.resigned = true;
                    slot.record.outcome = RecordOutcome::Win(mover.other());
                    self.stats.resigned += 1;
                    return Some(self.finish(i));
                }
            }
        }
        let temperature = if (slot.game.ply() as u32) < play.temperature_moves { 1.0 } else { play.final_temperature };
        let policy = slot.search.policy_target();
        let action = slot.search.choose_move(temperature);
        slot.record.moves.push(MoveRecord::player(action, policy, root_value));
        slot.game.play(action).expect("the search only picks legal moves");
        self.stats.moves += 1;
        match slot.game.outcome() {
            Some(outcome) => {
                slot.record.outcome = outcome.into();
                Some(self.finish(i))
            }
            None => {
                let game = slot.game.clone();
                slot.search.advance(&game);
                None
            }
        }
    }

    fn finish(&mut self, i: usize) -> GameRecord {
        let slot = self.slots[i].take().expect("active slot");
        let mut record = slot.record;
        record.no_resign = slot.no_resign;
        if let Some(p) = record.would_have_resigned {
            self.stats.would_resign_games += 1;
            let lost = matches!(Outcome::from(record.outcome), Outcome::Win(w) if w != p);
            if !lost {
                self.stats.false_resigns += 1;
            }
        }
        record.created_unix_ms = crate::util::now_unix_ms();
        record
    }

    /// Plays until `games` games have finished (or no game is left), calling `on_game`
    /// with each; returns them in the order they finished.
    pub fn play_games(
        &mut self,
        evaluator: &mut dyn Evaluator,
        mut on_game: impl FnMut(&GameRecord),
    ) -> Vec<GameRecord> {
        let mut all = Vec::new();
        let mut finished = Vec::new();
        loop {
            let more = self.step(evaluator, &mut finished);
            for r in finished.drain(..) {
                on_game(&r);
                all.push(r);
            }
            if !more {
                return all;
            }
        }
    }
}

/// Which player a record says won, for statistics.
pub fn winner(record: &GameRecord) -> Option<Player> {
    match Outcome::from(record.outcome) {
        Outcome::Win(p) => Some(p),
        _ => None,
    }
}
