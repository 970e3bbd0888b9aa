//! Times as specs and commands write them (`3s`, `1.5s`, `250ms`): read for `mcts:3s`,
//! `net:CKPT:clock=1s`, `pbrain:clock=5s:…` and a command's `--clock`, and written back.

use super::error::PlayerSpecProblem;

/// A time that is not one, as a command's `--clock` was given it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    #[error("{text} is not a time: 3s, 1.5s or 250ms")]
    NotATime { text: String },
    #[error("a clock needs at least 1 ms")]
    Zero,
}

/// A clock given on its own (`1s`, `1.5s`, `250ms`: a command's `--clock`) in milliseconds.
pub fn parse_clock(text: &str) -> Result<u64, ClockError> {
    millis(text).unwrap_or_else(|| Err(ClockError::NotATime { text: text.to_string() }))
}

/// `text` (`3s`, `1.5s`, `250ms`) in milliseconds, at least 1; None for text without a
/// unit (a number of rollouts, say).
fn millis(text: &str) -> Option<Result<u64, ClockError>> {
    let ms = if let Some(ms) = text.strip_suffix("ms") {
        ms.parse::<u64>().ok()
    } else if let Some(secs) = text.strip_suffix('s') {
        secs.parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e9).map(|s| (s * 1000.0).round() as u64)
    } else {
        return None;
    };
    Some(match ms {
        None => Err(ClockError::NotATime { text: text.to_string() }),
        Some(0) => Err(ClockError::Zero),
        Some(ms) => Ok(ms),
    })
}

/// [`clock_in`] where only a time will do.
pub(super) fn required_clock(text: &str, prefix: &'static str, who: &'static str) -> Result<u64, PlayerSpecProblem> {
    clock_in(text, prefix, who)?.ok_or_else(|| PlayerSpecProblem::NotATime { prefix, text: text.to_string() })
}

/// The clock of the option written `{prefix}TIME` of `who` (a spec's words for its errors);
/// None for text that is not a time.
pub(super) fn clock_in(text: &str, prefix: &'static str, who: &'static str) -> Result<Option<u64>, PlayerSpecProblem> {
    match millis(text) {
        None => Ok(None),
        Some(Ok(ms)) => Ok(Some(ms)),
        Some(Err(ClockError::Zero)) => Err(PlayerSpecProblem::ZeroClock { who }),
        Some(Err(ClockError::NotATime { .. })) => Err(PlayerSpecProblem::NotATime { prefix, text: text.to_string() }),
    }
}

/// A clock as specs write it: `1s`, `1.5s`, `250ms`.
pub(super) fn clock_name(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else if ms > 1000 && ms.is_multiple_of(100) {
        format!("{}s", ms as f64 / 1000.0)
    } else {
        format!("{ms}ms")
    }
}
