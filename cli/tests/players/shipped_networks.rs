//! The networks the repository ships (networks/README.md) load and play their games out of
//! the box: each is checked against its sidecar on load, and beats `random` in every game of
//! a short match at a few playouts a move.

use crate::common;

use common::{dojo, path, stdout_of};
use serde_json::Value;
use std::path::PathBuf;

fn shipped(name: &str) -> PathBuf {
    let net = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../networks").join(name);
    assert!(net.exists(), "{} is shipped", net.display());
    net
}

/// The shipped network `name` wins 4 of 4 against `random` on `game` at 16 playouts.
fn wins_against_random(name: &str, game: &str) {
    let a = format!("net:{}:sims=16:noavg", path(&shipped(name)));
    let args = ["match", "--game", game, "--a", &a, "--b", "random", "--games", "4", "--parallel", "1"];
    let out = dojo(&[&args[..], &["--seed", "1", "--json"]].concat());
    let report: Value = serde_json::from_str(&stdout_of(&out)).expect("one JSON report");
    assert_eq!((report["games"].as_u64(), report["wins"].as_u64()), (Some(4), Some(4)), "{game}: {report}");
}

/// The shipped network `name` for `game` wins its board, and another board (`other`) is
/// refused by name.
fn wins_its_board_and_refuses_another(name: &str, game: &str, other: &str) {
    wins_against_random(name, game);
    let a = format!("net:{}:sims=16:noavg", path(&shipped(name)));
    let out = dojo(&["match", "--game", other, "--a", &a, "--b", "random", "--games", "2"]);
    assert!(!out.status.success(), "a {game} network played {other}");
}

#[test]
fn the_shipped_gomoku_11_network_plays_gomoku_11() {
    wins_its_board_and_refuses_another("gomoku11.safetensors", "gomoku:11", "gomoku:9");
}

#[test]
fn the_shipped_gomoku_15_network_plays_gomoku_15() {
    wins_its_board_and_refuses_another("gomoku15.safetensors", "gomoku:15", "gomoku:11");
}

#[test]
fn the_shipped_any_size_gomoku_network_plays_every_board() {
    // Trained on 9x9 to 15x15; Gomocup's 20x20 is beyond its training, within its frame's reach.
    for game in ["gomoku:9", "gomoku:13", "gomoku:20"] {
        wins_against_random("gomoku-any.safetensors", game);
    }
    wins_its_board_and_refuses_another("gomoku-any.safetensors", "gomoku:15", "connect4");
}

#[test]
fn the_saiblo_networks_play_saiblo_boards() {
    // The default 3x32 (continued on a GPU), the 3x32 trained on 2 cores that it continued,
    // that one continued on 2 cores alone, and the 6x32 of the network-size measurement
    // (networks/README.md): one any-size network each for every saiblo board, the narrowest
    // and the widest here.
    let names = [
        "connect4-saiblo.safetensors",
        "connect4-saiblo-cpu.safetensors",
        "connect4-saiblo-cpu-235m.safetensors",
        "connect4-saiblo-6x32.safetensors",
    ];
    for name in names {
        for game in ["connect4:9x9:5.1", "connect4:12x12:7.12"] {
            wins_against_random(name, game);
        }
        wins_its_board_and_refuses_another(name, "connect4:10x11:3.4", "gomoku:9");
    }
}
