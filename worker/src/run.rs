//! The worker loop: fetch the newest model, play G self-play games at once with one batched
//! evaluator, spool every finished game durably, upload the spool, and pick up newer models
//! as the learner publishes them. When the learner is away the worker keeps playing and
//! keeps its games in the spool; uploads are retried with exponential backoff and jitter.
//! Told to stop (SIGTERM), it starts no new game, finishes the games in flight for part of
//! its grace period (abandoning the rest), and uploads its spool in what is left.

use crate::backoff::Backoff;
use crate::client::{self, CallError, Client, Delivery, Refusal, Transient};
use crate::spool::{Spool, SpoolError};
use crate::telemetry::WorkerTelemetry;
use dojo_arch::precision::PrecisionChoice;
use dojo_base::rng::Rng;
use dojo_base::util::SettingError;
use dojo_game::with_game;
use dojo_game::{FromAnyGame, Game, GameError, GameSpec};
use dojo_net::autotune::self_play_precision;
use dojo_net::device::{set_threads, Device, DeviceError};
use dojo_net::infer::NetEvaluator;
use dojo_record::boards::{typing_start, Boards};
use dojo_record::{GameRecord, RecordError};
use dojo_search::config::{SearchConfig, SelfPlayConfig};
use dojo_search::selfplay::{SelfPlayEngine, SelfPlayError};
use rand::{Rng as _, SeedableRng};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How to run a worker.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    /// The learner's URL, e.g. `http://127.0.0.1:7878`.
    pub learner: String,
    pub token: Option<String>,
    /// The CA certificate (PEM) the learner's TLS certificate must chain to, for an
    /// `https://` learner (None: the system's roots).
    pub tls_ca: Option<Vec<u8>>,
    pub spool: PathBuf,
    pub device: Device,
    /// The format self-play evaluates the network in (`auto`: the fastest, timed on the
    /// first model; see `dojo_net::autotune`).
    pub precision: PrecisionChoice,
    pub threads: usize,
    /// A name for the learner's logs.
    pub name: String,
    /// Stop after this many games have been delivered (None: run until stopped).
    pub max_games: Option<u64>,
    /// Overrides the run's number of parallel games.
    pub parallel_games: Option<usize>,
    /// How often to ask for a newer model.
    pub model_poll: Duration,
    pub seed: Option<u64>,
    /// How long a stop may take: finishing games in flight, then a last upload.
    pub grace: Duration,
    /// Where the worker reports what it does (its `--http` port reads it).
    pub telemetry: Arc<WorkerTelemetry>,
}

/// Why a worker stopped short. Each message carries its cause's words; a cause is not
/// also a source, so a report that prints the sources says it once.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The device is missing, or cannot run the number format asked for.
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The learner refused this worker for good (a wrong token, another protocol version).
    #[error("{0}")]
    Refused(Refusal),
    /// The same after self-play began: the games it played wait in the spool.
    #[error("{why} ({kept} games kept in the spool {})", .spool.display())]
    RefusedWithGames { why: Refusal, kept: usize, spool: PathBuf },
    #[error("the learner's game: {0}")]
    LearnerGame(GameError),
    /// The learner's search or self-play settings (`what`) do not parse.
    #[error("the learner's {what}: {error}")]
    LearnerJson { what: &'static str, error: serde_json::Error },
    /// The learner's search or self-play settings (`what`) hold a value out of its range.
    #[error("the learner's {what}: {error}")]
    LearnerSetting { what: &'static str, error: SettingError },
    #[error("the learner's model is for {model}, not {run}")]
    WrongModel { model: GameSpec, run: GameSpec },
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error(transparent)]
    Spool(#[from] SpoolError),
    #[error(transparent)]
    SelfPlay(#[from] SelfPlayError),
}

/// What a worker did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerSummary {
    pub games_played: u64,
    pub games_delivered: u64,
    pub games_rejected: u64,
    pub left_in_spool: usize,
    pub models_used: Vec<u64>,
}

impl std::fmt::Display for WorkerSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "played {} games, delivered {}, rejected {}, {} left in the spool, models {:?}",
            self.games_played, self.games_delivered, self.games_rejected, self.left_in_spool, self.models_used
        )
    }
}

