//! TensorBoard event files: `Event` protobufs (TensorBoard's own definitions, compiled by
//! prost) in TFRecord framing, which TensorBoard and its readers (`EventAccumulator`,
//! `tf.data.TFRecordDataset`) read.
//!
//! A record is the data's length (u64, little-endian), the masked CRC-32C of those 8 bytes
//! (u32), the data, and the data's masked CRC-32C. A file starts with an `Event` naming the
//! format (`brain.Event:2`). Each writer opens a file of its own, named after the time, the
//! host, the process and a counter (`events.out.tfevents.SECONDS.HOST.PID.N`, as
//! TensorFlow's writers name them), so a restarted learner adds a new file and never
//! touches the old ones; TensorBoard reads a folder's files in name order as one stream.

use prost::Message;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

#[allow(clippy::all, missing_docs)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/tensorboard_x.rs"));
}

/// The first event of every file.
pub const FILE_VERSION: &str = "brain.Event:2";

/// TFRecord's checksum: CRC-32C, rotated and offset so that a CRC of data holding CRCs
/// stays well distributed.
pub fn masked_crc32c(bytes: &[u8]) -> u32 {
    let crc = crc32c::crc32c(bytes);
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// One TFRecord around `data`.
pub fn frame(data: &[u8]) -> Vec<u8> {
    let len = (data.len() as u64).to_le_bytes();
    let mut out = Vec::with_capacity(data.len() + 16);
    out.extend_from_slice(&len);
    out.extend_from_slice(&masked_crc32c(&len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&masked_crc32c(data).to_le_bytes());
    out
}

/// A damaged TFRecord: `record` counts from 0, `offset` is its first byte.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TfRecordError {
    #[error("record {record} at byte {offset}: the length's checksum does not match")]
    LengthChecksum { record: usize, offset: usize },
    #[error("record {record} at byte {offset}: the data's checksum does not match")]
    DataChecksum { record: usize, offset: usize },
}

/// The records of a TFRecord file, checked; an error names the first bad one (a record cut
/// short at the end by a crash is not an error: it is left out).
pub fn read_records(bytes: &[u8]) -> Result<Vec<Vec<u8>>, TfRecordError> {
    let mut records = Vec::new();
    let mut at = 0;
    while bytes.len() - at >= 12 {
        let len_bytes = &bytes[at..at + 8];
        let crc = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().expect("4 bytes"));
        if crc != masked_crc32c(len_bytes) {
            return Err(TfRecordError::LengthChecksum { record: records.len(), offset: at });
        }
        let len = u64::from_le_bytes(len_bytes.try_into().expect("8 bytes")) as usize;
        let Some(end) = (at + 12).checked_add(len).filter(|&e| e + 4 <= bytes.len()) else { break };
        let data = &bytes[at + 12..end];
        let crc = u32::from_le_bytes(bytes[end..end + 4].try_into().expect("4 bytes"));
        if crc != masked_crc32c(data) {
            return Err(TfRecordError::DataChecksum { record: records.len(), offset: at });
        }
        records.push(data.to_vec());
        at = end + 4;
    }
    Ok(records)
}

/// Writes scalars to a new event file in a folder.
pub struct EventWriter {
    path: PathBuf,
    file: BufWriter<File>,
}

