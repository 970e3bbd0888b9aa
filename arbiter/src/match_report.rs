//! How a match is shown (`dojo match`, `dojo ntuple play`): the progress line, forfeits,
//! and the report of each contest: two players' games, score, interval and Elo (by board
//! size for a random spec such as connect4:saiblo); one player's scores and reach rates.

use crate::contest::{OnePlayer, TwoPlayer};
use crate::matches::{GameResult, MatchContest, MatchResult, OnePlayerGame, OnePlayerResult, Tally};
use dojo_game::GameSpec;
use std::collections::BTreeMap;
use std::fmt::Write;

/// A match's report: what goes to standard output, and a note for standard error.
pub struct Rendered {
    pub out: String,
    pub note: Option<String>,
}

/// Why games of a match (in order) were forfeited: "game N: why", sorted.
pub fn forfeits<C: MatchReport>(played: &[C::Game]) -> Vec<String> {
    let mut forfeits: Vec<String> =
        played.iter().filter_map(|g| Some(format!("game {}: {}", C::index(g) + 1, C::forfeit(g)?))).collect();
    forfeits.sort();
    forfeits
}

/// The whole game of a line that [`MatchReport::render`] printed for a two-player game with
/// `verbose` ("game    3: A first, A -1  [44] 5312"): the opening's moves and the players'
/// together, as the game reads them ("445312"); None for any other line.
pub fn game_of_line(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("game ")?;
    let (_, after_colon) = rest.split_once(':')?;
    // "A first, A R" (R right-aligned, so maybe after two spaces), two spaces, then
    // "[opening] moves" with single spaces only.
    let (_, moves) = after_colon.rsplit_once("  ")?;
    Some(moves.chars().filter(|c| !matches!(c, '[' | ']' | ' ')).collect())
}

/// How `dojo match` shows a match of each contest.
pub trait MatchReport: MatchContest {
    /// The progress bar's message after the games `played` so far (the newest last).
    fn progress(played: &[Self::Game]) -> String;
    /// Why a game was forfeited, if it was.
    fn forfeit(game: &Self::Game) -> Option<&str>;
    /// The match of `spec` as `result` and its games (in order) say: with `verbose` every
    /// game too; with `json` one JSON object.
    fn render(
        result: Self::Result,
        games: &[Self::Game],
        spec: &GameSpec,
        json: bool,
        verbose: bool,
    ) -> Result<Rendered, serde_json::Error>;
}

/// Games, the score with its interval and Elo, and for a random spec (connect4:saiblo) the
/// results board size by board size.
impl MatchReport for TwoPlayer {
    fn progress(played: &[GameResult]) -> String {
        let mut t = Tally::default();
        played.iter().for_each(|r| t.add(r.result));
        format!("(A: {}-{}-{})", t.wins, t.draws, t.losses)
    }

    fn forfeit(game: &GameResult) -> Option<&str> {
        game.forfeit.as_deref()
    }

    fn render(
        result: MatchResult,
        games: &[GameResult],
        spec: &GameSpec,
        json: bool,
        verbose: bool,
    ) -> Result<Rendered, serde_json::Error> {
        // Name the spec the user asked for (a random one like connect4:saiblo, not the first board).
        let result = MatchResult { game: spec.to_string(), ..result };
        let mut by_size = BTreeMap::<(usize, usize), Tally>::new();
        if spec.is_random() {
            for r in games {
                if let Some(size) = r.board.parse::<GameSpec>().ok().and_then(|b| b.largest_board()) {
                    by_size.entry(size).or_default().add(r.result);
                }
            }
        }
        let size_name = |(w, h): (usize, usize)| format!("{w}x{h}");
        if json {
            let mut value = serde_json::to_value(&result)?;
            if verbose {
                value["games_played"] = serde_json::to_value(games)?;
            }
            if !by_size.is_empty() {
                let sizes: serde_json::Map<String, serde_json::Value> = by_size
                    .iter()
                    .map(|(&size, t)| {
                        let mut v = serde_json::to_value(t).expect("a tally serialises");
                        v["score"] = serde_json::json!(t.score());
                        (size_name(size), v)
                    })
                    .collect();
                value["by_board_size"] = serde_json::Value::Object(sizes);
            }
            return Ok(Rendered { out: format!("{value}\n"), note: None });
        }
        let mut out = String::new();
        for r in games.iter().filter(|_| verbose) {
            let first = if r.a_first { "A" } else { "B" };
            // The opening's moves, in brackets, then the players'.
            let opening = if r.opening.is_empty() { String::new() } else { format!("[{}] ", r.opening) };
            let _ = writeln!(out, "game {:>4}: {first} first, A {:>2}  {opening}{}", r.index + 1, r.result, r.moves);
            if let Some(why) = &r.forfeit {
                let _ = writeln!(out, "           {why}");
            }
        }
        let _ = writeln!(out, "{}", result.summary());
        if !by_size.is_empty() {
            out.push_str("by board size (width x height; A's wins-draws-losses):\n");
            for (&size, t) in &by_size {
                let _ = writeln!(
                    out,
                    "  {:>5}: {:>4} games, {}-{}-{}, score {:.1}%",
                    size_name(size),
                    t.games,
                    t.wins,
                    t.draws,
                    t.losses,
                    100.0 * t.score()
                );
            }
        }
        Ok(Rendered { out, note: None })
    }
}

/// The player's scores and reach rates, and how fast it played (on stderr).
impl MatchReport for OnePlayer {
    fn progress(played: &[OnePlayerGame]) -> String {
        played.last().map_or(String::new(), |g| format!("(last score {})", g.score))
    }

    fn forfeit(game: &OnePlayerGame) -> Option<&str> {
        game.forfeit.as_deref()
    }

    fn render(
        result: OnePlayerResult,
        games: &[OnePlayerGame],
        spec: &GameSpec,
        json: bool,
        verbose: bool,
    ) -> Result<Rendered, serde_json::Error> {
        let result = OnePlayerResult { game: spec.to_string(), ..result };
        let games = if verbose { games } else { &[] };
        let mut out = String::new();
        if json {
            let mut value = serde_json::to_value(&result)?;
            if !games.is_empty() {
                value["games_played"] = serde_json::to_value(games)?;
            }
            let _ = writeln!(out, "{value}");
        } else {
            for g in games {
                let _ = writeln!(
                    out,
                    "game {:>4}: score {:>7}, max tile {:>6}, {} moves  {}",
                    g.index + 1,
                    g.score,
                    g.max_tile,
                    g.plies,
                    g.moves
                );
                if let Some(why) = &g.forfeit {
                    let _ = writeln!(out, "           {why}");
                }
            }
            out.push_str(&result.summary());
        }
        let seconds = result.seconds;
        let note = format!(
            "{} games, {} moves in {seconds:.1} s: {:.3} s a game, {:.0} moves/s (all threads)",
            result.report.games,
            result.total_moves,
            seconds / result.report.games.max(1) as f64,
            result.total_moves as f64 / seconds.max(1e-9)
        );
        Ok(Rendered { out, note: Some(note) })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_verbose_game_line_reads_back_as_the_whole_game() {
        assert_eq!(super::game_of_line("game    3: A first, A -1  [44] 5312").as_deref(), Some("445312"));
        assert_eq!(super::game_of_line("game   12: B first, A  1  4453").as_deref(), Some("4453"));
        assert_eq!(super::game_of_line("A: 50-2-48 of 100"), None);
    }
}
