//! TensorBoard reads what dojo writes: a short `dojo train` and a tournament, and a 2048
//! learner's scores, read back by the `tensorboard` Python package's own `EventAccumulator`
//! (scripts/test.sh installs it into a cached virtualenv and names its python in
//! DOJO_TENSORBOARD_PYTHON).

use crate::common;
use crate::sliding;

use common::{dojo, path, stdout_of, tiny_gating_run};
use std::collections::BTreeMap;
use std::process::Command;

const READER: &str = r#"
import json, sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
out = {}
for folder in sys.argv[1:]:
    acc = EventAccumulator(folder)
    acc.Reload()
    out[folder] = {tag: [[e.step, e.value] for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}
print(json.dumps(out))
"#;

type Scalars = BTreeMap<String, Vec<(i64, f64)>>;

/// Each folder's scalars as TensorBoard reads them, or None where the reader is not here.
fn read_with_tensorboard(folders: &[&str]) -> Option<BTreeMap<String, Scalars>> {
    let Ok(python) = std::env::var("DOJO_TENSORBOARD_PYTHON") else {
        eprintln!("SKIPPED: DOJO_TENSORBOARD_PYTHON is not set; scripts/test.sh installs TensorBoard and sets it");
        return None;
    };
    let out = Command::new(python).arg("-c").arg(READER).args(folders).output().expect("python runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn tensorboard_reads_the_learners_gatings_and_a_tournaments_scalars() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, config) = tiny_gating_run(tmp.path());
    let dir = path(&run.root);
    let train = |steps: &str| {
        let out = dojo(&["train", "--run-dir", dir, "--config", path(&config), "--steps", steps, "--workers", "1"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    train("30");
    // A restarted learner adds a file of its own next to the first.
    train("60");
    let learner = run.tensorboard("learner");
    let files = std::fs::read_dir(&learner).unwrap().count();
    assert_eq!(files, 2, "one event file per learner session");
    stdout_of(&dojo(&[
        "tournament",
        "--run-dir",
        dir,
        "--every-nth-version",
        "4",
        "--playouts",
        "2",
        "--players",
        "random",
        "--games-per-pair",
        "2",
        "--parallel",
        "1",
        "--seed",
        "3",
    ]));

    let metrics_steps: Vec<i64> = std::fs::read_to_string(run.metrics())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["step"].as_i64().unwrap())
        .collect();
    let (gating, tournament) = (run.tensorboard("gating"), run.tensorboard("tournament-default"));
    let Some(all) = read_with_tensorboard(&[path(&learner), path(&gating), path(&tournament)]) else { return };

    let learner = &all[path(&learner)];
    for tag in [
        "loss/policy",
        "loss/value",
        "loss/l2",
        "loss/total",
        "policy/entropy",
        "train/learning_rate",
        "selfplay/game_length",
        "selfplay/first_player_win_rate",
        "selfplay/draw_rate",
        "selfplay/games_per_s",
        "train/samples_per_s",
        "buffer/positions",
        "model/version",
    ] {
        let steps: Vec<i64> =
            learner.get(tag).unwrap_or_else(|| panic!("no {tag}: {learner:?}")).iter().map(|p| p.0).collect();
        // Both sessions' points, at the steps metrics.jsonl has them.
        assert_eq!(steps, metrics_steps, "{tag}");
    }
    assert!(!learner.contains_key("selfplay/mean_score"), "a two-player run has no scores");
    let policy = &learner["loss/policy"];
    assert!(policy.iter().all(|p| p.1 > 0.0 && p.1 < 10.0), "{policy:?}");
    assert!(learner["loss/l2"].iter().all(|p| p.1 > 0.0), "the weights are not zero");

    let gating = &all[path(&gating)];
    let decisions = gating.get("gating/score").unwrap_or_else(|| panic!("{gating:?}"));
    assert!(!decisions.is_empty());
    assert!(decisions.iter().all(|p| (0.0..=1.0).contains(&p.1)), "{decisions:?}");

    let tournament = &all[path(&tournament)];
    let ratings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.tournaments().join("default/ratings.json")).unwrap()).unwrap();
    let mut want: Vec<(i64, f64)> = ratings["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["step"].is_u64())
        .map(|p| (p["step"].as_i64().unwrap(), p["elo"].as_f64().unwrap()))
        .collect();
    want.sort_by_key(|p| p.0);
    let got = &tournament["tournament/elo"];
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.0, w.0);
        assert!((g.1 - w.1).abs() < 0.01, "{g:?} {w:?}");
    }
    assert!(tournament.contains_key("tournament/elo_of/random"), "{tournament:?}");
}

#[test]
fn tensorboard_reads_a_2048_learners_scores_and_reach_rates() {
    let tmp = tempfile::tempdir().unwrap();
    let ([(first, a), (second, b)], positions) = sliding::two_games();
    let (learner, grpc, _) = sliding::learner_2048(tmp.path(), positions);
    sliding::submit(&grpc, &[first, second]);
    let metrics = tmp.path().join("run/metrics.jsonl");
    // The window with the games, and one after it without.
    let scored = || {
        let text = std::fs::read_to_string(&metrics).unwrap_or_default();
        text.contains("\"mean_score\"") && text.lines().count() >= 2
    };
    common::wait_for("two metrics lines, one with scores", std::time::Duration::from_secs(90), scored);
    let (code, stderr) = learner.terminate();
    assert_eq!(code, Some(0), "{stderr}");
    let lines: Vec<serde_json::Value> =
        std::fs::read_to_string(&metrics).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let step = lines.iter().find(|l| l.get("mean_score").is_some()).unwrap()["step"].as_i64().unwrap();

    let folder = tmp.path().join("run/tensorboard/learner");
    let Some(all) = read_with_tensorboard(&[path(&folder)]) else { return };
    let scalars = &all[path(&folder)];
    let tag = |tag: &str| scalars.get(tag).unwrap_or_else(|| panic!("no {tag}: {scalars:?}")).clone();
    // Only the window that had games has scores; TensorBoard keeps f32.
    let mean = ((a.score + b.score) as f64 / 2.0) as f32 as f64;
    assert_eq!(tag("selfplay/mean_score"), [(step, mean)]);
    assert_eq!(tag("selfplay/max_score"), [(step, a.score.max(b.score) as f32 as f64)]);
    assert_eq!(tag("selfplay/max_tile"), [(step, f64::from(a.max_tile))]);
    assert_eq!(tag("selfplay/reach_2048"), [(step, 0.5)]);
    for tile in [4096, 8192, 16384, 32768] {
        assert_eq!(tag(&format!("selfplay/reach_{tile}")), [(step, 0.0)], "{tile}");
    }
    assert_eq!(tag("loss/policy").len(), lines.len(), "every window has losses: {scalars:?}");
}
