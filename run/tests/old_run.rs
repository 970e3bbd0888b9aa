//! A run directory made by an earlier release (`fixtures/run-38e2ffb/`: see
//! `fixtures/README.md`) reopens: every key its `config.toml` holds reads back to the value
//! written, its id and the state a restart resumes from read back, and the files that state
//! names are where the layout says. A renamed or reinterpreted key, a moved file or a
//! changed `state.json` field fails here before it strands a user's run.

use dojo_run::config::{GateMode, RunConfig};
use dojo_run::dir::{RunDir, RunState};
use std::path::PathBuf;

fn fixture() -> RunDir {
    RunDir::new(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/run-38e2ffb"))
}

/// Every key of `written` (a TOML table as an earlier release wrote it) with its value as
/// `read` holds it; keys added since may be in `read` only.
fn assert_holds_every_key(written: &toml::Table, read: &toml::Table, at: &str) {
    for (key, value) in written {
        let place = format!("{at}{key}");
        let now = read.get(key).unwrap_or_else(|| panic!("{place}: written by the old release, not read back"));
        match (value, now) {
            (toml::Value::Table(w), toml::Value::Table(r)) => assert_holds_every_key(w, r, &format!("{place}.")),
            _ => assert_eq!(value, now, "{place}"),
        }
    }
}

#[test]
fn every_key_of_an_old_config_reads_back_as_written() {
    let run = fixture();
    let text = std::fs::read_to_string(run.config()).unwrap();
    let config = RunConfig::load_stored(&run.config()).unwrap();
    let written: toml::Table = toml::from_str(&text).unwrap();
    let read: toml::Table = toml::from_str(&config.to_toml()).unwrap();
    assert_holds_every_key(&written, &read, "");
    // The values the run was made with (fixtures/run-38e2ffb.toml), through their types.
    assert_eq!(config.game.to_string(), "connect4:6x5");
    assert_eq!((config.net.blocks, config.net.channels, config.net.describe()), (1, 8, "1x8".to_string()));
    assert_eq!((config.search.simulations, config.selfplay.random_opening_plies), (16, 3));
    assert_eq!(config.train.batch_size, 32);
    assert_eq!((config.replay.window_positions, config.replay.balance_outcomes), (5000, true));
    let l = &config.learner;
    assert_eq!((l.publish_every, l.checkpoint_every, l.min_positions, l.keep_versions), (2, 2, 200, 3));
    let g = &config.gating;
    assert_eq!((g.every_versions, g.mode, g.games, g.sprt.elo1), (0, GateMode::Sprt, 20, 30.0));
    assert_eq!(config.worker_count(16), 1);
}

#[test]
fn an_old_run_reopens_with_its_id_and_resume_state() {
    let run = fixture();
    assert!(run.exists());
    let stored = RunConfig::load_stored(&run.config()).unwrap();
    let (config, run_id) = run.create_or_open(None).unwrap();
    assert_eq!((config, run_id.as_str()), (stored.clone(), "fbe9acbd040e8e37"));
    // A resume may change what does not shape the network, not the game or the net.
    let mut faster = stored.clone();
    faster.search.simulations = 32;
    assert_eq!(run.create_or_open(Some(&faster)).unwrap().0, faster);
    let other = RunConfig::default();
    assert_eq!(
        run.create_or_open(Some(&other)).unwrap_err().to_string(),
        format!(
            "{} is a run of connect4:6x5 with a 1x8 net; it cannot be resumed as connect4:7x6 with 3x32",
            run.root.display()
        )
    );

    let state = run.read_state().unwrap();
    let want = RunState {
        version: 3,
        step: 4,
        model: Some("models/v000003.safetensors".into()),
        optimizer: Some("checkpoints/optim-v000003.safetensors".into()),
        samples_drawn: 128,
        train_model: None,
    };
    assert_eq!(state, want);
    // What the state names is where the layout puts it, and is there.
    assert_eq!(run.resolve(state.model.as_deref().unwrap()), run.model_version(3));
    assert_eq!(run.resolve(state.optimizer.as_deref().unwrap()), run.optimizer_state(3));
    assert!(run.model_version(3).is_file() && run.optimizer_state(3).is_file() && run.latest().is_file());
    assert_eq!(run.versions().unwrap(), vec![3]);
    assert!(run.games().join("segment-000001.dlog").is_file());
}
