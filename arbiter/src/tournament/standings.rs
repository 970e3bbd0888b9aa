//! A tournament's standings: every player's results and its rating, fitted to all the
//! games at once by maximum likelihood ([`crate::rating`]: Bradley–Terry with a draw
//! parameter, as BayesElo and Ordo do), one player anchored at a fixed rating, with 95%
//! intervals from the profile likelihood.

use super::gauntlet::{gauntlet_lines, GauntletLine};
use super::{Entrant, GameLine};
use crate::matches::Tally;
use crate::rating::{fit, PairResults};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How intervals are computed, for readers of `ratings.json`.
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
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
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
) -> Result<Standings, String> {
    let index: HashMap<&str, usize> = entrants.iter().enumerate().map(|(i, e)| (e.name.as_str(), i)).collect();
    let anchor_index = *index.get(anchor).ok_or_else(|| format!("the anchor {anchor} is not one of the players"))?;
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
            let t = &tallies[i];
            Standing {
                player: e.clone(),
                elo: rating.as_ref().map(|r| r.elo),
                low: rating.as_ref().and_then(|r| r.low),
                high: rating.as_ref().and_then(|r| r.high),
                games: t.games,
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                score: t.score(),
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

    /// The table people read: sorted by rating.
    pub fn table(&self) -> String {
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
                p.games,
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

    /// The checkpoints' ratings as TensorBoard scalars against their training steps, in a
    /// folder of this tournament's own (`tournament/elo`, and each reference's rating as a
    /// flat line `tournament/elo_of/NAME`): the folder's old files are replaced, so the
    /// curve is this fit's, once.
    pub fn to_tensorboard(&self, dir: &std::path::Path) -> Result<(), String> {
        super::clear_tensorboard(dir)?;
        let mut points: Vec<(u64, f64)> = self.players.iter().filter_map(|p| Some((p.player.step?, p.elo?))).collect();
        points.sort_by_key(|p| p.0);
        let references: Vec<(String, f64)> = self
            .players
            .iter()
            .filter(|p| p.player.step.is_none())
            .filter_map(|p| Some((format!("tournament/elo_of/{}", p.player.name), p.elo?)))
            .collect();
        let mut writer =
            dojo_proto::tensorboard::EventWriter::create(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // A gauntlet's highest reference beaten, as its place in the references' order
        // (1 the first; 0 none): how far up a ladder each checkpoint climbed.
        let climbed: std::collections::HashMap<u64, f64> = self
            .gauntlet
            .iter()
            .filter_map(|l| {
                let place = l.highest_beaten.as_ref().map_or(0, |b| {
                    1 + l.against.iter().position(|a| &a.reference == b).expect("beaten is one of them")
                });
                Some((l.step?, place as f64))
            })
            .collect();
        for (step, elo) in points {
            let mut scalars: Vec<(&str, f64)> = vec![("tournament/elo", elo)];
            if let Some(&place) = climbed.get(&step) {
                scalars.push(("tournament/highest_reference_beaten", place));
            }
            scalars.extend(references.iter().map(|(tag, e)| (tag.as_str(), *e)));
            writer.scalars(step as i64, &scalars).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        writer.flush().map_err(|e| format!("{}: {e}", dir.display()))
    }

    /// The best-rated player that is one of a run's checkpoints.
    pub fn best_checkpoint(&self) -> Option<&Standing> {
        self.players.iter().find(|p| p.player.version.is_some() && p.elo.is_some())
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
        assert_eq!((v20.games, v20.wins, v20.draws, v20.losses), (9, 8, 0, 1));
        assert_eq!(s.players[1].forfeits, 1);
        assert!(s.players[0].elo.unwrap() > s.players[1].elo.unwrap());
        assert!(s.players[1].elo.unwrap() > 0.0);
        // The anchor lost every game, and keeps its fixed rating.
        assert_eq!((s.players[2].elo, s.players[2].low, s.players[2].high), (Some(0.0), Some(0.0), Some(0.0)));
        assert_eq!((s.players[3].elo, s.players[3].games), (None, 0));
        assert_eq!(s.best_checkpoint().unwrap().player.name, "v20");
        let table = s.table();
        assert!(table.lines().nth(1).unwrap().starts_with("1    v20"), "{table}");
        assert!(table.contains("(anchor)"), "{table}");
        assert!(table.contains("13 games; random anchored at 0"), "{table}");
        let err = standings("connect4", &entrants, &results, "mcts:1000", 0.0).unwrap_err();
        assert_eq!(err, "the anchor mcts:1000 is not one of the players");
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
}
