//! A worker killed with SIGKILL frees its spool: a child process holds one, this one sees it
//! refused naming the child, kills it, and opens it.
//!
//! A binary of its own: a child started here holds a copy of every open file of this process
//! from its fork to its exec, flock's locks included, so a test in the same process that
//! dropped a spool and reopened it at that moment found it still locked (by itself).

use dojo_worker::spool::{Spool, SpoolError};
use std::path::Path;

/// "pid N on host H" for this machine.
fn holder(pid: u32) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    format!("pid {pid} on host {}", host.trim())
}

/// Not a test of its own: run by the next test in a child process (`HOLD_SPOOL` names the
/// spool), it holds the spool, says so, and waits to be killed.
#[test]
fn hold_a_spool_until_killed() {
    let Some(dir) = std::env::var_os("HOLD_SPOOL") else { return };
    let _spool = Spool::open(Path::new(&dir)).unwrap();
    println!("holding the spool");
    loop {
        std::thread::park();
    }
}

#[test]
fn a_worker_killed_with_sigkill_frees_its_spool() {
    use std::io::BufRead;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("spool");
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "hold_a_spool_until_killed", "--nocapture", "--test-threads", "1"])
        .env("HOLD_SPOOL", &dir)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut said = stdout.lines().map(|l| l.unwrap());
    // libtest prints the test's name first, on the same line.
    assert!(said.any(|line| line.ends_with("holding the spool")), "the child never held the spool");
    let err = Spool::open(&dir).unwrap_err();
    assert!(matches!(&err, SpoolError::InUse { holder: h, .. } if *h == holder(child.id())), "{err:?}");
    child.kill().unwrap(); // SIGKILL: no destructor runs, the kernel drops the lock.
    child.wait().unwrap();
    assert!(Spool::open(&dir).unwrap().is_empty());
}
