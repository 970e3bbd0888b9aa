//! The learner's durable game log: the run directory's `games/` folder.
//!
//! Workers submit finished games; the learner appends each one here and fsyncs *before*
//! it acks, and on restart rebuilds its replay buffer from the log, so an acked game is
//! never lost. Appends are idempotent by game id: a worker that retries after a lost ack
//! gets [`Appended::Duplicate`] and the game is stored once.
//!
//! ```text
//! games/segment-000001.dlog, segment-000002.dlog, ...   (numbered from 1, no gaps)
//! segment := magic "DOJOLOG" | version u8 (= 1) | record*
//! record  := GameRecord::encode() bytes (self-delimiting and checksummed)
//! ```
//!
//! Only the last segment is ever written. A new segment is created whole (header written
//! to a temporary file, fsynced, renamed, folder fsynced), so every segment file has a
//! header. Each append or batch is one `write` followed by one `fdatasync`, and nothing is
//! acked before that returns, so a crash can only damage the bytes after the last acked
//! record of the last segment. [`GameLog::open`] therefore truncates such a torn tail of
//! the last segment (reported as a [`Recovery`]) and refuses every other kind of damage
//! with an error naming the file and byte offset, leaving the files untouched: a bad byte
//! in stored data is for an operator to look at, never for the learner to quietly drop.
//!
//! One exception is unavoidable: bytes after the last readable record of the last segment
//! are indistinguishable from a torn final write, so damage to the very last record is
//! truncated as a torn tail (and reported). Damage followed by a readable record is never
//! a torn tail (a crash cannot lose an fsynced record), so it is an error.
//!
//! The log keeps the set of stored ids in memory (16 bytes a game). It takes no lock on
//! the folder: one learner owns a run directory.

use dojo_record::{GameRecord, RecordError, RECORD_MAGIC};
use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The first bytes of a segment file; the byte after them is [`SEGMENT_VERSION`].
pub const SEGMENT_MAGIC: [u8; 7] = *b"DOJOLOG";
pub const SEGMENT_VERSION: u8 = 1;
/// Length of a segment's header (magic and version).
pub const SEGMENT_HEADER_LEN: u64 = SEGMENT_MAGIC.len() as u64 + 1;
/// The default size after which the log starts a new segment.
pub const DEFAULT_SEGMENT_BYTES: u64 = 64 << 20;

const SEGMENT_PREFIX: &str = "segment-";
const SEGMENT_SUFFIX: &str = ".dlog";

fn header() -> [u8; SEGMENT_HEADER_LEN as usize] {
    let mut h = [0u8; SEGMENT_HEADER_LEN as usize];
    h[..SEGMENT_MAGIC.len()].copy_from_slice(&SEGMENT_MAGIC);
    h[SEGMENT_MAGIC.len()] = SEGMENT_VERSION;
    h
}

/// The file name of segment `number` (1-based).
pub fn segment_name(number: u64) -> String {
    format!("{SEGMENT_PREFIX}{number:06}{SEGMENT_SUFFIX}")
}

/// What an append did with a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Appended {
    /// Written and fsynced: safe to ack.
    Stored,
    /// A game with this id is already stored (durably); nothing was written.
    Duplicate,
}

/// A torn tail that [`GameLog::open`] cut off the last segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recovery {
    /// The segment that was repaired.
    pub segment: PathBuf,
    /// Where the last complete record (or the header) ended: the segment's new length.
    pub offset: u64,
    /// How many bytes after `offset` were removed. When the segment's header itself was
    /// torn (a crash while creating it), these are the header bytes, and a whole header
    /// was written in their place.
    pub truncated_bytes: u64,
    /// Why the bytes at `offset` were unreadable.
    pub reason: String,
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "truncated a torn tail of {} byte(s) at byte {} of {} ({})",
            self.truncated_bytes,
            self.offset,
            self.segment.display(),
            self.reason
        )
    }
}

/// Everything that can go wrong with the game log.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("cannot {op} {}: {error}", .path.display())]
    Io { op: &'static str, path: PathBuf, error: io::Error },
    /// Stored data that cannot be read. Nothing was changed on disk.
    #[error("game log {} is damaged at byte {offset}: {reason}", .path.display())]
    Corrupt { path: PathBuf, offset: u64, reason: Box<Damage> },
    /// A segment number is missing between the first and the last, or before the first.
    #[error("game log segment {} is missing (segments {first}..={last} were expected with no gaps): its games would be lost", .path.display())]
    MissingSegment { path: PathBuf, first: u64, last: u64 },
    /// A file named like a segment that is not one this log writes.
    #[error("unexpected file {} in the game log folder: segments are named like {}; move it away", .path.display(), segment_name(1))]
    StrayFile { path: PathBuf },
    #[error("game log segment size must be at least 1 byte (got {0})")]
    BadSegmentSize(u64),
    /// The record would be refused when the log is read back, so it is not stored.
    #[error("game {id} cannot be stored: its encoding would not read back ({error})")]
    Unstorable { id: String, error: RecordError },
    /// A failed write could not be undone; the log refuses appends until it is reopened.
    #[error("game log {} is unusable after a failed write that could not be undone ({reason}); reopen it", .path.display())]
    Poisoned { path: PathBuf, reason: Arc<Poison> },
}

/// What is damaged in a segment ([`LogError::Corrupt`]).
#[derive(Debug, thiserror::Error)]
pub enum Damage {
    #[error("not a game log segment: bad magic bytes {seen:02x?} (expected {SEGMENT_MAGIC:02x?})")]
    Magic { seen: Vec<u8> },
    #[error("the segment header is truncated ({length} of {SEGMENT_HEADER_LEN} bytes)")]
    TruncatedHeader { length: usize },
    #[error("unsupported segment format version {0} (this build reads version {SEGMENT_VERSION})")]
    Version(u8),
    #[error("{0} (in a segment that is not the last, so not a torn write)")]
    NotLast(RecordError),
    #[error("{error}; a readable record follows at byte {next}, so this is damage, not a torn write")]
    ReadableAfter { error: RecordError, next: usize },
    #[error("a segment that is not the last holds no records (was it truncated?)")]
    EmptyBeforeLast,
}

