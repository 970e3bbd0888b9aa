//! `dojo play` as a person at a terminal uses it: moves typed on stdin, the board and the
//! model's replies on stdout, bad input explained and the game going on.

use crate::common;

use common::{path, stdout_of};
use std::io::Write;
use std::process::{Command, Stdio};

fn play(args: &[&str], input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dojo"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    stdout_of(&child.wait_with_output().unwrap())
}

fn connect4_net(dir: &std::path::Path) -> std::path::PathBuf {
    common::seeded_tiny_net(dir, "connect4", 1)
}

#[test]
fn a_game_against_the_model_explains_bad_moves_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = connect4_net(dir.path());
    // Column 9 does not exist, "x" is no column; then column 1 again and again: the fourth
    // disc of a column is legal, the seventh is not (the model's replies may fill it sooner).
    let input = "9\nx\n1\n1\n1\n1\n1\n1\n1\nquit\n";
    let out = play(&["--model", path(&ckpt), "--playouts", "16"], input);
    assert!(out.starts_with("dojo play: connect4"), "{out}");
    assert!(out.contains("you are X (moving first)"), "{out}");
    assert!(out.contains("cannot play \"9\""), "{out}");
    assert!(out.contains("cannot play \"x\""), "{out}");
    assert!(out.contains("model plays "), "{out}");
    assert!(out.contains("it rates its position ") && out.contains("it weighed "), "{out}");
    // The board is drawn with the side to move; the game ends by the rules or by quitting.
    assert!(out.contains("1 2 3 4 5 6 7"), "{out}");
    assert!(out.contains("you left the game after") || out.contains("game over: "), "{out}");
}

#[test]
fn the_model_moves_first_when_asked_and_end_of_input_stops_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = connect4_net(dir.path());
    let out = play(&["--model", path(&ckpt), "--playouts", "8", "--first", "model"], "");
    assert!(out.contains("you are O (moving second)"), "{out}");
    // The model's move comes before any prompt is answered.
    let model_at = out.find("model plays ").expect("the model moved");
    assert!(model_at < out.find("your move: ").unwrap(), "{out}");
    assert!(out.trim_end().ends_with("(end of input: the game stops here)"), "{out}");
}
