//! `dojo bench train`: the learner's training steps per second on a device, for a network
//! and batch size, on sample batches (the speed does not depend on the data).
//!
//! The measurement is `dojo_net::bench::train_speed`: one concept in two layers.

use super::NetChoice;
use crate::common::DeviceArgs;
use anyhow::{bail, Result};
use clap::Args;
use dojo_arch::precision::PrecisionChoice;
use dojo_arch::train::{OptimizerKind, TrainConfig};
use dojo_net::bench::train_speed::time_training;
use std::time::Duration;

#[derive(Args)]
pub struct TrainBenchArgs {
    #[command(flatten)]
    net: NetChoice,
    /// Positions per training step (train.batch_size).
    #[arg(long, default_value_t = TrainConfig::default().batch_size)]
    batch: usize,
    /// Optimizer: adam or sgd (train.optimizer).
    #[arg(long, default_value = "adam")]
    optimizer: String,
    /// The format the steps compute in (train.precision): f32, bf16 (mixed precision: the
    /// weights and the optimizer stay f32), or auto (the faster of the two, as a run
    /// chooses it).
    #[arg(long, default_value = "f32")]
    precision: PrecisionChoice,
    /// Milliseconds of steps to time (after a warm-up of a quarter of that).
    #[arg(long, default_value_t = 2000)]
    millis: u64,
    #[command(flatten)]
    device: DeviceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: TrainBenchArgs) -> Result<()> {
    if args.millis == 0 {
        bail!("--millis must be at least 1");
    }
    let optimizer = match args.optimizer.trim().to_ascii_lowercase().as_str() {
        "adam" => OptimizerKind::Adam,
        "sgd" => OptimizerKind::Sgd,
        other => bail!("unknown optimizer {other:?} for --optimizer: expected adam or sgd"),
    };
    let config = TrainConfig { batch_size: args.batch, optimizer, precision: args.precision, ..TrainConfig::default() };
    config.validate()?;
    let device = args.device.init()?;
    let (spec, model) = args.net.load(device)?;
    let report = time_training(&spec, model, config, Duration::from_millis(args.millis))?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{report}");
    }
    Ok(())
}
