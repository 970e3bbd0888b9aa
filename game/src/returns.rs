//! How a one-player game's returns (points still to come, hundreds to hundreds of
//! thousands over a 2048 game) map to a network's value output and back.
//!
//! The value head ends in a tanh, so a raw return cannot be its target. MuZero's transform
//! `h(x) = sqrt(x + 1) - 1 + ε·x` compresses the range (10² to 10⁶ points becomes about
//! 10 to 2000) while staying invertible, and dividing by `h(max_return)` puts every return
//! up to `max_return` in [0, 1]. Self-play targets (`dojo_record::SampleOptions`) and
//! the chance-node search's reading of the network both go through one [`ReturnScale`], and
//! a checkpoint names the `max_return` it was trained with, so the two never disagree.

/// How a one-player game's returns map to the network's value output and back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReturnScale {
    /// The return that maps to 1 (larger ones map above 1 and are clipped by a tanh head).
    pub max_return: f64,
}

/// MuZero's value transform's ε.
const H_EPS: f64 = 1e-3;

fn h(x: f64) -> f64 {
    (x + 1.0).sqrt() - 1.0 + H_EPS * x
}

fn h_inverse(y: f64) -> f64 {
    let a = ((1.0 + 4.0 * H_EPS * (y + 1.0 + H_EPS)).sqrt() - 1.0) / (2.0 * H_EPS);
    a * a - 1.0
}

impl ReturnScale {
    /// The scale for a game whose returns reach about `max_return`.
    pub fn new(max_return: f64) -> ReturnScale {
        ReturnScale { max_return: max_return.max(1.0) }
    }

    /// The value target for a return of `points` (≥ 0).
    pub fn to_value(self, points: f64) -> f32 {
        (h(points.max(0.0)) / h(self.max_return)) as f32
    }

    /// The return a value output stands for.
    pub fn to_points(self, value: f32) -> f64 {
        h_inverse((f64::from(value)).max(0.0) * h(self.max_return)).max(0.0)
    }
}

/// The `max_return` of runs whose config does not name one: a 2048 game worth a million
/// points reaches the 65536 tile, far beyond what any agent here does.
pub const DEFAULT_MAX_RETURN: f64 = 1e6;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_return_scale_round_trips_and_is_monotone() {
        let s = ReturnScale::new(1e6);
        assert!((s.to_value(1e6) - 1.0).abs() < 1e-6);
        assert_eq!(s.to_value(0.0), 0.0);
        let mut last = -1.0;
        for points in [0.0, 4.0, 100.0, 2_500.0, 60_000.0, 400_000.0, 1e6] {
            let v = s.to_value(points);
            assert!(v > last, "monotone at {points}");
            last = v;
            let back = s.to_points(v);
            assert!((back - points).abs() <= 1e-3 * points.max(1.0), "{points} -> {v} -> {back}");
        }
        // Scores of hundreds and of hundreds of thousands both land well inside [0, 1].
        assert!(s.to_value(500.0) > 0.01 && s.to_value(300_000.0) < 0.7);
    }
}
