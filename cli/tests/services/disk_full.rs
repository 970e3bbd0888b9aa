//! Disk trouble (issue 21): a learner whose run directory fills up stops acknowledging
//! games (the clients keep them), says it is not ready and why, and once space returns takes
//! games again without a restart, with nothing acknowledged lost and nothing stored twice.
//! A learner given a read-only run directory refuses to start and names it.
//!
//! The run directory is a small tmpfs, mounted in a mount namespace of the learner's own
//! (`unshare -m`), so nothing on this machine is touched; the test reaches into it through
//! `/proc/PID/root`. Where that cannot be done (no `unshare`, no privilege to mount), the
//! tests say so and skip.

use crate::common;

use common::{dojo_bin, get, path, random_games, tiny_config, wait_for, Proc};
use dojo_learner::gamelog::GameLog;
use dojo_record::GameRecord;
use dojo_worker::client::{self, Delivery};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Whether this machine lets us mount a tmpfs in a private mount namespace.
fn can_mount() -> bool {
    let ok = Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: cannot mount a tmpfs in a private mount namespace here (`unshare -m` needs root or user namespaces)");
    }
    ok
}

/// `dojo ARGS` in a mount namespace of its own where `dir` is a fresh tmpfs of `size`
/// mounted with `options` (e.g. "size=8m" or "ro").
fn in_tmpfs(dir: &Path, options: &str, args: &[&str]) -> Command {
    let mut c = Command::new("unshare");
    c.args([
        "-m",
        "--propagation",
        "private",
        "sh",
        "-c",
        "mount -t tmpfs -o \"$1\" tmpfs \"$2\" && shift 2 && exec \"$@\"",
        "sh",
    ])
    .args([options, path(dir), dojo_bin()])
    .args(args);
    c
}

/// Sends `games` once: how many the learner acknowledged as stored (an error: none).
fn submit(addr: &str, games: &[GameRecord]) -> usize {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let Ok(mut c) = client::connect(&format!("http://{addr}"), None, "disk-test").await else { return 0 };
        match client::submit(&mut c, games).await {
            Ok(acks) => acks.iter().filter(|a| a.1 == Delivery::Delivered).count(),
            Err(_) => 0,
        }
    })
}

/// Fills the filesystem holding `dir` until it refuses more: the filler file.
fn fill(dir: &Path) -> PathBuf {
    let filler = dir.join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    let block = vec![7u8; 64 * 1024];
    while f.write_all(&block).and_then(|()| f.sync_all()).is_ok() {}
    filler
}

#[test]
fn a_full_disk_stops_acks_and_makes_the_learner_unready_until_space_returns() {
    if !can_mount() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    let mut c = tiny_config();
    // No training during the test: its checkpoints would compete for the space.
    c.learner.min_positions = 1_000_000;
    std::fs::write(&config, c.to_toml()).unwrap();
    let mount = tmp.path().join("disk");
    std::fs::create_dir(&mount).unwrap();
    let run = mount.join("run");
    let mut learner = Proc::spawn_command(in_tmpfs(
        &mount,
        "size=16m",
        &[
            "learner",
            "--run-dir",
            path(&run),
            "--config",
            path(&config),
            "--listen",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
        ],
    ));
    let addr = learner.learner_addr();
    let http = learner.after("dashboard: http://").trim_end_matches('/').to_string();
    // The learner's view of the run directory.
    let inside = PathBuf::from(format!("/proc/{}/root", learner.child.id())).join(mount.strip_prefix("/").unwrap());
    assert_eq!(get(&http, "/readyz").0, 200);

    let first = random_games(20, 1);
    assert_eq!(submit(&addr, &first), 20, "a learner with room stores every game");

    let filler = fill(&inside);
    let second = random_games(20, 2);
    // What still fit in the segment's last allocated page is stored and acknowledged; the
    // first game that does not fit stops the acks.
    let fitted = submit(&addr, &second);
    assert!(fitted < 20, "the full disk refused games ({fitted} of 20 acknowledged)");
    let (code, body) = get(&http, "/readyz");
    assert_eq!(code, 503, "not ready while the game log cannot be written: {body}");
    assert!(body.contains("cannot store games") && body.contains("No space left on device"), "{body}");
    let health = common::dojo(&["health", &addr]);
    assert!(!health.status.success(), "gRPC health is NOT_SERVING: {}", String::from_utf8_lossy(&health.stdout));
    assert_eq!(submit(&addr, &second[fitted..]), 0, "nothing acknowledged on a retry while the disk is full");
    let metrics = get(&http, "/metrics").1;
    assert_eq!(common::value(&metrics, "dojo_storage_writable{writer=\"game_log\"}"), 0.0, "{metrics}");

    std::fs::remove_file(&filler).unwrap();
    wait_for("ready again once space returns", Duration::from_secs(20), || get(&http, "/readyz").0 == 200);
    assert_eq!(submit(&addr, &second), 20, "the games kept by the client are stored after recovery");
    assert_eq!(submit(&addr, &first), 20, "and resending stored ones only gets them acknowledged (duplicates)");

    // The log holds each acknowledged game exactly once, readable from disk.
    let (log, stored) = GameLog::open(&inside.join("run/games"), u64::MAX).unwrap();
    assert_eq!(log.len(), 40);
    let mut ids: Vec<_> = stored.iter().map(|r| r.game_id).collect();
    ids.sort();
    let mut sent: Vec<_> = first.iter().chain(&second).map(|r| r.game_id).collect();
    sent.sort();
    assert_eq!(ids, sent);
    drop(log);
    let metrics = get(&http, "/metrics").1;
    assert_eq!(common::value(&metrics, "dojo_ingest_games_total{status=\"stored\"}"), 40.0, "{metrics}");
    assert_eq!(common::value(&metrics, "dojo_storage_writable{writer=\"game_log\"}"), 1.0, "{metrics}");
    let (code, stderr) = learner.terminate();
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("cannot write the game log") && stderr.contains("the game log is writable again"),
        "{stderr}"
    );
}

#[test]
fn a_read_only_run_directory_is_refused_at_start_with_its_path() {
    if !can_mount() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ro");
    std::fs::create_dir(&mount).unwrap();
    let run = mount.join("run");
    let learner =
        Proc::spawn_command(in_tmpfs(&mount, "ro", &["learner", "--run-dir", path(&run), "--listen", "127.0.0.1:0"]));
    let (code, stderr) = learner.wait();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(path(&run)) && stderr.contains("Read-only file system"), "{stderr}");
}
