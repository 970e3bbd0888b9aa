//! The main job on one machine: a learner in this process, worker processes beside it
//! (this same executable run as `dojo worker`), gating on a thread of its own, a worker that
//! dies restarted, and a clean stop (workers flush their games, the learner checkpoints, the
//! last version is gated). Rerunning on the same run directory resumes. `dojo train` shows
//! [`Training::status`] as a progress line and prints what [`Training::news`] and
//! [`Training::stop`] say.
//!
//! One concept with `dojo_ntuple::training` (`dojo ntuple train`'s session): a training
//! session as a command runs it.

use dojo_game::GameSpec;
use dojo_gating::{Event, Gatekeeper, Newest, Schedule, Watch};
use dojo_learner::learner::Shared;
use dojo_learner::server::{start_learner, LearnerError, LearnerHandle, LearnerOptions};
use dojo_net::device::{Device, DeviceError};
use dojo_net::train::Losses;
use dojo_run::config::{ConfigError, RunConfig, WorkersConfig};
use dojo_run::dir::RunDir;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Learner(#[from] LearnerError),
    #[error("--workers must be at least 1")]
    NoWorkers,
    #[error("cannot find the dojo executable: {0}")]
    Executable(std::io::Error),
    #[error("cannot open {}: {error}", .path.display())]
    WorkerLog { path: PathBuf, error: std::io::Error },
    #[error("cannot start worker {index}: {error}")]
    SpawnWorker { index: usize, error: std::io::Error },
    #[error("cannot start the gating thread: {0}")]
    SpawnGating(std::io::Error),
    #[error("the gating thread panicked")]
    GatingPanicked,
}

/// Lines to show of what happened in a session: gating's decisions, workers restarted.
pub type News = Vec<String>;

/// The run's config for this session: the one in `config_file` (a new run's, or a resumed
/// run's to check against), the game's defaults for a new run, or none (a resumed run keeps
/// its own); `game` replaces the game.
pub fn session_config(
    run_dir: &Path,
    config_file: Option<&Path>,
    game: Option<GameSpec>,
) -> Result<Option<RunConfig>, TrainError> {
    let run = RunDir::new(run_dir);
    let mut config = match config_file {
        Some(p) => Some(RunConfig::load(p, game.as_ref())?),
        None if run.exists() => None,
        // A new run gets the game's defaults (`dojo config --game G` prints them).
        None => Some(RunConfig::for_game(game.clone().unwrap_or_else(GameSpec::connect4))),
    };
    if let Some(spec) = game {
        let c = config.get_or_insert_with(|| RunConfig::load_stored(&run.config()).unwrap_or_default());
        c.game = spec;
        c.validate()?;
    }
    Ok(config)
}

/// What a session is started with.
pub struct TrainOptions {
    pub run_dir: PathBuf,
    /// See [`session_config`].
    pub config: Option<RunConfig>,
    /// Worker processes (None: the config's count, fitted to the cores).
    pub workers: Option<usize>,
    pub deadline: Option<Instant>,
    pub max_steps: Option<u64>,
    pub listen: SocketAddr,
    pub http: Option<SocketAddr>,
    /// Where the networks run, the learner's and every worker's: `cpu`, `cuda` or `cuda:N`.
    pub device: String,
    /// A new run starts from this network instead of a random one.
    pub start_from: Option<PathBuf>,
}

/// Why a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    Interrupted,
    TimeIsUp,
    StepLimit,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Interrupted => "interrupted",
            StopReason::TimeIsUp => "time is up",
            StopReason::StepLimit => "step limit reached",
        })
    }
}

/// The progress line's numbers.
pub struct Status {
    pub version: u64,
    /// The best version so far, where gating named one.
    pub best: Option<u64>,
    pub games: u64,
    /// Games a second since this session started.
    pub games_per_s: f64,
    pub steps: u64,
    pub buffer_positions: u64,
    pub losses: Option<Losses>,
}

/// What the session ended with.
pub struct Summary {
    pub games: u64,
    pub steps: u64,
    /// The newest model's file.
    pub newest: PathBuf,
    /// The run's best model, where gating named one.
    pub best: Option<PathBuf>,
}

