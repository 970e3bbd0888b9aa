//! The replay buffer: the most recent self-play games, held as [`TrainingGame`]s (each
//! record replayed once), from which the trainer draws batches.
//!
//! - **Window.** Sized in positions, not games: games are evicted oldest-first once the
//!   positions in the buffer exceed the window. The window is fixed, or grows with the
//!   positions ever added as KataGo's does, so early random-play games leave quickly while
//!   a mature run keeps a long history.
//! - **Balancing** (AlphaFive, for games like Gomoku where the first player wins far more
//!   often): games fall into outcome classes (first-player win, second-player win, draw);
//!   every class present in the window gets the same probability mass, so a rare class is
//!   oversampled instead of the network learning that the first player always wins, which
//!   feeds back into self-play and collapses it. Classes absent from the window get none.
//!   Within a class, positions are drawn uniformly; positions of very short games (often
//!   the blunder-fests of a collapsing run) count `short_game_weight` each.
//! - **Late positions** weigh more in the loss (AlphaFive's factor, through
//!   [`SampleOptions::late_weight`] into the batch's weight column), and every sample gets a
//!   random symmetry of the board.
//! - **The cap.** The trainer may draw at most `max_samples_per_position` samples per
//!   position ever added; [`ReplayBuffer::can_sample`] tells it to wait for self-play rather
//!   than overfit the window when workers are few or slow.
//!
//! A draw is O(log games in the class): per class, a prefix sum of position masses kept in
//! game order, appended on add and trimmed at the front on eviction, so adds need no rebuild.

use dojo_base::rng::Rng;
use dojo_game::returns::ReturnScale;
use dojo_game::{Game, Player};
use dojo_net::train::{Batch, Losses, Trainer};
use dojo_record::{InvalidRecord, RecordError, RecordOutcome, SampleError, SampleOptions, TrainingGame};
use dojo_run::config::replay::ReplayConfig;
use dojo_run::config::ConfigError;
use rand::{seq::IndexedRandom, RngExt};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Outcome classes, the indices of [`ReplayStats::class_games`].
pub const FIRST_PLAYER_WIN: usize = 0;
pub const SECOND_PLAYER_WIN: usize = 1;
/// Draws, and the score outcomes of one-player games (which have no winner to balance).
pub const DRAW: usize = 2;

/// The outcome class of a record's outcome.
pub fn outcome_class(outcome: RecordOutcome) -> usize {
    match outcome {
        RecordOutcome::Win(Player::First) => FIRST_PLAYER_WIN,
        RecordOutcome::Win(Player::Second) => SECOND_PLAYER_WIN,
        RecordOutcome::Draw | RecordOutcome::Score(_) => DRAW,
    }
}

/// The buffer for metrics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayStats {
    /// Games in the window.
    pub games: u64,
    /// Trainable positions in the window.
    pub positions: u64,
    /// Games in the window per outcome class: first-player wins, second-player wins, draws.
    pub class_games: [u64; 3],
    /// Trainable positions in the window per outcome class.
    pub class_positions: [u64; 3],
    /// First-player wins over all games in the window (0 when empty).
    pub first_player_win_rate: f64,
    /// Mean player moves per game in the window (0 when empty).
    pub mean_game_length: f64,
    /// The window in positions now.
    pub window_limit: u64,
    pub total_positions_added: u64,
    pub samples_drawn: u64,
}

struct Entry<G: Game> {
    game: TrainingGame<G>,
    class: u8,
    /// Player moves in the game.
    plies: u32,
}

/// One outcome class: its games in order, each with the running total of position masses
/// up to and including it, so a draw is a binary search.
#[derive(Default)]
struct ClassIndex {
    /// (sequence number of the game, running mass at its end).
    games: VecDeque<(u64, f64)>,
    /// The running mass before the first game (the end of the last evicted one).
    base: f64,
    positions: u64,
}

impl ClassIndex {
    fn mass(&self) -> f64 {
        self.games.back().map_or(0.0, |&(_, end)| end - self.base)
    }
}

