//! The game `docs/new-game.md` adds, `hex5`, as a user would meet it: trained from nothing
//! by `dojo train` for a few seconds, its network beats `random` in at least 90 of 100
//! games; and it plays, is analysed and named in errors like the other games.

mod common;

use common::{dojo, dojo_with_input, error_line, path, stdout_of, tiny_net};
use dojo_run::config::RunConfig;
use serde_json::Value;

/// `dojo match --json` of `a` against `random` on hex5: A's wins out of 100.
fn wins_against_random(a: &str) -> u64 {
    let args =
        ["match", "--game", "hex5", "--a", a, "--b", "random", "--games", "100", "--threads", "1", "--seed", "3"];
    let out = dojo(&[&args[..], &["--json"]].concat());
    let report: Value = serde_json::from_str(&stdout_of(&out)).expect("one JSON report");
    assert_eq!(report["games"], 100, "{report}");
    report["wins"].as_u64().unwrap()
}

#[test]
fn hex5_trained_for_seconds_beats_random_in_90_of_100_games() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    // The run `dojo train --game hex5` starts, but training from 500 positions, not 2,000,
    // and with a gate of 4 games at its end, not 40: about 20 seconds on 2 cores.
    let mut config = RunConfig::for_game("hex5".parse().unwrap());
    config.learner.min_positions = 500;
    config.gating.games = 4;
    let config_file = tmp.path().join("hex5.toml");
    std::fs::write(&config_file, config.to_toml()).unwrap();
    let args = ["train", "--config", path(&config_file), "--run-dir", path(&run), "--steps", "60", "--workers", "1"];
    let out = dojo(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("(hex5, 3x32 net)"), "{stderr}");
    // The untrained network's wins, for the message: its search blocks every immediate
    // loss, so some random weights win most games even so (66 to 98 seen).
    let untrained = wins_against_random(&format!("net:{}:sims=8", path(&run.join("models/v000001.safetensors"))));
    let trained = wins_against_random(&format!("net:{}:sims=8", path(&run.join("models/best.safetensors"))));
    assert!(trained >= 90, "the trained network won {trained} of 100 against random (untrained: {untrained})");
}

#[test]
fn hex5_is_played_and_named_like_every_other_game() {
    // Whole games against rollout MCTS from the command line.
    let out = dojo(&["match", "--game", "hex5", "--a", "mcts:200", "--b", "random", "--games", "2", "--threads", "1"]);
    let stdout = stdout_of(&out);
    assert!(stdout.contains("mcts:200 vs random on hex5: 2 games"), "{stdout}");
    // A person plays a network in the game's notation; the rules' own words say what is wrong.
    let tmp = tempfile::tempdir().unwrap();
    let net = tiny_net(tmp.path(), "hex5");
    let out = dojo_with_input(&["play", "--model", path(&net), "--sims", "4"], b"f9\nc3\n");
    let stdout = stdout_of(&out);
    assert!(
        stdout
            .contains("cannot play \"f9\": cannot parse hex move \"f9\": expected a column a-e and a row 1-5, e.g. c3"),
        "{stdout}"
    );
    assert!(stdout.contains("1 . . . . .\n 2 . . . . .\n  3 . . X"), "c3 is played on the rhombus:\n{stdout}");
    assert_eq!(
        error_line(&["match", "--game", "hex5:7", "--a", "random", "--b", "random"]),
        "dojo: error: --game: bad game spec \"hex5:7\": hex5 takes no options"
    );
}