struct Connection {
    url: String,
    token: Option<String>,
    tls_ca: Option<Vec<u8>>,
    name: String,
    client: Option<Client>,
    backoff: Backoff,
    retry_at: Instant,
    telemetry: Arc<WorkerTelemetry>,
    /// Set when the learner refused this worker for good (token, protocol): it must stop.
    refused: Option<Refusal>,
}

impl Connection {
    /// A connected client, or None while the learner is unreachable (then retried after a
    /// backoff delay, never more often).
    fn get(&mut self, rt: &tokio::runtime::Runtime) -> Option<&mut Client> {
        if self.client.is_none() && Instant::now() >= self.retry_at {
            let attempt = within(rt, CALL_TIMEOUT, "connecting", async {
                let mut c =
                    client::connect_tls(&self.url, self.token.as_deref(), &self.name, self.tls_ca.as_deref()).await?;
                client::hello(&mut c, &self.name).await?;
                Ok::<_, CallError>(c)
            });
            match attempt {
                Ok(c) => {
                    self.backoff.reset();
                    self.client = Some(c);
                    self.telemetry.learner(true);
                }
                Err(e) => self.failed(&e),
            }
        }
        self.client.as_mut()
    }

    fn failed(&mut self, why: &CallError) {
        if let CallError::Refused(refusal) = why {
            tracing::error!("{refusal}; stopping");
            self.refused = Some(refusal.clone());
            self.client = None;
            self.telemetry.learner(false);
            return;
        }
        let delay = self.backoff.next_delay();
        tracing::warn!("learner unavailable ({why}); retrying in {:.1}s", delay.as_secs_f64());
        self.client = None;
        self.retry_at = Instant::now() + delay;
        self.telemetry.learner(false);
    }
}

