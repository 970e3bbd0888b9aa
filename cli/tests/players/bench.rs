//! `dojo bench net|selfplay|search`: what each reports, that the numbers hang together,
//! and the errors for bad options. Speed itself is never asserted.

use crate::common;

use common::{dojo, path, stdout_of, tiny_net};
use serde_json::Value;

fn json_of(args: &[&str]) -> Value {
    let out = stdout_of(&dojo(args));
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("not one JSON object ({e}): {out}"))
}

fn num(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} missing or not a number in {v}"))
}

fn stderr_of_failure(args: &[&str]) -> String {
    let out = dojo(args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn bench_net_times_every_batch_in_every_cpu_precision_against_matmul() {
    let v = json_of(&[
        "bench",
        "net",
        "--blocks",
        "1",
        "--channels",
        "8",
        "--batches",
        "1,4",
        "--millis",
        "20",
        "--matmul-size",
        "64",
        "--json",
    ]);
    let matmul = v["matmul"].as_array().unwrap();
    let names: Vec<&str> = matmul.iter().map(|m| m["precision"].as_str().unwrap()).collect();
    assert_eq!(names, ["f32", "bf16"]);
    let f32_peak = num(&matmul[0], "gflops");
    let flops = num(&v, "flops_per_eval");
    assert!(flops > 0.0 && f32_peak > 0.0, "{v}");
    let rows = v["rows"].as_array().unwrap();
    let timed: Vec<(u64, &str)> =
        rows.iter().map(|r| (r["batch"].as_u64().unwrap(), r["precision"].as_str().unwrap())).collect();
    assert_eq!(timed, [(1, "f32"), (4, "f32"), (1, "bf16"), (4, "bf16")]);
    for r in rows {
        let (evals, gflops) = (num(r, "evals_per_s"), num(r, "gflops"));
        assert!(evals > 0.0, "{r}");
        assert!((gflops - evals * flops / 1e9).abs() <= 1e-9 * gflops.max(1.0), "{r}");
        assert!((num(r, "share_of_f32_matmul") - gflops / f32_peak).abs() < 1e-9, "{r}");
        let own = matmul.iter().find(|m| m["precision"] == r["precision"]).unwrap();
        assert!((num(r, "share_of_matmul") - gflops / num(own, "gflops")).abs() < 1e-9, "{r}");
    }
    assert!(
        v["network"].as_str().unwrap().starts_with("1x8 net (fc policy head, 9 input planes) for connect4:7x6"),
        "{v}"
    );
}

#[test]
fn bench_net_reads_a_checkpoint_and_prints_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = tiny_net(dir.path(), "gomoku:9");
    let out = stdout_of(&dojo(&[
        "bench",
        "net",
        "--model",
        path(&ckpt),
        "--batches",
        "2",
        "--precision",
        "f32",
        "--millis",
        "20",
        "--matmul-size",
        "64",
    ]));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("1x8 net (conv policy head"), "{out}");
    assert!(lines[0].contains("for gomoku:9"), "{out}");
    assert!(out.contains("matmul 64x64x64 f32:"), "{out}");
    assert!(!out.contains("bf16"), "only the precision asked for: {out}");
    let header = lines.iter().position(|l| l.contains("evals/s")).expect("a table header");
    assert_eq!(lines.len(), header + 2, "one row: {out}");
    assert!(lines[header + 1].trim_start().starts_with("2  f32"), "{out}");
}

#[test]
fn bench_net_refuses_bad_options_with_clear_errors() {
    let err = stderr_of_failure(&["bench", "net", "--batches", "0", "--millis", "1"]);
    assert!(err.contains("--batches must list batch sizes of at least 1"), "{err}");
    let err = stderr_of_failure(&["bench", "net", "--precision", "f16", "--millis", "1"]);
    assert!(err.contains("precision f16 runs only on CUDA devices"), "{err}");
    let err = stderr_of_failure(&["bench", "net", "--model", "x", "--blocks", "2"]);
    assert!(err.contains("cannot be used with"), "{err}");
    let err = stderr_of_failure(&["bench", "net", "--game", "chess"]);
    assert!(err.contains("--game"), "{err}");
}

#[test]
fn bench_selfplay_reports_throughput_and_the_pipeline_efficiency() {
    let v = json_of(&[
        "bench",
        "selfplay",
        "--blocks",
        "1",
        "--channels",
        "8",
        "--playouts",
        "16",
        "--fast-playouts",
        "4",
        "--parallel",
        "4",
        "--seconds",
        "1.5",
        "--precision",
        "f32",
        "--json",
    ]);
    assert_eq!(v["precision"], "f32");
    assert_eq!(v["parallel_games"], 4);
    let (secs, positions) = (num(&v, "seconds"), num(&v, "positions"));
    assert!(secs >= 1.5, "{v}");
    assert!(positions > 0.0 && num(&v, "evals") > 0.0, "{v}");
    assert!((num(&v, "positions_per_s") - positions / secs).abs() < 1e-6 * positions, "{v}");
    let mean_batch = num(&v, "mean_batch");
    assert!((1.0..=4.0).contains(&mean_batch), "at most one leaf per game per batch: {v}");
    let raw = num(&v, "raw_evals_per_s_at_mean_batch");
    assert!((num(&v, "pipeline_efficiency") - num(&v, "evals_per_s") / raw).abs() < 1e-9, "{v}");
    assert!((num(&v, "network_efficiency") - num(&v, "evals_per_s_in_network") / raw).abs() < 1e-9, "{v}");
    let share = num(&v, "network_time_share");
    assert!(share > 0.0 && share < 1.0, "{v}");
    // Time inside the network is part of the wall clock.
    assert!(num(&v, "evals_per_s_in_network") >= num(&v, "evals_per_s"), "{v}");
    let err = stderr_of_failure(&["bench", "selfplay", "--seconds", "0"]);
    assert!(err.contains("--seconds must be above 0"), "{err}");
}

