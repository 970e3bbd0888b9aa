//! The learner's dashboard: its JSON API from a live `dojo train --http`, and the page in a
//! real headless browser (Debian's chromium, driven by Python's selenium: scripts/test.sh
//! installs both and names the python in DOJO_BROWSER_PYTHON), which must draw the curves
//! and answer a move on the board. The screenshot is left in the test's target folder.

mod common;

use common::{path, tiny_config};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `method path` with `body` against `addr`: the status code and the body.
fn http(addr: &str, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head[9..12].parse().unwrap(), body.to_string())
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// A tiny `dojo train --http`, and the address it serves HTTP on.
fn train_with_http(dir: &std::path::Path) -> (Child, String) {
    let config = dir.join("tiny.toml");
    std::fs::write(&config, tiny_config().to_toml()).unwrap();
    let mut train = Command::new(env!("CARGO_BIN_EXE_dojo"))
        .args(["train", "--run-dir", path(&dir.join("run")), "--config", path(&config), "--workers", "1"])
        .args(["--for", "180s", "--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(train.stderr.take().unwrap());
    let mut line = String::new();
    let mut addr = None;
    while addr.is_none() && stderr.read_line(&mut line).unwrap() > 0 {
        addr =
            line.trim().strip_prefix("metrics: http://").and_then(|l| l.strip_suffix("/metrics")).map(str::to_string);
        line.clear();
    }
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (train, addr.expect("dojo train prints where it serves HTTP"))
}

#[test]
fn the_dashboard_serves_its_data_answers_moves_and_draws_in_a_real_browser() {
    let tmp = tempfile::tempdir().unwrap();
    let (mut train, addr) = train_with_http(tmp.path());
    let started = Instant::now();
    while json(&http(&addr, "GET", "/api/metrics", "").1).as_array().unwrap().is_empty()
        || json(&http(&addr, "GET", "/api/games", "").1).as_array().unwrap().is_empty()
    {
        assert!(started.elapsed() < Duration::from_secs(90), "no metrics or games within 90 s");
        std::thread::sleep(Duration::from_millis(300));
    }

    let info = json(&http(&addr, "GET", "/api/info", "").1);
    assert_eq!(
        (info["kind"].as_str(), info["width"].as_u64(), info["height"].as_u64()),
        (Some("connect4"), Some(7), Some(6))
    );
    let (status, page) = http(&addr, "GET", "/", "");
    assert!(status == 200 && page.contains("<title>dojo</title>"), "{status}");
    let (status, js) = http(&addr, "GET", "/static/dygraph.min.js", "");
    assert!(status == 200 && js.len() > 100_000, "{status}");
    let games = json(&http(&addr, "GET", "/api/games", "").1);
    assert!(games[0]["moves"].as_array().unwrap().len() >= 7, "{games}");

    // The model answers a move; a move it cannot be is refused with the reason.
    let (status, body) = http(&addr, "POST", "/api/play", r#"{"moves":[3]}"#);
    let reply = json(&body);
    assert_eq!(status, 200, "{body}");
    assert_eq!(reply["moves"].as_array().unwrap().len(), 2, "{reply}");
    assert!(reply["reply"].as_u64().unwrap() < 7 && reply["value"].as_f64().unwrap().abs() <= 1.0, "{reply}");
    assert!(reply["outcome"].is_null(), "{reply}");
    let (status, body) = http(&addr, "POST", "/api/play", r#"{"moves":[3,3,3,3,3,3,3]}"#);
    assert_eq!((status, json(&body)["error"].as_str()), (400, Some("move 7 (4) is not legal there")), "{body}");
    // Four in column 1 for the first player: over, and the model does not move.
    let (_, body) = http(&addr, "POST", "/api/play", r#"{"moves":[0,1,0,1,0,1,0]}"#);
    let over = json(&body);
    assert_eq!((over["outcome"].as_i64(), over["reply"].is_null()), (Some(1), true), "{over}");

    let Ok(python) = std::env::var("DOJO_BROWSER_PYTHON") else {
        let _ = train.kill();
        eprintln!(
            "SKIPPED the browser half: DOJO_BROWSER_PYTHON is not set (scripts/test.sh sets it, or says why not)"
        );
        return;
    };
    let screenshot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard.png");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/dashboard.py");
    let out = Command::new(python).arg(&script).arg(format!("http://{addr}/")).arg(&screenshot).output().unwrap();
    let _ = train.kill();
    let _ = train.wait();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen = json(&String::from_utf8_lossy(&out.stdout));
    assert!(seen["loss_points"].as_u64().unwrap() > 0, "the loss curve has data: {seen}");
    assert!(seen["canvases"].as_u64().unwrap() > 0, "dygraphs drew it: {seen}");
    assert!(seen["status"].as_str().unwrap().contains(" plays "), "the model answered: {seen}");
    assert_eq!(seen["stones"], 2, "your move and the model's: {seen}");
    assert!(seen["workers"].as_u64().unwrap() >= 1, "{seen}");
    assert!(seen["games"].as_u64().unwrap() >= 1 && seen["replay_stones"].as_u64().unwrap() >= 7, "{seen}");
    assert_eq!(seen["errors"], serde_json::json!([]), "no errors in the page's console: {seen}");
    let png = std::fs::read(&screenshot).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    eprintln!("dashboard screenshot: {}", screenshot.display());
}