/// The replay buffer over games of `G`.
pub struct ReplayBuffer<G: Game> {
    config: ReplayConfig,
    opts: SampleOptions,
    games: VecDeque<Entry<G>>,
    /// Sequence number of `games[0]`; game `s` sits at `games[s - first_seq]`.
    first_seq: u64,
    classes: [ClassIndex; 3],
    positions: u64,
    plies: u64,
    window_limit: u64,
    total_positions_added: u64,
    samples_drawn: u64,
}

impl<G: Game> ReplayBuffer<G> {
    /// An empty buffer; refuses a config that [`ReplayConfig::validate`] refuses.
    /// `return_scale` is the scale of one-player games' value targets.
    pub fn new(config: ReplayConfig, return_scale: ReturnScale) -> Result<ReplayBuffer<G>, ConfigError> {
        config.validate()?;
        Ok(ReplayBuffer {
            opts: config.sample_options(return_scale),
            window_limit: config.window_limit(0),
            config,
            games: VecDeque::new(),
            first_seq: 0,
            classes: Default::default(),
            positions: 0,
            plies: 0,
            total_positions_added: 0,
            samples_drawn: 0,
        })
    }

    pub fn config(&self) -> &ReplayConfig {
        &self.config
    }

    /// Adds a finished game and evicts the oldest games beyond the window. A game with no
    /// trainable positions is counted nowhere and not kept (there is nothing to draw from
    /// it). Refuses a game whose planes or action space differ from the games already held,
    /// since their samples could not share a batch.
    pub fn add(&mut self, game: TrainingGame<G>) -> Result<(), RecordError> {
        if game.is_empty() {
            return Ok(());
        }
        if let Some(first) = self.games.front() {
            let (have, got) = (first.game.plane_shape(), game.plane_shape());
            if have != got || first.game.num_actions() != game.num_actions() {
                return Err(InvalidRecord::OtherShape {
                    game: game.record().id_hex(),
                    got,
                    got_actions: game.num_actions(),
                    held: have,
                    held_actions: first.game.num_actions(),
                }
                .into());
            }
        }
        let len = game.len() as u64;
        let plies = game.record().moves.iter().filter(|m| !m.chance).count() as u32;
        let class = outcome_class(game.record().outcome);
        let weight = if plies < self.config.short_game_plies { f64::from(self.config.short_game_weight) } else { 1.0 };
        let seq = self.first_seq + self.games.len() as u64;
        let ci = &mut self.classes[class];
        let end = ci.games.back().map_or(ci.base, |&(_, e)| e) + len as f64 * weight;
        ci.games.push_back((seq, end));
        ci.positions += len;
        self.games.push_back(Entry { game, class: class as u8, plies });
        self.positions += len;
        self.plies += u64::from(plies);
        self.total_positions_added += len;
        self.apply_window();
        Ok(())
    }

    /// Recomputes the window and evicts the oldest games until the positions fit, always
    /// keeping the newest game (a single game longer than the window still trains).
    fn apply_window(&mut self) {
        self.window_limit = self.config.window_limit(self.total_positions_added);
        while self.positions > self.window_limit && self.games.len() > 1 {
            let Some(old) = self.games.pop_front() else { break };
            self.first_seq += 1;
            let len = old.game.len() as u64;
            self.positions -= len;
            self.plies -= u64::from(old.plies);
            let ci = &mut self.classes[old.class as usize];
            // Classes keep game order, so the oldest game is the front of its class.
            if let Some((_, end)) = ci.games.pop_front() {
                ci.base = end;
            }
            ci.positions -= len;
            if ci.games.is_empty() {
                // Restart the running sums so they stay small and exact.
                ci.base = 0.0;
            }
        }
    }

    /// After a restart: the counters a checkpoint saved replace the counted ones (the
    /// games re-added from the log may be only the last window's), and the window is
    /// applied again.
    pub fn restore_counters(&mut self, total_positions_added: u64, samples_drawn: u64) {
        self.total_positions_added = total_positions_added;
        self.samples_drawn = samples_drawn;
        self.apply_window();
    }

    /// Trainable positions in the window.
    pub fn positions(&self) -> usize {
        self.positions as usize
    }

