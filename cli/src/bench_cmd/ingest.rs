//! `dojo bench ingest`: how many games a learner can take in, and how long each waits for
//! its acknowledgement, with many clients on loopback.

use anyhow::{bail, Result};
use clap::Args;
use dojo_core::game::connect4::Connect4;
use dojo_core::record::{random_game_record, GameRecord};
use dojo_core::rng::Rng;
use dojo_learner::config::RunConfig;
use dojo_learner::server::{start_learner, LearnerOptions};
use dojo_worker::client::{self, Delivery};
use rand::SeedableRng;
use serde::Serialize;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct IngestArgs {
    /// Concurrent clients (each one connection).
    #[arg(long, default_value_t = 16)]
    clients: usize,
    /// Games in total.
    #[arg(long, default_value_t = 2000)]
    games: usize,
    /// Games per SubmitGames call (1 = every game is its own round trip).
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct IngestReport {
    clients: usize,
    games: usize,
    batch: usize,
    seconds: f64,
    games_per_s: f64,
    ack_latency_ms_p50: f64,
    ack_latency_ms_p99: f64,
    ack_latency_ms_max: f64,
}

pub fn run(args: IngestArgs) -> Result<()> {
    if args.clients == 0 || args.games == 0 || args.batch == 0 {
        bail!("--clients, --games and --batch must be at least 1");
    }
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
    })
    .map_err(anyhow::Error::msg)?;
    let mut rng = Rng::seed_from_u64(1);
    let start = Connect4::<u64>::standard();
    let games: Vec<GameRecord> = (0..args.games).map(|_| random_game_record(&start, 1, &mut rng)).collect();
    let url = format!("http://{}", handle.addr);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let t0 = Instant::now();
    let latencies: Vec<Duration> = rt
        .block_on(async {
            let mut tasks = Vec::new();
            for c in 0..args.clients {
                let mine: Vec<GameRecord> = games.iter().skip(c).step_by(args.clients).cloned().collect();
                let url = url.clone();
                let batch = args.batch;
                tasks.push(tokio::spawn(async move {
                    let mut client = client::connect(&url, None, "dojo-bench").await.map_err(|e| e.to_string())?;
                    let mut lat = Vec::new();
                    for chunk in mine.chunks(batch) {
                        let t = Instant::now();
                        let acks = client::submit(&mut client, chunk).await.map_err(|e| e.to_string())?;
                        if acks.len() != chunk.len() || acks.iter().any(|a| a.1 != Delivery::Delivered) {
                            return Err(format!("{} of {} games acknowledged as stored", acks.len(), chunk.len()));
                        }
                        lat.extend(std::iter::repeat_n(t.elapsed(), chunk.len()));
                    }
                    Ok::<_, String>(lat)
                }));
            }
            let mut all = Vec::new();
            for t in tasks {
                all.extend(t.await.map_err(|e| e.to_string())??);
            }
            Ok::<_, String>(all)
        })
        .map_err(anyhow::Error::msg)?;
    let secs = t0.elapsed().as_secs_f64();
    let stored = handle.shared.counters.games.load(std::sync::atomic::Ordering::Relaxed);
    handle.stop().map_err(anyhow::Error::msg)?;
    let _ = std::fs::remove_dir_all(&dir);
    if stored as usize != args.games {
        bail!("the learner stored {stored} of {} games", args.games);
    }
    let mut ms: Vec<f64> = latencies.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let pct = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    let report = IngestReport {
        clients: args.clients,
        games: args.games,
        batch: args.batch,
        seconds: secs,
        games_per_s: args.games as f64 / secs,
        ack_latency_ms_p50: pct(0.5),
        ack_latency_ms_p99: pct(0.99),
        ack_latency_ms_max: pct(1.0),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "{} games from {} clients (batches of {}) in {:.2} s: {:.0} games/s; ack latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            report.games, report.clients, report.batch, report.seconds, report.games_per_s, report.ack_latency_ms_p50, report.ack_latency_ms_p99, report.ack_latency_ms_max
        );
    }
    Ok(())
}
