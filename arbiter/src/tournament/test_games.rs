//! Made-up tournament games and players for the tests of the standings and the gauntlet.

use super::{Entrant, Format, GameKey, GameLine, TournamentSpec};

/// Game `game` of the pairing `a`–`b` (A moves first in even games), `result` from A's
/// side: 1 a win, 0 a draw, -1 a loss.
pub fn line(a: &str, b: &str, game: u32, result: i8) -> GameLine {
    GameLine {
        key: GameKey { a: a.into(), b: b.into(), game },
        a_first: game.is_multiple_of(2),
        result,
        forfeit: None,
        opening: String::new(),
        moves: String::new(),
        seconds: 0.0,
        unix_ms: 0,
    }
}

/// A player; `version` makes it one of a run's checkpoints, published at step 100 × version.
pub fn entrant(name: &str, version: Option<u64>) -> Entrant {
    Entrant { name: name.into(), spec: "random".into(), version, step: version.map(|v| v * 100) }
}

/// A one-player tournament of `entrants` on 2048, `games` games each.
pub fn spec_2048(entrants: Vec<Entrant>, games: u32) -> TournamentSpec {
    TournamentSpec {
        game: "2048".into(),
        format: Format::RoundRobin,
        games_per_pair: games,
        opening_plies: 0,
        openings: Vec::new(),
        seed: 3,
        move_timeout_ms: Some(100),
        entrants,
    }
}
