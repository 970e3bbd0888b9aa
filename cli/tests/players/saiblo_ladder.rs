//! The saiblo ladder as users run it: `scripts/saiblo-ladder RUN` exports each chosen
//! version of a Connect Four run as the strategy `dojo export saiblo` makes (once, reused on
//! every later run), and plays it against seed 001's engine on saiblo's random boards
//! through `dojo tournament`'s gauntlet, placed on the curve by the version's step; a rerun
//! or a run after a kill plays only the games left. The engine is never in the repository,
//! nor built by it: here a strategy compiled at test time stands in for it (named by
//! DOJO_SEED_ENGINE as the engine is, or by --reference), on clocks of tens of
//! milliseconds; the test against the engine itself says SKIPPED without DOJO_SEED_ENGINE.

use crate::common;

use common::{path, saiblo_stand_in, seeded_tiny_net, tiny_config, wait_until};
use dojo_net::checkpoint;
use dojo_net::device::{set_threads, Device};
use dojo_net::model::Model;
use dojo_run::config::RunConfig;
use dojo_run::dir::RunDir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/saiblo-ladder")
}

/// A connect4:saiblo run with random 1×8 networks published as `versions` (version, step).
fn new_run(dir: &Path, versions: &[(u64, u64)]) -> RunDir {
    set_threads(1);
    let run = RunDir::new(dir.join("run"));
    run.create_or_open(Some(&saiblo_config())).unwrap();
    for &(version, step) in versions {
        publish(&run, version, step);
    }
    run
}

/// [`tiny_config`] on saiblo's boards.
fn saiblo_config() -> RunConfig {
    let mut config = tiny_config();
    config.game = "connect4:saiblo".parse().unwrap();
    config
}

/// A random network published in `run` as `version` at `step`, as the learner publishes one.
fn publish(run: &RunDir, version: u64, step: u64) {
    let model = Model::new(saiblo_config().first_architecture().unwrap(), Device::Cpu);
    let path = run.model_version(version);
    checkpoint::save(&model, &path, step, version, None).unwrap();
    std::fs::copy(checkpoint::paths(&path).1, run.latest()).unwrap();
}

/// The ladder script with `args`, run from `cwd` with this build's dojo and the engine
/// `engine` in DOJO_SEED_ENGINE (None: unset).
fn ladder_command(cwd: &Path, engine: Option<&Path>, args: &[&str]) -> Command {
    let mut command = Command::new("bash");
    command.arg(script()).args(args).current_dir(cwd).env("DOJO_BIN", env!("CARGO_BIN_EXE_dojo"));
    command.env_remove("DOJO_SEED_ENGINE");
    if let Some(engine) = engine {
        command.env("DOJO_SEED_ENGINE", engine);
    }
    command
}

