//! `dojo plot`: a run's curves as PNG files, for people without a browser or TensorBoard:
//! the metrics table's figures drawn from `metrics.jsonl` (losses, throughput and game
//! statistics; for one-player games the self-play scores and the share of games reaching
//! each big tile instead of win rates), gating decisions from `gating.jsonl`, and the newest
//! tournament's Elo curve.

use anyhow::{bail, Context, Result};
use clap::Args;
use dojo_arbiter::charts::{draw_panels, Panel, Series};
use dojo_arbiter::gatekeeper::read_records;
use dojo_arbiter::tournament::plot;
use dojo_arbiter::tournament::standings::Standings;
use dojo_core::metrics::SeriesLayout;
use dojo_run::config::RunConfig;
use dojo_run::journal;
use dojo_run::paths::RunPaths;
use std::path::PathBuf;

#[derive(Args)]
pub struct PlotArgs {
    /// The run directory.
    #[arg(long, default_value = "runs/connect4")]
    run_dir: PathBuf,
    /// Where the PNGs go (default: RUN/plots).
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(args: PlotArgs) -> Result<()> {
    let run = RunPaths::new(&args.run_dir);
    if !run.exists() {
        bail!("{} is not a run directory (no config.toml)", args.run_dir.display());
    }
    let out = args.out.unwrap_or_else(|| run.root.join("plots"));
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    // A line cut short by a crash is passed over.
    let metrics: Vec<serde_json::Value> = journal::read(&run.metrics())?;
    let name = run.root.file_name().map_or_else(|| run.root.display().to_string(), |n| n.to_string_lossy().into());
    // A config that does not load is `dojo plot`'s problem only as far as the figures go.
    let one_player = RunConfig::load(&run.config()).is_ok_and(|c| c.game.is_one_player());
    // The figures, their panels and every label are the metrics table's.
    let charts = dojo_core::metrics::charts(one_player);
    let mut written = Vec::new();
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
            Ok(()) => written.push(path),
            Err(e) => eprintln!("{e}"),
        }
    }

    let gates: Vec<_> = read_records(&run)?.into_iter().filter(|r| r.best.is_some()).collect();
    if !gates.is_empty() {
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
                    gates.iter().map(|r| (r.candidate as f64, f64::from(r.games))).collect(),
                )],
            },
        ];
        let path = out.join("gating.png");
        draw_panels(&path, &format!("{name}: gating"), "candidate version", &panels)?;
        written.push(path);
    }

    if let Some((tournament, standings)) = newest_tournament(&run)? {
        let path = out.join("elo.png");
        let title = format!("{name}: tournament {tournament}, {} games", standings.games);
        plot::draw(&standings, &title, &path)?;
        written.push(path);
    }
    if written.is_empty() {
        bail!("{}: no metrics, gating decisions or tournaments to plot yet", run.root.display());
    }
    for path in written {
        println!("{}", path.display());
    }
    Ok(())
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
fn newest_tournament(run: &RunPaths) -> Result<Option<(String, Standings)>> {
    let Some((name, path)) = run.newest_tournament_ratings() else { return Ok(None) };
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let standings: Standings = serde_json::from_slice(&bytes).with_context(|| format!("reading {}", path.display()))?;
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
        let charts = dojo_core::metrics::charts(true);
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
