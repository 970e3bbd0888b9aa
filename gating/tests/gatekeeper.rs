//! The gatekeeper on a run directory: promoting a version to the best (the one way gating
//! and `dojo tournament --choose-best` share) and the watch loop both `dojo gate` and
//! `dojo train` run (tiny random networks, one libtorch thread).

use dojo_arbiter::promotion::{self, BestKeeper, Promoter};
use dojo_arch::architecture::Architecture;
use dojo_game::connect4::Connect4;
use dojo_gating::gatekeeper::{newest_version, read_records};
use dojo_gating::watch::WatchError;
use dojo_gating::{Event, Gatekeeper, Newest, Schedule, Watch};
use dojo_net::checkpoint::{self, CheckpointError, SidecarProblem};
use dojo_net::device::set_threads;
use dojo_net::device::Device;
use dojo_net::model::Model;
use dojo_run::config::RunConfig;
use dojo_run::dir::RunDir;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A new run whose gates are 2-game matches at 2 playouts, ungraded.
fn new_run(dir: &tempfile::TempDir) -> (RunDir, RunConfig) {
    set_threads(1);
    let mut config = RunConfig::default();
    config.net.blocks = 1;
    config.net.channels = 8;
    config.gating.games = 2;
    config.gating.simulations = 2;
    config.gating.grade_positions = 0;
    let run = RunDir::new(dir.path().join("run"));
    run.create_or_open(Some(&config)).unwrap();
    (run, config)
}

fn model() -> Model {
    Model::new(Architecture::for_game(&Connect4::<u64>::standard(), 1, 8), Device::Cpu)
}

/// Publishes `model` as `version` the way the learner does (the version, then latest.json).
fn publish(run: &RunDir, model: &Model, version: u64) {
    let path = run.model_version(version);
    checkpoint::save(model, &path, version * 10, version, None).unwrap();
    std::fs::copy(checkpoint::paths(&path).1, run.latest()).unwrap();
}

fn best_version(run: &RunDir) -> u64 {
    checkpoint::read_verified(&run.best()).unwrap().0.version
}

/// The events of a loop, as text.
fn said(event: Event<'_>) -> String {
    match event {
        Event::Unreadable(e) => format!("unreadable: {e}"),
        Event::Gating(v) => format!("gating v{v}"),
        Event::Gated { record, best } => format!("{} (best {best:?})", record.describe()),
        Event::Failed(e) => format!("failed: {e}"),
        Event::AlreadyGated { newest, best } => format!("v{newest} gated already (best {best:?})"),
    }
}

#[test]
fn a_promotion_copies_the_version_whole_and_only_under_the_gating_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, _) = new_run(&tmp);
    publish(&run, &model(), 1);
    publish(&run, &model(), 2);

    let sidecar = promotion::promote(&run, Promoter::Tournament, 2).unwrap();
    assert_eq!((sidecar.version, sidecar.step), (2, 20));
    // The best is v2's files byte for byte, and no temporary file is left beside them.
    let (weights, json) = checkpoint::paths(&run.best());
    let (v2_weights, v2_json) = checkpoint::paths(&run.model_version(2));
    assert_eq!(std::fs::read(&weights).unwrap(), std::fs::read(v2_weights).unwrap());
    assert_eq!(checkpoint::read_sidecar(&json).unwrap(), checkpoint::read_sidecar(&v2_json).unwrap());
    let mut names: Vec<String> = std::fs::read_dir(run.models())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let expected = [
        "best.json",
        "best.safetensors",
        "latest.json",
        "v000001.json",
        "v000001.safetensors",
        "v000002.json",
        "v000002.safetensors",
    ];
    assert_eq!(names, expected);
    // A tournament's choice is not a gate: gating.jsonl has no line for it.
    assert!(!run.gating_log().exists());

    // While a gatekeeper holds the lock, a tournament cannot promote, and says who to stop.
    let keeper = BestKeeper::lock(&run, Promoter::Gatekeeper).unwrap();
    let lock = run.gating_lock();
    let err = promotion::promote(&run, Promoter::Tournament, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: dojo train or dojo gate is gating this run: stop it to choose the best by tournament",
            lock.display()
        )
    );
    // Nor can a second gatekeeper open.
    let err = Gatekeeper::open(&run, &RunConfig::default(), 1).err().unwrap();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: another process (dojo train or dojo gate, or dojo tournament --choose-best) is gating this run",
            lock.display()
        )
    );
    // The holder promotes.
    assert_eq!(keeper.promote(1).unwrap().version, 1);
    drop(keeper);
    assert_eq!(best_version(&run), 1);

    // A version that is not there is refused before the best is touched.
    let err = promotion::promote(&run, Promoter::Tournament, 9).unwrap_err();
    let missing = run.models().join("v000009.safetensors");
    assert_eq!(err.to_string(), format!("{} does not exist", missing.display()));
    assert_eq!(best_version(&run), 1);
}

