//! The learner's state and its training loop.
//!
//! Records arrive from the gRPC service already validated and durable in the game log; the
//! service hands them to the training thread over a channel. The training thread owns the
//! replay buffer and the trainer, trains whenever the buffer allows another batch (the
//! sample cap makes it wait for data instead of overfitting), publishes a model version
//! every `publish_every` steps and writes a resumable checkpoint every `checkpoint_every`.
//!
//! The loop trains; its other jobs are parts of their own: [`restore`] builds it from the run
//! directory, [`publisher`] writes model versions and checkpoints and prunes old ones,
//! [`metrics`] measures windows of steps and games and writes them to every sink, and
//! [`schedule`] bounds the session and anneals the learning rate.

pub mod metrics;
pub mod publisher;
pub mod restore;
pub mod schedule;

use crate::gamelog::{Appended, GameLog, LogError};
use crate::replay_buffer::{train_step, ReplayBuffer};
use crate::storage::{StorageHealth, Writer};
use crate::telemetry::Telemetry;
use dojo_base::rng::Rng;
use dojo_game::{FromAnyGame, Game, Player};
use dojo_net::average::{AverageError, WeightAverage};
use dojo_net::checkpoint;
use dojo_net::train::{Batch, Losses, Trainer};
use dojo_record::boards::Boards;
use dojo_record::score::final_board;
use dojo_record::{GameRecord, RecordError, RecordOutcome, TrainingGame};
use dojo_run::config::RunConfig;
use dojo_run::dir::RunDir;
use metrics::Metrics;
use publisher::{saved, PublishError, Publisher};
use schedule::SessionBound;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

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
            score: end.as_ref().map(|(s, _)| s.score),
            max_tile: end.as_ref().map(|(s, _)| s.max_tile),
            board: end.map(|(_, tiles)| tiles),
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
pub fn read_published(run: &RunDir, version: u64) -> Result<Published, PublishError> {
    let path = run.model_version(version);
    let (weights_path, sidecar_path) = checkpoint::paths(&path);
    let sidecar = checkpoint::read_sidecar(&path)?;
    let unreadable = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |error| PublishError::Read { path, error }
    };
    let weights = std::fs::read(&weights_path).map_err(unreadable(&weights_path))?;
    let sidecar_json = std::fs::read_to_string(&sidecar_path).map_err(unreadable(&sidecar_path))?;
    Ok(Published { version, sha256: sidecar.sha256, sidecar_json, weights })
}

/// Why the training loop stopped before it was told to. A wrapped error's text is the
/// message.
#[derive(Debug, thiserror::Error)]
pub enum TrainingError {
    /// The replay buffer could not draw a batch.
    #[error(transparent)]
    Sample(#[from] RecordError),
    /// The weight average could not take the trained weights.
    #[error(transparent)]
    Average(#[from] AverageError),
    /// The last checkpoint, on the way out, could not be written.
    #[error(transparent)]
    Checkpoint(#[from] PublishError),
}

/// The training thread's state: the trainer and what it trains from.
pub struct TrainingLoop<G: Game + FromAnyGame> {
    config: RunConfig,
    /// Where records replay from (each record's own board for `connect4:saiblo`).
    boards: Boards<G>,
    trainer: Trainer,
    /// The average of the trained weights, which is what gets published (when configured).
    average: Option<WeightAverage>,
    buffer: ReplayBuffer<G>,
    incoming: Receiver<GameRecord>,
    rng: Rng,
    bound: SessionBound,
    publisher: Publisher,
    metrics: Metrics,
}

impl<G: Game + FromAnyGame> TrainingLoop<G> {
    pub fn buffer_positions(&self) -> usize {
        self.buffer.positions()
    }

    pub fn step(&self) -> u64 {
        self.trainer.step
    }

    fn take_incoming(&mut self, first: Option<GameRecord>, shared: &Shared) {
        let add = |lp: &mut TrainingLoop<G>, record: GameRecord| {
            lp.metrics.game(&record);
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
        shared.counters.buffer_positions.store(self.buffer.positions() as u64, Ordering::Relaxed);
    }

    /// Writes a checkpoint (see [`Publisher::checkpoint`]).
    fn checkpoint(&mut self, to: Option<&Shared>) -> Result<(), PublishError> {
        let samples_drawn = self.buffer.samples_drawn();
        self.publisher.checkpoint(&self.trainer, self.average.as_ref(), samples_drawn, to)
    }

    fn write_metrics(&mut self, shared: &Shared) {
        self.metrics.write(&self.trainer, &self.buffer, self.publisher.version(), shared);
    }

    /// Runs until the stop flag is set or `max_steps` is reached; checkpoints on the way out.
    pub fn run(mut self, shared: Arc<Shared>) -> Result<(), TrainingError> {
        let cfg = self.config.clone();
        let batch_size = cfg.train.batch_size;
        let mut batch = Batch::default();
        let mut last_checkpoint_step = self.trainer.step;
        self.bound.start_at(self.trainer.step);
        loop {
            if shared.stop.load(Ordering::Relaxed) || self.bound.steps_done(self.trainer.step) {
                break;
            }
            self.take_incoming(None, &shared);
            let ready =
                self.buffer.positions() as u64 >= cfg.learner.min_positions && self.buffer.can_sample(batch_size);
            if !ready {
                match self.incoming.recv_timeout(Duration::from_millis(100)) {
                    Ok(r) => self.take_incoming(Some(r), &shared),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
                continue;
            }
            self.trainer.set_learning_rate(self.bound.learning_rate(&cfg, self.trainer.step));
            let losses = train_step(&mut self.trainer, &mut self.buffer, &mut batch, batch_size, &mut self.rng)?;
            if let Some(average) = &mut self.average {
                average.update(&self.trainer.model)?;
            }
            self.metrics.step(losses);
            shared.counters.steps.store(self.trainer.step, Ordering::Relaxed);
            if self.trainer.step.is_multiple_of(20) {
                self.write_metrics(&shared);
            }
            // A failed write (a full disk) is reported and tried again at the next
            // interval; training goes on in memory meanwhile, and the last good checkpoint
            // stays what a restart resumes from.
            if self.trainer.step.is_multiple_of(cfg.learner.publish_every) {
                let published = self.publisher.publish(&self.trainer, self.average.as_ref(), Some(&shared));
                saved(&shared, published);
            }
            if self.trainer.step.is_multiple_of(cfg.learner.checkpoint_every) {
                let checkpointed = self.checkpoint(Some(&shared));
                if saved(&shared, checkpointed) {
                    last_checkpoint_step = self.trainer.step;
                }
            }
        }
        if self.trainer.step != last_checkpoint_step || !self.publisher.has_checkpoint() {
            self.checkpoint(Some(&shared))?;
        }
        if self.metrics.has_steps() {
            self.write_metrics(&shared);
        }
        Ok(())
    }
}