fn ladder(cwd: &Path, engine: Option<&Path>, args: &[&str]) -> Output {
    ladder_command(cwd, engine, args).output().expect("bash runs the ladder script")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The games in `folder`'s results.jsonl.
fn games(folder: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(folder.join("results.jsonl")).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Tiny clocks: the strategies search 20 ms a move, every player has 100 ms.
const CLOCKS: [&str; 4] = ["--move-ms", "20", "--move-timeout-ms", "100"];

#[test]
fn a_runs_versions_are_exported_once_and_climb_against_the_engine_by_their_steps() {
    let dir = tempfile::tempdir().unwrap();
    let run = new_run(dir.path(), &[(1, 10), (2, 20)]);
    let engine = saiblo_stand_in(dir.path());
    let root = path(&run.root);
    let args = [&[root, "--every-nth-version", "1", "--pairs", "1", "--parallel", "2"][..], &CLOCKS].concat();
    let out = ladder(Path::new("."), Some(&engine), &[&args[..], &["--", "--json", "--seed", "5"]].concat());
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("saiblo-ladder: exporting"), "{said}");
    assert!(
        said.contains("saiblo-ladder: v1, v2 as exported with --move-ms 20, against seed001 on connect4:saiblo, 1 pair(s) of games each; Elo: seed001 = 0"),
        "{said}"
    );

    // The standings: two versions and the engine, four games, the versions at their steps.
    let standings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(standings["anchor"], "seed001");
    assert_eq!(standings["games"], 4);
    let folder = run.tournaments().join("ladder");
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("ratings.json")).unwrap()).unwrap();
    assert_eq!(kept, standings, "ratings.json holds the standings printed");
    let players: Vec<&str> = kept["players"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(players.len(), 3, "{players:?}");
    for name in ["v1", "v2", "seed001"] {
        assert!(players.contains(&name), "{players:?}");
    }
    let lines = standings["gauntlet"].as_array().unwrap();
    assert_eq!(lines.len(), 2);
    for (line, (name, step)) in lines.iter().zip([("v1", 10), ("v2", 20)]) {
        assert_eq!((line["player"].as_str(), line["step"].as_u64()), (Some(name), Some(step)), "{line}");
        let against = &line["against"][0];
        assert_eq!((against["reference"].as_str(), against["games"].as_u64()), (Some("seed001"), Some(2)));
    }
    // Each version plays as its export, beside its network's sidecar; the engine as itself.
    let spec = std::fs::read_to_string(folder.join("tournament.json")).unwrap();
    let strategies = std::fs::canonicalize(&run.root).unwrap().join("tournaments/ladder/strategies");
    for v in ["v1", "v2"] {
        assert!(spec.contains(&format!("saiblo:{}/{v}/Strategy.so", strategies.display())), "{spec}");
        assert!(strategies.join(v).join("Strategy.cpp").is_file());
    }
    let sidecar = |v: u64| std::fs::read(checkpoint::paths(&run.model_version(v)).1).unwrap();
    assert_eq!(std::fs::read(strategies.join("v2/Strategy.json")).unwrap(), sidecar(2));
    assert!(spec.contains(&format!("saiblo:{}", engine.display())), "{spec}");
    // Every game from the empty board of its own saiblo board, each side first once a pair,
    // and no forfeit at these clocks.
    let played = games(&folder);
    assert_eq!(played.len(), 4);
    for g in &played {
        assert_eq!(g["opening"], "", "{g}");
        assert!(g.get("forfeit").is_none(), "{g}");
    }
    let firsts = played.iter().filter(|g| g["a_first"] == true).count();
    assert_eq!(firsts, 2);
    assert!(folder.join("ratings.png").exists());
    let events = std::fs::read_dir(run.tensorboard("tournament-ladder")).unwrap().count();
    assert_eq!(events, 1, "the ladder's curve is in TensorBoard");

    // Again, after a third version: v1 and v2 are neither exported nor played again.
    let built = std::fs::metadata(strategies.join("v1/Strategy.so")).unwrap().modified().unwrap();
    publish(&run, 3, 30);
    let again = ladder(Path::new("."), Some(&engine), &args);
    assert!(again.status.success(), "{}", stderr(&again));
    let said = stderr(&again);
    assert!(said.contains(&format!("v1 plays as {}/v1/Strategy.so (exported before)", strategies.display())), "{said}");
    assert!(said.contains("4 finished, 2 to play"), "{said}");
    assert_eq!(std::fs::metadata(strategies.join("v1/Strategy.so")).unwrap().modified().unwrap(), built);
    let now = games(&folder);
    assert_eq!(now.len(), 6);
    assert_eq!(now[..4], played[..], "the games played before stand as they were");
    let table = String::from_utf8(again.stdout).unwrap();
    assert!(table.contains("highest beaten (>= 50%)"), "{table}");

    // Other export settings are another ladder: refused, not mixed into this one.
    let other = [root, "--move-ms", "30", "--move-timeout-ms", "100"];
    let out = ladder(Path::new("."), Some(&engine), &other);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("holds strategies exported with --move-ms 20, not --move-ms 30: name another --name"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_network_without_a_run_resumes_after_a_kill_without_replaying_a_game() {
    let dir = tempfile::tempdir().unwrap();
    let model = seeded_tiny_net(dir.path(), "connect4:saiblo", 4).with_extension("safetensors");
    let stand_in = saiblo_stand_in(dir.path());
    let reference = format!("checker=saiblo:{}", path(&stand_in));
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let args = [&[path(&model), "--reference", &reference, "--pairs", "3", "--parallel", "1"][..], &CLOCKS].concat();
    // No DOJO_SEED_ENGINE: the reference named is the one that plays.
    let mut child = ladder_command(&work, None, &args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let folder = work.join("runs/ladder-saiblo/tournaments/ladder");
    wait_until("a first game", Duration::from_secs(300), || !games(&folder).is_empty());
    // The script became dojo (exec): killing it kills the tournament mid-ladder.
    child.kill().unwrap();
    child.wait().unwrap();
    let before = games(&folder);
    assert!((1..=6).contains(&before.len()), "{}", before.len());
    eprintln!("killed after {} of 6 games", before.len());

    let out = ladder(&work, None, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains(&format!("{} finished, {} to play", before.len(), 6 - before.len())), "{said}");
    assert!(said.contains("(exported before)"), "{said}");
    let after = games(&folder);
    assert_eq!(after.len(), 6);
    assert_eq!(after[..before.len()], before[..], "the games played before the kill stand as they were");
    let mut keys: Vec<String> = after.iter().map(|g| format!("{}-{}-{}", g["a"], g["b"], g["game"])).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 6, "no game is played twice: {keys:?}");

    // The network is named by its file and sha256, placed at its own step (0, as made).
    let sha = checkpoint::read_sidecar(&model).unwrap().sha256;
    let name = format!("net-4-{}", &sha[..8]);
    let standings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("ratings.json")).unwrap()).unwrap();
    assert_eq!(standings["anchor"], "checker");
    assert_eq!(standings["games"], 6);
    let line = &standings["gauntlet"][0];
    assert_eq!((line["player"].as_str(), line["step"].as_u64()), (Some(name.as_str()), Some(0)), "{line}");
    assert_eq!(line["against"][0]["games"], 6);
    let config = std::fs::read_to_string(work.join("runs/ladder-saiblo/config.toml")).unwrap();
    assert!(config.contains("game = \"connect4:saiblo\""), "{config}");
}

