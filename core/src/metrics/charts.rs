//! The figures of a run, laid out from the table: `dojo plot` draws each as a PNG, the
//! dashboard gets them as JSON (`GET /api/charts`) and draws the same series from
//! `metrics.jsonl`'s lines, so neither spells a key or a label of its own.

use super::table::{FIGURES, LINE, STEP, X_AXIS_LABEL};
use super::{Kind, Players};
use serde::Serialize;

/// What to draw for a run: every line against `x_key`.
#[derive(Debug, Serialize)]
pub struct Charts {
    pub x_key: &'static str,
    pub x_label: &'static str,
    pub figures: Vec<FigureLayout>,
}

#[derive(Debug, Serialize)]
pub struct FigureLayout {
    pub file: &'static str,
    pub chart_id: &'static str,
    pub title: &'static str,
    /// Only one-player games have it (the scores): the dashboard shows it beside them.
    pub one_player: bool,
    /// A panel per unit, in the order the table first names each.
    pub panels: Vec<PanelLayout>,
}

#[derive(Debug, Serialize)]
pub struct PanelLayout {
    pub unit: &'static str,
    pub series: Vec<SeriesLayout>,
}

#[derive(Debug, Serialize)]
pub struct SeriesLayout {
    /// The `metrics.jsonl` key.
    pub key: &'static str,
    /// A keyed series' label puts each key for `{}`.
    pub label: &'static str,
    /// A line per key of an object (`"reach": {"2048": 0.5}`) rather than one number.
    pub keyed: bool,
}

/// The figures of a one- or a two-player run: those with something to draw for it.
pub fn charts(one_player: bool) -> Charts {
    let figures = FIGURES
        .iter()
        .filter_map(|figure| {
            let drawn: Vec<_> = LINE
                .iter()
                .filter(|m| m.players.includes(one_player))
                .filter_map(|m| Some((m, m.chart.filter(|c| c.figure == *figure)?)))
                .collect();
            let mut panels: Vec<PanelLayout> = Vec::new();
            for (metric, chart) in &drawn {
                let series = SeriesLayout { key: metric.key, label: chart.label, keyed: metric.kind == Kind::Keyed };
                match panels.iter_mut().find(|p| p.unit == chart.unit) {
                    Some(panel) => panel.series.push(series),
                    None => panels.push(PanelLayout { unit: chart.unit, series: vec![series] }),
                }
            }
            (!panels.is_empty()).then(|| FigureLayout {
                file: figure.file,
                chart_id: figure.chart_id,
                title: figure.title,
                one_player: drawn.iter().all(|(m, _)| m.players == Players::One),
                panels,
            })
        })
        .collect();
    Charts { x_key: STEP.key, x_label: X_AXIS_LABEL, figures }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (unit, [label]) of each panel of a figure.
    type Outline<'a> = Vec<(&'a str, Vec<&'a str>)>;

    /// (file, its panels' outline) of each figure.
    fn outline(charts: &Charts) -> Vec<(&str, Outline<'_>)> {
        let panels =
            |f: &FigureLayout| f.panels.iter().map(|p| (p.unit, p.series.iter().map(|s| s.label).collect())).collect();
        charts.figures.iter().map(|f| (f.file, panels(f))).collect()
    }

    #[test]
    fn a_two_player_run_charts_win_rates_and_no_scores() {
        let charts = charts(false);
        assert_eq!(
            outline(&charts),
            [
                (
                    "losses.png",
                    vec![
                        ("loss", vec!["policy loss", "value loss"]),
                        ("policy entropy", vec!["entropy"]),
                        ("learning rate", vec!["learning rate"])
                    ]
                ),
                (
                    "throughput.png",
                    vec![
                        ("samples/s", vec!["training samples/s"]),
                        ("games/s", vec!["self-play games/s"]),
                        ("positions", vec!["replay buffer positions"])
                    ]
                ),
                (
                    "games.png",
                    vec![("share of games", vec!["first player wins", "draws"]), ("moves", vec!["mean game length"])]
                ),
            ]
        );
        assert!(charts.figures.iter().all(|f| !f.one_player));
        assert_eq!((charts.x_key, charts.figures[0].chart_id), ("step", "chart-loss"));
    }

    #[test]
    fn a_one_player_run_charts_scores_and_reach_instead_of_win_rates() {
        let charts = charts(true);
        let outline = outline(&charts);
        assert_eq!(outline[2], ("games.png", vec![("moves", vec!["mean game length"])]));
        assert_eq!(
            outline[3],
            ("scores.png", vec![("score", vec!["mean score", "max score"]), ("tile", vec!["max tile"])])
        );
        assert_eq!(outline[4], ("reach.png", vec![("share of games", vec!["reached {}"])]));
        let one_player: Vec<bool> = charts.figures.iter().map(|f| f.one_player).collect();
        assert_eq!(one_player, [false, false, false, true, true]);
        assert!(charts.figures[4].panels[0].series[0].keyed);
    }
}
