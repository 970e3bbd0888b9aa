//! Gating as users meet it: `dojo gate` on a run directory, and `dojo train` keeping
//! `models/best.*` and `gating.jsonl` (tiny networks, so each takes seconds).

use crate::common;

use common::{dojo, stdout_of, tiny_config, tiny_gating_run};
use dojo_arch::architecture::Architecture;
use dojo_game::connect4::Connect4;
use dojo_net::checkpoint;
use dojo_net::device::{set_threads, Device};
use dojo_net::model::Model;
use dojo_run::config::{GateMode, RunConfig};
use dojo_run::dir::RunDir;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Publishes `model` as `version` the way the learner does (the version, then latest.json).
fn publish(run: &RunDir, model: &Model, version: u64) {
    let path = run.model_version(version);
    checkpoint::save(model, &path, version * 10, version, None).unwrap();
    std::fs::copy(checkpoint::paths(&path).1, run.models().join("latest.json")).unwrap();
}

fn best_version(run: &RunDir) -> u64 {
    checkpoint::load(&run.best(), Device::Cpu, None).unwrap().sidecar.version
}

fn gating_lines(run: &RunDir) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(run.gating_log()).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn set_promote_score(run: &RunDir, score: f64) {
    let mut c = RunConfig::load_stored(&run.config()).unwrap();
    c.gating.promote_score = score;
    std::fs::write(run.config(), c.to_toml()).unwrap();
}

#[test]
fn dojo_gate_promotes_the_first_version_and_then_only_a_candidate_that_scores_enough() {
    set_threads(1);
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    run.create_or_open(Some(&tiny_config())).unwrap();
    let dir = run.root.to_str().unwrap();
    let arch = Architecture::for_game(&Connect4::<u64>::standard(), 1, 8);
    publish(&run, &Model::new(arch.clone(), Device::Cpu), 1);
    let model = Model::new(arch, Device::Cpu);
    publish(&run, &model, 2);

    let out = stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "1"]));
    assert_eq!(out.trim(), "gating: v2 is the first best version");
    assert_eq!(best_version(&run), 2);
    let out = stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "1"]));
    assert_eq!(out.trim(), "v2 has been gated already; the best is v2");

    // v3 has v2's weights: every pair of games is one game played from both sides, so the
    // candidate scores exactly half, below the default 55%.
    publish(&run, &model, 3);
    let out = stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "1"]));
    assert!(
        out.contains("gating: v3 vs best v2: 4 games,")
            && out.contains("score 50.0% in ")
            && out.trim_end().ends_with(" s: v2 stays best"),
        "{out}"
    );
    assert_eq!(best_version(&run), 2);

    // Half is enough when the run asks for half.
    set_promote_score(&run, 0.5);
    publish(&run, &model, 4);
    let out = stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "1"]));
    assert!(out.contains("score 50.0% in ") && out.trim_end().ends_with(" s: v4 is the new best"), "{out}");
    assert_eq!(best_version(&run), 4);

    let lines = gating_lines(&run);
    assert_eq!(lines.len(), 3);
    assert_eq!((lines[0]["candidate"].as_u64(), lines[0]["best"].as_u64()), (Some(2), None));
    assert_eq!((lines[1]["candidate"].as_u64(), lines[1]["best"].as_u64()), (Some(3), Some(2)));
    assert_eq!((lines[1]["games"].as_u64(), lines[1]["promoted"].as_bool()), (Some(4), Some(false)));
    assert_eq!((lines[2]["score"].as_f64(), lines[2]["promoted"].as_bool()), (Some(0.5), Some(true)));
    assert!(lines[2]["seconds"].as_f64().is_some_and(|s| s > 0.0), "{lines:?}");
}

