//! `dojo tournament` as users run it: a run's checkpoints and references rated together,
//! resumed after kill -9 without replaying a game, extended by new checkpoints, and the
//! top-rated checkpoint chosen as the run's best.

use crate::common;

use common::{dojo, path, stdout_of, tiny_config};
use dojo_arch::architecture::Architecture;
use dojo_game::connect4::Connect4;
use dojo_learner::learner::publisher::Publisher;
use dojo_net::checkpoint;
use dojo_net::device::{set_threads, Device};
use dojo_net::model::Model;
use dojo_net::train::Trainer;
use dojo_run::dir::RunDir;
use dojo_run::retention::Retention;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Publishes a fresh random network as `version` (step = 10 × version), as the learner does.
fn publish(run: &RunDir, version: u64) {
    let model = Model::new(Architecture::for_game(&Connect4::<u64>::standard(), 1, 8), Device::Cpu);
    let path = run.model_version(version);
    checkpoint::save(&model, &path, version * 10, version, None).unwrap();
    std::fs::copy(checkpoint::paths(&path).1, run.latest()).unwrap();
}

fn new_run(dir: &Path, versions: &[u64]) -> RunDir {
    set_threads(1);
    let run = RunDir::new(dir.join("run"));
    run.create_or_open(Some(&tiny_config())).unwrap();
    for &v in versions {
        publish(&run, v);
    }
    run
}

/// Finished games by key, (a, b, game), with (result, moves).
type Games = BTreeMap<(String, String, u64), (i64, String)>;

/// The lines of tournament `name`'s results.jsonl, and its finished games.
fn results(run: &RunDir, name: &str) -> (usize, Games) {
    let text = std::fs::read_to_string(run.tournaments().join(name).join("results.jsonl")).unwrap_or_default();
    let lines: Vec<serde_json::Value> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let map = lines
        .iter()
        .map(|l| {
            let key = (
                l["a"].as_str().unwrap().to_string(),
                l["b"].as_str().unwrap().to_string(),
                l["game"].as_u64().unwrap(),
            );
            (key, (l["result"].as_i64().unwrap(), l["moves"].as_str().unwrap().to_string()))
        })
        .collect();
    (lines.len(), map)
}

fn tournament_args<'a>(dir: &'a str, name: &'a str, games: &'a str) -> Vec<&'a str> {
    vec![
        "tournament",
        "--run-dir",
        dir,
        "--name",
        name,
        "--every-nth-version",
        "2",
        "--playouts",
        "4",
        "--players",
        "random",
        "mcts:60",
        "--games-per-pair",
        games,
        "--seed",
        "5",
        "--parallel",
        "2",
    ]
}

