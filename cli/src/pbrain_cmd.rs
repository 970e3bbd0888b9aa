//! `dojo pbrain`: a Gomoku network as a Gomocup (Piskvork) brain on stdin/stdout, so
//! tournament managers and other engines' tools can play it (`dojo_program::pbrain`, over
//! `dojo_external::gomocup`'s protocol). stdout carries nothing but its answers (logs go to
//! stderr, and on exit the process's peak resident memory).

use crate::analyse_cmd::PlayArgs;
use crate::common::DeviceArgs;
use anyhow::Result;
use clap::Args;
use dojo_net::checkpoint::read_sidecar;
use dojo_program::pbrain::{self, BrainPlayers};
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
    /// fewer network evaluations per playout). Under a time limit the brain does so anyway
    /// unless told --average-by-the-clock.
    #[arg(long)]
    no_average: bool,
    /// Average over the symmetries under a time limit too: 8 evaluations a playout, about
    /// 5 times fewer playouts in the same time on a CPU (by the clock the shipped 15x15
    /// network averaging scored 37.5% of 48 games against itself not; docs/gomoku-ladder.md).
    #[arg(long, conflicts_with = "no_average")]
    average_by_the_clock: bool,
    /// Under a time limit, stop at this many playouts a move even with time left (default:
    /// search until the move's time is spent). Makes games against a clock quick.
    #[arg(long)]
    max_playouts: Option<u32>,
    #[command(flatten)]
    device: DeviceArgs,
}

pub fn run(args: PbrainArgs) -> Result<()> {
    let device = args.device.init()?;
    let arch = read_sidecar(&args.model)?.architecture;
    let players = BrainPlayers {
        by_playouts: args.search.player(&args.model, !args.no_average)?,
        timed: args.search.player(&args.model, args.average_by_the_clock)?,
    };
    let served =
        pbrain::serve(&arch, &players, args.max_playouts, device, std::io::stdin().lock(), std::io::stdout().lock());
    // A manager's memory limit is the brain's whole process: state what it took (stderr,
    // as stdout is the protocol's).
    if let Some(peak) = dojo_base::util::peak_rss_bytes() {
        eprintln!("dojo pbrain: peak resident memory {:.1} MiB ({peak} bytes)", peak as f64 / (1 << 20) as f64);
    }
    Ok(served?)
}