/// Why a game log refuses appends: a write failed (`cause`), and cutting the segment back to
/// its last durable record (`length` bytes) failed too. Shared by every refusal that follows.
#[derive(Debug, thiserror::Error)]
#[error("{cause}; then cannot truncate back to {length} bytes: {error}")]
pub struct Poison {
    pub cause: LogError,
    pub length: u64,
    pub error: io::Error,
}

fn io_err(op: &'static str, path: &Path, error: io::Error) -> LogError {
    LogError::Io { op, path: path.to_path_buf(), error }
}

/// A failure injected into the next write (tests only), to check that a failed write
/// leaves the log as it was.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
enum Fault {
    /// Half the bytes are written, then the write fails.
    Write,
    /// All bytes are written, then the fsync fails.
    Sync,
    /// The write fails, and so does undoing it.
    WriteAndRollback,
}

/// The durable, segmented, append-only game log. See the module docs.
#[derive(Debug)]
pub struct GameLog {
    dir: PathBuf,
    segment_bytes: u64,
    /// Number of the last segment (the one appends go to).
    segment: u64,
    segment_path: PathBuf,
    /// The last segment, opened for appending.
    file: File,
    /// Length of the last segment up to its last durable record.
    segment_len: u64,
    ids: HashSet<[u8; 16]>,
    positions: u64,
    syncs: u64,
    recovery: Option<Recovery>,
    duplicates_read: usize,
    poisoned: Option<Arc<Poison>>,
    /// Reused encoding buffer.
    buf: Vec<u8>,
    #[cfg(test)]
    fault: Option<Fault>,
}

impl GameLog {
    /// Opens the log in `dir` (created if needed), reading every segment in order. Returns
    /// the log and every stored record, oldest first (for rebuilding the replay buffer).
    ///
    /// A torn tail of the last segment is truncated and reported by
    /// [`GameLog::recovery`]; any other damage is an error naming the file and byte, and
    /// then nothing on disk has been changed. A game id stored twice (which appends never
    /// do) is returned once, the first copy.
    pub fn open(dir: &Path, segment_bytes: u64) -> Result<(GameLog, Vec<GameRecord>), LogError> {
        if segment_bytes == 0 {
            return Err(LogError::BadSegmentSize(segment_bytes));
        }
        fs::create_dir_all(dir).map_err(|e| io_err("create the game log folder", dir, e))?;
        let numbers = list_segments(dir)?;
        // Read everything before repairing anything, so an error leaves the files as found.
        let Stored { ids, records, positions, duplicates_read, last_len, repair } = read_segments(dir, &numbers)?;
        let mut recovery = None;
        let (segment, segment_path, file) = match numbers.last() {
            None => {
                let path = create_segment(dir, 1)?;
                let file = open_append(&path)?;
                (1, path, file)
            }
            Some(&number) => {
                let path = dir.join(segment_name(number));
                let file = open_append(&path)?;
                if let Some((seg, len, reason)) = repair {
                    repair_tail(&file, &seg, last_len, len)?;
                    recovery = Some(Recovery {
                        segment: seg,
                        offset: if len < SEGMENT_HEADER_LEN { 0 } else { last_len },
                        truncated_bytes: if len < SEGMENT_HEADER_LEN { len } else { len - last_len },
                        reason,
                    });
                }
                // A previous run may have died between writing and fsyncing its last
                // records; they are acked as duplicates from now on, so make them durable.
                file.sync_all().map_err(|e| io_err("sync", &path, e))?;
                (number, path, file)
            }
        };

        let log = GameLog {
            dir: dir.to_path_buf(),
            segment_bytes,
            segment,
            segment_path,
            file,
            segment_len: last_len,
            ids,
            positions,
            syncs: 0,
            recovery,
            duplicates_read,
            poisoned: None,
            buf: Vec::new(),
            #[cfg(test)]
            fault: None,
        };
        Ok((log, records))
    }

    /// Stores `record` durably (fsynced before this returns [`Appended::Stored`]), or
    /// reports [`Appended::Duplicate`] when its game id is already stored.
    pub fn append(&mut self, record: &GameRecord) -> Result<Appended, LogError> {
        let mut result = self.append_batch(std::slice::from_ref(record))?;
        Ok(result.pop().unwrap_or(Appended::Duplicate))
    }

    /// Stores several records with one write and one fsync (group commit), returning what
    /// happened to each, in order. A repeated id within the batch is a duplicate of its
    /// first occurrence. On error nothing of the batch is stored.
    pub fn append_batch(&mut self, records: &[GameRecord]) -> Result<Vec<Appended>, LogError> {
        if let Some(reason) = &self.poisoned {
            return Err(LogError::Poisoned { path: self.segment_path.clone(), reason: Arc::clone(reason) });
        }
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let result = self.encode_batch(records, &mut buf).and_then(|(results, new)| {
            if !buf.is_empty() {
                self.commit(&buf, new)?;
            }
            Ok(results)
        });
        self.buf = buf;
        result
    }

    /// Encodes the records not stored yet into `buf`; returns the per-record results and
    /// the new records' ids and positions.
    #[allow(clippy::type_complexity)]
    fn encode_batch(
        &self,
        records: &[GameRecord],
        buf: &mut Vec<u8>,
    ) -> Result<(Vec<Appended>, Vec<([u8; 16], u64)>), LogError> {
        let mut results = Vec::with_capacity(records.len());
        let mut new: Vec<([u8; 16], u64)> = Vec::new();
        let mut batch_ids = HashSet::new();
        for r in records {
            if self.ids.contains(&r.game_id) || !batch_ids.insert(r.game_id) {
                results.push(Appended::Duplicate);
                continue;
            }
            let start = buf.len();
            r.encode_into(buf);
            // A record that does not decode (over the codec's limits) would make the log
            // unreadable at the next start: refuse it now rather than store it.
            if let Err(error) = GameRecord::decode(&buf[start..]) {
                return Err(LogError::Unstorable { id: r.id_hex(), error });
            }
            new.push((r.game_id, r.player_moves() as u64));
            results.push(Appended::Stored);
        }
        Ok((results, new))
    }

