//! The Gomoku ladder as users run it: `scripts/gomoku-ladder RUN` plays a run's network
//! against Rapfi at its lowest rung from the shipped book of balanced openings, through
//! `dojo tournament`'s gauntlet, and resumes without replaying a game. Rapfi is never in the
//! repository: scripts/setup-rapfi.sh finds the engine this machine has (scripts/test.sh
//! runs it and names the engine in DOJO_RAPFI_ENGINE); without one the engine's half says
//! SKIPPED.

mod common;

use common::{path, tiny_config};
use dojo_game::gomoku::Gomoku;
use dojo_net::checkpoint;
use dojo_net::device::set_threads;
use dojo_net::model::{Architecture, Model};
use dojo_run::dir::RunDir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/gomoku-ladder")
}

/// A run of `game` with a random 1×8 network published as version 1 (step 10).
fn new_run(dir: &Path, game: &str) -> RunDir {
    set_threads(1);
    let mut config = tiny_config();
    config.game = game.parse().unwrap();
    let run = RunDir::new(dir.join("run"));
    run.create_or_open(Some(&config)).unwrap();
    // A checkpoint of the board (runs of several sizes are refused before one is read).
    if let Some(Ok(size)) = game.strip_prefix("gomoku:").map(str::parse) {
        let board = Gomoku::new(size).unwrap();
        let model = Model::new(Architecture::for_game(&board, 1, 8), tch::Device::Cpu);
        let path = run.model_version(1);
        checkpoint::save(&model, &path, 10, 1, None).unwrap();
        std::fs::copy(checkpoint::paths(&path).1, run.latest()).unwrap();
    }
    run
}

