//! Gating for one-player games (2048, 2584): there is no game between the candidate and the
//! best, so each plays `gating.games` games alone on the same seeds (game `i` of both draws
//! the same tiles and the same search randomness from one seed) and they are compared by
//! mean score.
//!
//! Pairing the games by seed takes the luck of the spawns out of the comparison: the paired
//! differences vary much less than the scores themselves, so the interval of the mean
//! difference is much narrower than the two means' intervals suggest.
//!
//! The candidate is promoted when its mean score is higher than the best's: the point
//! estimate, as AlphaZero's 55% win-rate threshold is one (this gate's analogue of
//! `gating.promote_score`, which scores game results, not game scores). The SPRT
//! (`gating.mode = "sprt"`) tests win probabilities and has no hypothesis about scores, so
//! a one-player gate always plays its fixed number of games and says so in its record.

use crate::contest::OnePlayer;
use crate::gating::GateSettings;
use crate::matches::{play_match, MatchPlan, OnePlayerGame, Tally};
use crate::players::{BaselinePlayers, PlayerSpec};
use dojo_core::game::sliding::{Rules, Sliding};
use dojo_core::game::{FromAnyGame, GameSpec};
use dojo_core::ntuple::report::{GameScore, ScoreReport};
use dojo_core::rng::Rng;
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

/// The normal distribution's 97.5% point: 95% intervals.
const Z95: f64 = 1.959_964;

/// One side's games: mean score with its 95% interval (none below two games), median, max.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeanScore {
    pub mean: f64,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub median: f64,
    pub max: u64,
}

impl MeanScore {
    fn of(game: &GameSpec, games: &[GameScore]) -> MeanScore {
        let r = ScoreReport::new(game, games);
        MeanScore {
            mean: r.mean,
            low: r.interval.map(|i| i[0]),
            high: r.interval.map(|i| i[1]),
            median: r.median,
            max: r.max,
        }
    }

    fn describe(&self) -> String {
        match (self.low, self.high) {
            (Some(low), Some(high)) => format!("{:.1} (95% CI {low:.1}..{high:.1})", self.mean),
            _ => format!("{:.1}", self.mean),
        }
    }
}

/// A one-player gate's comparison: both sides' mean scores, and the mean of the paired
/// differences (candidate minus best, game by game) with its 95% interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreComparison {
    /// Games each side played (the pairs compared).
    pub games: u32,
    pub candidate: MeanScore,
    pub best: MeanScore,
    /// The mean paired difference; equal to the difference of the means.
    pub difference: f64,
    /// Its 95% interval (normal approximation on the paired differences); none below two
    /// games.
    pub difference_low: Option<f64>,
    pub difference_high: Option<f64>,
    /// Pairs the candidate scored higher in, equally, lower.
    pub higher: u32,
    pub equal: u32,
    pub lower: u32,
    /// The run asked for an SPRT, which does not apply to scores: the fixed games were
    /// played instead.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sprt_skipped: bool,
}

impl ScoreComparison {
    /// Compares `candidate`'s games with `best`'s, game `i` with game `i`.
    pub fn new(game: &GameSpec, candidate: &[GameScore], best: &[GameScore]) -> Result<ScoreComparison, String> {
        if candidate.len() != best.len() || candidate.is_empty() {
            return Err(format!(
                "a one-player gate compares games in pairs: {} candidate games and {} of the best",
                candidate.len(),
                best.len()
            ));
        }
        let diffs: Vec<f64> = candidate.iter().zip(best).map(|(c, b)| c.score as f64 - b.score as f64).collect();
        let n = diffs.len() as f64;
        let difference = diffs.iter().sum::<f64>() / n;
        let half = (diffs.len() >= 2).then(|| {
            let var = diffs.iter().map(|d| (d - difference).powi(2)).sum::<f64>() / (n - 1.0);
            Z95 * (var / n).sqrt()
        });
        let count = |keep: fn(&f64) -> bool| diffs.iter().filter(|d| keep(d)).count() as u32;
        Ok(ScoreComparison {
            games: diffs.len() as u32,
            candidate: MeanScore::of(game, candidate),
            best: MeanScore::of(game, best),
            difference,
            difference_low: half.map(|h| difference - h),
            difference_high: half.map(|h| difference + h),
            higher: count(|d| *d > 0.0),
            equal: count(|d| *d == 0.0),
            lower: count(|d| *d < 0.0),
            sprt_skipped: false,
        })
    }

