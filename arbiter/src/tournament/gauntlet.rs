//! A gauntlet's results reference by reference: each player's score against each
//! reference with its 95% interval, and the strongest reference it held. With references
//! listed weakest first (the rungs of a ladder, such as an engine at rising node caps),
//! that is how far up the ladder a player climbs, read off the games alone, beside the
//! rating the fit gives it.

use super::{Entrant, GameLine};
use crate::matches::Tally;
use serde::{Deserialize, Serialize};

/// One player's results against one reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgainstReference {
    pub reference: String,
    #[serde(flatten)]
    pub tally: Tally,
    /// The player's points per game (wins 1, draws 1/2) and its 95% Wilson interval.
    pub score: f64,
    pub low: f64,
    pub high: f64,
}

/// One player's line of the gauntlet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GauntletLine {
    pub player: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
    /// In the references' order.
    pub against: Vec<AgainstReference>,
    /// The last reference, in their order, against which the player scored at least half
    /// the points (none: below every one, or no games yet).
    pub highest_beaten: Option<String>,
}

/// The gauntlet's lines: one per player that is not a reference, in entrant order.
pub fn gauntlet_lines(entrants: &[Entrant], references: &[String], results: &[GameLine]) -> Vec<GauntletLine> {
    entrants
        .iter()
        .filter(|e| !references.contains(&e.name))
        .map(|e| {
            let against: Vec<AgainstReference> = references
                .iter()
                .map(|r| {
                    let mut tally = Tally::default();
                    for line in results {
                        if line.key.a == e.name && &line.key.b == r {
                            tally.add(line.result);
                        } else if &line.key.a == r && line.key.b == e.name {
                            tally.add(-line.result);
                        }
                    }
                    let (low, high) = tally.interval();
                    AgainstReference { reference: r.clone(), tally, score: tally.score(), low, high }
                })
                .collect();
            let highest_beaten =
                against.iter().rev().find(|a| a.tally.games > 0 && a.score >= 0.5).map(|a| a.reference.clone());
            GauntletLine { player: e.name.clone(), version: e.version, step: e.step, against, highest_beaten }
        })
        .collect()
}

/// The lines as a table: a row per player, a column per reference (score, 95% interval,
/// games), and the highest reference beaten.
pub fn table(lines: &[GauntletLine]) -> String {
    let Some(first) = lines.first() else { return String::new() };
    let width = lines.iter().map(|l| l.player.len()).max().unwrap_or(6).clamp(6, 40);
    let cell = |a: &AgainstReference| {
        if a.tally.games == 0 {
            "-".to_string()
        } else {
            format!("{:.0}% [{:.0},{:.0}] {}", 100.0 * a.score, 100.0 * a.low, 100.0 * a.high, a.tally.games)
        }
    };
    let cells: Vec<Vec<String>> = lines.iter().map(|l| l.against.iter().map(cell).collect()).collect();
    let widths: Vec<usize> = first
        .against
        .iter()
        .enumerate()
        .map(|(k, a)| cells.iter().map(|row| row[k].len()).chain([a.reference.len()]).max().unwrap_or(1))
        .collect();
    let mut out = String::from("score against each reference (95% interval, games):\n");
    out.push_str(&format!("{:<width$}", "player"));
    for (a, w) in first.against.iter().zip(&widths) {
        out.push_str(&format!("  {:>w$}", a.reference));
    }
    out.push_str("  highest beaten (>= 50%)\n");
    for (line, row) in lines.iter().zip(&cells) {
        let name: String = line.player.chars().take(width).collect();
        out.push_str(&format!("{name:<width$}"));
        for (c, w) in row.iter().zip(&widths) {
            out.push_str(&format!("  {c:>w$}"));
        }
        out.push_str(&format!("  {}\n", line.highest_beaten.as_deref().unwrap_or("none")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::test_games::{entrant, line};

    #[test]
    fn scores_are_read_against_each_reference_and_the_highest_beaten_is_named() {
        let entrants = [
            entrant("r1", None),
            entrant("v1", Some(1)),
            entrant("r10", None),
            entrant("r100", None),
            entrant("v2", Some(2)),
        ];
        let refs: Vec<String> = ["r1", "r10", "r100"].map(String::from).to_vec();
        let results = vec![
            // v1 (listed after r1, so B in that pairing): 2 of 2 against r1.
            line("r1", "v1", 0, -1),
            line("r1", "v1", 1, -1),
            // v1 against r10: a win and a draw; against r100: two losses.
            line("v1", "r10", 0, 1),
            line("v1", "r10", 1, 0),
            line("v1", "r100", 0, -1),
            line("v1", "r100", 1, -1),
            // v2 lost to r1 and drew twice with r10 (half the points), never met r100.
            line("r1", "v2", 0, 1),
            line("r10", "v2", 0, 0),
            line("r10", "v2", 1, 0),
        ];
        let lines = gauntlet_lines(&entrants, &refs, &results);
        assert_eq!(lines.len(), 2);
        let v1 = &lines[0];
        assert_eq!((v1.player.as_str(), v1.version, v1.step), ("v1", Some(1), Some(100)));
        let scores: Vec<(u32, f64)> = v1.against.iter().map(|a| (a.tally.games, a.score)).collect();
        assert_eq!(scores, [(2, 1.0), (2, 0.75), (2, 0.0)]);
        assert_eq!(v1.highest_beaten.as_deref(), Some("r10"));
        // Wilson's interval for 2 of 2: [0.342, 1].
        assert!((v1.against[0].low - 0.342).abs() < 0.001 && v1.against[0].high == 1.0, "{:?}", v1.against[0]);
        let v2 = &lines[1];
        assert_eq!(v2.against[2].tally.games, 0);
        assert_eq!(v2.highest_beaten.as_deref(), Some("r10"), "half the points against r10, below r1");
        let none = gauntlet_lines(&entrants, &refs, &results[6..7]);
        assert_eq!(none[1].highest_beaten, None);
        let text = table(&lines);
        assert!(text.contains("v1      100% [34,100] 2  75% [20,97] 2  0% [0,66] 2  r10\n"), "{text}");
        assert!(text.contains("v2          0% [0,79] 1   50% [9,91] 2            -  r10\n"), "{text}");
    }
}