    /// Writes `bytes` (whole records) to the last segment and fsyncs, rolling over to a
    /// new segment first when the last one is full; on failure undoes the write.
    fn commit(&mut self, bytes: &[u8], new: Vec<([u8; 16], u64)>) -> Result<(), LogError> {
        // Roll over before, not during, a batch so that one batch is one write and one
        // fsync; a segment can exceed the size by one batch.
        if self.segment_len >= self.segment_bytes && self.segment_len > SEGMENT_HEADER_LEN {
            self.roll_over()?;
        }
        if let Err(e) = self.write_and_sync(bytes) {
            return Err(self.roll_back(e));
        }
        self.segment_len += bytes.len() as u64;
        for (id, moves) in new {
            self.ids.insert(id);
            self.positions += moves;
        }
        Ok(())
    }

    fn write_and_sync(&mut self, bytes: &[u8]) -> Result<(), LogError> {
        let path = &self.segment_path;
        #[cfg(test)]
        if let Some(fault) = self.fault {
            let injected = || io::Error::other("injected failure");
            match fault {
                Fault::Write | Fault::WriteAndRollback => {
                    self.file.write_all(&bytes[..bytes.len() / 2]).map_err(|e| io_err("write to", path, e))?;
                    return Err(io_err("write to", path, injected()));
                }
                Fault::Sync => {
                    self.file.write_all(bytes).map_err(|e| io_err("write to", path, e))?;
                    self.syncs += 1;
                    return Err(io_err("sync", path, injected()));
                }
            }
        }
        self.file.write_all(bytes).map_err(|e| io_err("write to", path, e))?;
        self.syncs += 1;
        self.file.sync_data().map_err(|e| io_err("sync", path, e))
    }

    /// Cuts the last segment back to its last durable record after a failed write, so the
    /// next append does not follow a partial record. If that fails too, the log refuses
    /// appends until reopened (and [`GameLog::open`] then treats the partial write as a
    /// torn tail), and this write's error is that refusal, which names `cause`.
    fn roll_back(&mut self, cause: LogError) -> LogError {
        #[cfg(test)]
        let fail = matches!(self.fault.take(), Some(Fault::WriteAndRollback));
        #[cfg(not(test))]
        let fail = false;
        let undone = if fail {
            Err(io::Error::other("injected failure"))
        } else {
            self.file.set_len(self.segment_len).and_then(|()| self.file.sync_all())
        };
        match undone {
            Ok(()) => cause,
            Err(error) => {
                let poison = Arc::new(Poison { cause, length: self.segment_len, error });
                self.poisoned = Some(poison.clone());
                LogError::Poisoned { path: self.segment_path.clone(), reason: poison }
            }
        }
    }

    /// Starts segment `self.segment + 1`. On failure the log stays on the current one.
    fn roll_over(&mut self) -> Result<(), LogError> {
        let next = self.segment + 1;
        let path = create_segment(&self.dir, next)?;
        self.file = open_append(&path)?;
        self.segment = next;
        self.segment_path = path;
        self.segment_len = SEGMENT_HEADER_LEN;
        Ok(())
    }

    /// Whether a failed write could not be undone, so appends are refused until
    /// [`GameLog::reopen`].
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.is_some()
    }

    /// Reads the log from disk again, as [`GameLog::open`] does (cutting off what a failed
    /// write left after the last durable record): how a log poisoned by a failed write
    /// becomes usable once its disk is. On error `self` is left as it was.
    pub fn reopen(&mut self) -> Result<(), LogError> {
        let (log, _records) = GameLog::open(&self.dir, self.segment_bytes)?;
        let syncs = self.syncs;
        *self = log;
        self.syncs = syncs;
        Ok(())
    }

    /// Whether the log's folder takes `bytes` bytes and an fsync now: a scratch file is
    /// written, synced and removed, and the segments are not touched. A learner whose disk
    /// was full or read-only learns this way, without risking a log append, that it can
    /// store games again.
    pub fn probe(&self, bytes: usize) -> Result<(), LogError> {
        let path = self.dir.join(format!(".storage-probe.tmp{}", std::process::id()));
        let result = (|| {
            let mut f = File::create(&path)?;
            f.write_all(&vec![0u8; bytes])?;
            f.sync_all()
        })();
        let _ = fs::remove_file(&path);
        result.map_err(|e| io_err("write a test file to", &path, e))
    }

    /// Makes every write fail from now on, and undoing it too when `poison` (tests of the
    /// callers' error handling).
    #[cfg(test)]
    pub(crate) fn fail_writes(&mut self, poison: bool) {
        self.fault = Some(if poison { Fault::WriteAndRollback } else { Fault::Write });
    }

    /// Whether a game with this id is stored.
    pub fn contains(&self, id: &[u8; 16]) -> bool {
        self.ids.contains(id)
    }

    /// Number of stored games.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Number of stored positions (player moves over all stored games).
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// Number of segment files.
    pub fn segments(&self) -> usize {
        self.segment as usize
    }

    /// The log's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Fsyncs issued for appended records since opening: one per append or batch that
    /// stored anything (segment creation and recovery syncs are not counted).
    pub fn syncs(&self) -> u64 {
        self.syncs
    }

    /// The torn tail [`GameLog::open`] truncated, if any.
    pub fn recovery(&self) -> Option<&Recovery> {
        self.recovery.as_ref()
    }

    /// Records found on open whose id was already stored earlier in the log (skipped).
    pub fn duplicates_read(&self) -> usize {
        self.duplicates_read
    }
}

