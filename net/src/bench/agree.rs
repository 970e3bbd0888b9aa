//! The network's outputs on its device, in every format it runs, against the same weights
//! in f32 on the CPU, on fixed positions of the game (`dojo bench agree`; the tolerances
//! are [`crate::agreement`]'s).
//!
//! `dojo bench agree` prints it (`cli/src/bench_cmd/agree.rs`): one concept in two layers.

use super::describe;
use crate::agreement::{compare_with_cpu, fixed_positions, Agreement};
use crate::model::Model;
use dojo_arch::precision::Precision;
use dojo_game::with_game;
use dojo_game::{AnyGame, GameSpec};
use serde::Serialize;
use std::fmt;

#[derive(Serialize)]
pub struct AgreeReport {
    pub network: String,
    pub device: String,
    /// How many positions were compared.
    #[serde(skip)]
    pub positions: usize,
    pub agreements: Vec<Agreement>,
    pub all_agree: bool,
}

/// Compares `model` (a network for `spec`) in each of `precisions` with the CPU's f32 on
/// `positions` random openings of 0, 1, 2, ... plies from `start` (drawn with `seed`).
pub fn compare(
    start: &AnyGame,
    spec: &GameSpec,
    model: &Model,
    precisions: &[Precision],
    positions: usize,
    seed: u64,
) -> Result<AgreeReport, tch::TchError> {
    let planes = with_game!(start, g => fixed_positions(g, positions, seed));
    let agreements = compare_with_cpu(model, precisions, &planes, positions)?;
    Ok(AgreeReport {
        network: describe(spec, model.arch()),
        device: model.device().to_string(),
        positions,
        all_agree: agreements.iter().all(|a| a.agrees),
        agreements,
    })
}

impl fmt::Display for AgreeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.network)?;
        writeln!(f, "{} against cpu f32 on {} fixed positions", self.device, self.positions)?;
        writeln!(f, "{:<9} {:>16} {:>14} {:>10}  ", "precision", "max policy diff", "max value diff", "tolerance")?;
        for a in &self.agreements {
            writeln!(
                f,
                "{:<9} {:>16.2e} {:>14.2e} {:>10.0e}  {}",
                a.precision.to_string(),
                a.max_policy_diff,
                a.max_value_diff,
                a.tolerance,
                if a.agrees { "ok" } else { "OUTSIDE TOLERANCE" }
            )?;
        }
        Ok(())
    }
}
