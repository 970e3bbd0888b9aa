//! `dojo match` and `dojo bestmove` with network players, as a user runs them.

use crate::common;

use common::{dojo, dojo_with_input, path, stdout_of, tiny_net};
use std::path::Path;

#[test]
fn network_players_play_a_match_and_keep_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let net = tiny_net(dir.path(), "connect4");
    // Averaged over symmetries (the default) against the board as it stands.
    let a = format!("net:{}:sims=16", path(&net));
    let b = format!("net:{}:sims=8:cpuct=2:noavg", path(&net));
    let out =
        stdout_of(&dojo(&["match", "--a", &a, "--b", &b, "--games", "4", "--parallel", "1", "--seed", "3", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["a"], a.as_str(), "{out}");
    assert_eq!(v["b"], b.as_str(), "{out}");
    assert_eq!(v["games"], 4);
    let played = ["wins", "draws", "losses"].iter().map(|k| v[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(played, 4);

    // A misspelt option is not taken for part of the path: the checkpoint is not found.
    let bad = dojo(&["match", "--a", &format!("net:{}:average", path(&net)), "--b", "random", "--games", "2"]);
    assert!(!bad.status.success());
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("net:average"), "{stderr}");
}

#[test]
fn bestmove_with_averaged_symmetries_still_takes_an_immediate_win() {
    let dir = tempfile::tempdir().unwrap();
    let net = tiny_net(dir.path(), "connect4");
    // First player has three in column 1 (and the second three in column 2): column 1 wins,
    // averaging over the symmetries (the default) or not.
    for extra in [&[][..], &["--no-average"][..]] {
        let args = [&["bestmove", "--model", path(&net), "--playouts", "8"][..], extra].concat();
        assert_eq!(stdout_of(&dojo_with_input(&args, b"121212\n")).trim(), "1", "{extra:?}");
    }
    // The old spelling is accepted with a warning naming what became of it.
    let out = dojo_with_input(&["bestmove", "--model", path(&net), "--sims", "8", "--average-symmetries"], b"121212\n");
    assert_eq!(stdout_of(&out).trim(), "1");
    let warned = String::from_utf8_lossy(&out.stderr);
    assert!(warned.contains("dojo: warning: --sims is deprecated in `dojo bestmove`: use --playouts"), "{warned}");
    assert!(warned.contains("--average-symmetries is deprecated in `dojo bestmove`: symmetry averaging is the default now (--no-average turns it off)"), "{warned}");
}

#[test]
fn bestmove_with_the_threat_search_plays_the_first_move_of_a_vcf() {
    let dir = tempfile::tempdir().unwrap();
    let net = tiny_net(dir.path(), "gomoku:15");
    // X: three on row 7 closed at 2,7 and two on column 6 below it. 6,7 is a four, and after
    // O's block at 7,7, 6,6 makes column 6 an open four: a 3-move VCF an 8-playout search of
    // an untrained network finds only through the threat search.
    let out = dojo_with_input(
        &["bestmove", "--game", "gomoku:15", "--model", path(&net), "--playouts", "8", "--vcf-nodes", "1000"],
        b"3,7 2,7 4,7 0,0 5,7 14,0 6,8 0,14 6,9 14,14\n",
    );
    assert_eq!(stdout_of(&out).trim(), "6,7");
}

#[test]
fn two_networks_open_each_pair_with_random_plies_instead_of_replaying_one_game() {
    let dir = tempfile::tempdir().unwrap();
    let net = tiny_net(dir.path(), "connect4");
    let a = format!("net:{}:sims=8:noavg", path(&net));
    let b = format!("net:{}:sims=4:noavg", path(&net));
    let run = |extra: &[&str]| {
        let mut args = vec!["match", "--a", &a, "--b", &b, "--games", "8", "--parallel", "2", "--seed", "5"];
        args.extend_from_slice(&["--json", "--verbose"]);
        args.extend_from_slice(extra);
        let out = dojo(&args);
        let v: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
        let games: Vec<(String, String)> = v["games_played"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (g["opening"].as_str().unwrap_or("").to_string(), g["moves"].as_str().unwrap().to_string()))
            .collect();
        (games, String::from_utf8_lossy(&out.stderr).to_string())
    };

    // Two networks play without noise: by default each pair gets its own 4-ply opening,
    // both games of a pair the same one, and the match says so.
    let (games, stderr) = run(&[]);
    assert_eq!(games.len(), 8);
    assert!(
        stderr.contains("both players are deterministic: each pair of games opens with 4 random plies"),
        "{stderr}"
    );
    for pair in games.chunks(2) {
        assert_eq!(pair[0].0.len(), 4, "a Connect Four opening of 4 columns: {pair:?}");
        assert_eq!(pair[0].0, pair[1].0, "both games of a pair open alike");
    }
    let openings: std::collections::HashSet<&str> = games.iter().map(|g| g.0.as_str()).collect();
    assert!(openings.len() >= 3, "the 4 pairs open differently: {openings:?}");

    // From the start, every pair replays the same two games: why the default is not that.
    let (games, stderr) = run(&["--opening-plies", "0"]);
    assert!(!stderr.contains("deterministic"), "{stderr}");
    assert!(games.iter().all(|g| g.0.is_empty()));
    for pair in games.chunks(2).skip(1) {
        assert_eq!((&pair[0].1, &pair[1].1), (&games[0].1, &games[1].1));
    }
}

#[test]
fn a_book_of_openings_opens_each_pair_with_its_next_line() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.txt");
    std::fs::write(&book, "# two openings\n4,4 5,5 3,3\n\n4,4 4,5 # and a comment\n").unwrap();
    let out = stdout_of(&dojo(&[
        "match",
        "--game",
        "gomoku:9",
        "--a",
        "random",
        "--b",
        "uct:20",
        "--games",
        "6",
        "--parallel",
        "2",
        "--seed",
        "3",
        "--openings",
        path(&book),
        "--json",
        "--verbose",
    ]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let games = report["games_played"].as_array().unwrap();
    let openings: Vec<&str> = games.iter().map(|g| g["opening"].as_str().unwrap()).collect();
    // Pair K from line K, cycling: both games of a pair from one opening, each side first once.
    assert_eq!(openings, ["4,4 5,5 3,3", "4,4 5,5 3,3", "4,4 4,5", "4,4 4,5", "4,4 5,5 3,3", "4,4 5,5 3,3"]);
    let firsts: Vec<bool> = games.iter().map(|g| g["a_first"].as_bool().unwrap()).collect();
    assert_eq!(firsts, [true, false, true, false, true, false]);

    std::fs::write(&book, "4,4 4,4\n").unwrap();
    let out = dojo(&[
        "match",
        "--game",
        "gomoku:9",
        "--a",
        "random",
        "--b",
        "random",
        "--games",
        "2",
        "--openings",
        path(&book),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("opening 1 (\"4,4 4,4\") is not a gomoku:9 opening"), "{err}");
}

#[test]
fn match_eval_and_bestmove_play_the_game_of_the_checkpoint_they_are_given() {
    // Once they assumed connect4: "checkpoint is for gomoku:9, not connect4:7x6".
    let dir = tempfile::tempdir().unwrap();
    let net = tiny_net(dir.path(), "gomoku:9");
    let a = format!("net:{}:sims=4", path(&net));
    let out = stdout_of(&dojo(&["match", "--a", &a, "--b", "random", "--games", "2", "--parallel", "1", "--json"]));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["games"], 2, "{out}");
    let moved = stdout_of(&dojo_with_input(&["bestmove", "--model", path(&net), "--playouts", "4"], b"4,4\n"));
    let (x, y) = moved.trim().split_once(',').unwrap_or_else(|| panic!("not a Gomoku move: {moved}"));
    assert!(x.parse::<u32>().unwrap() < 9 && y.parse::<u32>().unwrap() < 9, "{moved}");
    let positions = dir.path().join("tactics.txt");
    let args = ["positions", "--game", "gomoku:9", "--tactics", "--count", "4", "--out", path(&positions)];
    stdout_of(&dojo(&args));
    let graded =
        stdout_of(&dojo(&["eval", "--model", path(&net), "--positions", path(&positions), "--policy", "--json"]));
    let v: serde_json::Value = serde_json::from_str(&graded).unwrap();
    assert_eq!(v["overall"]["positions"], 4, "{graded}");
    // --game names another board: refused as the checkpoint's, as before.
    let out = dojo(&["match", "--game", "connect4", "--a", &a, "--b", "random", "--games", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a network for gomoku:9, not connect4:7x6"), "{err}");
}

#[test]
fn a_standard_rule_match_tells_brains_its_rule_and_networks_of_either_rule_play_it() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("brain.log");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../arbiter/tests/fake_brain.py");
    let brain = format!("pbrain:python3 {} good {}", path(&script), path(&log));
    let args = ["match", "--game", "gomoku:9:standard", "--a", &brain, "--b", "random", "--games", "2", "--json"];
    let out = stdout_of(&dojo(&args));
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((report["game"].as_str(), report["games"].as_u64()), (Some("gomoku:9:standard"), Some(2)), "{out}");
    let told = std::fs::read_to_string(&log).unwrap();
    assert!(told.lines().any(|l| l == "INFO rule 1") && !told.contains("INFO rule 0"), "{told}");
    // A freestyle network plays the standard board (as a brain told `INFO rule 1` does);
    // another board is still refused.
    let net = tiny_net(dir.path(), "gomoku:9");
    let a = format!("net:{}:sims=4", path(&net));
    let out = stdout_of(&dojo(&["match", "--game", "gomoku:9:standard", "--a", &a, "--b", "random", "--games", "2"]));
    assert!(out.contains("gomoku:9:standard"), "{out}");
    let out = dojo(&["match", "--game", "gomoku:11:standard", "--a", &a, "--b", "random", "--games", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a network for gomoku:9, not gomoku:11:standard"), "{err}");
}