/// The segment numbers in `dir`, in order, checked to run from 1 with no gaps.
fn list_segments(dir: &Path) -> Result<Vec<u64>, LogError> {
    let entries = fs::read_dir(dir).map_err(|e| io_err("list", dir, e))?;
    let mut numbers = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io_err("list", dir, e))?;
        let name = entry.file_name();
        // Our names are ASCII; temporary files start with '.'; anything else is not ours.
        let Some(name) = name.to_str() else { continue };
        let Some(middle) = name.strip_prefix(SEGMENT_PREFIX).and_then(|n| n.strip_suffix(SEGMENT_SUFFIX)) else {
            continue;
        };
        let path = entry.path();
        let number = middle.parse::<u64>().ok().filter(|&n| n >= 1 && segment_name(n) == name);
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        match number {
            Some(n) if is_file => numbers.push(n),
            _ => return Err(LogError::StrayFile { path }),
        }
    }
    numbers.sort_unstable();
    let last = numbers.last().copied().unwrap_or(0);
    for (i, &n) in numbers.iter().enumerate() {
        let expected = i as u64 + 1;
        if n != expected {
            return Err(LogError::MissingSegment { path: dir.join(segment_name(expected)), first: 1, last });
        }
    }
    Ok(numbers)
}

struct Scan {
    records: Vec<GameRecord>,
    /// Length up to the end of the last good record (or the header).
    good_len: u64,
    /// Why the bytes after `good_len` are unreadable, when they are a torn tail.
    torn: Option<String>,
}

/// What the segments hold, read before anything is repaired.
struct Stored {
    /// The stored game ids, each once.
    ids: HashSet<[u8; 16]>,
    /// The records, oldest first, a game id stored twice kept once (the first copy).
    records: Vec<GameRecord>,
    /// The records' player moves.
    positions: u64,
    /// Records whose game id was stored before them.
    duplicates_read: usize,
    /// The last segment's length up to its last good record.
    last_len: u64,
    /// The last segment's torn tail to cut: (its path, its length, why it is unreadable).
    repair: Option<(PathBuf, u64, String)>,
}

/// Reads the segments `numbers` in `dir`, in order; only the last may end torn.
fn read_segments(dir: &Path, numbers: &[u64]) -> Result<Stored, LogError> {
    let mut stored = Stored {
        ids: HashSet::new(),
        records: Vec::new(),
        positions: 0,
        duplicates_read: 0,
        last_len: SEGMENT_HEADER_LEN,
        repair: None,
    };
    for (i, &number) in numbers.iter().enumerate() {
        let path = dir.join(segment_name(number));
        let last = i + 1 == numbers.len();
        let bytes = fs::read(&path).map_err(|e| io_err("read", &path, e))?;
        let scan = scan_segment(&path, &bytes, last)?;
        for r in scan.records {
            if stored.ids.insert(r.game_id) {
                stored.positions += r.player_moves() as u64;
                stored.records.push(r);
            } else {
                stored.duplicates_read += 1;
            }
        }
        if last {
            stored.last_len = scan.good_len;
            if let Some(reason) = scan.torn {
                stored.repair = Some((path, bytes.len() as u64, reason));
            }
        }
    }
    Ok(stored)
}

/// Reads one segment's records. In the last segment unreadable bytes after the last good
/// record with no readable record after them are a torn tail; all other damage is an error.
fn scan_segment(path: &Path, bytes: &[u8], last: bool) -> Result<Scan, LogError> {
    let corrupt = |offset: usize, reason: Damage| LogError::Corrupt {
        path: path.to_path_buf(),
        offset: offset as u64,
        reason: Box::new(reason),
    };
    let h = header();
    let hl = h.len();
    let seen = bytes.len().min(hl);
    if last && bytes.len() < hl && bytes[..] == h[..seen] {
        // A crash while creating the segment, before its rename was durable.
        return Ok(Scan {
            records: Vec::new(),
            good_len: SEGMENT_HEADER_LEN,
            torn: Some(format!("the segment header is torn ({} of {hl} bytes)", bytes.len())),
        });
    }
    let magic_seen = bytes.len().min(SEGMENT_MAGIC.len());
    if bytes[..magic_seen] != SEGMENT_MAGIC[..magic_seen] {
        return Err(corrupt(0, Damage::Magic { seen: bytes[..magic_seen].to_vec() }));
    }
    if bytes.len() < hl {
        return Err(corrupt(0, Damage::TruncatedHeader { length: bytes.len() }));
    }
    let version = bytes[SEGMENT_MAGIC.len()];
    if version != SEGMENT_VERSION {
        return Err(corrupt(SEGMENT_MAGIC.len(), Damage::Version(version)));
    }
    let mut records = Vec::new();
    let mut offset = hl;
    while offset < bytes.len() {
        match GameRecord::decode_prefix(&bytes[offset..]) {
            Ok((record, used)) => {
                records.push(record);
                offset += used;
            }
            Err(e) => {
                if !last {
                    return Err(corrupt(offset, Damage::NotLast(e)));
                }
                if let Some(next) = next_readable_record(bytes, offset + 1) {
                    return Err(corrupt(offset, Damage::ReadableAfter { error: e, next }));
                }
                return Ok(Scan { records, good_len: offset as u64, torn: Some(e.to_string()) });
            }
        }
    }
    // The writer only rolls over from a segment holding a record, so an empty segment
    // before the last is one whose records were cut off.
    if !last && records.is_empty() {
        return Err(corrupt(offset, Damage::EmptyBeforeLast));
    }
    Ok(Scan { records, good_len: offset as u64, torn: None })
}

/// The offset of the first record at or after `from` that decodes.
fn next_readable_record(bytes: &[u8], from: usize) -> Option<usize> {
    let m = RECORD_MAGIC.len();
    (from..bytes.len().saturating_sub(m - 1))
        .filter(|&p| bytes[p..p + m] == RECORD_MAGIC)
        .find(|&p| GameRecord::decode_prefix(&bytes[p..]).is_ok())
}

