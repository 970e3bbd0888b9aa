//! Gating (AlphaGo Zero's evaluator): a candidate network plays the current best one and
//! takes its place when it does better. What "better" is, is the contest's
//! ([`dojo_arbiter::contest`]):
//!
//! - Two-player games: the two play a match, and the candidate must pass the SPRT or score
//!   enough. Both sides play the search without noise and pick the most-visited move, so
//!   two games from one position would repeat move for move. Every pair of games starts
//!   from its own random opening instead, each side moving first once: the score then
//!   measures strength over many positions, not one line's luck.
//! - One-player games (2048, 2584): there is no game between the two, so each plays
//!   `gating.games` games alone on the same seeds (game `i` of both draws the same tiles
//!   and the same search randomness from one seed) and they are compared by mean score
//!   ([`ScoreComparison`]). Pairing the games by seed takes the luck of the spawns out of
//!   the comparison: the paired differences vary much less than the scores themselves, so
//!   the interval of the mean difference is much narrower than the two means' intervals
//!   suggest. The candidate is promoted when its mean score is higher than the best's: the
//!   point estimate, as AlphaZero's 55% win-rate threshold is one (this gate's analogue of
//!   `gating.promote_score`, which scores game results, not game scores). The SPRT
//!   (`gating.mode = "sprt"`) tests win probabilities and has no hypothesis about scores,
//!   so a one-player gate always plays its fixed number of games and says so in its
//!   record.
//!
//! [`gate_players`] plays either, through the contest's [`GateContest`]. The best network
//! is a copy of the winning checkpoint at a fixed path ([`dojo_arbiter::promotion`]), so it
//! outlives the pruning of old versions and scripts can always find it.

use crate::sprt::{Pentanomial, SprtConfig, SprtError, SprtStatus, Verdict};
use dojo_arbiter::contest::{OnePlayer, TwoPlayer};
use dojo_arbiter::matches::{
    play_match, Decides, GameResult, MatchContest, MatchError, MatchPlan, MatchResult, OnePlayerGame, Tally,
};
use dojo_arbiter::players::{BaselinePlayers, NetSpec, PlayerSpec};
use dojo_arbiter::with_contest;
use dojo_base::rng::Rng;
use dojo_game::GameScore;
use dojo_game::{GameError, GameSpec};
use dojo_net::checkpoint::{self, CheckpointError};
use dojo_record::score::ScoreReport;
use dojo_search::config::SearchConfig;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

