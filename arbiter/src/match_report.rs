//! How a match is shown (`dojo match`, `dojo ntuple play`): the progress line, forfeits,
//! and the report of each contest: two players' games, score, interval and Elo (by board
//! size for a random spec such as connect4:saiblo); one player's scores and reach rates.

use crate::contest::{OnePlayer, TwoPlayer};
use crate::matches::{GameResult, MatchContest, MatchResult, OnePlayerGame, OnePlayerResult, Tally};
use dojo_game::GameSpec;
use dojo_search::player::ClockUse;
use serde::Serialize;
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

/// One player's clock over a match, for a player timed by a clock of its own (a Gomocup
/// brain): the games it forfeited, by kind, and how long it thought a game, with the share
/// of its match clock that was (1.0: all of it) where it has one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClockReport {
    /// "a" or "b".
    pub seat: &'static str,
    pub player: String,
    /// Games it was timed in.
    pub games: u32,
    /// Games it forfeited, by kind (`time`, `crash`, `illegal`, `unparsable`, `refused`).
    pub forfeits: BTreeMap<&'static str, u32>,
    pub thought_s_mean: f64,
    pub thought_s_max: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share_mean: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share_max: Option<f64>,
}

/// The clocks of A and B (`names`) over `games`, for each that was timed.
pub fn clock_reports(names: [&str; 2], games: &[GameResult]) -> Vec<ClockReport> {
    (0..2).filter_map(|k| clock_report(k, names[k], games)).collect()
}

/// Seat `k`'s clock (0: A), if it was timed in any game.
fn clock_report(k: usize, player: &str, games: &[GameResult]) -> Option<ClockReport> {
    let used: Vec<ClockUse> = games.iter().filter_map(|g| g.clocks[k]).collect();
    if used.is_empty() {
        return None;
    }
    let mut forfeits = BTreeMap::new();
    // A forfeit loses the game: A's where A lost, B's where A won.
    let lost = if k == 0 { -1 } else { 1 };
    for kind in games.iter().filter(|g| g.result == lost).filter_map(|g| g.forfeit_kind) {
        *forfeits.entry(kind.name()).or_insert(0) += 1;
    }
    let n = used.len() as f64;
    let seconds: Vec<f64> = used.iter().map(|u| u.thought_ms as f64 / 1000.0).collect();
    let shares: Vec<f64> = used.iter().filter_map(ClockUse::share).collect();
    let has_shares = shares.len() == used.len();
    Some(ClockReport {
        seat: if k == 0 { "a" } else { "b" },
        player: player.to_string(),
        games: used.len() as u32,
        forfeits,
        thought_s_mean: seconds.iter().sum::<f64>() / n,
        thought_s_max: seconds.iter().copied().fold(0.0, f64::max),
        match_s: used[0].match_ms.filter(|_| has_shares).map(|ms| ms as f64 / 1000.0),
        share_mean: has_shares.then(|| shares.iter().sum::<f64>() / n),
        share_max: has_shares.then(|| shares.iter().copied().fold(0.0, f64::max)),
    })
}

impl ClockReport {
    /// "clock of A (NAME): 40 games, forfeits 1 (time 1); thought 3.2 s a game on average,
    /// 5.0 s at most; 2.7% of its 120 s match clock on average, 4.2% at most".
    pub fn line(&self) -> String {
        let total: u32 = self.forfeits.values().sum();
        let kinds: Vec<String> = self.forfeits.iter().map(|(kind, n)| format!("{kind} {n}")).collect();
        let kinds = if kinds.is_empty() { String::new() } else { format!(" ({})", kinds.join(", ")) };
        let mut line = format!(
            "clock of {} ({}): {} games, forfeits {total}{kinds}; thought {:.2} s a game on average, {:.2} s at most",
            self.seat.to_uppercase(),
            self.player,
            self.games,
            self.thought_s_mean,
            self.thought_s_max
        );
        if let (Some(clock), Some(mean), Some(max)) = (self.match_s, self.share_mean, self.share_max) {
            line.push_str(&format!(
                "; {:.1}% of its {clock} s match clock on average, {:.1}% at most",
                100.0 * mean,
                100.0 * max
            ));
        }
        line
    }
}

