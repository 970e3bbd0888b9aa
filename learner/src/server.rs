//! Starting and stopping a learner: open the run, restore training, serve gRPC (the
//! learner's service and the standard health service) and HTTP.
//!
//! Stopping (SIGTERM) first stops taking games: health turns NOT_SERVING, the gRPC server
//! stops accepting and lets the calls in flight finish (each game is acknowledged only after
//! the game log has it on disk, so nothing acknowledged can be lost), for at most the drain
//! time; then training checkpoints and the learner exits.

use crate::gamelog::{GameLog, LogError};
use crate::ingest::{IngestLimits, LimitsError};
use crate::learner::restore::{start_from, RestoreError, RestoreInputs};
use crate::learner::schedule::SessionBound;
use crate::learner::{Counters, Shared, TrainingError, TrainingLoop};
use crate::listen::Serving;
pub use crate::listen::{refuse_exposed, ListenError, TlsIdentity};
use dojo_game::with_game;
use dojo_game::{FromAnyGame, Game, GameError};
use dojo_metrics::table::{BUFFER_POSITIONS, STEP};
use dojo_metrics::Line;
use dojo_net::device::Device;
use dojo_record::RecordError;
use dojo_run::config::RunConfig;
use dojo_run::dir::{RunDir, RunDirError};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How to start a learner.
#[derive(Clone, Debug)]
pub struct LearnerOptions {
    pub run_dir: PathBuf,
    /// The config for a new run (None: the run's own, or the defaults for a new run).
    pub config: Option<RunConfig>,
    pub listen: SocketAddr,
    /// Shared secret workers must present.
    pub token: Option<String>,
    /// Where to serve HTTP (`/metrics` for Prometheus); none: no HTTP.
    pub http: Option<SocketAddr>,
    /// Stop training after this many steps (in total, counting earlier sessions).
    pub max_steps: Option<u64>,
    /// When the caller will stop this session (`dojo train --for`); with `max_steps` it
    /// bounds the session, and the learning rate anneals towards the nearer bound.
    pub deadline: Option<Instant>,
    /// On stop, how long calls in flight may take to finish before the server is dropped.
    pub drain: Duration,
    /// Where the network trains.
    pub device: Device,
    /// Serve gRPC over TLS with this certificate chain and key (PEM); None: plaintext.
    pub tls: Option<TlsIdentity>,
    /// Bounds on uploads (streams, queue, deadlines).
    pub limits: IngestLimits,
    /// A new run starts from this network (a checkpoint of the run's game and shape)
    /// instead of a random one ([`start_from`]); refused for a run that has trained.
    pub start_from: Option<PathBuf>,
}