#[test]
fn a_tournament_killed_mid_play_resumes_without_replaying_a_game() {
    let tmp = tempfile::tempdir().unwrap();
    let run = new_run(tmp.path(), &[1, 2, 3, 4]);
    let dir = path(&run.root);
    // v2 and v4 (every 2nd; v4 is also the newest), random and mcts:60: 6 pairings.
    let clean = dojo(&tournament_args(dir, "clean", "40"));
    let table = stdout_of(&clean);
    let (count, clean_games) = results(&run, "clean");
    assert_eq!((count, clean_games.len()), (240, 240));

    // The same tournament, killed (SIGKILL) once some games are in, then run again.
    let mut child = Command::new(env!("CARGO_BIN_EXE_dojo"))
        .args(tournament_args(dir, "killed", "40"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while results(&run, "killed").0 < 20 {
        assert!(started.elapsed() < Duration::from_secs(120), "no games played");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let (before, kept) = results(&run, "killed");
    assert!((20..240).contains(&before), "killed after {before} games: too late to test resuming");
    let out = dojo(&tournament_args(dir, "killed", "40"));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(stderr.contains(&format!("{before} finished, {} to play", 240 - before)), "{stderr}");
    assert_eq!(stdout_of(&out), table, "the same games, the same standings");
    let (after, games) = results(&run, "killed");
    // Every game once: the ones finished before the kill were not played again...
    assert_eq!((after, games.len()), (240, 240));
    for (key, game) in &kept {
        assert_eq!(&games[key], game);
    }
    // ...and every game is the one a clean run plays, whichever thread and session played it.
    assert_eq!(games, clean_games);

    // The standings: sorted by rating, random (the anchor) at 0, every player 120 games.
    let ratings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.tournaments().join("clean/ratings.json")).unwrap()).unwrap();
    let players = ratings["players"].as_array().unwrap();
    let names: HashSet<&str> = players.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, HashSet::from(["v2", "v4", "random", "mcts:60"]));
    let elos: Vec<f64> = players.iter().map(|p| p["elo"].as_f64().unwrap()).collect();
    assert!(elos.windows(2).all(|w| w[0] >= w[1]), "{elos:?}");
    let random = players.iter().find(|p| p["name"] == "random").unwrap();
    assert_eq!((random["elo"].as_f64(), random["games"].as_u64()), (Some(0.0), Some(120)));
    assert!(players.iter().all(|p| p["games"].as_u64() == Some(120)), "{players:?}");
    assert_eq!(players.iter().find(|p| p["name"] == "v4").unwrap()["step"].as_u64(), Some(40));
    // The table's rows are in the same order.
    let rows: Vec<&str> = table.lines().skip(1).take(4).map(|l| l.split_whitespace().nth(1).unwrap()).collect();
    let json_order: Vec<&str> = players.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(rows, json_order, "{table}");
    // mcts:60 beats random far more often than not.
    let mcts = players.iter().find(|p| p["name"] == "mcts:60").unwrap();
    assert!(mcts["elo"].as_f64().unwrap() > 100.0, "{mcts}");
    let png = std::fs::read(run.tournaments().join("clean/ratings.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let game_files = std::fs::read_dir(run.tournaments().join("clean/games")).unwrap().count();
    assert_eq!(game_files, 240);
    let one = std::fs::read_to_string(run.tournaments().join("clean/games/v2--v4--0000.txt")).unwrap();
    assert!(one.contains("players:  v2 vs v4, game 1 of their pairing") && one.contains("moves:    "), "{one}");
}

#[test]
fn a_tournament_extended_by_a_checkpoint_plays_only_its_pairings_and_chooses_the_best() {
    let tmp = tempfile::tempdir().unwrap();
    let run = new_run(tmp.path(), &[1, 2]);
    let dir = path(&run.root);
    stdout_of(&dojo(&tournament_args(dir, "t", "4")));
    // v2, random, mcts:60: 3 pairings of 4 games.
    assert_eq!(results(&run, "t").0, 12);
    publish(&run, 3);
    publish(&run, 4);
    let mut args = tournament_args(dir, "t", "4");
    args.push("--choose-best");
    let out = dojo(&args);
    let stdout = stdout_of(&out);
    // v4 joins (v3 is not every 2nd, nor the newest): 3 new pairings.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("4 players, 6 pairings, 4 games per pairing; 12 finished, 12 to play"), "{stderr}");
    assert_eq!(results(&run, "t").0, 24);
    let ratings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.tournaments().join("t/ratings.json")).unwrap()).unwrap();
    let best = ratings["players"].as_array().unwrap().iter().find(|p| p["version"].is_u64()).unwrap();
    let best_version = best["version"].as_u64().unwrap();
    let sidecar = checkpoint::read_sidecar(&run.best()).unwrap();
    assert_eq!(sidecar.version, best_version);
    assert!(stdout.contains(&format!("v{best_version} (rated ")), "{stdout}");
    assert!(stdout.contains("is now ") && stdout.contains("best.safetensors"), "{stdout}");

    // Nothing is changed under the games already played.
    let mut other_seed = tournament_args(dir, "t", "4");
    let at = other_seed.iter().position(|a| *a == "5").unwrap();
    other_seed[at] = "6";
    let err = String::from_utf8_lossy(&dojo(&other_seed).stderr).to_string();
    assert!(err.contains("this tournament was started with seed 5, not 6"), "{err}");
}

