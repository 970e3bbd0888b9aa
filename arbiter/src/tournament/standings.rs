//! A tournament's standings: every player's results and the measure it is ranked by, best
//! first, written to the tournament's folder, drawn ([`super::plot`]) and sent to
//! TensorBoard. The measure is the contest's ([`crate::contest`]):
//!
//! - Two-player games: a rating ([`Standings`], `ratings.json`), fitted to all the games at
//!   once by maximum likelihood ([`crate::rating`]: Bradley–Terry with a draw parameter, as
//!   BayesElo and Ordo do), one player anchored at a fixed rating, with 95% intervals from
//!   the profile likelihood.
//! - One-player games: the mean score ([`ScoreStandings`], `scores.json`), every player's
//!   games summarised as `dojo match` summarises one player's (mean, median and max score,
//!   a 95% interval of the mean, seed 002's reach-rate table). Only games numbered below
//!   the tournament's games per player count: every player played those on the same seeds,
//!   so the means compare players on the same games. (Games past that number, from a
//!   session asked for more, stay in `results.jsonl` and count again once the tournament
//!   asks for them.)
//!
//! Both are ranked, drawn, sent to TensorBoard and searched for the best checkpoint the
//! same way: through [`Ranking`].

use super::gauntlet::{gauntlet_lines, GauntletLine};
use super::{Entrant, GameLine, ScoreLine, TournamentSpec};
use crate::matches::Tally;
use crate::rating::{fit, FitError, PairResults};
use dojo_game::GameScore;
use dojo_game::{GameError, GameSpec};
use dojo_record::score::{reach_tiles, ScoreReport};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Why standings cannot be made, or sent to TensorBoard. A wrapped error's text is part of
/// the message and not also its `source()`, so that `dojo`'s `{:#}` does not print it twice.
#[derive(Debug, thiserror::Error)]
pub enum StandingsError {
    #[error("a two-player tournament's ratings need an anchor player")]
    NoAnchor,
    #[error("the anchor {anchor} is not one of the players")]
    AnchorNotPlayer { anchor: String },
    /// The results cannot be fitted.
    #[error(transparent)]
    Fit(#[from] FitError),
    /// The tournament's game (`game`, as written) does not parse.
    #[error("game {game:?}: {error}")]
    Game { game: String, error: GameError },
    /// TensorBoard's event file in `dir` cannot be written.
    #[error("{}: {error}", .dir.display())]
    TensorBoard { dir: PathBuf, error: std::io::Error },
    /// An old event file cannot be removed.
    #[error("cannot remove {}: {error}", .path.display())]
    Remove { path: PathBuf, error: std::io::Error },
}

/// One player's place in standings: the measure it is ranked by (a rating, a mean score)
/// and its 95% interval (None: no games yet; an end None: unbounded that way).
#[derive(Clone, Debug, PartialEq)]
pub struct Point<'a> {
    pub player: &'a Entrant,
    pub value: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// More TensorBoard scalars at a checkpoint's training step (tag, value).
    pub scalars: Vec<(String, f64)>,
}

/// Standings of either kind, as the tournament writes, draws and reads them.
pub trait Ranking: Serialize {
    /// The measure's TensorBoard name: `tournament/NAME` for the checkpoints,
    /// `tournament/NAME_of/PLAYER` for the players that are not.
    const MEASURE: &'static str;
    /// The least room a plot leaves above and below the values, in the measure's units.
    const PLOT_MARGIN: f64;
    /// What a checkpoint has done to be ranked, as in "no checkpoint of the run was rated".
    const RANKED: &'static str;
    /// Every player, best first.
    fn points(&self) -> Vec<Point<'_>>;
    /// The plot's y axis.
    fn axis(&self) -> String;
    /// The table people read, best first.
    fn table(&self) -> String;
    /// A player's measure in words: "rated 1234", "mean score 5120.5".
    fn merit(value: f64) -> String;
    /// Games counted.
    fn games(&self) -> usize;