/// Why a learner could not start, or failed while running. A wrapped error's text is part
/// of the message and not also its `source()`, so that `dojo`'s `{:#}` does not print it
/// twice.
#[derive(Debug, thiserror::Error)]
pub enum LearnerError {
    #[error(transparent)]
    Limits(#[from] LimitsError),
    /// The run directory cannot be created or reopened.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// The run's game cannot start.
    #[error(transparent)]
    Game(#[from] GameError),
    /// The run's game has no board records replay from.
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error(transparent)]
    GameLog(#[from] LogError),
    /// Boxed: a restore's error is large, and a learner's is returned often.
    #[error(transparent)]
    Restore(Box<RestoreError>),
    /// The training loop failed.
    #[error(transparent)]
    Training(#[from] TrainingError),
    /// A thread (`what`: training, server) cannot be started.
    #[error("cannot start the {what} thread: {error}")]
    Thread { what: &'static str, error: std::io::Error },
    /// A thread (`what`: training, server) panicked.
    #[error("the {what} thread panicked")]
    Panicked { what: &'static str },
    #[error("the server thread exited before listening")]
    NotListening,
    /// The network side: listening, TLS, serving.
    #[error(transparent)]
    Listen(#[from] ListenError),
}

impl From<RestoreError> for LearnerError {
    fn from(error: RestoreError) -> LearnerError {
        LearnerError::Restore(Box::new(error))
    }
}

/// A running learner.
pub struct LearnerHandle {
    pub addr: SocketAddr,
    /// Where HTTP is served, when asked for.
    pub http_addr: Option<SocketAddr>,
    pub shared: Arc<Shared>,
    trainer: Option<JoinHandle<Result<(), TrainingError>>>,
    server: Option<JoinHandle<Result<(), LearnerError>>>,
    shutdown: Option<tokio::sync::watch::Sender<bool>>,
}

impl LearnerHandle {
    /// Serves until `stop` is set or training has finished (max steps reached, or failed).
    pub fn serve_until(&self, stop: &std::sync::atomic::AtomicBool) {
        while !stop.load(std::sync::atomic::Ordering::Relaxed) && !self.trainer_finished() {
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Whether training has finished (max steps reached) or failed.
    pub fn trainer_finished(&self) -> bool {
        self.trainer.as_ref().is_none_or(|t| t.is_finished())
    }

    /// Stops taking games (the calls in flight finish), then lets the training loop
    /// checkpoint, and waits for both.
    pub fn stop(mut self) -> Result<(), LearnerError> {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(true);
        }
        let served = self.server.take().map(|s| s.join().unwrap_or(Err(LearnerError::Panicked { what: "server" })));
        let trained = self.trainer.take().map(|t| match t.join() {
            Ok(trained) => trained.map_err(LearnerError::from),
            Err(_) => Err(LearnerError::Panicked { what: "training" }),
        });
        trained.unwrap_or(Ok(()))?;
        served.unwrap_or(Ok(()))
    }
}

impl Drop for LearnerHandle {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(true);
        }
    }
}

/// Opens (or creates) the run and starts training and serving.
pub fn start_learner(opts: LearnerOptions) -> Result<LearnerHandle, LearnerError> {
    opts.limits.validate()?;
    let run = RunDir::new(&opts.run_dir);
    let new_run = !run.exists();
    let (config, run_id) = run.create_or_open(opts.config.as_ref())?;
    let stale = run.remove_stale_temp_files();
    if stale > 0 {
        tracing::info!("removed {stale} half-written files an earlier learner left behind");
    }
    let start = dojo_record::boards::typing_start(&config.game)?;
    if let Some(from) = &opts.start_from {
        if let Err(e) = with_game!(&start, g => start_from(&run, &config, g, from)) {
            if new_run {
                // Made by this call and holding nothing else: a corrected command starts afresh.
                let _ = std::fs::remove_dir_all(&run.root);
            }
            return Err(e.into());
        }
    }
    with_game!(start, g => start_typed(g, run, config, run_id, opts))
}

fn start_typed<G: Game + FromAnyGame>(
    start: G,
    run: RunDir,
    config: RunConfig,
    run_id: String,
    opts: LearnerOptions,
) -> Result<LearnerHandle, LearnerError> {
    let (log, stored) = GameLog::open(&run.games(), config.learner.segment_bytes)?;
    let (tx, rx) = mpsc::channel();
    let stored_games = stored.len() as u64;
    let stored_positions: u64 = stored.iter().map(|r| r.player_moves() as u64).sum();
    let (training, published, unusable) = TrainingLoop::restore(RestoreInputs {
        run: run.clone(),
        config: config.clone(),
        start,
        stored,
        incoming: rx,
        bound: SessionBound::new(opts.deadline, opts.max_steps),
        device: opts.device,
    })?;
    if !unusable.is_empty() {
        tracing::warn!("{} stored games could not be replayed for training", unusable.len());
    }
    let counters = Counters::default();
    counters.games.store(stored_games, Ordering::Relaxed);
    counters.positions.store(stored_positions, Ordering::Relaxed);
    counters.steps.store(training.step(), Ordering::Relaxed);
    counters.buffer_positions.store(training.buffer_positions() as u64, Ordering::Relaxed);
    let shared = Arc::new(Shared {
        counters,
        token: opts.token.clone(),
        ..Shared::new(run_id, config, run, log, tx, published)
    });
    shared.telemetry.published(shared.newest().version);
    let mut resumed = Line::new();
    resumed.count(&STEP, shared.counters.steps.load(Ordering::Relaxed));
    resumed.count(&BUFFER_POSITIONS, shared.counters.buffer_positions.load(Ordering::Relaxed));
    shared.telemetry.window(&resumed, &[]);
    let trainer_shared = shared.clone();
    let trainer = std::thread::Builder::new()
        .name("dojo-trainer".into())
        .spawn(move || training.run(trainer_shared))
        .map_err(|error| LearnerError::Thread { what: "training", error })?;

    let serving = Serving {
        shared: shared.clone(),
        listen: opts.listen,
        http: opts.http,
        token: opts.token,
        drain: opts.drain,
        tls: opts.tls,
        limits: opts.limits,
    };
    listen(serving, shared, trainer)
}

/// Starts `serving`'s thread beside the `trainer` and waits until it listens; a server
/// that cannot listen stops the trainer and is the error.
fn listen(
    serving: Serving,
    shared: Arc<Shared>,
    trainer: JoinHandle<Result<(), TrainingError>>,
) -> Result<LearnerHandle, LearnerError> {
    let (addr_tx, addr_rx) = mpsc::channel();
    let (shutdown_tx, shutdown_rx) = tokio::sync::watch::channel(false);
    let server = std::thread::Builder::new()
        .name("dojo-grpc".into())
        .spawn(move || serving.run(addr_tx, shutdown_rx).map_err(LearnerError::from))
        .map_err(|error| LearnerError::Thread { what: "server", error })?;
    let listening = addr_rx.recv().map_err(|_| LearnerError::NotListening);
    let (addr, http_addr) = match listening.and_then(|r| r.map_err(LearnerError::from)) {
        Ok(addrs) => addrs,
        Err(e) => {
            shared.stop.store(true, Ordering::Relaxed);
            return Err(e);
        }
    };
    Ok(LearnerHandle {
        addr,
        http_addr,
        shared,
        trainer: Some(trainer),
        server: Some(server),
        shutdown: Some(shutdown_tx),
    })
}
