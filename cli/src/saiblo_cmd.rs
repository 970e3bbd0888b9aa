//! `dojo saiblo-host PATH.so`: the process that hosts one saiblo strategy for one game (dojo
//! starts it for each game of a `saiblo:` player; see `dojo_external::saiblo::host`).

use anyhow::Result;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct SaibloHostArgs {
    /// The strategy's shared object.
    strategy: PathBuf,
}

pub fn run_host(args: SaibloHostArgs) -> Result<()> {
    Ok(dojo_external::saiblo::host::serve(&args.strategy)?)
}
