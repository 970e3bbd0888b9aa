//! `dojo plot`: a run's curves as PNG files, for people without a browser or TensorBoard
//! (`dojo_program::run_plots`: the metrics table's figures, gating decisions, and the
//! newest tournament's Elo curve).

use anyhow::Result;
use clap::Args;
use dojo_program::run_plots::plot_run;
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
    let plotted = plot_run(&args.run_dir, args.out.as_deref())?;
    for error in plotted.failed {
        eprintln!("{error}");
    }
    for path in plotted.written {
        println!("{}", path.display());
    }
    Ok(())
}
