//! The learner's training steps per second on a device, for a network and batch size, on
//! sample batches: the speed does not depend on the data (`dojo bench train`).
//!
//! `dojo bench train` prints it (`cli/src/bench_cmd/train_speed.rs`): one concept in two
//! layers.

use super::describe;
use crate::model::Model;
use crate::train::train_steps_per_s;
use crate::train::{TrainError, TrainingPrecision};
use dojo_arch::precision::{Precision, PrecisionChoice};
use dojo_arch::train::TrainConfig;
use dojo_game::GameSpec;
use serde::Serialize;
use std::fmt;
use std::time::Duration;

#[derive(Serialize)]
pub struct TrainReport {
    pub network: String,
    pub device: String,
    pub threads: i32,
    pub optimizer: String,
    pub batch: usize,
    /// The format the steps computed in (`train.precision`; for `auto`, the one it chose).
    pub precision: Precision,
    pub steps_per_s: f64,
    pub positions_per_s: f64,
    /// Forward and backward: about three forward passes' worth per position.
    pub gflops: f64,
}

/// Trains `model` (a network for `spec`) with `config` for `budget` (after a warm-up of a
/// quarter of that), in the format `config.precision` names or, for `auto`, chooses.
pub fn time_training(
    spec: &GameSpec,
    model: Model,
    config: TrainConfig,
    budget: Duration,
) -> Result<TrainReport, TrainError> {
    let network = describe(spec, model.arch());
    let flops = model.arch().flops_per_eval();
    let device = model.device().to_string();
    let (batch, optimizer) = (config.batch_size, config.optimizer.to_string());
    let precision = TrainingPrecision::choose(config.precision, model.arch(), model.device(), &config, None)?.chosen;
    let config = TrainConfig { precision: PrecisionChoice::Fixed(precision), ..config };
    let steps_per_s = train_steps_per_s(model, config, budget)?;
    let positions_per_s = steps_per_s * batch as f64;
    Ok(TrainReport {
        network,
        device,
        threads: tch::get_num_threads(),
        optimizer,
        batch,
        precision,
        steps_per_s,
        positions_per_s,
        gflops: 3.0 * positions_per_s * flops / 1e9,
    })
}

impl fmt::Display for TrainReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.network)?;
        writeln!(
            f,
            "{}, {} libtorch thread(s), {} with batches of {}, in {}",
            self.device, self.threads, self.optimizer, self.batch, self.precision
        )?;
        writeln!(
            f,
            "{:.1} steps/s, {:.0} positions/s, about {:.1} GFLOP/s",
            self.steps_per_s, self.positions_per_s, self.gflops
        )
    }
}