/// Runs the ladder script on `run` with `args`, the engine `rapfi` (DOJO_RAPFI) and this
/// build's dojo.
fn ladder(run: &RunDir, rapfi: &str, args: &[&str]) -> Output {
    Command::new("bash")
        .arg(script())
        .arg(path(&run.root))
        .args(args)
        .env("DOJO_BIN", env!("CARGO_BIN_EXE_dojo"))
        .env("DOJO_RAPFI", rapfi)
        .output()
        .expect("bash runs the ladder script")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_tiny_network_climbs_the_lowest_rung_of_the_ladder_and_resumes() {
    let Ok(engine) = std::env::var("DOJO_RAPFI_ENGINE") else {
        eprintln!(
            "SKIPPED: the Gomoku ladder against Rapfi: DOJO_RAPFI_ENGINE is not set (scripts/test.sh builds Rapfi with scripts/setup-rapfi.sh and sets it, or says why not)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run = new_run(dir.path(), "gomoku:11");
    let args = ["--rungs", "1", "--pairs", "1", "--playouts", "8", "--", "--json"];
    let out = ladder(&run, &engine, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let standings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(standings["anchor"], "rapfi-1", "the only rung anchors the scale");
    assert_eq!(standings["games"], 2);
    let line = &standings["gauntlet"][0];
    assert_eq!(line["player"], "v1");
    assert_eq!(line["step"], 10);
    let against = &line["against"][0];
    assert_eq!((against["reference"].as_str(), against["games"].as_u64()), (Some("rapfi-1"), Some(2)));
    let (w, d, l) =
        (against["wins"].as_u64().unwrap(), against["draws"].as_u64().unwrap(), against["losses"].as_u64().unwrap());
    assert_eq!(w + d + l, 2, "{against}");
    let score = (w as f64 + 0.5 * d as f64) / 2.0;
    assert_eq!(against["score"].as_f64(), Some(score));
    let beaten = if score >= 0.5 { serde_json::json!("rapfi-1") } else { serde_json::Value::Null };
    assert_eq!(line["highest_beaten"], beaten, "{line}");
    let (low, high) = (against["low"].as_f64().unwrap(), against["high"].as_f64().unwrap());
    assert!(low <= score && score <= high && high - low > 0.5, "two games leave a wide interval: {against}");

    // Both games opened with the book's first opening, each side moving first once, and
    // Rapfi answered every move (no forfeit).
    let book = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/openings/gomoku11.txt"))
        .unwrap();
    let first = book.lines().find(|l| !l.trim().is_empty() && !l.starts_with('#')).unwrap().trim().to_string();
    let ladder_dir = run.tournaments().join("ladder");
    let results = std::fs::read_to_string(ladder_dir.join("results.jsonl")).unwrap();
    let games: Vec<serde_json::Value> = results.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(games.len(), 2);
    let mut firsts: Vec<bool> = games.iter().map(|g| g["a_first"].as_bool().unwrap()).collect();
    firsts.sort();
    assert_eq!(firsts, [false, true]);
    for g in &games {
        assert_eq!(g["opening"], first.as_str(), "{g}");
        assert!(g.get("forfeit").is_none(), "{g}");
    }
    assert!(ladder_dir.join("ratings.png").exists());
    let events = std::fs::read_dir(run.tensorboard("tournament-ladder")).unwrap().count();
    assert_eq!(events, 1, "the ladder's Elo curve is in TensorBoard");

    // Run again: everything was played, nothing is replayed.
    let again = ladder(&run, &engine, &["--rungs", "1", "--pairs", "1", "--playouts", "8"]);
    assert!(again.status.success(), "{}", stderr(&again));
    let text = String::from_utf8(again.stdout.clone()).unwrap();
    assert!(text.contains("highest beaten (>= 50%)"), "{text}");
    assert!(stderr(&again).contains("2 finished, 0 to play"), "{}", stderr(&again));
    assert_eq!(std::fs::read_to_string(ladder_dir.join("results.jsonl")).unwrap(), results);
}

#[test]
fn a_ladder_by_the_clock_plays_rapfi_at_full_strength_without_a_timeout() {
    let Ok(engine) = std::env::var("DOJO_RAPFI_ENGINE") else {
        eprintln!(
            "SKIPPED: the Gomoku ladder by the clock against Rapfi: DOJO_RAPFI_ENGINE is not set (scripts/test.sh finds Rapfi with scripts/setup-rapfi.sh and sets it, or says why not)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run = new_run(dir.path(), "gomoku:11");
    let args = ["--rungs", "1s", "--clock", "200ms", "--pairs", "1", "--name", "clock", "--", "--json"];
    let out = ladder(&run, &engine, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("the network at clock=200ms"), "{}", stderr(&out));
    let standings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(standings["anchor"], "rapfi-1s");
    let against = &standings["gauntlet"][0]["against"][0];
    assert_eq!((against["reference"].as_str(), against["games"].as_u64()), (Some("rapfi-1s"), Some(2)));
    // The time control is in the players' specs, kept with the tournament: Rapfi at full
    // strength with 1 s a move, the network searching 200 ms a move.
    let folder = run.tournaments().join("clock");
    let kept = std::fs::read_to_string(folder.join("tournament.json")).unwrap();
    assert!(kept.contains("pbrain:clock=1s:"), "{kept}");
    assert!(kept.contains(":clock=200ms"), "{kept}");
    // Neither side ran out of time: both games were played out.
    let results = std::fs::read_to_string(folder.join("results.jsonl")).unwrap();
    for line in results.lines() {
        let game: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(game.get("forfeit").is_none(), "{game}");
    }
    assert_eq!(results.lines().count(), 2);
}

#[test]
fn the_ladder_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let run = new_run(dir.path(), "gomoku:11");
    let missing = dir.path().join("no-such-rapfi");
    let out = ladder(&run, path(&missing), &["--rungs", "1"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(&format!(
            "DOJO_RAPFI={} is neither a built pbrain-rapfi nor a Rapfi source folder",
            missing.display()
        )),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("gomoku-ladder: no Rapfi engine to play"), "{}", stderr(&out));

    let out = ladder(&run, path(&missing), &["--rungs", "1", "--openings", "/nonexistent/book.txt"]);
    assert!(stderr(&out).contains("--openings /nonexistent/book.txt: no such file"), "{}", stderr(&out));
    let out = ladder(&run, path(&missing), &["--rungs", "1,x"]);
    assert!(
        stderr(&out).contains("--rungs: x is neither a node cap N, a depth cap dD nor a time (1s, 250ms)"),
        "{}",
        stderr(&out)
    );
    let out = ladder(&run, path(&missing), &["--rungs", "1,1.5.5s"]);
    assert!(stderr(&out).contains("--rungs: 1.5.5s is not a time (1s, 1.5s, 250ms)"), "{}", stderr(&out));

    let other = tempfile::tempdir().unwrap();
    let c4 = new_run(other.path(), "connect4");
    let out = ladder(&c4, path(&missing), &[]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("plays connect4:7x6: the Rapfi ladder is for Gomoku"), "{}", stderr(&out));

    // A run of several sizes is laddered on the board named.
    let sizes = tempfile::tempdir().unwrap();
    let any = new_run(sizes.path(), "gomoku:9-15");
    let out = ladder(&any, path(&missing), &[]);
    assert!(stderr(&out).contains("plays gomoku:9-15 (boards of several sizes): name the board with --board N"));
    let out = ladder(&any, path(&missing), &["--board", "eleven"]);
    assert!(stderr(&out).contains("--board eleven: the ladder needs a square board's side N"), "{}", stderr(&out));
    let out = ladder(&any, path(&missing), &["--board", "11", "--rungs", "1"]);
    assert!(stderr(&out).contains("gomoku-ladder: no Rapfi engine to play"), "{}", stderr(&out));
}
