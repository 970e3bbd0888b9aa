//! The learner's Prometheus page, scraped from a live `dojo train --http` and checked by
//! Prometheus's own `promtool check metrics` (scripts/test.sh unpacks Debian's promtool into
//! the cache and names it in DOJO_PROMTOOL); and a 2048 learner's scores, on its page and in
//! its metrics.jsonl.

mod common;
mod sliding;

use common::{path, tiny_config};
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
