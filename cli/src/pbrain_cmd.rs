//! `dojo pbrain`: a Gomoku network as a Gomocup (Piskvork) brain on stdin/stdout, so
//! tournament managers and other engines' tools can play it (`dojo_program::pbrain`, over
//! `dojo_arbiter::gomocup`'s protocol). stdout carries nothing but its answers (logs go to
//! stderr).

use crate::analyse_cmd::PlayArgs;
use crate::common::DeviceArgs;
use anyhow::Result;
use clap::Args;
use dojo_net::checkpoint::read_sidecar;
use dojo_program::pbrain;
use std::path::PathBuf;

#[derive(Args)]
pub struct PbrainArgs {
    /// Gomoku checkpoint to play: the brain accepts its board size (any-size: every size to 20).
    #[arg(long)]
    model: PathBuf,
    /// Playouts per move when the manager sets no time limit (with one, the brain searches
    /// until its share of the time is spent).
    #[command(flatten)]
    search: PlayArgs,
    /// Evaluate the board as it stands instead of averaging over its 8 symmetries (8 times
    /// fewer network evaluations per playout).
    #[arg(long)]
    no_average: bool,
    /// Under a time limit, stop at this many playouts a move even with time left (default:
    /// search until the move's time is spent). Makes games against a clock quick.
    #[arg(long)]
    max_sims: Option<u32>,
    #[command(flatten)]
    device: DeviceArgs,
}

pub fn run(args: PbrainArgs) -> Result<()> {
    let device = args.device.init()?;
    let arch = read_sidecar(&args.model)?.architecture;
    let player = args.search.player(&args.model, !args.no_average)?;
    Ok(pbrain::serve(&arch, &player, args.max_sims, device, std::io::stdin().lock(), std::io::stdout().lock())?)
}
