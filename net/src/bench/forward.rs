//! The network's forward pass per batch size and precision, against the device's
//! matrix-multiply rate (`dojo bench net`).

use super::describe;
use crate::autotune::cpu_model;
use crate::device::Device;
use crate::model::Model;
use crate::timing::{matmul_gflops, NetTimer};
use dojo_arch::precision::Precision;
use dojo_game::GameSpec;
use serde::Serialize;
use std::fmt;
use std::time::Duration;

/// What to time.
pub struct ForwardOptions {
    /// Batch sizes (each at least 1).
    pub batches: Vec<usize>,
    pub precisions: Vec<Precision>,
    /// How long each measurement runs (after a warm-up of a quarter of that).
    pub budget: Duration,
    /// Side of the square matrices of the reference multiply.
    pub matmul_size: usize,
}

#[derive(Serialize)]
pub struct MatmulRate {
    pub precision: Precision,
    pub size: usize,
    pub gflops: f64,
}

#[derive(Serialize)]
pub struct ForwardRow {
    pub batch: usize,
    pub precision: Precision,
    pub evals_per_s: f64,
    pub gflops: f64,
    /// Of the f32 matrix-multiply rate.
    pub share_of_f32_matmul: f64,
    /// Of the matrix-multiply rate in the row's own precision (on a GPU, bf16 and f16 run
    /// on tensor cores at several times the f32 rate).
    pub share_of_matmul: f64,
}

#[derive(Serialize)]
pub struct ForwardReport {
    pub network: String,
    pub device: String,
    pub threads: i32,
    pub flops_per_eval: f64,
    pub matmul: Vec<MatmulRate>,
    pub rows: Vec<ForwardRow>,
}

/// The device's matrix-multiply rate in each of `precisions` (f32 always, first: it is
/// what shares are given of).
pub fn matmul_rates(device: Device, precisions: &[Precision], size: usize, budget: Duration) -> Vec<MatmulRate> {
    let mut all = vec![Precision::F32];
    all.extend(precisions.iter().filter(|&&p| p != Precision::F32));
    all.into_iter().map(|p| MatmulRate { precision: p, size, gflops: matmul_gflops(device, p, size, budget) }).collect()
}

/// Times `model` (a network for `spec`) at every batch size in every precision.
pub fn time_forward(spec: &GameSpec, model: &Model, options: &ForwardOptions) -> ForwardReport {
    let device = model.device();
    let flops = model.arch().flops_per_eval();
    let matmul = matmul_rates(device, &options.precisions, options.matmul_size, options.budget);
    let f32_peak = matmul[0].gflops;
    let mut timer = NetTimer::new(model, options.budget);
    let mut rows = Vec::new();
    for &precision in &options.precisions {
        for &batch in &options.batches {
            let evals_per_s = timer.evals_per_s(precision, batch);
            let gflops = evals_per_s * flops / 1e9;
            let own_peak = matmul.iter().find(|m| m.precision == precision).map_or(f32_peak, |m| m.gflops);
            rows.push(ForwardRow {
                batch,
                precision,
                evals_per_s,
                gflops,
                share_of_f32_matmul: gflops / f32_peak,
                share_of_matmul: gflops / own_peak,
            });
        }
    }
    ForwardReport {
        network: describe(spec, model.arch()),
        device: device.to_string(),
        threads: tch::get_num_threads(),
        flops_per_eval: flops,
        matmul,
        rows,
    }
}

impl fmt::Display for ForwardReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.network)?;
        writeln!(f, "{}, {} libtorch thread(s); CPU: {}", self.device, self.threads, cpu_model())?;
        for m in &self.matmul {
            writeln!(f, "matmul {0}x{0}x{0} {1}: {2:.1} GFLOP/s", m.size, m.precision, m.gflops)?;
        }
        writeln!(f)?;
        writeln!(
            f,
            "{:>6}  {:<9} {:>12} {:>9} {:>14} {:>14}",
            "batch", "precision", "evals/s", "GFLOP/s", "of f32 matmul", "of own matmul"
        )?;
        for r in &self.rows {
            writeln!(
                f,
                "{:>6}  {:<9} {:>12.0} {:>9.2} {:>14.2} {:>14.2}",
                r.batch,
                r.precision.to_string(),
                r.evals_per_s,
                r.gflops,
                r.share_of_f32_matmul,
                r.share_of_matmul
            )?;
        }
        Ok(())
    }
}