    /// Games in the window.
    pub fn games(&self) -> usize {
        self.games.len()
    }

    /// Game `i` of the window, oldest first.
    pub fn game(&self, i: usize) -> Option<&TrainingGame<G>> {
        self.games.get(i).map(|e| &e.game)
    }

    pub fn total_positions_added(&self) -> u64 {
        self.total_positions_added
    }

    pub fn samples_drawn(&self) -> u64 {
        self.samples_drawn
    }

    /// The window in positions now.
    pub fn window_limit(&self) -> u64 {
        self.window_limit
    }

    /// Samples the trainer may still draw: `floor(max_samples_per_position × positions ever
    /// added) − samples drawn`, at least 0.
    pub fn sample_budget(&self) -> u64 {
        let allowed = (f64::from(self.config.max_samples_per_position) * self.total_positions_added as f64).floor();
        (allowed as u64).saturating_sub(self.samples_drawn)
    }

    /// Whether a batch of `batch` samples may be drawn now: the window holds positions and
    /// the budget covers the batch. When false the trainer waits for self-play instead of
    /// training the same positions over and over.
    pub fn can_sample(&self, batch: usize) -> bool {
        self.positions > 0 && self.sample_budget() >= batch as u64
    }

    /// Draws one position: (index of its game in the window, position index in the game).
    fn draw(&self, rng: &mut Rng) -> Option<(usize, usize)> {
        let masses = [self.classes[0].mass(), self.classes[1].mass(), self.classes[2].mass()];
        let class = if self.config.balance_outcomes {
            let mut present = [0usize; 3];
            let mut k = 0;
            for (c, &m) in masses.iter().enumerate() {
                if m > 0.0 {
                    present[k] = c;
                    k += 1;
                }
            }
            *present[..k].choose(rng)?
        } else {
            // In proportion to the mass (none left: nothing to draw).
            *[0, 1, 2].choose_weighted(rng, |&c| masses[c]).ok()?
        };
        let ci = &self.classes[class];
        let u = ci.base + rng.random::<f64>() * masses[class];
        // Every game holds positive mass, so the first end beyond `u` is a game with
        // positions; rounding can only push past the last one.
        let j = ci.games.partition_point(|&(_, end)| end <= u).min(ci.games.len() - 1);
        let gi = (ci.games[j].0 - self.first_seq) as usize;
        let n = self.games[gi].game.len();
        Some((gi, rng.random_range(..n)))
    }

    /// Clears `batch` and fills it with `n` samples; counts them as drawn. It does not
    /// check the budget: that is [`ReplayBuffer::can_sample`]'s job, before the call.
    pub fn sample_batch(&mut self, batch: &mut Batch, n: usize, rng: &mut Rng) -> Result<(), RecordError> {
        batch.clear();
        if n == 0 {
            return Ok(());
        }
        let Some(first) = self.games.front() else {
            return Err(SampleError::Empty.into());
        };
        batch.planes.reserve(n * first.game.plane_shape().len());
        batch.policy.reserve(n * first.game.num_actions());
        batch.value.reserve(n);
        batch.weight.reserve(n);
        for _ in 0..n {
            let Some((gi, index)) = self.draw(rng) else {
                batch.clear();
                return Err(SampleError::Empty.into());
            };
            let game = &self.games[gi].game;
            let sym = game.pick_symmetry(rng, &self.opts);
            if let Err(e) = batch.push(game, index, sym, &self.opts) {
                batch.clear();
                return Err(e);
            }
        }
        self.samples_drawn += n as u64;
        Ok(())
    }

    pub fn stats(&self) -> ReplayStats {
        let games = self.games.len() as u64;
        let mut class_games = [0u64; 3];
        for (c, ci) in self.classes.iter().enumerate() {
            class_games[c] = ci.games.len() as u64;
        }
        let per_game = |x: f64| if games == 0 { 0.0 } else { x / games as f64 };
        ReplayStats {
            games,
            positions: self.positions,
            class_games,
            class_positions: [self.classes[0].positions, self.classes[1].positions, self.classes[2].positions],
            first_player_win_rate: per_game(class_games[FIRST_PLAYER_WIN] as f64),
            mean_game_length: per_game(self.plies as f64),
            window_limit: self.window_limit,
            total_positions_added: self.total_positions_added,
            samples_drawn: self.samples_drawn,
        }
    }
}

