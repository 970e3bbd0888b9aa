//! Any-size networks through the pipeline: `connect4:saiblo` (9–12 × 9–12, one blocked
//! cell) and `gomoku:7-9` each train one network on boards of every size, a learner replays
//! each record on its own board, matches are reported board size by board size, and the
//! network plays boards larger than it trained on.

use crate::common;

use common::{dojo, dojo_with_input, path, stdout_of, tiny_config};
use dojo_arch::architecture::{Architecture, PolicyHead};
use dojo_arch::precision::PrecisionChoice;
use dojo_game::gomoku::Gomoku;
use dojo_game::{FromAnyGame, Game, GameSpec};
use dojo_learner::gamelog::GameLog;
use dojo_learner::server::{start_learner, LearnerError, LearnerHandle, LearnerOptions};
use dojo_net::checkpoint;
use dojo_net::device::{set_threads, Device};
use dojo_net::model::Model;
use dojo_record::GameRecord;
use dojo_run::dir::RunDir;
use dojo_worker::run::{run_worker, WorkerOptions};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn learner(run: &Path, game: &GameSpec) -> LearnerHandle {
    learner_from(run, game, None).unwrap()
}

/// A learner of a tiny run of `game`, a new one starting from `start_from` where given.
fn learner_from(run: &Path, game: &GameSpec, start_from: Option<&Path>) -> Result<LearnerHandle, LearnerError> {
    set_threads(1);
    let mut config = tiny_config();
    config.game = game.clone();
    start_learner(LearnerOptions {
        http: None,
        run_dir: run.to_path_buf(),
        config: Some(config),
        listen: "127.0.0.1:0".parse().unwrap(),
        token: None,
        max_steps: None,
        deadline: None,
        drain: Duration::from_secs(2),
        device: Device::Cpu,
        tls: None,
        limits: Default::default(),
        start_from: start_from.map(Path::to_path_buf),
    })
}

/// An any-size network starts a run on other boards of its game (Gomocup's 15-20 from a
/// 9-15 network): its weights as they are, in the run's frame; a board-specific network of
/// another size is still refused.
#[test]
fn an_any_size_run_starts_from_a_network_of_other_boards() {
    let tmp = tempfile::tempdir().unwrap();
    let small = tmp.path().join("small");
    stdout_of(&dojo(&["init", "--game", "gomoku:7-9", "--blocks", "1", "--channels", "8", "--out", path(&small)]));
    let small_sidecar = checkpoint::read_sidecar(&small).unwrap();
    let spec: GameSpec = "gomoku:10-12".parse().unwrap();
    let run = tmp.path().join("run");
    let handle = learner_from(&run, &spec, Some(&small)).unwrap();
    assert_eq!(handle.shared.newest().version, 1);
    handle.stop().unwrap();
    let v1 = checkpoint::read_sidecar(&RunDir::new(&run).model_version(1)).unwrap();
    assert_eq!((v1.architecture.game.to_string().as_str(), v1.architecture.width), ("gomoku:10-12", 12));
    assert_eq!(v1.sha256, small_sidecar.sha256, "the same weights");

    let fixed = tmp.path().join("fixed");
    stdout_of(&dojo(&["init", "--game", "gomoku:9", "--blocks", "1", "--channels", "8", "--out", path(&fixed)]));
    let text = learner_from(&tmp.path().join("other"), &spec, Some(&fixed)).err().expect("refused").to_string();
    assert!(text.contains("checkpoint is for gomoku:9, not gomoku:10-12"), "{text}");
}

