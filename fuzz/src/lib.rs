//! Helpers shared by the fuzz targets (see `fuzz_targets/` and `scripts/fuzz`).

use std::path::PathBuf;

/// A fresh temporary folder, in memory (`/dev/shm`) where there is one: the game log and
/// checkpoint targets write files and fsync on every run, which tmpfs makes free.
pub fn scratch_dir() -> tempfile::TempDir {
    let shm = PathBuf::from("/dev/shm");
    let base = if shm.is_dir() { shm } else { std::env::temp_dir() };
    tempfile::Builder::new().prefix("dojo-fuzz-").tempdir_in(base).expect("a temporary folder")
}

/// `body` framed as a game record with a correct header and checksum, so that the fuzzer
/// reaches the body decoder instead of stopping at the CRC (`record/src/codec.rs`).
pub fn frame_record(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 13);
    out.extend_from_slice(&dojo_record::RECORD_MAGIC);
    out.push(dojo_record::RECORD_VERSION);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
    let crc = crc32(&out[4..]);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// CRC-32 (IEEE), as the record codec computes it.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Splits `data` at each occurrence of `sep` (at most `max` parts; the last takes the rest).
pub fn split<'a>(data: &'a [u8], sep: &[u8], max: usize) -> Vec<&'a [u8]> {
    let mut parts = Vec::new();
    let mut rest = data;
    while parts.len() + 1 < max {
        match rest.windows(sep.len()).position(|w| w == sep) {
            Some(i) => {
                parts.push(&rest[..i]);
                rest = &rest[i + sep.len()..];
            }
            None => break,
        }
    }
    parts.push(rest);
    parts
}
