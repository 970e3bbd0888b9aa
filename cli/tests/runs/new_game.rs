//! The games `docs/new-game.md` adds, as a user would meet them. `hex5` (two players):
//! trained from nothing by `dojo train` for a few seconds, its network beats `random` in at
//! least 90 of 100 games; and it plays, is analysed and named in errors like the other
//! games. `pig` (one player, a die for nature): trained as briefly (in Gumbel mode), played
//! and scored like 2048, from its file and the same two lines.

use crate::common;

use common::{dojo, dojo_with_input, error_line, path, stdout_of, tiny_net};
use dojo_run::config::RunConfig;
use dojo_search::config::SearchMode;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A run's config for `game` as `dojo train --game GAME` starts it, but training from 500
/// positions, not 2,000, and with a gate of 4 games at its end: seconds on 2 cores.
fn quick_run(dir: &Path, game: &str) -> PathBuf {
    quick_run_with(dir, game, |_| {})
}

/// [`quick_run`], with `change` made to the config.
fn quick_run_with(dir: &Path, game: &str, change: impl FnOnce(&mut RunConfig)) -> PathBuf {
    let mut config = RunConfig::for_game(game.parse().unwrap());
    config.learner.min_positions = 500;
    change(&mut config);
    config.gating.games = 4;
    let config_file = dir.join(format!("{game}.toml"));
    std::fs::write(&config_file, config.to_toml()).unwrap();
    config_file
}

/// `dojo match --json` of `a` against `random` on hex5: A's wins out of 100.
fn wins_against_random(a: &str) -> u64 {
    let args =
        ["match", "--game", "hex5", "--a", a, "--b", "random", "--games", "100", "--parallel", "1", "--seed", "3"];
    let out = dojo(&[&args[..], &["--json"]].concat());
    let report: Value = serde_json::from_str(&stdout_of(&out)).expect("one JSON report");
    assert_eq!(report["games"], 100, "{report}");
    report["wins"].as_u64().unwrap()
}

#[test]
fn hex5_trained_for_seconds_beats_random_in_90_of_100_games() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    // About 20 seconds on 2 cores.
    let config_file = quick_run(tmp.path(), "hex5");
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
    let out = dojo(&["match", "--game", "hex5", "--a", "mcts:200", "--b", "random", "--games", "2", "--parallel", "1"]);
    let stdout = stdout_of(&out);
    assert!(stdout.contains("mcts:200 vs random on hex5: 2 games"), "{stdout}");
    // A person plays a network in the game's notation; the rules' own words say what is wrong.
    let tmp = tempfile::tempdir().unwrap();
    let net = tiny_net(tmp.path(), "hex5");
    let out = dojo_with_input(&["play", "--model", path(&net), "--playouts", "4"], b"f9\nc3\n");
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

#[test]
fn pig_is_trained_and_played_as_a_one_player_game_from_its_file_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    // In Gumbel mode: its targets tell apart moves a few points apart (docs/new-game.md).
    let config_file = quick_run_with(tmp.path(), "pig", |c| c.search.mode = SearchMode::Gumbel);
    // Its values are scaled to its scores (game/src/pig.rs says 120), not to 2048's million.
    let config = std::fs::read_to_string(&config_file).unwrap();
    assert!(config.contains("max_return = 120.0") && config.contains(r#"mode = "gumbel""#), "{config}");
    let args = ["train", "--config", path(&config_file), "--run-dir", path(&run), "--steps", "40", "--workers", "1"];
    let out = dojo(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("(pig, 3x32 net)"), "{stderr}");
    let sidecar: Value = serde_json::from_str(&std::fs::read_to_string(run.join("models/best.json")).unwrap()).unwrap();
    assert_eq!(sidecar["architecture"]["max_return"], 120, "{sidecar}");
    // The network plays whole games through the chance search in Gumbel mode (nature
    // rolling twice in a row after a 1), scored without a tile table.
    let net = format!("net:{}:sims=50:mode=gumbel", path(&run.join("models/best.safetensors")));
    let args = ["match", "--game", "pig", "--a", &net, "--games", "20", "--parallel", "1", "--seed", "3"];
    let stdout = stdout_of(&dojo(&args));
    assert!(stdout.contains(&format!("{net} on pig: 20 games: mean score ")), "{stdout}");
    assert!(!stdout.contains("tile"), "pig has no tiles to reach:\n{stdout}");
    let report: Value = serde_json::from_str(&stdout_of(&dojo(&[&args[..], &["--json"]].concat()))).unwrap();
    assert_eq!((report["games"].as_u64(), report["reach"].as_array().map(Vec::len)), (Some(20), Some(0)), "{report}");
    assert!(report["mean"].as_f64().is_some_and(|mean| mean > 0.0), "{report}");
    // Like 2048's, its games are a player's alone: `dojo play` has no side for a person.
    let best = run.join("models/best.safetensors");
    assert_eq!(
        error_line(&["play", "--model", path(&best), "--playouts", "4"]),
        "dojo: error: pig is a one-player game: there is no side for you to play"
    );
}
