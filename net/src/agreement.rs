//! Does a device compute what the CPU computes? One network's outputs on fixed positions,
//! folded as self-play runs it on the device in each format, against the same weights in
//! f32 on the CPU. A GPU can be fast and wrong (a kernel picked for a format, an input
//! left on the wrong device, a library mismatch): this is the check that says it is not.
//!
//! The difference is measured where the search reads it: the policy as probabilities
//! (softmax of the logits) and the value, each as the largest absolute difference over the
//! positions. The tolerances are per format: f32 on CUDA may run its convolutions in TF32
//! (libtorch's default for cuDNN: a 10-bit mantissa, like f16), bf16 has an 8-bit mantissa.

use super::folded::FoldedNetwork;
use super::model::Model;
use crate::device::Device;
use dojo_arch::precision::Precision;
use dojo_base::rng::Rng;
use dojo_game::{play_random_opening, Game};
use rand::SeedableRng;
use serde::Serialize;

/// How far a format's outputs may be from the CPU's f32 ones (probabilities and values lie
/// in [0, 1] and [-1, 1]): TF32 or f16 rounding is about 1e-3 relative per layer, bf16's
/// about 8e-3; the margins leave room for a few layers of it.
pub fn tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::F32 => 1e-2,
        Precision::F16 => 2e-2,
        Precision::Bf16 => 6e-2,
    }
}

/// One format's outputs on the device against the CPU's f32.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agreement {
    pub precision: Precision,
    pub positions: usize,
    /// Largest absolute difference of a move's probability.
    pub max_policy_diff: f64,
    /// Largest absolute difference of a value.
    pub max_value_diff: f64,
    pub tolerance: f64,
    /// Both differences within the tolerance (and no NaN).
    pub agrees: bool,
}

/// `count` positions from `start`: random openings of 0, 1, 2, ... plies from a fixed seed,
/// encoded back to back as the network takes them. Games too short for a long opening
/// repeat a shorter one; the values differ anyway for most.
pub fn fixed_positions<G: Game>(start: &G, count: usize, seed: u64) -> Vec<f32> {
    let len = start.plane_shape().len();
    let mut rng = Rng::seed_from_u64(seed);
    let mut planes = vec![0.0; count * len];
    for (i, out) in planes.chunks_mut(len).enumerate() {
        let mut game = start.clone();
        play_random_opening(&mut game, i, &mut rng);
        game.encode_planes(out);
    }
    planes
}

/// `model`'s outputs on `planes` (`batch` positions) on its device in each of `precisions`,
/// against a copy of its weights folded in f32 on the CPU.
pub fn compare_with_cpu(
    model: &Model,
    precisions: &[Precision],
    planes: &[f32],
    batch: usize,
) -> Result<Vec<Agreement>, tch::TchError> {
    let mut on_cpu = Model::new(model.arch().clone(), Device::Cpu);
    on_cpu.vs.copy(&model.vs)?;
    let reference = outputs(&FoldedNetwork::new(&on_cpu, Precision::F32), planes, batch);
    Ok(precisions
        .iter()
        .map(|&precision| {
            let got = outputs(&FoldedNetwork::new(model, precision), planes, batch);
            let max_policy_diff = max_abs_diff(&reference.0, &got.0);
            let max_value_diff = max_abs_diff(&reference.1, &got.1);
            let tolerance = tolerance(precision);
            Agreement {
                precision,
                positions: batch,
                max_policy_diff,
                max_value_diff,
                tolerance,
                agrees: max_policy_diff <= tolerance && max_value_diff <= tolerance,
            }
        })
        .collect())
}

/// Move probabilities (softmax per position) and values.
fn outputs(net: &FoldedNetwork, planes: &[f32], batch: usize) -> (Vec<f32>, Vec<f32>) {
    let actions = net.arch().actions;
    let (mut policy, mut value) = (vec![0.0; batch * actions], vec![0.0; batch]);
    net.infer(planes, batch, &mut policy, &mut value);
    for row in policy.chunks_mut(actions) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sum: f32 = row
            .iter_mut()
            .map(|x| {
                *x = (*x - max).exp();
                *x
            })
            .sum();
        row.iter_mut().for_each(|x| *x /= sum);
    }
    (policy, value)
}

/// The largest |a - b|, NaN if either side has one (so it never passes a tolerance).
fn max_abs_diff(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(&x, &y)| f64::from((x - y).abs())).fold(0.0, |m, d| {
        if d.is_nan() || m.is_nan() {
            f64::NAN
        } else {
            m.max(d)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_arch::architecture::Architecture;
    use dojo_game::connect4::Connect4;

    #[test]
    fn fixed_positions_are_distinct_and_repeatable() {
        let game = Connect4::<u64>::standard();
        let len = game.plane_shape().len();
        let a = fixed_positions(&game, 6, 3);
        assert_eq!(a.len(), 6 * len);
        assert_eq!(a, fixed_positions(&game, 6, 3));
        // Position i has i stones on the board: each has a different count in the planes
        // of the two players' stones.
        let chunks: Vec<&[f32]> = a.chunks(len).collect();
        for i in 0..6 {
            for j in 0..i {
                assert_ne!(chunks[i], chunks[j], "positions {i} and {j}");
            }
        }
    }

    #[test]
    fn the_cpu_agrees_with_itself_in_f32_and_within_tolerance_in_bf16() {
        crate::device::set_threads(1);
        let game = Connect4::<u64>::standard();
        let model = Model::new(Architecture::for_game(&game, 2, 16), Device::Cpu);
        let planes = fixed_positions(&game, 12, 1);
        let got = compare_with_cpu(&model, &[Precision::F32, Precision::Bf16], &planes, 12).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].max_policy_diff, got[0].max_value_diff), (0.0, 0.0), "{got:?}");
        assert!(got[0].agrees);
        let bf16 = &got[1];
        assert!(bf16.max_policy_diff > 0.0 || bf16.max_value_diff > 0.0, "bf16 rounds: {bf16:?}");
        assert!(bf16.agrees, "{bf16:?}");
        assert_eq!(bf16.tolerance, tolerance(Precision::Bf16));
    }

    #[test]
    fn a_nan_never_agrees() {
        assert!(max_abs_diff(&[0.0, f32::NAN], &[0.0, 0.0]).is_nan());
        assert!(max_abs_diff(&[f32::NAN, 0.0], &[0.0, 0.0]).is_nan());
        assert_eq!(max_abs_diff(&[0.5, -1.0], &[0.25, 0.0]), 1.0);
    }
}
