//! `ratings.png`: a run's Elo curve; `scores.png`: a one-player run's mean-score curve.
//! Checkpoints are points at their training step joined by a line, with their 95% intervals
//! as error bars (an open end drawn to the plot's edge); players that are not checkpoints
//! (random, mcts:N, uct:N, ntuple:, engines) are horizontal dashed lines, labelled, so the
//! curve has fixed reference points.

use super::standings::Ranking;
use crate::charts::{legend, legend_mark, png, Axes, ChartError, COLOURS};
use plotters::prelude::*;
use std::path::Path;

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 640;

/// What a plot draws: checkpoints (step, value, interval ends) and references (name, value).
/// A checkpoint on the curve: its step, its value and its interval's ends where finite.
type Point = (f64, f64, Option<f64>, Option<f64>);

struct Curve<'a> {
    y_desc: String,
    checkpoints: Vec<Point>,
    references: Vec<(&'a str, f64)>,
    /// The least room above and below the values, in the value's units.
    min_margin: f64,
}

/// Draws `standings` (ratings, or a one-player tournament's mean scores) to a PNG at
/// `path` (written to a temporary file, then renamed).
pub fn draw<R: Ranking>(standings: &R, title: &str, path: &Path) -> Result<(), ChartError> {
    let points = standings.points();
    let curve = Curve {
        y_desc: standings.axis(),
        checkpoints: points.iter().filter_map(|p| Some((p.player.step? as f64, p.value?, p.low, p.high))).collect(),
        references: points
            .iter()
            .filter(|p| p.player.step.is_none())
            .filter_map(|p| Some((p.player.name.as_str(), p.value?)))
            .collect(),
        min_margin: R::PLOT_MARGIN,
    };
    draw_curve(&curve, title, path)
}

/// The x range (the checkpoints' steps, with 3% each side) and the y range (every rating
/// and finite interval end, with a margin of 8%, at least `min_margin`) of a curve whose
/// checkpoints are sorted by step.
fn axis_ranges(sorted: &[Point], references: &[(&str, f64)], min_margin: f64) -> ((f64, f64), (f64, f64)) {
    let values = sorted.iter().flat_map(|c| [Some(c.1), c.2, c.3]).flatten().chain(references.iter().map(|r| r.1));
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let margin = ((hi - lo) * 0.08).max(min_margin);
    let x = match (sorted.first(), sorted.last()) {
        (Some(a), Some(b)) if b.0 > a.0 => (a.0 - (b.0 - a.0) * 0.03, b.0 + (b.0 - a.0) * 0.03),
        (Some(a), _) => (a.0 - 1.0, a.0 + 1.0),
        _ => (0.0, 1.0),
    };
    (x, (lo - margin, hi + margin))
}