    /// The best-ranked player that is one of a run's checkpoints and whose version
    /// `on_disk` says the run still has (one pruned since it played cannot be promoted).
    fn best_checkpoint(&self, on_disk: &dyn Fn(u64) -> bool) -> Option<Point<'_>> {
        self.points().into_iter().find(|p| p.player.version.is_some_and(on_disk) && p.value.is_some())
    }

    /// The checkpoints' measures as TensorBoard scalars against their training steps, in a
    /// folder of this tournament's own (`tournament/MEASURE` with each point's own scalars,
    /// and each fixed player's measure as a flat line `tournament/MEASURE_of/NAME`): the
    /// folder's old files are replaced, so the curve is these standings', once.
    fn to_tensorboard(&self, dir: &Path) -> Result<(), StandingsError> {
        clear_tensorboard(dir)?;
        let all = self.points();
        let mut points: Vec<&Point<'_>> = all.iter().filter(|p| p.player.step.is_some() && p.value.is_some()).collect();
        points.sort_by_key(|p| p.player.step);
        let references: Vec<(String, f64)> = all
            .iter()
            .filter(|p| p.player.step.is_none())
            .filter_map(|p| Some((format!("tournament/{}_of/{}", Self::MEASURE, p.player.name), p.value?)))
            .collect();
        let measure = format!("tournament/{}", Self::MEASURE);
        let failed = |error| StandingsError::TensorBoard { dir: dir.to_path_buf(), error };
        let mut writer = dojo_proto::tensorboard::EventWriter::create(dir).map_err(failed)?;
        for p in points {
            let (Some(step), Some(value)) = (p.player.step, p.value) else { continue };
            let mut scalars: Vec<(&str, f64)> = vec![(measure.as_str(), value)];
            scalars.extend(p.scalars.iter().map(|(tag, v)| (tag.as_str(), *v)));
            scalars.extend(references.iter().map(|(tag, v)| (tag.as_str(), *v)));
            writer.scalars(step as i64, &scalars).map_err(failed)?;
        }
        writer.flush().map_err(failed)
    }
}

/// Removes the TensorBoard event files in `dir`, so standings written there next are the
/// only curve (a tournament's folder holds its latest standings, not their history).
fn clear_tensorboard(dir: &Path) -> Result<(), StandingsError> {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten().filter(|e| e.file_name().to_string_lossy().starts_with("events.out.tfevents.")) {
            std::fs::remove_file(e.path()).map_err(|error| StandingsError::Remove { path: e.path(), error })?;
        }
    }
    Ok(())
}

/// How a two-player tournament's intervals are computed, for readers of `ratings.json`.
pub const INTERVAL_METHOD: &str =
    "95% profile-likelihood interval: the ratings where the log-likelihood, maximised over every other rating and the draw parameter, is 1.92 below its maximum";

/// One player's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// Who: name, spec, and for a checkpoint its version and step.
    #[serde(flatten)]
    pub player: Entrant,
    /// None for a player without a game yet.
    pub elo: Option<f64>,
    /// The 95% interval's ends; none where it is unbounded that way (a player who won, or
    /// lost, every game).
    pub low: Option<f64>,
    pub high: Option<f64>,
    #[serde(flatten)]
    pub tally: Tally,
    /// Points per game: wins 1, draws 1/2.
    pub score: f64,
    /// Games lost by forfeit (an engine that crashed, timed out or answered nonsense).
    pub forfeits: u32,
}

/// Everything `ratings.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standings {
    pub game: String,
    pub anchor: String,
    pub anchor_elo: f64,
    /// The draw parameter θ of the fit, in Elo: the larger, the more often equals draw.
    pub draw_elo: Option<f64>,
    pub interval: String,
    pub games: usize,
    /// Best first; players without games last.
    pub players: Vec<Standing>,
    /// A gauntlet's results reference by reference (see [`Standings::with_gauntlet`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gauntlet: Vec<GauntletLine>,
}

