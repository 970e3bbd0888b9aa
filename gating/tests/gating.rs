//! Gating matches and the best-network store (tiny random networks, one libtorch thread).

use dojo_arbiter::contest::OnePlayer;
use dojo_arbiter::players::{PlayerSpec, RandomSpec, UctSpec};
use dojo_arbiter::promotion::BestStore;
use dojo_arch::architecture::Architecture;
use dojo_game::connect4::Connect4;
use dojo_game::gomoku::Gomoku;
use dojo_game::GameSpec;
use dojo_gating::gating::{gate_match, gate_players, GateSettings};
use dojo_gating::sprt::{SprtConfig, Verdict};
use dojo_net::checkpoint;
use dojo_net::device::set_threads;
use dojo_net::device::Device;
use dojo_net::model::Model;
use std::path::{Path, PathBuf};

fn save_random_net(path: &Path, version: u64) {
    let arch = Architecture::for_game(&Connect4::<u64>::standard(), 1, 8);
    checkpoint::save(&Model::new(arch, Device::Cpu), path, version * 10, version, None).unwrap();
}

/// A run's models folder holding v1, which is also the best.
fn one_version_as_the_best() -> (tempfile::TempDir, PathBuf, BestStore) {
    set_threads(1);
    let dir = tempfile::tempdir().unwrap();
    let v1 = dir.path().join("v000001.safetensors");
    save_random_net(&v1, 1);
    let best = BestStore::new(dir.path().join("best.safetensors"));
    best.promote(&v1).unwrap();
    (dir, v1, best)
}

fn settings(games: u32) -> GateSettings {
    GateSettings {
        games,
        sprt: None,
        search: dojo_search::config::SearchConfig::for_play(16),
        opening_plies: 4,
        average_symmetries: true,
        threads: 1,
    }
}

#[test]
fn a_network_gated_against_its_own_copy_scores_exactly_half() {
    let (_dir, v1, best) = one_version_as_the_best();
    // Same weights, same deterministic search: in each pair the side moving first gets the
    // same game twice, once as the candidate and once as the best.
    let gate = gate_match(&v1, best.path(), &settings(8), 3, None).unwrap();
    assert!(gate.sprt.is_none() && !gate.promotes(0.55) && gate.promotes(0.5));
    let r = gate.result;
    assert_eq!(r.tally.games, 8);
    assert_eq!(r.score, 0.5, "{r:?}");
    assert_eq!(r.a_first.wins, r.b_first.losses);
    assert_eq!(r.a_first.draws, r.b_first.draws);
}

#[test]
fn an_sprt_gate_stops_as_soon_as_equal_networks_are_shown_equal() {
    let (_dir, v1, best) = one_version_as_the_best();
    // Every pair ends 1-1, so the LLR falls by 0.0102 n (n + 1) after n pairs
    // (SprtConfig::llr with the one-pseudo-pair variance) and passes ln(0.1 / 0.95) = -2.25
    // at the 15th pair: 30 games of the 200 allowed.
    let sprt = SprtConfig { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.1, max_games: 0 };
    let gate = gate_match(&v1, best.path(), &GateSettings { sprt: Some(sprt), ..settings(200) }, 3, None).unwrap();
    let status = gate.sprt.expect("an SPRT status");
    assert_eq!(status.verdict, Verdict::AcceptH0, "{status:?}");
    assert!(status.llr <= status.lower && status.lower < 0.0, "{status:?}");
    assert_eq!(gate.result.tally.games, 30, "{:?}", gate.result);
    assert_eq!(gate.result.score, 0.5);
    assert!(!gate.promotes(0.5), "the SPRT decides, not the score");
    // The same seed on more threads stops at the same game.
    let more = GateSettings { sprt: Some(sprt), threads: 3, ..settings(200) };
    assert_eq!(gate_match(&v1, best.path(), &more, 3, None).unwrap().result.tally.games, 30);
}

#[test]
fn networks_of_different_games_are_not_gated() {
    set_threads(1);
    let dir = tempfile::tempdir().unwrap();
    let c4 = dir.path().join("c4.safetensors");
    save_random_net(&c4, 1);
    let g9 = dir.path().join("g9.safetensors");
    let arch = Architecture::for_game(&Gomoku::new(9).unwrap(), 1, 8);
    checkpoint::save(&Model::new(arch, Device::Cpu), &g9, 0, 0, None).unwrap();
    let err = gate_match(&c4, &g9, &settings(2), 1, None).unwrap_err().to_string();
    assert!(err.contains("is a network for connect4:7x6 but") && err.ends_with("is one for gomoku:9"), "{err}");
}

#[test]
fn the_best_survives_an_interrupted_copy_and_a_damaged_one_is_gated_afresh() {
    set_threads(1);
    let dir = tempfile::tempdir().unwrap();
    let (v1, v2) = (dir.path().join("v000001.safetensors"), dir.path().join("v000002.safetensors"));
    save_random_net(&v1, 1);
    save_random_net(&v2, 2);
    let best = BestStore::new(dir.path().join("best.safetensors"));
    assert_eq!(best.current().unwrap(), None, "no best before the first promotion");
    assert_eq!(best.promote(&v1).unwrap().version, 1);
    assert_eq!(best.current().unwrap().map(|s| s.version), Some(1));

    // A promotion of v2 cut short after the weights: v1's sidecar over v2's weights.
    std::fs::copy(&v2, best.path()).unwrap();
    assert_eq!(best.current().unwrap().map(|s| s.version), Some(2), "repaired from v2's sidecar");
    let loaded = checkpoint::load(best.path(), Device::Cpu, None).unwrap();
    assert_eq!(loaded.sidecar.version, 2);

    // Weights no version has: the best is dropped, the versions stay.
    std::fs::write(best.path(), b"garbage").unwrap();
    assert_eq!(best.current().unwrap(), None);
    assert!(!best.path().exists() && !dir.path().join("best.json").exists());
    assert!(checkpoint::load(&v1, Device::Cpu, None).is_ok() && checkpoint::load(&v2, Device::Cpu, None).is_ok());
}

/// The games a one-player gate plays, pinned (moved from the arbiter's tests/contests.rs,
/// whose digests pin a match's and a tournament's).
#[test]
fn a_one_player_gate_plays_the_games_it_played_before() {
    let settings = GateSettings {
        games: 4,
        sprt: None,
        search: dojo_search::config::SearchConfig::for_play(1),
        opening_plies: 0,
        average_symmetries: false,
        threads: 2,
    };
    let (uct, random) = (PlayerSpec::Uct(UctSpec { iterations: 8 }), PlayerSpec::Random(RandomSpec));
    let gate = gate_players(OnePlayer, &GameSpec::Twenty48, &uct, &random, &settings, 9, None).unwrap();
    let c = gate.scores.clone().unwrap();
    assert_eq!((c.candidate.mean, c.best.mean, c.difference, c.higher), (8802.0, 1021.0, 7781.0, 4));
    assert!(gate.sprt.is_none() && gate.promotes(0.99));
}
