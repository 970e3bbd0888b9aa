//! `dojo train`: the main job on one machine. A learner in this process, N worker processes
//! beside it, a progress line, clean stop on Ctrl-C (workers flush, the learner
//! checkpoints), and resumption when run again with the same run directory.

use crate::duration::parse_duration;
use anyhow::{bail, Context, Result};
use clap::Args;
use dojo_arbiter::gatekeeper::{GatePolicy, Gatekeeper};
use dojo_arbiter::watch::{watch, Event, Schedule, Watch};
use dojo_core::game::GameSpec;
use dojo_core::net::device::DeviceSpec;
use dojo_learner::learner::Shared;
use dojo_learner::server::{start_learner, LearnerOptions};
use dojo_run::config::{RunConfig, WorkersConfig};
use dojo_run::dir::RunDir;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct TrainArgs {
    /// The run directory: created if new, resumed if it exists.
    #[arg(long, default_value = "runs/connect4")]
    run_dir: PathBuf,
    /// TOML config for a new run (every knob; unknown keys are an error).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Game for a new run (overrides the config's).
    #[arg(long)]
    game: Option<String>,
    /// Worker processes (default: from the config, fitted to the cores).
    #[arg(long)]
    workers: Option<usize>,
    /// Stop after this long (e.g. 20m, 1h30m); checkpoints and exits cleanly.
    #[arg(long = "for")]
    duration: Option<String>,
    /// Stop after this many training steps in total.
    #[arg(long)]
    steps: Option<u64>,
    /// Address the learner listens on (port 0: any free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
    /// Serve the dashboard (/) and Prometheus metrics (/metrics) here (port 0: any free
    /// port; its URL is printed), or `off`.
    #[arg(long, default_value = "127.0.0.1:0")]
    http: String,
    /// Where the networks run, the learner's and every worker's: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    device: String,
}