impl EventWriter {
    /// A new file in `dir` (created if needed), opened with the file-version event.
    pub fn create(dir: &Path) -> std::io::Result<EventWriter> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(dir)?;
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let host = hostname();
        let name = format!(
            "events.out.tfevents.{}.{host}.{}.{}",
            now.as_secs(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = dir.join(name);
        let file = std::fs::OpenOptions::new().create_new(true).write(true).open(&path)?;
        let mut writer = EventWriter { path, file: BufWriter::new(file) };
        let first = pb::Event {
            wall_time: now.as_secs_f64(),
            step: 0,
            what: Some(pb::event::What::FileVersion(FILE_VERSION.into())),
        };
        writer.write_event(&first)?;
        writer.flush()?;
        Ok(writer)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Scalars `(tag, value)` at `step`, as one event (written on the next flush).
    pub fn scalars(&mut self, step: i64, values: &[(&str, f64)]) -> std::io::Result<()> {
        let wall_time =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_secs_f64();
        let value = values
            .iter()
            .filter(|(_, v)| v.is_finite())
            .map(|&(tag, v)| pb::summary::Value {
                tag: tag.to_string(),
                value: Some(pb::summary::value::Value::SimpleValue(v as f32)),
                ..Default::default()
            })
            .collect();
        let event = pb::Event { wall_time, step, what: Some(pb::event::What::Summary(pb::Summary { value })) };
        self.write_event(&event)
    }

    fn write_event(&mut self, event: &pb::Event) -> std::io::Result<()> {
        self.file.write_all(&frame(&event.encode_to_vec()))
    }

    /// Writes what is buffered to the file (TensorBoard sees it from then on).
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for EventWriter {
    fn drop(&mut self) {
        let _ = self.file.flush();
    }
}

/// This machine's name, for file names (only letters, digits, '-' and '.'), or "localhost".
fn hostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let clean: String = name.trim().chars().filter(|c| c.is_ascii_alphanumeric() || "-.".contains(*c)).collect();
    if clean.is_empty() {
        "localhost".into()
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_masked_crc_is_tfrecords() {
        // CRC-32C of "123456789" is 0xe3069283 (the standard check value); masked as TFRecord
        // masks it.
        assert_eq!(crc32c::crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(masked_crc32c(b"123456789"), 0xe306_9283u32.rotate_right(15).wrapping_add(0xa282_ead8));
        // An empty record: length 0 framed.
        let empty = frame(b"");
        assert_eq!(empty.len(), 16);
        assert_eq!(read_records(&empty).unwrap(), vec![Vec::<u8>::new()]);
    }

    #[test]
    fn events_round_trip_and_every_writer_gets_a_file_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = EventWriter::create(dir.path()).unwrap();
        w.scalars(10, &[("loss/policy", 1.5), ("loss/value", f64::NAN), ("rate/games_per_s", 20.0)]).unwrap();
        w.scalars(20, &[("loss/policy", 1.25)]).unwrap();
        w.flush().unwrap();
        let second = EventWriter::create(dir.path()).unwrap();
        assert_ne!(second.path(), w.path());
        let bytes = std::fs::read(w.path()).unwrap();
        let events: Vec<pb::Event> =
            read_records(&bytes).unwrap().iter().map(|r| pb::Event::decode(r.as_slice()).unwrap()).collect();
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].what, Some(pb::event::What::FileVersion("brain.Event:2".into())));
        let Some(pb::event::What::Summary(s)) = &events[1].what else { panic!("{:?}", events[1]) };
        assert_eq!(events[1].step, 10);
        // A value that is not a number is left out.
        let tags: Vec<(&str, Option<&pb::summary::value::Value>)> =
            s.value.iter().map(|v| (v.tag.as_str(), v.value.as_ref())).collect();
        assert_eq!(
            tags,
            [
                ("loss/policy", Some(&pb::summary::value::Value::SimpleValue(1.5))),
                ("rate/games_per_s", Some(&pb::summary::value::Value::SimpleValue(20.0)))
            ]
        );
        // A record cut short by a crash is left out; a damaged one is an error.
        assert_eq!(read_records(&bytes[..bytes.len() - 3]).unwrap().len(), 2);
        let mut bad = bytes.clone();
        let last = bad.len() - 6;
        bad[last] ^= 1;
        let err = read_records(&bad).unwrap_err();
        assert!(matches!(err, TfRecordError::DataChecksum { record: 2, .. }), "{err:?}");
        assert!(err.to_string().starts_with("record 2 at byte "), "{err}");
    }
}
