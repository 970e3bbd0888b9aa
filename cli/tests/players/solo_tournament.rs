//! `dojo tournament` on a one-player game (2048) as users run it: every player plays the
//! same games alone, ranked by mean score; resumed and extended without replaying a game;
//! a run's checkpoints on the mean-score curve, the best of them chosen.

use crate::common;

use common::{dojo, path, stdout_of, tiny_config};
use dojo_arch::architecture::Architecture;
use dojo_game::sliding::Twenty48;
use dojo_game::GameSpec;
use dojo_net::checkpoint;
use dojo_net::device::{set_threads, Device};
use dojo_net::model::Model;
use dojo_run::dir::RunDir;
use std::collections::BTreeMap;
use std::path::Path;

fn new_run(dir: &Path) -> RunDir {
    set_threads(1);
    let run = RunDir::new(dir.join("run"));
    let mut config = tiny_config();
    config.game = GameSpec::Twenty48;
    run.create_or_open(Some(&config)).unwrap();
    run
}

/// Publishes a fresh random 2048 network as `version` (step = 10 × version).
fn publish(run: &RunDir, version: u64) {
    let model = Model::new(Architecture::for_game(&Twenty48::new(), 1, 8), Device::Cpu);
    let path = run.model_version(version);
    checkpoint::save(&model, &path, version * 10, version, None).unwrap();
    std::fs::copy(checkpoint::paths(&path).1, run.latest()).unwrap();
}

/// Finished games by (player, game): (score, max tile, moves).
type Games = BTreeMap<(String, u64), (u64, u64, u64)>;

/// The lines of tournament `name`'s results.jsonl, and its finished games.
fn results(run: &RunDir, name: &str) -> (usize, Games) {
    let text = std::fs::read_to_string(run.tournaments().join(name).join("results.jsonl")).unwrap_or_default();
    let lines: Vec<serde_json::Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let games = lines
        .iter()
        .map(|l| {
            let key = (l["player"].as_str().unwrap().to_string(), l["game"].as_u64().unwrap());
            (key, (l["score"].as_u64().unwrap(), l["max_tile"].as_u64().unwrap(), l["moves"].as_u64().unwrap()))
        })
        .collect();
    (lines.len(), games)
}

fn scores_json(run: &RunDir, name: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(run.tournaments().join(name).join("scores.json")).unwrap()).unwrap()
}

fn args<'a>(dir: &'a str, name: &'a str, players: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["tournament", "--run-dir", dir, "--name", name, "--games-per-player", "4", "--seed", "7"];
    a.extend(["--parallel", "2", "--players"]);
    a.extend(players);
    a
}

