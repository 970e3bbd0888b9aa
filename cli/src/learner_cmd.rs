//! `dojo learner`: the learner of a cluster run, serving workers over gRPC.

use anyhow::{Context, Result};
use clap::Args;
use dojo_learner::config::RunConfig;
use dojo_learner::server::{start_learner, LearnerOptions};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct LearnerArgs {
    /// The run directory (created if new, resumed if it exists).
    #[arg(long)]
    run_dir: PathBuf,
    /// Address to serve on.
    #[arg(long, default_value = "0.0.0.0:7878")]
    listen: String,
    /// TOML config for a new run (see `dojo config`).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Shared secret workers must present (or set DOJO_TOKEN).
    #[arg(long, env = "DOJO_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Stop after this many training steps in total.
    #[arg(long)]
    steps: Option<u64>,
    /// Serve the dashboard (/) and Prometheus metrics (/metrics) here (e.g. 0.0.0.0:9100).
    #[arg(long)]
    http: Option<String>,
}

pub fn run(args: LearnerArgs, stop: Arc<AtomicBool>) -> Result<()> {
    let config = args.config.as_ref().map(|p| RunConfig::load(p)).transpose().map_err(anyhow::Error::msg)?;
    let listen = args
        .listen
        .parse()
        .with_context(|| format!("--listen {:?} is not an address like 0.0.0.0:7878", args.listen))?;
    let http = crate::common::http_addr(args.http.as_deref())?;
    let handle = start_learner(LearnerOptions {
        run_dir: args.run_dir.clone(),
        config,
        listen,
        http,
        token: args.token,
        max_steps: args.steps,
        deadline: None,
    })
    .map_err(anyhow::Error::msg)?;
    eprintln!("learner: serving run {} on {} ({})", args.run_dir.display(), handle.addr, handle.shared.config.game);
    if let Some(at) = handle.http_addr {
        eprintln!("dashboard: http://{at}/");
        eprintln!("metrics: http://{at}/metrics");
    }
    while !stop.load(Ordering::Relaxed) && !handle.trainer_finished() {
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!("learner: stopping (checkpointing)");
    handle.stop().map_err(anyhow::Error::msg)
}
