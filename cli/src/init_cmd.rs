//! `dojo init`: a randomly initialised network for a game, saved as a checkpoint.

use crate::common::{new_architecture, DeviceArgs};
use anyhow::{Context, Result};
use clap::Args;
use dojo_core::game::GameSpec;
use dojo_core::net::checkpoint;
use dojo_core::net::model::{Model, PolicyHeadChoice};
use std::path::PathBuf;

#[derive(Args)]
pub struct InitArgs {
    /// Game the network plays (connect4, connect4:WxH, gomoku:N).
    #[arg(long, default_value = "connect4")]
    game: String,
    /// Residual blocks in the trunk.
    #[arg(long, default_value_t = 5)]
    blocks: usize,
    /// Filters per convolution.
    #[arg(long, default_value_t = 64)]
    channels: usize,
    /// Policy head: auto (convolutional where the moves are the board's cells, as in
    /// Gomoku; linear otherwise), fc or conv.
    #[arg(long, default_value = "auto")]
    policy_head: PolicyHeadChoice,
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
    let spec: GameSpec = args.game.parse().context("--game")?;
    let arch = new_architecture(&spec, args.blocks, args.channels, args.policy_head)?;
    if let Some(seed) = args.seed {
        tch::manual_seed(seed);
    }
    let model = Model::new(arch, device);
    let sidecar = checkpoint::save(&model, &args.out, 0, 0, None)?;
    println!(
        "wrote {} ({} blocks x {} channels, {} policy head, for {}, sha256 {})",
        checkpoint::paths(&args.out).0.display(),
        args.blocks,
        args.channels,
        model.arch().policy_head.name(),
        spec,
        &sidecar.sha256[..12]
    );
    Ok(())
}
