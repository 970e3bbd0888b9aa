//! `dojo export saiblo`: a network written as a saiblo strategy (C++), built with g++ as the
//! platform builds it, is the network (its policy and value within 1e-4 of dojo's on 1,000
//! positions of every board size), plays as dojo's `net:` player does at equal playouts (its
//! Gumbel search move for move), and keeps to its clock; and what cannot be exported is
//! refused by name. The network the
//! repository ships for saiblo's boards is the one exported and played.

use crate::common::{dojo, error_line, path, stdout_of};
use std::path::Path;

/// A random any-size saiblo network at `dir/net`.
fn network(dir: &Path) -> String {
    let net = dir.join("net");
    stdout_of(&dojo(&["init", "--game", "connect4:saiblo", "--out", path(&net), "--seed", "3"]));
    format!("{}.safetensors", net.display())
}

/// The network the repository ships for saiblo's boards (networks/README.md).
fn shipped() -> String {
    let net = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../networks/connect4-saiblo.safetensors");
    assert!(net.exists(), "{} is shipped", net.display());
    net.to_str().unwrap().to_string()
}

fn match_report(args: &[&str]) -> (serde_json::Value, String) {
    let out = dojo(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

/// `dojo export saiblo` of `net` into `out`, searching `playouts` a move with the clock far
/// away (the playouts decide, as for a `net:` player), plus `extra` arguments; its stdout.
fn export_at_playouts(net: &str, out: &Path, playouts: &str, extra: &[&str]) -> String {
    let mut args = vec!["export", "saiblo", "--model", net, "--out", path(out), "--playouts", playouts];
    args.extend_from_slice(&["--move-ms", "20000"]);
    args.extend_from_slice(extra);
    stdout_of(&dojo(&args))
}

/// 24 games (12 pairs on random saiblo boards) of the strategy built in `out` against
/// `net_player`, two at a time, none forfeited; the `--verbose` report.
fn against_its_net_player(out: &Path, net_player: &str, seed: &str) -> serde_json::Value {
    let strategy = format!("saiblo:{}", path(&out.join("Strategy.so")));
    let (report, stderr) = match_report(&[
        "match",
        "--a",
        &strategy,
        "--b",
        net_player,
        "--game",
        "connect4:saiblo",
        "--games",
        "24",
        "--parallel",
        "2",
        "--seed",
        seed,
        "--json",
        "--verbose",
    ]);
    assert!(!stderr.contains("forfeit"), "{stderr}");
    assert_eq!(report["games"].as_u64(), Some(24), "{report}");
    report
}

/// Whether this processor runs the strategy's AVX2 convolution.
fn fast_kernel_runs_here() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// Of a `--verbose` match report's pairs of games (one board from its start, each side
/// first once), how many were the same game twice: all of them when both sides are one
/// deterministic search, which is what an exported strategy against its `net:` player at
/// equal playouts must be. (A pair may part where the two networks' last bits tip a tie:
/// they agree within 1e-5, not to the bit.)
fn pairs_played_twice(report: &serde_json::Value) -> (usize, usize) {
    let games = report["games_played"].as_array().unwrap();
    let same = games.chunks(2).filter(|pair| pair[0]["moves"] == pair[1]["moves"]).count();
    (same, games.len() / 2)
}

#[test]
fn an_exported_network_is_the_network_and_plays_as_its_net_player_does() {
    let dir = tempfile::tempdir().unwrap();
    let net = shipped();
    let out = dir.path().join("strategy");
    let said = export_at_playouts(&net, &out, "24", &[]);
    assert!(said.contains("built ") && said.contains("Strategy.so with g++ -O2"), "{said}");
    // Every one of saiblo's 16 board sizes among the 1,000 positions, with each kernel this
    // processor runs: the AVX2 one where it has AVX2 and FMA, and the portable one always.
    let kernels =
        if fast_kernel_runs_here() { "the AVX2 kernel and the portable kernel" } else { "the portable kernel" };
    assert!(said.contains(&format!("checked: 1000 positions on 16 board sizes, with {kernels}:")), "{said}");
    // And on each of them its tactics (a bitboard of its own) are dojo's two-step lookahead.
    assert!(said.contains("; its two-step lookahead and its rollouts are dojo's on every one\n"), "{said}");
    // Its search mixes 4 rollouts into each leaf's value unless told otherwise.
    assert!(said.contains(", 4 rollouts a leaf at weight 0.5)\n"), "{said}");
    for file in ["Strategy.cpp", "Strategy.h", "Point.h", "Strategy.so"] {
        assert!(out.join(file).exists(), "{file}");
    }
    // The platform's build alone: the three files and g++, nothing of dojo's.
    let platform = dir.path().join("platform.so");
    let built = std::process::Command::new("g++")
        .args(["-O2", "-shared", "-fPIC", "-o", path(&platform), "Strategy.cpp"])
        .current_dir(&out)
        .status()
        .unwrap();
    assert!(built.success());

    // Equal playouts, random boards in pairs (each side first once): the same search on the
    // same network, the graph kept between moves as dojo keeps it, the same rollouts mixed
    // into the same leaves, plays the same games.
    let report = against_its_net_player(&out, &format!("net:{net}:sims=24:noavg:rollouts=4"), "11");
    let (same, pairs) = pairs_played_twice(&report);
    assert!(same >= 11, "only {same} of {pairs} pairs were the same game twice: {report}");
    let interval = report["interval"].as_array().unwrap();
    let (low, high) = (interval[0].as_f64().unwrap(), interval[1].as_f64().unwrap());
    assert!(low <= 0.5 && 0.5 <= high, "{report}");
}

#[test]
fn an_exported_strategy_keeps_to_its_clock() {
    let dir = tempfile::tempdir().unwrap();
    let net = network(dir.path());
    let out = dir.path().join("clocked");
    // By the clock alone: 300 ms a move, against a host that forfeits it past 600 (and a
    // tenth), the whole of every game; no check, the other test makes it.
    stdout_of(&dojo(&["export", "saiblo", "--model", &net, "--out", path(&out), "--move-ms", "300", "--check", "0"]));
    let (report, stderr) = match_report(&[
        "match",
        "--a",
        &format!("saiblo:{}", path(&out.join("Strategy.so"))),
        "--b",
        "mcts:200",
        "--game",
        "connect4:saiblo",
        "--games",
        "2",
        "--parallel",
        "1",
        "--seed",
        "5",
        "--move-timeout-ms",
        "600",
        "--json",
    ]);
    assert!(!stderr.contains("forfeit"), "{stderr}");
    assert_eq!(report["games"].as_u64(), Some(2), "{report}");
}

#[test]
fn what_cannot_be_a_saiblo_strategy_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let net7x6 = dir.path().join("c4");
    stdout_of(&dojo(&["init", "--game", "connect4", "--out", path(&net7x6)]));
    let said = error_line(&[
        "export",
        "saiblo",
        "--model",
        &format!("{}.safetensors", net7x6.display()),
        "--out",
        path(&dir.path().join("x")),
    ]);
    assert!(
        said.ends_with("a network for connect4:7x6 plays one board; saiblo draws a new one every game, so export an any-size Connect Four network (one trained with --game connect4:saiblo, or with [net] any_size = true)"),
        "{said}"
    );
    assert!(!dir.path().join("x").exists(), "nothing written for a refused export");
}

#[test]
fn an_exported_gumbel_search_plays_move_for_move_as_its_net_player_does() {
    let dir = tempfile::tempdir().unwrap();
    let net = shipped();
    let out = dir.path().join("gumbel");
    // Gumbel AlphaZero's search at 16 simulations, as a net: player with :mode=gumbel plays
    // it (no noise). No check: the PUCT test makes it.
    let said = export_at_playouts(&net, &out, "16", &["--check", "0", "--set", "search.mode=gumbel"]);
    assert!(said.contains("Strategy.so with g++ -O2"), "{said}");
    assert!(std::fs::read_to_string(out.join("Strategy.cpp")).unwrap().contains("constexpr bool GUMBEL = true;"));
    let report = against_its_net_player(&out, &format!("net:{net}:sims=16:noavg:mode=gumbel:rollouts=4"), "12");
    // Gumbel's sigma rescales a node's Q-values by their own spread, so a tie the networks'
    // last bits tip comes up more often than in PUCT (11 of 12 here on 2026-11-29; the PUCT
    // export against this player: 0 of 8).
    let (same, pairs) = pairs_played_twice(&report);
    assert!(same >= 10, "only {same} of {pairs} pairs were the same game twice: {report}");
}