/// Runs a worker until `stop` is set or `max_games` games were delivered.
pub fn run_worker(opts: WorkerOptions, stop: Arc<AtomicBool>) -> Result<WorkerSummary, WorkerError> {
    // First: a spool another worker holds ends this one at once, before it connects.
    let spool = Spool::open(&opts.spool)?;
    set_threads(opts.threads);
    let device = opts.device.resolve()?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(WorkerError::Runtime)?;
    let mut rng = match opts.seed {
        Some(s) => Rng::seed_from_u64(s),
        None => rand::make_rng(),
    };
    let mut conn = Connection {
        url: opts.learner.clone(),
        token: opts.token.clone(),
        tls_ca: opts.tls_ca.clone(),
        name: opts.name.clone(),
        client: None,
        backoff: Backoff::new(Duration::from_millis(200), Duration::from_secs(30), Rng::seed_from_u64(rng.next_u64())),
        retry_at: Instant::now(),
        telemetry: opts.telemetry.clone(),
        refused: None,
    };
    // The first handshake tells the game and the run's settings; without it nothing can start.
    let hello = loop {
        if stop.load(Ordering::Relaxed) {
            return Ok(WorkerSummary::default());
        }
        if conn.get(&rt).is_some() {
            let c = conn.client.as_mut().expect("connected");
            match within(&rt, CALL_TIMEOUT, "the handshake", client::hello(c, &opts.name)) {
                Ok(h) => break h,
                Err(e) => conn.failed(&e),
            }
        }
        if let Some(why) = conn.refused.take() {
            return Err(WorkerError::Refused(why));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let spec: GameSpec = hello.game.parse().map_err(WorkerError::LearnerGame)?;
    let (search_what, play_what) = ("search config", "self-play config");
    let search: SearchConfig = serde_json::from_str(&hello.search_json)
        .map_err(|error| WorkerError::LearnerJson { what: search_what, error })?;
    let mut play: SelfPlayConfig = serde_json::from_str(&hello.selfplay_json)
        .map_err(|error| WorkerError::LearnerJson { what: play_what, error })?;
    play.parallel_games = parallel_games(play.parallel_games, opts.parallel_games, device);
    // Settings from the wire are checked like a config file's: a bad one is an error here,
    // not a panic in the search.
    search.validate().map_err(|error| WorkerError::LearnerSetting { what: search_what, error })?;
    play.validate().map_err(|error| WorkerError::LearnerSetting { what: play_what, error })?;
    let start = typing_start(&spec)?;
    let cx = Context { opts: &opts, stop, rt, conn, spool, rng, device, spec, search, play };
    with_game!(start, g => play_loop(g, cx))
}

struct Context<'a> {
    opts: &'a WorkerOptions,
    stop: Arc<AtomicBool>,
    rt: tokio::runtime::Runtime,
    conn: Connection,
    spool: Spool,
    rng: Rng,
    device: Device,
    /// The run's game (`connect4:saiblo`: each game on a board of its own).
    spec: GameSpec,
    search: SearchConfig,
    play: SelfPlayConfig,
}

/// Whether self-play is over once the worker was told to stop: the first time it sees the
/// stop it starts no new games (noting when, in `stopping_since`); it is over when the games
/// in flight are done or two thirds of the grace period are gone (the rest is for the last
/// upload).
fn stopped_playing<G: Game>(
    cx: &Context<'_>,
    engine: &mut SelfPlayEngine<G>,
    stopping_since: &mut Option<Instant>,
) -> bool {
    if stopping_since.is_none() && cx.stop.load(Ordering::Relaxed) {
        *stopping_since = Some(Instant::now());
        engine.set_games_left(Some(0));
        cx.opts.telemetry.stopping();
        tracing::info!(
            "stopping: no new games; finishing the {} in flight for up to {:.0}s",
            engine.active(),
            (cx.opts.grace * 2 / 3).as_secs_f64()
        );
    }
    let Some(since) = stopping_since else { return false };
    if engine.active() == 0 || since.elapsed() >= cx.opts.grace * 2 / 3 {
        if engine.active() > 0 {
            tracing::warn!("stopping: abandoning {} unfinished games", engine.active());
        }
        return true;
    }
    false
}

/// On the way out: one last delivery attempt in what is left of the grace period (all of
/// it after a game limit); whatever is left stays in the spool for the next start.
fn last_delivery(cx: &mut Context<'_>, summary: &mut WorkerSummary, stopping_since: Option<Instant>) {
    if cx.spool.is_empty() {
        return;
    }
    // The last chance: no waiting out a backoff from an earlier failure.
    cx.conn.retry_at = Instant::now();
    let left = match stopping_since {
        Some(since) => cx.opts.grace.saturating_sub(since.elapsed()),
        None => UPLOAD_TIMEOUT,
    };
    deliver(cx, summary, left.max(Duration::from_secs(1)));
}

/// The run's first model, waited for: None if the worker was told to stop first, an
/// error if the learner refused it.
fn first_model(cx: &mut Context<'_>) -> Result<Option<client::Downloaded>, WorkerError> {
    loop {
        if cx.stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        if let Some(c) = cx.conn.get(&cx.rt) {
            match within(&cx.rt, CALL_TIMEOUT, "the model download", client::fetch_model(c, 0, cx.device)) {
                Ok(Some(m)) => return Ok(Some(m)),
                Ok(None) => unreachable!("have_version 0 always downloads"),
                Err(e) => cx.conn.failed(&e),
            }
        }
        if let Some(why) = cx.conn.refused.take() {
            return Err(WorkerError::Refused(why));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A model newer than `version`, if the learner has one (a failed call is noted on the
/// connection, and tried again at the next poll).
fn newer_model(cx: &mut Context<'_>, version: u64) -> Option<client::Downloaded> {
    let c = cx.conn.get(&cx.rt)?;
    match within(&cx.rt, CALL_TIMEOUT, "the model download", client::fetch_model(c, version, cx.device)) {
        Ok(Some(m)) if m.version > version => Some(m),
        Ok(_) => None,
        Err(e) => {
            cx.conn.failed(&e);
            None
        }
    }
}

/// The self-play engine, its games started from `boards`; with a game limit it starts
/// exactly that many games.
fn start_engine<G: Game + FromAnyGame>(
    cx: &mut Context<'_>,
    boards: Boards<G>,
) -> Result<SelfPlayEngine<G>, WorkerError> {
    let starter = Box::new(move |rng: &mut Rng| boards.draw(rng));
    let rng = Rng::seed_from_u64(cx.rng.next_u64());
    Ok(SelfPlayEngine::new(cx.search.clone(), cx.play.clone(), starter, rng, cx.opts.max_games)?)
}

/// Puts the games `finished` holds (emptying it) into the spool, counting them.
fn spool_finished(
    cx: &mut Context<'_>,
    summary: &mut WorkerSummary,
    finished: &mut Vec<GameRecord>,
) -> Result<(), WorkerError> {
    for record in finished.drain(..) {
        cx.spool.push(&record)?;
        summary.games_played += 1;
        cx.opts.telemetry.played(record.player_moves() as u64);
        cx.opts.telemetry.spool(cx.spool.len());
    }
    Ok(())
}

/// Uploads the spooled games, if any, within [`UPLOAD_TIMEOUT`], or once stopping within
/// what is left of the grace period (a tenth of a second at least).
fn upload_spooled(cx: &mut Context<'_>, summary: &mut WorkerSummary, stopping_since: Option<Instant>) {
    if cx.spool.is_empty() {
        return;
    }
    let timeout = match stopping_since {
        Some(since) => cx.opts.grace.saturating_sub(since.elapsed()).max(Duration::from_millis(100)),
        None => UPLOAD_TIMEOUT,
    };
    deliver(cx, summary, timeout.min(UPLOAD_TIMEOUT));
}

fn play_loop<G: Game + FromAnyGame>(start: G, mut cx: Context<'_>) -> Result<WorkerSummary, WorkerError> {
    let mut summary = WorkerSummary::default();
    // The first model: wait for it (a worker without a model has nothing to do).
    let Some(first) = first_model(&mut cx)? else {
        summary.left_in_spool = cx.spool.len();
        return Ok(summary);
    };
    if first.sidecar.architecture.game != cx.spec {
        return Err(WorkerError::WrongModel { model: first.sidecar.architecture.game.clone(), run: cx.spec.clone() });
    }
    // Every game framed as the network takes it (an any-size network's size).
    let boards = Boards::new(&cx.spec, start, first.sidecar.architecture.frame())?;
    let mut version = first.version;
    summary.models_used.push(version);
    cx.opts.telemetry.model(version);
    let precision = self_play_precision(cx.opts.precision, &first.model, cx.play.parallel_games)?;
    let mut evaluator = NetEvaluator::with_precision(first.model, precision);
    let mut engine = start_engine(&mut cx, boards)?;
    let mut playing = true;
    engine.set_model_version(version);
    let mut finished: Vec<GameRecord> = Vec::new();
    let mut last_poll = Instant::now();
    let done = |s: &WorkerSummary| cx.opts.max_games.is_some_and(|m| s.games_delivered >= m);
    // When the worker was told to stop; two thirds of the grace period from then are for
    // the games in flight, the rest for the last upload.
    let mut stopping_since: Option<Instant> = None;
    while !done(&summary) {
        if let Some(why) = cx.conn.refused.take() {
            // Its games stay in the spool, for a worker that the learner accepts.
            return Err(WorkerError::RefusedWithGames { why, kept: cx.spool.len(), spool: cx.opts.spool.clone() });
        }
        if stopped_playing(&cx, &mut engine, &mut stopping_since) {
            break;
        }
        if playing {
            playing = engine.step(&mut evaluator, &mut finished);
        } else {
            // Enough games played: only delivery is left.
            std::thread::sleep(Duration::from_millis(20));
        }
        spool_finished(&mut cx, &mut summary, &mut finished)?;
        cx.opts.telemetry.in_flight(engine.active());
        upload_spooled(&mut cx, &mut summary, stopping_since);
        if stopping_since.is_none() && last_poll.elapsed() >= cx.opts.model_poll {
            last_poll = Instant::now();
            if let Some(m) = newer_model(&mut cx, version) {
                tracing::info!("switching to model v{}", m.version);
                version = m.version;
                evaluator = NetEvaluator::with_precision(m.model, precision);
                engine.set_model_version(version);
                summary.models_used.push(version);
                cx.opts.telemetry.model(version);
            }
        }
    }
    last_delivery(&mut cx, &mut summary, stopping_since);
    summary.left_in_spool = cx.spool.len();
    cx.opts.telemetry.spool(summary.left_in_spool);
    Ok(summary)
}

/// The fewest games a worker keeps in flight on a GPU unless told otherwise.
pub const CUDA_MIN_PARALLEL_GAMES: usize = 256;

/// Games in flight: the worker's own override, else the run's number, raised on a GPU to
/// [`CUDA_MIN_PARALLEL_GAMES`]. A forward pass on a GPU costs about the same for 64
/// positions as for a few hundred (the kernels' launches dominate a small network's time,
/// and a CPU sized the run's default), so a wider batch is throughput for free.
pub fn parallel_games(run: usize, worker: Option<usize>, device: Device) -> usize {
    match (worker, device) {
        (Some(n), _) => n,
        (None, Device::Cuda(_)) => run.max(CUDA_MIN_PARALLEL_GAMES),
        (None, Device::Cpu) => run,
    }
}

/// How long one upload of the spool may take while playing.
const UPLOAD_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a handshake or a model download may take: a learner that stops answering (a
/// paused container, a half-open connection) must not stall self-play.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs a call to the learner, failing it (transiently) after `limit`.
fn within<T>(
    rt: &tokio::runtime::Runtime,
    limit: Duration,
    what: &'static str,
    call: impl std::future::Future<Output = Result<T, CallError>>,
) -> Result<T, CallError> {
    // The timer is made inside the runtime (block_on's future), where it has a clock.
    rt.block_on(async { tokio::time::timeout(limit, call).await })
        .unwrap_or_else(|_| Err(Transient::TimedOut { what, secs: limit.as_secs() }.into()))
}

/// Uploads the spool, waiting at most `timeout`; acknowledged games leave it.
fn deliver(cx: &mut Context<'_>, summary: &mut WorkerSummary, timeout: Duration) {
    let pending = cx.spool.pending();
    let Some(c) = cx.conn.get(&cx.rt) else { return };
    let began = Instant::now();
    let result = within(&cx.rt, timeout, "the upload", client::submit(c, &pending));
    match result {
        Ok(acks) => {
            let (mut delivered, mut rejected) = (0, 0);
            for (id, delivery) in acks {
                match delivery {
                    Delivery::Delivered => delivered += 1,
                    Delivery::Rejected { reason: why } => {
                        tracing::error!("the learner rejected game {}: {why}", dojo_base::util::hex(&id));
                        rejected += 1;
                    }
                }
                if let Err(e) = cx.spool.ack(&id) {
                    tracing::error!("cannot remove a delivered game from the spool: {e}");
                }
            }
            summary.games_delivered += delivered;
            summary.games_rejected += rejected;
            cx.opts.telemetry.uploaded(delivered, rejected, began.elapsed());
        }
        Err(e) => {
            cx.opts.telemetry.upload_failed();
            cx.conn.failed(&e)
        }
    }
    cx.opts.telemetry.spool(cx.spool.len());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gpu_worker_keeps_more_games_in_flight_unless_told() {
        let gpu = Device::Cuda(0);
        assert_eq!(parallel_games(64, None, Device::Cpu), 64);
        assert_eq!(parallel_games(64, None, gpu), CUDA_MIN_PARALLEL_GAMES);
        assert_eq!(parallel_games(1024, None, gpu), 1024);
        assert_eq!(parallel_games(64, Some(8), gpu), 8);
        assert_eq!(parallel_games(64, Some(512), Device::Cpu), 512);
    }
}
