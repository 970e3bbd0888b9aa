//! The learner's state and its training loop.
//!
//! Records arrive from the gRPC service already validated and durable in the game log; the
//! service hands them to the training thread over a channel. The training thread owns the
//! replay buffer and the trainer, trains whenever the buffer allows another batch (the
//! sample cap makes it wait for data instead of overfitting), publishes a model version
//! every `publish_every` steps and writes a resumable checkpoint every `checkpoint_every`.

use crate::config::RunConfig;
use crate::gamelog::{Appended, GameLog, LogError};
use crate::replay::ReplayBuffer;
use crate::run_dir::{RunDir, RunState};
use crate::storage::{StorageHealth, Writer};
use crate::telemetry::Telemetry;
use dojo_core::game::{FromAnyGame, Game, Outcome, Player};
use dojo_core::net::average::WeightAverage;
use dojo_core::net::checkpoint;
use dojo_core::net::device::set_threads;
use dojo_core::net::model::Model;
use dojo_core::net::train::{Batch, Losses, Trainer};
use dojo_core::ntuple::report::{final_board, GameScore, ScoreReport};
use dojo_core::record::boards::Boards;
use dojo_core::record::{GameRecord, RecordOutcome, TrainingGame};
use dojo_core::rng::Rng;
use dojo_proto::tensorboard::EventWriter;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// A published model version as the service streams it.
#[derive(Debug)]
pub struct Published {
    pub version: u64,
    pub sha256: String,
    pub sidecar_json: String,
    pub weights: Vec<u8>,
}

/// Counters shared by the service and the training thread.
#[derive(Debug, Default)]
pub struct Counters {
    pub games: AtomicU64,
    pub positions: AtomicU64,
    pub rejected: AtomicU64,
    pub duplicates: AtomicU64,
    pub steps: AtomicU64,
    pub buffer_positions: AtomicU64,
}

/// What the service and the training thread share.
pub struct Shared {
    pub run_id: String,
    pub config: RunConfig,
    pub run_dir: RunDir,
    pub log: Mutex<GameLog>,
    pub to_trainer: Mutex<Sender<GameRecord>>,
    pub model: RwLock<Arc<Published>>,
    pub counters: Counters,
    pub token: Option<String>,
    pub stop: AtomicBool,
    /// Mean losses of the last metrics window (for progress displays).
    pub latest_losses: Mutex<Option<Losses>>,
    /// What `/metrics` serves.
    pub telemetry: Telemetry,
    /// The last games stored, newest last, for the dashboard's replays.
    pub recent_games: Mutex<std::collections::VecDeque<RecentGame>>,
    /// Whether the run directory takes writes (the game log's decides readiness).
    pub storage: StorageHealth,
}

/// How many stored games the dashboard can replay.
pub const RECENT_GAMES: usize = 20;

/// A stored game as the dashboard replays it.
#[derive(Clone, Debug, Serialize)]
pub struct RecentGame {
    pub model_version: u64,
    pub unix_ms: u64,
    /// The actions (chance events included), in order.
    pub moves: Vec<u16>,
    /// 1: the first player won, -1: the second, 0: a draw (or a one-player game's end).
    pub result: i8,
    /// One-player games (2048, 2584): the final score, largest tile and last board (16 face
    /// values, row-major, 0 for empty), which the page shows instead of replaying moves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tile: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<Vec<u32>>,
}

impl RecentGame {
    /// The dashboard's view of a stored (validated) record.
    pub fn of(record: &GameRecord) -> RecentGame {
        let end = if record.spec.is_one_player() { final_board(record) } else { None };
        RecentGame {
            model_version: record.model_version,
            unix_ms: record.created_unix_ms,
            moves: record.moves.iter().map(|m| m.action).collect(),
            result: match record.outcome {
                RecordOutcome::Win(Player::First) => 1,
                RecordOutcome::Win(Player::Second) => -1,
                _ => 0,
            },
            score: end.map(|(s, _)| s.score),
            max_tile: end.map(|(s, _)| s.max_tile),
            board: end.map(|(_, tiles)| tiles.into_iter().flatten().collect()),
        }
    }
}

