//! `dojo worker`: self-play for a learner, anywhere.

use crate::common::{DeviceArgs, PrecisionArgs};
use anyhow::Result;
use clap::Args;
use dojo_worker::run::{run_worker, WorkerOptions};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct WorkerArgs {
    /// The learner, e.g. http://10.0.0.5:7878.
    #[arg(long)]
    learner: String,
    /// Shared secret (or set DOJO_TOKEN).
    #[arg(long, env = "DOJO_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Where unsent games wait (kept across restarts).
    #[arg(long, default_value = "dojo-spool")]
    spool: PathBuf,
    /// Stop after delivering this many games.
    #[arg(long)]
    games: Option<u64>,
    /// Games played at once (default: the run's selfplay.parallel_games).
    #[arg(long)]
    parallel: Option<usize>,
    /// Seconds between checks for a newer model.
    #[arg(long, default_value_t = 10)]
    model_poll: u64,
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    precision: PrecisionArgs,
}

pub fn run(args: WorkerArgs, stop: Arc<AtomicBool>) -> Result<()> {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let opts = WorkerOptions {
        learner: args.learner,
        token: args.token,
        spool: args.spool,
        device: args.device.device.parse()?,
        precision: args.precision.precision,
        threads: args.device.threads,
        name: format!("{}-{}", host.trim(), std::process::id()),
        max_games: args.games,
        parallel_games: args.parallel,
        model_poll: Duration::from_secs(args.model_poll.max(1)),
        seed: args.seed,
    };
    let summary = run_worker(opts, stop).map_err(anyhow::Error::msg)?;
    eprintln!(
        "worker: played {} games, delivered {}, rejected {}, {} left in the spool, models {:?}",
        summary.games_played,
        summary.games_delivered,
        summary.games_rejected,
        summary.left_in_spool,
        summary.models_used
    );
    Ok(())
}