    /// Whether the candidate takes the best's place: its mean score is higher (strictly:
    /// a copy of the best, which scores the same on the same seeds, is not promoted).
    pub fn promotes(&self) -> bool {
        self.difference > 0.0
    }

    /// The pairs as a match tally for the candidate: a pair it scored higher in is a win,
    /// an equal one a draw. This is what a one-player gate's record keeps in its
    /// two-player fields (games, wins, draws, losses, score), so readers of those see the
    /// share of games the candidate did better in.
    pub fn tally(&self) -> Tally {
        Tally { games: self.games, wins: self.higher, draws: self.equal, losses: self.lower }
    }

    /// "mean score 5123.4 (95% CI ...) vs 4890.1 (...), difference +233.3 (95% CI ...)".
    pub fn describe(&self) -> String {
        let interval = match (self.difference_low, self.difference_high) {
            (Some(low), Some(high)) => format!(" (95% CI {low:+.1}..{high:+.1})"),
            _ => String::new(),
        };
        format!(
            "mean score {} vs {}, difference {:+.1}{interval}; higher in {}, equal in {}, lower in {} games{}",
            self.candidate.describe(),
            self.best.describe(),
            self.difference,
            self.higher,
            self.equal,
            self.lower,
            if self.sprt_skipped { "; fixed games (the SPRT does not apply to scores)" } else { "" }
        )
    }
}

