//! `dojo bench agree`: the network's outputs on this device, in every format it runs,
//! against the same weights in f32 on the CPU, on fixed positions of the game. Fails (exit
//! status 1) when a format is outside its tolerance (see `dojo_net::agreement`).
//!
//! The measurement is `dojo_net::bench::agree`: one concept in two layers, hence one name.

use super::NetChoice;
use crate::common::DeviceArgs;
use anyhow::{bail, Result};
use clap::Args;
use dojo_arch::precision::PrecisionChoice;
use dojo_net::bench::{agree::compare, precisions};

#[derive(Args)]
pub struct AgreeArgs {
    #[command(flatten)]
    net: NetChoice,
    /// How many positions to compare: random openings of 0, 1, 2, ... plies.
    #[arg(long, default_value_t = 64)]
    count: usize,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Precision to check: auto (every one the device runs), f32, bf16 or f16 (CUDA).
    #[arg(long, default_value = "auto")]
    precision: PrecisionChoice,
    #[command(flatten)]
    device: DeviceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: AgreeArgs) -> Result<()> {
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    let device = args.device.init()?;
    let (spec, model) = args.net.load(device)?;
    let precisions = precisions(args.precision, device)?;
    let start = dojo_record::record_start(&spec)?;
    let report = compare(&start, &spec, &model, &precisions, args.count, args.seed)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{report}");
    }
    if !report.all_agree {
        bail!("the outputs on {} differ from the CPU's beyond the tolerance", report.device);
    }
    Ok(())
}