impl Shared {
    /// The state of a run whose log is open and whose newest model is `published`, with
    /// nothing counted, no token and the storage healthy.
    pub fn new(
        run_id: String,
        config: RunConfig,
        run_dir: RunDir,
        log: GameLog,
        to_trainer: Sender<GameRecord>,
        published: Published,
    ) -> Shared {
        let telemetry = Telemetry::for_game(&config.game);
        Shared {
            run_id,
            config,
            run_dir,
            log: Mutex::new(log),
            to_trainer: Mutex::new(to_trainer),
            model: RwLock::new(Arc::new(published)),
            counters: Counters::default(),
            token: None,
            stop: AtomicBool::new(false),
            latest_losses: Mutex::new(None),
            telemetry,
            recent_games: Mutex::new(Default::default()),
            storage: StorageHealth::default(),
        }
    }

    pub fn newest(&self) -> Arc<Published> {
        self.model.read().expect("model lock").clone()
    }

    /// Stores validated games durably, with one write and one fsync (group commit), and
    /// passes the new ones to training. Games already stored (by id) come back as
    /// [`Appended::Duplicate`] without being stored again. A failure of the log (not of one
    /// game) is reported to [`Shared::storage`]; the committer's probe clears it.
    pub fn store_batch(&self, records: &[GameRecord]) -> Result<Vec<Appended>, LogError> {
        let appended = {
            let mut log = self.log.lock().expect("log lock");
            match log.append_batch(records) {
                Ok(appended) => appended,
                Err(e) => {
                    if !matches!(e, LogError::Unstorable { .. }) {
                        self.storage.failed(Writer::GameLog, &e.to_string());
                    }
                    return Err(e);
                }
            }
        };
        for (record, appended) in records.iter().zip(&appended) {
            match appended {
                Appended::Stored => self.stored(record.clone()),
                Appended::Duplicate => {
                    self.counters.duplicates.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        Ok(appended)
    }

    /// Counts a newly stored game, keeps it for the dashboard and hands it to training.
    fn stored(&self, record: GameRecord) {
        self.counters.games.fetch_add(1, Ordering::Relaxed);
        self.counters.positions.fetch_add(record.player_moves() as u64, Ordering::Relaxed);
        let recent = RecentGame::of(&record);
        let mut games = self.recent_games.lock().expect("recent games lock");
        if games.len() == RECENT_GAMES {
            games.pop_front();
        }
        games.push_back(recent);
        drop(games);
        // The trainer may have exited (shutdown); the game is in the log regardless.
        let _ = self.to_trainer.lock().expect("channel lock").send(record);
    }
}

/// Reads a published version's files.
pub fn read_published(run: &RunDir, version: u64) -> Result<Published, String> {
    let path = run.model_version(version);
    let (weights_path, sidecar_path) = checkpoint::paths(&path);
    let sidecar = checkpoint::read_sidecar(&path).map_err(|e| e.to_string())?;
    let weights = std::fs::read(&weights_path).map_err(|e| format!("cannot read {}: {e}", weights_path.display()))?;
    let sidecar_json =
        std::fs::read_to_string(&sidecar_path).map_err(|e| format!("cannot read {}: {e}", sidecar_path.display()))?;
    Ok(Published { version, sha256: sidecar.sha256, sidecar_json, weights })
}

/// One line of metrics.jsonl.
#[derive(Serialize)]
struct MetricsLine {
    unix_ms: u64,
    step: u64,
    version: u64,
    policy_loss: f64,
    value_loss: f64,
    /// The weight decay's L2 term, `weight_decay / 2 × Σ w²`.
    l2_loss: f64,
    /// What training minimises: policy + weighted value (+ L2).
    total_loss: f64,
    entropy: f64,
    learning_rate: f64,
    samples_per_s: f64,
    games_per_s: f64,
    games: u64,
    positions: u64,
    buffer_positions: usize,
    buffer_games: usize,
    first_player_win_rate: f64,
    draw_rate: f64,
    mean_game_length: f64,
    /// One-player games only, and only for windows that had games.
    #[serde(flatten)]
    scores: Option<ScoreLine>,
}

/// The scores of a metrics window's one-player games, the numbers of seed 002's report:
/// `"scored_games": 2, "mean_score": 200.0, "max_score": 300, "max_tile": 2048,
/// "reach": {"2048": 0.5, "4096": 0.0, ...}`.
#[derive(Debug, PartialEq, Serialize)]
struct ScoreLine {
    /// The games the numbers are over (a rate over 3 games is not one over 300).
    scored_games: usize,
    mean_score: f64,
    max_score: u64,
    max_tile: u32,
    /// The share of games whose largest tile was each tile of the game's reach table or
    /// bigger, keyed by the tile.
    reach: ReachRates,
}

/// (tile, share) in increasing tile order, written as a JSON object keyed by the tile's
/// text, in that order (a `BTreeMap<String, _>` would put "16384" before "2048").
#[derive(Debug, PartialEq)]
struct ReachRates(Vec<(u32, f64)>);

impl Serialize for ReachRates {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (tile, share) in &self.0 {
            map.serialize_entry(&tile.to_string(), share)?;
        }
        map.end()
    }
}

impl ScoreLine {
    /// None without games: a window in which no game finished has no score to plot.
    fn new(spec: &dojo_core::game::GameSpec, games: &[GameScore]) -> Option<ScoreLine> {
        let max_tile = games.iter().map(|g| g.max_tile).max()?;
        let report = ScoreReport::new(spec, games);
        Some(ScoreLine {
            scored_games: report.games,
            mean_score: report.mean,
            max_score: report.max,
            max_tile,
            reach: ReachRates(report.reach.iter().map(|r| (r.tile, r.reached)).collect()),
        })
    }
}

/// The training thread's state.
pub struct TrainingLoop<G: Game + FromAnyGame> {
    run: RunDir,
    config: RunConfig,
    /// Set by [`TrainingLoop::run`]; restoring happens before the service exists.
    shared: Option<Arc<Shared>>,
    /// Where records replay from (each record's own board for `connect4:saiblo`).
    boards: Boards<G>,
    trainer: Trainer,
    /// The average of the trained weights, which is what gets published (when configured).
    average: Option<WeightAverage>,
    buffer: ReplayBuffer<G>,
    incoming: Receiver<GameRecord>,
    rng: Rng,
    version: u64,
    bound: SessionBound,
    // Metrics since the last line.
    losses: Vec<Losses>,
    window_start: Instant,
    window_games: u64,
    recent: Vec<(Option<Player>, usize)>,
    /// Whether the game ends in a score (one-player): then the window's games are scored.
    scored: bool,
    scores: Vec<GameScore>,
    metrics: std::fs::File,
    /// The same numbers for TensorBoard (`RUN/tensorboard/learner/`); none where the file
    /// could not be made (training goes on without, and says so once).
    tensorboard: Option<EventWriter>,
}

impl<G: Game + FromAnyGame> TrainingLoop<G> {
    /// Restores (or creates) the model, optimizer and replay buffer of the run. Returns the
    /// loop and the newest published model.
    pub fn restore(inputs: RestoreInputs<G>) -> Result<(TrainingLoop<G>, Published, Vec<GameRecord>), String> {
        let RestoreInputs { run, config, start, stored, incoming, bound, device } = inputs;
        let start = &start;
        set_threads(config.learner.threads);
        let state = run.read_state()?;
        let (model, version) = match &state.model {
            Some(rel) => {
                let loaded =
                    checkpoint::load(&run.resolve(rel), device, Some(&config.game)).map_err(|e| e.to_string())?;
                (loaded.model, state.version)
            }
            None => (Model::new(config.architecture(start)?, device), 0),
        };
        if model.arch().any_size != config.any_size() {
            return Err(format!(
                "the run's network is {}an any-size network, but the config {}: a run keeps its network's shape",
                if model.arch().any_size { "" } else { "not " },
                if config.any_size() { "asks for one" } else { "does not ask for one (net.any_size)" }
            ));
        }
        // Every record replays from its own board, framed as the network takes it.
        let boards = Boards::new(&config.game, start.clone(), model.arch().frame()).map_err(|e| e.to_string())?;
        if let Some(trained) = model.arch().max_return {
            if trained as f64 != config.search.max_return {
                return Err(format!(
                    "the run's network was trained with search.max_return = {trained}, but the config says {}: value targets would change their meaning mid-run",
                    config.search.max_return
                ));
            }
        }
        // With weight averaging, the published versions are the average and the weights
        // being trained are checkpointed beside the optimizer state.
        let (model, average) = match (config.learner.weight_average_steps, &state.train_model) {
            (0, _) => (model, None),
            (steps, Some(rel)) => {
                let raw = checkpoint::load(&run.resolve(rel), device, Some(&config.game)).map_err(|e| e.to_string())?;
                (raw.model, Some(WeightAverage::new(&model, steps as f64, state.step)?))
            }
            (steps, None) => {
                let average = WeightAverage::new(&model, steps as f64, state.step)?;
                (model, Some(average))
            }
        };
        let mut trainer = Trainer::new(model, config.train.clone())?;
        if let Some(rel) = &state.optimizer {
            trainer.load_state(&run.resolve(rel)).map_err(|e| e.to_string())?;
            if trainer.step != state.step {
                return Err(format!(
                    "{rel} is the optimizer state of step {}, but state.json says step {}",
                    trainer.step, state.step
                ));
            }
        }
        trainer.step = state.step;
        let mut buffer = ReplayBuffer::new(config.replay.clone(), config.search.return_scale())?;
        let mut rejected = Vec::new();
        for record in stored {
            match boards.of_record(&record).and_then(|start| TrainingGame::new(record.clone(), start)) {
                Ok(game) => buffer.add(game).map_err(|e| e.to_string())?,
                Err(_) => rejected.push(record),
            }
        }
        // The cap on samples per position counts across restarts.
        let added = buffer.total_positions_added();
        buffer.restore_counters(added, state.samples_drawn);
        let metrics = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(run.metrics())
            .map_err(|e| format!("cannot open {}: {e}", run.metrics().display()))?;
        let tensorboard = EventWriter::create(&run.tensorboard("learner"))
            .map_err(|e| tracing::warn!("no TensorBoard events: {}: {e}", run.tensorboard("learner").display()))
            .ok();
        let scored = config.game.is_one_player();
        let mut lp = TrainingLoop {
            run: run.clone(),
            config,
            shared: None,
            boards,
            trainer,
            average,
            buffer,
            incoming,
            rng: rand::make_rng(),
            version,
            bound,
            losses: Vec::new(),
            window_start: Instant::now(),
            window_games: 0,
            recent: Vec::new(),
            scored,
            scores: Vec::new(),
            metrics,
            tensorboard,
        };
        if version == 0 {
            // A new run: version 1 is the random network, so workers can start at once.
            lp.publish(&run)?;
            lp.checkpoint(&run)?;
        }
        let published = read_published(&run, lp.version)?;
        Ok((lp, published, rejected))
    }

    pub fn buffer_positions(&self) -> usize {
        self.buffer.positions()
    }

    pub fn step(&self) -> u64 {
        self.trainer.step
    }

    fn publish(&mut self, run: &RunDir) -> Result<(), String> {
        let version = self.version + 1;
        let path = run.model_version(version);
        let parent = (self.version > 0).then(|| run.model_version(self.version));
        let model = self.average.as_ref().map_or(&self.trainer.model, |a| a.model());
        let sidecar =
            checkpoint::save(model, &path, self.trainer.step, version, parent.as_deref()).map_err(|e| e.to_string())?;
        // Atomic: a gatekeeper polls this file while versions come several a second.
        let json = serde_json::to_vec_pretty(&sidecar).expect("sidecar serialises");
        dojo_core::util::atomic_write(&run.latest(), &json)
            .map_err(|e| format!("cannot update models/latest.json: {e}"))?;
        self.version = version;
        Ok(())
    }

    fn checkpoint(&mut self, run: &RunDir) -> Result<(), String> {
        if checkpoint::read_sidecar(&run.model_version(self.version)).map(|s| s.step).ok() != Some(self.trainer.step) {
            self.publish(run)?;
            self.announce(run)?;
        }
        let optim = run.optimizer_state(self.version);
        self.trainer.save_state(&optim).map_err(|e| e.to_string())?;
        let train_model = match self.average {
            Some(_) => {
                let path = run.train_weights(self.version);
                checkpoint::save(&self.trainer.model, &path, self.trainer.step, self.version, None)
                    .map_err(|e| e.to_string())?;
                Some(run.relative(&path))
            }
            None => None,
        };
        let state = RunState {
            version: self.version,
            step: self.trainer.step,
            model: Some(run.relative(&run.model_version(self.version))),
            optimizer: Some(run.relative(&optim)),
            samples_drawn: self.buffer.samples_drawn(),
            train_model,
        };
        run.write_state(&state)?;
        self.prune(run);
        Ok(())
    }

    /// Makes the newest version the one the service streams.
    fn announce(&self, run: &RunDir) -> Result<(), String> {
        if let Some(shared) = &self.shared {
            let published = read_published(run, self.version)?;
            shared.telemetry.published(published.version);
            *shared.model.write().expect("model lock") = Arc::new(published);
        }
        Ok(())
    }

    /// Reports how a write of models or checkpoints went; true when it worked.
    fn saved(&self, result: Result<(), String>) -> bool {
        let storage = &self.shared().storage;
        match result {
            Ok(()) => {
                storage.recovered(Writer::Checkpoints);
                true
            }
            Err(e) => {
                storage.failed(Writer::Checkpoints, &e);
                false
            }
        }
    }

    fn shared(&self) -> &Shared {
        self.shared.as_ref().expect("the loop runs with the service's shared state")
    }

    /// Deletes old versions beyond `keep_versions` (never the one state.json names).
    fn prune(&self, run: &RunDir) {
        let keep = self.config.learner.keep_versions as u64;
        if keep == 0 || self.version <= keep {
            return;
        }
        let oldest_kept = self.version - keep + 1;
        for v in 1..oldest_kept {
            let (w, s) = checkpoint::paths(&run.model_version(v));
            let (trained_w, trained_s) = checkpoint::paths(&run.train_weights(v));
            for path in [w, s, run.optimizer_state(v), trained_w, trained_s] {
                let _ = std::fs::remove_file(path);
            }
        }
    }

    fn take_incoming(&mut self, first: Option<GameRecord>) {
        let add = |lp: &mut TrainingLoop<G>, record: GameRecord| {
            let winner = match Outcome::from(record.outcome) {
                Outcome::Win(p) => Some(p),
                _ => None,
            };
            lp.recent.push((winner, record.player_moves()));
            lp.window_games += 1;
            if lp.scored {
                lp.scores.extend(GameScore::of_record(&record));
            }
            // Records were validated at ingest; a failure here would be a bug, not bad input.
            let game = lp.boards.of_record(&record).and_then(|start| TrainingGame::new(record, start));
            match game.map(|g| lp.buffer.add(g)) {
                Ok(Ok(())) => {}
                Ok(Err(e)) | Err(e) => tracing::error!("a stored game cannot be trained on: {e}"),
            }
        };
        if let Some(r) = first {
            add(self, r);
        }
        while let Ok(r) = self.incoming.try_recv() {
            add(self, r);
        }
        self.shared().counters.buffer_positions.store(self.buffer.positions() as u64, Ordering::Relaxed);
    }

    fn write_metrics(&mut self) {
        let n = self.losses.len().max(1) as f64;
        let secs = self.window_start.elapsed().as_secs_f64().max(1e-9);
        let games = self.recent.len().max(1) as f64;
        let l2 = self.trainer.l2_term();
        let line = MetricsLine {
            unix_ms: dojo_core::util::now_unix_ms(),
            step: self.trainer.step,
            version: self.version,
            policy_loss: self.losses.iter().map(|l| l.policy).sum::<f64>() / n,
            value_loss: self.losses.iter().map(|l| l.value).sum::<f64>() / n,
            l2_loss: l2,
            total_loss: self.losses.iter().map(|l| l.total).sum::<f64>() / n + l2,
            entropy: self.losses.iter().map(|l| l.entropy).sum::<f64>() / n,
            learning_rate: self.trainer.optimizer().lr(),
            samples_per_s: (self.losses.len() * self.config.train.batch_size) as f64 / secs,
            games_per_s: self.window_games as f64 / secs,
            games: self.shared().counters.games.load(Ordering::Relaxed),
            positions: self.shared().counters.positions.load(Ordering::Relaxed),
            buffer_positions: self.buffer.positions(),
            buffer_games: self.buffer.games(),
            first_player_win_rate: self.recent.iter().filter(|r| r.0 == Some(Player::First)).count() as f64 / games,
            draw_rate: self.recent.iter().filter(|r| r.0.is_none()).count() as f64 / games,
            mean_game_length: self.recent.iter().map(|r| r.1).sum::<usize>() as f64 / games,
            scores: ScoreLine::new(&self.config.game, &self.scores),
        };
        self.shared().telemetry.trained(line.step, line.samples_per_s, line.buffer_positions);
        self.shared().telemetry.scored(&self.scores);
        *self.shared().latest_losses.lock().expect("losses lock") =
            Some(Losses { policy: line.policy_loss, value: line.value_loss, total: 0.0, entropy: line.entropy });
        if let Ok(mut text) = serde_json::to_string(&line) {
            text.push('\n');
            let _ = self.metrics.write_all(text.as_bytes());
        }
        if let Some(tb) = &mut self.tensorboard {
            let mut scalars = vec![
                ("loss/policy", line.policy_loss),
                ("loss/value", line.value_loss),
                ("loss/l2", line.l2_loss),
                ("loss/total", line.total_loss),
                ("policy/entropy", line.entropy),
                ("train/learning_rate", line.learning_rate),
                ("train/samples_per_s", line.samples_per_s),
                ("selfplay/games_per_s", line.games_per_s),
                ("selfplay/game_length", line.mean_game_length),
                ("selfplay/first_player_win_rate", line.first_player_win_rate),
                ("selfplay/draw_rate", line.draw_rate),
                ("buffer/positions", line.buffer_positions as f64),
                ("model/version", line.version as f64),
            ];
            let reach_tags: Vec<(String, f64)> = match &line.scores {
                Some(s) => {
                    scalars.extend([
                        ("selfplay/mean_score", s.mean_score),
                        ("selfplay/max_score", s.max_score as f64),
                        ("selfplay/max_tile", f64::from(s.max_tile)),
                    ]);
                    s.reach.0.iter().map(|&(tile, share)| (format!("selfplay/reach_{tile}"), share)).collect()
                }
                None => Vec::new(),
            };
            scalars.extend(reach_tags.iter().map(|(tag, share)| (tag.as_str(), *share)));
            if let Err(e) = tb.scalars(line.step as i64, &scalars).and_then(|()| tb.flush()) {
                tracing::warn!("no more TensorBoard events: {}: {e}", tb.path().display());
                self.tensorboard = None;
            }
        }
        self.losses.clear();
        self.recent.clear();
        self.scores.clear();
        self.window_games = 0;
        self.window_start = Instant::now();
    }

    /// The learning rate of the next step: the configured one, annealed near the end of a
    /// bounded session.
    fn learning_rate(&self) -> f64 {
        let l = &self.config.learner;
        let factor = match self.bound.progress(self.trainer.step, Instant::now()) {
            Some(p) => anneal_factor(p, l.anneal_fraction, l.anneal_factor),
            None => 1.0,
        };
        self.config.train.learning_rate * factor
    }

    /// Runs until the stop flag is set or `max_steps` is reached; checkpoints on the way out.
    pub fn run(mut self, shared: Arc<Shared>) -> Result<(), String> {
        self.shared = Some(shared);
        let run = self.run.clone();
        let cfg = self.config.clone();
        let batch_size = cfg.train.batch_size;
        let mut batch = Batch::default();
        let mut last_checkpoint_step = self.trainer.step;
        self.bound.first_step = self.trainer.step;
        loop {
            if self.shared().stop.load(Ordering::Relaxed)
                || self.bound.max_steps.is_some_and(|m| self.trainer.step >= m)
            {
                break;
            }
            self.take_incoming(None);
            let ready =
                self.buffer.positions() as u64 >= cfg.learner.min_positions && self.buffer.can_sample(batch_size);
            if !ready {
                match self.incoming.recv_timeout(Duration::from_millis(100)) {
                    Ok(r) => self.take_incoming(Some(r)),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
                continue;
            }
            self.buffer.sample_batch(&mut batch, batch_size, &mut self.rng).map_err(|e| e.to_string())?;
            self.trainer.set_learning_rate(self.learning_rate());
            let losses = self.trainer.train_step(&batch);
            if let Some(average) = &mut self.average {
                average.update(&self.trainer.model)?;
            }
            self.losses.push(losses);
            self.shared().counters.steps.store(self.trainer.step, Ordering::Relaxed);
            if self.trainer.step.is_multiple_of(20) {
                self.write_metrics();
            }
            // A failed write (a full disk) is reported and tried again at the next
            // interval; training goes on in memory meanwhile, and the last good checkpoint
            // stays what a restart resumes from.
            if self.trainer.step.is_multiple_of(cfg.learner.publish_every) {
                let published = self.publish(&run).and_then(|()| self.announce(&run));
                self.saved(published);
            }
            if self.trainer.step.is_multiple_of(cfg.learner.checkpoint_every) {
                let checkpointed = self.checkpoint(&run);
                if self.saved(checkpointed) {
                    last_checkpoint_step = self.trainer.step;
                }
            }
        }
        if self.trainer.step != last_checkpoint_step || !run.state().exists() {
            self.checkpoint(&run)?;
        }
        if !self.losses.is_empty() {
            self.write_metrics();
        }
        Ok(())
    }
}

/// What bounds this learner session: a wall-clock deadline (`dojo train --for`) and a total
/// step count (`--steps`), either, both or neither.
#[derive(Clone, Copy, Debug)]
pub struct SessionBound {
    started: Instant,
    deadline: Option<Instant>,
    /// Total steps of the run (earlier sessions included) at which training stops.
    pub max_steps: Option<u64>,
    /// The step this session started at, set when training starts.
    first_step: u64,
}

impl SessionBound {
    pub fn new(deadline: Option<Instant>, max_steps: Option<u64>) -> SessionBound {
        SessionBound { started: Instant::now(), deadline, max_steps, first_step: 0 }
    }

    /// How far through its bound the session is, in `0..=1`: the further of the time and
    /// the step fraction. `None` for an unbounded session.
    pub fn progress(&self, step: u64, now: Instant) -> Option<f64> {
        let first_step = self.first_step;
        let by_time = self.deadline.map(|d| {
            let total = d.saturating_duration_since(self.started).as_secs_f64();
            let done = now.saturating_duration_since(self.started).as_secs_f64();
            if total > 0.0 {
                (done / total).min(1.0)
            } else {
                1.0
            }
        });
        let by_steps = self.max_steps.map(|m| {
            let total = m.saturating_sub(first_step);
            if total > 0 {
                (step.saturating_sub(first_step) as f64 / total as f64).min(1.0)
            } else {
                1.0
            }
        });
        match (by_time, by_steps) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}

/// The learning-rate multiplier at `progress` through a bounded session: 1 until the final
/// `fraction`, then falling linearly to `end` at the bound.
pub fn anneal_factor(progress: f64, fraction: f64, end: f64) -> f64 {
    if fraction <= 0.0 {
        return 1.0;
    }
    let into = ((progress - (1.0 - fraction)) / fraction).clamp(0.0, 1.0);
    1.0 - (1.0 - end) * into
}

/// What [`TrainingLoop::restore`] needs.
pub struct RestoreInputs<G: Game> {
    pub run: RunDir,
    pub config: RunConfig,
    /// The record start of the run's board, or one of its boards (for the type).
    pub start: G,
    pub stored: Vec<GameRecord>,
    pub incoming: Receiver<GameRecord>,
    pub bound: SessionBound,
    /// Where the network trains (published weights are written from it as f32 on the CPU).
    pub device: tch::Device,
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_core::game::sliding::SpawnOdds;
    use dojo_core::game::GameSpec;

    fn g(score: u64, max_tile: u32) -> GameScore {
        GameScore { score, max_tile }
    }

    #[test]
    fn a_windows_scores_are_its_games_mean_best_and_reach_rates() {
        let line = ScoreLine::new(&GameSpec::Twenty48, &[g(100, 2048), g(300, 1024)]).unwrap();
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            r#"{"scored_games":2,"mean_score":200.0,"max_score":300,"max_tile":2048,"reach":{"2048":0.5,"4096":0.0,"8192":0.0,"16384":0.0,"32768":0.0}}"#
        );
        let fib = GameSpec::Fib2584 { odds: SpawnOdds::OneTwo };
        let line = ScoreLine::new(&fib, &[g(10, 987), g(20, 610), g(60, 233), g(10, 2584)]).unwrap();
        assert_eq!((line.mean_score, line.max_score, line.max_tile), (25.0, 60, 2584));
        assert_eq!(line.reach.0[..5], [(610, 0.75), (987, 0.5), (1597, 0.25), (2584, 0.25), (4181, 0.0)]);
        assert_eq!(ScoreLine::new(&GameSpec::Twenty48, &[]), None, "no games, no scores");
    }

    #[test]
    fn metrics_lines_carry_scores_only_when_there_are_some() {
        let mut line = MetricsLine {
            unix_ms: 1,
            step: 20,
            version: 2,
            policy_loss: 1.5,
            value_loss: 0.5,
            l2_loss: 0.0,
            total_loss: 2.0,
            entropy: 1.0,
            learning_rate: 0.01,
            samples_per_s: 100.0,
            games_per_s: 2.0,
            games: 3,
            positions: 90,
            buffer_positions: 90,
            buffer_games: 3,
            first_player_win_rate: 0.5,
            draw_rate: 0.0,
            mean_game_length: 30.0,
            scores: None,
        };
        let two_player = serde_json::to_string(&line).unwrap();
        assert!(two_player.ends_with(r#""first_player_win_rate":0.5,"draw_rate":0.0,"mean_game_length":30.0}"#));
        line.scores = ScoreLine::new(&GameSpec::Twenty48, &[g(12, 4096)]);
        let one_player: serde_json::Value = serde_json::from_str(&serde_json::to_string(&line).unwrap()).unwrap();
        assert_eq!((one_player["step"].as_u64(), one_player["max_tile"].as_u64()), (Some(20), Some(4096)));
        assert_eq!(one_player["reach"]["4096"].as_f64(), Some(1.0));
        assert_eq!(one_player["reach"]["8192"].as_f64(), Some(0.0));
    }

    #[test]
    fn progress_is_the_further_of_time_and_steps() {
        let start = Instant::now();
        let unbounded = SessionBound { started: start, deadline: None, max_steps: None, first_step: 0 };
        assert_eq!(unbounded.progress(500, start + Duration::from_secs(9)), None);
        let deadline = Some(start + Duration::from_secs(100));
        let both = SessionBound { started: start, deadline, max_steps: Some(300), first_step: 100 };
        // Resumed at step 100: 50 of the session's 200 steps is 0.25, 40 s of 100 is 0.4.
        assert_eq!(both.progress(150, start + Duration::from_secs(40)), Some(0.4));
        assert_eq!(both.progress(260, start + Duration::from_secs(40)), Some(0.8));
        assert_eq!(both.progress(400, start + Duration::from_secs(400)), Some(1.0));
        // Already at the step bound when the session starts: done.
        let steps = SessionBound { started: start, deadline: None, max_steps: Some(50), first_step: 80 };
        assert_eq!(steps.progress(80, start), Some(1.0));
    }

    #[test]
    fn learning_rate_anneals_only_in_the_final_fraction() {
        assert_eq!(anneal_factor(0.5, 0.3, 0.1), 1.0);
        assert_eq!(anneal_factor(0.7, 0.3, 0.1), 1.0);
        assert!((anneal_factor(0.85, 0.3, 0.1) - 0.55).abs() < 1e-12);
        assert!((anneal_factor(1.0, 0.3, 0.1) - 0.1).abs() < 1e-12);
        assert_eq!(anneal_factor(1.0, 0.0, 0.1), 1.0, "fraction 0 turns annealing off");
        assert!((anneal_factor(0.0, 1.0, 0.5) - 1.0).abs() < 1e-12);
    }
}
