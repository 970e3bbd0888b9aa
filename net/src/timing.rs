//! Timing the hardware and the network: forward passes per second of a network folded as
//! self-play runs it, and the device's matrix-multiply rate, the ceiling a network's
//! effective GFLOP/s is compared with. `--precision auto` and `dojo bench` both time
//! through here, so what the benchmark reports is what the choice was based on.

use super::folded::FoldedNetwork;
use super::model::Model;
use crate::device::Device;
use dojo_arch::architecture::Architecture;
use dojo_arch::precision::Precision;
use std::time::{Duration, Instant};
use tch::Tensor;

/// Times forward passes of one network, folded as self-play runs it, in each format.
pub struct NetTimer<'a> {
    model: &'a Model,
    folded: Vec<(Precision, FoldedNetwork)>,
    budget: Duration,
}

impl<'a> NetTimer<'a> {
    /// A timer that spends about `budget` on each measurement (plus a quarter of it warming
    /// up).
    pub fn new(model: &'a Model, budget: Duration) -> NetTimer<'a> {
        NetTimer { model, folded: Vec::new(), budget }
    }

    /// Evaluations per second at `batch` in `precision`: a warm-up (libtorch picks and
    /// compiles its kernels on the first calls), then as many passes as fit the budget.
    pub fn evals_per_s(&mut self, precision: Precision, batch: usize) -> f64 {
        let batch = batch.max(1);
        let a = self.model.arch();
        let planes = sample_planes(a, batch);
        let (mut policy, mut value) = (vec![0.0; batch * a.actions], vec![0.0; batch]);
        let budget = self.budget;
        let net = self.network(precision);
        let warm = Instant::now();
        for i in 0.. {
            net.infer(&planes, batch, &mut policy, &mut value);
            if i >= 2 && warm.elapsed() >= budget / 4 {
                break;
            }
        }
        // infer copies its outputs back to the host, so every pass has finished (also on
        // CUDA) when it returns.
        let (start, mut passes) = (Instant::now(), 0u64);
        while passes < 3 || start.elapsed() < budget {
            net.infer(&planes, batch, &mut policy, &mut value);
            passes += 1;
        }
        (passes * batch as u64) as f64 / start.elapsed().as_secs_f64()
    }

    fn network(&mut self, precision: Precision) -> &FoldedNetwork {
        let i = match self.folded.iter().position(|(p, _)| *p == precision) {
            Some(i) => i,
            None => {
                self.folded.push((precision, FoldedNetwork::new(self.model, precision)));
                self.folded.len() - 1
            }
        };
        &self.folded[i].1
    }
}

/// Input planes with about a third of the cells set: a dense network's speed does not
/// depend on its inputs, but some kernels do skip exact zeros.
pub fn sample_planes(arch: &Architecture, batch: usize) -> Vec<f32> {
    (0..batch * arch.input_len()).map(|i| f32::from(u8::from(i.wrapping_mul(2_654_435_761) % 3 == 0))).collect()
}

/// The device's rate for a square `size`³ matrix multiply in `precision`, in GFLOP/s
/// (2·size³ operations each): about the most any network's layers can reach on it with the
/// threads libtorch has now. Warmed up, then timed for about `budget`.
pub fn matmul_gflops(device: Device, precision: Precision, size: usize, budget: Duration) -> f64 {
    let n = size.max(1) as i64;
    let options = (super::precision::tensor_kind(precision), tch::Device::from(device));
    let (a, b) = tch::no_grad(|| (Tensor::randn([n, n], options), Tensor::randn([n, n], options)));
    let sync = || {
        if let Device::Cuda(i) = device {
            tch::Cuda::synchronize(i as i64);
        }
    };
    let run = || tch::no_grad(|| drop(a.matmul(&b)));
    let warm = Instant::now();
    for i in 0.. {
        run();
        if i >= 1 && warm.elapsed() >= budget / 4 {
            break;
        }
    }
    sync();
    let (start, mut reps) = (Instant::now(), 0u64);
    while reps < 2 || start.elapsed() < budget {
        run();
        reps += 1;
        if reps.is_multiple_of(16) {
            sync();
        }
    }
    sync();
    2.0 * (n as f64).powi(3) * reps as f64 / start.elapsed().as_secs_f64() / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::connect4::Connect4;

    #[test]
    fn a_real_network_and_a_matmul_are_timed_in_each_cpu_format() {
        crate::device::set_threads(1);
        let game = Connect4::<u64>::standard();
        let model = Model::new(Architecture::for_game(&game, 1, 8), Device::Cpu);
        let mut timer = NetTimer::new(&model, Duration::from_millis(5));
        for p in [Precision::F32, Precision::Bf16] {
            let rate = timer.evals_per_s(p, 3);
            assert!(rate.is_finite() && rate > 0.0, "{p}: {rate}");
            let gflops = matmul_gflops(Device::Cpu, p, 64, Duration::from_millis(5));
            assert!(gflops.is_finite() && gflops > 0.0, "{p}: {gflops}");
        }
        // One folded copy per format, reused.
        assert_eq!(timer.folded.len(), 2);
        timer.evals_per_s(Precision::F32, 1);
        assert_eq!(timer.folded.len(), 2);
    }

    #[test]
    fn sample_planes_fill_the_batch_with_about_a_third_set() {
        let game = Connect4::<u64>::standard();
        let arch = Architecture::for_game(&game, 1, 8);
        let planes = sample_planes(&arch, 4);
        assert_eq!(planes.len(), 4 * arch.input_len());
        let set = planes.iter().filter(|&&x| x == 1.0).count();
        assert!(planes.iter().all(|&x| x == 0.0 || x == 1.0));
        assert!((planes.len() / 4..planes.len() / 2).contains(&set), "{set} of {}", planes.len());
    }
}
