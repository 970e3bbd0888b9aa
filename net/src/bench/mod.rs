//! What this machine does with a network: the benchmarks behind `dojo bench net`,
//! `selfplay`, `train` and `agree`. Each takes a network already loaded and plain options,
//! measures, and returns a report that prints as a short table (`Display`) or serialises
//! as one JSON object; checking the command line's flags is the command's job.

pub mod agree;
pub mod forward;
pub mod selfplay_speed;
pub mod train_speed;

use super::device::{Device, DeviceError};
use dojo_arch::architecture::Architecture;
use dojo_arch::precision::{Precision, PrecisionChoice};
use dojo_game::GameSpec;

/// The precisions a benchmark times: every one the device runs, or the one named (an error
/// where the device cannot run it).
pub fn precisions(choice: PrecisionChoice, device: Device) -> Result<Vec<Precision>, DeviceError> {
    match choice {
        PrecisionChoice::Auto => Ok(device.precisions().to_vec()),
        PrecisionChoice::Fixed(p) => {
            crate::device::check_precision(p, device)?;
            Ok(vec![p])
        }
    }
}

/// A short description of a network for report headers.
pub fn describe(spec: &GameSpec, arch: &Architecture) -> String {
    format!(
        "{}x{} net ({} policy head, {} input planes) for {spec}, {:.2} MFLOP per position",
        arch.blocks,
        arch.channels,
        arch.policy_head.name(),
        arch.input_channels,
        arch.flops_per_eval() / 1e6
    )
}
