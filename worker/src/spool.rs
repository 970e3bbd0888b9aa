//! The worker's durable spool of finished games the learner has not acknowledged yet.
//!
//! Self-play games are expensive, so none may be lost while the learner is away or when the
//! worker is killed: every finished game is written here before it is sent, and removed only
//! once the learner has acknowledged it (the learner is idempotent by game id, so sending a
//! game twice after a crash is harmless; losing one is not). A restarted worker sends what
//! is here first.
//!
//! Layout: one file per game, `<game-id-hex>.rec`, holding exactly
//! [`GameRecord::encode`]'s bytes. One file per game keeps every operation a single atomic
//! filesystem step: a push is [`atomic_write`] (temp file, fsync, rename, directory fsync),
//! an ack is one unlink, and no crash can tear one game's file while leaving others intact.
//!
//! On [`Spool::open`], leftover temp files of interrupted pushes are removed (their push
//! never returned, so nothing was promised), and any other file that is not a valid record
//! under its own name is moved to `quarantine/` with a warning rather than deleted, so a
//! person can look at it. Nothing on disk can make `open` panic.
//!
//! One spool directory belongs to one worker process at a time, and [`Spool::open`] makes
//! it so: the spool holds an exclusive lock on [`LOCK_FILE`] in the directory for its life
//! (a kill releases it), with the holder's pid and host written in it, and a second open
//! anywhere, in this process or another, fails at once naming that holder. Two workers on
//! one spool would each send and ack the other's games and quarantine its half-written ones.

use dojo_base::util::atomic_write;
use dojo_record::{GameRecord, RecordError};
use dojo_run::journal::{self, JournalError};
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Subfolder of the spool directory that undecodable files are moved to.
pub const QUARANTINE_DIR: &str = "quarantine";

/// File name extension of spooled records.
const EXT: &str = ".rec";

/// The file in the spool directory whose lock the spool's worker holds; it names the holder.
pub const LOCK_FILE: &str = "worker.lock";

/// What can go wrong with the spool. The cause is in each message and not also a source,
/// so a report that prints an error with its sources says it once.
#[derive(Debug, thiserror::Error)]
pub enum SpoolError {
    #[error("spool: cannot {op} {}: {error}", .path.display())]
    Io { op: &'static str, path: PathBuf, error: io::Error },
    /// A record whose encoding does not decode (over the codec's limits): spooling it would
    /// only get it quarantined at the next start, so it is refused up front.
    #[error("spool: game {id} cannot be spooled: its encoding does not decode: {error}")]
    Undecodable { id: String, error: RecordError },
    /// Another worker holds the spool (`holder`: its pid and host, as it wrote them).
    #[error(
        "spool: {} is in use by another worker ({holder}): give each worker a spool directory of its own (--spool)",
        .dir.display()
    )]
    InUse { dir: PathBuf, holder: String },
    /// The lock file cannot be opened or written.
    #[error("spool: {0}")]
    Lock(JournalError),
}

fn io_err(op: &'static str, path: &Path) -> impl FnOnce(io::Error) -> SpoolError {
    let path = path.to_path_buf();
    move |error| SpoolError::Io { op, path, error }
}

/// A file [`Spool::open`] moved aside, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quarantined {
    /// Where the file was.
    pub from: PathBuf,
    /// Where it is now (inside `quarantine/`).
    pub to: PathBuf,
    /// What was wrong with it.
    pub reason: String,
}

/// Pending games ordered oldest first: by finish time, then id (so the order is total and
/// the same after every reopen).
type Key = (u64, [u8; 16]);

/// The spool: pending games on disk, mirrored in memory.
#[derive(Debug)]
pub struct Spool {
    dir: PathBuf,
    /// Kept decoded in memory so [`Spool::pending`] cannot fail; a spool only grows while the
    /// learner is away, and each game is a few kilobytes.
    games: BTreeMap<Key, GameRecord>,
    /// game id → its key in `games`, for acks.
    keys: HashMap<[u8; 16], Key>,
    quarantined: Vec<Quarantined>,
    temp_files_removed: usize,
    /// Held for the spool's life: no other worker opens this directory meanwhile.
    _lock: fs::File,
}

