//! `dojo plot`: a run's curves as PNG files, for people without a browser or TensorBoard:
//! losses, throughput and game statistics from `metrics.jsonl` (for one-player games the
//! self-play scores and the share of games reaching each big tile instead of win rates),
//! gating decisions from `gating.jsonl`, and the newest tournament's Elo curve.

use anyhow::{bail, Context, Result};
use clap::Args;
use dojo_arbiter::charts::{draw_panels, Panel, Series};
use dojo_arbiter::gatekeeper::read_records;
use dojo_arbiter::journal;
use dojo_arbiter::tournament::plot;
use dojo_arbiter::tournament::standings::Standings;
use dojo_core::run_paths::RunPaths;
use dojo_learner::config::RunConfig;
use std::collections::BTreeSet;
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

/// The `metrics.jsonl` fields drawn, by figure and panel: (file, [(y axis, [(field, label)])]).
type Figure = (&'static str, &'static [(&'static str, &'static [(&'static str, &'static str)])]);
const LOSSES: Figure = (
    "losses.png",
    &[
        ("loss", &[("policy_loss", "policy loss"), ("value_loss", "value loss")]),
        ("policy entropy", &[("entropy", "entropy")]),
        ("learning rate", &[("learning_rate", "learning rate")]),
    ],
);
const THROUGHPUT: Figure = (
    "throughput.png",
    &[
        ("games/s", &[("games_per_s", "self-play games/s")]),
        ("samples/s", &[("samples_per_s", "training samples/s")]),
        ("positions", &[("buffer_positions", "replay buffer positions")]),
    ],
);
const GAMES: Figure = (
    "games.png",
    &[
        ("share of games", &[("first_player_win_rate", "first player wins"), ("draw_rate", "draws")]),
        ("plies", &[("mean_game_length", "mean game length")]),
    ],
);
/// One-player games have no winner: their games figure is their length, and their scores
/// (of the windows in which games finished) get a figure of their own.
const ONE_PLAYER_GAMES: Figure = ("games.png", &[("moves", &[("mean_game_length", "mean game length")])]);
const SCORES: Figure = (
    "scores.png",
    &[
        ("score", &[("mean_score", "mean score"), ("max_score", "max score")]),
        ("tile", &[("max_tile", "largest tile")]),
    ],
);

pub fn run(args: PlotArgs) -> Result<()> {
    let run = RunPaths::new(&args.run_dir);
    if !run.exists() {
        bail!("{} is not a run directory (no config.toml)", args.run_dir.display());
    }
    let out = args.out.unwrap_or_else(|| run.root.join("plots"));
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    // A line cut short by a crash is passed over.
    let metrics: Vec<serde_json::Value> = journal::read(&run.metrics()).map_err(anyhow::Error::msg)?;
    let name = run.root.file_name().map_or_else(|| run.root.display().to_string(), |n| n.to_string_lossy().into());
    // A config that does not load is `dojo plot`'s problem only as far as the figures go.
    let one_player = RunConfig::load(&run.config()).is_ok_and(|c| c.game.is_one_player());
    let figures: &[Figure] =
        if one_player { &[LOSSES, THROUGHPUT, ONE_PLAYER_GAMES, SCORES] } else { &[LOSSES, THROUGHPUT, GAMES] };
    let mut written = Vec::new();
    for (file, panels) in figures {
        let panels: Vec<Panel> = panels
            .iter()
            .map(|(y_desc, fields)| Panel {
                y_desc: y_desc.to_string(),
                series: fields.iter().map(|(field, label)| Series::line(*label, by_step(&metrics, field))).collect(),
            })
            .collect();
        let path = out.join(file);
        match draw_panels(&path, &format!("{name}: {}", file.trim_end_matches(".png")), "training step", &panels) {
            Ok(()) => written.push(path),
            Err(e) => eprintln!("{e}"),
        }
    }
    if one_player {
        let path = out.join("reach.png");
        match draw_panels(&path, &format!("{name}: reach rates"), "training step", &[reach_panel(&metrics)]) {
            Ok(()) => written.push(path),
            Err(e) => eprintln!("{e}"),
        }
    }

    let gates: Vec<_> =
        read_records(&run).map_err(anyhow::Error::msg)?.into_iter().filter(|r| r.best.is_some()).collect();
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
        draw_panels(&path, &format!("{name}: gating"), "candidate version", &panels).map_err(anyhow::Error::msg)?;
        written.push(path);
    }

    if let Some((tournament, standings)) = newest_tournament(&run)? {
        let path = out.join("elo.png");
        let title = format!("{name}: tournament {tournament}, {} games", standings.games);
        plot::draw(&standings, &title, &path).map_err(anyhow::Error::msg)?;
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

/// (step, field) for every metrics line that has both.
fn by_step(metrics: &[serde_json::Value], field: &str) -> Vec<(f64, f64)> {
    metrics.iter().filter_map(|m| Some((m["step"].as_f64()?, m[field].as_f64()?))).collect()
}

/// One line per tile of the reach tables (`"reach": {"2048": 0.81, ...}`; a 2584 run's
/// table grows when a game reaches a bigger tile): the share of each window's games whose
/// largest tile reached it.
fn reach_panel(metrics: &[serde_json::Value]) -> Panel {
    let tiles: BTreeSet<u32> = metrics
        .iter()
        .filter_map(|m| m["reach"].as_object())
        .flat_map(|reach| reach.keys().filter_map(|k| k.parse().ok()))
        .collect();
    let series = tiles
        .into_iter()
        .map(|tile| {
            let key = tile.to_string();
            let points = metrics.iter().filter_map(|m| Some((m["step"].as_f64()?, m["reach"][&key].as_f64()?)));
            Series::line(format!("reached {tile}"), points.collect())
        })
        .collect();
    Panel { y_desc: "share of games".into(), series }
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
        let panel = reach_panel(&lines);
        let got: Vec<(&str, &[(f64, f64)])> =
            panel.series.iter().map(|s| (s.name.as_str(), s.points.as_slice())).collect();
        let want: [(&str, &[(f64, f64)]); 3] = [
            ("reached 610", &[(40.0, 0.5), (60.0, 1.0)]),
            ("reached 987", &[(40.0, 0.25), (60.0, 0.5)]),
            ("reached 1597", &[(60.0, 0.5)]),
        ];
        assert_eq!(got, want);
    }
}