fn spawn_worker(
    exe: &PathBuf,
    url: &str,
    token: &str,
    run: &RunDir,
    index: usize,
    workers: &WorkersConfig,
    device: &str,
) -> Result<Child> {
    let spool = run.spool(index);
    let log_path = run.logs().join(format!("worker-{index}.log"));
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .with_context(|| format!("cannot open {}", log_path.display()))?;
    let mut command = Command::new(exe);
    end_with_parent(&mut command);
    let child = command
        .args(["worker", "--learner", url, "--threads", &workers.threads.to_string()])
        .args(["--precision", &workers.precision.to_string()])
        .args(["--device", device])
        // On this machine a stop should be quick: games that do not finish in a few
        // seconds are abandoned (they were never acknowledged, so nothing is lost).
        .args(["--grace-period", "5"])
        .arg("--spool")
        .arg(&spool)
        .env("DOJO_TOKEN", token)
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()
        .with_context(|| format!("cannot start worker {index}"))?;
    Ok(child)
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

fn terminate(child: &Child) {
    // SIGTERM: the worker stops playing, tries a last upload, and exits.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
}

/// What the gating thread shares with the progress display.
struct Gating {
    thread: JoinHandle<Gatekeeper>,
    /// The best version so far (0: none yet).
    best: Arc<AtomicU64>,
}

/// Gates every `every` new versions on a thread of its own (one game at a time, so it
/// takes one core's share while a match runs) until `stop`; hands the gatekeeper back for
/// the final gate. Decisions go to `say` for the progress display to print.
fn spawn_gating(
    mut keeper: Gatekeeper,
    every: u64,
    shared: Arc<Shared>,
    stop: Arc<AtomicBool>,
    say: Sender<String>,
) -> Result<Gating> {
    let best = Arc::new(AtomicU64::new(keeper.best_version().unwrap_or(0)));
    let shown = best.clone();
    let thread = std::thread::Builder::new().name("gating".into()).spawn(move || {
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
        if let Err(e) = watch(&mut keeper, &|| Ok(shared.newest().version), &options, &mut tell) {
            let _ = say.send(e.to_string());
        }
        keeper
    })?;
    Ok(Gating { thread, best })
}

pub fn run(args: TrainArgs, stop: Arc<AtomicBool>) -> Result<()> {
    let run = RunDir::new(&args.run_dir);
    let game: Option<GameSpec> = args.game.as_deref().map(str::parse).transpose().context("--game")?;
    let mut config = match &args.config {
        Some(p) => Some(RunConfig::load(p)?),
        None if run.exists() => None,
        // A new run gets the game's defaults (`dojo config --game G` prints them).
        None => Some(RunConfig::for_game(game.clone().unwrap_or_else(GameSpec::connect4))),
    };
    if let Some(spec) = game {
        let c = config.get_or_insert_with(|| RunConfig::load(&run.config()).unwrap_or_default());
        c.game = spec;
        c.validate()?;
    }
    let device = args.device.parse::<DeviceSpec>()?.resolve()?;
    let deadline = args
        .duration
        .as_deref()
        .map(parse_duration)
        .transpose()
        .map_err(anyhow::Error::msg)?
        .map(|d| Instant::now() + d);
    let listen = args.listen.parse().with_context(|| format!("--listen {:?} is not an address", args.listen))?;
    let token = format!("{:032x}", rand::random::<u128>());
    let resumed = run.exists();
    let http = crate::common::http_addr(Some(args.http.as_str()).filter(|h| *h != "off"))?;
    let handle = start_learner(LearnerOptions {
        run_dir: args.run_dir.clone(),
        config,
        listen,
        http,
        token: Some(token.clone()),
        max_steps: args.steps,
        deadline,
        drain: std::time::Duration::from_secs(2),
        device,
        tls: None,
        limits: Default::default(),
    })?;
    let cfg = handle.shared.config.clone();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = args.workers.unwrap_or_else(|| cfg.worker_count(cores));
    if workers == 0 {
        bail!("--workers must be at least 1");
    }
    eprintln!(
        "{} run {} ({}, {} net) in {}: learner on {}, {} worker process(es); Ctrl-C stops cleanly",
        if resumed { "resuming" } else { "new" },
        handle.shared.run_id,
        cfg.game,
        if cfg.any_size() { format!("{}x{} any-size", cfg.net.blocks, cfg.net.channels) } else { cfg.net.describe() },
        args.run_dir.display(),
        handle.addr,
        workers
    );
    if let Some(at) = handle.http_addr {
        eprintln!("dashboard: http://{at}/");
        eprintln!("metrics: http://{at}/metrics");
    }
    let exe = std::env::current_exe().context("cannot find the dojo executable")?;
    let url = format!("http://{}", handle.addr);
    let mut children = Vec::new();
    for i in 0..workers {
        children.push(spawn_worker(&exe, &url, &token, &run, i, &cfg.workers, &args.device)?);
    }

    // Self-play never waits for gating; a stop flag of its own lets the workers' shutdown
    // finish first.
    let gate_stop = Arc::new(AtomicBool::new(false));
    let (say, said) = channel::<String>();
    // Training is the main job: where gating cannot start (another process gates this run,
    // say `dojo gate --watch`), it trains without and says why.
    let keeper = match cfg.gating.every_versions {
        0 => None,
        _ => Gatekeeper::open(&run, &GatePolicy::from_run(&cfg, 1)).map_err(|e| eprintln!("not gating: {e}")).ok(),
    };
    let gating = keeper.and_then(|keeper| {
        spawn_gating(keeper, cfg.gating.every_versions, handle.shared.clone(), gate_stop.clone(), say)
            .map_err(|e| eprintln!("not gating: {e}"))
            .ok()
    });

    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("static template"));
    let started = Instant::now();
    let games0 = handle.shared.counters.games.load(Ordering::Relaxed);
    let mut last_line = Instant::now();
    let reason = loop {
        std::thread::sleep(Duration::from_millis(250));
        if stop.load(Ordering::Relaxed) {
            break "interrupted";
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break "time is up";
        }
        if handle.trainer_finished() {
            break "step limit reached";
        }
        for (i, child) in children.iter_mut().enumerate() {
            if let Ok(Some(status)) = child.try_wait() {
                eprintln!(
                    "worker {i} exited ({status}); restarting it (log: {})",
                    run.logs().join(format!("worker-{i}.log")).display()
                );
                *child = spawn_worker(&exe, &url, &token, &run, i, &cfg.workers, &args.device)?;
            }
        }
        for line in said.try_iter() {
            // A hidden bar (stderr not a terminal) drops println: the line goes to stderr.
            if bar.is_hidden() {
                eprintln!("{line}");
            } else {
                bar.println(line);
            }
        }
        let c = &handle.shared.counters;
        let games = c.games.load(Ordering::Relaxed);
        let rate = (games - games0) as f64 / started.elapsed().as_secs_f64().max(1e-9);
        let losses = handle.shared.latest_losses.lock().expect("losses lock").map_or_else(
            || "waiting for data".to_string(),
            |l| format!("loss policy {} value {}", loss_text(l.policy), loss_text(l.value)),
        );
        let best = match gating.as_ref().map(|g| g.best.load(Ordering::Relaxed)) {
            Some(v) if v > 0 => format!(" (best v{v})"),
            _ => String::new(),
        };
        let msg = format!(
            "model v{}{best} | games {} ({:.2}/s) | steps {} | buffer {} positions | {}",
            handle.shared.newest().version,
            games,
            rate,
            c.steps.load(Ordering::Relaxed),
            c.buffer_positions.load(Ordering::Relaxed),
            losses
        );
        if bar.is_hidden() {
            if last_line.elapsed() >= Duration::from_secs(30) {
                eprintln!("{msg}");
                last_line = Instant::now();
            }
        } else {
            bar.set_message(msg);
            bar.tick();
        }
    };
    bar.finish_and_clear();
    gate_stop.store(true, Ordering::Relaxed);
    eprintln!("stopping ({reason}): workers flush their games, the learner checkpoints");
    // A Ctrl-C in the terminal already reached the workers (same process group), and a
    // second signal makes a worker exit at once instead of finishing its last upload: give
    // them a moment before signalling the ones still running (e.g. when only this process
    // was sent SIGTERM).
    if reason == "interrupted" {
        let wait = Instant::now() + Duration::from_secs(3);
        while Instant::now() < wait && children.iter_mut().any(|c| matches!(c.try_wait(), Ok(None))) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    for child in &mut children {
        if matches!(child.try_wait(), Ok(None)) {
            terminate(child);
        }
    }
    let grace = Instant::now() + Duration::from_secs(20);
    for child in &mut children {
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
    let shared = handle.shared.clone();
    handle.stop()?;
    // Read after the stop: the final checkpoint may have published one more version.
    let version = shared.newest().version;
    let steps = shared.counters.steps.load(Ordering::Relaxed);
    let games = shared.counters.games.load(Ordering::Relaxed);
    // Joined first, so a decision it made while the learner stopped is printed too.
    let keeper =
        gating.map(|g| g.thread.join()).transpose().map_err(|_| anyhow::anyhow!("the gating thread panicked"))?;
    for line in said.try_iter() {
        eprintln!("{line}");
    }
    if let Some(mut keeper) = keeper {
        // A session that ran its course gates its last version too, so the best reflects
        // the final (annealed) weights; an interrupted one stops at once.
        if reason != "interrupted" && version > keeper.last_gated() {
            eprintln!("gating the final version v{version} ({})...", keeper.policy().settings.describe());
            match keeper.gate(version, Some(&stop)) {
                Ok(record) => eprintln!("{}", record.describe()),
                Err(e) => eprintln!("{e}"),
            }
        }
        if keeper.best_version().is_some() {
            eprintln!("best model: {}", run.best().display());
        }
    }
    eprintln!(
        "done: {games} games, {steps} steps, newest model {} (run `dojo train --run-dir {}` again to continue)",
        run.model_version(version).display(),
        args.run_dir.display()
    );
    Ok(())
}

/// A loss for the status line: three decimals, or three digits where that would show 0.000
/// (a 2048 run's value loss is about 1e-4: its targets are scaled returns near 0).
fn loss_text(loss: f64) -> String {
    if loss != 0.0 && loss.abs() < 0.01 {
        format!("{loss:.2e}")
    } else {
        format!("{loss:.3}")
    }
}