/// Trains a run of `game` on `games` self-play games until it has a second version;
/// returns its directory, the records and the newest version's checkpoint.
fn train_run(tmp: &Path, game: &GameSpec, games: u64) -> (PathBuf, Vec<GameRecord>, PathBuf) {
    let run = tmp.join("run");
    let handle = learner(&run, game);
    let stop = Arc::new(AtomicBool::new(false));
    let opts = WorkerOptions {
        learner: format!("http://{}", handle.addr),
        token: None,
        tls_ca: None,
        spool: tmp.join("spool"),
        device: Device::Cpu,
        precision: PrecisionChoice::Auto,
        threads: 1,
        name: "saiblo".into(),
        max_games: Some(games),
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
    assert_eq!(summary.games_delivered, games);
    let shared = handle.shared.clone();
    let t = Instant::now();
    while shared.newest().version < 2 {
        assert!(t.elapsed() < Duration::from_secs(120), "no version was trained on the {game} games");
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    handle.stop().unwrap();
    let dir = RunDir::new(&run);
    let (_, records) = GameLog::open(&dir.games(), 1 << 20).unwrap();
    assert_eq!(records.len() as u64, games);
    let newest = dir.model_version(dir.read_state().unwrap().version);
    (run, records, newest)
}

#[test]
fn a_saiblo_run_trains_one_any_size_network_on_boards_of_every_size() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, records, newest) = train_run(tmp.path(), &GameSpec::Connect4Saiblo, 16);

    // Every game names the board it was drawn; the boards differ in size.
    let mut sizes = BTreeSet::new();
    for r in &records {
        assert!(GameSpec::Connect4Saiblo.admits(&r.spec), "{}", r.spec);
        sizes.insert(r.spec.largest_board().unwrap());
    }
    assert!(sizes.len() >= 3, "16 games on only {sizes:?}");
    let trainable: usize = records.iter().map(|r| r.training_moves()).sum();

    // One network for them all: any-size, as large as the largest board.
    let arch = checkpoint::read_sidecar(&newest).unwrap().architecture;
    assert_eq!((arch.any_size, arch.width, arch.height, arch.policy_head), (true, 12, 12, PolicyHead::Column));

    // A restarted learner replays every record on its own board: every position of every
    // board is in its buffer.
    let handle = learner(&run, &GameSpec::Connect4Saiblo);
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
        "--parallel",
        "1",
        "--json",
    ]));
    let json: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let by_size = json["by_board_size"].as_object().unwrap();
    let games: u64 = by_size.values().map(|t| t["games"].as_u64().unwrap()).sum();
    assert_eq!(games, 6, "{out}");
    assert!(by_size.values().all(|t| t["games"].as_u64().unwrap() % 2 == 0), "pairs share a board: {out}");
    let mut bestmove = std::process::Command::new(common::dojo_bin())
        .args(["bestmove", "--game", "connect4:9x10:3.3", "--model", path(&newest), "--playouts", "8"])
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
fn a_network_trained_on_a_smaller_frame_plays_larger_boards_in_a_larger_frame() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("c.toml");
    let mut c = tiny_config();
    c.net.any_size = true; // on 7×6: a network that can later play any other board
    std::fs::write(&config, c.to_toml()).unwrap();
    let run = tmp.path().join("run");
    let out = dojo(&["train", "--run-dir", path(&run), "--config", path(&config), "--steps", "0", "--workers", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v1 = RunDir::new(&run).model_version(1);
    assert!(checkpoint::read_sidecar(&v1).unwrap().architecture.any_size);
    let out =
        dojo_with_input(&["bestmove", "--game", "connect4:9x9", "--model", path(&v1), "--playouts", "8"], b"9 9\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.contains("trained on boards up to 7x6, plays connect4:9x9 in a 9x9 frame"),
        "{stderr}"
    );
    let column: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert!((1..=9).contains(&column), "column {column} of a 9-wide board");
    for (game, games) in [("connect4:saiblo", "2"), ("connect4:6x5", "2")] {
        let net = format!("net:{}:sims=4", path(&v1));
        let out = stdout_of(&dojo(&["match", "--game", game, "--a", &net, "--b", "random", "--games", games]));
        assert!(out.contains(&format!("on {game}: 2 games")), "{out}");
    }
    let out = dojo(&["match", "--game", "gomoku:9", "--a", &format!("net:{}", path(&v1)), "--b", "random"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is a network for connect4:7x6, not gomoku:9"), "{stderr}");
}

#[test]
fn a_gomoku_run_trains_one_network_for_every_size_and_its_brain_starts_on_each() {
    let tmp = tempfile::tempdir().unwrap();
    let spec: GameSpec = "gomoku:7-9".parse().unwrap();
    let (run, records, newest) = train_run(tmp.path(), &spec, 12);

    // Records name their own boards and replay on them, unframed: a frame never reaches a
    // record (a move keeps its number on its board).
    let mut sizes = BTreeSet::new();
    for r in &records {
        assert!(spec.admits(&r.spec), "{}", r.spec);
        sizes.insert(r.spec.to_string());
        let end = r.replay(Gomoku::from_any(r.start().unwrap()).unwrap(), |_, _, _| {}).unwrap();
        assert!(end.outcome().is_some(), "{} replays to its end", r.spec);
    }
    assert!(sizes.len() >= 2, "12 games on only {sizes:?}");
    let trainable: usize = records.iter().map(|r| r.training_moves()).sum();
    let arch = checkpoint::read_sidecar(&newest).unwrap().architecture;
    assert_eq!((arch.any_size, arch.width, arch.policy_head, arch.actions), (true, 9, PolicyHead::Point, 81));
    let handle = learner(&run, &spec);
    assert_eq!(handle.shared.counters.buffer_positions.load(Ordering::Relaxed) as usize, trainable);
    handle.stop().unwrap();

    let net = format!("net:{}:sims=4", path(&newest));
    let out = stdout_of(&dojo(&["match", "--game", "gomoku:7-9", "--a", &net, "--b", "random", "--games", "4"]));
    assert!(out.contains("on gomoku:7-9: 4 games"), "{out}");
    // Rated on one board, and on a larger one than it trained on.
    for (name, board) in [("small", "gomoku:8"), ("large", "gomoku:12")] {
        let args = ["tournament", "--run-dir", path(&run), "--name", name, "--game", board, "--newest-version"];
        let out = stdout_of(&dojo(
            &[&args[..], &["--players", "random", "--games-per-pair", "2", "--playouts", "4"]].concat(),
        ));
        assert!(out.contains("random"), "{out}");
        let spec = std::fs::read_to_string(run.join("tournaments").join(name).join("tournament.json")).unwrap();
        assert!(spec.contains(&format!("\"game\": \"{board}\"")), "{spec}");
    }
    // Resumed without --game, a tournament plays on its own board.
    let args = ["tournament", "--run-dir", path(&run), "--name", "large", "--newest-version", "--playouts", "4"];
    let out = stdout_of(&dojo(&[&args[..], &["--players", "random"]].concat()));
    assert!(out.contains("random"), "{out}");
    let out = dojo(&["tournament", "--run-dir", path(&run), "--game", "connect4", "--players", "random"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the run plays gomoku:7-9, not connect4:7x6"), "{stderr}");

    // `dojo play` on a board the user names.
    let out = dojo_with_input(&["play", "--model", path(&newest), "--game", "gomoku:12", "--playouts", "4"], b"quit\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.starts_with("dojo play: gomoku:12, you are"), "{stdout}");

    // A network of one board plays that board only, not the boards a random spec draws.
    let fixed = tmp.path().join("fixed");
    let model = Model::new(Architecture::for_game(&Gomoku::new(9).unwrap(), 1, 8), Device::Cpu);
    checkpoint::save(&model, &fixed, 0, 1, None).unwrap();
    let out = dojo(&["match", "--game", "gomoku:7-9", "--a", &format!("net:{}", path(&fixed)), "--b", "random"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("is a network for gomoku:9, not gomoku:7-9"), "{stderr}");
    let out = dojo_with_input(&["play", "--model", path(&fixed), "--game", "gomoku:8"], b"quit\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("checkpoint is for gomoku:9, not gomoku:8"), "{stderr}");

    // A Gomocup brain on every size up to 20: a board larger than the training frame is
    // played in a larger one; past 20 is refused.
    let out = dojo_with_input(
        &["pbrain", "--model", path(&newest), "--playouts", "4"],
        b"START 20\nBEGIN\nSTART 7\nBEGIN\nSTART 21\nEND\n",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(lines.len(), 5, "{stdout}");
    assert_eq!((lines[0], lines[2]), ("OK", "OK"), "{stdout}");
    for (line, size) in [(lines[1], 20), (lines[3], 7)] {
        let (x, y) = line.split_once(',').unwrap();
        let (x, y): (usize, usize) = (x.parse().unwrap(), y.parse().unwrap());
        assert!(x < size && y < size, "{line} on {size}x{size}");
    }
    assert_eq!(lines[4], "ERROR this network plays boards from 7x7 to 20x20, not 21x21");
}

#[test]
fn init_writes_an_any_size_network_for_a_spec_of_several_boards_and_selfplay_plays_each() {
    let tmp = tempfile::tempdir().unwrap();
    let ckpt = tmp.path().join("any");
    let args = ["init", "--game", "gomoku:7-9", "--blocks", "1", "--channels", "8", "--seed", "3"];
    let out = stdout_of(&dojo(&[&args[..], &["--out", path(&ckpt)]].concat()));
    assert!(out.contains("(1 blocks x 8 channels, any-size, point policy head, for gomoku:7-9"), "{out}");
    let arch = checkpoint::read_sidecar(&ckpt).unwrap().architecture;
    assert_eq!((arch.any_size, arch.width, arch.height, arch.policy_head), (true, 9, 9, PolicyHead::Point));

    let recs = tmp.path().join("games.rec");
    let args = ["selfplay", "--model", path(&ckpt), "--games", "6", "--playouts", "4", "--seed", "5", "--threads", "1"];
    let out = stdout_of(&dojo(&[&args[..], &["--out", path(&recs)]].concat()));
    assert!(out.contains("wrote 6 games"), "{out}");
    let records = dojo_record::read_records(&recs).unwrap();
    let spec: GameSpec = "gomoku:7-9".parse().unwrap();
    let sizes: BTreeSet<String> = records.iter().map(|r| r.spec.to_string()).collect();
    assert!(records.iter().all(|r| spec.admits(&r.spec)) && sizes.len() >= 2, "{sizes:?}");
    for r in &records {
        let end = r.replay(Gomoku::from_any(r.start().unwrap()).unwrap(), |_, _, _| {}).unwrap();
        assert!(end.outcome().is_some(), "{} replays to its end", r.spec);
    }
}
