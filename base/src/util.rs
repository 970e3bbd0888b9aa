//! Small helpers shared by every layer: atomic file writes, content hashes, and the error
//! of a setting that cannot be used.

use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` so that readers see either the old file or the whole new one:
/// a temp file in the same directory, fsynced, renamed over `path`, then the directory
/// fsynced so the rename itself survives a crash.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| std::io::Error::other("path has no file name"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        // Directory fsync makes the rename durable; not every filesystem allows it.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn now_unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// sha256 of `bytes` as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// This process's peak resident memory (Linux's VmHWM), in bytes; None where unknown.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib =
        status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
    Some(kib * 1024)
}

/// A setting (from a config file, a player spec or a flag) whose value cannot be used. Each
/// names the setting as the user spells it, and says what it holds and what it may hold:
/// one shape of message for every setting, whichever module checks it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    /// A count that must be at least 1 is 0.
    #[error("{key} must be at least 1")]
    Zero { key: &'static str },
    /// A number outside its range: `value` as it prints (an `f32` prints shorter than the
    /// same number as an `f64`), `expected` the range.
    #[error("{key} = {value} must be {expected}")]
    OutOfRange { key: &'static str, value: String, expected: Expected },
    /// A word that names none of the choices: `what` is the phrase before it ("unknown
    /// precision", "bad search mode"), `expected` lists the choices.
    #[error("{what} {text:?}: expected {expected}")]
    NotAChoice { what: &'static str, text: String, expected: &'static str },
    /// A setting given as text (`--set search.c_puct=fast`, `net:PATH:c_puct=fast`) whose
    /// text is not a value of its type: `expected` says what would be.
    #[error("{key} = {text:?}: expected {expected}")]
    BadValue { key: &'static str, text: String, expected: &'static str },
    /// A setting's name that no table holds: `known` lists the names it does hold.
    #[error("unknown setting {key:?}: expected one of {known}")]
    UnknownKey { key: String, known: String },
    /// A `KEY=VALUE` assignment without its `=`.
    #[error("{text:?}: expected KEY=VALUE")]
    NotAnAssignment { text: String },
}

/// What a setting's value must be ([`SettingError::OutOfRange`]), as its message says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// A condition in words: "within 0..=1", "positive".
    Words(&'static str),
    /// A whole number within `min..=max`, where the bounds are constants of the code.
    Within { min: u64, max: u64 },
}

impl From<&'static str> for Expected {
    fn from(words: &'static str) -> Expected {
        Expected::Words(words)
    }
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::Words(words) => f.write_str(words),
            Expected::Within { min, max } => write!(f, "within {min}..={max}"),
        }
    }
}

impl SettingError {
    /// [`SettingError::OutOfRange`] for `value`, printed as its own type prints it.
    pub fn out_of_range(
        key: &'static str,
        value: impl std::fmt::Display,
        expected: impl Into<Expected>,
    ) -> SettingError {
        SettingError::OutOfRange { key, value: value.to_string(), expected: expected.into() }
    }

    /// Ok when `ok`, else [`SettingError::OutOfRange`] for `value`: a validation's one line.
    pub fn check(
        ok: bool,
        key: &'static str,
        value: impl std::fmt::Display,
        expected: impl Into<Expected>,
    ) -> Result<(), SettingError> {
        match ok {
            true => Ok(()),
            false => Err(SettingError::out_of_range(key, value, expected)),
        }
    }

    /// [`SettingError::NotAChoice`] for `text`.
    pub fn not_a_choice(what: &'static str, text: &str, expected: &'static str) -> SettingError {
        SettingError::NotAChoice { what, text: text.to_string(), expected }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_abc_is_the_standard_vector() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn setting_errors_print_the_value_as_its_own_type_prints_it() {
        let e = SettingError::out_of_range("selfplay.no_resign_fraction", 1.1f32, "within 0..=1");
        assert_eq!(e.to_string(), "selfplay.no_resign_fraction = 1.1 must be within 0..=1");
        assert_eq!(SettingError::check(true, "x", 0, "positive"), Ok(()));
        assert_eq!(
            SettingError::Zero { key: "search.simulations" }.to_string(),
            "search.simulations must be at least 1"
        );
        let e = SettingError::not_a_choice("bad search mode", "alphabeta", r#""puct" or "gumbel""#);
        assert_eq!(e.to_string(), r#"bad search mode "alphabeta": expected "puct" or "gumbel""#);
    }

    #[test]
    fn atomic_write_replaces_whole_files_and_leaves_no_temp() {
        let dir = std::env::temp_dir().join(format!("dojo-util-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.bin");
        atomic_write(&p, b"first").unwrap();
        atomic_write(&p, b"second").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
