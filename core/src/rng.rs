//! A small, fast, seedable random number generator for the hot paths (playouts, noise,
//! sampling). Search quality does not need cryptographic randomness, and a rollout spends
//! a large share of its time drawing numbers, so this is wyrand: one multiply per draw.

/// wyrand: 64-bit state, passes BigCrush/PractRand, one 128-bit multiply per number.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator with a fixed seed (reproducible runs and tests).
    pub fn seed(seed: u64) -> Rng {
        let mut r = Rng { state: seed ^ 0x2d35_8dcc_aa6c_78a5 };
        r.next_u64();
        r
    }

    /// A generator seeded from the clock, the process id and a per-process counter.
    pub fn from_entropy() -> Rng {
        use std::sync::atomic::{AtomicU64, Ordering};
        use std::time::{SystemTime, UNIX_EPOCH};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
        let c = COUNTER.fetch_add(1, Ordering::Relaxed);
        Rng::seed(nanos ^ (u64::from(std::process::id()) << 32) ^ c.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.state) * u128::from(self.state ^ 0xe703_7ed1_a0b4_28db);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `[0, 1)`.
    #[inline]
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, 1)`.
    #[inline]
    pub fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.f64();
        let u2 = self.f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Gamma(shape, 1) by Marsaglia–Tsang (with the boost for shape < 1).
    pub fn gamma(&mut self, shape: f64) -> f64 {
        if shape < 1.0 {
            let u = 1.0 - self.f64();
            return self.gamma(shape + 1.0) * u.powf(1.0 / shape);
        }
        let d = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = 1.0 - self.f64();
            if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
                return d * v;
            }
        }
    }

    /// A sample from the symmetric Dirichlet(alpha) over `n` components, written to `out`.
    pub fn dirichlet(&mut self, alpha: f64, out: &mut [f32]) {
        let mut sum = 0.0;
        let mut tmp = Vec::with_capacity(out.len());
        for _ in 0..out.len() {
            let g = self.gamma(alpha);
            sum += g;
            tmp.push(g);
        }
        if sum <= 0.0 {
            let u = 1.0 / out.len() as f32;
            out.iter_mut().for_each(|o| *o = u);
            return;
        }
        for (o, g) in out.iter_mut().zip(tmp) {
            *o = (g / sum) as f32;
        }
    }

    /// Shuffles a slice (Fisher–Yates).
    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_is_uniform_enough() {
        let mut r = Rng::seed(7);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[r.below(7)] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn dirichlet_sums_to_one_and_gamma_mean_matches() {
        let mut r = Rng::seed(1);
        let mut out = [0f32; 10];
        r.dirichlet(0.3, &mut out);
        assert!((out.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        let n = 20_000;
        let mean: f64 = (0..n).map(|_| r.gamma(0.5)).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.03, "gamma(0.5) mean {mean}");
    }

    #[test]
    fn same_seed_same_stream() {
        let a: Vec<u64> = {
            let mut r = Rng::seed(42);
            (0..5).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = Rng::seed(42);
            (0..5).map(|_| r.next_u64()).collect()
        };
        assert_eq!(a, b);
    }
}
