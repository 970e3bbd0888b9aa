//! The Gomoku ladder as users run it: `scripts/gomoku-ladder RUN` plays a run's network
//! against Rapfi at its lowest rung from the shipped book of balanced openings, through
//! `dojo tournament`'s gauntlet, and resumes without replaying a game; a network without a
//! run (a shipped one) climbs it in a folder of its own. Rapfi is never in the repository,
//! nor built by it: scripts/find-rapfi finds the engine this machine's user built
//! (scripts/test.sh runs it and names the engine in DOJO_RAPFI_ENGINE); without one the
//! tests against Rapfi say SKIPPED, and the rest play a scripted stand-in.

use crate::common;

use common::{path, seeded_tiny_net, tiny_config, tiny_net};
use dojo_arch::architecture::Architecture;
use dojo_game::gomoku::Gomoku;
use dojo_net::checkpoint;
use dojo_net::device::{set_threads, Device};
use dojo_net::model::Model;
use dojo_run::dir::RunDir;
use std::os::unix::fs::PermissionsExt;
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
        let model = Model::new(Architecture::for_game(&board, 1, 8), Device::Cpu);
        let path = run.model_version(1);
        checkpoint::save(&model, &path, 10, 1, None).unwrap();
        std::fs::copy(checkpoint::paths(&path).1, run.latest()).unwrap();
    }
    run
}

/// Runs the ladder script on `run` with `args`, the engine `rapfi` (DOJO_RAPFI) and this
/// build's dojo.
fn ladder(run: &RunDir, rapfi: &str, args: &[&str]) -> Output {
    let mut all = vec![path(&run.root)];
    all.extend_from_slice(args);
    ladder_in(Path::new("."), rapfi, &all)
}

/// Runs the ladder script with `args` from the folder `cwd`, the engine `rapfi` and this
/// build's dojo.
fn ladder_in(cwd: &Path, rapfi: &str, args: &[&str]) -> Output {
    Command::new("bash")
        .arg(script())
        .args(args)
        .current_dir(cwd)
        .env("DOJO_BIN", env!("CARGO_BIN_EXE_dojo"))
        .env("DOJO_RAPFI", rapfi)
        .output()
        .expect("bash runs the ladder script")
}