/// One training step from the buffer: a batch of `size` drawn as the buffer draws, one
/// update of `trainer`. The learner's loop and offline training (`dojo learn`) share it.
pub fn train_step<G: Game>(
    trainer: &mut Trainer,
    buffer: &mut ReplayBuffer<G>,
    batch: &mut Batch,
    size: usize,
    rng: &mut Rng,
) -> Result<Losses, RecordError> {
    batch.with_opponent_policy = trainer.wants_opponent_policy();
    buffer.sample_batch(batch, size, rng)?;
    Ok(trainer.train_step(batch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::connect4::Connect4;
    use dojo_game::returns::DEFAULT_MAX_RETURN;
    use dojo_game::GameSpec;
    use dojo_record::{GameRecord, MoveRecord};
    use rand::SeedableRng;

    type C4 = Connect4<u64>;

    fn id(n: u64) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&n.to_le_bytes());
        b
    }

    /// A random legal Connect Four game.
    fn random_record(rng: &mut Rng, n: u64) -> GameRecord {
        let mut g = C4::standard();
        let mut rec = GameRecord::new(id(n), GameSpec::connect4(), 0);
        let mut legal = Vec::new();
        while g.outcome().is_none() {
            g.legal_actions(&mut legal);
            let a = *legal.choose(rng).expect("a non-empty list");
            g.play(a).unwrap();
            rec.moves.push(MoveRecord::player(a, vec![(a, 1.0)], 0.0));
        }
        rec.outcome = g.outcome().unwrap().into();
        rec
    }

    fn training(rec: GameRecord) -> TrainingGame<C4> {
        TrainingGame::new(rec, C4::standard()).unwrap()
    }

    /// Random games until `want(record)` holds for `count` of them.
    fn games_where(rng: &mut Rng, count: usize, want: impl Fn(&GameRecord) -> bool) -> Vec<TrainingGame<C4>> {
        let mut out = Vec::new();
        let mut n = 0;
        while out.len() < count {
            n += 1;
            let rec = random_record(rng, n);
            if want(&rec) {
                out.push(training(rec));
            }
        }
        out
    }

    fn buffer(config: ReplayConfig) -> ReplayBuffer<C4> {
        ReplayBuffer::new(config, ReturnScale::new(DEFAULT_MAX_RETURN)).unwrap()
    }

    fn id_of(g: &TrainingGame<C4>) -> [u8; 16] {
        g.record().game_id
    }

    #[test]
    fn window_evicts_the_oldest_games_and_keeps_positions_within_it() {
        let mut rng = Rng::seed_from_u64(1);
        let window = 200;
        let mut buf = buffer(ReplayConfig { window_positions: window, balance_outcomes: true, ..Default::default() });
        let mut added: Vec<(u64, [u8; 16])> = Vec::new();
        let mut total = 0;
        for n in 0..60 {
            let g = training(random_record(&mut rng, n));
            added.push((g.len() as u64, id_of(&g)));
            total += g.len() as u64;
            buf.add(g).unwrap();
            // Expected: the longest run of newest games that fits, never fewer than one.
            let mut keep = 0;
            let mut sum = 0;
            for &(len, _) in added.iter().rev() {
                if keep > 0 && sum + len > window {
                    break;
                }
                sum += len;
                keep += 1;
            }
            assert_eq!(buf.games(), keep, "after game {n}");
            assert_eq!(buf.positions() as u64, sum);
            assert!(sum <= window);
            let ids: Vec<_> = (0..buf.games()).map(|i| id_of(buf.game(i).unwrap())).collect();
            let want: Vec<_> = added[added.len() - keep..].iter().map(|&(_, id)| id).collect();
            assert_eq!(ids, want, "the newest games stay, in order");
            assert_eq!(buf.total_positions_added(), total);
        }
        assert!(buf.games() < 60, "something was evicted");
        // Draws after evictions land on the games still held, each present class equally.
        let draws = 9_000;
        let counts = class_counts(&buf, draws, 2);
        let present = buf.stats().class_games.iter().filter(|&&g| g > 0).count();
        for (c, &g) in buf.stats().class_games.iter().enumerate() {
            if g == 0 {
                assert_eq!(counts[c], 0);
            } else {
                let share = counts[c] as f64 / draws as f64;
                assert!((share - 1.0 / present as f64).abs() < 0.03, "{counts:?}");
            }
        }
        let mut seen = vec![false; buf.games()];
        let mut r = Rng::seed_from_u64(3);
        for _ in 0..draws {
            let (gi, index) = buf.draw(&mut r).unwrap();
            assert!(index < buf.game(gi).unwrap().len());
            seen[gi] = true;
        }
        assert!(seen.iter().all(|&s| s), "every game held can be drawn");
        let s = buf.stats();
        assert_eq!(s.positions, buf.positions() as u64);
        assert_eq!(s.class_positions.iter().sum::<u64>(), s.positions);
        assert_eq!(s.class_games.iter().sum::<u64>(), s.games);
    }

    #[test]
    fn a_game_longer_than_the_window_is_kept_alone() {
        let mut rng = Rng::seed_from_u64(2);
        let mut buf = buffer(ReplayConfig { window_positions: 5, power_law: false, ..Default::default() });
        let games = games_where(&mut rng, 2, |r| r.moves.len() > 5);
        let last = id_of(&games[1]);
        for g in games {
            buf.add(g).unwrap();
        }
        assert_eq!(buf.games(), 1);
        assert_eq!(id_of(buf.game(0).unwrap()), last);
    }

    #[test]
    fn the_buffer_applies_the_power_law_window_as_positions_are_added() {
        let cfg = ReplayConfig {
            power_law: true,
            min_window: 100,
            window_positions: 10_000,
            power_alpha: 0.75,
            power_beta: 0.4,
            ..Default::default()
        };
        let mut buf = buffer(cfg.clone());
        let mut rng = Rng::seed_from_u64(3);
        let mut n = 0;
        while buf.total_positions_added() < 1600 {
            n += 1;
            buf.add(training(random_record(&mut rng, n))).unwrap();
            assert_eq!(buf.window_limit(), cfg.window_limit(buf.total_positions_added()));
            assert!(buf.positions() as u64 <= buf.window_limit());
        }
        // 1600 positions: 100·(1 + 0.4·(16^0.75 − 1)/0.75) = 473.
        assert!(buf.window_limit() >= 473);
        assert!(buf.positions() > 100, "the window grew past c");
    }

    fn class_counts(buf: &ReplayBuffer<C4>, draws: usize, seed: u64) -> [usize; 3] {
        let mut rng = Rng::seed_from_u64(seed);
        let mut counts = [0; 3];
        for _ in 0..draws {
            let (gi, _) = buf.draw(&mut rng).unwrap();
            counts[outcome_class(buf.game(gi).unwrap().record().outcome)] += 1;
        }
        counts
    }

    #[test]
    fn balancing_gives_each_present_class_equal_mass() {
        let mut rng = Rng::seed_from_u64(4);
        let first = games_where(&mut rng, 90, |r| r.outcome == RecordOutcome::Win(Player::First));
        let second = games_where(&mut rng, 10, |r| r.outcome == RecordOutcome::Win(Player::Second));
        let mut balanced = buffer(ReplayConfig { balance_outcomes: true, ..Default::default() });
        let mut plain = buffer(ReplayConfig::default());
        for g in first.iter().chain(&second) {
            balanced.add(TrainingGame::new(g.record().clone(), C4::standard()).unwrap()).unwrap();
            plain.add(TrainingGame::new(g.record().clone(), C4::standard()).unwrap()).unwrap();
        }
        assert_eq!(balanced.stats().class_games, [90, 10, 0]);
        let c = class_counts(&balanced, 20_000, 5);
        assert_eq!(c[DRAW], 0, "an absent class gets no mass");
        assert!((9_000..11_000).contains(&c[SECOND_PLAYER_WIN]), "{c:?}");
        // Without balancing, classes come in proportion to their positions.
        let s = plain.stats();
        let share = s.class_positions[SECOND_PLAYER_WIN] as f64 / s.positions as f64;
        let c = class_counts(&plain, 20_000, 5);
        let got = c[SECOND_PLAYER_WIN] as f64 / 20_000.0;
        assert!((got - share).abs() < 0.02, "{got} vs {share}");
        assert!(got < 0.3);
    }

    #[test]
    fn with_one_class_present_every_sample_comes_from_it() {
        let mut rng = Rng::seed_from_u64(6);
        let mut buf = buffer(ReplayConfig::default());
        for g in games_where(&mut rng, 20, |r| r.outcome == RecordOutcome::Win(Player::Second)) {
            buf.add(g).unwrap();
        }
        assert_eq!(class_counts(&buf, 5_000, 7), [0, 5_000, 0]);
        let mut batch = Batch::default();
        buf.sample_batch(&mut batch, 300, &mut rng).unwrap();
        assert_eq!(batch.len, 300);
        assert_eq!(buf.samples_drawn(), 300);
    }

    #[test]
    fn the_cap_stops_sampling_until_more_games_arrive() {
        let mut rng = Rng::seed_from_u64(8);
        let mut buf = buffer(ReplayConfig { max_samples_per_position: 1.5, ..Default::default() });
        assert!(!buf.can_sample(1), "empty");
        let mut batch = Batch::default();
        assert!(matches!(buf.sample_batch(&mut batch, 1, &mut rng), Err(RecordError::Sample(SampleError::Empty))));
        let games = games_where(&mut rng, 4, |r| r.moves.len() % 2 == 1);
        let mut it = games.into_iter();
        let g = it.next().unwrap();
        let p = g.len() as u64; // odd, so 1.5·p is not whole
        buf.add(g).unwrap();
        assert_eq!(buf.sample_budget(), (3 * p) / 2);
        assert!(buf.can_sample((3 * p / 2) as usize));
        assert!(!buf.can_sample((3 * p / 2) as usize + 1));
        buf.sample_batch(&mut batch, 10, &mut rng).unwrap();
        assert_eq!(buf.samples_drawn(), 10);
        assert_eq!(buf.sample_budget(), (3 * p) / 2 - 10);
        let rest = buf.sample_budget() as usize;
        buf.sample_batch(&mut batch, rest, &mut rng).unwrap();
        assert_eq!(batch.len, rest);
        assert_eq!(buf.sample_budget(), 0);
        assert!(!buf.can_sample(1));
        // Drawing past the budget is the caller's choice; the budget saturates at 0.
        buf.sample_batch(&mut batch, 5, &mut rng).unwrap();
        assert_eq!(buf.sample_budget(), 0);
        let g = it.next().unwrap();
        let q = g.len() as u64;
        buf.add(g).unwrap();
        let budget = (3 * (p + q)) / 2 - buf.samples_drawn();
        assert_eq!(buf.sample_budget(), budget);
        assert!(buf.can_sample(budget as usize));
        assert!(!buf.can_sample(budget as usize + 1));
        // A restart restores the counters the checkpoint saved.
        buf.restore_counters(1000, 1499);
        assert_eq!(buf.sample_budget(), 1);
        assert_eq!(buf.stats().samples_drawn, 1499);
    }

    /// Replays `sample_batch`'s draws from a copy of its generator and checks every row
    /// against the sample written directly; returns how many rows were mirrored.
    fn check_rows(buf: &mut ReplayBuffer<C4>, seed: u64, n: usize) -> usize {
        let mut rng = Rng::seed_from_u64(seed);
        let mut again = rng.clone();
        let mut batch = Batch::default();
        buf.sample_batch(&mut batch, n, &mut rng).unwrap();
        let opts = buf.config().sample_options(ReturnScale::new(DEFAULT_MAX_RETURN));
        let (pl, na) = (C4::standard().plane_shape().len(), C4::standard().num_actions());
        let mut mirrored = 0;
        for row in 0..n {
            let (gi, index) = buf.draw(&mut again).unwrap();
            let game = buf.game(gi).unwrap();
            let sym = game.pick_symmetry(&mut again, &opts);
            let (mut planes, mut policy) = (vec![0.0; pl], vec![0.0; na]);
            let t = game.write_sample(index, sym, &opts, &mut planes, &mut policy).unwrap();
            assert_eq!(&batch.planes[row * pl..(row + 1) * pl], &planes[..]);
            assert_eq!(&batch.policy[row * na..(row + 1) * na], &policy[..]);
            assert_eq!(batch.value[row], t.value);
            assert_eq!(batch.weight[row], game.weight(index, &opts).unwrap());
            if sym != 0 {
                let (mut p0, mut q0) = (vec![0.0; pl], vec![0.0; na]);
                game.write_sample(index, 0, &opts, &mut p0, &mut q0).unwrap();
                if p0 != planes {
                    mirrored += 1;
                }
            }
        }
        mirrored
    }

    #[test]
    fn augment_off_gives_the_identity_and_on_mirrors_some_rows() {
        let mut rng = Rng::seed_from_u64(9);
        let games = games_where(&mut rng, 20, |_| true);
        let mut plain = buffer(ReplayConfig { augment: false, ..Default::default() });
        let mut augmented = buffer(ReplayConfig::default());
        for g in &games {
            plain.add(TrainingGame::new(g.record().clone(), C4::standard()).unwrap()).unwrap();
            augmented.add(TrainingGame::new(g.record().clone(), C4::standard()).unwrap()).unwrap();
        }
        assert_eq!(check_rows(&mut plain, 10, 200), 0);
        assert!(check_rows(&mut augmented, 10, 200) > 50);
    }

    #[test]
    fn late_positions_weigh_more_in_the_weight_column() {
        let mut rng = Rng::seed_from_u64(11);
        let mut buf = buffer(ReplayConfig { late_position_factor: 0.94, ..Default::default() });
        for g in games_where(&mut rng, 10, |r| r.moves.len() >= 10) {
            buf.add(g).unwrap();
        }
        check_rows(&mut buf, 12, 300);
        let g = buf.game(0).unwrap();
        let opts = buf.config().sample_options(ReturnScale::new(DEFAULT_MAX_RETURN));
        assert_eq!(g.weight(g.len() - 1, &opts), Some(1.0));
        assert_eq!(g.weight(g.len() - 3, &opts), Some(0.94f32.powi(2)));
        let mut batch = Batch::default();
        buf.sample_batch(&mut batch, 500, &mut rng).unwrap();
        assert!(batch.weight.iter().any(|&w| w < 0.9) && batch.weight.contains(&1.0));
    }

    #[test]
    fn short_games_are_drawn_less_often() {
        let mut rng = Rng::seed_from_u64(13);
        let first = |r: &GameRecord| r.outcome == RecordOutcome::Win(Player::First);
        let mut games = games_where(&mut rng, 20, |r| first(r) && r.moves.len() < 15);
        games.extend(games_where(&mut rng, 20, |r| first(r) && r.moves.len() >= 15));
        let short_positions: u64 = games[..20].iter().map(|g| g.len() as u64).sum();
        let long_positions: u64 = games[20..].iter().map(|g| g.len() as u64).sum();
        let share_of_short = |weight: f32, plies: u32| {
            let mut buf =
                buffer(ReplayConfig { short_game_plies: plies, short_game_weight: weight, ..Default::default() });
            for g in &games {
                buf.add(TrainingGame::new(g.record().clone(), C4::standard()).unwrap()).unwrap();
            }
            let mut r = Rng::seed_from_u64(14);
            let draws = 40_000;
            let short = (0..draws).filter(|_| buf.draw(&mut r).unwrap().0 < 20).count();
            short as f64 / draws as f64
        };
        let (s, l) = (short_positions as f64, long_positions as f64);
        let want_half = 0.5 * s / (0.5 * s + l);
        let want_full = s / (s + l);
        let got_half = share_of_short(0.5, 15);
        let got_off = share_of_short(0.5, 0);
        assert!((got_half - want_half).abs() < 0.015, "{got_half} vs {want_half}");
        assert!((got_off - want_full).abs() < 0.015, "{got_off} vs {want_full}");
        assert!(want_full - want_half > 0.05, "the test can tell them apart");
    }

    #[test]
    fn the_short_game_threshold_is_in_player_moves() {
        let mut rng = Rng::seed_from_u64(17);
        let rec = random_record(&mut rng, 1);
        let plies = rec.moves.len() as u32;
        let mass = |short_game_plies: u32| {
            let mut buf = buffer(ReplayConfig { short_game_plies, short_game_weight: 0.25, ..Default::default() });
            buf.add(training(rec.clone())).unwrap();
            buf.classes[outcome_class(rec.outcome)].mass()
        };
        let p = plies as f64;
        assert_eq!(mass(plies), p, "a game of exactly the threshold is not short");
        assert_eq!(mass(plies + 1), 0.25 * p);
        assert_eq!(mass(0), p);
    }

    #[test]
    fn stats_count_the_window() {
        let mut rng = Rng::seed_from_u64(15);
        let mut buf = buffer(ReplayConfig::default());
        assert_eq!(buf.stats().first_player_win_rate, 0.0);
        assert_eq!(buf.stats().mean_game_length, 0.0);
        let mut games = games_where(&mut rng, 3, |r| r.outcome == RecordOutcome::Win(Player::First));
        games.extend(games_where(&mut rng, 1, |r| r.outcome == RecordOutcome::Win(Player::Second)));
        let plies: usize = games.iter().map(|g| g.record().moves.len()).sum();
        let positions: usize = games.iter().map(|g| g.len()).sum();
        for g in games {
            buf.add(g).unwrap();
        }
        let s = buf.stats();
        assert_eq!(s.games, 4);
        assert_eq!(s.positions, positions as u64);
        assert_eq!(s.class_games, [3, 1, 0]);
        assert_eq!(s.first_player_win_rate, 0.75);
        assert_eq!(s.mean_game_length, plies as f64 / 4.0);
        // The default window is fixed.
        assert_eq!(s.window_limit, 100_000);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["class_games"], serde_json::json!([3, 1, 0]));
    }

    #[test]
    fn games_without_positions_are_skipped_and_other_shapes_refused() {
        let mut buf = buffer(ReplayConfig::default());
        let mut rec = GameRecord::new(id(1), GameSpec::connect4(), 0);
        let mut g = C4::standard();
        for a in [0u16, 1, 0, 1, 0, 1, 0] {
            g.play(a).unwrap();
            rec.moves.push(MoveRecord::untrained(a));
        }
        rec.outcome = g.outcome().unwrap().into();
        buf.add(training(rec)).unwrap();
        assert_eq!((buf.games(), buf.positions(), buf.total_positions_added()), (0, 0, 0));

        let mut rng = Rng::seed_from_u64(16);
        buf.add(training(random_record(&mut rng, 2))).unwrap();
        let small = C4::new(5, 4, &[]).unwrap();
        let mut rec = GameRecord::new(id(3), small.spec(), 0);
        let mut g = small.clone();
        for a in [0u16, 1, 0, 1, 0, 1, 0] {
            g.play(a).unwrap();
            rec.moves.push(MoveRecord::player(a, vec![(a, 1.0)], 0.0));
        }
        rec.outcome = g.outcome().unwrap().into();
        let err = buf.add(TrainingGame::new(rec, small).unwrap()).unwrap_err().to_string();
        assert!(
            err.contains("9x4x5 input planes and 5 actions") && err.contains("9x6x7 planes and 7 actions"),
            "{err}"
        );
        assert_eq!(buf.games(), 1);
    }

    #[test]
    fn a_buffer_refuses_a_config_that_does_not_validate() {
        assert!(ReplayBuffer::<C4>::new(
            ReplayConfig { window_positions: 0, ..ReplayConfig::default() },
            ReturnScale::new(DEFAULT_MAX_RETURN)
        )
        .is_err());
    }
}
