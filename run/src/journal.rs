//! A run's files that must survive a crash: append-only JSON-lines journals (one record a
//! line, each written whole and fsynced, so a kill loses at most the line being written) and
//! exclusive locks that keep two processes from writing one journal. The arbiter keeps its
//! gating log and tournament results this way; the command line reads them back.

use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fs::File;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// What can go wrong with a journal or a lock. A wrapped error's text is part of the message
/// and not also its `source()`, so that `dojo`'s `{:#}` does not print it twice.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The journal or lock file cannot be opened, read or appended to (`op`).
    #[error("cannot {op} {}: {error}", .path.display())]
    Io { op: &'static str, path: PathBuf, error: std::io::Error },
    /// A record that does not serialise as JSON; nothing was written.
    #[error("cannot write a record to {}: {error}", .path.display())]
    Encode { path: PathBuf, error: serde_json::Error },
    /// Another process holds the lock; `holder` says who that is.
    #[error("{}: {holder}", .path.display())]
    Locked { path: PathBuf, holder: String },
}

fn io_error(op: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> JournalError {
    let path = path.to_path_buf();
    move |error| JournalError::Io { op, path, error }
}

/// Takes `path`'s exclusive lock (creating the file), or says that `holder` holds it. The
/// lock lasts as long as the returned file, and dies with the process.
pub fn lock_exclusive(path: &Path, holder: &str) -> Result<File, JournalError> {
    try_lock(path)?.ok_or_else(|| JournalError::Locked { path: path.to_path_buf(), holder: holder.to_string() })
}

/// Takes `path`'s exclusive lock as [`lock_exclusive`] does, and writes this process's id
/// and host into the file ("pid 4242 on host node-3"), so that a process refused it can
/// say who holds it: the refusal's holder is what the holder wrote. For a lock held for a
/// process's life, such as a worker's on its spool.
pub fn lock_naming_holder(path: &Path) -> Result<File, JournalError> {
    let Some(mut file) = try_lock(path)? else {
        let holder = match std::fs::read_to_string(path) {
            Ok(text) if !text.trim().is_empty() => text.trim().to_string(),
            _ => "a process that has not written its name into it yet".to_string(),
        };
        return Err(JournalError::Locked { path: path.to_path_buf(), holder });
    };
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let host = if host.trim().is_empty() { "an unnamed host" } else { host.trim() };
    let me = format!("pid {} on host {host}\n", std::process::id());
    file.set_len(0).and_then(|()| file.write_all(me.as_bytes())).map_err(io_error("write", path))?;
    Ok(file)
}

/// `path` opened (created if need be) and locked, or None where another open file holds
/// its lock (in this process or another: flock locks belong to an open file).
fn try_lock(path: &Path) -> Result<Option<File>, JournalError> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(io_error("open", path))?;
    // SAFETY: flock on a descriptor this function owns; released when the file closes.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Ok(None);
    }
    Ok(Some(file))
}

/// Every record of a journal, oldest first (none if it does not exist yet). A line that a
/// crash cut short, or that does not parse, is skipped.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>, JournalError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(io_error("read", path)(e)),
    }
}

/// Ends a last line that a crash cut short, so the next record starts a line of its own.
/// Call it once, holding the journal's lock, before appending.
pub fn end_partial_line(path: &Path) -> Result<(), JournalError> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error("read", path)(e)),
    };
    if text.last().is_some_and(|&b| b != b'\n') {
        let mut file = std::fs::OpenOptions::new().append(true).open(path).map_err(io_error("open", path))?;
        file.write_all(b"\n").map_err(io_error("append to", path))?;
    }
    Ok(())
}

/// Appends `record` as one line and waits until it is on disk.
pub fn append<T: Serialize>(path: &Path, record: &T) -> Result<(), JournalError> {
    let mut line =
        serde_json::to_string(record).map_err(|error| JournalError::Encode { path: path.to_path_buf(), error })?;
    line.push('\n');
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io_error("open", path))?;
    file.write_all(line.as_bytes()).and_then(|()| file.sync_data()).map_err(io_error("append to", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_cut_short_is_skipped_and_the_next_record_gets_a_line_of_its_own() {
        #[derive(Debug, PartialEq, Serialize, serde::Deserialize)]
        struct R {
            n: u32,
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        assert_eq!(read::<R>(&path).unwrap(), vec![]);
        append(&path, &R { n: 1 }).unwrap();
        append(&path, &R { n: 2 }).unwrap();
        // A kill in the middle of writing {"n":3}.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"n\":").unwrap();
        assert_eq!(read::<R>(&path).unwrap(), vec![R { n: 1 }, R { n: 2 }]);
        end_partial_line(&path).unwrap();
        end_partial_line(&path).unwrap();
        append(&path, &R { n: 4 }).unwrap();
        assert_eq!(read::<R>(&path).unwrap(), vec![R { n: 1 }, R { n: 2 }, R { n: 4 }]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"n\":1}\n{\"n\":2}\n{\"n\":\n{\"n\":4}\n");
    }

    #[test]
    fn a_lock_is_held_by_one_file_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let held = lock_exclusive(&path, "someone holds it").unwrap();
        let err = lock_exclusive(&path, "someone holds it").unwrap_err();
        assert!(matches!(&err, JournalError::Locked { holder, .. } if holder == "someone holds it"), "{err:?}");
        assert_eq!(err.to_string(), format!("{}: someone holds it", path.display()));
        drop(held);
        lock_exclusive(&path, "someone holds it").unwrap();
    }

    #[test]
    fn a_lock_naming_its_holder_says_who_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        // An earlier holder's name, longer than the new one, is replaced whole.
        std::fs::write(&path, "pid 123456789 on host a-long-gone-machine-name\n").unwrap();
        let held = lock_naming_holder(&path).unwrap();
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        let me = format!("pid {} on host {}", std::process::id(), host.trim());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{me}\n"));
        let err = lock_naming_holder(&path).unwrap_err();
        assert!(matches!(&err, JournalError::Locked { holder, .. } if *holder == me), "{err:?}");
        assert_eq!(err.to_string(), format!("{}: {me}", path.display()));
        drop(held);
        lock_naming_holder(&path).unwrap();
    }

    #[test]
    fn an_unwritable_journal_names_its_path_and_what_failed() {
        let dir = tempfile::tempdir().unwrap();
        // A folder where the journal should be: it opens for nothing.
        let err = append(dir.path(), &1).unwrap_err();
        assert!(matches!(&err, JournalError::Io { op: "open", path, .. } if path == dir.path()), "{err:?}");
        assert!(err.to_string().starts_with(&format!("cannot open {}: ", dir.path().display())), "{err}");
        let err = read::<u32>(dir.path()).unwrap_err();
        assert!(matches!(&err, JournalError::Io { op: "read", .. }), "{err:?}");
    }
}