#[test]
fn an_sprt_gate_records_its_ratio_and_stops_once_decided() {
    set_threads(1);
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    let mut config = tiny_config();
    config.gating.mode = GateMode::Sprt;
    config.gating.games = 200;
    run.create_or_open(Some(&config)).unwrap();
    let dir = run.root.to_str().unwrap();
    let model = Model::new(Architecture::for_game(&Connect4::<u64>::standard(), 1, 8), Device::Cpu);
    publish(&run, &model, 1);
    stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "1"]));
    // The same weights again: every pair ends 1-1 and the default test (elo0 0, elo1 50,
    // alpha 0.05, beta 0.1) accepts H0 at the 15th pair, long before 200 games.
    publish(&run, &model, 2);
    let out = stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "2"]));
    assert!(out.contains("gating: v2 vs best v1: 30 games, ") && out.contains("score 50.0%, LLR -2.4"), "{out}");
    assert!(out.contains("in [-2.25, 2.89]") && out.trim_end().ends_with(" s: v1 stays best"), "{out}");
    let line = &gating_lines(&run)[1];
    assert_eq!((line["games"].as_u64(), line["promoted"].as_bool()), (Some(30), Some(false)));
    let sprt = &line["sprt"];
    assert_eq!(sprt["verdict"], "accept_h0", "{line}");
    assert!(sprt["llr"].as_f64().unwrap() <= sprt["lower"].as_f64().unwrap(), "{line}");
    assert!((sprt["upper"].as_f64().unwrap() - (0.9f64 / 0.05).ln()).abs() < 1e-9, "{line}");
}