impl Spool {
    /// Opens (creating it if needed) the spool in `dir` and loads the games in it, cleaning
    /// up after a crash: temp files are removed, undecodable files quarantined.
    pub fn open(dir: &Path) -> Result<Spool, SpoolError> {
        fs::create_dir_all(dir).map_err(io_err("create the spool directory", dir))?;
        let lock = journal::lock_naming_holder(&dir.join(LOCK_FILE)).map_err(|e| match e {
            JournalError::Locked { holder, .. } => SpoolError::InUse { dir: dir.to_path_buf(), holder },
            other => SpoolError::Lock(other),
        })?;
        let mut spool = Spool {
            dir: dir.to_path_buf(),
            games: BTreeMap::new(),
            keys: HashMap::new(),
            quarantined: Vec::new(),
            temp_files_removed: 0,
            _lock: lock,
        };
        let entries = fs::read_dir(dir).map_err(io_err("list the spool directory", dir))?;
        // Sorted so that what is quarantined or warned about comes out the same every time.
        let mut paths = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io_err("list the spool directory", dir))?;
            paths.push(entry.path());
        }
        paths.sort();
        let mut changed = false;
        for path in paths {
            let meta = fs::symlink_metadata(&path).map_err(io_err("inspect", &path))?;
            // quarantine/ and anything else a person put there as a folder is left alone.
            if meta.is_dir() {
                continue;
            }
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if name == LOCK_FILE {
                continue;
            }
            if is_temp_name(&name) {
                // An interrupted push: the caller never heard it succeed, so nothing
                // durable is dropped by removing it.
                fs::remove_file(&path).map_err(io_err("remove the interrupted write", &path))?;
                spool.temp_files_removed += 1;
                changed = true;
                continue;
            }
            match load(&path, &name, &meta) {
                Ok(record) => spool.insert(record),
                Err(reason) => {
                    let to = spool.quarantine(&path, &name)?;
                    eprintln!("warning: spool: moved {} to {}: {reason}", path.display(), to.display());
                    spool.quarantined.push(Quarantined { from: path, to, reason: reason.to_string() });
                    changed = true;
                }
            }
        }
        if changed {
            sync_dir(dir);
        }
        Ok(spool)
    }

    /// Moves `path` into `quarantine/`, never over an earlier quarantined file.
    fn quarantine(&self, path: &Path, name: &str) -> Result<PathBuf, SpoolError> {
        let qdir = self.dir.join(QUARANTINE_DIR);
        fs::create_dir_all(&qdir).map_err(io_err("create the quarantine directory", &qdir))?;
        let name = if name.is_empty() { "unnamed" } else { name };
        let mut to = qdir.join(name);
        let mut n = 1u32;
        while fs::symlink_metadata(&to).is_ok() {
            to = qdir.join(format!("{name}.{n}"));
            n += 1;
        }
        fs::rename(path, &to).map_err(io_err("move to quarantine", path))?;
        sync_dir(&qdir);
        Ok(to)
    }

    fn insert(&mut self, record: GameRecord) {
        if let Some(old) = self.keys.remove(&record.game_id) {
            self.games.remove(&old);
        }
        let key = (record.created_unix_ms, record.game_id);
        self.keys.insert(record.game_id, key);
        self.games.insert(key, record);
    }

    /// Stores `record` durably: when this returns `Ok`, the game survives a crash or power
    /// loss. Pushing a game id that is already pending replaces it.
    pub fn push(&mut self, record: &GameRecord) -> Result<(), SpoolError> {
        let bytes = record.encode();
        // What is stored must load again, or the next start would quarantine it.
        let decoded =
            GameRecord::decode(&bytes).map_err(|error| SpoolError::Undecodable { id: record.id_hex(), error })?;
        let path = self.path_of(&record.game_id);
        atomic_write(&path, &bytes).map_err(io_err("write", &path))?;
        self.insert(decoded);
        Ok(())
    }

    /// The pending games, oldest first (by `created_unix_ms`, then game id).
    pub fn pending(&self) -> Vec<GameRecord> {
        self.games.values().cloned().collect()
    }

    /// The ids of the pending games, in [`Spool::pending`]'s order.
    pub fn pending_ids(&self) -> Vec<[u8; 16]> {
        self.games.keys().map(|&(_, id)| id).collect()
    }

    /// Whether the game with this id is pending.
    pub fn contains(&self, game_id: &[u8; 16]) -> bool {
        self.keys.contains_key(game_id)
    }

    /// Forgets an acknowledged game. Acking a game that is not pending (again, or never
    /// pushed) is a no-op.
    pub fn ack(&mut self, game_id: &[u8; 16]) -> Result<(), SpoolError> {
        let Some(&key) = self.keys.get(game_id) else {
            return Ok(());
        };
        let path = self.path_of(game_id);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            // Still on disk, so still pending: the caller may ack again.
            Err(e) => return Err(io_err("remove the acknowledged game", &path)(e)),
        }
        // No directory fsync: if a crash undoes the unlink, the game is sent again and the
        // learner drops the duplicate by id.
        self.keys.remove(game_id);
        self.games.remove(&key);
        Ok(())
    }

    /// Number of pending games.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// The spool directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The files [`Spool::open`] moved to `quarantine/` (this open only).
    pub fn quarantined(&self) -> &[Quarantined] {
        &self.quarantined
    }

    /// How many leftover temp files of interrupted pushes [`Spool::open`] removed.
    pub fn temp_files_removed(&self) -> usize {
        self.temp_files_removed
    }

    fn path_of(&self, game_id: &[u8; 16]) -> PathBuf {
        self.dir.join(format!("{}{EXT}", dojo_base::util::hex(game_id)))
    }
}