/// The standings of `entrants` after `results`, `anchor` (a name) rated `anchor_elo`.
pub fn standings(
    game: &str,
    entrants: &[Entrant],
    results: &[GameLine],
    anchor: &str,
    anchor_elo: f64,
) -> Result<Standings, StandingsError> {
    let index: HashMap<&str, usize> = entrants.iter().enumerate().map(|(i, e)| (e.name.as_str(), i)).collect();
    let anchor_index =
        *index.get(anchor).ok_or_else(|| StandingsError::AnchorNotPlayer { anchor: anchor.to_string() })?;
    let mut tallies = vec![Tally::default(); entrants.len()];
    let mut forfeits = vec![0u32; entrants.len()];
    let mut pairs: HashMap<(usize, usize), PairResults> = HashMap::new();
    for line in results {
        // Results of players no longer in the tournament's list cannot be rated.
        let (Some(&a), Some(&b)) = (index.get(line.key.a.as_str()), index.get(line.key.b.as_str())) else {
            continue;
        };
        tallies[a].add(line.result);
        tallies[b].add(-line.result);
        if line.forfeit.is_some() {
            forfeits[if line.result < 0 { a } else { b }] += 1;
        }
        let p = pairs.entry((a, b)).or_insert(PairResults { a, b, wins: 0.0, draws: 0.0, losses: 0.0 });
        match line.result {
            1 => p.wins += 1.0,
            0 => p.draws += 1.0,
            _ => p.losses += 1.0,
        }
    }
    // Only players with games are fitted (one without has no likelihood to speak of).
    let rated: Vec<usize> = (0..entrants.len()).filter(|&i| tallies[i].games > 0 || i == anchor_index).collect();
    let position: HashMap<usize, usize> = rated.iter().enumerate().map(|(k, &i)| (i, k)).collect();
    let mut pair_results: Vec<PairResults> =
        pairs.into_values().map(|p| PairResults { a: position[&p.a], b: position[&p.b], ..p }).collect();
    pair_results.sort_by_key(|p| (p.a, p.b));
    let fitted = if pair_results.is_empty() {
        None
    } else {
        Some(fit(rated.len(), &pair_results, position[&anchor_index], anchor_elo)?)
    };
    let mut players: Vec<Standing> = entrants
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let rating = fitted.as_ref().and_then(|f| position.get(&i).map(|&k| f.ratings[k].clone()));
            let tally = tallies[i];
            Standing {
                player: e.clone(),
                elo: rating.as_ref().map(|r| r.elo),
                low: rating.as_ref().and_then(|r| r.low),
                high: rating.as_ref().and_then(|r| r.high),
                tally,
                score: tally.score(),
                forfeits: forfeits[i],
            }
        })
        .collect();
    players.sort_by(|x, y| y.elo.unwrap_or(f64::NEG_INFINITY).total_cmp(&x.elo.unwrap_or(f64::NEG_INFINITY)));
    Ok(Standings {
        game: game.to_string(),
        anchor: anchor.to_string(),
        anchor_elo,
        draw_elo: fitted.as_ref().map(|f| f.draw_elo),
        interval: INTERVAL_METHOD.to_string(),
        games: results.len(),
        players,
        gauntlet: Vec::new(),
    })
}

impl Standings {
    /// These standings with a gauntlet's results against each of its `references` (in
    /// their order, weakest first for a ladder): scores with 95% intervals and the highest
    /// reference each player beat.
    pub fn with_gauntlet(self, entrants: &[Entrant], references: &[String], results: &[GameLine]) -> Standings {
        Standings { gauntlet: gauntlet_lines(entrants, references, results), ..self }
    }
}

impl Ranking for Standings {
    const MEASURE: &'static str = "elo";
    const PLOT_MARGIN: f64 = 25.0;
    const RANKED: &'static str = "was rated";

