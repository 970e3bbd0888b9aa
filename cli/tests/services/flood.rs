//! A flood (issue 21): while many clients send games as fast as the learner acknowledges
//! them, some push junk without ever reading an ack and some open a stream and then send
//! nothing, a few well-behaved clients sending a game at a time are still served, the
//! learner's memory stays bounded, and every acknowledged game is stored once.
//!
//! Prints the numbers (flood rate, the polite clients' ack latency, the learner's peak
//! memory); asserts only what must hold on any machine.

use crate::common;

use common::{path, random_games, tiny_config, Proc};
use dojo_proto::pb::GameSubmission;
use dojo_record::GameRecord;
use dojo_worker::client::{self, Delivery};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const FLOODERS: usize = 48;
const JUNK_PUSHERS: usize = 12;
const SILENT: usize = 12;
const POLITE: usize = 4;
const POLITE_GAMES: usize = 15;
/// Bytes of each junk message.
const JUNK_BYTES: usize = 64 * 1024;

/// The learner's peak resident memory so far (VmHWM), MiB.
fn peak_rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap();
    kib / 1024.0
}

#[test]
fn a_flood_leaves_memory_bounded_and_other_clients_served() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    let mut c = tiny_config();
    // Ingest only: training would take a core of this test's two.
    c.learner.min_positions = 10_000_000;
    std::fs::write(&config, c.to_toml()).unwrap();
    let run = tmp.path().join("run");
    // Fewer turns than clients, so streams also wait for one.
    let mut learner = Proc::spawn(&[
        "learner",
        "--run-dir",
        path(&run),
        "--config",
        path(&config),
        "--listen",
        "127.0.0.1:0",
        "--max-streams",
        "48",
    ]);
    let url = format!("http://{}", learner.learner_addr());
    let pid = learner.child.id();
    let baseline = peak_rss_mib(pid);

    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flood_acked = Arc::new(AtomicU64::new(0));
    let acked_ids = Arc::new(Mutex::new(HashSet::new()));
    let junk_sent = Arc::new(AtomicU64::new(0));
    let pool = random_games(FLOODERS * 200, 1);
    let mut tasks = Vec::new();
    for f in 0..FLOODERS {
        let mine: Vec<GameRecord> = pool.iter().skip(f).step_by(FLOODERS).cloned().collect();
        let (url, stop, acked, ids) = (url.clone(), stop.clone(), flood_acked.clone(), acked_ids.clone());
        tasks.push(rt.spawn(async move {
            let mut c = client::connect(&url, None, &format!("flood-{f}")).await.unwrap();
            // Fresh games first, then the same ones again (duplicates) until told to stop.
            for chunk in mine.chunks(50).cycle() {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(acks) = client::submit(&mut c, chunk).await else { continue };
                for (id, d) in acks {
                    if d == Delivery::Delivered {
                        acked.fetch_add(1, Ordering::Relaxed);
                        ids.lock().unwrap().insert(id);
                    }
                }
            }
        }));
    }
    // Junk pushers: an endless stream of undecodable games, acks never read.
    let mut hogs = Vec::new();
    for j in 0..JUNK_PUSHERS {
        let (url, sent) = (url.clone(), junk_sent.clone());
        hogs.push(rt.spawn(async move {
            let c = client::connect(&url, None, &format!("junk-{j}")).await.unwrap();
            let junk = tokio_stream::iter(std::iter::repeat_with(move || {
                sent.fetch_add(JUNK_BYTES as u64, Ordering::Relaxed);
                GameSubmission { record: vec![0xAB; JUNK_BYTES] }
            }));
            let mut c = c;
            let _unread = c.submit_games(junk).await;
            std::future::pending::<()>().await;
        }));
    }
    // Silent clients: a stream opened, nothing sent.
    for s in 0..SILENT {
        let url = url.clone();
        hogs.push(rt.spawn(async move {
            let mut c = client::connect(&url, None, &format!("silent-{s}")).await.unwrap();
            let _open = c.submit_games(tokio_stream::pending::<GameSubmission>()).await;
            std::future::pending::<()>().await;
        }));
    }
    // Let the flood build up before the polite clients start.
    std::thread::sleep(Duration::from_secs(2));
    let flood_at_start = flood_acked.load(Ordering::Relaxed);
    let polite_games = random_games(POLITE * POLITE_GAMES, 2);
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let began = Instant::now();
    let polite: Vec<_> = (0..POLITE)
        .map(|p| {
            let mine: Vec<GameRecord> = polite_games.iter().skip(p).step_by(POLITE).cloned().collect();
            let (url, lat, ids) = (url.clone(), latencies.clone(), acked_ids.clone());
            rt.spawn(async move {
                let mut c = client::connect(&url, None, &format!("polite-{p}")).await.unwrap();
                for g in mine {
                    let t = Instant::now();
                    let acks = tokio::time::timeout(Duration::from_secs(60), client::submit(&mut c, &[g]))
                        .await
                        .expect("a polite client's game is acknowledged within a minute, flood or not")
                        .expect("the call succeeds");
                    assert_eq!(acks.len(), 1);
                    assert_eq!(acks[0].1, Delivery::Delivered);
                    ids.lock().unwrap().insert(acks[0].0);
                    lat.lock().unwrap().push(t.elapsed().as_secs_f64() * 1e3);
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
            })
        })
        .collect();
    for p in polite {
        rt.block_on(p).expect("a polite client finishes");
    }
    let polite_secs = began.elapsed().as_secs_f64();
    let flood_during = flood_acked.load(Ordering::Relaxed) - flood_at_start;
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        rt.block_on(t).unwrap();
    }
    let peak = peak_rss_mib(pid);
    for h in hogs {
        h.abort();
    }
    drop(rt);

    let mut lat = latencies.lock().unwrap().clone();
    lat.sort_by(f64::total_cmp);
    let junk_mib = junk_sent.load(Ordering::Relaxed) as f64 / (1 << 20) as f64;
    eprintln!(
        "flood: {:.0} games/s acknowledged to {FLOODERS} flooders while {POLITE} polite clients sent {} games; \
         polite ack latency p50 {:.1} ms, max {:.1} ms; junk offered {junk_mib:.0} MiB by {JUNK_PUSHERS} clients that read no ack, \
         {SILENT} silent streams; learner peak RSS {baseline:.0} MiB at start, {peak:.0} MiB after",
        flood_during as f64 / polite_secs,
        lat.len(),
        lat[lat.len() / 2],
        lat[lat.len() - 1]
    );
    assert_eq!(lat.len(), POLITE * POLITE_GAMES, "every polite game was acknowledged");
    assert!(flood_during > 0, "the flood went on while the polite clients were served");
    // Bounded: the ingest queue (64 MiB) and the streams' windows, not the flood's volume.
    assert!(peak - baseline < 400.0, "the learner grew from {baseline:.0} to {peak:.0} MiB under the flood");

    // Every acknowledged game is stored, once.
    let (code, stderr) = learner.terminate();
    assert_eq!(code, Some(0), "{stderr}");
    let (log, records) = dojo_learner::gamelog::GameLog::open(&run.join("games"), u64::MAX).unwrap();
    let ids = acked_ids.lock().unwrap();
    assert_eq!(log.len(), records.len());
    let on_disk: HashSet<[u8; 16]> = records.iter().map(|r| r.game_id).collect();
    assert!(ids.is_subset(&on_disk), "an acknowledged game is missing from the log");
    assert_eq!(records.len(), on_disk.len(), "no game stored twice");
}
