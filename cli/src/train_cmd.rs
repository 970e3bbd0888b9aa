//! `dojo train`: the main job on one machine (`dojo_program::train`: a learner in this
//! process, N worker processes beside it, gating, a clean stop on Ctrl-C, resumption when
//! run again with the same run directory), shown as a progress line.

use crate::duration::parse_duration;
use anyhow::{Context, Result};
use clap::Args;
use dojo_game::GameSpec;
use dojo_program::training::{session_config, Status, StopReason, TrainOptions, Training};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
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
    /// Start a new run from this network (a checkpoint of the run's game and network shape)
    /// instead of a random one: its first version is that network.
    #[arg(long, value_name = "MODEL")]
    start_from: Option<PathBuf>,
}

pub fn run(args: TrainArgs, stop: Arc<AtomicBool>) -> Result<()> {
    let game: Option<GameSpec> = args.game.as_deref().map(str::parse).transpose().context("--game")?;
    let config = session_config(&args.run_dir, args.config.as_deref(), game)?;
    let duration = args.duration.as_deref().map(parse_duration).transpose().map_err(anyhow::Error::msg)?;
    let listen = args.listen.parse().with_context(|| format!("--listen {:?} is not an address", args.listen))?;
    let mut training = Training::start(TrainOptions {
        run_dir: args.run_dir.clone(),
        config,
        workers: args.workers,
        deadline: duration.map(|d| Instant::now() + d),
        max_steps: args.steps,
        listen,
        http: crate::common::http_addr(Some(args.http.as_str()).filter(|h| *h != "off"))?,
        device: args.device.clone(),
        start_from: args.start_from.clone(),
    })?;
    let cfg = training.config();
    let (addr, http) = training.addresses();
    eprintln!(
        "{} run {} ({}, {} net) in {}: learner on {addr}, {} worker process(es); Ctrl-C stops cleanly",
        if training.resumed { "resuming" } else { "new" },
        training.shared().run_id,
        cfg.game,
        if cfg.any_size() { format!("{}x{} any-size", cfg.net.blocks, cfg.net.channels) } else { cfg.net.describe() },
        args.run_dir.display(),
        training.worker_count()
    );
    if let Some(at) = http {
        eprintln!("dashboard: http://{at}/");
        eprintln!("metrics: http://{at}/metrics");
    }
    let reason = follow(&mut training, &stop)?;
    let summary = training.stop(reason, &stop, &mut |line| eprintln!("{line}"))?;
    if let Some(best) = &summary.best {
        eprintln!("best model: {}", best.display());
    }
    eprintln!(
        "done: {} games, {} steps, newest model {} (run `dojo train --run-dir {}` again to continue)",
        summary.games,
        summary.steps,
        summary.newest.display(),
        args.run_dir.display()
    );
    Ok(())
}

/// Shows the session until it should stop (a spinner with the status, its news above;
/// where stderr is not a terminal, the news and a status line every 30 s), and why it stops.
fn follow(training: &mut Training, stop: &AtomicBool) -> Result<StopReason> {
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}").expect("static template"));
    let mut last_line = Instant::now();
    let reason = loop {
        std::thread::sleep(Duration::from_millis(250));
        if let Some(reason) = training.should_stop(stop) {
            break reason;
        }
        for line in training.news()? {
            // A hidden bar (stderr not a terminal) drops println: the line goes to stderr.
            if bar.is_hidden() {
                eprintln!("{line}");
            } else {
                bar.println(line);
            }
        }
        let msg = status_line(&training.status());
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
    Ok(reason)
}

/// "model v12 (best v10) | games 345 (9.10/s) | steps 600 | buffer ... | loss policy ...".
fn status_line(s: &Status) -> String {
    let losses = s.losses.map_or_else(
        || "waiting for data".to_string(),
        |l| format!("loss policy {} value {}", loss_text(l.policy), loss_text(l.value)),
    );
    let best = s.best.map_or_else(String::new, |v| format!(" (best v{v})"));
    format!(
        "model v{}{best} | games {} ({:.2}/s) | steps {} | buffer {} positions | {losses}",
        s.version, s.games, s.games_per_s, s.steps, s.buffer_positions
    )
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