/// `atomic_write`'s temp names for our files: `.<32 hex>.rec.tmp<pid>`. Only exactly these
/// are deleted; anything else unexpected is quarantined instead.
fn is_temp_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let Some((stem, pid)) = rest.split_once(".rec.tmp") else {
        return false;
    };
    is_id_hex(stem) && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())
}

fn is_id_hex(s: &str) -> bool {
    s.len() == 32 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Why a spool file is quarantined.
#[derive(Debug, thiserror::Error)]
enum Unloadable {
    #[error("not a regular file")]
    NotAFile,
    #[error("unexpected file name {name:?} (spool files are <32 lowercase hex digits>{EXT})")]
    Name { name: String },
    #[error("cannot read it: {error}")]
    Read { error: io::Error },
    #[error("not a valid game record: {error}")]
    Record { error: RecordError },
    /// Acks find files by id, so a misnamed record could never be removed.
    #[error("holds game {id}, not the game {stem} its name says")]
    Misnamed { id: String, stem: String },
}

/// Reads and checks one spool file; the error is the reason to quarantine it.
fn load(path: &Path, name: &str, meta: &fs::Metadata) -> Result<GameRecord, Unloadable> {
    if !meta.is_file() {
        return Err(Unloadable::NotAFile);
    }
    let Some(stem) = name.strip_suffix(EXT).filter(|s| is_id_hex(s)) else {
        return Err(Unloadable::Name { name: name.to_string() });
    };
    let bytes = fs::read(path).map_err(|error| Unloadable::Read { error })?;
    let record = GameRecord::decode(&bytes).map_err(|error| Unloadable::Record { error })?;
    let id = record.id_hex();
    if id != stem {
        return Err(Unloadable::Misnamed { id, stem: stem.to_string() });
    }
    Ok(record)
}

/// fsync a directory so renames and unlinks in it survive a crash; not every filesystem
/// allows it, and the files themselves are already durable, so failure is ignored.
fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_recognised_exactly() {
        let id = "0123456789abcdef0123456789abcdef";
        assert!(is_temp_name(&format!(".{id}.rec.tmp123")));
        assert!(!is_temp_name(&format!("{id}.rec.tmp123")));
        assert!(!is_temp_name(&format!(".{id}.rec.tmp")));
        assert!(!is_temp_name(&format!(".{id}.rec.tmpx1")));
        assert!(!is_temp_name(".0123.rec.tmp1"));
        assert!(!is_temp_name(&format!(".{}.rec.tmp1", id.to_uppercase())));
        assert!(!is_temp_name(&format!("{id}.rec")));
    }
}