#[test]
fn a_one_player_tournament_ranks_by_mean_score_and_resumes_and_extends_without_replaying() {
    let tmp = tempfile::tempdir().unwrap();
    let run = new_run(tmp.path());
    let dir = path(&run.root);
    let players = ["random", "mcts:20", "uct:20"];
    let out = dojo(&args(dir, "t", &players));
    let table = stdout_of(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("3 players, 4 games each on the same seeds; 0 finished, 12 to play"), "{stderr}");
    let (count, games) = results(&run, "t");
    assert_eq!((count, games.len()), (12, 12));

    // mcts:N on 2048 is UCT with random rollouts, the player uct:N names: on the same
    // seeds the two play the same games.
    for g in 0..4 {
        assert_eq!(games[&("mcts:20".into(), g)], games[&("uct:20".into(), g)], "game {g}");
    }
    // The standings are the lines': means exactly, sorted by them, the table in that order.
    let scores = scores_json(&run, "t");
    assert_eq!((scores["game"].as_str(), scores["games"].as_u64()), (Some("2048"), Some(12)));
    let standings = scores["players"].as_array().unwrap();
    let means: Vec<f64> = standings.iter().map(|p| p["mean"].as_f64().unwrap()).collect();
    assert!(means.windows(2).all(|w| w[0] >= w[1]), "{means:?}");
    for p in standings {
        let name = p["name"].as_str().unwrap();
        let mine: Vec<u64> = games.iter().filter(|(k, _)| k.0 == name).map(|(_, v)| v.0).collect();
        assert_eq!(p["games"].as_u64(), Some(4));
        assert_eq!(p["mean"].as_f64().unwrap(), mine.iter().sum::<u64>() as f64 / 4.0, "{name}");
        assert_eq!(p["max"].as_u64(), mine.iter().max().copied(), "{name}");
        assert!(p["low"].as_f64().unwrap() <= p["mean"].as_f64().unwrap(), "{p}");
        let tiles: Vec<u64> = p["reach"].as_array().unwrap().iter().map(|r| r["tile"].as_u64().unwrap()).collect();
        assert_eq!(tiles, [2048, 4096, 8192, 16384, 32768]);
    }
    // A search beats random moves on average, even at 20 rollouts.
    assert_eq!(standings.last().unwrap()["name"], "random", "{scores}");
    let rows: Vec<&str> = table.lines().skip(1).take(3).map(|l| l.split_whitespace().nth(1).unwrap()).collect();
    let order: Vec<&str> = standings.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(rows, order, "{table}");
    assert!(table.contains("12 games, 4 per player on the same seeds;"), "{table}");
    let png = std::fs::read(run.tournaments().join("t/scores.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(!run.tournaments().join("t/ratings.json").exists(), "no Elo ratings for a one-player game");
    assert_eq!(std::fs::read_dir(run.tournaments().join("t/games")).unwrap().count(), 12);
    let one = std::fs::read_to_string(run.tournaments().join("t/games/uct_20--0003.txt")).unwrap();
    assert!(one.contains("player:   uct:20\n") && one.contains("game 4 of every player"), "{one}");

    // Lines lost (a kill before they were written): only those games are played again,
    // and they are the same games.
    let results_path = run.tournaments().join("t/results.jsonl");
    let text = std::fs::read_to_string(&results_path).unwrap();
    let lost = |l: &&str| l.contains("\"player\":\"random\"") && !l.contains("\"game\":0,");
    let kept: Vec<&str> = text.lines().filter(|l| !lost(l)).collect();
    assert_eq!(kept.len(), 9);
    std::fs::write(&results_path, kept.join("\n") + "\n").unwrap();
    let out = dojo(&args(dir, "t", &players));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("9 finished, 3 to play"), "{stderr}");
    assert_eq!(stdout_of(&out), table, "the same games, the same standings");
    assert_eq!(results(&run, "t"), (12, games.clone()));

    // A new player plays its own games and no one else's.
    let out = dojo(&args(dir, "t", &["random", "mcts:20", "uct:20", "mcts:5"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("4 players, 4 games each on the same seeds; 12 finished, 4 to play"), "{stderr}");
    let (count, extended) = results(&run, "t");
    assert_eq!(count, 16);
    assert!(games.iter().all(|(k, v)| extended[k] == *v));
    assert_eq!(scores_json(&run, "t")["players"].as_array().unwrap().len(), 4);
    // Run again, nothing is left to play.
    let stderr = String::from_utf8_lossy(&dojo(&args(dir, "t", &["random"])).stderr).to_string();
    assert!(stderr.contains("16 finished, 0 to play"), "{stderr}");
}

#[test]
fn two_player_options_are_refused_for_a_one_player_game() {
    let tmp = tempfile::tempdir().unwrap();
    let run = new_run(tmp.path());
    let dir = path(&run.root);
    for (extra, why) in [
        (
            vec!["--format", "gauntlet", "--reference", "random"],
            "2048 is a one-player game: every player plays the same games alone, so there is no gauntlet",
        ),
        (vec!["--anchor", "random"], "with no ratings to anchor (leave out --anchor)"),
        (vec!["--opening-plies", "2"], "its games start from their own random tiles, with no opening plies (not 2)"),
        (vec!["--games-per-player", "0"], "a one-player tournament needs at least 1 game per player"),
        (vec!["--players", "solver"], "the solver player only plays Connect Four, not 2048"),
    ] {
        let mut a = vec!["tournament", "--run-dir", dir, "--players", "random", "uct:5"];
        a.extend(extra);
        let out = dojo(&a);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(why), "{a:?}: {stderr}");
    }
    assert!(!run.tournaments().join("default/results.jsonl").exists());
    // Round-robin is accepted (it changes nothing), and one player is a tournament.
    let out = dojo(&[
        "tournament",
        "--run-dir",
        dir,
        "--format",
        "round-robin",
        "--players",
        "random",
        "--games-per-player",
        "1",
    ]);
    assert!(stdout_of(&out).contains("1    random"));
}

#[test]
fn a_runs_checkpoints_are_ranked_by_mean_score_and_the_best_chosen() {
    let tmp = tempfile::tempdir().unwrap();
    let run = new_run(tmp.path());
    publish(&run, 1);
    publish(&run, 2);
    let dir = path(&run.root);
    let out = dojo(&[
        "tournament",
        "--run-dir",
        dir,
        "--every-nth-version",
        "1",
        "--playouts",
        "2",
        "--players",
        "random",
        "--games-per-player",
        "2",
        "--seed",
        "3",
        "--parallel",
        "2",
        "--choose-best",
    ]);
    let stdout = stdout_of(&out);
    let scores = scores_json(&run, "default");
    let standings = scores["players"].as_array().unwrap();
    let steps: BTreeMap<&str, Option<u64>> =
        standings.iter().map(|p| (p["name"].as_str().unwrap(), p["step"].as_u64())).collect();
    assert_eq!(steps, BTreeMap::from([("random", None), ("v1", Some(10)), ("v2", Some(20))]));
    let best = standings.iter().find(|p| p["version"].is_u64()).unwrap();
    let version = best["version"].as_u64().unwrap();
    assert_eq!(checkpoint::read_sidecar(&run.best()).unwrap().version, version);
    assert!(stdout.contains(&format!("v{version} (mean score ")) && stdout.contains("is now "), "{stdout}");
    assert!(run.tournaments().join("default/scores.png").exists());
    // The checkpoints play without symmetry averaging (8 times the network time a move).
    let spec = std::fs::read_to_string(run.tournaments().join("default/tournament.json")).unwrap();
    assert!(spec.contains(":sims=2:noavg"), "{spec}");
}
