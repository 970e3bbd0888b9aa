//! The learner's intake under load (`dojo bench ingest`): how many games a learner takes in,
//! and how long each waits for its acknowledgement, with many clients on loopback.
//!
//! Two loads: a flood (every client sends its share of the games as fast as acks come
//! back), and real workers (each client sends one game every 1/rate seconds, at a random
//! phase, for a given time). Every ack follows the learner's fsync; the report says how many
//! fsyncs there were (group commit makes it far fewer than games).
//!
//! `dojo bench ingest` prints it (`cli/src/bench_cmd/ingest_speed.rs`): one concept in two
//! layers.

use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_learner::server::{start_learner, LearnerError, LearnerOptions};
use dojo_net::device::Device;
use dojo_record::{random_game_record, GameRecord};
use dojo_run::config::RunConfig;
use dojo_worker::client::{self, CallError, Delivery};
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("--clients, --games and --games-per-call must be at least 1")]
    Empty,
    #[error("--rate and --seconds must be positive numbers")]
    Rate,
    #[error(transparent)]
    Learner(#[from] LearnerError),
    #[error("cannot start the clients' runtime: {0}")]
    Runtime(std::io::Error),
    #[error("a client failed")]
    Call(#[from] CallError),
    #[error("a client task failed")]
    Task(#[from] tokio::task::JoinError),
    #[error("{acked} of {sent} games acknowledged as stored")]
    NotAcked { acked: usize, sent: usize },
    #[error("the learner stored {stored} of {total} games")]
    NotStored { stored: u64, total: usize },
}

/// What to send.
#[derive(Clone, Copy, Debug)]
pub struct Load {
    /// Concurrent clients (each one connection).
    pub clients: usize,
    /// A flood's games in total, split among the clients.
    pub games: usize,
    /// A flood's games per call.
    pub batch: usize,
    /// Games per second each client sends, one per call, for `seconds` (None: a flood).
    pub rate: Option<f64>,
    pub seconds: f64,
}

/// What the learner did with the load (`--json` prints it as it is).
#[derive(Serialize)]
pub struct IngestReport {
    pub clients: usize,
    pub games: usize,
    pub batch: usize,
    /// Games per second per client offered (None: a flood).
    pub rate: Option<f64>,
    pub seconds: f64,
    pub games_per_s: f64,
    pub ack_latency_ms_p50: f64,
    pub ack_latency_ms_p99: f64,
    pub ack_latency_ms_max: f64,
    /// The learner's fsyncs for these games (group commit: far fewer under load).
    pub fsyncs: u64,
    pub games_per_fsync: f64,
    /// With a rate: calls that started later than their schedule because the previous one
    /// was still waiting for its ack.
    pub late_calls: usize,
    /// Peak resident memory of this process (learner and clients), MiB.
    pub peak_rss_mib: f64,
}

impl fmt::Display for IngestReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let load = match self.rate {
            Some(r) => format!("{r} game/s each, one per call"),
            None => format!("flood, batches of {}", self.batch),
        };
        write!(
            f,
            "{} games from {} clients ({load}) in {:.2} s: {:.0} games/s; ack latency p50 {:.2} ms, p99 {:.2} ms, \
             max {:.2} ms; {} fsyncs ({:.1} games each); {} late calls; peak RSS {:.0} MiB",
            self.games,
            self.clients,
            self.seconds,
            self.games_per_s,
            self.ack_latency_ms_p50,
            self.ack_latency_ms_p99,
            self.ack_latency_ms_max,
            self.fsyncs,
            self.games_per_fsync,
            self.late_calls,
            self.peak_rss_mib
        )
    }
}

/// One client's load: the games it sends, and when.
struct Plan {
    games: Vec<GameRecord>,
    batch: usize,
    /// Seconds between calls and the first call's offset (None: back to back).
    pace: Option<(Duration, Duration)>,
}

