//! Exponential backoff with full jitter, for reconnecting to the learner.
//!
//! Full jitter (a delay drawn uniformly from `[0, min(max, base·2^attempt)]`) rather than a
//! fixed exponential schedule: when the learner restarts, every worker notices at once, and
//! fixed delays would make them all reconnect in the same instant again and again. Drawing
//! from the whole interval spreads them out.

use dojo_base::rng::Rng;
use rand::RngExt;
use std::time::Duration;

/// Reconnection delays: call [`Backoff::next_delay`] after each failure and
/// [`Backoff::reset`] after a success.
#[derive(Clone, Debug)]
pub struct Backoff {
    base: Duration,
    max: Duration,
    attempt: u32,
    rng: Rng,
}

impl Backoff {
    /// Delays start below `base`, double in range each attempt and never exceed `max`.
    /// The sequence is fixed by `rng`'s seed.
    pub fn new(base: Duration, max: Duration, rng: Rng) -> Backoff {
        Backoff { base, max, attempt: 0, rng }
    }

    /// The upper end of the next delay's range: `min(max, base·2^attempt)`.
    pub fn ceiling(&self) -> Duration {
        // 2^attempt overflows u32 from attempt 32 on; by then any non-zero base is past any
        // sensible max, so the ceiling is `max` (or zero when base is zero).
        let grown = if self.base.is_zero() {
            Some(Duration::ZERO)
        } else if self.attempt >= 32 {
            None
        } else {
            self.base.checked_mul(1u32 << self.attempt)
        };
        grown.map_or(self.max, |d| d.min(self.max))
    }

    /// The delay to wait before the next attempt, uniform in `[0, ceiling()]`; counts an attempt.
    pub fn next_delay(&mut self) -> Duration {
        // Capped at u64 nanoseconds (584 years).
        let cap = u64::try_from(self.ceiling().as_nanos()).unwrap_or(u64::MAX);
        let nanos = self.rng.random_range(..=cap);
        self.attempt = self.attempt.saturating_add(1);
        Duration::from_nanos(nanos)
    }

    /// Back to the first attempt's range (after a successful connection).
    pub fn reset(&mut self) {
        self.attempt = 0;
    }

    /// Delays handed out since construction or the last [`Backoff::reset`].
    pub fn attempts(&self) -> u32 {
        self.attempt
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    const BASE: Duration = Duration::from_millis(100);
    const MAX: Duration = Duration::from_secs(30);

    fn backoff(seed: u64) -> Backoff {
        Backoff::new(BASE, MAX, Rng::seed_from_u64(seed))
    }

    #[test]
    fn delays_stay_within_the_doubling_ceiling_and_the_cap() {
        for seed in 0..200 {
            let mut b = backoff(seed);
            for attempt in 0..64u32 {
                let ceiling = if attempt < 32 { (BASE * 2u32.pow(attempt.min(31))).min(MAX) } else { MAX };
                assert_eq!(b.ceiling(), ceiling, "attempt {attempt}");
                let d = b.next_delay();
                assert!(d <= ceiling, "seed {seed} attempt {attempt}: {d:?} > {ceiling:?}");
                assert_eq!(b.attempts(), attempt + 1);
            }
        }
    }

    #[test]
    fn mean_delay_doubles_until_the_cap() {
        // Mean of attempt k over many seeds: about base·2^k / 2 until it reaches max / 2.
        let seeds = 4000;
        let mut sums = [0f64; 12];
        for seed in 0..seeds {
            let mut b = backoff(seed);
            for s in sums.iter_mut() {
                *s += b.next_delay().as_secs_f64();
            }
        }
        let means: Vec<f64> = sums.iter().map(|s| s / seeds as f64).collect();
        for (k, &mean) in means.iter().enumerate() {
            let expected = (BASE.as_secs_f64() * 2f64.powi(k as i32)).min(MAX.as_secs_f64()) / 2.0;
            assert!((mean - expected).abs() < 0.05 * expected, "attempt {k}: mean {mean}, expected {expected}");
        }
        // Attempts 0..=8 are below the cap (100 ms · 2^8 = 25.6 s): each mean grows.
        for k in 0..8 {
            assert!(means[k + 1] > means[k] * 1.5, "attempt {}: {} then {}", k + 1, means[k], means[k + 1]);
        }
    }

    #[test]
    fn capped_delays_cover_the_whole_range_up_to_max() {
        let mut b = backoff(7);
        for _ in 0..20 {
            b.next_delay();
        }
        let delays: Vec<Duration> = (0..2000).map(|_| b.next_delay()).collect();
        assert!(delays.iter().all(|&d| d <= MAX));
        assert!(delays.iter().any(|&d| d > MAX.mul_f64(0.99)), "never near max");
        assert!(delays.iter().any(|&d| d < MAX.mul_f64(0.01)), "never near zero: jitter is full");
    }

    #[test]
    fn reset_returns_to_the_first_range() {
        let mut b = backoff(3);
        for _ in 0..10 {
            b.next_delay();
        }
        assert_eq!(b.attempts(), 10);
        assert_eq!(b.ceiling(), MAX);
        b.reset();
        assert_eq!(b.attempts(), 0);
        assert_eq!(b.ceiling(), BASE);
        assert!(b.next_delay() <= BASE);
        assert_eq!(b.attempts(), 1);
    }

    #[test]
    fn same_seed_gives_the_same_sequence_and_other_seeds_differ() {
        let run = |seed| {
            let mut b = backoff(seed);
            (0..30).map(|_| b.next_delay()).collect::<Vec<_>>()
        };
        assert_eq!(run(42), run(42));
        assert_ne!(run(42), run(43));
    }

    #[test]
    fn attempt_count_saturates_without_overflow() {
        let mut b = backoff(1);
        b.attempt = u32::MAX - 1;
        assert!(b.next_delay() <= MAX);
        assert!(b.next_delay() <= MAX);
        assert_eq!(b.attempts(), u32::MAX);
        assert_eq!(b.ceiling(), MAX);
    }

    #[test]
    fn degenerate_settings_give_bounded_delays() {
        // base above max: max bounds from the first attempt.
        let mut b = Backoff::new(Duration::from_secs(10), Duration::from_secs(1), Rng::seed_from_u64(1));
        assert!((0..100).all(|_| b.next_delay() <= Duration::from_secs(1)));
        // Zero base: always zero.
        let mut b = Backoff::new(Duration::ZERO, Duration::from_secs(1), Rng::seed_from_u64(1));
        assert!((0..100).all(|_| b.next_delay().is_zero()));
        // Huge max: no overflow in the draw.
        let mut b = Backoff::new(Duration::from_secs(1), Duration::MAX, Rng::seed_from_u64(1));
        for _ in 0..100 {
            b.next_delay();
        }
        assert_eq!(b.ceiling(), Duration::MAX);
    }
}