/// Games, the score with its interval and Elo, and for a random spec (connect4:saiblo) the
/// results board size by board size; each timed player's clock ([`ClockReport`]).
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
        let clocks = clock_reports([&result.a, &result.b], games);
        if json {
            let mut value = serde_json::to_value(&result)?;
            if !clocks.is_empty() {
                value["clocks"] = serde_json::to_value(&clocks)?;
            }
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
        for clock in &clocks {
            let _ = writeln!(out, "{}", clock.line());
        }
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
    use super::*;
    use dojo_external::forfeit::ForfeitKind;

    /// Game `index` with A's `result`, a forfeit of `kind`, and A's and B's thinking in ms
    /// (A's against a 1 s match clock, B's without one).
    fn game(index: u32, result: i8, kind: Option<ForfeitKind>, a_ms: Option<u64>, b_ms: Option<u64>) -> GameResult {
        GameResult {
            index,
            a_first: index.is_multiple_of(2),
            result,
            moves: String::new(),
            opening: String::new(),
            board: "gomoku:9".into(),
            forfeit: kind.map(|k| k.name().to_string()),
            forfeit_kind: kind,
            clocks: [
                a_ms.map(|ms| ClockUse { thought_ms: ms, match_ms: Some(1000) }),
                b_ms.map(|ms| ClockUse { thought_ms: ms, match_ms: None }),
            ],
        }
    }

    #[test]
    fn clocks_count_each_players_forfeits_by_kind_and_the_share_of_its_match_clock() {
        use ForfeitKind::{Crash, Time, Unparsable};
        let games = [
            game(0, 1, None, Some(500), Some(2000)),
            game(1, -1, Some(Time), Some(1200), Some(1000)),
            // B's forfeits, not A's: A won them.
            game(2, 1, Some(Crash), Some(100), Some(0)),
            game(3, 1, Some(Unparsable), Some(1000), Some(0)),
        ];
        let reports = clock_reports(["brain", "other"], &games);
        assert_eq!(reports.len(), 2);
        let (a, b) = (&reports[0], &reports[1]);
        assert_eq!((a.seat, a.games), ("a", 4));
        assert_eq!(a.forfeits, BTreeMap::from([("time", 1)]));
        assert_eq!(b.forfeits, BTreeMap::from([("crash", 1), ("unparsable", 1)]));
        assert!((a.thought_s_mean - 0.7).abs() < 1e-9 && a.thought_s_max == 1.2);
        assert_eq!((a.match_s, a.share_max), (Some(1.0), Some(1.2)));
        assert!((a.share_mean.unwrap() - 0.7).abs() < 1e-9);
        assert_eq!(
            a.line(),
            "clock of A (brain): 4 games, forfeits 1 (time 1); thought 0.70 s a game on average, 1.20 s at most; 70.0% of its 1 s match clock on average, 120.0% at most"
        );
        // Without a match clock, only the time thought.
        assert_eq!((b.match_s, b.share_mean), (None, None));
        assert_eq!(
            b.line(),
            "clock of B (other): 4 games, forfeits 2 (crash 1, unparsable 1); thought 0.75 s a game on average, 2.00 s at most"
        );
        // Players that keep no clock are not reported.
        let untimed: Vec<GameResult> = games.iter().map(|g| GameResult { clocks: [None, None], ..g.clone() }).collect();
        assert!(clock_reports(["x", "y"], &untimed).is_empty());
    }

    #[test]
    fn a_verbose_game_line_reads_back_as_the_whole_game() {
        assert_eq!(super::game_of_line("game    3: A first, A -1  [44] 5312").as_deref(), Some("445312"));
        assert_eq!(super::game_of_line("game   12: B first, A  1  4453").as_deref(), Some("4453"));
        assert_eq!(super::game_of_line("A: 50-2-48 of 100"), None);
    }
}