    /// A gauntlet's checkpoints also get the highest reference each beat, as its place in
    /// the references' order (1 the first; 0 none): how far up a ladder it climbed.
    fn points(&self) -> Vec<Point<'_>> {
        let climbed: HashMap<u64, f64> = self
            .gauntlet
            .iter()
            .filter_map(|l| {
                let place = l.highest_beaten.as_ref().map_or(0, |b| {
                    1 + l.against.iter().position(|a| &a.reference == b).expect("beaten is one of them")
                });
                Some((l.step?, place as f64))
            })
            .collect();
        self.players
            .iter()
            .map(|p| Point {
                player: &p.player,
                value: p.elo,
                low: p.low,
                high: p.high,
                scalars: p
                    .player
                    .step
                    .and_then(|step| climbed.get(&step))
                    .map(|&place| ("tournament/highest_reference_beaten".to_string(), place))
                    .into_iter()
                    .collect(),
            })
            .collect()
    }

    fn axis(&self) -> String {
        format!("Elo ({} = {})", self.anchor, self.anchor_elo)
    }

    /// The table people read: sorted by rating.
    fn table(&self) -> String {
        let width = self.players.iter().map(|p| p.player.name.len()).max().unwrap_or(6).clamp(6, 60);
        let mut out = format!(
            "{:<4} {:<width$} {:>7} {:>17} {:>6} {:>7} {:>8}\n",
            "rank", "player", "elo", "95% interval", "games", "score", "step"
        );
        let bound = |v: Option<f64>, open: &str| v.map_or(open.to_string(), |v| format!("{v:.0}"));
        for (rank, p) in self.players.iter().enumerate() {
            let elo = p.elo.map_or("-".to_string(), |e| format!("{e:.0}"));
            let interval = match p.elo {
                Some(_) if p.player.name == self.anchor => "(anchor)".to_string(),
                Some(_) => format!("[{}, {}]", bound(p.low, "-inf"), bound(p.high, "+inf")),
                None => String::new(),
            };
            let name: String = p.player.name.chars().take(width).collect();
            out.push_str(&format!(
                "{:<4} {name:<width$} {elo:>7} {interval:>17} {:>6} {:>6.1}% {:>8}\n",
                rank + 1,
                p.tally.games,
                100.0 * p.score,
                p.player.step.map_or(String::new(), |s| s.to_string()),
            ));
        }
        out.push_str(&format!(
            "{} games; {} anchored at {}; draw parameter {}; intervals: 95% profile likelihood\n",
            self.games,
            self.anchor,
            self.anchor_elo,
            self.draw_elo.map_or("-".to_string(), |d| format!("{d:.0} Elo"))
        ));
        out.push_str(&super::gauntlet::table(&self.gauntlet));
        out
    }

    fn merit(value: f64) -> String {
        format!("rated {value:.0}")
    }

    fn games(&self) -> usize {
        self.games
    }
}

/// How a one-player tournament's intervals are computed, for readers of `scores.json`.
pub const SCORE_INTERVAL_METHOD: &str =
    "95% interval of the mean score: mean ± 1.96 × the sample standard deviation / √games (normal approximation); none below two games";

/// One row of a player's reach-rate table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReachRate {
    pub tile: u32,
    /// The share of games (0..=1) whose largest tile was this one or bigger.
    pub reached: f64,
    /// The share whose largest tile was exactly this one.
    pub ended: f64,
}

/// One player's line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreStanding {
    /// Who: name, spec, and for a checkpoint its version and step.
    #[serde(flatten)]
    pub player: Entrant,
    pub games: u32,
    /// None for a player without a game yet.
    pub mean: Option<f64>,
    /// The 95% interval of the mean; none below two games.
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub median: Option<f64>,
    pub max: Option<u64>,
    /// Games the player stopped before their end (it failed to move).
    pub forfeits: u32,
    /// The same tiles for every player of the tournament.
    pub reach: Vec<ReachRate>,
}

/// Everything `scores.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreStandings {
    pub game: String,
    pub games_per_player: u32,
    pub interval: String,
    /// Games counted, over all players.
    pub games: usize,
    /// Highest mean first; players without games last.
    pub players: Vec<ScoreStanding>,
}

