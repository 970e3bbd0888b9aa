//! `dojo bench agree`: the network's outputs on this device, in every format it runs,
//! against the same weights in f32 on the CPU, on fixed positions of the game. Fails (exit
//! status 1) when a format is outside its tolerance (see `dojo_core::net::agreement`).

use super::{describe, precisions, NetChoice};
use crate::common::DeviceArgs;
use anyhow::{bail, Result};
use clap::Args;
use dojo_core::net::agreement::{compare_with_cpu, fixed_positions, Agreement};
use dojo_core::net::device::DeviceSpec;
use dojo_core::net::precision::PrecisionChoice;
use dojo_core::with_game;
use serde::Serialize;

#[derive(Args)]
pub struct AgreeArgs {
    #[command(flatten)]
    net: NetChoice,
    /// Positions to compare: random openings of 0, 1, 2, ... plies.
    #[arg(long, default_value_t = 64)]
    positions: usize,
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

#[derive(Serialize)]
struct AgreeReport {
    network: String,
    device: String,
    agreements: Vec<Agreement>,
    all_agree: bool,
}

pub fn run(args: AgreeArgs) -> Result<()> {
    if args.positions == 0 {
        bail!("--positions must be at least 1");
    }
    let device = args.device.init()?;
    let (spec, model) = args.net.load(device)?;
    let precisions = precisions(args.precision, device)?;
    let start = crate::common::record_start_of(&spec)?;
    let planes = with_game!(&start, g => fixed_positions(g, args.positions, args.seed));
    let agreements = compare_with_cpu(&model, &precisions, &planes, args.positions)?;
    let report = AgreeReport {
        network: describe(&spec, model.arch()),
        device: DeviceSpec::of(device).to_string(),
        all_agree: agreements.iter().all(|a| a.agrees),
        agreements,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!("{}", report.network);
        println!("{} against cpu f32 on {} fixed positions", report.device, args.positions);
        println!("{:<9} {:>16} {:>14} {:>10}  ", "precision", "max policy diff", "max value diff", "tolerance");
        for a in &report.agreements {
            println!(
                "{:<9} {:>16.2e} {:>14.2e} {:>10.0e}  {}",
                a.precision.to_string(),
                a.max_policy_diff,
                a.max_value_diff,
                a.tolerance,
                if a.agrees { "ok" } else { "OUTSIDE TOLERANCE" }
            );
        }
    }
    if !report.all_agree {
        bail!("the outputs on {} differ from the CPU's beyond the tolerance", report.device);
    }
    Ok(())
}
