//! `dojo train` killed with SIGKILL takes its workers with it: it cannot stop them itself,
//! so each worker asks the kernel for SIGTERM when its parent dies. Without that they
//! played on for ever with nobody to take their games (an orphan of an earlier test run
//! was found an hour later, still using a third of a core).

use crate::common;

use common::{path, tiny_config, wait_until};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The processes whose command line contains `needle` (read from /proc).
fn processes_with(needle: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        if String::from_utf8_lossy(&cmdline).contains(needle) && running(pid) {
            pids.push(pid);
        }
    }
    pids
}

/// Whether `pid` is alive and not a zombie waiting for a parent to reap it (an orphan's
/// new parent may never do that).
fn running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    // The state follows the command name in parentheses, which may hold spaces.
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next());
    !matches!(state, None | Some("Z") | Some("X"))
}

#[test]
fn workers_end_when_dojo_train_is_killed() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    std::fs::write(&config, tiny_config().to_toml()).unwrap();
    let run = tmp.path().join("run");
    let mut train = Command::new(env!("CARGO_BIN_EXE_dojo"))
        .args(["train", "--run-dir", path(&run), "--config", path(&config), "--workers", "2", "--for", "300s"])
        .args(["--http", "off"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Each worker's command line names its spool in the run directory.
    let spool = run.join("spool");
    let needle = format!("{}/worker-", path(&spool));
    let mut workers = Vec::new();
    wait_until("both workers to start", Duration::from_secs(60), || {
        workers = processes_with(&needle);
        workers.len() == 2
    });

    unsafe { libc::kill(train.id() as i32, libc::SIGKILL) };
    train.wait().unwrap();
    // SIGTERM gives a worker its grace period (5 s under `dojo train`) to finish and upload.
    let start = Instant::now();
    while workers.iter().any(|&w| running(w)) && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let left = processes_with(&needle);
    // Never leave them behind, even when the test fails.
    for &w in &left {
        unsafe { libc::kill(w as i32, libc::SIGKILL) };
    }
    assert!(left.is_empty(), "workers {left:?} outlived their dojo train by 30 s");
}
