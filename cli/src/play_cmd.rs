//! `dojo play`: a game against a network in the terminal. The board is drawn after every
//! move; the model says its move, how it rates the position and which moves it weighed
//! (`dojo_program::play`).

use crate::analyse_cmd::PlayArgs;
use crate::common::DeviceArgs;
use anyhow::Result;
use clap::{Args, ValueEnum};
use dojo_net::checkpoint::read_sidecar;
use dojo_program::play::play;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum First {
    Human,
    Model,
}

#[derive(Args)]
pub struct PlayCmdArgs {
    /// The network to play against (its game is the game played).
    #[arg(long)]
    model: PathBuf,
    #[command(flatten)]
    search: PlayArgs,
    /// Who moves first.
    #[arg(long, value_enum, default_value = "human")]
    first: First,
    /// Evaluate the board as it stands instead of averaging over its symmetries.
    #[arg(long)]
    no_average: bool,
    /// The board (default: the network's game): any board of its game for an any-size
    /// network (e.g. gomoku:15 for gomoku:9-15).
    #[arg(long)]
    game: Option<dojo_game::GameSpec>,
    /// Seed of a random board (connect4:saiblo, gomoku:9-15) and of the model's tie-breaks.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    device: DeviceArgs,
}

pub fn run(args: PlayCmdArgs) -> Result<()> {
    let device = args.device.init()?;
    let spec = match args.game {
        Some(game) => game,
        None => read_sidecar(&args.model)?.architecture.game,
    };
    let player = args.search.player(&args.model, !args.no_average)?;
    let (input, output) = (std::io::stdin().lock(), std::io::stdout().lock());
    Ok(play(&spec, &player, args.first == First::Human, args.seed, device, input, output)?)
}
