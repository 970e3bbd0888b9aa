//! What the `dojo` binary's integration tests share: running the binary, and a run
//! configuration small enough that a run takes seconds.

// Each test file uses only some of these.
#![allow(dead_code)]

use dojo_learner::config::RunConfig;
use std::path::Path;
use std::process::{Command, Output};

/// Runs the `dojo` binary with `args`.
pub fn dojo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dojo")).args(args).output().expect("the dojo binary runs")
}

/// The stdout of a run that must have succeeded.
pub fn stdout_of(out: &Output) -> String {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// A path as the `&str` an argument list wants.
pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A run of a 1×8 network with 8-playout searches that trains and publishes within seconds.
pub fn tiny_config() -> RunConfig {
    let mut c = RunConfig::default();
    c.net.blocks = 1;
    c.net.channels = 8;
    c.search.simulations = 8;
    c.selfplay.parallel_games = 4;
    c.train.batch_size = 32;
    c.learner.min_positions = 60;
    c.learner.publish_every = 5;
    c.learner.checkpoint_every = 10;
    c.replay.max_samples_per_position = 100.0;
    c.gating.games = 4;
    c.gating.simulations = 8;
    c
}

/// `tiny_config` gating every 2 versions with 2-game matches, written to `dir/tiny.toml`
/// for `dojo train --config`; the run goes to `dir/run`.
pub fn tiny_gating_run(dir: &Path) -> (dojo_learner::run_dir::RunDir, std::path::PathBuf) {
    let mut c = tiny_config();
    c.gating.every_versions = 2;
    c.gating.games = 2;
    let config = dir.join("tiny.toml");
    std::fs::write(&config, c.to_toml()).unwrap();
    (dojo_learner::run_dir::RunDir::new(dir.join("run")), config)
}