#[test]
fn the_ladder_says_what_is_wrong_before_it_plays() {
    let dir = tempfile::tempdir().unwrap();
    let run = new_run(dir.path(), &[(1, 10)]);
    let root = path(&run.root);
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let said = |engine: Option<&Path>, args: &[&str]| {
        let out = ladder(&work, engine, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        stderr(&out)
    };
    // No engine: find-seed-engine says how to get one, and nothing is made.
    let text = said(None, &[root]);
    assert!(text.contains("find-seed-engine: no seed engine here: DOJO_SEED_ENGINE is not set."), "{text}");
    assert!(
        text.contains(
            "saiblo-ladder: no seed engine to play (see above), or name another player with --reference SPEC"
        ),
        "{text}"
    );
    assert!(!run.tournaments().join("ladder").exists(), "nothing is made without an engine to play");

    let engine = dir.path().join("no-such.so");
    let bad = |args: &[&str]| said(Some(&engine), args);
    for (args, why) in [
        (&[root, "--pairs", "0"][..], "saiblo-ladder: --pairs 0 is not a whole number of at least 1"),
        (&[root, "--every-nth-version", "x"], "--every-nth-version x is not a whole number of at least 1"),
        (&[root, "--move-ms", "2.5s"], "--move-ms 2.5s is not a number of milliseconds"),
        (&[root, "--move-timeout-ms", "3s"], "--move-timeout-ms 3s is not a number of milliseconds"),
        (&[root, "--parallel", "0"], "--parallel 0 is not a whole number of at least 1"),
        (&[root, "--name", "a/b"], "--name a/b: a tournament's name is letters, digits, '.', '_' and '-'"),
        (&[root, "--rungs", "1"], "saiblo-ladder: unknown option --rungs (see --help)"),
        (&["--pairs", "1"], "saiblo-ladder: name a run, or networks with --model FILE (see --help)"),
        (&["--model", "/nonexistent/net.safetensors"], "--model /nonexistent/net.safetensors: no such file"),
        (&[root, "--dir", "elsewhere"], "--dir is for a ladder without a run"),
        (&["/nonexistent/run"], "/nonexistent/run is not a run directory (no config.toml)"),
    ] {
        let text = bad(args);
        assert!(text.contains(why), "{args:?}: {text}");
    }
    // A run or network of another game.
    let gomoku = seeded_tiny_net(dir.path(), "gomoku:9", 1).with_extension("safetensors");
    let text = bad(&[path(&gomoku)]);
    assert!(text.contains("plays gomoku:9: the saiblo ladder is for Connect Four on saiblo's boards"), "{text}");
    let text = bad(&["--model", path(&gomoku), "--every-nth-version", "2"]);
    assert!(text.contains("saiblo-ladder: --every-nth-version needs a run"), "{text}");
    // A run with nothing published yet.
    let empty = tempfile::tempdir().unwrap();
    let fresh = new_run(empty.path(), &[]);
    let text = bad(&[path(&fresh.root)]);
    assert!(text.contains("has no published version yet"), "{text}");
    // Versions asked for that the run no longer keeps are named before anything plays.
    let thinned = tempfile::tempdir().unwrap();
    let pruned = new_run(thinned.path(), &[(2, 20), (5, 50)]);
    let text = bad(&[path(&pruned.root), "--every-nth-version", "1"]);
    assert!(
        text.contains("saiblo-ladder: asked for the versions divisible by 1 up to v5: 3 no longer on disk (v1 v3 v4): the run keeps its newest versions and a thinned history (learner.keep_versions, learner.keep_every)"),
        "{text}"
    );
    // A --dir that holds another game's ladder, or something else, is not used.
    let connect4 = seeded_tiny_net(dir.path(), "connect4:saiblo", 2).with_extension("safetensors");
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("config.toml"), "game = \"gomoku:15\"\n").unwrap();
    let text = bad(&[path(&connect4), "--dir", path(&other)]);
    assert!(text.contains("holds a ladder of gomoku:15, not connect4:saiblo: name another --dir"), "{text}");
    // The engine named wrongly: find-seed-engine's words.
    let text = bad(&[root]);
    assert!(
        text.contains(&format!("find-seed-engine: DOJO_SEED_ENGINE={}: no such file.", engine.display())),
        "{text}"
    );
}