/// Truncates the last segment to `good_len` (or rewrites a torn header) and fsyncs.
fn repair_tail(file: &File, path: &Path, good_len: u64, len: u64) -> Result<(), LogError> {
    if len < SEGMENT_HEADER_LEN {
        file.set_len(0).map_err(|e| io_err("truncate", path, e))?;
        (&*file).write_all(&header()).map_err(|e| io_err("write a segment header to", path, e))?;
    } else {
        file.set_len(good_len).map_err(|e| io_err("truncate", path, e))?;
    }
    file.sync_all().map_err(|e| io_err("sync", path, e))
}

fn open_append(path: &Path) -> Result<File, LogError> {
    OpenOptions::new().append(true).open(path).map_err(|e| io_err("open", path, e))
}

/// Creates segment `number` whole: header in a temporary file, fsynced, renamed into
/// place, folder fsynced. Never replaces an existing segment.
fn create_segment(dir: &Path, number: u64) -> Result<PathBuf, LogError> {
    let name = segment_name(number);
    let path = dir.join(&name);
    if path.exists() {
        return Err(io_err(
            "create",
            &path,
            io::Error::new(io::ErrorKind::AlreadyExists, "the segment already exists and is never overwritten"),
        ));
    }
    let tmp = dir.join(format!(".{name}.tmp"));
    let written = (|| {
        let mut f = File::create(&tmp).map_err(|e| io_err("create", &tmp, e))?;
        f.write_all(&header()).map_err(|e| io_err("write to", &tmp, e))?;
        f.sync_all().map_err(|e| io_err("sync", &tmp, e))?;
        fs::rename(&tmp, &path).map_err(|e| io_err("rename the temporary segment to", &path, e))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written?;
    // The new name is durable only once the folder is.
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| io_err("sync the folder", dir, e))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_base::rng::Rng;
    use dojo_game::connect4::Connect4;
    use dojo_game::{Game, GameSpec};
    use dojo_record::{new_game_id, MoveRecord};
    use rand::{seq::IndexedRandom, Rng as _, RngExt, SeedableRng};

    /// A random legal Connect Four game as a record.
    fn random_game(rng: &mut Rng) -> GameRecord {
        let mut g = Connect4::<u64>::standard();
        let mut r = GameRecord::new(new_game_id(rng), GameSpec::connect4(), 3);
        let mut legal = Vec::new();
        while g.outcome().is_none() {
            g.legal_actions(&mut legal);
            let a = *legal.choose(rng).expect("a non-empty list");
            r.moves.push(MoveRecord::player(a, vec![(a, 1.0)], 0.0));
            g.play(a).unwrap();
        }
        r.outcome = g.outcome().unwrap().into();
        r.validate().unwrap();
        r
    }

    fn games(seed: u64, n: usize) -> Vec<GameRecord> {
        let mut rng = Rng::seed_from_u64(seed);
        (0..n).map(|_| random_game(&mut rng)).collect()
    }

    fn seg(dir: &Path, n: u64) -> PathBuf {
        dir.join(segment_name(n))
    }

    /// Every file in `dir` with its bytes, sorted by name.
    fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (e.file_name().into_string().unwrap(), fs::read(e.path()).unwrap())
            })
            .collect();
        v.sort();
        v
    }

    fn restore(dir: &Path, files: &[(String, Vec<u8>)]) {
        for e in fs::read_dir(dir).unwrap() {
            fs::remove_file(e.unwrap().path()).unwrap();
        }
        for (name, bytes) in files {
            fs::write(dir.join(name), bytes).unwrap();
        }
    }

    fn positions(records: &[GameRecord]) -> u64 {
        records.iter().map(|r| r.player_moves() as u64).sum()
    }

    #[test]
    fn append_and_reopen_round_trip() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("games");
        let gs = games(1, 12);
        {
            let (mut log, stored) = GameLog::open(&dir, DEFAULT_SEGMENT_BYTES).unwrap();
            assert!(stored.is_empty());
            assert_eq!((log.len(), log.segments(), log.positions()), (0, 1, 0));
            for g in &gs[..5] {
                assert_eq!(log.append(g).unwrap(), Appended::Stored);
            }
            assert_eq!(log.append_batch(&gs[5..]).unwrap(), vec![Appended::Stored; 7]);
            assert_eq!(log.len(), 12);
            assert_eq!(log.positions(), positions(&gs));
            assert!(gs.iter().all(|g| log.contains(&g.game_id)));
            assert!(!log.contains(&[0; 16]));
        }
        let (log, stored) = GameLog::open(&dir, DEFAULT_SEGMENT_BYTES).unwrap();
        assert_eq!(stored, gs);
        assert_eq!((log.len(), log.segments(), log.positions()), (12, 1, positions(&gs)));
        assert!(log.recovery().is_none());
        assert!(gs.iter().all(|g| log.contains(&g.game_id)));
        let bytes = fs::read(seg(&dir, 1)).unwrap();
        assert_eq!(&bytes[..8], b"DOJOLOG\x01");
        let encoded: usize = gs.iter().map(|g| g.encode().len()).sum();
        assert_eq!(bytes.len(), 8 + encoded);
    }

    #[test]
    fn duplicates_are_reported_and_stored_once_also_across_reopen() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let gs = games(2, 4);
        let (a, b, c, d) = (&gs[0], &gs[1], &gs[2], &gs[3]);
        let (mut log, _) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
        assert_eq!(log.append(a).unwrap(), Appended::Stored);
        let size = fs::metadata(seg(dir, 1)).unwrap().len();
        // Same id, different contents: still the stored game that counts.
        let mut a2 = b.clone();
        a2.game_id = a.game_id;
        assert_eq!(log.append(a).unwrap(), Appended::Duplicate);
        assert_eq!(log.append(&a2).unwrap(), Appended::Duplicate);
        assert_eq!(fs::metadata(seg(dir, 1)).unwrap().len(), size);
        assert_eq!(log.syncs(), 1, "a duplicate needs no write and no fsync");
        let got = log.append_batch(&[b.clone(), a.clone(), b.clone(), c.clone()]).unwrap();
        use Appended::{Duplicate, Stored};
        assert_eq!(got, vec![Stored, Duplicate, Duplicate, Stored]);
        assert_eq!(log.len(), 3);
        assert_eq!(log.positions(), positions(&gs[..3]));
        drop(log);

        let (mut log, stored) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
        assert_eq!(stored, vec![a.clone(), b.clone(), c.clone()]);
        assert_eq!(log.append(b).unwrap(), Duplicate);
        assert_eq!(log.append_batch(&[c.clone(), d.clone(), d.clone()]).unwrap(), vec![Duplicate, Stored, Duplicate]);
        drop(log);
        let (log, stored) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
        assert_eq!(stored, gs);
        assert_eq!(log.len(), 4);
    }

    #[test]
    fn a_duplicate_inside_the_log_is_read_once_keeping_the_first() {
        let tmp = tempfile::tempdir().unwrap();
        let gs = games(3, 2);
        let mut second = gs[1].clone();
        second.game_id = gs[0].game_id;
        let mut bytes = header().to_vec();
        for r in [&gs[0], &second, &gs[1]] {
            bytes.extend(r.encode());
        }
        fs::write(seg(tmp.path(), 1), &bytes).unwrap();
        let (log, stored) = GameLog::open(tmp.path(), DEFAULT_SEGMENT_BYTES).unwrap();
        assert_eq!(stored, gs);
        assert_eq!(log.len(), 2);
        assert_eq!(log.duplicates_read(), 1);
        assert_eq!(log.positions(), positions(&gs));
        assert!(log.recovery().is_none());
    }

    #[test]
    fn rollover_creates_segments_and_reopen_reads_them_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let gs = games(4, 40);
        let limit = 500;
        let (mut log, _) = GameLog::open(dir, limit).unwrap();
        for g in &gs[..30] {
            log.append(g).unwrap();
        }
        for chunk in gs[30..].chunks(3) {
            log.append_batch(chunk).unwrap();
        }
        let n = log.segments();
        assert!(n >= 5, "only {n} segments");
        // Every segment but the last was filled to the limit by at most one write past it.
        let mut names: Vec<String> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        let expected: Vec<String> = (1..=n as u64).map(segment_name).collect();
        assert_eq!(names, expected, "no temporary files are left");
        for i in 1..n as u64 {
            let len = fs::metadata(seg(dir, i)).unwrap().len();
            assert!(len >= limit, "segment {i} rolled over early at {len} bytes");
        }
        drop(log);
        let (log, stored) = GameLog::open(dir, limit).unwrap();
        assert_eq!(stored, gs);
        assert_eq!(log.segments(), n);
        // Reopened with a larger size, appends continue in the last segment.
        drop(log);
        let (mut log, _) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
        let more = games(5, 2);
        log.append_batch(&more).unwrap();
        assert_eq!(log.segments(), n);
        drop(log);
        let (_, stored) = GameLog::open(dir, limit).unwrap();
        assert_eq!(stored.len(), 42);
        assert_eq!(&stored[40..], &more[..]);
    }

    #[test]
    fn a_torn_tail_at_every_length_is_truncated_and_appends_continue() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let gs = games(6, 4);
        // Two segments: the torn record is in the second.
        let first_len = SEGMENT_HEADER_LEN + gs[0].encode().len() as u64;
        {
            let (mut log, _) = GameLog::open(dir, first_len).unwrap();
            log.append(&gs[0]).unwrap();
            log.append_batch(&gs[1..]).unwrap();
            assert_eq!(log.segments(), 2);
        }
        let files = snapshot(dir);
        let full = files[1].1.len() as u64;
        let last_len = gs[3].encode().len() as u64;
        for keep in 1..last_len {
            restore(dir, &files);
            let cut = full - last_len + keep;
            OpenOptions::new().write(true).open(seg(dir, 2)).unwrap().set_len(cut).unwrap();
            // Reopened with room, so the re-append goes back into segment 2.
            let (mut log, stored) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
            assert_eq!(stored, gs[..3], "kept {keep} bytes of the last record");
            let rec = log.recovery().expect("recovery reported");
            assert_eq!(rec.segment, seg(dir, 2));
            assert_eq!(rec.offset, full - last_len);
            assert_eq!(rec.truncated_bytes, keep);
            assert_eq!(fs::metadata(seg(dir, 2)).unwrap().len(), full - last_len);
            assert_eq!(log.append(&gs[3]).unwrap(), Appended::Stored);
            drop(log);
            let (log, stored) = GameLog::open(dir, first_len).unwrap();
            assert_eq!(stored, gs);
            assert!(log.recovery().is_none());
            assert_eq!(fs::read(seg(dir, 2)).unwrap(), files[1].1);
        }
    }

    #[test]
    fn garbage_after_the_last_record_is_truncated() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let gs = games(7, 3);
        {
            let (mut log, _) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
            log.append_batch(&gs[..2]).unwrap();
        }
        let files = snapshot(dir);
        let good = files[0].1.len() as u64;
        let mut rng = Rng::seed_from_u64(8);
        let mut bad_crc = gs[2].encode();
        let n = bad_crc.len();
        bad_crc[n - 1] ^= 0xff;
        let garbage: Vec<Vec<u8>> = vec![
            vec![0; 4096],
            (0..1000).map(|_| rng.next_u64() as u8).collect(),
            b"DJGR".to_vec(),
            b"DJGR\x01\xff\xff\xff\xff".to_vec(),
            bad_crc,
            b"DOJOLOG\x01".to_vec(),
        ];
        for tail in &garbage {
            restore(dir, &files);
            let mut bytes = files[0].1.clone();
            bytes.extend(tail);
            fs::write(seg(dir, 1), &bytes).unwrap();
            let (mut log, stored) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
            assert_eq!(stored, gs[..2]);
            let rec = log.recovery().unwrap();
            assert_eq!((rec.offset, rec.truncated_bytes), (good, tail.len() as u64));
            assert_eq!(log.append(&gs[2]).unwrap(), Appended::Stored);
            drop(log);
            let (_, stored) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
            assert_eq!(stored, gs);
        }
    }

    #[test]
    fn a_torn_segment_header_is_rewritten() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let gs = games(9, 2);
        {
            let (mut log, _) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
            log.append(&gs[0]).unwrap();
        }
        for partial in [0usize, 3, 7] {
            fs::write(seg(dir, 2), &header()[..partial]).unwrap();
            let (mut log, stored) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
            assert_eq!(stored, gs[..1]);
            let rec = log.recovery().unwrap();
            assert_eq!((rec.segment.clone(), rec.offset, rec.truncated_bytes), (seg(dir, 2), 0, partial as u64));
            assert_eq!(log.segments(), 2);
            assert_eq!(fs::read(seg(dir, 2)).unwrap(), header());
            // Appends go to the repaired segment.
            assert_eq!(log.append(&gs[1]).unwrap(), Appended::Stored);
            assert_eq!(fs::read(seg(dir, 2)).unwrap().len(), 8 + gs[1].encode().len());
            drop(log);
            let (_, stored) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
            assert_eq!(stored, gs);
            fs::remove_file(seg(dir, 2)).unwrap();
        }
        // A torn header in a segment that is not the last is damage.
        fs::write(seg(dir, 2), &header()[..5]).unwrap();
        fs::write(seg(dir, 3), header()).unwrap();
        let err = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap_err();
        assert!(matches!(&err, LogError::Corrupt { path, offset: 0, .. } if *path == seg(dir, 2)), "{err}");
        assert_eq!(fs::read(seg(dir, 2)).unwrap(), &header()[..5]);
    }

    #[test]
    fn damage_in_a_segment_that_is_not_the_last_is_an_error_and_changes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let gs = games(10, 12);
        let (mut log, _) = GameLog::open(dir, 600).unwrap();
        for g in &gs {
            log.append(g).unwrap();
        }
        assert!(log.segments() >= 3);
        drop(log);
        // Find the second record of segment 1 and flip a byte in its body.
        let bytes = fs::read(seg(dir, 1)).unwrap();
        let (_, used) = GameRecord::decode_prefix(&bytes[8..]).unwrap();
        let second = 8 + used;
        assert!(second < bytes.len());
        let mut damaged = bytes.clone();
        damaged[second + 20] ^= 0x55;
        fs::write(seg(dir, 1), &damaged).unwrap();
        let before = snapshot(dir);

        let err = GameLog::open(dir, 600).unwrap_err();
        match &err {
            LogError::Corrupt { path, offset, .. } => {
                assert_eq!(*path, seg(dir, 1));
                assert_eq!(*offset, second as u64);
            }
            other => panic!("expected Corrupt, got {other:?}"),
        }
        let msg = err.to_string();
        assert!(msg.contains("segment-000001.dlog") && msg.contains(&format!("byte {second}")), "{msg}");
        assert!(msg.contains("checksum"), "{msg}");
        assert_eq!(snapshot(dir), before, "nothing on disk changed");
    }

    #[test]
    fn damage_followed_by_a_readable_record_in_the_last_segment_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let gs = games(11, 4);
        {
            let (mut log, _) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
            log.append_batch(&gs).unwrap();
        }
        let mut bytes = fs::read(seg(dir, 1)).unwrap();
        let at = 8 + gs[0].encode().len();
        bytes[at + 12] ^= 1;
        fs::write(seg(dir, 1), &bytes).unwrap();
        let before = snapshot(dir);
        let err = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap_err();
        assert!(matches!(&err, LogError::Corrupt { offset, .. } if *offset == at as u64), "{err}");
        let next = at + gs[1].encode().len();
        assert!(err.to_string().contains(&format!("a readable record follows at byte {next}")), "{err}");
        assert_eq!(snapshot(dir), before);
    }

    #[test]
    fn bad_headers_missing_segments_and_stray_files_are_errors() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let gs = games(12, 3);
        let (mut log, _) = GameLog::open(dir, 10).unwrap();
        for g in &gs {
            log.append(g).unwrap();
        }
        assert_eq!(log.segments(), 3);
        drop(log);
        let files = snapshot(dir);

        let mut b = files[0].1.clone();
        b[0] = b'X';
        fs::write(seg(dir, 1), &b).unwrap();
        let err = GameLog::open(dir, 10).unwrap_err();
        assert!(matches!(&err, LogError::Corrupt { path, offset: 0, .. } if *path == seg(dir, 1)), "{err}");
        assert!(err.to_string().contains("bad magic"), "{err}");

        restore(dir, &files);
        let mut b = files[2].1.clone();
        b[7] = 9;
        fs::write(seg(dir, 3), &b).unwrap();
        let err = GameLog::open(dir, 10).unwrap_err();
        assert!(matches!(&err, LogError::Corrupt { path, offset: 7, .. } if *path == seg(dir, 3)), "{err}");
        assert!(err.to_string().contains("version 9"), "{err}");

        restore(dir, &files);
        fs::remove_file(seg(dir, 2)).unwrap();
        let err = GameLog::open(dir, 10).unwrap_err();
        assert!(matches!(&err, LogError::MissingSegment { path, .. } if *path == seg(dir, 2)), "{err}");
        restore(dir, &files);
        fs::remove_file(seg(dir, 1)).unwrap();
        let err = GameLog::open(dir, 10).unwrap_err();
        assert!(matches!(&err, LogError::MissingSegment { path, .. } if *path == seg(dir, 1)), "{err}");

        // A segment before the last with only its header lost its records.
        restore(dir, &files);
        fs::write(seg(dir, 2), header()).unwrap();
        let err = GameLog::open(dir, 10).unwrap_err();
        assert!(matches!(&err, LogError::Corrupt { path, offset: 8, .. } if *path == seg(dir, 2)), "{err}");

        restore(dir, &files);
        fs::write(dir.join("segment-4.dlog"), b"").unwrap();
        let err = GameLog::open(dir, 10).unwrap_err();
        assert!(matches!(&err, LogError::StrayFile { .. }), "{err}");
        assert!(err.to_string().contains("segment-4.dlog"), "{err}");

        // Other files (and leftover temporary segments) are not the log's business.
        restore(dir, &files);
        fs::write(dir.join("README"), b"hello").unwrap();
        fs::write(dir.join(".segment-000004.dlog.tmp"), b"DOJO").unwrap();
        let (_, stored) = GameLog::open(dir, 10).unwrap();
        assert_eq!(stored, gs);

        assert!(matches!(GameLog::open(dir, 0), Err(LogError::BadSegmentSize(0))));
    }

    #[test]
    fn a_batch_is_one_fsync() {
        let tmp = tempfile::tempdir().unwrap();
        let gs = games(13, 20);
        let (mut log, _) = GameLog::open(tmp.path(), 2000).unwrap();
        assert_eq!(log.syncs(), 0);
        log.append_batch(&gs[..8]).unwrap();
        assert_eq!(log.syncs(), 1);
        log.append_batch(&gs[8..16]).unwrap();
        assert_eq!(log.syncs(), 2);
        log.append(&gs[16]).unwrap();
        assert_eq!(log.syncs(), 3);
        log.append_batch(&gs[..16]).unwrap();
        assert_eq!(log.syncs(), 3, "an all-duplicate batch writes nothing");
        log.append_batch(&gs[15..]).unwrap();
        assert_eq!(log.syncs(), 4);
        log.append_batch(&[]).unwrap();
        assert_eq!(log.syncs(), 4);
        assert_eq!(log.len(), 20);
        assert!(log.segments() >= 2, "the batches rolled over");
    }

    #[test]
    fn a_failed_write_leaves_the_log_as_it_was() {
        for fault in [Fault::Write, Fault::Sync] {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path();
            let gs = games(14, 5);
            let (mut log, _) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
            log.append_batch(&gs[..2]).unwrap();
            let before = snapshot(dir);
            log.fault = Some(fault);
            let err = log.append_batch(&gs[2..4]).unwrap_err();
            log.fault = None;
            assert!(err.to_string().contains("injected failure"), "{err}");
            assert_eq!(snapshot(dir), before, "{fault:?}: the partial write was truncated");
            assert_eq!(log.len(), 2);
            assert!(!log.contains(&gs[2].game_id));
            assert_eq!(log.positions(), positions(&gs[..2]));
            // The failed records can be submitted again.
            assert_eq!(log.append_batch(&gs[2..]).unwrap(), vec![Appended::Stored; 3]);
            drop(log);
            let (log, stored) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
            assert_eq!(stored, gs);
            assert!(log.recovery().is_none());
        }
    }

    #[test]
    fn a_write_that_cannot_be_undone_poisons_the_log_until_reopened() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let gs = games(15, 3);
        let (mut log, _) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
        log.append(&gs[0]).unwrap();
        log.fault = Some(Fault::WriteAndRollback);
        // The failed write says what failed and that the log is now unusable; so does every
        // append after it, until the log is reopened.
        let first = log.append(&gs[1]).unwrap_err();
        let err = log.append(&gs[2]).unwrap_err();
        for err in [&first, &err] {
            let LogError::Poisoned { reason, .. } = err else { panic!("{err}") };
            assert_eq!(reason.error.to_string(), "injected failure");
            assert!(err.to_string().contains("reopen") && err.to_string().contains("cannot truncate back"), "{err}");
        }
        assert!(!log.contains(&gs[1].game_id));
        drop(log);
        // The half-written record is a torn tail.
        let (mut log, stored) = GameLog::open(dir, DEFAULT_SEGMENT_BYTES).unwrap();
        assert_eq!(stored, gs[..1]);
        assert!(log.recovery().unwrap().truncated_bytes > 0);
        assert_eq!(log.append_batch(&gs[1..]).unwrap(), vec![Appended::Stored; 2]);
    }

    #[test]
    fn a_record_that_would_not_read_back_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let gs = games(16, 2);
        let (mut log, _) = GameLog::open(tmp.path(), DEFAULT_SEGMENT_BYTES).unwrap();
        let mut huge = gs[0].clone();
        huge.moves[0].policy = (0..=dojo_record::MAX_POLICY as u16).map(|a| (a, 0.0)).collect();
        let err = log.append_batch(&[gs[1].clone(), huge]).unwrap_err();
        assert!(matches!(err, LogError::Unstorable { .. }), "{err}");
        assert!(err.to_string().contains(&gs[0].id_hex()), "{err}");
        assert_eq!(log.len(), 0, "nothing of the batch was stored");
        assert_eq!(fs::metadata(seg(tmp.path(), 1)).unwrap().len(), SEGMENT_HEADER_LEN);
        assert_eq!(log.append(&gs[1]).unwrap(), Appended::Stored);
    }

    #[test]
    fn reading_garbage_never_panics() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let gs = games(17, 3);
        {
            let (mut log, _) = GameLog::open(dir, 10).unwrap();
            for g in &gs {
                log.append(g).unwrap();
            }
        }
        let files = snapshot(dir);
        let mut rng = Rng::seed_from_u64(18);
        for _ in 0..300 {
            restore(dir, &files);
            // Flip, cut or replace bytes in a random segment.
            let (name, mut bytes) = files.choose(&mut rng).expect("a non-empty list").clone();
            match rng.random_range(..3usize) {
                0 => {
                    for _ in 0..rng.random_range(1..=4) {
                        let i = rng.random_range(..bytes.len());
                        bytes[i] ^= 1 << rng.random_range(..8u32);
                    }
                }
                1 => bytes.truncate(rng.random_range(..bytes.len())),
                _ => bytes = (0..rng.random_range(..300usize)).map(|_| rng.next_u64() as u8).collect(),
            }
            fs::write(dir.join(&name), &bytes).unwrap();
            let last = name == files.last().unwrap().0;
            match GameLog::open(dir, 10) {
                // Damage to the last segment can only drop records from its end; what is
                // read is never a record that was not stored.
                Ok((_, stored)) if last => assert_eq!(stored, gs[..stored.len()]),
                Ok((_, stored)) => assert!(stored.iter().all(|r| gs.contains(r))),
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
    }
}