#[test]
fn gating_once_makes_the_first_best_then_plays_it_and_journals_every_decision() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, config) = new_run(&tmp);
    let stop = AtomicBool::new(false);
    let once = Watch { schedule: Schedule::Once, poll: Duration::ZERO, stop: &stop };
    let mut keeper = Gatekeeper::open(&run, &config, 1).unwrap();
    let gate_once = |keeper: &mut Gatekeeper| {
        let mut events = Vec::new();
        let result = keeper.watch(Newest::Published, &once, &mut |e| events.push(said(e)));
        (result, events)
    };

    // Nothing published yet: latest.json is missing, and once that is an error.
    let (result, events) = gate_once(&mut keeper);
    let err = result.unwrap_err();
    assert!(matches!(err, WatchError::Newest(_)) && events.is_empty(), "{err:?}");
    assert_eq!(err.to_string(), format!("{} does not exist", run.latest().display()));

    let model = model();
    publish(&run, &model, 1);
    let (result, events) = gate_once(&mut keeper);
    result.unwrap();
    assert_eq!(events, ["gating v1", "gating: v1 is the first best version (best Some(1))"]);
    assert_eq!(best_version(&run), 1);
    let (result, events) = gate_once(&mut keeper);
    result.unwrap();
    assert_eq!(events, ["v1 gated already (best Some(1))"]);

    // v2 has v1's weights: a 2-game match from both sides scores exactly half, not enough.
    publish(&run, &model, 2);
    let (result, events) = gate_once(&mut keeper);
    result.unwrap();
    assert_eq!(events[0], "gating v2");
    assert!(events[1].starts_with("gating: v2 vs best v1: 2 games, ") && events[1].contains(", score 50.0% in "));
    assert!(events[1].ends_with(" s: v1 stays best (best Some(1))"), "{events:?}");

    // Every decision is a line of gating.jsonl; the promotion's says so.
    let records = read_records(&run).unwrap();
    let lines: Vec<_> = records.iter().map(|r| (r.candidate, r.best, r.tally.games, r.promoted)).collect();
    assert_eq!(lines, [(1, None, 0, true), (2, Some(1), 2, false)]);

    // Stopped, a match is cancelled and nothing is recorded or said of it.
    publish(&run, &model, 3);
    stop.store(true, Ordering::Relaxed);
    let mut events = Vec::new();
    keeper.watch(Newest::Published, &once, &mut |e| events.push(said(e))).unwrap();
    assert_eq!(events, ["gating v3"]);
    assert_eq!(read_records(&run).unwrap().len(), 2);
    stop.store(false, Ordering::Relaxed);

    // Once, a version that cannot be read is an error naming it; nothing is recorded.
    let err = keeper.watch(Newest::Read(&|| Ok(7)), &once, &mut |_| {}).unwrap_err();
    let missing = run.models().join("v000007.safetensors");
    assert_eq!(err.to_string(), format!("gating v7: {} does not exist", missing.display()));
    assert_eq!((read_records(&run).unwrap().len(), best_version(&run)), (2, 1));
    // A reopened gatekeeper knows where gating stands.
    drop(keeper);
    let keeper = Gatekeeper::open(&run, &config, 1).unwrap();
    assert_eq!((keeper.best_version(), keeper.last_gated()), (Some(1), 2));
}

#[test]
fn watching_waits_out_an_unreadable_newest_passes_over_a_failed_gate_and_stops_on_the_flag() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, config) = new_run(&tmp);
    let mut keeper = Gatekeeper::open(&run, &config, 1).unwrap();
    let stop = AtomicBool::new(false);
    let every = Watch { schedule: Schedule::Every(1), poll: Duration::from_millis(10), stop: &stop };

    // Two reads fail alike (said once), then v1 is there and gated; the caller stops.
    publish(&run, &model(), 1);
    let reads = Cell::new(0);
    let newest = || {
        reads.set(reads.get() + 1);
        match reads.get() {
            1 | 2 => Err(CheckpointError::Sidecar { path: run.latest(), reason: SidecarProblem::Format("old".into()) }),
            _ => newest_version(&run),
        }
    };
    let mut events = Vec::new();
    keeper
        .watch(Newest::Read(&newest), &every, &mut |e| {
            if matches!(e, Event::Gated { .. }) {
                stop.store(true, Ordering::Relaxed);
            }
            events.push(said(e));
        })
        .unwrap();
    let unreadable =
        format!(r#"unreadable: {}: bad sidecar JSON: format "old" is not "dojo-checkpoint/1""#, run.latest().display());
    assert_eq!(events, [unreadable.as_str(), "gating v1", "gating: v1 is the first best version (best Some(1))"]);
    assert_eq!(reads.get(), 3);

    // A version gone before it was read is said and passed over, and the watch goes on.
    stop.store(false, Ordering::Relaxed);
    let mut events = Vec::new();
    keeper
        .watch(Newest::Read(&|| Ok(4)), &every, &mut |e| {
            if matches!(e, Event::Failed(_)) {
                stop.store(true, Ordering::Relaxed);
            }
            events.push(said(e));
        })
        .unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    let missing = run.models().join("v000004.safetensors");
    assert_eq!(events[1], format!("failed: gating v4: {} does not exist", missing.display()));
    assert_eq!(keeper.last_gated(), 4);
    assert_eq!(read_records(&run).unwrap().len(), 1);

    // Not due until `every` versions are new; stopped, it returns without looking.
    let every_3 = Watch { schedule: Schedule::Every(3), ..every };
    stop.store(false, Ordering::Relaxed);
    let looks = Cell::new(0);
    let newest = || {
        looks.set(looks.get() + 1);
        if looks.get() == 3 {
            stop.store(true, Ordering::Relaxed);
        }
        Ok(6)
    };
    keeper.watch(Newest::Read(&newest), &every_3, &mut |e| panic!("{}", said(e))).unwrap();
    assert_eq!(looks.get(), 3);
    keeper.watch(Newest::Read(&|| panic!("looked")), &every_3, &mut |e| panic!("{}", said(e))).unwrap();
}
