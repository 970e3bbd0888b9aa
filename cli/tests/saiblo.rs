//! `connect4:saiblo` through the pipeline: one any-size network trained on boards of every
//! size (9–12 × 9–12, one blocked cell), a learner replaying each record on its own board,
//! and matches reported board size by board size.

mod common;

use common::{dojo, path, stdout_of, tiny_config};
use dojo_core::game::GameSpec;
use dojo_core::net::checkpoint;
use dojo_core::net::device::{set_threads, DeviceSpec};
use dojo_core::net::model::PolicyHead;
use dojo_core::net::precision::PrecisionChoice;
use dojo_learner::gamelog::GameLog;
use dojo_learner::server::{start_learner, LearnerHandle, LearnerOptions};
use dojo_run::dir::RunDir;
use dojo_worker::run::{run_worker, WorkerOptions};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn learner(run: &Path) -> LearnerHandle {
    set_threads(1);
    let mut config = tiny_config();
    config.game = GameSpec::Connect4Saiblo;
    start_learner(LearnerOptions {
        http: None,
        run_dir: run.to_path_buf(),
        config: Some(config),
        listen: "127.0.0.1:0".parse().unwrap(),
        token: None,
        max_steps: None,
        deadline: None,
        drain: Duration::from_secs(2),
        device: tch::Device::Cpu,
        tls: None,
        limits: Default::default(),
    })
    .unwrap()
}

#[test]
fn a_saiblo_run_trains_one_any_size_network_on_boards_of_every_size() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let handle = learner(&run);
    let stop = Arc::new(AtomicBool::new(false));
    let opts = WorkerOptions {
        learner: format!("http://{}", handle.addr),
        token: None,
        tls_ca: None,
        spool: tmp.path().join("spool"),
        device: DeviceSpec::Cpu,
        precision: PrecisionChoice::Auto,
        threads: 1,
        name: "saiblo".into(),
        max_games: Some(16),
        parallel_games: Some(4),
        model_poll: Duration::from_millis(200),
        seed: Some(5),
        grace: Duration::from_secs(5),
        telemetry: Default::default(),
    };
    let worker = {
        let stop = stop.clone();
        std::thread::spawn(move || run_worker(opts, stop))
    };
    let summary = worker.join().unwrap().unwrap();
    assert_eq!(summary.games_delivered, 16);
    let shared = handle.shared.clone();
    let t = Instant::now();
    while shared.newest().version < 2 {
        assert!(t.elapsed() < Duration::from_secs(120), "no version was trained on the saiblo games");
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    handle.stop().unwrap();

    // Every game names the board it was drawn; the boards differ in size.
    let dir = RunDir::new(&run);
    let (_, records) = GameLog::open(&dir.games(), 1 << 20).unwrap();
    assert_eq!(records.len(), 16);
    let mut sizes = BTreeSet::new();
    for r in &records {
        assert!(GameSpec::Connect4Saiblo.admits(&r.spec), "{}", r.spec);
        sizes.insert(r.spec.largest_board().unwrap());
    }
    assert!(sizes.len() >= 3, "16 games on only {sizes:?}");
    let trainable: usize = records.iter().map(|r| r.training_moves()).sum();

    // One network for them all: any-size, as large as the largest board.
    let newest = dir.model_version(shared.newest().version);
    let arch = checkpoint::read_sidecar(&newest).unwrap().architecture;
    assert_eq!((arch.any_size, arch.width, arch.height, arch.policy_head), (true, 12, 12, PolicyHead::Column));

    // A restarted learner replays every record on its own board: every position of every
    // board is in its buffer.
    let handle = learner(&run);
    assert_eq!(handle.shared.counters.buffer_positions.load(Ordering::Relaxed) as usize, trainable);
    handle.stop().unwrap();

    // The network plays any board up to 12×12, and matches on random boards are reported
    // by board size (pairs on one board).
    let net = format!("net:{}:sims=8", path(&newest));
    let out = stdout_of(&dojo(&[
        "match",
        "--game",
        "connect4:saiblo",
        "--a",
        &net,
        "--b",
        "random",
        "--games",
        "6",
        "--seed",
        "3",
        "--threads",
        "1",
        "--json",
    ]));
    let json: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let by_size = json["by_board_size"].as_object().unwrap();
    let games: u64 = by_size.values().map(|t| t["games"].as_u64().unwrap()).sum();
    assert_eq!(games, 6, "{out}");
    assert!(by_size.values().all(|t| t["games"].as_u64().unwrap() % 2 == 0), "pairs share a board: {out}");
    let mut bestmove = std::process::Command::new(common::dojo_bin())
        .args(["bestmove", "--game", "connect4:9x10:3.3", "--model", path(&newest), "--sims", "8"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut bestmove.stdin.take().unwrap(), b"4 5 5\n").unwrap();
    let out = bestmove.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let column: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert!((1..=9).contains(&column), "column {column} of a 9-wide board");
}

#[test]
fn a_network_trained_on_a_smaller_frame_refuses_larger_boards() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("c.toml");
    let mut c = tiny_config();
    c.net.any_size = true; // on 7×6: a network that can later play any smaller board
    std::fs::write(&config, c.to_toml()).unwrap();
    let run = tmp.path().join("run");
    let out = dojo(&["train", "--run-dir", path(&run), "--config", path(&config), "--steps", "0", "--workers", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v1 = RunDir::new(&run).model_version(1);
    assert!(checkpoint::read_sidecar(&v1).unwrap().architecture.any_size);
    let out = dojo(&["bestmove", "--game", "connect4:9x9", "--model", path(&v1), "--sims", "8"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("connect4:9x9 is larger than the 7x6 boards"), "{stderr}");
    let out = dojo(&["match", "--game", "connect4:saiblo", "--a", &format!("net:{}", path(&v1)), "--b", "random"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("plays Connect Four boards up to 7x6; connect4:saiblo has boards up to 12x12"), "{stderr}");
    let out = stdout_of(&dojo(&[
        "match",
        "--game",
        "connect4:6x5",
        "--a",
        &format!("net:{}:sims=4", path(&v1)),
        "--b",
        "random",
        "--games",
        "2",
    ]));
    assert!(out.contains("on connect4:6x5: 2 games"), "{out}");
}
