//! The learner's dashboard: its JSON API from a live `dojo train --http`, and the page in a
//! real headless browser (Debian's chromium, driven by Python's selenium: scripts/test.sh
//! installs both and names the python in DOJO_BROWSER_PYTHON), which must draw the curves
//! and answer a move on the board; and a 2048 learner's page, which must chart the scores
//! and reach rates of the games it was sent and show their final boards. The screenshots
//! are left in the test's target folder.

use crate::common;
use crate::sliding;

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

/// A chart as the browser script reads it (`{"labels": [...], "rows": [[...]]}`): its
/// labels and its rows as numbers (JSON from the browser writes 2048.0 as 2048).
fn chart_data(chart: &serde_json::Value) -> (Vec<&str>, Vec<Vec<f64>>) {
    let labels = chart["labels"].as_array().unwrap_or_else(|| panic!("no chart: {chart}"));
    let rows = chart["rows"].as_array().unwrap();
    (
        labels.iter().map(|l| l.as_str().unwrap()).collect(),
        rows.iter().map(|r| r.as_array().unwrap().iter().map(|v| v.as_f64().unwrap_or(f64::NAN)).collect()).collect(),
    )
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
    assert!(page.contains("chart-grade-policy") && page.contains("chart-grade-search"), "the grade charts");
    // The curves are the metrics table's figures, written into the page and served alone.
    let charts = json(&http(&addr, "GET", "/api/charts", "").1);
    let files: Vec<&str> = charts["figures"].as_array().unwrap().iter().map(|f| f["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["losses.png", "throughput.png", "games.png"], "{charts}");
    let layout = page.split_once("const layout = ").and_then(|(_, rest)| rest.split_once(";\n")).unwrap().0;
    assert_eq!(json(layout), charts, "the page has the same charts");

    // Two graded gates, as a grading gatekeeper records them: the API serves their grades.
    let grade = |v: u64, rate: f64| {
        let rates = serde_json::json!({"L1R1": {"positions": 4, "errors": 1, "rate": rate}, "all": {"positions": 4, "errors": 1, "rate": rate}});
        serde_json::json!({"unix_ms": 1, "candidate": v, "best": null, "games": 0, "wins": 0, "draws": 0, "losses": 0,
            "score": 1.0, "promoted": true, "grade": {"positions": 4, "sims": 8, "seconds": 0.5, "policy": rates, "search": rates}})
    };
    let mut log =
        std::fs::OpenOptions::new().create(true).append(true).open(tmp.path().join("run/gating.jsonl")).unwrap();
    writeln!(log, "{}\n{}", grade(1000, 0.5), grade(1001, 0.25)).unwrap();
    let gating = json(&http(&addr, "GET", "/api/gating", "").1);
    let graded: Vec<&serde_json::Value> = gating.as_array().unwrap().iter().filter(|g| !g["grade"].is_null()).collect();
    assert_eq!(graded.len(), 2, "{gating}");
    assert_eq!(graded[1]["grade"]["search"]["L1R1"]["rate"].as_f64(), Some(0.25), "{gating}");
    // A ladder over two checkpoints, as scripts/gomoku-ladder leaves it: the newest
    // tournament, served with its gauntlet lines and charted against training step.
    let ladder = tmp.path().join("run/tournaments/ladder");
    std::fs::create_dir_all(&ladder).unwrap();
    let standing = |name: &str, step: Option<u64>, elo: f64| {
        let mut s = serde_json::json!({"name": name, "spec": "random", "elo": elo, "low": elo - 50.0, "high": elo + 50.0,
            "games": 4, "wins": 2, "draws": 0, "losses": 2, "score": 0.5, "forfeits": 0});
        if let Some(step) = step {
            s["version"] = serde_json::json!(step / 10);
            s["step"] = serde_json::json!(step);
        }
        s
    };
    let against = |score: f64| {
        serde_json::json!([{"reference": "rapfi-10", "games": 4, "wins": 2, "draws": 0, "losses": 2,
        "score": score, "low": 0.15, "high": 0.85}])
    };
    let ratings = serde_json::json!({"game": "connect4", "anchor": "rapfi-10", "anchor_elo": 0.0, "draw_elo": null,
        "interval": "", "games": 8,
        "players": [standing("v2", Some(20), 40.0), standing("rapfi-10", None, 0.0), standing("v1", Some(10), -90.0)],
        "gauntlet": [{"player": "v1", "step": 10, "against": against(0.25), "highest_beaten": null},
                     {"player": "v2", "step": 20, "against": against(0.5), "highest_beaten": "rapfi-10"}]});
    std::fs::write(ladder.join("ratings.json"), ratings.to_string()).unwrap();
    let served = json(&http(&addr, "GET", "/api/tournament", "").1);
    assert_eq!(served["name"], "ladder", "{served}");
    assert_eq!(served["ratings"]["gauntlet"][1]["highest_beaten"], "rapfi-10", "{served}");
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
    assert_eq!(seen["score_charts_shown"], false, "no scores for a two-player game: {seen}");
    assert_eq!(seen["grade_points"], 2, "the two graded versions are charted: {seen}");
    assert_eq!(seen["tournament_points"], 2, "the ladder's two checkpoints are charted: {seen}");
    assert_eq!(seen["tournament_beaten"], serde_json::json!(["rapfi-10", "", "none"]), "{seen}");
    assert_eq!(seen["errors"], serde_json::json!([]), "no errors in the page's console: {seen}");
    let png = std::fs::read(&screenshot).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    eprintln!("dashboard screenshot: {}", screenshot.display());
}

#[test]
fn a_2048_runs_dashboard_charts_the_scores_and_reach_rates_and_shows_final_boards() {
    let tmp = tempfile::tempdir().unwrap();
    let ([(first, a), (second, b)], positions) = sliding::two_games();
    let (learner, grpc, addr) = sliding::learner_2048(tmp.path(), positions);
    sliding::submit(&grpc, &[first.clone(), second.clone()]);
    let started = Instant::now();
    let scored = loop {
        let lines = json(&http(&addr, "GET", "/api/metrics", "").1);
        if let Some(line) = lines.as_array().unwrap().iter().find(|l| l.get("mean_score").is_some()) {
            break line.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(90), "no metrics line with scores within 90 s");
        std::thread::sleep(Duration::from_millis(300));
    };
    let (step, mean) = (scored["step"].as_f64().unwrap(), (a.score + b.score) as f64 / 2.0);
    assert_eq!(scored["mean_score"].as_f64(), Some(mean), "{scored}");

    let info = json(&http(&addr, "GET", "/api/info", "").1);
    assert_eq!(
        (info["players"].as_u64(), info["kind"].as_str(), info["width"].as_u64()),
        (Some(1), Some("sliding"), Some(4))
    );
    // The recent games, oldest first: their scores, largest tiles and last boards, with
    // every action and spawn of the record.
    let games = json(&http(&addr, "GET", "/api/games", "").1);
    for (game, (record, end)) in games.as_array().unwrap().iter().zip([(&first, a), (&second, b)]) {
        assert_eq!(
            (game["score"].as_u64(), game["max_tile"].as_u64()),
            (Some(end.score), Some(u64::from(end.max_tile)))
        );
        let board: Vec<u64> = game["board"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        assert_eq!((board.len(), board.iter().max()), (16, Some(&u64::from(end.max_tile))), "{game}");
        assert_eq!(game["moves"].as_array().unwrap().len(), record.moves.len());
    }
    let (status, body) = http(&addr, "POST", "/api/play", r#"{"moves":[]}"#);
    assert!(status == 400 && body.contains("one-player game"), "{status} {body}");

    let Ok(python) = std::env::var("DOJO_BROWSER_PYTHON") else {
        learner.terminate();
        eprintln!(
            "SKIPPED the browser half: DOJO_BROWSER_PYTHON is not set (scripts/test.sh sets it, or says why not)"
        );
        return;
    };
    let screenshot = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard-2048.png");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/scores.py");
    let out = Command::new(python).arg(&script).arg(format!("http://{addr}/")).arg(&screenshot).output().unwrap();
    learner.terminate();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen = json(&String::from_utf8_lossy(&out.stdout));
    for chart in ["chart-loss", "chart-score", "chart-reach"] {
        assert!(seen[chart]["canvases"].as_u64().unwrap() > 0, "dygraphs drew {chart}: {seen}");
    }
    // Exactly the one window with games, as the page's charts hold it.
    let best = a.score.max(b.score) as f64;
    assert_eq!(
        chart_data(&seen["chart-score"]["data"]),
        (vec!["step", "mean score", "max score", "max tile"], vec![vec![step, mean, best, f64::from(a.max_tile)]]),
        "{seen}"
    );
    assert_eq!(
        chart_data(&seen["chart-reach"]["data"]),
        (
            vec!["step", "reached 2048", "reached 4096", "reached 8192", "reached 16384", "reached 32768"],
            vec![vec![step, 0.5, 0.0, 0.0, 0.0, 0.0]]
        ),
        "{seen}"
    );
    assert!(seen["chart-loss"]["points"].as_u64().unwrap() >= 1, "{seen}");
    assert_eq!((seen["score_charts_shown"].as_bool(), seen["play_buttons_shown"].as_bool()), (Some(true), Some(false)));
    assert_eq!(seen["play"], "one-player game: nothing to play against", "{seen}");
    // Newest first: the second game, its final board on show.
    assert_eq!(
        seen["games"],
        serde_json::json!([
            format!("v1: score {}, max tile {}", b.score, b.max_tile),
            format!("v1: score {}, max tile {}", a.score, a.max_tile)
        ]),
        "{seen}"
    );
    let shown: Vec<u64> =
        seen["tiles"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().parse().unwrap_or(0)).collect();
    assert_eq!((shown.len(), shown.iter().max()), (16, Some(&u64::from(b.max_tile))), "{seen}");
    assert_eq!(seen["errors"], serde_json::json!([]), "no errors in the page's console: {seen}");
    eprintln!("dashboard screenshot: {}", screenshot.display());
}