#[test]
fn two_gatekeepers_never_gate_one_run_and_training_goes_on_without() {
    set_threads(1);
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    run.create_or_open(Some(&tiny_config())).unwrap();
    let arch = Architecture::for_game(&Connect4::<u64>::standard(), 1, 8);
    publish(&run, &Model::new(arch, Device::Cpu), 1);
    let dir = run.root.to_str().unwrap();
    let watch = || {
        Command::new(env!("CARGO_BIN_EXE_dojo"))
            .args(["gate", "--run-dir", dir, "--watch", "--parallel", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut watcher = watch();
    let deadline = Instant::now() + Duration::from_secs(60);
    let refused = loop {
        // A watcher that started while a one-off gate below held the lock was refused
        // itself: start it again.
        if watcher.try_wait().unwrap().is_some() {
            watcher = watch();
        }
        let out = dojo(&["gate", "--run-dir", dir, "--parallel", "1"]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if !out.status.success() || Instant::now() > deadline {
            break stderr;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        refused
            .contains("another process (dojo train or dojo gate, or dojo tournament --choose-best) is gating this run"),
        "{refused}"
    );
    // Training goes on without gating, and says why.
    let out = dojo(&["train", "--run-dir", dir, "--steps", "0", "--workers", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("not gating: ") && stderr.contains("is gating this run"), "{stderr}");
    let _ = watcher.kill();
    let _ = watcher.wait();
    // The lock goes with its holder. (Whether v1 is gated yet depends on whether a `dojo
    // gate` above ran before the watcher took the lock: watching, it waits for
    // gating.every_versions new versions.)
    let out = stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "1"]));
    let out = out.trim();
    assert!(
        out == "gating: v1 is the first best version" || out == "v1 has been gated already; the best is v1",
        "{out}"
    );
}

#[test]
fn every_dojo_train_session_gates_its_final_version() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, config) = tiny_gating_run(tmp.path());
    let dir = run.root.to_str().unwrap();
    let train = |steps: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_dojo"))
            .args(["train", "--run-dir", dir, "--config", config.to_str().unwrap(), "--steps", steps, "--workers", "1"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains(&format!("best model: {}", run.best().display())), "{stderr}");
        stderr
    };
    // v1 is the random net, v2..=v7 come every 5 steps and v8 with the final checkpoint at
    // step 32. (The gating thread may gate versions on the way too, v8 among them when it
    // sees v8 before the session ends; how many depends on how fast this machine trains.)
    let stderr = train("32");
    assert!(stderr.contains("gating: v8 "), "{stderr}");
    let lines = gating_lines(&run);
    assert_eq!(lines.last().unwrap()["candidate"].as_u64(), Some(8), "{lines:?}");
    // Resumed to step 64: v9..=v14 and the final v15, which plays the best.
    let stderr = train("64");
    let lines = gating_lines(&run);
    let last = lines.last().unwrap();
    assert_eq!((last["candidate"].as_u64(), last["games"].as_u64()), (Some(15), Some(2)), "{lines:?}");
    assert!(last["best"].as_u64().is_some_and(|b| (2..15).contains(&b)), "{lines:?}");
    let best = best_version(&run);
    assert!(lines.iter().any(|l| l["promoted"] == true && l["candidate"].as_u64() == Some(best)), "{lines:?}");
    assert!(stderr.contains(&format!("gating: v15 vs best v{}: 2 games,", last["best"])), "{stderr}");
}

#[test]
fn dojo_gate_on_a_one_player_run_compares_mean_scores_on_the_same_seeds() {
    use dojo_game::sliding::Twenty48;
    use dojo_game::GameSpec;
    set_threads(1);
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    let mut config = tiny_config();
    config.game = GameSpec::Twenty48;
    // An SPRT does not apply to scores: the gate plays its 4 games each and says so.
    config.gating.mode = GateMode::Sprt;
    run.create_or_open(Some(&config)).unwrap();
    let dir = run.root.to_str().unwrap();
    let arch = Architecture::for_game(&Twenty48::new(), 1, 8);
    let model = Model::new(arch.clone(), Device::Cpu);
    publish(&run, &model, 1);
    let out = stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "2"]));
    assert_eq!(out.trim(), "gating: v1 is the first best version");

    // The same weights: the same games on the same seeds, equal means, no promotion.
    publish(&run, &model, 2);
    let out = dojo(&["gate", "--run-dir", dir, "--parallel", "2"]);
    let stdout = stdout_of(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("gating v2 (4 games each on the same seeds (fixed: the SPRT does not apply to scores))"),
        "{stderr}"
    );
    assert!(stdout.starts_with("gating: v2 vs best v1: 4 games each, mean score "), "{stdout}");
    assert!(
        stdout.contains(", difference +0.0 (95% CI +0.0..+0.0); higher in 0, equal in 4, lower in 0 games"),
        "{stdout}"
    );
    assert!(stdout.trim_end().ends_with(" s: v1 stays best"), "{stdout}");
    assert_eq!(best_version(&run), 1);

    // Other weights: promoted exactly when the mean is higher, as the record says.
    publish(&run, &Model::new(arch, Device::Cpu), 3);
    let stdout = stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "2"]));
    let lines = gating_lines(&run);
    let last = &lines[2];
    let scores = &last["scores"];
    let (mean, best_mean) = (scores["candidate"]["mean"].as_f64().unwrap(), scores["best"]["mean"].as_f64().unwrap());
    assert_eq!(scores["difference"].as_f64(), Some(mean - best_mean), "{last}");
    assert_eq!(last["promoted"].as_bool(), Some(mean > best_mean), "{last}");
    assert_eq!(best_version(&run), if mean > best_mean { 3 } else { 1 });
    assert!(stdout.contains("gating: v3 vs best v1: 4 games each"), "{stdout}");
    // The two-player fields hold the pairs: games, and the candidate's higher/equal/lower.
    let pairs = ["wins", "draws", "losses"].map(|k| last[k].as_u64().unwrap());
    assert_eq!((last["games"].as_u64(), pairs.iter().sum::<u64>()), (Some(4), 4));
    assert_eq!(lines[1]["scores"]["sprt_skipped"].as_bool(), Some(true));
    assert!(lines[1]["sprt"].is_null(), "{}", lines[1]);
}