/// A stand-in for Rapfi, where a test is about the ladder rather than the engine: the
/// manager tests' scripted Gomocup brain (it plays the first empty point), as one
/// executable file like the pbrain-rapfi DOJO_RAPFI names.
fn stand_in(dir: &Path) -> PathBuf {
    let brain = Path::new(env!("CARGO_MANIFEST_DIR")).join("../arbiter/tests/fake_brain.py");
    let file = dir.join("pbrain-stand-in");
    std::fs::write(&file, format!("#!/bin/sh\nexec python3 '{}' good /dev/null\n", brain.display())).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    file
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_tiny_network_climbs_the_lowest_rung_of_the_ladder_and_resumes() {
    let Ok(engine) = std::env::var("DOJO_RAPFI_ENGINE") else {
        eprintln!(
            "SKIPPED: the Gomoku ladder against Rapfi: DOJO_RAPFI_ENGINE is not set (scripts/test.sh finds the Rapfi you built with scripts/find-rapfi and sets it, or says why not)"
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
            "SKIPPED: the Gomoku ladder by the clock against Rapfi: DOJO_RAPFI_ENGINE is not set (scripts/test.sh finds the Rapfi you built with scripts/find-rapfi and sets it, or says why not)"
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
    let said = stderr(&out);
    assert!(said.contains(&format!("find-rapfi: DOJO_RAPFI={}: no such file.", missing.display())), "{said}");
    assert!(
        said.contains("Get it from its project, https://github.com/dhbloo/rapfi, and build it as its own README says"),
        "{said}"
    );
    assert!(said.contains("gomoku-ladder: no Rapfi engine to play"), "{said}");
    // A source folder, which dojo once built the engine from, is refused as such.
    let source = dir.path().join("rapfi-source");
    std::fs::create_dir(&source).unwrap();
    let out = ladder(&run, path(&source), &["--rungs", "1"]);
    assert!(
        stderr(&out).contains(&format!(
            "find-rapfi: DOJO_RAPFI={} is a folder, and dojo no longer builds engines from a source folder",
            source.display()
        )),
        "{}",
        stderr(&out)
    );

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

#[test]
fn a_network_without_a_run_climbs_the_ladder_in_a_folder_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    tiny_net(dir.path(), "gomoku:11");
    let model = dir.path().join("net.safetensors");
    let engine = stand_in(dir.path());
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    // A checkpoint where the run goes: the board is the network's, the ladder is kept in
    // runs/ladder-gomoku11 under the working directory.
    let args = [path(&model), "--rungs", "1", "--pairs", "1", "--playouts", "8", "--", "--json"];
    let out = ladder_in(&work, path(&engine), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(
        said.contains(&format!("gomoku-ladder: gomoku:11 on gomoku:11, {}; 1 rungs (rapfi-1)", model.display())),
        "{said}"
    );
    assert!(said.contains("kept in runs/ladder-gomoku11/tournaments/ladder"), "{said}");
    let standings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(standings["games"], 2);
    let line = &standings["gauntlet"][0];
    assert_eq!(line["player"], format!("net:{}:sims=8", model.display()));
    assert_eq!(line["step"], 0, "a network from elsewhere is placed by its own step");
    assert_eq!(line["against"][0]["reference"], "rapfi-1");
    let folder = work.join("runs/ladder-gomoku11");
    let config = std::fs::read_to_string(folder.join("config.toml")).unwrap();
    assert!(config.contains("game = \"gomoku:11\""), "{config}");
    let results = folder.join("tournaments/ladder/results.jsonl");
    assert_eq!(std::fs::read_to_string(&results).unwrap().lines().count(), 2);

    // Again with a second network, by --model: the first one's games stand, the new one's
    // are played, in the same folder.
    let other = seeded_tiny_net(dir.path(), "gomoku:11", 7).with_extension("safetensors");
    let args = ["--model", path(&model), "--model", path(&other), "--rungs", "1", "--pairs", "1", "--playouts", "8"];
    let again = ladder_in(&work, path(&engine), &args);
    assert!(again.status.success(), "{}", stderr(&again));
    let games: Vec<serde_json::Value> =
        std::fs::read_to_string(&results).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(games.len(), 4, "{games:?}");
    let text = String::from_utf8(again.stdout).unwrap();
    assert!(text.contains(&format!("net:{}:sims=8", other.display())), "{text}");
}

#[test]
fn a_ladder_without_a_run_says_what_is_wrong_before_it_plays() {
    let dir = tempfile::tempdir().unwrap();
    let net = |game: &str, sub: &str| {
        let folder = dir.path().join(sub);
        std::fs::create_dir(&folder).unwrap();
        tiny_net(&folder, game).with_extension("safetensors")
    };
    let (g11, g9, any, c4) =
        (net("gomoku:11", "a"), net("gomoku:9", "b"), net("gomoku:9-15", "c"), net("connect4", "d"));
    let missing = dir.path().join("no-such-rapfi");
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let said = |args: &[&str]| {
        let out = ladder_in(&work, path(&missing), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        stderr(&out)
    };
    let text = said(&["--model", path(&g11), "--rungs", "1"]);
    assert!(text.contains("gomoku-ladder: no Rapfi engine to play"), "{text}");
    assert!(!work.join("runs").exists(), "nothing is made without an engine to play");

    let text = said(&["--model", path(&g11), "--model", path(&g9)]);
    assert!(
        text.contains(&format!(
            "--model {} is for gomoku:11 and --model {} for gomoku:9: ladder them apart",
            g11.display(),
            g9.display()
        )),
        "{text}"
    );
    let text = said(&[path(&any)]);
    assert!(text.contains("plays gomoku:9-15 (boards of several sizes): name the board with --board N"), "{text}");
    let text = said(&[path(&any), "--board", "11", "--rungs", "1"]);
    assert!(text.contains("gomoku-ladder: gomoku:9-15 on gomoku:11,"), "{text}");
    let text = said(&["--model", path(&c4)]);
    assert!(text.contains("plays connect4:7x6: the Rapfi ladder is for Gomoku"), "{text}");
    let text = said(&["--model", "/nonexistent/net.safetensors"]);
    assert!(text.contains("--model /nonexistent/net.safetensors: no such file"), "{text}");
    let text = said(&["--rungs", "1"]);
    assert!(text.contains("gomoku-ladder: name a run, or networks with --model FILE (see --help)"), "{text}");
    let text = said(&["--model", path(&g11), "--every-nth-version", "5"]);
    assert!(text.contains("gomoku-ladder: --every-nth-version needs a run"), "{text}");
    // A --dir that holds the ladder of another board, or something else, is not used.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("config.toml"), "game = \"gomoku:15\"\n").unwrap();
    let text = said(&["--model", path(&g11), "--dir", path(&other)]);
    assert!(text.contains("holds a ladder of gomoku:15, not gomoku:11: name another --dir"), "{text}");
    std::fs::remove_file(other.join("config.toml")).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let text = said(&["--model", path(&g11), "--dir", path(&other)]);
    assert!(text.contains("is not empty and holds no ladder (no config.toml): name another --dir"), "{text}");
    // With a run, networks join its ladder, kept in the run.
    let run = new_run(dir.path(), "gomoku:11");
    let text = said(&[path(&run.root), "--model", path(&g11), "--dir", path(&other)]);
    assert!(text.contains("--dir is for a ladder without a run"), "{text}");
}

/// `scripts/gomoku-openings` with a stand-in for Rapfi that crashes once: the opening whose
/// game was forfeited is dropped and marked, the others' games stand and are judged, and
/// the book is written (a forfeit used to throw away every game played).
#[test]
fn a_book_of_openings_drops_the_opening_of_a_forfeited_game_and_keeps_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let brain = Path::new(env!("CARGO_MANIFEST_DIR")).join("../arbiter/tests/fake_brain.py");
    let log = dir.path().join("brain.log");
    let engine = dir.path().join("pbrain-crashes-once");
    std::fs::write(&engine, format!("#!/bin/sh\nexec python3 '{}' crashonce '{}'\n", brain.display(), log.display()))
        .unwrap();
    std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o755)).unwrap();
    let book = dir.path().join("book.txt");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/gomoku-openings");
    // --low 0 --high 1: every opening judged is kept, so what is missing was dropped.
    let out = Command::new("python3")
        .arg(&script)
        .args(["--board", "9", "--candidates", "4", "--caps", "1,2", "--low", "0", "--high", "1", "--out"])
        .arg(&book)
        .env("DOJO_BIN", env!("CARGO_BIN_EXE_dojo"))
        .env("DOJO_RAPFI", &engine)
        .output()
        .unwrap();
    let said = stderr(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("forfeited") && said.contains("its opening is dropped"), "{said}");
    assert!(said.contains("kept 3 of 4 openings (1 dropped for a forfeit)"), "{said}");
    let text = std::fs::read_to_string(&book).unwrap();
    assert!(text.contains("# Dropped: 1 opening(s) where a game was forfeited (x below), not judged."), "{text}");
    // The record: a line a candidate, after the header's command line.
    let record: Vec<&str> = text.lines().filter(|l| l.starts_with("#   ") && !l.contains("scripts/")).collect();
    assert_eq!(record.len(), 4, "{text}");
    assert_eq!(record.iter().filter(|l| l.contains('x') && !l.contains("kept")).count(), 1, "{text}");
    assert_eq!(record.iter().filter(|l| l.starts_with("#   kept ")).count(), 3, "{text}");
    let openings = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).count();
    assert_eq!(openings, 3, "{text}");
}
