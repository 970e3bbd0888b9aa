//! `dojo config`: prints a run configuration with every key and its default for the game
//! (what `dojo train --game G` starts a new run with), as TOML.

use anyhow::{Context, Result};
use clap::Args;
use dojo_run::config::RunConfig;

#[derive(Args)]
pub struct ConfigArgs {
    /// Game of the run.
    #[arg(long, default_value = "connect4")]
    game: String,
}

pub fn run(args: ConfigArgs) -> Result<()> {
    let config = RunConfig::for_game(args.game.parse().context("--game")?);
    config.validate()?;
    print!("{}", config.to_toml());
    Ok(())
}
