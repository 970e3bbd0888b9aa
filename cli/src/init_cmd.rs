//! `dojo init`: a randomly initialised network for a game, saved as a checkpoint.

use crate::common::DeviceArgs;
use crate::settings::RunConfigArgs;
use anyhow::{anyhow, Result};
use clap::Args;
use dojo_arch::architecture::PolicyHeadChoice;
use dojo_game::GameSpec;
use dojo_net::checkpoint;
use dojo_net::model::Model;
use dojo_run::config::{ConfigError, RunConfig};
use std::path::PathBuf;

/// Every default is the run config's `game` and `[net]` section (`--config`, else the
/// built-in one for the game: `dojo config` prints it), as a new run would start.
#[derive(Args)]
pub struct InitArgs {
    /// Game the network plays (connect4, connect4:WxH, gomoku:N; connect4:saiblo or
    /// gomoku:MIN-MAX: an any-size network) (default: game).
    #[arg(long)]
    game: Option<GameSpec>,
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
    let mut config = match &args.game {
        Some(game) => RunConfig { game: game.clone(), ..args.run_config.load_for(game)? },
        None => args.run_config.load()?,
    };
    let net = &mut config.net;
    (net.blocks, net.channels) = (args.blocks.unwrap_or(net.blocks), args.channels.unwrap_or(net.channels));
    net.policy_head = args.policy_head.unwrap_or(net.policy_head);
    config.validate().map_err(|e| match e {
        // Name the flag the user typed, not the config key it overrode.
        ConfigError::Net { setting, error } if args.policy_head.is_some() && setting == "net.policy_head" => {
            anyhow!("--policy-head: {error}")
        }
        e => e.into(),
    })?;
    let arch = config.first_architecture()?;
    let model = match args.seed {
        Some(seed) => Model::seeded(arch, device, seed),
        None => Model::new(arch, device),
    };
    let sidecar = checkpoint::save(&model, &args.out, 0, 0, None)?;
    let arch = model.arch();
    let size = if arch.any_size { "any-size, " } else { "" };
    println!(
        "wrote {} ({} blocks x {} channels, {size}{} policy head, for {}, sha256 {})",
        checkpoint::paths(&args.out).0.display(),
        arch.blocks,
        arch.channels,
        arch.policy_head.name(),
        config.game,
        &sidecar.sha256[..12]
    );
    Ok(())
}