/// Why a gate was not played to its end. Each variant's message is the whole story, with
/// no `source()` repeating it.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// The match stopped: cancelled ("the match was cancelled"), or a player could not be
    /// built or made a bad move. (The match engine's words.)
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The run's SPRT settings cannot be tested.
    #[error(transparent)]
    Sprt(#[from] SprtError),
    /// A side's checkpoint cannot be read.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The two networks play different games.
    #[error("{} is a network for {game} but {} is one for {best_game}", .candidate.display(), .best.display())]
    OtherGames { candidate: PathBuf, game: GameSpec, best: PathBuf, best_game: GameSpec },
    /// The game spec cannot start a game.
    #[error(transparent)]
    Game(#[from] GameError),
    /// A one-player gate got unequal numbers of games from its two sides.
    #[error("a one-player gate compares games in pairs: {candidate} candidate games and {best} of the best")]
    Unpaired { candidate: usize, best: usize },
}

/// How a gating match is played.
#[derive(Clone, Debug, PartialEq)]
pub struct GateSettings {
    /// Games, in pairs from one opening (even); with `sprt`, at most. One-player games:
    /// games each side plays.
    pub games: u32,
    /// Stop as soon as this test decides (its `max_games` is `games`); None: play them all.
    /// One-player games play them all regardless (the test is about game results).
    pub sprt: Option<SprtConfig>,
    /// Both sides' search: the run's own ([`SearchConfig::as_player`] of its `[search]` at
    /// `gating.simulations` playouts), so a Gumbel run's versions are judged as they play,
    /// with its threat-space search and whatever else the run searches with. One-player
    /// games always play the chance-node search.
    pub search: SearchConfig,
    /// Random moves opening each pair of games (none in one-player games: their random
    /// tiles open them).
    pub opening_plies: u32,
    /// Both sides average the network over the board's symmetries.
    pub average_symmetries: bool,
    /// Threads playing games at once (one libtorch thread each).
    pub threads: usize,
}

impl GateSettings {
    /// How many games a gate plays, for progress lines: "40 games", or "SPRT [0, 50], up
    /// to 200 games".
    pub fn describe(&self) -> String {
        match &self.sprt {
            None => format!("{} games", self.games),
            Some(c) => format!("SPRT [{}, {}], up to {} games", c.elo0, c.elo1, self.games),
        }
    }

    /// [`GateSettings::describe`] for a gate of `game`: a one-player game's gate plays its
    /// games on each side, the SPRT set aside ("40 games each on the same seeds").
    pub fn describe_for(&self, game: &GameSpec) -> String {
        match (game.is_one_player(), &self.sprt) {
            (false, _) => self.describe(),
            (true, None) => format!("{} games each on the same seeds", self.games),
            (true, Some(_)) => {
                format!("{} games each on the same seeds (fixed: the SPRT does not apply to scores)", self.games)
            }
        }
    }
}

/// A gating match's games, and the SPRT's state at its end where it ran under one.
#[derive(Clone, Debug)]
pub struct GateResult {
    /// One-player games: the pairs of games as a tally (see [`ScoreComparison::tally`]).
    pub result: MatchResult,
    pub sprt: Option<SprtStatus>,
    /// One-player games: the mean scores compared.
    pub scores: Option<ScoreComparison>,
}

impl GateResult {
    /// Whether the candidate takes the best's place: the SPRT passed it, or (without one)
    /// it scored at least `promote_score`; in a one-player game, its mean score is higher.
    pub fn promotes(&self, promote_score: f64) -> bool {
        match (&self.scores, &self.sprt) {
            (Some(scores), _) => scores.promotes(),
            (None, Some(status)) => status.passed(),
            (None, None) => self.result.score >= promote_score,
        }
    }
}

/// What a gate is in each contest: the games the candidate and the best play, and the
/// test that decides between them.
pub trait GateContest: MatchContest {
    /// Plays `gate`.
    fn gate<G: BaselinePlayers>(gate: Gate<'_, G>) -> Result<GateResult, GateError>;
}

/// A gate to play: `candidate` against `best`, players of `game` whose positions `start`
/// draws, as `settings` say, reproducible from `seed`; `cancel` stops it between games (an
/// error).
pub struct Gate<'a, G> {
    pub game: &'a GameSpec,
    pub candidate: &'a PlayerSpec,
    pub best: &'a PlayerSpec,
    pub start: &'a (dyn Fn(&mut Rng) -> G + Sync),
    pub settings: &'a GateSettings,
    pub seed: u64,
    pub cancel: Option<&'a AtomicBool>,
}

/// A match between the two, stopped as soon as the SPRT (where there is one) decides.
impl GateContest for TwoPlayer {
    fn gate<G: BaselinePlayers>(gate: Gate<'_, G>) -> Result<GateResult, GateError> {
        let Gate { candidate, best, start, settings, seed, cancel, .. } = gate;
        let sprt = settings.sprt;
        let decided = |results: &[GameResult]| {
            sprt.as_ref().is_some_and(|c| c.status(&pentanomial(results)).verdict != Verdict::Continue)
        };
        let enough: &Decides<'_> = &decided;
        let plan = MatchPlan {
            games: settings.games,
            threads: settings.threads,
            seed,
            cancel,
            enough: sprt.is_some().then_some(enough),
            opening_plies: settings.opening_plies as usize,
            openings: None,
        };
        let played = Mutex::new(Vec::new());
        let (make_a, make_b) = (|s| G::baseline(candidate, s), |s| G::baseline(best, s));
        let result = play_match(TwoPlayer, plan, &[&make_a, &make_b], start, &|r: &GameResult| {
            played.lock().unwrap().push(r.clone())
        })?;
        let mut results = played.into_inner().unwrap();
        results.sort_by_key(|r| r.index);
        results.truncate(result.tally.games as usize);
        let sprt = sprt.map(|c| c.status(&pentanomial(&results)));
        Ok(GateResult { result, sprt, scores: None })
    }
}

/// Each side's games alone on the same seeds, compared by mean score; the pairs of games
/// stand in for the match.
impl GateContest for OnePlayer {
    fn gate<G: BaselinePlayers>(gate: Gate<'_, G>) -> Result<GateResult, GateError> {
        let Gate { game, candidate, best, start, settings, seed, cancel } = gate;
        let plan = MatchPlan { cancel, ..MatchPlan::new(settings.games, settings.threads, seed) };
        // Game i of both sides has the same seed: a one-player match's games depend on
        // their index and the plan's seed alone.
        let scores = |player: &PlayerSpec| -> Result<Vec<GameScore>, GateError> {
            let played: Mutex<Vec<OnePlayerGame>> = Mutex::new(Vec::new());
            let make = |s| G::baseline(player, s);
            play_match(OnePlayer, plan, &[&make], start, &|g| played.lock().unwrap().push(g.clone()))?;
            let mut played = played.into_inner().unwrap();
            played.sort_by_key(|g| g.index);
            Ok(played.iter().map(|g| GameScore { score: g.score, max_tile: g.max_tile }).collect())
        };
        let candidate_scores = scores(candidate)?;
        let best_scores = scores(best)?;
        let mut comparison = ScoreComparison::new(game, &candidate_scores, &best_scores)?;
        comparison.sprt_skipped = settings.sprt.is_some();
        let tally = comparison.tally();
        let (low, high) = tally.interval();
        let result = MatchResult {
            game: game.to_string(),
            a: candidate.to_string(),
            b: best.to_string(),
            score: tally.score(),
            interval: [low, high],
            elo: tally.elo(),
            tally,
            // No one moves first in a one-player game.
            a_first: Tally::default(),
            b_first: Tally::default(),
        };
        Ok(GateResult { result, sprt: None, scores: Some(comparison) })
    }
}

/// The game pairs of a match's results (in order, whole pairs), by A's score in each.
pub fn pentanomial(results: &[GameResult]) -> Pentanomial {
    let mut counts = Pentanomial::default();
    let score = |r: &GameResult| (f64::from(r.result) + 1.0) / 2.0;
    for pair in results.chunks_exact(2) {
        counts.add_pair(score(&pair[0]), score(&pair[1]));
    }
    counts
}

/// Plays `candidate` (A) against `best` (B), both checkpoints of one game. Reproducible
/// from `seed` (the games an SPRT stops at too); `cancel` stops it between games (an error).
pub fn gate_match(
    candidate: &Path,
    best: &Path,
    settings: &GateSettings,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> Result<GateResult, GateError> {
    // The test's game limit is the match's.
    let settings = &GateSettings {
        sprt: settings.sprt.map(|c| SprtConfig { max_games: settings.games, ..c }),
        ..settings.clone()
    };
    if let Some(sprt) = &settings.sprt {
        sprt.validate()?;
    }
    let a = checkpoint::read_sidecar(candidate)?;
    let b = checkpoint::read_sidecar(best)?;
    let game = a.architecture.game.clone();
    if b.architecture.game != game {
        return Err(GateError::OtherGames {
            candidate: candidate.to_path_buf(),
            game,
            best: best.to_path_buf(),
            best_game: b.architecture.game,
        });
    }
    let (a, b) = (gate_player(candidate, settings), gate_player(best, settings));
    with_contest!(game, contest => gate_players(contest, &game, &a, &b, settings, seed, cancel))
}

/// The gate of `candidate` against `best`, players of `game`, in `contest` (`game`'s).
pub fn gate_players<C: GateContest>(
    _contest: C,
    game: &GameSpec,
    candidate: &PlayerSpec,
    best: &PlayerSpec,
    settings: &GateSettings,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> Result<GateResult, GateError> {
    let probe = game.probe()?;
    dojo_game::with_game!(probe, g => gate_typed::<C, _>(g, game, candidate, best, settings, seed, cancel))
}

fn gate_typed<C: GateContest, G: BaselinePlayers>(
    _probe: G,
    game: &GameSpec,
    candidate: &PlayerSpec,
    best: &PlayerSpec,
    settings: &GateSettings,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> Result<GateResult, GateError> {
    let start = |rng: &mut Rng| {
        let any = game.new_game(rng).expect("the probe game started");
        G::from_any(any).expect("every game of a spec has the probe's type")
    };
    C::gate(Gate { game, candidate, best, start: &start, settings, seed, cancel })
}

/// The network player of a gate (both sides play alike).
fn gate_player(path: &Path, settings: &GateSettings) -> PlayerSpec {
    let search = settings.search.clone();
    PlayerSpec::Net(NetSpec {
        path: path.to_path_buf(),
        average_symmetries: settings.average_symmetries,
        search,
        clock_ms: None,
    })
}

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
    pub fn new(game: &GameSpec, candidate: &[GameScore], best: &[GameScore]) -> Result<ScoreComparison, GateError> {
        if candidate.len() != best.len() || candidate.is_empty() {
            return Err(GateError::Unpaired { candidate: candidate.len(), best: best.len() });
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

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_arbiter::players::{MctsSpec, RandomSpec, UctSpec};
    use dojo_search::config::SearchMode;

    #[test]
    fn both_sides_of_a_gate_search_as_the_run_does() {
        // A Gumbel run's self-play search, exploring as self-play does.
        let run = SearchConfig {
            mode: SearchMode::Gumbel,
            nonroot_noise_epsilon: 0.1,
            forced_visits: dojo_search::config::ForcedVisits::Min(2),
            c_puct: 2.5,
            ..SearchConfig::default()
        };
        let settings = GateSettings {
            games: 2,
            sprt: None,
            search: run.as_player(32),
            opening_plies: 4,
            average_symmetries: false,
            threads: 1,
        };
        let player = gate_player(Path::new("v2.safetensors"), &settings);
        assert_eq!(player.to_string(), "net:v2.safetensors:sims=32:noavg:mode=gumbel");
        let puct = SearchConfig { mode: SearchMode::Puct, ..run.clone() };
        let puct = GateSettings { search: puct.as_player(32), average_symmetries: true, ..settings };
        assert_eq!(gate_player(Path::new("v2.safetensors"), &puct).to_string(), "net:v2.safetensors:sims=32");
        // The run's threat-space search too, and any other setting that is not self-play's.
        let more = SearchConfig { vcf_nodes: 500, fpu_reduction: 0.3, tactics: false, ..run };
        let more = GateSettings { search: more.as_player(32), ..puct };
        let player = gate_player(Path::new("v2.safetensors"), &more).to_string();
        assert!(player.contains(":vcf=500") && player.contains("fpu_reduction=0.3"), "{player}");
        assert!(player.contains("tactics=false") && player.contains("mode=gumbel"), "{player}");
    }

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

        let err = ScoreComparison::new(&spec, &games(&[1, 2]), &games(&[1])).unwrap_err().to_string();
        assert!(err.contains("2 candidate games and 1 of the best"), "{err}");
        assert!(ScoreComparison::new(&spec, &[], &[]).is_err());
    }

    #[test]
    fn players_are_compared_on_the_same_games() {
        let settings = GateSettings {
            games: 6,
            sprt: Some(crate::sprt::SprtConfig { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.1, max_games: 6 }),
            search: SearchConfig::for_play(1),
            opening_plies: 4,
            average_symmetries: false,
            threads: 2,
        };
        let (uct, mcts, random) = (
            PlayerSpec::Uct(UctSpec { iterations: 8 }),
            PlayerSpec::Mcts(MctsSpec::rollouts(8)),
            PlayerSpec::Random(RandomSpec),
        );
        // uct:8 and mcts:8 are one player on 2048: every pair is equal.
        let gate = |a: &PlayerSpec, b: &PlayerSpec, cancel| {
            gate_players(OnePlayer, &GameSpec::Twenty48, a, b, &settings, 9, cancel).map(|g| g.scores.unwrap())
        };
        let c = gate(&uct, &mcts, None).unwrap();
        assert_eq!((c.games, c.equal, c.difference), (6, 6, 0.0));
        assert!(!c.promotes() && c.sprt_skipped);
        assert!(c.describe().ends_with("; fixed games (the SPRT does not apply to scores)"), "{}", c.describe());
        // A search beats random moves on average.
        let c = gate(&uct, &random, None).unwrap();
        assert!(c.promotes() && c.candidate.mean > c.best.mean, "{c:?}");
        let cancel = AtomicBool::new(true);
        let err = gate(&uct, &random, Some(&cancel)).unwrap_err().to_string();
        assert_eq!(err, "the match was cancelled");
    }
}