/// A running session.
pub struct Training {
    learner: LearnerHandle,
    run: RunDir,
    config: RunConfig,
    workers: Vec<Child>,
    spawn: WorkerSpawn,
    gating: Option<Gating>,
    gate_stop: Arc<AtomicBool>,
    said: Receiver<String>,
    started: Instant,
    games_at_start: u64,
    deadline: Option<Instant>,
    /// Whether the run existed before this session.
    pub resumed: bool,
}

impl Training {
    /// Starts the learner, the workers and gating. Where gating cannot start (another
    /// process gates this run, say `dojo gate --watch`), it trains without: the reason is
    /// among the first [`Training::news`].
    pub fn start(options: TrainOptions) -> Result<Training, TrainError> {
        let device = options.device.parse::<Device>()?.resolve()?;
        let run = RunDir::new(&options.run_dir);
        let resumed = run.exists();
        let token = format!("{:032x}", rand::random::<u128>());
        let learner = start_learner(LearnerOptions {
            run_dir: options.run_dir.clone(),
            config: options.config,
            listen: options.listen,
            http: options.http,
            token: Some(token.clone()),
            max_steps: options.max_steps,
            deadline: options.deadline,
            drain: Duration::from_secs(2),
            device,
            tls: None,
            limits: Default::default(),
            start_from: options.start_from,
        })?;
        let config = learner.shared.config.clone();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let count = options.workers.unwrap_or_else(|| config.worker_count(cores));
        if count == 0 {
            return Err(TrainError::NoWorkers);
        }
        let spawn = WorkerSpawn {
            exe: std::env::current_exe().map_err(TrainError::Executable)?,
            url: format!("http://{}", learner.addr),
            token,
            workers: config.workers.clone(),
            device: options.device,
        };
        let workers = (0..count).map(|i| spawn.spawn(&run, i)).collect::<Result<Vec<_>, _>>()?;
        let gate_stop = Arc::new(AtomicBool::new(false));
        let (say, said) = channel::<String>();
        let gating = start_gating(&run, &config, &learner.shared, &gate_stop, say)?;
        let games_at_start = learner.shared.counters.games.load(Ordering::Relaxed);
        let started = Instant::now();
        let deadline = options.deadline;
        Ok(Training {
            learner,
            run,
            config,
            workers,
            spawn,
            gating,
            gate_stop,
            said,
            started,
            games_at_start,
            deadline,
            resumed,
        })
    }

    pub fn shared(&self) -> &Arc<Shared> {
        &self.learner.shared
    }

    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    pub fn worker_count(&self) -> usize {
        self.workers.len()
    }

    /// Where the learner listens, and where its dashboard is served (when asked for).
    pub fn addresses(&self) -> (SocketAddr, Option<SocketAddr>) {
        (self.learner.addr, self.learner.http_addr)
    }

    /// Why the session should end now, if it should (`interrupt`: Ctrl-C or SIGTERM seen).
    pub fn should_stop(&self, interrupt: &AtomicBool) -> Option<StopReason> {
        if interrupt.load(Ordering::Relaxed) {
            Some(StopReason::Interrupted)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Some(StopReason::TimeIsUp)
        } else if self.learner.trainer_finished() {
            Some(StopReason::StepLimit)
        } else {
            None
        }
    }

    /// Restarts workers that exited, and returns what happened since the last call: gating's
    /// decisions, restarts.
    pub fn news(&mut self) -> Result<News, TrainError> {
        let mut lines = Vec::new();
        for (i, child) in self.workers.iter_mut().enumerate() {
            if let Ok(Some(status)) = child.try_wait() {
                lines.push(format!(
                    "worker {i} exited ({status}); restarting it (log: {})",
                    self.run.logs().join(format!("worker-{i}.log")).display()
                ));
                *child = self.spawn.spawn(&self.run, i)?;
            }
        }
        lines.extend(self.said.try_iter());
        Ok(lines)
    }