/// The standings of `spec`'s players after `results`.
pub fn score_standings(spec: &TournamentSpec, results: &[ScoreLine]) -> Result<ScoreStandings, StandingsError> {
    let game: GameSpec = spec.game.parse().map_err(|error| StandingsError::Game { game: spec.game.clone(), error })?;
    let index: HashMap<&str, usize> = spec.entrants.iter().enumerate().map(|(i, e)| (e.name.as_str(), i)).collect();
    let mut games: Vec<Vec<&ScoreLine>> = vec![Vec::new(); spec.entrants.len()];
    for line in results.iter().filter(|l| l.key.game < spec.games_per_pair) {
        // Games of players no longer in the tournament's list are not ranked.
        if let Some(&i) = index.get(line.key.player.as_str()) {
            games[i].push(line);
        }
    }
    let largest = results.iter().map(|l| l.max_tile).max().unwrap_or(0);
    let tiles = reach_tiles(&game, largest);
    let mut players: Vec<ScoreStanding> = spec
        .entrants
        .iter()
        .zip(&games)
        .map(|(entrant, lines)| {
            let scores: Vec<GameScore> =
                lines.iter().map(|l| GameScore { score: l.score, max_tile: l.max_tile }).collect();
            let report = ScoreReport::new(&game, &scores);
            let share = |count: usize| if lines.is_empty() { 0.0 } else { count as f64 / lines.len() as f64 };
            let played = !lines.is_empty();
            ScoreStanding {
                player: entrant.clone(),
                games: lines.len() as u32,
                mean: played.then_some(report.mean),
                low: report.interval.map(|i| i[0]),
                high: report.interval.map(|i| i[1]),
                median: played.then_some(report.median),
                max: played.then_some(report.max),
                forfeits: lines.iter().filter(|l| l.forfeit.is_some()).count() as u32,
                reach: tiles
                    .iter()
                    .map(|&tile| ReachRate {
                        tile,
                        reached: share(lines.iter().filter(|l| l.max_tile >= tile).count()),
                        ended: share(lines.iter().filter(|l| l.max_tile == tile).count()),
                    })
                    .collect(),
            }
        })
        .collect();
    // Stable: equal means keep the tournament's order.
    players.sort_by(|x, y| y.mean.unwrap_or(f64::NEG_INFINITY).total_cmp(&x.mean.unwrap_or(f64::NEG_INFINITY)));
    Ok(ScoreStandings {
        game: spec.game.clone(),
        games_per_player: spec.games_per_pair,
        interval: SCORE_INTERVAL_METHOD.to_string(),
        games: games.iter().map(Vec::len).sum(),
        players,
    })
}

impl Ranking for ScoreStandings {
    const MEASURE: &'static str = "mean_score";
    const PLOT_MARGIN: f64 = 1.0;
    const RANKED: &'static str = "has played";

