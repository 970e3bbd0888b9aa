//! `dojo bench net`: the network's forward pass per batch size and precision, against the
//! device's matrix-multiply rate.

use super::{describe, precisions, NetChoice};
use crate::common::DeviceArgs;
use anyhow::{bail, Result};
use clap::Args;
use dojo_core::net::device::DeviceSpec;
use dojo_core::net::precision::{Precision, PrecisionChoice};
use dojo_core::net::timing::{matmul_gflops, NetTimer};
use serde::Serialize;
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

#[derive(Serialize)]
pub struct MatmulRate {
    pub precision: Precision,
    pub size: usize,
    pub gflops: f64,
}

#[derive(Serialize)]
struct NetRow {
    batch: usize,
    precision: Precision,
    evals_per_s: f64,
    gflops: f64,
    /// Of the f32 matrix-multiply rate.
    share_of_f32_matmul: f64,
    /// Of the matrix-multiply rate in the row's own precision (on a GPU, bf16 and f16 run
    /// on tensor cores at several times the f32 rate).
    share_of_matmul: f64,
}

#[derive(Serialize)]
struct NetReport {
    network: String,
    device: String,
    threads: i32,
    flops_per_eval: f64,
    matmul: Vec<MatmulRate>,
    rows: Vec<NetRow>,
}

/// The device's matrix-multiply rate in each of `precisions` (f32 always, first: it is
/// what shares are given of).
pub fn matmul_rates(device: tch::Device, precisions: &[Precision], size: usize, budget: Duration) -> Vec<MatmulRate> {
    let mut all = vec![Precision::F32];
    all.extend(precisions.iter().filter(|&&p| p != Precision::F32));
    all.into_iter().map(|p| MatmulRate { precision: p, size, gflops: matmul_gflops(device, p, size, budget) }).collect()
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
    let precisions = precisions(args.precision, device)?;
    let budget = Duration::from_millis(args.millis);
    let flops = model.arch().flops_per_eval();
    let matmul = matmul_rates(device, &precisions, args.matmul_size, budget);
    let f32_peak = matmul[0].gflops;
    let mut timer = NetTimer::new(&model, budget);
    let mut rows = Vec::new();
    for &precision in &precisions {
        for &batch in &args.batches {
            let evals_per_s = timer.evals_per_s(precision, batch);
            let gflops = evals_per_s * flops / 1e9;
            let own_peak = matmul.iter().find(|m| m.precision == precision).map_or(f32_peak, |m| m.gflops);
            rows.push(NetRow {
                batch,
                precision,
                evals_per_s,
                gflops,
                share_of_f32_matmul: gflops / f32_peak,
                share_of_matmul: gflops / own_peak,
            });
        }
    }
    let report = NetReport {
        network: describe(&spec, model.arch()),
        device: DeviceSpec::of(device).to_string(),
        threads: tch::get_num_threads(),
        flops_per_eval: flops,
        matmul,
        rows,
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    println!("{}", report.network);
    println!(
        "{}, {} libtorch thread(s); CPU: {}",
        report.device,
        report.threads,
        dojo_core::net::autotune::cpu_model()
    );
    for m in &report.matmul {
        println!("matmul {0}x{0}x{0} {1}: {2:.1} GFLOP/s", m.size, m.precision, m.gflops);
    }
    println!();
    println!(
        "{:>6}  {:<9} {:>12} {:>9} {:>14} {:>14}",
        "batch", "precision", "evals/s", "GFLOP/s", "of f32 matmul", "of own matmul"
    );
    for r in &report.rows {
        println!(
            "{:>6}  {:<9} {:>12.0} {:>9.2} {:>14.2} {:>14.2}",
            r.batch,
            r.precision.to_string(),
            r.evals_per_s,
            r.gflops,
            r.share_of_f32_matmul,
            r.share_of_matmul
        );
    }
    Ok(())
}