#[test]
fn bad_tournaments_are_refused_before_a_game_is_played() {
    let tmp = tempfile::tempdir().unwrap();
    let run = new_run(tmp.path(), &[1]);
    let dir = path(&run.root);
    let missing = tmp.path().join("nothing");
    for (args, why) in [
        (vec!["tournament", "--run-dir", path(&missing), "--players", "random", "mcts:5"], "is not a run directory"),
        (vec!["tournament", "--run-dir", dir], "no players: name the run's checkpoints with --every-nth-version"),
        (vec!["tournament", "--run-dir", dir, "--players", "random", "alphago"], "bad player spec \"alphago\""),
        (vec!["tournament", "--run-dir", dir, "--players", "random", "random"], "random is in the tournament twice"),
        (
            vec!["tournament", "--run-dir", dir, "--players", "random", "mcts:5", "--games-per-pair", "3"],
            "must be even",
        ),
        (
            vec!["tournament", "--run-dir", dir, "--players", "random", "mcts:5", "--format", "gauntlet"],
            "needs --reference",
        ),
        (
            vec!["tournament", "--run-dir", dir, "--players", "random", "pbrain:/no/brain"],
            "pbrain: players (Gomocup brains) only play Gomoku, not connect4",
        ),
        (
            vec!["tournament", "--run-dir", dir, "--players", "random", "mcts:5", "--anchor", "mcts:7"],
            "the anchor mcts:7",
        ),
        (
            vec!["tournament", "--run-dir", dir, "--name", "a/b", "--players", "random", "mcts:5"],
            "tournament name \"a/b\"",
        ),
    ] {
        let out = dojo(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(why), "{args:?}: {stderr}");
    }
    assert!(!run.tournaments().join("default/results.jsonl").exists());
}

#[test]
fn a_gauntlet_plays_everyone_against_the_reference_only() {
    let tmp = tempfile::tempdir().unwrap();
    let run = new_run(tmp.path(), &[1, 2]);
    let dir = path(&run.root);
    let mut args = tournament_args(dir, "g", "2");
    args.extend(["--format", "gauntlet", "--reference", "mcts:60", "--anchor", "mcts:60", "--anchor-elo", "1000"]);
    let table = stdout_of(&dojo(&args));
    let (count, games) = results(&run, "g");
    assert_eq!(count, 4);
    assert!(games.keys().all(|(a, b, _)| a == "mcts:60" || b == "mcts:60"), "{games:?}");
    assert!(table.contains("mcts:60") && table.contains("1000") && table.contains("(anchor)"), "{table}");
}

/// Publishes versions `from..=to` through the learner's publisher, with a checkpoint every
/// 10 versions and at the end (as a default run: checkpoint_every 500, publish_every 50), so
/// the run's retention prunes them as the learner's does.
fn publish_through_the_learner(run: &RunDir, publisher: &mut Publisher, trainer: &mut Trainer, to: u64) {
    while publisher.version() < to {
        trainer.step = (publisher.version() + 1) * 50;
        publisher.publish(trainer, None, None).unwrap();
        if publisher.version().is_multiple_of(10) || publisher.version() == to {
            publisher.checkpoint(trainer, None, 0, None).unwrap();
        }
    }
    assert_eq!(run.read_state().unwrap().version, to);
}

/// The names of the players in tournament `name`'s ratings, and how many games each played.
fn rated(run: &RunDir, name: &str) -> BTreeMap<String, u64> {
    let ratings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.tournaments().join(name).join("ratings.json")).unwrap()).unwrap();
    let players = ratings["players"].as_array().unwrap();
    players.iter().map(|p| (p["name"].as_str().unwrap().to_string(), p["games"].as_u64().unwrap())).collect()
}