    /// Checkpoints also get each tile's reach rate, `tournament/reached/TILE`.
    fn points(&self) -> Vec<Point<'_>> {
        self.players
            .iter()
            .map(|p| Point {
                player: &p.player,
                value: p.mean,
                low: p.low,
                high: p.high,
                scalars: p.reach.iter().map(|r| (format!("tournament/reached/{}", r.tile), r.reached)).collect(),
            })
            .collect()
    }

    fn axis(&self) -> String {
        format!("mean score ({} games a player, 95% intervals)", self.games_per_player)
    }

    /// The table people read: sorted by mean score, with each player's reach rates (the
    /// share of games reaching each tile) on its line.
    fn table(&self) -> String {
        let width = self.players.iter().map(|p| p.player.name.len()).max().unwrap_or(6).clamp(6, 60);
        let tiles: Vec<u32> = self.players.first().map_or(Vec::new(), |p| p.reach.iter().map(|r| r.tile).collect());
        let mut out = format!(
            "{:<4} {:<width$} {:>10} {:>21} {:>10} {:>8} {:>6} {:>8}",
            "rank", "player", "mean", "95% interval", "median", "max", "games", "step"
        );
        for tile in &tiles {
            out.push_str(&format!(" {tile:>6}"));
        }
        out.push('\n');
        let number = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}"));
        for (rank, p) in self.players.iter().enumerate() {
            let interval = match (p.low, p.high) {
                (Some(low), Some(high)) => format!("[{low:.0}, {high:.0}]"),
                _ => String::new(),
            };
            let name: String = p.player.name.chars().take(width).collect();
            out.push_str(&format!(
                "{:<4} {name:<width$} {:>10} {interval:>21} {:>10} {:>8} {:>6} {:>8}",
                rank + 1,
                number(p.mean),
                number(p.median),
                p.max.map_or("-".to_string(), |m| m.to_string()),
                p.games,
                p.player.step.map_or(String::new(), |s| s.to_string()),
            ));
            for r in &p.reach {
                out.push_str(&format!(" {:>5.1}%", 100.0 * r.reached));
            }
            out.push('\n');
        }
        let forfeits: u32 = self.players.iter().map(|p| p.forfeits).sum();
        out.push_str(&format!(
            "{} games, {} per player on the same seeds{}; intervals: 95% of the mean; tile columns: share of games reaching the tile\n",
            self.games,
            self.games_per_player,
            if forfeits > 0 { format!(", {forfeits} forfeited") } else { String::new() },
        ));
        out
    }

    fn merit(value: f64) -> String {
        format!("mean score {value:.1}")
    }

    fn games(&self) -> usize {
        self.games
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::test_games::{entrant, line};

    #[test]
    fn standings_count_each_side_sort_by_rating_and_leave_the_unplayed_unrated() {
        let entrants =
            [entrant("random", None), entrant("v10", Some(10)), entrant("v20", Some(20)), entrant("v30", Some(30))];
        let mut results = Vec::new();
        // v20 beats v10 3-1, both beat random 4-0; v30 has not played.
        for g in 0..4 {
            results.push(line("random", "v10", g, -1));
            results.push(line("random", "v20", g, -1));
            results.push(line("v10", "v20", g, if g == 0 { 1 } else { -1 }));
        }
        let mut forfeited = line("v10", "v20", 4, 0);
        forfeited.forfeit = Some("v10 forfeits: no".into());
        forfeited.result = -1;
        results.push(forfeited);
        let s = standings("connect4", &entrants, &results, "random", 0.0).unwrap();
        let names: Vec<&str> = s.players.iter().map(|p| p.player.name.as_str()).collect();
        assert_eq!(names, ["v20", "v10", "random", "v30"]);
        let v20 = &s.players[0];
        assert_eq!(v20.tally, Tally { games: 9, wins: 8, draws: 0, losses: 1 });
        assert_eq!(s.players[1].forfeits, 1);
        assert!(s.players[0].elo.unwrap() > s.players[1].elo.unwrap());
        assert!(s.players[1].elo.unwrap() > 0.0);
        // The anchor lost every game, and keeps its fixed rating.
        assert_eq!((s.players[2].elo, s.players[2].low, s.players[2].high), (Some(0.0), Some(0.0), Some(0.0)));
        assert_eq!((s.players[3].elo, s.players[3].tally.games), (None, 0));
        assert_eq!(s.best_checkpoint(&|_| true).unwrap().player.name, "v20");
        // v20 pruned from the run since it played: the best left on disk.
        assert_eq!(s.best_checkpoint(&|v| v != 20).unwrap().player.name, "v10");
        let table = s.table();
        assert!(table.lines().nth(1).unwrap().starts_with("1    v20"), "{table}");
        assert!(table.contains("(anchor)"), "{table}");
        assert!(table.contains("13 games; random anchored at 0"), "{table}");
        let err = standings("connect4", &entrants, &results, "mcts:1000", 0.0).unwrap_err();
        assert_eq!(err.to_string(), "the anchor mcts:1000 is not one of the players");
    }

    #[test]
    fn a_player_that_won_every_game_has_a_finite_rating_and_an_open_interval() {
        let entrants = [entrant("random", None), entrant("v10", Some(10))];
        let results: Vec<GameLine> = (0..10).map(|g| line("random", "v10", g, -1)).collect();
        let s = standings("connect4", &entrants, &results, "random", 0.0).unwrap();
        let v10 = &s.players[0];
        let elo = v10.elo.unwrap();
        assert!(elo.is_finite() && elo > 200.0, "{v10:?}");
        assert!(v10.low.unwrap() > 0.0 && v10.low.unwrap() < elo, "{v10:?}");
        // Only the prior's virtual draw bounds it from above: the interval leans that way.
        let above = v10.high.map_or(f64::INFINITY, |h| h - elo);
        assert!(above > elo - v10.low.unwrap(), "{v10:?}");
    }

    /// The scalars of every event in the TensorBoard folder `dir` written by `to_tensorboard`
    /// (tags as the file holds them: readable bytes between the records).
    fn tensorboard_text(dir: &Path) -> String {
        let events: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        assert_eq!(events.len(), 1, "the old events are replaced");
        String::from_utf8_lossy(&std::fs::read(events[0].path()).unwrap()).into_owned()
    }

    #[test]
    fn ratings_go_to_tensorboard_with_the_ladder_each_checkpoint_climbed() {
        let entrants = [entrant("random", None), entrant("v10", Some(10)), entrant("mcts:5", None)];
        let references = ["random".to_string(), "mcts:5".to_string()];
        let results = [line("random", "v10", 0, -1), line("random", "v10", 1, -1), line("v10", "mcts:5", 0, -1)];
        let s = standings("connect4", &entrants, &results, "random", 0.0).unwrap().with_gauntlet(
            &entrants,
            &references,
            &results,
        );
        let v10 = s.points().into_iter().find(|p| p.player.name == "v10").unwrap();
        assert_eq!(v10.scalars, [("tournament/highest_reference_beaten".to_string(), 1.0)]);
        assert_eq!(Standings::merit(1234.4), "rated 1234");
        let dir = tempfile::tempdir().unwrap();
        s.to_tensorboard(dir.path()).unwrap();
        s.to_tensorboard(dir.path()).unwrap();
        let text = tensorboard_text(dir.path());
        for tag in
            ["tournament/elo", "tournament/elo_of/random", "tournament/elo_of/mcts:5", "highest_reference_beaten"]
        {
            assert!(text.contains(tag), "{tag}");
        }
        assert!(!text.contains("mean_score"));
    }

    use crate::tournament::test_games::spec_2048;
    use crate::tournament::OnePlayerKey;

    fn score_line(player: &str, game: u32, score: u64, max_tile: u32) -> ScoreLine {
        ScoreLine {
            key: OnePlayerKey { player: player.into(), game },
            score,
            max_tile,
            moves: 100,
            forfeit: None,
            seconds: 0.0,
            unix_ms: 0,
        }
    }

    fn checkpoint(name: &str, version: Option<u64>) -> Entrant {
        Entrant { name: name.into(), spec: "random".into(), version, step: version.map(|v| v * 50) }
    }

    #[test]
    fn standings_rank_by_mean_score_count_only_the_shared_games_and_leave_the_unplayed_last() {
        let spec = spec_2048(
            vec![
                checkpoint("random", None),
                checkpoint("v10", Some(10)),
                checkpoint("v20", Some(20)),
                checkpoint("v30", Some(30)),
            ],
            4,
        );
        let mut results = vec![
            score_line("random", 0, 1000, 128),
            score_line("random", 1, 1400, 128),
            score_line("random", 2, 1200, 256),
            score_line("random", 3, 1000, 64),
            score_line("v10", 0, 20_000, 2048),
            score_line("v10", 1, 60_000, 4096),
            score_line("v10", 2, 10_000, 1024),
            score_line("v10", 3, 30_000, 2048),
            // v20 has played two games so far; v30 none.
            score_line("v20", 0, 5000, 512),
            score_line("v20", 1, 7000, 512),
            // Past the tournament's games, and a player no longer in it: not counted.
            score_line("random", 4, 1_000_000, 16384),
            score_line("gone", 0, 9_000_000, 32768),
        ];
        let mut forfeited = score_line("v20", 2, 6000, 512);
        forfeited.forfeit = Some("v20 forfeits: no".into());
        results.push(forfeited);
        let s = score_standings(&spec, &results).unwrap();
        let names: Vec<&str> = s.players.iter().map(|p| p.player.name.as_str()).collect();
        assert_eq!(names, ["v10", "v20", "random", "v30"]);
        assert_eq!(s.games, 11);
        let v10 = &s.players[0];
        assert_eq!((v10.games, v10.mean, v10.median, v10.max), (4, Some(30_000.0), Some(25_000.0), Some(60_000)));
        // Sample sd 21602.5; half-width 1.96 × sd / 2 = 21170.
        assert!((v10.high.unwrap() - 51_170.0).abs() < 1.0 && (v10.low.unwrap() - 8_830.0).abs() < 1.0, "{v10:?}");
        let reach: Vec<(u32, f64, f64)> = v10.reach.iter().map(|r| (r.tile, r.reached, r.ended)).collect();
        assert_eq!(
            reach,
            [(2048, 0.75, 0.5), (4096, 0.25, 0.25), (8192, 0.0, 0.0), (16384, 0.0, 0.0), (32768, 0.0, 0.0)]
        );
        assert_eq!((s.players[1].mean, s.players[1].forfeits), (Some(6000.0), 1));
        assert_eq!(s.players[2].mean, Some(1150.0));
        let v30 = &s.players[3];
        assert_eq!((v30.games, v30.mean, v30.low, v30.max), (0, None, None, None));
        assert_eq!(v30.reach.len(), 5, "every player lists the same tiles");
        assert_eq!(s.best_checkpoint(&|_| true).unwrap().player.name, "v10");

        let table = s.table();
        let rows: Vec<&str> = table.lines().skip(1).take(4).map(|l| l.split_whitespace().nth(1).unwrap()).collect();
        assert_eq!(rows, names, "{table}");
        assert!(table.lines().next().unwrap().ends_with("  2048   4096   8192  16384  32768"), "{table}");
        assert!(
            table.contains("30000.0         [8830, 51170]    25000.0    60000      4      500  75.0%  25.0%"),
            "{table}"
        );
        assert!(table.contains("11 games, 4 per player on the same seeds, 1 forfeited;"), "{table}");
        let json = serde_json::to_string(&s).unwrap();
        // scores.json reads back (the intervals to the last bit or so: JSON floats).
        let back = serde_json::from_str::<ScoreStandings>(&json).unwrap();
        let summary = |s: &ScoreStandings| -> Vec<(Entrant, u32, Option<f64>, Vec<ReachRate>)> {
            s.players.iter().map(|p| (p.player.clone(), p.games, p.mean, p.reach.clone())).collect()
        };
        assert_eq!(summary(&back), summary(&s));
    }

    #[test]
    fn checkpoints_go_to_tensorboard_against_their_steps() {
        let spec =
            spec_2048(vec![checkpoint("random", None), checkpoint("v10", Some(10)), checkpoint("v20", Some(20))], 2);
        let results = [
            score_line("random", 0, 100, 8),
            score_line("random", 1, 300, 16),
            score_line("v10", 0, 5000, 512),
            score_line("v20", 1, 9000, 1024),
        ];
        let s = score_standings(&spec, &results).unwrap();
        let dir = tempfile::tempdir().unwrap();
        s.to_tensorboard(dir.path()).unwrap();
        s.to_tensorboard(dir.path()).unwrap();
        let events: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(events.len(), 1, "the old events are replaced");
        let bytes = std::fs::read(events[0].path()).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains("tournament/mean_score") && text.contains("tournament/mean_score_of/random"));
        assert!(text.contains("tournament/reached/2048"));
    }
}
