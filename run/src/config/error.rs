//! What can be wrong with a run's configuration: a file that cannot be read, TOML that does
//! not parse or names a key no section has, and a value out of its range. Each message names
//! the key (`section.key`) and the value, as the user wrote them.
//!
//! A wrapped error (`std::io::Error`, TOML's, core's) is kept in its variant for callers to
//! match on, and its text is part of the message; it is not also returned by `source()`,
//! since `dojo` prints an error with its chain (`{:#}`) and would say it twice.

use dojo_game::GameSpec;
use std::path::PathBuf;

/// An error core returned for a section or a network it checks (its text names the key).
/// Boxed, so any of core's error types (or its messages) fits.
pub type CoreError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config file cannot be read.
    #[error("cannot read {}: {error}", .path.display())]
    Read { path: PathBuf, error: std::io::Error },
    /// Not TOML, a key no section has (unknown keys are refused, so that a typo does not fall
    /// back to a default), or a value of the wrong type or variant.
    #[error("{}", .error.to_string().trim())]
    Parse { error: toml::de::Error },
    /// The config in the file at `path` is wrong.
    #[error("{}: {error}", .path.display())]
    InFile { path: PathBuf, error: Box<ConfigError> },
    /// Keys that must all be at least 1 (one of them is 0).
    #[error("{keys} must be at least 1")]
    Zero { keys: &'static str },
    /// `key = value` breaks `rule` ("be within (0, 1]", "not exceed replay.window_positions = 1000").
    #[error("{key} = {value} must {rule}")]
    OutOfRange { key: &'static str, value: String, rule: Rule },
    /// Two keys that are checked together: `key = value and other = other_value` breaks `rule`.
    #[error("{key} = {value} and {other} = {other_value} must {rule}")]
    PairOutOfRange { key: &'static str, value: String, other: &'static str, other_value: String, rule: &'static str },
    /// `net.input_planes` is more than the game encodes.
    #[error("net.input_planes = {planes}: {game} networks take at most {max} planes")]
    TooManyPlanes { planes: usize, game: GameSpec, max: usize },
    /// `net.any_size` on a game without boards of several sizes (2048, 2584).
    #[error("net.any_size: an any-size network plays Connect Four or Gomoku boards, not {game}")]
    AnySizeGame { game: GameSpec },
    /// `net.any_size` with a policy head chosen.
    #[error("net.any_size: an any-size network has its own policy head (leave policy_head auto)")]
    AnySizePolicyHead,
    /// A network setting (`net.policy_head`, `net.input_planes = 3`) core refused.
    #[error("{setting}: {error}")]
    Net { setting: String, error: CoreError },
    /// A `--set SECTION.KEY=VALUE` whose key no section has or whose value is not of the
    /// key's type, in TOML's words.
    #[error("--set {assignment}: {error}")]
    Setting { assignment: String, error: SettingRefusal },
    /// A game or section core refused (`game`, `search`, `selfplay`, `train`, the network).
    #[error("{error}")]
    Core { error: CoreError },
}

impl ConfigError {
    /// `key = value` breaks `rule`.
    pub(crate) fn out_of_range(key: &'static str, value: impl ToString, rule: impl Into<Rule>) -> ConfigError {
        ConfigError::OutOfRange { key, value: value.to_string(), rule: rule.into() }
    }

    /// Wraps what core said about a game, section or network.
    pub(crate) fn core(error: impl Into<CoreError>) -> ConfigError {
        ConfigError::Core { error: error.into() }
    }
}

/// What a key's value must do ([`ConfigError::OutOfRange`]), as its message says it.
#[derive(Clone, Debug, PartialEq)]
pub enum Rule {
    /// A condition in words: "be within (0, 1]".
    Words(&'static str),
    /// Not exceed another key's value: "not exceed replay.window_positions = 1000".
    NotExceed { key: &'static str, value: u64 },
    /// Be above another key's value: "be above elo0 = 0".
    Above { key: &'static str, value: f64 },
}

impl From<&'static str> for Rule {
    fn from(words: &'static str) -> Rule {
        Rule::Words(words)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rule::Words(words) => f.write_str(words),
            Rule::NotExceed { key, value } => write!(f, "not exceed {key} = {value}"),
            Rule::Above { key, value } => write!(f, "be above {key} = {value}"),
        }
    }
}

/// Why a `--set` assignment was refused ([`ConfigError::Setting`]).
#[derive(Debug, thiserror::Error)]
pub enum SettingRefusal {
    /// `SECTION.KEY` where `SECTION` is a setting of the top level (`game.x=1`).
    #[error("{0} is a setting, not a section")]
    NotASection(String),
    /// TOML refused the value or the key, in its words.
    #[error("{0}")]
    Toml(String),
}
