//! `dojo bench ingest`: how many games a learner can take in, and how long each waits for
//! its acknowledgement, with many clients on loopback.
//!
//! Two loads: a flood (every client sends its share of `--games` as fast as acks come
//! back), and, with `--rate R`, real workers (each client sends one game every 1/R
//! seconds, at a random phase, for `--seconds`). Every ack follows the learner's fsync; the
//! report says how many fsyncs there were (group commit makes it far fewer than games).

use anyhow::{bail, Result};
use clap::Args;
use dojo_core::game::connect4::Connect4;
use dojo_core::record::{random_game_record, GameRecord};
use dojo_core::rng::Rng;
use dojo_learner::server::{start_learner, LearnerOptions};
use dojo_run::config::RunConfig;
use dojo_worker::client::{self, Delivery};
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct IngestArgs {
    /// Concurrent clients (each one connection).
    #[arg(long, default_value_t = 16)]
    clients: usize,
    /// Flood: games in total, split among the clients.
    #[arg(long, default_value_t = 2000)]
    games: usize,
    /// Flood: games per SubmitGames call (1 = every game is its own round trip).
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Games per second each client sends (one per call), as workers do, instead of a
    /// flood; runs for --seconds.
    #[arg(long)]
    rate: Option<f64>,
    /// With --rate: how long to send.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct IngestReport {
    clients: usize,
    games: usize,
    batch: usize,
    /// Games per second per client offered (None: a flood).
    rate: Option<f64>,
    seconds: f64,
    games_per_s: f64,
    ack_latency_ms_p50: f64,
    ack_latency_ms_p99: f64,
    ack_latency_ms_max: f64,
    /// The learner's fsyncs for these games (group commit: far fewer under load).
    fsyncs: u64,
    games_per_fsync: f64,
    /// With --rate: calls that started later than their schedule because the previous one
    /// was still waiting for its ack.
    late_calls: usize,
    /// Peak resident memory of this process (learner and clients), MiB.
    peak_rss_mib: f64,
}

/// One client's load: the games it sends, and when.
struct Plan {
    games: Vec<GameRecord>,
    batch: usize,
    /// Seconds between calls and the first call's offset (None: back to back).
    pace: Option<(Duration, Duration)>,
}

