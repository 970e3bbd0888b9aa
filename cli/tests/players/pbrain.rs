//! `dojo pbrain` as a Gomocup manager drives it: a whole game over stdin/stdout; and dojo's
//! own manager (`pbrain:` players) driving two of them against each other.

use crate::common;

use common::{dojo, path, stdout_of};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// A random 1×8 Gomoku 9×9 network at `dir/g9`.
fn gomoku_net(dir: &std::path::Path) -> std::path::PathBuf {
    let ckpt = dir.join("g9");
    stdout_of(&dojo(&[
        "init",
        "--game",
        "gomoku:9",
        "--blocks",
        "1",
        "--channels",
        "8",
        "--seed",
        "3",
        "--out",
        path(&ckpt),
    ]));
    ckpt
}

#[test]
fn dojo_pbrain_plays_a_whole_game_as_a_gomocup_brain() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = gomoku_net(dir.path());
    let mut brain = Command::new(env!("CARGO_BIN_EXE_dojo"))
        .args(["pbrain", "--model", path(&ckpt), "--playouts", "8", "--no-average"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let to = std::cell::RefCell::new(brain.stdin.take().unwrap());
    let tell = |line: &str| {
        let mut to = to.borrow_mut();
        writeln!(to, "{line}").unwrap();
        to.flush().unwrap();
    };
    let mut from = BufReader::new(brain.stdout.take().unwrap());
    let mut ask = |line: &str| -> String {
        tell(line);
        let mut answer = String::new();
        from.read_line(&mut answer).unwrap();
        answer.trim().to_string()
    };
    assert_eq!(ask("START 15"), "ERROR this network plays 9x9 boards only, not 15x15");
    assert_eq!(ask("START 9"), "OK");
    assert!(ask("ABOUT").starts_with("name=\"dojo\", version=\""));
    assert_eq!(ask("FROBNICATE"), "UNKNOWN command \"FROBNICATE\"");
    // INFO has no answer: the next line's answer is BEGIN's.
    tell("INFO timeout_turn 200");
    tell("INFO folder /tmp");

    // The manager's side plays the first empty point in reading order; the game goes on
    // until five in a row or a full board, every answer a legal point.
    let mut board = [[0u8; 9]; 9];
    let parse = |answer: &str| -> (usize, usize) {
        let (x, y) = answer.split_once(',').unwrap_or_else(|| panic!("not a move: {answer:?}"));
        (x.parse().unwrap(), y.parse().unwrap())
    };
    let mut answer = ask("BEGIN");
    let mut moves = 0;
    loop {
        let (x, y) = parse(&answer);
        assert_eq!(board[y][x], 0, "the brain played the taken point {x},{y}");
        board[y][x] = 1;
        moves += 1;
        if five(&board, 1) || moves == 81 {
            break;
        }
        let (ox, oy) = (0..81).map(|i| (i % 9, i / 9)).find(|&(x, y)| board[y][x] == 0).unwrap();
        board[oy][ox] = 2;
        moves += 1;
        if five(&board, 2) {
            break;
        }
        answer = ask(&format!("TURN {ox},{oy}"));
    }
    assert!(moves >= 9, "a five takes at least 9 moves: {moves}");
    tell("END");
    assert!(brain.wait().unwrap().success());
}

fn five(board: &[[u8; 9]; 9], who: u8) -> bool {
    let at = |x: i32, y: i32| (0..9).contains(&x) && (0..9).contains(&y) && board[y as usize][x as usize] == who;
    (0..9).any(|y| {
        (0..9).any(|x| {
            [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| (0..5).all(|k| at(x + k * dx, y + k * dy)))
        })
    })
}

#[test]
fn dojo_match_drives_two_dojo_brains_through_the_protocol() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = gomoku_net(dir.path());
    // Under the manager's clock (INFO timeout_turn 5000) the brains stop at 8 playouts.
    let brain =
        format!("pbrain:{} pbrain --model {} --max-playouts 8 --no-average", env!("CARGO_BIN_EXE_dojo"), path(&ckpt));
    // A also has a match clock (INFO timeout_match, time_left): 60 s leave it its 8 playouts.
    let timed = brain.replacen("pbrain:", "pbrain:match=60s:", 1);
    let out = dojo(&[
        "match",
        "--game",
        "gomoku:9",
        "--a",
        &timed,
        "--b",
        &brain,
        "--games",
        "2",
        "--parallel",
        "1",
        "--seed",
        "4",
        "--json",
        "--verbose",
    ]);
    let result: serde_json::Value = serde_json::from_str(&stdout_of(&out)).unwrap();
    assert_eq!(result["games"], 2, "{result}");
    let games = result["games_played"].as_array().unwrap();
    for g in games {
        assert!(g.get("forfeit").is_none(), "{g}");
        // Every move a distinct point, and the game ran to a five or a full board.
        let moves: Vec<&str> = g["moves"].as_str().unwrap().split_whitespace().collect();
        let distinct: std::collections::HashSet<&&str> = moves.iter().collect();
        assert_eq!(distinct.len(), moves.len(), "{g}");
        assert!(moves.len() >= 9, "{g}");
        if g["result"] == 0 {
            assert_eq!(moves.len(), 81, "a draw is a full board: {g}");
        }
    }
    // Both brains are one deterministic network from the empty board: the pair's two games
    // are one game, each brain playing it once with each colour.
    assert_eq!(games[0]["moves"], games[1]["moves"], "{result}");
    assert_eq!(result["a"].as_str().unwrap(), timed);
    // Each brain's clock: no forfeits, the time it thought, and A's share of its match clock.
    let clocks = result["clocks"].as_array().unwrap();
    assert_eq!(clocks.len(), 2, "{result}");
    for (clock, seat) in clocks.iter().zip(["a", "b"]) {
        assert_eq!((clock["seat"].as_str(), clock["games"].as_u64()), (Some(seat), Some(2)), "{result}");
        assert_eq!(clock["forfeits"], serde_json::json!({}), "{result}");
        assert!(clock["thought_s_max"].as_f64().unwrap() > 0.0, "{result}");
    }
    assert_eq!(clocks[0]["match_s"], 60.0, "{result}");
    assert!(clocks[0]["share_max"].as_f64().is_some() && clocks[1].get("share_max").is_none(), "{result}");
}

#[test]
fn dojo_pbrain_refuses_two_averaging_flags_that_contradict() {
    // `--no-average` never averages; `--average-by-the-clock` averages under a time limit
    // too: asked for both, the brain names the clash instead of picking one.
    let out = dojo(&["pbrain", "--model", "g.safetensors", "--no-average", "--average-by-the-clock"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("'--no-average' cannot be used with '--average-by-the-clock'"), "{stderr}");
}