#[test]
fn bench_search_measures_each_game_with_both_searches() {
    let v = json_of(&["bench", "search", "--game", "connect4,2048", "--playouts", "50", "--millis", "30", "--json"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["game"], "connect4:7x6");
    assert_eq!(rows[1]["game"], "2048");
    for r in rows {
        assert!(num(r, "random_playouts_per_s") > 0.0, "{r}");
        // A random game lasts several moves.
        assert!(num(r, "random_moves_per_s") > 5.0 * num(r, "random_playouts_per_s"), "{r}");
    }
    // Both games get both searches: 2048 the chance-node search and seed 004's UCT.
    for r in rows {
        assert!(num(r, "mcts_rollouts_per_s") > 0.0 && num(r, "puct_sims_per_s") > 0.0, "{r}");
    }
    // The rollout MCTS as a graph too, where positions can be shared: two-player games.
    assert!(num(&rows[0], "mcts_graph_rollouts_per_s") > 0.0, "{}", rows[0]);
    assert!(rows[1]["mcts_graph_rollouts_per_s"].is_null(), "{}", rows[1]);
    // Gumbel mode too: the graph search's, and the chance-node search's.
    for r in rows {
        assert!(num(r, "gumbel_sims_per_s") > 0.0, "{r}");
    }
    let err = stderr_of_failure(&["bench", "search", "--game", "go"]);
    assert!(err.contains("--game go"), "{err}");
}

#[test]
fn bench_train_times_training_steps_and_refuses_bad_options() {
    let v =
        json_of(&["bench", "train", "--blocks", "1", "--channels", "8", "--batch", "16", "--millis", "50", "--json"]);
    let steps = num(&v, "steps_per_s");
    assert!(steps > 0.0, "{v}");
    assert!((num(&v, "positions_per_s") - 16.0 * steps).abs() < 1e-6 * steps.max(1.0), "{v}");
    assert_eq!(v["batch"], 16);
    assert_eq!(v["optimizer"], "adam");
    assert_eq!(v["device"], "cpu");
    assert!(v["network"].as_str().unwrap().starts_with("1x8 net"), "{v}");
    assert_eq!(v["precision"], "f32");
    let args = ["bench", "train", "--blocks", "1", "--channels", "8", "--batch", "16", "--millis", "50"];
    let bf16 = json_of(&[&args[..], &["--precision", "bf16", "--json"]].concat());
    assert_eq!(bf16["precision"], "bf16");
    assert!(num(&bf16, "steps_per_s") > 0.0, "{bf16}");
    let err = stderr_of_failure(&["bench", "train", "--precision", "f16", "--millis", "1"]);
    assert!(err.contains("f16 needs loss scaling"), "{err}");
    let err = stderr_of_failure(&["bench", "train", "--batch", "0", "--millis", "1"]);
    assert!(err.contains("train.batch_size must be at least 1"), "{err}");
    let err = stderr_of_failure(&["bench", "train", "--optimizer", "lion", "--millis", "1"]);
    assert!(err.contains("unknown optimizer \"lion\" for --optimizer: expected adam or sgd"), "{err}");
}

#[test]
fn bench_agree_compares_every_cpu_format_with_f32_on_the_cpu() {
    let v = json_of(&["bench", "agree", "--blocks", "1", "--channels", "8", "--count", "10", "--json"]);
    assert_eq!(v["all_agree"], true, "{v}");
    assert_eq!(v["device"], "cpu");
    let rows = v["agreements"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["precision"].as_str().unwrap()).collect();
    assert_eq!(names, ["f32", "bf16"]);
    // The same weights on the same device in f32: identical outputs.
    assert_eq!((num(&rows[0], "max_policy_diff"), num(&rows[0], "max_value_diff")), (0.0, 0.0), "{v}");
    for r in rows {
        assert_eq!(r["positions"], 10);
        assert!(num(r, "max_policy_diff") <= num(r, "tolerance"), "{r}");
        assert!(num(r, "max_value_diff") <= num(r, "tolerance"), "{r}");
    }
    let out = stdout_of(&dojo(&["bench", "agree", "--blocks", "1", "--channels", "8", "--count", "3"]));
    assert!(out.contains("cpu against cpu f32 on 3 fixed positions"), "{out}");
    assert_eq!(out.lines().filter(|l| l.ends_with(" ok")).count(), 2, "{out}");
    let err = stderr_of_failure(&["bench", "agree", "--count", "0"]);
    assert!(err.contains("--count must be at least 1"), "{err}");
}
