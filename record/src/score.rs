//! Score reports for one-player sliding games (any player, not only n-tuple networks): mean,
//! median and max score, a 95% interval for the mean, and seed 002's reach-rate table (the
//! share of games whose largest tile reached each big tile, and the share that ended there).

use crate::GameRecord;
use dojo_game::GameScore;
use dojo_game::{with_game, AnyGame, GameSpec};
use serde::Serialize;
use std::fmt;

/// How a one-player game's record ended, replayed from its start. None for two-player
/// games, and for a record that does not replay (the learner validates records at ingest,
/// but this is also read from files and must not trust them).
pub fn score_of_record(record: &GameRecord) -> Option<GameScore> {
    end_of(record).map(|(score, _)| score)
}

/// How a one-player game stands at `game` (over or not): [`dojo_game::Scoring::game_score`].
pub fn score_of_position(game: &AnyGame) -> Option<GameScore> {
    with_game!(game, g => g.game_score())
}

/// A one-player game's record replayed to its end: how it ended and, for a tile game, its
/// last board (face values, row-major, 0 for empty), for displays of the game. None as in
/// [`score_of_record`].
pub fn final_board(record: &GameRecord) -> Option<(GameScore, Vec<u32>)> {
    let (score, end) = end_of(record)?;
    Some((score, end?))
}

/// The score and the tile board of a one-player record's last position.
fn end_of(record: &GameRecord) -> Option<(GameScore, Option<Vec<u32>>)> {
    with_game!(record.start().ok()?, start => {
        let end = record.replay(start, |_, _, _| {}).ok()?;
        Some((end.game_score()?, end.tile_board()))
    })
}

/// One row of the reach-rate table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Reach {
    pub tile: u32,
    /// The share of games (0..=1) whose largest tile was this one or bigger.
    pub reached: f64,
    /// The share whose largest tile was exactly this one.
    pub ended: f64,
}

/// Statistics of a set of games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoreReport {
    pub games: usize,
    pub mean: f64,
    pub median: f64,
    pub max: u64,
    /// 95% interval of the mean score (normal approximation); None below two games.
    pub interval: Option<[f64; 2]>,
    pub reach: Vec<Reach>,
}

const Z95: f64 = 1.959_964;

/// The tiles the reach-rate table lists for a game ([`Scoring::reach_tiles`]): 2048 to 32768
/// for 2048; for 2584 the Fibonacci tiles from 610 to 10946, and further ones when a game
/// reached them. Other games have no tiles.
pub fn reach_tiles(spec: &GameSpec, largest: u32) -> Vec<u32> {
    spec.probe().map(|game| with_game!(game, g => g.reach_tiles(largest))).unwrap_or_default()
}

