//! The lines of a tournament's `results.jsonl`, one a game: what the contests write
//! ([`super::contest`]) and the standings, the gauntlet table and the charts read.

use serde::{Deserialize, Serialize};

/// A game of a two-player tournament: the `game`-th of the pairing of A and B (A moves
/// first in the even ones).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameKey {
    pub a: String,
    pub b: String,
    pub game: u32,
}

/// One line of a two-player tournament's `results.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameLine {
    #[serde(flatten)]
    pub key: GameKey,
    /// Who moved first after the opening: A in the even games.
    pub a_first: bool,
    /// 1: A won, 0: a draw, -1: B won.
    pub result: i8,
    /// Why it ended otherwise than by the rules (a brain crashed, timed out...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<String>,
    /// The random opening, then the players' moves, in the game's notation.
    pub opening: String,
    pub moves: String,
    pub seconds: f64,
    pub unix_ms: u64,
}

/// A game of a one-player tournament: `player`'s game number `game`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OnePlayerKey {
    pub player: String,
    pub game: u32,
}

/// One line of a one-player tournament's `results.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreLine {
    #[serde(flatten)]
    pub key: OnePlayerKey,
    pub score: u64,
    /// The largest tile at the end (a face value: 2048, 2584...).
    pub max_tile: u32,
    /// Player moves made (the moves themselves are in `games/`).
    pub moves: u32,
    /// Why the player stopped before the game was over (it failed to move); the score is
    /// the one it had then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<String>,
    pub seconds: f64,
    pub unix_ms: u64,
}
