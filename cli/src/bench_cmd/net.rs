//! `dojo bench net`: the network's forward pass per batch size and precision, against the
//! device's matrix-multiply rate.

use super::NetChoice;
use crate::common::DeviceArgs;
use anyhow::{bail, Result};
use clap::Args;
use dojo_arch::precision::PrecisionChoice;
use dojo_net::bench::forward::{time_forward, ForwardOptions};
use dojo_net::bench::precisions;
use std::time::Duration;

#[derive(Args)]
pub struct NetBenchArgs {
    #[command(flatten)]
    net: NetChoice,
    /// Batch sizes to time, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,8,16,32,64,128,256")]
    batches: Vec<usize>,
    /// Precision to time: auto (every one the device runs), f32, bf16 or f16 (CUDA).
    #[arg(long, default_value = "auto")]
    precision: PrecisionChoice,
    /// Milliseconds each measurement runs (after a warm-up of a quarter of that; at least a
    /// few passes, so a reference multiply in an emulated format, such as bf16 on a CPU
    /// without it, takes longer: --matmul-size 256 shortens it).
    #[arg(long, default_value_t = 300)]
    millis: u64,
    /// Side of the square matrices of the reference multiply.
    #[arg(long, default_value_t = 1024)]
    matmul_size: usize,
    #[command(flatten)]
    device: DeviceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: NetBenchArgs) -> Result<()> {
    if args.batches.is_empty() || args.batches.contains(&0) {
        bail!("--batches must list batch sizes of at least 1, e.g. 1,16,64");
    }
    if args.millis == 0 {
        bail!("--millis must be at least 1");
    }
    if args.matmul_size == 0 {
        bail!("--matmul-size must be at least 1");
    }
    let device = args.device.init()?;
    let (spec, model) = args.net.load(device)?;
    let options = ForwardOptions {
        batches: args.batches,
        precisions: precisions(args.precision, device)?,
        budget: Duration::from_millis(args.millis),
        matmul_size: args.matmul_size,
    };
    let report = time_forward(&spec, &model, &options);
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{report}");
    }
    Ok(())
}
