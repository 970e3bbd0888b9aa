//! What kind of failure lost a player a game: a word every player's errors map to (an
//! external brain's, a saiblo strategy's, a process's) and every match report counts by.
//! Below the players and the matches, so both can name it.

use serde::Serialize;

/// What kind of failure lost a player a game: its time ran out, it crashed (or could not
/// start), it played an illegal move or answered something that is not a move, or it
/// refused to play (the board, the rule); other: a failure of dojo's own players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitKind {
    Time,
    Crash,
    Illegal,
    Unparsable,
    Refused,
    Other,
}

impl ForfeitKind {
    /// Its name in reports (as in JSON).
    pub fn name(self) -> &'static str {
        match self {
            ForfeitKind::Time => "time",
            ForfeitKind::Crash => "crash",
            ForfeitKind::Illegal => "illegal",
            ForfeitKind::Unparsable => "unparsable",
            ForfeitKind::Refused => "refused",
            ForfeitKind::Other => "other",
        }
    }
}
