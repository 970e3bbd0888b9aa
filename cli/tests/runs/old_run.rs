//! `dojo train` resumes a run directory an earlier release made
//! (`run/tests/fixtures/run-38e2ffb/`, see the README there): it trains on from the step
//! and version in that run's `state.json`, with the games of its log, and keeps its config
//! and id. `run/tests/old_run.rs` checks the files; this checks that the learner takes them,
//! and refuses them as a run of another game in the words users have seen.

use crate::common;

use common::{dojo, path};
use dojo_run::dir::RunDir;
use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A copy of the earlier release's run in `dir`, for a test to change.
fn copy_of_the_old_run(dir: &Path) -> RunDir {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../run/tests/fixtures/run-38e2ffb");
    let run = RunDir::new(dir.join("run"));
    copy_dir(&fixture, &run.root);
    run
}

#[test]
fn dojo_train_resumes_a_run_made_by_an_earlier_release() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_of_the_old_run(dir.path());
    let config_before = std::fs::read(run.config()).unwrap();

    // The old run is at step 4 with v3 published every 2 steps: two more steps publish v4.
    let out = dojo(&["train", "--run-dir", path(&run.root), "--steps", "6", "--http", "off"]);
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
    assert!(said.contains("resuming run fbe9acbd040e8e37 (connect4:6x5, 1x8 net)"), "{said}");
    let state = run.read_state().unwrap();
    assert_eq!((state.step, state.version), (6, 4), "{said}");
    assert!(state.samples_drawn > 128, "training drew on from the old count: {state:?}");
    assert!(run.model_version(4).is_file());
    assert_eq!(std::fs::read(run.config()).unwrap(), config_before, "a resume keeps the run's config");
    assert_eq!(std::fs::read_to_string(run.root.join("run_id")).unwrap(), "fbe9acbd040e8e37");
}

#[test]
fn dojo_train_refuses_an_old_run_as_another_game_and_says_why_once() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_of_the_old_run(dir.path());
    let out = dojo(&["train", "--run-dir", path(&run.root), "--game", "connect4:7x6", "--steps", "0", "--http", "off"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    let refusal = format!(
        "dojo: error: {} is a run of connect4:6x5 with a 1x8 net; it cannot be resumed as connect4:7x6 with 1x8",
        run.root.display()
    );
    assert!(stderr.lines().any(|l| l == refusal), "{stderr}");

    let missing = dir.path().join("none.toml");
    let new_run = dir.path().join("new");
    let out = dojo(&["train", "--run-dir", path(&new_run), "--config", path(&missing), "--steps", "0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reason = std::fs::read(&missing).unwrap_err();
    // The OS's reason once: the error's chain does not repeat what its message says.
    let said = format!("dojo: error: cannot read {}: {reason}", missing.display());
    assert!(!out.status.success() && stderr.lines().any(|l| l == said), "{stderr}");
}