#[test]
fn a_grading_gatekeeper_grades_every_version_on_one_benchmark_drawn_once() {
    set_threads(1);
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    let mut config = tiny_config();
    config.gating.grade_positions = 2;
    config.gating.grade_sims = Some(4);
    config.gating.grade_budget_nodes = 100_000;
    config.gating.grade_total_nodes = 20_000_000;
    run.create_or_open(Some(&config)).unwrap();
    let dir = run.root.to_str().unwrap();
    let arch = Architecture::for_game(&Connect4::<u64>::standard(), 1, 8);
    let model = Model::new(arch, Device::Cpu);
    publish(&run, &model, 1);

    let out = stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "1"]));
    assert!(out.starts_with("gating: v1 is the first best version; graded on "), "{out}");
    assert!(out.contains(" errors, search ") && out.contains("% at 4 playouts ("), "{out}");
    let benchmark = run.root.join("benchmark/pons.jsonl");
    let drawn = std::fs::read_to_string(&benchmark).unwrap();
    let categories: Vec<String> = drawn
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["category"].as_str().unwrap().to_string())
        .collect();
    // The late categories always settle; at most two positions each.
    assert!(categories.iter().filter(|c| *c == "L3R1").count() == 2, "{drawn}");
    assert!(categories.iter().all(|c| categories.iter().filter(|d| d == &c).count() <= 2), "{drawn}");

    publish(&run, &model, 2);
    stdout_of(&dojo(&["gate", "--run-dir", dir, "--parallel", "1"]));
    // Drawn once: the second gate reads the same file.
    assert_eq!(std::fs::read_to_string(&benchmark).unwrap(), drawn);
    let lines = gating_lines(&run);
    assert_eq!(lines.len(), 2);
    for line in &lines {
        let grade = &line["grade"];
        assert_eq!((grade["positions"].as_u64(), grade["sims"].as_u64()), (Some(categories.len() as u64), Some(4)));
        for mover in ["policy", "search"] {
            let rates = grade[mover].as_object().unwrap();
            assert_eq!(rates["all"]["positions"].as_u64(), Some(categories.len() as u64), "{grade}");
            assert_eq!(rates["L3R1"]["positions"].as_u64(), Some(2), "{grade}");
            let errors: u64 =
                rates.iter().filter(|(c, _)| *c != "all").map(|(_, r)| r["errors"].as_u64().unwrap()).sum();
            assert_eq!(rates["all"]["errors"].as_u64(), Some(errors), "{grade}");
        }
    }
    // The same network on the same positions: the same grade.
    assert_eq!(lines[0]["grade"]["policy"], lines[1]["grade"]["policy"]);
    // TensorBoard has the rates by category.
    let events: Vec<u8> = std::fs::read_dir(run.root.join("tensorboard/gating"))
        .unwrap()
        .flat_map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    for tag in ["grade/policy/L3R1", "grade/search/all"] {
        assert!(events.windows(tag.len()).any(|w| w == tag.as_bytes()), "no {tag} in the events");
    }
}

#[test]
fn a_watching_gatekeeper_waits_out_an_unreadable_latest_json() {
    set_threads(1);
    let tmp = tempfile::tempdir().unwrap();
    let run = RunDir::new(tmp.path().join("run"));
    run.create_or_open(Some(&tiny_config())).unwrap();
    // What a reader saw while a learner of an older dojo rewrote the file in place.
    std::fs::write(run.models().join("latest.json"), b"{\"format\":").unwrap();
    let dir = run.root.to_str().unwrap();
    let mut watcher = Command::new(env!("CARGO_BIN_EXE_dojo"))
        .args(["gate", "--run-dir", dir, "--watch", "--every", "1", "--parallel", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    assert!(watcher.try_wait().unwrap().is_none(), "the watcher stopped on a bad latest.json");
    let arch = Architecture::for_game(&Connect4::<u64>::standard(), 1, 8);
    publish(&run, &Model::new(arch, Device::Cpu), 1);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !run.gating_log().exists() || gating_lines(&run).is_empty() {
        assert!(Instant::now() < deadline, "v1 was never gated");
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = watcher.kill();
    let out = watcher.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("trying again every second").count(), 1, "{stderr}");
    assert!(stderr.contains("latest.json: bad sidecar JSON"), "{stderr}");
    assert_eq!(gating_lines(&run)[0]["candidate"], 1);
}
