//! The networks the repository ships (networks/README.md) load and play their games out of
//! the box: each is checked against its sidecar on load, and beats `random` in every game of
//! a short match at a few playouts a move.

mod common;

use common::{dojo, path, stdout_of};
use serde_json::Value;
use std::path::PathBuf;

fn shipped(name: &str) -> PathBuf {
    let net = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../networks").join(name);
    assert!(net.exists(), "{} is shipped", net.display());
    net
}

#[test]
fn the_shipped_gomoku_11_network_plays_gomoku_11() {
    let net = shipped("gomoku11.safetensors");
    let a = format!("net:{}:sims=16:noavg", path(&net));
    let args = ["match", "--game", "gomoku:11", "--a", &a, "--b", "random", "--games", "4", "--threads", "1"];
    let out = dojo(&[&args[..], &["--seed", "1", "--json"]].concat());
    let report: Value = serde_json::from_str(&stdout_of(&out)).expect("one JSON report");
    assert_eq!((report["games"].as_u64(), report["wins"].as_u64()), (Some(4), Some(4)), "{report}");
    // It is a network for 11x11 alone: another board is refused by name.
    let out = dojo(&["match", "--game", "gomoku:9", "--a", &a, "--b", "random", "--games", "2"]);
    assert!(!out.status.success(), "a gomoku:11 network played gomoku:9");
}