impl ScoreReport {
    pub fn new(spec: &GameSpec, games: &[GameScore]) -> ScoreReport {
        let n = games.len();
        let mut scores: Vec<u64> = games.iter().map(|g| g.score).collect();
        scores.sort_unstable();
        let mean = if n == 0 { 0.0 } else { scores.iter().map(|&s| s as f64).sum::<f64>() / n as f64 };
        let median = match n {
            0 => 0.0,
            _ if n % 2 == 1 => scores[n / 2] as f64,
            _ => (scores[n / 2 - 1] as f64 + scores[n / 2] as f64) / 2.0,
        };
        let interval = (n >= 2).then(|| {
            let var = scores.iter().map(|&s| (s as f64 - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            let half = Z95 * (var / n as f64).sqrt();
            [mean - half, mean + half]
        });
        let largest = games.iter().map(|g| g.max_tile).max().unwrap_or(0);
        let share = |count: usize| if n == 0 { 0.0 } else { count as f64 / n as f64 };
        let reach = reach_tiles(spec, largest)
            .into_iter()
            .map(|tile| Reach {
                tile,
                reached: share(games.iter().filter(|g| g.max_tile >= tile).count()),
                ended: share(games.iter().filter(|g| g.max_tile == tile).count()),
            })
            .collect();
        ScoreReport { games: n, mean, median, max: scores.last().copied().unwrap_or(0), interval, reach }
    }

    /// One line: games, mean with its interval, median, max.
    pub fn summary(&self) -> String {
        let interval = match self.interval {
            Some([lo, hi]) => format!(" (95% CI {lo:.1}..{hi:.1})"),
            None => String::new(),
        };
        format!(
            "{} games: mean score {:.1}{interval}, median {:.1}, max {}",
            self.games, self.mean, self.median, self.max
        )
    }

    /// The reach-rate table, one tile a line (seed 002's "2048 80% (30.8%)", with headings);
    /// nothing for a game without tiles (pig).
    pub fn table(&self) -> String {
        if self.reach.is_empty() {
            return String::new();
        }
        let mut s = format!("{:>8}  {:>8}  {:>11}\n", "tile", "reached", "ended there");
        for r in &self.reach {
            s.push_str(&format!("{:>8}  {:>7.1}%  {:>10.1}%\n", r.tile, 100.0 * r.reached, 100.0 * r.ended));
        }
        s
    }
}

impl fmt::Display for ScoreReport {
    /// The summary line, then the table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\n{}", self.summary(), self.table())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{random_game_record, MoveRecord, RecordOutcome};
    use dojo_base::rng::Rng;
    use dojo_game::sliding::{Fib2584, Rules, Sliding, SpawnOdds, Twenty48};
    use dojo_game::Chance;
    use dojo_game::{Game, ToMove};
    use rand::seq::IndexedRandom;
    use rand::SeedableRng;

    fn g(score: u64, max_tile: u32) -> GameScore {
        GameScore { score, max_tile }
    }

    /// A record of a random game from the empty board (spawns and moves drawn uniformly,
    /// every spawn recorded as a chance event), and the position it ends in.
    fn random_record<R: Rules>(start: Sliding<R>, seed: u64) -> (GameRecord, Sliding<R>) {
        let mut rng = Rng::seed_from_u64(seed);
        let mut game = start;
        let mut record = GameRecord::new([seed as u8; 16], game.spec(), 1);
        let (mut events, mut legal) = (Vec::new(), Vec::new());
        while game.outcome().is_none() {
            if game.to_move() == ToMove::Chance {
                game.chance_outcomes(&mut events);
                let &(event, _) = events.choose(&mut rng).unwrap();
                game.apply_chance(event).unwrap();
                record.moves.push(MoveRecord::chance(event));
            } else {
                game.legal_actions(&mut legal);
                let &action = legal.choose(&mut rng).unwrap();
                record.moves.push(MoveRecord::player(action, vec![(action, 1.0)], 0.0));
                game.play(action).unwrap();
            }
        }
        record.outcome = game.outcome().unwrap().into();
        (record, game)
    }

    #[test]
    fn a_records_score_and_largest_tile_are_its_last_positions() {
        let (record, end) = random_record(Twenty48::new(), 7);
        assert!(record.moves.iter().filter(|m| m.chance).count() > 10, "spawns are in the record");
        let RecordOutcome::Score(points) = record.outcome else { panic!("{:?}", record.outcome) };
        let largest = end.tile_values().into_iter().flatten().max().unwrap();
        assert!(points > 0 && largest >= 16, "{points} {largest}");
        assert_eq!(score_of_record(&record), Some(g(points, largest)));
        assert_eq!(final_board(&record), Some((g(points, largest), end.tile_values().into_iter().flatten().collect())));

        let (record, end) = random_record(Fib2584::new(SpawnOdds::OneThree), 8);
        assert_eq!(score_of_record(&record), Some(g(end.score(), end.max_tile())));
        assert!(end.max_tile() >= 5 && end.score() > 0, "{}", end.render());
    }

    #[test]
    fn records_of_two_player_games_or_that_do_not_replay_have_no_score() {
        let connect4 = dojo_game::connect4::Connect4::<u64>::standard();
        let record = random_game_record(&connect4, 1, &mut Rng::seed_from_u64(1));
        assert_eq!(score_of_record(&record), None);
        let (mut record, _) = random_record(Twenty48::new(), 9);
        // A spawn on the cell the first one took.
        record.moves[1].action = record.moves[0].action;
        assert_eq!(score_of_record(&record), None);
        record.moves.clear();
        assert_eq!(score_of_record(&record), None, "an empty game is not over");
        // A position stands at its score, over or not; a two-player game has none.
        assert_eq!(score_of_position(&connect4.into()), None);
        let (_, end) = random_record(Twenty48::new(), 4);
        let at = score_of_position(&end.into()).unwrap();
        assert_eq!((at.score, at.max_tile), (end.score(), end.max_tile()));
    }

    #[test]
    fn a_report_on_fixed_games() {
        let games = [g(20_000, 2048), g(60_000, 4096), g(10_000, 1024), g(30_000, 2048)];
        let r = ScoreReport::new(&GameSpec::Twenty48, &games);
        assert_eq!((r.games, r.mean, r.median, r.max), (4, 30_000.0, 25_000.0, 60_000));
        // Sample sd = sqrt((100 + 900 + 400 + 0) × 10^6 / 3) = 21602.5; half = 1.96 × sd / 2.
        let [lo, hi] = r.interval.unwrap();
        assert!((hi - 30_000.0 - 21_170.0).abs() < 1.0, "{lo} {hi}");
        assert!((30_000.0 - lo - 21_170.0).abs() < 1.0, "{lo} {hi}");
        let rows: Vec<(u32, f64, f64)> = r.reach.iter().map(|x| (x.tile, x.reached, x.ended)).collect();
        assert_eq!(
            rows,
            [(2048, 0.75, 0.5), (4096, 0.25, 0.25), (8192, 0.0, 0.0), (16384, 0.0, 0.0), (32768, 0.0, 0.0)]
        );
        let text = r.to_string();
        assert!(
            text.starts_with("4 games: mean score 30000.0 (95% CI 8830.0..51170.0), median 25000.0, max 60000\n"),
            "{text}"
        );
        assert!(text.contains("    2048     75.0%        50.0%\n"), "{text}");
        assert!(text.contains("    4096     25.0%        25.0%\n"), "{text}");
    }

    #[test]
    fn fibonacci_tiles_from_610_and_beyond_when_reached() {
        let spec = GameSpec::Fib2584 { odds: SpawnOdds::OneThree };
        assert_eq!(reach_tiles(&spec, 0), [610, 987, 1597, 2584, 4181, 6765, 10946]);
        assert_eq!(*reach_tiles(&spec, 28657).last().unwrap(), 28657);
        let r = ScoreReport::new(&spec, &[g(5, 2584), g(7, 987), g(9, 3)]);
        assert_eq!(r.median, 7.0);
        assert!((r.reach[1].reached - 2.0 / 3.0).abs() < 1e-12);
        assert!((r.reach[3].ended - 1.0 / 3.0).abs() < 1e-12);
        // One game has no interval; none has zeros and no division by zero.
        assert_eq!(ScoreReport::new(&spec, &[g(5, 2584)]).interval, None);
        let empty = ScoreReport::new(&spec, &[]);
        assert_eq!((empty.games, empty.mean, empty.max), (0, 0.0, 0));
        assert!(empty.reach.iter().all(|x| x.reached == 0.0));
    }
}
