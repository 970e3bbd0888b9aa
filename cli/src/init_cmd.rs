//! `dojo init`: a randomly initialised network for a game, saved as a checkpoint.

use crate::common::DeviceArgs;
use crate::settings::RunConfigArgs;
use anyhow::{Context, Result};
use clap::Args;
use dojo_core::game::GameSpec;
use dojo_core::net::checkpoint;
use dojo_core::net::model::{Architecture, Model, PolicyHeadChoice};
use std::path::PathBuf;

/// Every default is the run config's `game` and `[net]` section (`--config`, else the
/// built-in one: `dojo config` prints it).
#[derive(Args)]
pub struct InitArgs {
    /// Game the network plays (connect4, connect4:WxH, gomoku:N) (default: game).
    #[arg(long)]
    game: Option<String>,
    /// Residual blocks in the trunk (default: net.blocks).
    #[arg(long)]
    blocks: Option<usize>,
    /// Filters per convolution (default: net.channels).
    #[arg(long)]
    channels: Option<usize>,
    /// Policy head: auto (convolutional where the moves are the board's cells, as in
    /// Gomoku; linear otherwise), fc or conv (default: net.policy_head).
    #[arg(long)]
    policy_head: Option<PolicyHeadChoice>,
    #[command(flatten)]
    run_config: RunConfigArgs,
    /// Checkpoint to write (NAME.safetensors + NAME.json).
    #[arg(long)]
    out: PathBuf,
    /// Seed for the initial weights.
    #[arg(long)]
    seed: Option<i64>,
    #[command(flatten)]
    device: DeviceArgs,
}

pub fn run(args: InitArgs) -> Result<()> {
    let device = args.device.init()?;
    let config = args.run_config.load()?;
    let spec: GameSpec = match &args.game {
        Some(game) => game.parse().context("--game")?,
        None => config.game,
    };
    let blocks = args.blocks.unwrap_or(config.net.blocks);
    let channels = args.channels.unwrap_or(config.net.channels);
    let arch = Architecture::new_for(&spec, blocks, channels, args.policy_head.unwrap_or(config.net.policy_head))?;
    if let Some(seed) = args.seed {
        tch::manual_seed(seed);
    }
    let model = Model::new(arch, device);
    let sidecar = checkpoint::save(&model, &args.out, 0, 0, None)?;
    println!(
        "wrote {} ({} blocks x {} channels, {} policy head, for {}, sha256 {})",
        checkpoint::paths(&args.out).0.display(),
        blocks,
        channels,
        model.arch().policy_head.name(),
        spec,
        &sidecar.sha256[..12]
    );
    Ok(())
}