    pub fn status(&self) -> Status {
        let shared = &self.learner.shared;
        let c = &shared.counters;
        let games = c.games.load(Ordering::Relaxed);
        let rate = (games - self.games_at_start) as f64 / self.started.elapsed().as_secs_f64().max(1e-9);
        Status {
            version: shared.newest().version,
            best: self.gating.as_ref().map(|g| g.best.load(Ordering::Relaxed)).filter(|&v| v > 0),
            games,
            games_per_s: rate,
            steps: c.steps.load(Ordering::Relaxed),
            buffer_positions: c.buffer_positions.load(Ordering::Relaxed),
            losses: *shared.latest_losses.lock().expect("losses lock"),
        }
    }

    /// Stops the workers (they flush their games), then the learner (it checkpoints); a
    /// session that ran its course gates its last version too, so the best reflects the
    /// final (annealed) weights. `say` hears each step; `interrupt` cuts the last gate short.
    pub fn stop(
        mut self,
        reason: StopReason,
        interrupt: &AtomicBool,
        say: &mut dyn FnMut(String),
    ) -> Result<Summary, TrainError> {
        self.gate_stop.store(true, Ordering::Relaxed);
        say(format!("stopping ({reason}): workers flush their games, the learner checkpoints"));
        stop_workers(&mut self.workers, reason == StopReason::Interrupted);
        let shared = self.learner.shared.clone();
        self.learner.stop()?;
        // Read after the stop: the final checkpoint may have published one more version.
        let version = shared.newest().version;
        let steps = shared.counters.steps.load(Ordering::Relaxed);
        let games = shared.counters.games.load(Ordering::Relaxed);
        // Joined first, so a decision it made while the learner stopped is said too.
        let keeper = self.gating.map(|g| g.thread.join()).transpose().map_err(|_| TrainError::GatingPanicked)?;
        self.said.try_iter().for_each(&mut *say);
        let mut best = None;
        if let Some(mut keeper) = keeper {
            if reason != StopReason::Interrupted && version > keeper.last_gated() {
                say(format!("gating the final version v{version} ({})...", keeper.policy().settings.describe()));
                match keeper.gate(version, Some(interrupt)) {
                    Ok(record) => say(record.describe()),
                    Err(e) => say(e.to_string()),
                }
            }
            best = keeper.best_version().map(|_| self.run.best());
        }
        Ok(Summary { games, steps, newest: self.run.model_version(version), best })
    }
}

/// How a worker process is started: this executable as `dojo worker`, its log appended to
/// RUN/logs/worker-N.log.
struct WorkerSpawn {
    exe: PathBuf,
    url: String,
    token: String,
    workers: WorkersConfig,
    device: String,
}

impl WorkerSpawn {
    fn spawn(&self, run: &RunDir, index: usize) -> Result<Child, TrainError> {
        let spool = run.spool(index);
        let path = run.logs().join(format!("worker-{index}.log"));
        let log_error = |error| TrainError::WorkerLog { path: path.clone(), error };
        let log = std::fs::OpenOptions::new().create(true).append(true).open(&path).map_err(log_error)?;
        let mut command = Command::new(&self.exe);
        end_with_parent(&mut command);
        command
            .args(["worker", "--learner", &self.url, "--threads", &self.workers.threads.to_string()])
            .args(["--precision", &self.workers.precision.to_string()])
            .args(["--device", &self.device])
            // On this machine a stop should be quick: games that do not finish in a few
            // seconds are abandoned (they were never acknowledged, so nothing is lost).
            .args(["--grace-period", "5"])
            .arg("--spool")
            .arg(&spool)
            .env("DOJO_TOKEN", &self.token)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(log_error)?)
            .stderr(log)
            .spawn()
            .map_err(|error| TrainError::SpawnWorker { index, error })
    }
}

/// Asks the kernel to send the worker SIGTERM when this process dies, however it dies: a
/// `dojo train` killed with SIGKILL (or crashing) cannot stop its workers itself, and a
/// worker outlives its learner on purpose (a cluster's learner restarts under it), so
/// without this an orphan would play on for ever, with nobody to take its games.
#[cfg(target_os = "linux")]
fn end_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id();
    // SAFETY: between fork and exec the closure calls only async-signal-safe functions
    // (prctl, getppid, raise) and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent may have died before the request: then no signal will come.
            if libc::getppid() as u32 != parent {
                libc::raise(libc::SIGTERM);
            }
            Ok(())
        });
    }
}