fn draw_curve(curve: &Curve<'_>, title: &str, path: &Path) -> Result<(), ChartError> {
    let Curve { y_desc, checkpoints, references, min_margin } = curve;
    if checkpoints.is_empty() && references.is_empty() {
        return Err(ChartError::NoRatedPlayer);
    }
    let mut sorted = checkpoints.clone();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let ((x0, x1), (y0, y1)) = axis_ranges(&sorted, references, *min_margin);
    let err = ChartError::draw(path);
    png(path, (WIDTH, HEIGHT), |root| {
        let axes = Axes { x_desc: "training step", y_desc, y_label: &|y| format!("{y:.0}") };
        let mut chart = axes.chart(path, root, Some(title), ((x0, x1), (y0, y1)))?;
        for (k, (name, elo)) in references.iter().enumerate() {
            // The curve has the first colour; the references take the others in turn.
            let colour = COLOURS[1 + k % (COLOURS.len() - 1)];
            chart
                .draw_series(DashedLineSeries::new([(x0, *elo), (x1, *elo)], 8, 5, colour.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(format!("{name} ({elo:.0})"))
                .legend(legend_mark(colour));
        }
        if !sorted.is_empty() {
            let blue = COLOURS[0];
            // Error bars with caps; an open end runs to the edge, capless.
            let cap = (x1 - x0) * 0.004;
            let bars = sorted.iter().flat_map(|&(x, _, low, high)| {
                let (bottom, top) = (low.unwrap_or(y0).max(y0), high.unwrap_or(y1).min(y1));
                let mut lines = vec![vec![(x, bottom), (x, top)]];
                lines.extend(low.map(|_| vec![(x - cap, bottom), (x + cap, bottom)]));
                lines.extend(high.map(|_| vec![(x - cap, top), (x + cap, top)]));
                lines.into_iter().map(move |l| PathElement::new(l, blue.mix(0.45)))
            });
            chart.draw_series(bars).map_err(|e| err(&e))?;
            chart
                .draw_series(LineSeries::new(sorted.iter().map(|c| (c.0, c.1)), blue.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label("checkpoints (95% intervals)")
                .legend(legend_mark(blue));
            chart.draw_series(sorted.iter().map(|c| Circle::new((c.0, c.1), 4, blue.filled()))).map_err(|e| err(&e))?;
        }
        legend(path, &mut chart, SeriesLabelPosition::LowerRight)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::Tally;
    use crate::tournament::standings::{Standing, Standings};
    use crate::tournament::Entrant;

    fn standing(name: &str, step: Option<u64>, elo: f64, low: Option<f64>, high: Option<f64>) -> Standing {
        Standing {
            player: Entrant { name: name.into(), spec: name.into(), version: step.map(|s| s / 50), step },
            elo: Some(elo),
            low,
            high,
            tally: Tally { games: 10, wins: 5, draws: 0, losses: 5 },
            score: 0.5,
            forfeits: 0,
        }
    }

    #[test]
    fn a_curve_with_references_and_open_intervals_is_drawn_as_a_png() {
        let standings = Standings {
            game: "connect4".into(),
            anchor: "random".into(),
            anchor_elo: 0.0,
            draw_elo: Some(80.0),
            interval: String::new(),
            games: 100,
            players: vec![
                standing("v40", Some(2000), 900.0, Some(800.0), None),
                standing("v20", Some(1000), 600.0, Some(500.0), Some(700.0)),
                standing("mcts:1000", None, 700.0, Some(650.0), Some(750.0)),
                standing("random", None, 0.0, Some(0.0), Some(0.0)),
            ],
            gauntlet: Vec::new(),
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ratings.png");
        draw(&standings, "test run", &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR: width and height, big-endian, at bytes 16..24.
        assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), WIDTH);
        assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), HEIGHT);
        assert!(!dir.path().join("ratings.tmp.png").exists());
        let empty = Standings { players: vec![], ..standings };
        assert_eq!(draw(&empty, "x", &path).unwrap_err().to_string(), "no rated player to plot");
    }

    #[test]
    fn a_mean_score_curve_with_fixed_players_is_drawn_as_a_png() {
        use crate::tournament::standings::{ScoreStanding, ScoreStandings};
        let standing = |name: &str, step: Option<u64>, mean: f64, interval: Option<(f64, f64)>| ScoreStanding {
            player: Entrant { name: name.into(), spec: name.into(), version: step.map(|s| s / 50), step },
            games: 10,
            mean: Some(mean),
            low: interval.map(|i| i.0),
            high: interval.map(|i| i.1),
            median: Some(mean),
            max: Some(mean as u64 * 2),
            forfeits: 0,
            reach: vec![],
        };
        let standings = ScoreStandings {
            game: "2048".into(),
            games_per_player: 10,
            interval: String::new(),
            games: 40,
            players: vec![
                standing("v40", Some(2000), 9000.0, Some((8000.0, 10_000.0))),
                standing("v20", Some(1000), 3000.0, None),
                standing("uct:100", None, 2500.0, Some((2000.0, 3000.0))),
                standing("random", None, 1100.0, Some((1000.0, 1200.0))),
            ],
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scores.png");
        draw(&standings, "2048 run", &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), WIDTH);
        let unplayed =
            ScoreStandings { players: vec![ScoreStanding { mean: None, ..standings.players[0].clone() }], ..standings };
        assert_eq!(draw(&unplayed, "x", &path).unwrap_err().to_string(), "no rated player to plot");
    }
}
