//! A run's curves as PNG files (`dojo plot`), for people without a browser or TensorBoard:
//! the metrics table's figures drawn from `metrics.jsonl` (losses, throughput and game
//! statistics; for one-player games the self-play scores and the share of games reaching
//! each big tile instead of win rates), gating decisions from `gating.jsonl`, and the newest
//! tournament's Elo curve.

use dojo_arbiter::charts::{draw_panels, ChartError, Panel, Series};
use dojo_arbiter::tournament::plot;
use dojo_arbiter::tournament::standings::Standings;
use dojo_gating::gatekeeper::read_records;
use dojo_metrics::SeriesLayout;
use dojo_run::config::RunConfig;
use dojo_run::journal::{self, JournalError};
use dojo_run::paths::RunPaths;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("{} is not a run directory (no config.toml)", .0.display())]
    NotARun(PathBuf),
    #[error("creating {}: {error}", .path.display())]
    Create { path: PathBuf, error: std::io::Error },
    #[error("reading {}: {error}", .path.display())]
    Read { path: PathBuf, error: std::io::Error },
    #[error("reading {}: {error}", .path.display())]
    Parse { path: PathBuf, error: serde_json::Error },
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Chart(#[from] ChartError),
    #[error("{}: no metrics, gating decisions or tournaments to plot yet", .0.display())]
    Nothing(PathBuf),
}

/// The charts drawn, and those that could not be (a figure without a single point, say).
pub struct Plotted {
    pub written: Vec<PathBuf>,
    pub failed: Vec<ChartError>,
}

/// Draws the run at `run_dir`'s charts into `out` (default: RUN/plots).
pub fn plot_run(run_dir: &Path, out: Option<&Path>) -> Result<Plotted, PlotError> {
    let run = RunPaths::new(run_dir);
    if !run.exists() {
        return Err(PlotError::NotARun(run_dir.to_path_buf()));
    }
    let out = out.map_or_else(|| run.root.join("plots"), Path::to_path_buf);
    std::fs::create_dir_all(&out).map_err(|error| PlotError::Create { path: out.clone(), error })?;
    // A line cut short by a crash is passed over.
    let metrics: Vec<serde_json::Value> = journal::read(&run.metrics())?;
    let name = run.root.file_name().map_or_else(|| run.root.display().to_string(), |n| n.to_string_lossy().into());
    // A config that does not load is `dojo plot`'s problem only as far as the figures go.
    let one_player = RunConfig::load_stored(&run.config()).is_ok_and(|c| c.game.is_one_player());
    // The figures, their panels and every label are the metrics table's.
    let charts = dojo_metrics::charts(one_player);
    let mut plotted = Plotted { written: Vec::new(), failed: Vec::new() };
    for figure in &charts.figures {
        let panels: Vec<Panel> = figure
            .panels
            .iter()
            .map(|panel| Panel {
                y_desc: panel.unit.to_string(),
                series: panel.series.iter().flat_map(|s| series(&metrics, charts.x_key, s)).collect(),
            })
            .collect();
        let path = out.join(figure.file);
        match draw_panels(&path, &format!("{name}: {}", figure.title), charts.x_label, &panels) {
            Ok(()) => plotted.written.push(path),
            Err(e) => plotted.failed.push(e),
        }
    }
    if let Some(path) = gating_chart(&run, &out, &name)? {
        plotted.written.push(path);
    }
    if let Some((tournament, standings)) = newest_tournament(&run)? {
        let path = out.join("elo.png");
        let title = format!("{name}: tournament {tournament}, {} games", standings.games);
        plot::draw(&standings, &title, &path)?;
        plotted.written.push(path);
    }
    if plotted.written.is_empty() {
        return Err(PlotError::Nothing(run.root.clone()));
    }
    Ok(plotted)
}

/// `gating.png`: each candidate's score, promoted or not, and the games each decision took
/// (none before the first decision).
fn gating_chart(run: &RunPaths, out: &Path, name: &str) -> Result<Option<PathBuf>, PlotError> {
    let gates: Vec<_> = read_records(run)?.into_iter().filter(|r| r.best.is_some()).collect();
    if gates.is_empty() {
        return Ok(None);
    }
    let points = |promoted: bool| -> Vec<(f64, f64)> {
        gates.iter().filter(|r| r.promoted == promoted).map(|r| (r.candidate as f64, r.score)).collect()
    };
    let panels = [
        Panel {
            y_desc: "candidate's score".into(),
            series: vec![Series::dots("promoted", points(true)), Series::dots("not promoted", points(false))],
        },
        Panel {
            y_desc: "games".into(),
            series: vec![Series::dots(
                "games a decision took",
                gates.iter().map(|r| (r.candidate as f64, f64::from(r.tally.games))).collect(),
            )],
        },
    ];
    let path = out.join("gating.png");
    draw_panels(&path, &format!("{name}: gating"), "candidate version", &panels)?;
    Ok(Some(path))
}

/// A series' lines: (x, its number) for every metrics line that has both; a keyed series
/// (`"reach": {"2048": 0.81, ...}`; a 2584 run's table grows when a game reaches a bigger
/// tile) a line per key any line has, in numeric order.
fn series(metrics: &[serde_json::Value], x: &str, s: &SeriesLayout) -> Vec<Series> {
    let points = |at: &dyn Fn(&serde_json::Value) -> Option<f64>| -> Vec<(f64, f64)> {
        metrics.iter().filter_map(|m| Some((m[x].as_f64()?, at(m)?))).collect()
    };
    if !s.keyed {
        return vec![Series::line(s.label, points(&|m| m[s.key].as_f64()))];
    }
    let mut keys: Vec<&String> =
        metrics.iter().filter_map(|m| m[s.key].as_object()).flat_map(|by_key| by_key.keys()).collect();
    keys.sort_by(|a, b| match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(a), Ok(b)) => a.total_cmp(&b),
        _ => a.cmp(b),
    });
    keys.dedup();
    keys.into_iter().map(|key| Series::line(s.label.replace("{}", key), points(&|m| m[s.key][key].as_f64()))).collect()
}

/// The tournament whose ratings were written last, with them.
fn newest_tournament(run: &RunPaths) -> Result<Option<(String, Standings)>, PlotError> {
    let Some((name, path)) = run.newest_tournament_ratings() else { return Ok(None) };
    let bytes = std::fs::read(&path).map_err(|error| PlotError::Read { path: path.clone(), error })?;
    let standings: Standings = serde_json::from_slice(&bytes).map_err(|error| PlotError::Parse { path, error })?;
    Ok(Some((name, standings)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reach_panel_has_a_line_per_tile_in_tile_order_from_the_lines_with_scores() {
        let lines: Vec<serde_json::Value> = [
            r#"{"step":20,"policy_loss":1.0}"#,
            r#"{"step":40,"reach":{"610":0.5,"987":0.25}}"#,
            r#"{"step":60,"reach":{"610":1.0,"987":0.5,"1597":0.5}}"#,
        ]
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
        let charts = dojo_metrics::charts(true);
        let reach = &charts.figures.iter().find(|f| f.file == "reach.png").unwrap().panels[0].series[0];
        let series = series(&lines, "step", reach);
        let got: Vec<(&str, &[(f64, f64)])> = series.iter().map(|s| (s.name.as_str(), s.points.as_slice())).collect();
        let want: [(&str, &[(f64, f64)]); 3] = [
            ("reached 610", &[(40.0, 0.5), (60.0, 1.0)]),
            ("reached 987", &[(40.0, 0.25), (60.0, 0.5)]),
            ("reached 1597", &[(60.0, 0.5)]),
        ];
        assert_eq!(got, want);
    }
}
