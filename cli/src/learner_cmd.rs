//! `dojo learner`: the learner of a cluster run, serving workers over gRPC.

use crate::common::TokenArgs;
use anyhow::{Context, Result};
use clap::Args;
use dojo_learner::ingest::IngestLimits;
use dojo_learner::server::{refuse_exposed, start_learner, LearnerOptions, TlsIdentity};
use dojo_net::device::Device;
use dojo_run::config::RunConfig;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
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
    #[command(flatten)]
    token: TokenArgs,
    /// Stop after this many training steps in total.
    #[arg(long)]
    steps: Option<u64>,
    /// Serve the dashboard (/), Prometheus metrics (/metrics) and the probes (/healthz,
    /// /readyz) here (e.g. 0.0.0.0:9100).
    #[arg(long)]
    http: Option<String>,
    /// On stop (SIGTERM, Ctrl-C), seconds the uploads in flight may take before the server
    /// is dropped; the checkpoint follows. Every acknowledged game is on disk regardless.
    #[arg(long, default_value = "10", value_parser = crate::duration::parse_seconds)]
    grace_period: Duration,
    /// Where the network trains: cpu, cuda or cuda:N (libtorch threads: the run's learner.threads).
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Serve gRPC over TLS with this certificate (chain, PEM); workers then use https://.
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The TLS certificate's private key (PEM).
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Listen on a non-loopback address without a token (anyone who reaches the port can
    /// send games and read models). Without this, such a learner refuses to start.
    #[arg(long)]
    insecure: bool,
    /// Upload streams served at once, in all; more wait for a turn (see "Limits" in docs/cluster.md).
    #[arg(long, default_value_t = IngestLimits::default().max_streams)]
    max_streams: usize,
    /// Games one upload stream may carry before the worker must open another.
    #[arg(long, default_value_t = IngestLimits::default().max_games_per_stream)]
    max_stream_games: u64,
    /// MiB of received games waiting to be stored, in all (the bounded ingest queue).
    #[arg(long, default_value_t = IngestLimits::default().queue_bytes >> 20)]
    ingest_queue_mib: usize,
    /// Start a new run from this network (a checkpoint of the run's game and network shape)
    /// instead of a random one: its first version is that network.
    #[arg(long, value_name = "MODEL")]
    start_from: Option<PathBuf>,
}

pub fn run(args: LearnerArgs, stop: Arc<AtomicBool>) -> Result<()> {
    let config = args.config.as_ref().map(|p| RunConfig::load(p, None)).transpose()?;
    let listen: std::net::SocketAddr = args
        .listen
        .parse()
        .with_context(|| format!("--listen {:?} is not an address like 0.0.0.0:7878", args.listen))?;
    let http = crate::common::http_addr(args.http.as_deref())?;
    let token = args.token.resolve()?;
    refuse_exposed(listen, token.is_some(), args.insecure)?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(TlsIdentity::read(cert, key)?),
        _ => None,
    };
    let handle = start_learner(LearnerOptions {
        run_dir: args.run_dir.clone(),
        config,
        listen,
        http,
        token,
        tls,
        max_steps: args.steps,
        deadline: None,
        drain: args.grace_period,
        device: args.device.parse::<Device>()?.resolve()?,
        limits: IngestLimits {
            max_streams: args.max_streams,
            max_games_per_stream: args.max_stream_games,
            queue_bytes: args.ingest_queue_mib.saturating_mul(1 << 20),
            ..IngestLimits::default()
        },
        start_from: args.start_from.clone(),
    })?;
    eprintln!("learner: serving run {} on {} ({})", args.run_dir.display(), handle.addr, handle.shared.config.game);
    if let Some(at) = handle.http_addr {
        eprintln!("dashboard: http://{at}/");
        eprintln!("metrics: http://{at}/metrics");
    }
    handle.serve_until(&stop);
    eprintln!("learner: stopping: no new games, then a checkpoint");
    Ok(handle.stop()?)
}