pub fn run(args: IngestArgs) -> Result<()> {
    if args.clients == 0 || args.games == 0 || args.batch == 0 {
        bail!("--clients, --games and --batch must be at least 1");
    }
    if let Some(r) = args.rate {
        if !(r.is_finite() && r > 0.0 && args.seconds.is_finite() && args.seconds > 0.0) {
            bail!("--rate and --seconds must be positive numbers");
        }
    }
    raise_open_files_limit(args.clients);
    let dir = std::env::temp_dir().join(format!("dojo-bench-ingest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // No training: the measurement is validation, the durable log and the acks.
    let handle = start_learner(LearnerOptions {
        http: None,
        run_dir: dir.clone(),
        config: Some(RunConfig::default()),
        listen: "127.0.0.1:0".parse()?,
        token: None,
        max_steps: Some(0),
        deadline: None,
        drain: std::time::Duration::from_secs(2),
        device: tch::Device::Cpu,
        tls: None,
        limits: Default::default(),
    })?;
    let mut rng = Rng::seed_from_u64(1);
    let start = Connect4::<u64>::standard();
    let per_client = match args.rate {
        Some(r) => (r * args.seconds).ceil().max(1.0) as usize,
        None => args.games.div_ceil(args.clients),
    };
    let total = match args.rate {
        Some(_) => per_client * args.clients,
        None => args.games,
    };
    let games: Vec<GameRecord> = (0..total).map(|_| random_game_record(&start, 1, &mut rng)).collect();
    let plans: Vec<Plan> = (0..args.clients)
        .map(|c| Plan {
            games: games.iter().skip(c).step_by(args.clients).cloned().collect(),
            batch: if args.rate.is_some() { 1 } else { args.batch },
            pace: args.rate.map(|r| {
                let every = Duration::from_secs_f64(1.0 / r);
                (every, every.mul_f64(rng.random::<f64>()))
            }),
        })
        .collect();
    drop(games);
    let syncs_before = handle.shared.log.lock().expect("log lock").syncs();
    let url = format!("http://{}", handle.addr);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let (t0, results): (Instant, Vec<(Vec<Duration>, usize)>) = rt
        .block_on(async {
            // Everyone connects first: the measurement is of a cluster in its steady state.
            let ready = std::sync::Arc::new(tokio::sync::Barrier::new(plans.len() + 1));
            let tasks: Vec<_> =
                plans.into_iter().map(|plan| tokio::spawn(send(url.clone(), plan, ready.clone()))).collect();
            ready.wait().await;
            let t0 = Instant::now();
            let mut all = Vec::new();
            for t in tasks {
                all.push(t.await.map_err(|e| e.to_string())??);
            }
            Ok::<_, String>((t0, all))
        })
        .map_err(anyhow::Error::msg)?;
    let secs = t0.elapsed().as_secs_f64();
    let stored = handle.shared.counters.games.load(std::sync::atomic::Ordering::Relaxed);
    let fsyncs = handle.shared.log.lock().expect("log lock").syncs() - syncs_before;
    handle.stop()?;
    let _ = std::fs::remove_dir_all(&dir);
    if stored as usize != total {
        bail!("the learner stored {stored} of {total} games");
    }
    let late_calls = results.iter().map(|r| r.1).sum();
    let mut ms: Vec<f64> = results.iter().flat_map(|r| &r.0).map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let pct = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    let report = IngestReport {
        clients: args.clients,
        games: total,
        batch: if args.rate.is_some() { 1 } else { args.batch },
        rate: args.rate,
        seconds: secs,
        games_per_s: total as f64 / secs,
        ack_latency_ms_p50: pct(0.5),
        ack_latency_ms_p99: pct(0.99),
        ack_latency_ms_max: pct(1.0),
        fsyncs,
        games_per_fsync: total as f64 / fsyncs.max(1) as f64,
        late_calls,
        peak_rss_mib: dojo_core::util::peak_rss_bytes().unwrap_or(0) as f64 / (1 << 20) as f64,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        let load = match report.rate {
            Some(r) => format!("{r} game/s each, one per call"),
            None => format!("flood, batches of {}", report.batch),
        };
        println!(
            "{} games from {} clients ({load}) in {:.2} s: {:.0} games/s; ack latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; \
             {} fsyncs ({:.1} games each); {} late calls; peak RSS {:.0} MiB",
            report.games,
            report.clients,
            report.seconds,
            report.games_per_s,
            report.ack_latency_ms_p50,
            report.ack_latency_ms_p99,
            report.ack_latency_ms_max,
            report.fsyncs,
            report.games_per_fsync,
            report.late_calls,
            report.peak_rss_mib
        );
    }
    Ok(())
}

/// One client: connects, sends its games as planned, and returns each game's ack latency
/// and how many calls started late.
async fn send(
    url: String,
    plan: Plan,
    ready: std::sync::Arc<tokio::sync::Barrier>,
) -> Result<(Vec<Duration>, usize), String> {
    let connected = client::connect(&url, None, "dojo-bench").await.map_err(|e| e.to_string());
    ready.wait().await;
    let mut client = connected?;
    let mut latencies = Vec::with_capacity(plan.games.len());
    let mut late = 0;
    let mut next = tokio::time::Instant::now() + plan.pace.map_or(Duration::ZERO, |p| p.1);
    for chunk in plan.games.chunks(plan.batch) {
        if let Some((every, _)) = plan.pace {
            if tokio::time::Instant::now() > next + Duration::from_millis(1) {
                late += 1;
            }
            tokio::time::sleep_until(next).await;
            next += every;
        }
        let t = Instant::now();
        let acks = client::submit(&mut client, chunk).await.map_err(|e| e.to_string())?;
        if acks.len() != chunk.len() || acks.iter().any(|a| a.1 != Delivery::Delivered) {
            return Err(format!("{} of {} games acknowledged as stored", acks.len(), chunk.len()));
        }
        latencies.extend(std::iter::repeat_n(t.elapsed(), chunk.len()));
    }
    Ok((latencies, late))
}

/// Each client is a connection on both ends of loopback: raise the soft limit on open files
/// to the hard one where that is too low (a default of 1024 is common).
fn raise_open_files_limit(clients: usize) {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit write and read only the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && (lim.rlim_cur as usize) < 2 * clients + 256 {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}
