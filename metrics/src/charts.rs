//! The figures of a run, laid out from the table: `dojo plot` draws each as a PNG, the
//! dashboard gets them as JSON (`GET /api/charts`) and draws the same series from
//! `metrics.jsonl`'s lines, so neither spells a key or a label of its own.
//!
//! `dojo_arbiter::charts` draws them: one concept (a run's charts) in two layers, the
//! layout here and the pixels there.

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
    use std::collections::HashSet;

    /// The labels of the panel of `unit` in the figure drawn to `file` (None: no such panel).
    fn panel<'a>(charts: &'a Charts, file: &str, unit: &str) -> Option<Vec<&'a str>> {
        let figure = charts.figures.iter().find(|f| f.file == file)?;
        figure.panels.iter().find(|p| p.unit == unit).map(|p| p.series.iter().map(|s| s.label).collect())
    }

    #[test]
    fn metrics_of_one_unit_share_a_panel_in_the_tables_order() {
        for one_player in [false, true] {
            for f in &charts(one_player).figures {
                let units: HashSet<&str> = f.panels.iter().map(|p| p.unit).collect();
                assert_eq!(units.len(), f.panels.len(), "{}: a unit in two panels", f.file);
            }
        }
        let charts = charts(false);
        assert_eq!(panel(&charts, "losses.png", "loss").unwrap()[..2], ["policy loss", "value loss"]);
        assert_eq!(charts.figures[0].panels[0].unit, "loss", "the first unit the table names leads");
        assert_eq!((charts.x_key, charts.figures[0].chart_id), ("step", "chart-loss"));
    }

    #[test]
    fn a_two_player_run_charts_win_rates_and_no_scores() {
        let charts = charts(false);
        assert!(panel(&charts, "games.png", "share of games").unwrap().contains(&"draws"));
        let files: Vec<&str> = charts.figures.iter().map(|f| f.file).collect();
        assert_eq!(files, ["losses.png", "throughput.png", "games.png"]);
        assert!(charts.figures.iter().all(|f| !f.one_player));
    }

    #[test]
    fn a_one_player_run_charts_scores_and_reach_instead_of_win_rates() {
        let charts = charts(true);
        assert_eq!(panel(&charts, "games.png", "share of games"), None, "no winner in a one-player game");
        assert!(panel(&charts, "games.png", "moves").unwrap().contains(&"mean game length"));
        assert!(panel(&charts, "scores.png", "tile").unwrap().contains(&"max tile"));
        let files: Vec<&str> = charts.figures.iter().map(|f| f.file).collect();
        assert_eq!(files, ["losses.png", "throughput.png", "games.png", "scores.png", "reach.png"]);
        let one_player: Vec<bool> = charts.figures.iter().map(|f| f.one_player).collect();
        assert_eq!(one_player, [false, false, false, true, true], "the dashboard shows these beside the scores");
        assert!(charts.figures[4].panels[0].series[0].keyed);
    }
}