/// Starts a learner (no training: the measurement is validation, the durable log and the
/// acks) in a temporary directory, sends it `load` from `load.clients` clients, and reports.
pub fn bench_ingest(load: Load) -> Result<IngestReport, IngestError> {
    load.check()?;
    raise_open_files_limit(load.clients);
    let dir = std::env::temp_dir().join(format!("dojo-bench-ingest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let handle = start_learner(LearnerOptions {
        http: None,
        run_dir: dir.clone(),
        config: Some(RunConfig::default()),
        listen: ([127, 0, 0, 1], 0).into(),
        token: None,
        max_steps: Some(0),
        deadline: None,
        drain: Duration::from_secs(2),
        device: Device::Cpu,
        tls: None,
        limits: Default::default(),
        start_from: None,
    })?;
    let (plans, total) = plans(&load);
    let syncs_before = handle.shared.log.lock().expect("log lock").syncs();
    let url = format!("http://{}", handle.addr);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(IngestError::Runtime)?;
    let sent = rt.block_on(send_all(url, plans));
    let stored = handle.shared.counters.games.load(std::sync::atomic::Ordering::Relaxed);
    let fsyncs = handle.shared.log.lock().expect("log lock").syncs() - syncs_before;
    handle.stop()?;
    let _ = std::fs::remove_dir_all(&dir);
    let (seconds, results) = sent?;
    if stored as usize != total {
        return Err(IngestError::NotStored { stored, total });
    }
    let late_calls = results.iter().map(|r| r.1).sum();
    let mut ms: Vec<f64> = results.iter().flat_map(|r| &r.0).map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let pct = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    Ok(IngestReport {
        clients: load.clients,
        games: total,
        batch: if load.rate.is_some() { 1 } else { load.batch },
        rate: load.rate,
        seconds,
        games_per_s: total as f64 / seconds,
        ack_latency_ms_p50: pct(0.5),
        ack_latency_ms_p99: pct(0.99),
        ack_latency_ms_max: pct(1.0),
        fsyncs,
        games_per_fsync: total as f64 / fsyncs.max(1) as f64,
        late_calls,
        peak_rss_mib: dojo_base::util::peak_rss_bytes().unwrap_or(0) as f64 / (1 << 20) as f64,
    })
}

impl Load {
    /// Refuses a load of nothing, or a rate without a positive rate and duration.
    fn check(&self) -> Result<(), IngestError> {
        if self.clients == 0 || self.games == 0 || self.batch == 0 {
            return Err(IngestError::Empty);
        }
        if self.rate.is_some_and(|r| !(r.is_finite() && r > 0.0 && self.seconds.is_finite() && self.seconds > 0.0)) {
            return Err(IngestError::Rate);
        }
        Ok(())
    }
}

/// Sends every plan from a client of its own, all connected before the clock starts (the
/// measurement is of a cluster in its steady state): the seconds taken and each client's
/// ack latencies and late calls.
async fn send_all(url: String, plans: Vec<Plan>) -> Result<(f64, Vec<(Vec<Duration>, usize)>), IngestError> {
    let ready = Arc::new(tokio::sync::Barrier::new(plans.len() + 1));
    let tasks: Vec<_> = plans.into_iter().map(|plan| tokio::spawn(send(url.clone(), plan, ready.clone()))).collect();
    ready.wait().await;
    let t0 = Instant::now();
    let mut all = Vec::new();
    for t in tasks {
        all.push(t.await??);
    }
    Ok((t0.elapsed().as_secs_f64(), all))
}

/// Each client's games (random Connect Four games, dealt round-robin) and pace, and the
/// number of games in all.
fn plans(load: &Load) -> (Vec<Plan>, usize) {
    let mut rng = Rng::seed_from_u64(1);
    let start = Connect4::<u64>::standard();
    let total = match load.rate {
        Some(r) => (r * load.seconds).ceil().max(1.0) as usize * load.clients,
        None => load.games,
    };
    let games: Vec<GameRecord> = (0..total).map(|_| random_game_record(&start, 1, &mut rng)).collect();
    let plans = (0..load.clients)
        .map(|c| Plan {
            games: games.iter().skip(c).step_by(load.clients).cloned().collect(),
            batch: if load.rate.is_some() { 1 } else { load.batch },
            pace: load.rate.map(|r| {
                let every = Duration::from_secs_f64(1.0 / r);
                (every, every.mul_f64(rng.random::<f64>()))
            }),
        })
        .collect();
    (plans, total)
}

/// One client: connects, sends its games as planned, and returns each game's ack latency
/// and how many calls started late.
async fn send(
    url: String,
    plan: Plan,
    ready: Arc<tokio::sync::Barrier>,
) -> Result<(Vec<Duration>, usize), IngestError> {
    let connected = client::connect(&url, None, "dojo-bench").await;
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
        let acks = client::submit(&mut client, chunk).await?;
        if acks.len() != chunk.len() || acks.iter().any(|a| a.1 != Delivery::Delivered) {
            return Err(IngestError::NotAcked { acked: acks.len(), sent: chunk.len() });
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