#[cfg(not(target_os = "linux"))]
fn end_with_parent(_command: &mut Command) {}

/// SIGTERM: the worker stops playing, tries a last upload, and exits.
fn terminate(child: &Child) {
    // SAFETY: kill(2) on a child's pid has no memory effects in this process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
}

/// Stops every worker: SIGTERM, then up to 20 s for its last upload, then SIGKILL.
fn stop_workers(workers: &mut [Child], interrupted: bool) {
    // A Ctrl-C in the terminal already reached the workers (same process group), and a
    // second signal makes a worker exit at once instead of finishing its last upload: give
    // them a moment before signalling the ones still running (e.g. when only this process
    // was sent SIGTERM).
    if interrupted {
        let wait = Instant::now() + Duration::from_secs(3);
        while Instant::now() < wait && workers.iter_mut().any(|c| matches!(c.try_wait(), Ok(None))) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    for child in workers.iter_mut() {
        if matches!(child.try_wait(), Ok(None)) {
            terminate(child);
        }
    }
    let grace = Instant::now() + Duration::from_secs(20);
    for child in workers.iter_mut() {
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                _ if Instant::now() >= grace => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                _ => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }
}

/// What the gating thread shares with the session.
struct Gating {
    thread: JoinHandle<Gatekeeper>,
    /// The best version so far (0: none yet).
    best: Arc<AtomicU64>,
}

/// Gating beside training, every `gating.every_versions` versions (none at 0). Where it
/// cannot start (another process gates this run, say `dojo gate --watch`), training goes
/// on without it and `say` tells why.
fn start_gating(
    run: &RunDir,
    config: &RunConfig,
    shared: &Arc<Shared>,
    stop: &Arc<AtomicBool>,
    say: Sender<String>,
) -> Result<Option<Gating>, TrainError> {
    let keeper = match config.gating.every_versions {
        0 => None,
        // tidy: text cause: not an error value, a line for the person watching.
        _ => Gatekeeper::open(run, config, 1).map_err(|e| say.send(format!("not gating: {e}"))).ok(),
    };
    match keeper {
        Some(keeper) => {
            let every = config.gating.every_versions;
            Ok(Some(spawn_gating(keeper, every, shared.clone(), stop.clone(), say)?))
        }
        None => Ok(None),
    }
}

/// Gates every `every` new versions on a thread of its own (one game at a time, so it
/// takes one core's share while a match runs) until `stop`; hands the gatekeeper back for
/// the final gate. Decisions go to `say`.
fn spawn_gating(
    mut keeper: Gatekeeper,
    every: u64,
    shared: Arc<Shared>,
    stop: Arc<AtomicBool>,
    say: Sender<String>,
) -> Result<Gating, TrainError> {
    let best = Arc::new(AtomicU64::new(keeper.best_version().unwrap_or(0)));
    let shown = best.clone();
    let thread = std::thread::Builder::new()
        .name("gating".into())
        .spawn(move || {
            let options = Watch { schedule: Schedule::Every(every), poll: Duration::from_millis(500), stop: &stop };
            let mut tell = |event: Event<'_>| match event {
                Event::Gated { record, best } => {
                    shown.store(best.unwrap_or(0), Ordering::Relaxed);
                    let _ = say.send(record.describe());
                }
                Event::Failed(e) => {
                    let _ = say.send(e.to_string());
                }
                Event::Unreadable(_) | Event::Gating(_) | Event::AlreadyGated { .. } => {}
            };
            // Watching returns no error: a version that fails is passed over, and said.
            if let Err(e) = keeper.watch(Newest::Read(&|| Ok(shared.newest().version)), &options, &mut tell) {
                let _ = say.send(e.to_string());
            }
            keeper
        })
        .map_err(TrainError::SpawnGating)?;
    Ok(Gating { thread, best })
}
