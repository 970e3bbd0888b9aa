//! The self-play engine: G games at once, one batched network call per step.
//!
//! Each step runs every game's search until it needs the network (or finishes a move),
//! collects those leaves into one batch, evaluates it, and hands each game its result. One
//! leaf per game per step keeps the search exact (no virtual loss) while the batch is as
//! wide as the number of games in flight. Network results are cached by position hash for
//! all the engine's games together: every game's first searches explore the same opening
//! positions, and a position met again after the graph was trimmed costs nothing.
//!
//! With playout cap randomisation (KataGo) only a random share of moves gets the full,
//! exploring search and becomes a training target; the rest are fast searches.
//!
//! Every game is searched through the search's one entry point ([`Searcher`]): two-player
//! games run the PUCT graph search, one-player games with tile spawns (2048, 2584) the
//! chance-node search. Those start from the
//! empty board and the engine draws every spawn itself, recording it as a chance event, so
//! the record holds the whole game ([`GameRecord::start`]).
//!
//! `dojo_program::selfplay` (`dojo selfplay`) runs this engine from a checkpoint to a file:
//! the same concept a layer up, hence the same name.

use super::config::{SearchConfig, SelfPlayConfig};
use super::evaluator::Evaluator;
use super::graph::HashIndex;
use super::searcher::Searcher;
use super::step::{LeafSearch, Step};
use dojo_base::rng::Rng;
use dojo_base::util::SettingError;
use dojo_game::GameSpec;
use dojo_game::{draw_chance_event, play_random_opening, Action, Game, Outcome, Player, ToMove};
use dojo_record::{new_game_id, GameRecord, MoveRecord, RecordOutcome};
use rand::{Rng as _, RngExt, SeedableRng};
use std::time::{Duration, Instant};

/// Most floats (logits plus value) the network result cache holds before it is emptied:
/// 64 MiB, some 2 M Connect Four results or 45 k on a 19×19 board (41 k on 20×20).
const CACHE_FLOATS: usize = 16 << 20;

/// Why a self-play engine cannot start.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SelfPlayError {
    /// A search or self-play setting out of its range.
    #[error(transparent)]
    Setting(#[from] SettingError),
    #[error("{spec}: self-play cannot start from a finished game")]
    Finished { spec: GameSpec },
    #[error(
        "{spec}: one-player self-play starts from the empty board (the record's start), so that it records the opening spawns"
    )]
    OnePlayerMidGame { spec: GameSpec },
    #[error("{spec}: self-play needs a game between two players, or a one-player game")]
    Players { spec: GameSpec },
}

