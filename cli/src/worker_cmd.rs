//! `dojo worker`: self-play for a learner, anywhere.

use crate::common::{DeviceArgs, PrecisionArgs, TokenArgs};
use anyhow::Result;
use clap::Args;
use dojo_worker::run::{run_worker, WorkerOptions};
use dojo_worker::telemetry::WorkerTelemetry;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct WorkerArgs {
    /// The learner, e.g. http://10.0.0.5:7878 (https://: over TLS).
    #[arg(long)]
    learner: String,
    #[command(flatten)]
    token: TokenArgs,
    /// For an https:// learner: the CA certificate (PEM) its certificate must chain to (default: the system's roots).
    #[arg(long)]
    tls_ca: Option<PathBuf>,
    /// Where unsent games wait (kept across restarts).
    #[arg(long, default_value = "dojo-spool")]
    spool: PathBuf,
    /// Stop after delivering this many games.
    #[arg(long)]
    games: Option<u64>,
    /// Games played at once (default: the run's selfplay.parallel_games; on CUDA at least 256).
    #[arg(long)]
    parallel: Option<usize>,
    /// Seconds between checks for a newer model.
    #[arg(long, default_value_t = 10)]
    model_poll: u64,
    #[arg(long)]
    seed: Option<u64>,
    /// Serve /metrics (Prometheus), /healthz, /readyz and gRPC health here (e.g. 0.0.0.0:9101).
    #[arg(long)]
    http: Option<String>,
    /// Seconds a stop (SIGTERM, Ctrl-C) may take: two thirds finish the games in flight, the
    /// rest upload the spool. Kubernetes kills after 30 s unless told otherwise.
    #[arg(long, default_value = "25", value_parser = crate::duration::parse_seconds)]
    grace_period: Duration,
    #[command(flatten)]
    device: DeviceArgs,
    #[command(flatten)]
    precision: PrecisionArgs,
}

pub fn run(args: WorkerArgs, stop: Arc<AtomicBool>) -> Result<()> {
    let telemetry = Arc::new(WorkerTelemetry::new());
    let _http = match crate::common::http_addr(args.http.as_deref())? {
        Some(at) => {
            let server = dojo_worker::http::serve(at, telemetry.clone())?;
            eprintln!("metrics: http://{}/metrics", server.addr);
            Some(server)
        }
        None => None,
    };
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let opts = WorkerOptions {
        learner: args.learner,
        token: args.token.resolve()?,
        tls_ca: args
            .tls_ca
            .as_ref()
            .map(|p| std::fs::read(p).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display())))
            .transpose()?,
        spool: args.spool,
        device: args.device.device.parse()?,
        precision: args.precision.precision,
        threads: args.device.threads,
        name: format!("{}-{}", host.trim(), std::process::id()),
        max_games: args.games,
        parallel_games: args.parallel,
        model_poll: Duration::from_secs(args.model_poll.max(1)),
        seed: args.seed,
        grace: args.grace_period,
        telemetry,
    };
    let summary = run_worker(opts, stop)?;
    eprintln!("worker: {summary}");
    Ok(())
}