#[test]
fn seed_001s_engine_heads_the_ladder_of_a_random_network() {
    let Ok(engine) = std::env::var("DOJO_SEED_ENGINE") else {
        eprintln!(
            "SKIPPED: the saiblo ladder against seed 001's engine: DOJO_SEED_ENGINE is not set (scripts/find-seed-engine says how to get the engine; scripts/test.sh runs it and says why not)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run = new_run(dir.path(), &[(1, 10)]);
    // One pair at the platform's clock (3 s; the engine searches its own 2.7 s), the
    // random network's strategy searching 100 ms a move.
    let args = [path(&run.root), "--pairs", "1", "--parallel", "2", "--move-ms", "100", "--", "--json"];
    let out = ladder(Path::new("."), Some(Path::new(&engine)), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let standings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(standings["anchor"], "seed001");
    let against = &standings["gauntlet"][0]["against"][0];
    assert_eq!((against["reference"].as_str(), against["games"].as_u64()), (Some("seed001"), Some(2)));
    // A random 1×8 network does not beat the engine, and neither side runs out of time.
    assert!(against["score"].as_f64().unwrap() <= 0.5, "{against}");
    for g in games(&run.tournaments().join("ladder")) {
        assert!(g.get("forfeit").is_none(), "{g}");
    }
}
