//! Records files: a small header, then records back to back (`dojo selfplay --out`,
//! `dojo learn --records`).

use super::{GameRecord, RecordError};
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The first bytes of a records file; the byte after them is [`FILE_VERSION`].
pub const FILE_MAGIC: [u8; 7] = *b"DOJOREC";
pub const FILE_VERSION: u8 = 1;
const FILE_HEADER_LEN: usize = FILE_MAGIC.len() + 1;

fn io_err(op: &'static str, path: &Path, error: std::io::Error) -> RecordError {
    RecordError::Io { op, path: path.to_path_buf(), error }
}

/// Writes `records` to `path` atomically: a temporary file in the same folder, fsynced,
/// then renamed over `path`, so a reader sees the old file or the whole new one.
pub fn write_records(path: impl AsRef<Path>, records: &[GameRecord]) -> Result<(), RecordError> {
    let path = path.as_ref();
    let Some(name) = path.file_name() else {
        return Err(io_err("write", path, std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path")));
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = dir.join(format!(".{}.tmp-{}-{}", name.to_string_lossy(), std::process::id(), unique()));
    let result = write_tmp(&tmp, records)
        .and_then(|()| fs::rename(&tmp, path).map_err(|e| io_err("rename the temporary file to", path, e)));
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
        return result;
    }
    // The rename is durable only once the folder is; not every platform can sync one.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    COUNTER.fetch_add(1, Ordering::Relaxed)
}

fn write_tmp(tmp: &Path, records: &[GameRecord]) -> Result<(), RecordError> {
    let file = File::create(tmp).map_err(|e| io_err("create", tmp, e))?;
    let mut w = BufWriter::new(file);
    let mut buf = Vec::new();
    let werr = |e| io_err("write", tmp, e);
    w.write_all(&FILE_MAGIC).map_err(werr)?;
    w.write_all(&[FILE_VERSION]).map_err(werr)?;
    for r in records {
        buf.clear();
        r.encode_into(&mut buf);
        w.write_all(&buf).map_err(werr)?;
    }
    let file = w.into_inner().map_err(|e| werr(e.into_error()))?;
    file.sync_all().map_err(|e| io_err("sync", tmp, e))
}

/// Reads a file written by [`write_records`]. The error for a bad record names the file
/// and the byte offset where that record starts.
pub fn read_records(path: impl AsRef<Path>) -> Result<Vec<GameRecord>, RecordError> {
    let path = path.as_ref();
    let bytes = fs::read(path).map_err(|e| io_err("read", path, e))?;
    let at = |offset: usize, error: RecordError| RecordError::File {
        path: path.to_path_buf(),
        offset: offset as u64,
        error: Box::new(error),
    };
    let seen = bytes.len().min(FILE_MAGIC.len());
    if bytes[..seen] != FILE_MAGIC[..seen] {
        return Err(at(0, RecordError::BadMagic { found: bytes[..seen].to_vec(), expected: &FILE_MAGIC }));
    }
    if bytes.len() < FILE_HEADER_LEN {
        return Err(at(0, RecordError::Truncated { field: "file header", offset: bytes.len() }));
    }
    let version = bytes[FILE_MAGIC.len()];
    if version != FILE_VERSION {
        return Err(at(
            0,
            RecordError::UnsupportedVersion { what: "records file", found: version, supported: FILE_VERSION },
        ));
    }
    let mut records = Vec::new();
    let mut offset = FILE_HEADER_LEN;
    while offset < bytes.len() {
        let (r, used) = GameRecord::decode_prefix(&bytes[offset..]).map_err(|e| at(offset, e))?;
        records.push(r);
        offset += used;
    }
    Ok(records)
}