struct Slot<G: Game> {
    game: G,
    search: Searcher<G>,
    record: GameRecord,
    no_resign: bool,
    /// Consecutive moves each player's root value was below the resign threshold.
    low_streak: [u32; 2],
    /// The current move gets the full search and is a training target.
    full_search: bool,
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
    /// Scratch for drawing chance events.
    outcomes: Vec<(Action, f32)>,
    /// This step's games waiting for the network, each with its row of the batch.
    pending: Vec<(usize, usize)>,
    /// The batch row of each position in this step's batch: games that reach the same
    /// position in one step share one row.
    rows: HashIndex<usize>,
    /// Network results by position hash, for the current model only.
    cache: HashIndex<(Box<[f32]>, f32)>,
    cache_floats: usize,
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
    ) -> Result<SelfPlayEngine<G>, SelfPlayError> {
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
            outcomes: Vec::new(),
            pending: Vec::new(),
            rows: HashIndex::default(),
            cache: HashIndex::default(),
            cache_floats: 0,
            stats: EngineStats::default(),
        };
        let probe = (engine.start)(&mut engine.rng);
        let spec = probe.spec();
        if probe.outcome().is_some() {
            return Err(SelfPlayError::Finished { spec });
        }
        match probe.is_one_player() {
            false if matches!(probe.to_move(), ToMove::Player(_)) => {}
            true if probe.to_move() == ToMove::Chance && probe.ply() == 0 => {}
            true => return Err(SelfPlayError::OnePlayerMidGame { spec }),
            false => return Err(SelfPlayError::Players { spec }),
        }
        for _ in 0..engine.play.parallel_games {
            let slot = engine.new_slot();
            engine.slots.push(slot);
        }
        Ok(engine)
    }

    /// The model version recorded in games started from now on, and in the games started
    /// before any version was set (the engine's first games, made with it: they are played
    /// by this model from their first searched move). A new model also drops the cached
    /// results of the old one.
    pub fn set_model_version(&mut self, version: u64) {
        if version != self.model_version {
            self.cache.clear();
            self.cache_floats = 0;
        }
        if self.model_version == 0 {
            for slot in self.slots.iter_mut().flatten() {
                slot.record.model_version = version;
            }
        }
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
        let mut game = (self.start)(&mut self.rng);
        let mut record = GameRecord::new(new_game_id(&mut self.rng), game.spec(), self.model_version);
        self.play_random_opening(&mut game, &mut record);
        draw_chance_events(&mut game, &mut self.rng, &mut self.outcomes, &mut record.moves);
        let full_search = self.draw_full_search();
        let mut search = Searcher::new(self.search.clone(), full_search, Rng::seed_from_u64(self.rng.next_u64()));
        search.set_root(&game);
        let no_resign = self.play.resign_threshold > 0.0 && self.rng.random::<f32>() < self.play.no_resign_fraction;
        Some(Slot { game, search, record, no_resign, low_streak: [0; 2], full_search })
    }

    /// Plays the game's random opening moves (see `SelfPlayConfig::random_opening_plies`)
    /// and records them as moves that are not trained on. Only two-player games without
    /// chance events get one; a move that would end the game is never drawn.
    fn play_random_opening(&mut self, game: &mut G, record: &mut GameRecord) {
        if self.play.random_opening_plies == 0 || game.is_one_player() {
            return;
        }
        let plies = self.rng.random_range(..=self.play.random_opening_plies as usize);
        for action in play_random_opening(game, plies, &mut self.rng) {
            record.moves.push(MoveRecord::untrained(action));
            self.stats.moves += 1;
        }
    }

    /// Whether the next move gets the full search (playout cap randomisation).
    fn draw_full_search(&mut self) -> bool {
        self.play.full_search_fraction >= 1.0 || self.rng.random::<f32>() < self.play.full_search_fraction
    }

    /// Advances every game by one batched evaluation; finished games are appended to
    /// `finished`. Returns false once no game is left to play.
    pub fn step(&mut self, evaluator: &mut dyn Evaluator, finished: &mut Vec<GameRecord>) -> bool {
        self.pending.clear();
        self.rows.clear();
        self.planes.clear();
        for i in 0..self.slots.len() {
            self.advance_slot(i, finished);
        }
        if self.pending.is_empty() {
            return self.active() > 0;
        }
        let batch = self.rows.len();
        let actions = self.slots[self.pending[0].0].as_ref().expect("pending slot").game.num_actions();
        self.logits.resize(batch * actions, 0.0);
        self.values.resize(batch, 0.0);
        let t = Instant::now();
        evaluator.evaluate(&self.planes, batch, &mut self.logits, &mut self.values);
        self.stats.eval_time += t.elapsed();
        self.stats.evals += batch as u64;
        self.stats.batches += 1;
        if self.cache_floats + batch * (actions + 1) > CACHE_FLOATS {
            self.cache.clear();
            self.cache_floats = 0;
        }
        for (&hash, &k) in &self.rows {
            let logits = &self.logits[k * actions..(k + 1) * actions];
            self.cache.insert(hash, (logits.into(), self.values[k]));
        }
        self.cache_floats += batch * (actions + 1);
        for &(i, k) in &self.pending {
            let slot = self.slots[i].as_mut().expect("pending slot");
            slot.search.deliver(&self.logits[k * actions..(k + 1) * actions], self.values[k]);
        }
        true
    }

    /// Runs slot `i` until it needs the network; plays moves and finishes games on the way.
    fn advance_slot(&mut self, i: usize, finished: &mut Vec<GameRecord>) {
        loop {
            let Some(slot) = self.slots[i].as_mut() else { return };
            let full = self.search.simulations;
            let simulations = if slot.full_search { full } else { self.play.fast_simulations.min(full) };
            match slot.search.run(simulations) {
                Step::NeedsEval => {
                    let hash = slot.search.leaf().hash();
                    // Disjoint fields: the cached logits are read in place, not copied.
                    if let Some((logits, value)) = self.cache.get(&hash) {
                        self.stats.cache_hits += 1;
                        slot.search.deliver(logits, *value);
                        continue;
                    }
                    let next_row = self.rows.len();
                    let row = *self.rows.entry(hash).or_insert(next_row);
                    if row == next_row {
                        let leaf = slot.search.leaf();
                        let len = leaf.plane_shape().len();
                        let at = self.planes.len();
                        self.planes.resize(at + len, 0.0);
                        leaf.encode_planes(&mut self.planes[at..]);
                    } else {
                        self.stats.cache_hits += 1;
                    }
                    self.pending.push((i, row));
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
        let ToMove::Player(mover) = slot.game.to_move() else { unreachable!("the searched position has a mover") };
        let root_value = slot.search.root_value();
        // One-player games play to the end: there is no one to resign to.
        if play.resign_threshold > 0.0 && !slot.game.is_one_player() {
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
        let action = slot.search.choose_move(temperature);
        let entry = if slot.full_search {
            MoveRecord::player(action, slot.search.policy_target(), root_value)
        } else {
            MoveRecord::untrained(action)
        };
        slot.record.moves.push(entry);
        slot.game.play(action).expect("the search only picks legal moves");
        self.stats.moves += 1;
        draw_chance_events(&mut slot.game, &mut self.rng, &mut self.outcomes, &mut slot.record.moves);
        if let Some(outcome) = slot.game.outcome() {
            slot.record.outcome = outcome.into();
            return Some(self.finish(i));
        }
        let full_search = self.draw_full_search();
        let slot = self.slots[i].as_mut().expect("active slot");
        slot.full_search = full_search;
        let game = slot.game.clone();
        slot.search.advance(&game, full_search);
        None
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
        record.created_unix_ms = dojo_base::util::now_unix_ms();
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

/// Draws and records the pending chance events (a one-player game's spawns).
fn draw_chance_events<G: Game>(
    game: &mut G,
    rng: &mut Rng,
    scratch: &mut Vec<(Action, f32)>,
    moves: &mut Vec<MoveRecord>,
) {
    while game.outcome().is_none() && game.to_move() == ToMove::Chance {
        match draw_chance_event(game, rng, scratch) {
            Some(event) => moves.push(MoveRecord::chance(event)),
            None => break,
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