fn every_nth<'a>(dir: &'a str, name: &'a str, k: &'a str) -> Vec<&'a str> {
    let mut args = vec!["tournament", "--run-dir", dir, "--name", name, "--every-nth-version", k, "--playouts", "1"];
    args.extend(["--games-per-pair", "2", "--seed", "3", "--parallel", "2"]);
    args
}

/// A run with the default retention (the newest 20 versions and a log-spaced history) that
/// published 385 versions, a 30-minute default Connect Four run's worth on 2 cores, pruned
/// by the learner's own publisher: a tournament rates versions from its start, middle and
/// end, says which versions asked for are gone and why, and a later session, after the
/// version that was newest was pruned, keeps its games and plays on without it.
#[test]
fn a_default_run_is_rated_from_its_start_to_its_end() {
    set_threads(1);
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    let mut config = tiny_config();
    config.train.precision = "f32".parse().unwrap();
    let defaults = dojo_run::config::LearnerConfig::default();
    assert_eq!(
        (config.learner.keep_versions, config.learner.keep_every),
        (defaults.keep_versions, defaults.keep_every)
    );
    run.create_or_open(Some(&config)).unwrap();
    let model = Model::new(Architecture::for_game(&Connect4::<u64>::standard(), 1, 8), Device::Cpu);
    let mut trainer = Trainer::new(model, config.train.clone()).unwrap();
    let mut publisher = Publisher::new(run.clone(), 0, Retention::of(&config.learner));
    publish_through_the_learner(&run, &mut publisher, &mut trainer, 385);

    let mut kept: Vec<u64> = (1..=16).map(|i| i * 10).collect();
    kept.extend((9..=16).map(|i| i * 20));
    kept.push(360);
    kept.extend(366..=385);
    assert_eq!(run.versions().unwrap(), kept);
    // Only the newest versions keep what resuming needs; the history keeps the models.
    let mut optim: Vec<String> = std::fs::read_dir(run.checkpoints())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("optim-"))
        .collect();
    optim.sort();
    assert_eq!(optim, ["optim-v000370.safetensors", "optim-v000380.safetensors", "optim-v000385.safetensors"]);

    let dir = path(&run.root);
    let out = dojo(&every_nth(dir, "forty", "40"));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("no longer on disk"), "{stderr}");
    let forty: Vec<String> = (1..=9).map(|i| format!("v{}", i * 40)).chain(["v385".to_string()]).collect();
    let ratings = rated(&run, "forty");
    assert_eq!(ratings.keys().cloned().collect::<HashSet<_>>(), forty.iter().cloned().collect::<HashSet<_>>());
    assert!(ratings.values().all(|&games| games == 18), "{ratings:?}");

    let out = dojo(&every_nth(dir, "twenty", "20"));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "asked for every 20th version up to v385: 1 of 19 is no longer on disk (v340: the run keeps the newest 20 \
             versions and, for good, every 10th up to v160, every 20th up to v320 and every 40th after it \
             (learner.keep_versions = 20, learner.keep_every = 10)): rating 18 and the newest, v385; \
             --every-nth-version 40 finds every one it asks for"
        ),
        "{stderr}"
    );
    assert_eq!(rated(&run, "twenty").len(), 19);

    // Later: v385 was the newest, and is pruned now; v400 and v420 join.
    publish_through_the_learner(&run, &mut publisher, &mut trainer, 420);
    assert!(!run.versions().unwrap().contains(&385));
    let out = dojo(&every_nth(dir, "forty", "40"));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("12 players, 66 pairings, 2 games per pairing; 90 finished, 38 to play"), "{stderr}");
    assert!(
        stderr.contains("v385: no longer on disk (pruned by the run); their games stand, they play no more"),
        "{stderr}"
    );
    let ratings = rated(&run, "forty");
    assert_eq!((ratings["v385"], ratings["v40"], ratings["v400"]), (18, 18 + 2 * 2, 2 * 10));
}
