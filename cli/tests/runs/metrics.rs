//! The learner's Prometheus page, scraped from a live `dojo train --http` and checked by
//! Prometheus's own `promtool check metrics` (scripts/test.sh unpacks Debian's promtool into
//! the cache and names it in DOJO_PROMTOOL); and a 2048 learner's scores, on its page and in
//! its metrics.jsonl; KataGo's auxiliary policy targets switched on, reaching the network,
//! the learner's losses and play.

use crate::common;
use crate::sliding;

use common::{dojo, error_line, path, stdout_of, tiny_config};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The body of `GET /metrics` from `addr`.
fn scrape(addr: &str) -> String {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: text/plain; version=0.0.4"), "{head}");
    body.to_string()
}

fn value(page: &str, name: &str) -> Option<f64> {
    page.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn a_live_learners_metrics_page_passes_promtool() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    std::fs::write(&config, tiny_config().to_toml()).unwrap();
    let run = tmp.path().join("run");
    let mut train = Command::new(env!("CARGO_BIN_EXE_dojo"))
        .args(["train", "--run-dir", path(&run), "--config", path(&config), "--workers", "1", "--for", "120s"])
        .args(["--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(train.stderr.take().unwrap());
    let mut addr = None;
    let mut line = String::new();
    while addr.is_none() && stderr.read_line(&mut line).unwrap() > 0 {
        addr =
            line.trim().strip_prefix("metrics: http://").and_then(|l| l.strip_suffix("/metrics")).map(str::to_string);
        line.clear();
    }
    let addr = addr.expect("dojo train prints the metrics URL");
    // Keep draining stderr so the trainer never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));

    // Wait for games stored and training under way.
    let started = Instant::now();
    let page = loop {
        let page = scrape(&addr);
        let stored = value(&page, "dojo_ingest_games_total{status=\"stored\"}").unwrap_or(0.0);
        if stored >= 5.0 && value(&page, "dojo_training_step").unwrap_or(0.0) > 0.0 {
            break page;
        }
        assert!(started.elapsed() < Duration::from_secs(90), "no training within 90 s:\n{page}");
        std::thread::sleep(Duration::from_millis(300));
    };
    let _ = train.kill();
    let _ = train.wait();

    assert_eq!(value(&page, "dojo_workers_connected"), Some(1.0), "{page}");
    assert!(value(&page, "dojo_model_version").unwrap() >= 1.0, "{page}");
    assert!(value(&page, "dojo_ingest_ack_seconds_count").unwrap() >= 5.0, "{page}");
    assert!(value(&page, "dojo_replay_buffer_positions").unwrap() > 0.0, "{page}");
    let worker_games = page.lines().find(|l| l.starts_with("dojo_worker_games_total{worker=\"")).expect(&page);
    assert!(worker_games.contains('-'), "a worker is named host-pid: {worker_games}");

    promtool_accepts(&page);
}

/// `promtool check metrics` finds nothing to say about `page`.
fn promtool_accepts(page: &str) {
    let Ok(promtool) = std::env::var("DOJO_PROMTOOL") else {
        panic!("DOJO_PROMTOOL is not set: run the tests with scripts/test.sh, which fetches promtool");
    };
    let mut check = Command::new(promtool)
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    check.stdin.take().unwrap().write_all(page.as_bytes()).unwrap();
    let out = check.wait_with_output().unwrap();
    assert!(
        out.status.success() && out.stdout.is_empty() && out.stderr.is_empty(),
        "promtool: {}{}\n{page}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_2048_learner_reports_its_windows_scores_and_the_games_reaching_each_tile() {
    let tmp = tempfile::tempdir().unwrap();
    let ([(first, a), (second, b)], positions) = sliding::two_games();
    let (learner, grpc, http) = sliding::learner_2048(tmp.path(), positions);
    sliding::submit(&grpc, &[first, second]);
    let started = Instant::now();
    let page = loop {
        let page = scrape(&http);
        if value(&page, "dojo_selfplay_scored_games_total") == Some(2.0) {
            break page;
        }
        if started.elapsed() > Duration::from_secs(90) {
            let (_, stderr) = learner.terminate();
            panic!("no scored window within 90 s:\n{page}\nthe learner said:\n{stderr}");
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    let (code, stderr) = learner.terminate();
    assert_eq!(code, Some(0), "{stderr}");

    let mean = (a.score + b.score) as f64 / 2.0;
    assert_eq!(value(&page, "dojo_selfplay_mean_score"), Some(mean), "{page}");
    assert_eq!(value(&page, "dojo_selfplay_max_score"), Some(a.score.max(b.score) as f64), "{page}");
    assert_eq!(value(&page, "dojo_selfplay_max_tile"), Some(f64::from(a.max_tile)), "{page}");
    let reaching = |tile: u32| value(&page, &format!("dojo_selfplay_games_reaching_tile_total{{tile=\"{tile}\"}}"));
    assert_eq!([reaching(2048), reaching(4096), reaching(32768)], [Some(1.0), Some(0.0), Some(0.0)], "{page}");
    promtool_accepts(&page);

    // metrics.jsonl: the window that held both games has their numbers; windows without
    // games leave the scores out rather than write zeros.
    let text = std::fs::read_to_string(tmp.path().join("run/metrics.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let scored: Vec<&serde_json::Value> = lines.iter().filter(|l| l.get("mean_score").is_some()).collect();
    assert_eq!(scored.len(), 1, "{text}");
    let line = scored[0];
    assert_eq!(
        (line["scored_games"].as_u64(), line["mean_score"].as_f64(), line["max_score"].as_u64()),
        (Some(2), Some(mean), Some(a.score.max(b.score))),
        "{line}"
    );
    assert_eq!(line["max_tile"].as_u64(), Some(u64::from(a.max_tile)), "{line}");
    assert_eq!(
        line["reach"],
        serde_json::json!({"2048": 0.5, "4096": 0.0, "8192": 0.0, "16384": 0.0, "32768": 0.0}),
        "{line}"
    );
    assert!(lines.iter().all(|l| l["draw_rate"].is_number()), "the two-player fields stay: {text}");
}

#[test]
fn auxiliary_policy_targets_switched_on_train_report_their_losses_and_leave_play_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = tiny_config();
    c.train.opponent_policy_weight = 0.15;
    c.train.soft_policy_weight = 8.0;
    // In mixed precision too: the heads' losses are f32 whatever the layers compute in.
    c.train.precision = "bf16".parse().unwrap();
    let config = tmp.path().join("aux.toml");
    std::fs::write(&config, c.to_toml()).unwrap();
    let run = tmp.path().join("run");
    let train = ["train", "--run-dir", path(&run), "--config", path(&config), "--steps", "20", "--workers", "1"];
    let out = dojo(&[&train[..], &["--http", "off"]].concat());
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(log.contains("training in bf16 (train.precision)"), "{log}");

    // The network has both heads, and the learner reports both losses in every window.
    let sidecar: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("models/best.json")).unwrap()).unwrap();
    let named = &sidecar["architecture"]["aux_heads"];
    assert_eq!(*named, serde_json::json!({"opponent_policy": true, "soft_policy": true}), "{sidecar}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(run.join("metrics.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!lines.is_empty());
    for line in &lines {
        for key in ["opponent_policy_loss", "soft_policy_loss"] {
            let loss = line[key].as_f64().unwrap_or_else(|| panic!("no {key} in {line}"));
            assert!(loss.is_finite() && loss > 0.0, "{key} {loss} in {line}");
        }
    }
    // Play reads the policy and value only.
    let net = format!("net:{}:sims=8", path(&run.join("models/best.safetensors")));
    let report = stdout_of(&dojo(&["match", "--a", &net, "--b", "random", "--games", "2", "--parallel", "1"]));
    assert!(report.contains("2 games"), "{report}");

    // A run without the heads cannot be given the targets later: the error says why.
    c.train.opponent_policy_weight = 0.0;
    c.train.soft_policy_weight = 0.0;
    std::fs::write(&config, c.to_toml()).unwrap();
    let plain = tmp.path().join("plain");
    let args = ["train", "--run-dir", path(&plain), "--config", path(&config), "--steps", "0", "--http", "off"];
    assert!(dojo(&args).status.success());
    let run_config = plain.join("config.toml");
    let mut resumed = dojo_run::config::RunConfig::load_stored(&run_config).unwrap();
    resumed.train.soft_policy_weight = 8.0;
    std::fs::write(&run_config, resumed.to_toml()).unwrap();
    let error = error_line(&["train", "--run-dir", path(&plain), "--steps", "2", "--http", "off"]);
    assert!(error.contains("train.soft_policy_weight is 8, but this network has no soft policy head"), "{error}");
}