/// Plays the one-player gate of `candidate` against `best` (players of game `game`): each
/// plays `settings.games` games on seeds from `seed`, one after the other, on
/// `settings.threads` threads. `cancel` stops it between games (an error).
pub fn gate_solo<R: Rules>(
    game: &GameSpec,
    candidate: &PlayerSpec,
    best: &PlayerSpec,
    settings: &GateSettings,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> Result<ScoreComparison, String>
where
    Sliding<R>: BaselinePlayers,
{
    let start = |rng: &mut Rng| {
        let any = game.new_game(rng).expect("a one-player game starts from any seed");
        Sliding::<R>::from_any(any).expect("every game of a spec has its type")
    };
    let plan = MatchPlan { cancel, ..MatchPlan::new(settings.games, settings.threads, seed) };
    // Game i of both sides has the same seed: a one-player match's games depend on their
    // index and the plan's seed alone.
    let scores = |player: &PlayerSpec| -> Result<Vec<GameScore>, String> {
        let played: Mutex<Vec<OnePlayerGame>> = Mutex::new(Vec::new());
        let make = |s| Sliding::<R>::baseline(player, s);
        play_match(OnePlayer, plan, &[&make], start, &|g| played.lock().unwrap().push(g.clone()))?;
        let mut played = played.into_inner().unwrap();
        played.sort_by_key(|g| g.index);
        Ok(played.iter().map(|g| GameScore { score: g.score, max_tile: g.max_tile }).collect())
    };
    let candidate_scores = scores(candidate)?;
    let best_scores = scores(best)?;
    let mut comparison = ScoreComparison::new(game, &candidate_scores, &best_scores)?;
    comparison.sprt_skipped = settings.sprt.is_some();
    Ok(comparison)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(scores: &[u64]) -> Vec<GameScore> {
        scores.iter().map(|&score| GameScore { score, max_tile: 2048 }).collect()
    }

    #[test]
    fn a_higher_mean_promotes_and_the_paired_interval_is_the_differences() {
        let spec = GameSpec::Twenty48;
        // The candidate is 100 better on every seed, however lucky the seed: the paired
        // differences have no spread, though the scores vary widely.
        let best = games(&[1000, 5000, 20_000, 3000]);
        let candidate = games(&[1100, 5100, 20_100, 3100]);
        let c = ScoreComparison::new(&spec, &candidate, &best).unwrap();
        assert!(c.promotes());
        assert_eq!((c.difference, c.difference_low, c.difference_high), (100.0, Some(100.0), Some(100.0)));
        assert_eq!((c.candidate.mean, c.best.mean), (7350.0, 7250.0));
        assert!(c.best.low.unwrap() < 0.0 && c.best.high.unwrap() > 14_000.0, "{c:?}");
        assert_eq!((c.higher, c.equal, c.lower), (4, 0, 0));
        let t = c.tally();
        assert_eq!((t.games, t.wins, t.draws, t.losses, t.score()), (4, 4, 0, 0, 1.0));

        // Equal means (a copy of the best): not promoted.
        let same = ScoreComparison::new(&spec, &best, &best).unwrap();
        assert!(!same.promotes());
        assert_eq!((same.difference, same.equal, same.tally().score()), (0.0, 4, 0.5));

        // Lower on average though higher in most games: the mean decides, not the count.
        let mostly = games(&[1100, 5100, 10_000, 3100]);
        let c = ScoreComparison::new(&spec, &mostly, &best).unwrap();
        assert!(!c.promotes());
        assert_eq!((c.higher, c.lower, c.difference), (3, 1, -2425.0));
        // Differences 100, 100, -10000, 100: sd 5050 → half-width 1.96 × 5050 / 2 = 4949.
        assert!((c.difference_high.unwrap() - 2524.0).abs() < 1.0, "{c:?}");
        assert!((c.difference_low.unwrap() + 7374.0).abs() < 1.0, "{c:?}");
        let text = c.describe();
        assert!(text.starts_with("mean score 4825.0 (95% CI ") && text.contains(" vs 7250.0 (95% CI "), "{text}");
        assert!(text.contains(", difference -2425.0 (95% CI -7373.9..+2523.9); "), "{text}");
        assert!(text.ends_with("higher in 3, equal in 0, lower in 1 games"), "{text}");

        // One game each: no intervals, still a decision.
        let one = ScoreComparison::new(&spec, &games(&[10]), &games(&[8])).unwrap();
        assert!(one.promotes() && one.difference_low.is_none() && one.candidate.low.is_none());
        assert_eq!(
            one.describe(),
            "mean score 10.0 vs 8.0, difference +2.0; higher in 1, equal in 0, lower in 0 games"
        );

        let err = ScoreComparison::new(&spec, &games(&[1, 2]), &games(&[1])).unwrap_err();
        assert!(err.contains("2 candidate games and 1 of the best"), "{err}");
        assert!(ScoreComparison::new(&spec, &[], &[]).is_err());
    }

    #[test]
    fn players_are_compared_on_the_same_games() {
        use dojo_core::game::sliding::Rules2048;
        let settings = GateSettings {
            games: 6,
            sprt: Some(crate::sprt::SprtConfig { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.1, max_games: 6 }),
            simulations: 1,
            opening_plies: 4,
            average_symmetries: false,
            mode: Default::default(),
            vcf_nodes: 0,
            threads: 2,
        };
        let (uct, mcts, random) =
            (PlayerSpec::Uct { iterations: 8 }, PlayerSpec::Mcts { iterations: 8, uniform: false }, PlayerSpec::Random);
        // uct:8 and mcts:8 are one player on 2048: every pair is equal.
        let c = gate_solo::<Rules2048>(&GameSpec::Twenty48, &uct, &mcts, &settings, 9, None).unwrap();
        assert_eq!((c.games, c.equal, c.difference), (6, 6, 0.0));
        assert!(!c.promotes() && c.sprt_skipped);
        assert!(c.describe().ends_with("; fixed games (the SPRT does not apply to scores)"), "{}", c.describe());
        // A search beats random moves on average.
        let c = gate_solo::<Rules2048>(&GameSpec::Twenty48, &uct, &random, &settings, 9, None).unwrap();
        assert!(c.promotes() && c.candidate.mean > c.best.mean, "{c:?}");
        let cancel = AtomicBool::new(true);
        let err = gate_solo::<Rules2048>(&GameSpec::Twenty48, &uct, &random, &settings, 9, Some(&cancel)).unwrap_err();
        assert_eq!(err, "the match was cancelled");
    }
}
