//! `dojo bench train`: the learner's training steps per second on a device, for a network
//! and batch size, on sample batches (the speed does not depend on the data).

use super::{describe, NetChoice};
use crate::common::DeviceArgs;
use anyhow::{bail, Result};
use clap::Args;
use dojo_core::net::device::DeviceSpec;
use dojo_core::net::timing::train_steps_per_s;
use dojo_core::net::train::{OptimizerKind, TrainConfig};
use serde::Serialize;
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
    /// Milliseconds of steps to time (after a warm-up of a quarter of that).
    #[arg(long, default_value_t = 2000)]
    millis: u64,
    #[command(flatten)]
    device: DeviceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct TrainReport {
    network: String,
    device: String,
    threads: i32,
    optimizer: String,
    batch: usize,
    steps_per_s: f64,
    positions_per_s: f64,
    /// Forward and backward: about three forward passes' worth per position.
    gflops: f64,
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
    let config = TrainConfig { batch_size: args.batch, optimizer, ..TrainConfig::default() };
    let device = args.device.init()?;
    let (spec, model) = args.net.load(device)?;
    let network = describe(&spec, model.arch());
    let flops = model.arch().flops_per_eval();
    let steps_per_s = train_steps_per_s(model, config, Duration::from_millis(args.millis))?;
    let positions_per_s = steps_per_s * args.batch as f64;
    let report = TrainReport {
        network,
        device: DeviceSpec::of(device).to_string(),
        threads: tch::get_num_threads(),
        optimizer: args.optimizer.trim().to_ascii_lowercase(),
        batch: args.batch,
        steps_per_s,
        positions_per_s,
        gflops: 3.0 * positions_per_s * flops / 1e9,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let r = &report;
    println!("{}", r.network);
    println!("{}, {} libtorch thread(s), {} with batches of {}", r.device, r.threads, r.optimizer, r.batch);
    println!("{:.1} steps/s, {:.0} positions/s, about {:.1} GFLOP/s", r.steps_per_s, r.positions_per_s, r.gflops);
    Ok(())
}
