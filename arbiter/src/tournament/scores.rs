//! A one-player tournament's standings (`scores.json`): every player's games summarised as
//! `dojo match` summarises one player's (mean, median and max score, a 95% interval of the
//! mean, seed 002's reach-rate table), ranked by mean score.
//!
//! Only games numbered below the tournament's games per player count: every player played
//! those on the same seeds, so the means compare players on the same games. (Games past
//! that number, from a session asked for more, stay in `results.jsonl` and count again
//! once the tournament asks for them.)

use super::solo::ScoreLine;
use super::{clear_tensorboard, Entrant, TournamentSpec};
use dojo_core::game::GameSpec;
use dojo_core::ntuple::report::{reach_tiles, GameScore, ScoreReport};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How intervals are computed, for readers of `scores.json`.
pub const INTERVAL_METHOD: &str =
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
pub fn score_standings(spec: &TournamentSpec, results: &[ScoreLine]) -> Result<ScoreStandings, String> {
    let game: GameSpec = spec.game.parse().map_err(|e| format!("game {:?}: {e}", spec.game))?;
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
        interval: INTERVAL_METHOD.to_string(),
        games: games.iter().map(Vec::len).sum(),
        players,
    })
}

impl ScoreStandings {
    /// The table people read: sorted by mean score, with each player's reach rates (the
    /// share of games reaching each tile) on its line.
    pub fn table(&self) -> String {
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

    /// The checkpoints' mean scores as TensorBoard scalars against their training steps, in
    /// a folder of this tournament's own: `tournament/mean_score`, each tile's reach rate
    /// `tournament/reached/TILE`, and each fixed player's mean score as a flat line
    /// `tournament/mean_score_of/NAME`. The folder's old files are replaced, so the curve is
    /// these standings', once.
    pub fn to_tensorboard(&self, dir: &std::path::Path) -> Result<(), String> {
        clear_tensorboard(dir)?;
        let mut points: Vec<&ScoreStanding> =
            self.players.iter().filter(|p| p.player.step.is_some() && p.mean.is_some()).collect();
        points.sort_by_key(|p| p.player.step);
        let references: Vec<(String, f64)> = self
            .players
            .iter()
            .filter(|p| p.player.step.is_none())
            .filter_map(|p| Some((format!("tournament/mean_score_of/{}", p.player.name), p.mean?)))
            .collect();
        let mut writer =
            dojo_proto::tensorboard::EventWriter::create(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for p in points {
            let (Some(step), Some(mean)) = (p.player.step, p.mean) else { continue };
            let reach: Vec<(String, f64)> =
                p.reach.iter().map(|r| (format!("tournament/reached/{}", r.tile), r.reached)).collect();
            let mut scalars: Vec<(&str, f64)> = vec![("tournament/mean_score", mean)];
            scalars.extend(reach.iter().map(|(tag, v)| (tag.as_str(), *v)));
            scalars.extend(references.iter().map(|(tag, v)| (tag.as_str(), *v)));
            writer.scalars(step as i64, &scalars).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        writer.flush().map_err(|e| format!("{}: {e}", dir.display()))
    }

    /// The checkpoint of a run with the highest mean score.
    pub fn best_checkpoint(&self) -> Option<&ScoreStanding> {
        self.players.iter().find(|p| p.player.version.is_some() && p.mean.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::solo::SoloKey;
    use crate::tournament::Format;

    fn line(player: &str, game: u32, score: u64, max_tile: u32) -> ScoreLine {
        ScoreLine {
            key: SoloKey { player: player.into(), game },
            score,
            max_tile,
            moves: 100,
            forfeit: None,
            seconds: 0.0,
            unix_ms: 0,
        }
    }

    fn entrant(name: &str, version: Option<u64>) -> Entrant {
        Entrant { name: name.into(), spec: "random".into(), version, step: version.map(|v| v * 50) }
    }

    fn spec(entrants: Vec<Entrant>, games: u32) -> TournamentSpec {
        TournamentSpec {
            game: "2048".into(),
            format: Format::RoundRobin,
            games_per_pair: games,
            opening_plies: 0,
            openings: Vec::new(),
            seed: 1,
            move_timeout_ms: 0,
            entrants,
        }
    }

    #[test]
    fn standings_rank_by_mean_score_count_only_the_shared_games_and_leave_the_unplayed_last() {
        let spec = spec(
            vec![entrant("random", None), entrant("v10", Some(10)), entrant("v20", Some(20)), entrant("v30", Some(30))],
            4,
        );
        let mut results = vec![
            line("random", 0, 1000, 128),
            line("random", 1, 1400, 128),
            line("random", 2, 1200, 256),
            line("random", 3, 1000, 64),
            line("v10", 0, 20_000, 2048),
            line("v10", 1, 60_000, 4096),
            line("v10", 2, 10_000, 1024),
            line("v10", 3, 30_000, 2048),
            // v20 has played two games so far; v30 none.
            line("v20", 0, 5000, 512),
            line("v20", 1, 7000, 512),
            // Past the tournament's games, and a player no longer in it: not counted.
            line("random", 4, 1_000_000, 16384),
            line("gone", 0, 9_000_000, 32768),
        ];
        let mut forfeited = line("v20", 2, 6000, 512);
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
        assert_eq!(s.best_checkpoint().unwrap().player.name, "v10");

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
        let spec = spec(vec![entrant("random", None), entrant("v10", Some(10)), entrant("v20", Some(20))], 2);
        let results = [
            line("random", 0, 100, 8),
            line("random", 1, 300, 16),
            line("v10", 0, 5000, 512),
            line("v20", 1, 9000, 1024),
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
