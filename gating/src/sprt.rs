//! The sequential probability ratio test on game pairs, as chess engine testing runs it
//! (fishtest, OpenBench): play pairs of games until the log-likelihood ratio of "the
//! candidate is `elo1` stronger" against "it is `elo0` stronger" leaves the band that the
//! error rates `alpha` (a false promotion) and `beta` (a missed one) set.
//!
//! Games come in pairs from one opening, each side moving first once, so the unit of
//! evidence is the pair: its score for the candidate is 0, ½, 1, 1½ or 2 (the pentanomial
//! counts). Pairs of one opening are correlated, which counting games alone would ignore.
//! The ratio uses the normal approximation of the generalised SPRT (Van den Bergh's, as
//! fishtest and OpenBench use it): with `n` pairs of mean per-game score `m` and variance
//! `σ²` of a pair's per-game score, `LLR = n (s1 - s0)(2m - s0 - s1) / (2σ²)`, where `s0`
//! and `s1` are the per-game scores the two Elo differences mean (logistic Elo).

use serde::{Deserialize, Serialize};

/// The expected per-game score of a player `elo` stronger (logistic Elo).
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference a per-game score means (clamped to ±1000 for scores of 0 or 1).
pub fn score_to_elo(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    (-400.0 * (1.0 / s - 1.0).log10()).clamp(-1000.0, 1000.0)
}

/// The test's hypotheses and error rates, and the most games it may play.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SprtConfig {
    /// H0: the candidate is this much stronger (Elo), not more.
    pub elo0: f64,
    /// H1: the candidate is this much stronger.
    pub elo1: f64,
    /// Chance of accepting H1 when H0 holds (a false promotion).
    pub alpha: f64,
    /// Chance of accepting H0 when H1 holds (a missed promotion).
    pub beta: f64,
    /// Games after which an undecided test stops (even: games come in pairs).
    pub max_games: u32,
}

/// The run config's `[gating.sprt]` defaults (`dojo_run::config::SprtSettings`), with
/// an SPRT gate's game limit.
impl Default for SprtConfig {
    fn default() -> Self {
        SprtConfig { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.1, max_games: 200 }
    }
}

/// Counts of game pairs by the candidate's score in the pair: 0, ½, 1, 1½, 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Adds a pair whose two games gave the candidate `first` and `second` (each 0, ½ or 1).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let half_points = ((first + second) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[half_points] += 1;
    }

    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The candidate's mean per-game score.
    pub fn score(&self) -> f64 {
        let n = self.pairs();
        if n == 0 {
            return 0.5;
        }
        self.0.iter().enumerate().map(|(i, &c)| c as f64 * i as f64 / 4.0).sum::<f64>() / n as f64
    }
}

/// What the test says after the pairs so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// H1: the candidate is at least `elo1` stronger.
    AcceptH1,
    /// H0: it is not more than `elo0` stronger.
    AcceptH0,
    /// Neither yet: play on.
    Continue,
    /// `max_games` played without a decision: the LLR's sign decides.
    Truncated,
}

/// The test's state: the ratio, its bounds and the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub verdict: Verdict,
}

impl SprtStatus {
    /// Whether the candidate passed: H1 accepted, or a truncated test whose LLR leans to it.
    pub fn passed(&self) -> bool {
        match self.verdict {
            Verdict::AcceptH1 => true,
            Verdict::Truncated => self.llr > 0.0,
            Verdict::AcceptH0 | Verdict::Continue => false,
        }
    }
}

/// An SPRT setting that no test can run with; each names the setting and its value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtError {
    #[error("sprt alpha = {alpha} and beta = {beta} must be within (0, 0.5)")]
    ErrorRates { alpha: f64, beta: f64 },
    #[error("sprt elo1 = {elo1} must be above elo0 = {elo0}")]
    Hypotheses { elo0: f64, elo1: f64 },
    #[error("sprt max_games = {max_games} must be even and at least 2")]
    MaxGames { max_games: u32 },
}

impl SprtConfig {
    /// An error naming the bad setting, if any.
    pub fn validate(&self) -> Result<(), SprtError> {
        let rate = |x: f64| x > 0.0 && x < 0.5;
        if !rate(self.alpha) || !rate(self.beta) {
            return Err(SprtError::ErrorRates { alpha: self.alpha, beta: self.beta });
        }
        if self.elo1.partial_cmp(&self.elo0) != Some(std::cmp::Ordering::Greater)
            || !self.elo0.is_finite()
            || !self.elo1.is_finite()
        {
            return Err(SprtError::Hypotheses { elo0: self.elo0, elo1: self.elo1 });
        }
        if self.max_games < 2 || !self.max_games.is_multiple_of(2) {
            return Err(SprtError::MaxGames { max_games: self.max_games });
        }
        Ok(())
    }

    /// Wald's bounds: accept H0 at or below the first, H1 at or above the second.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The log-likelihood ratio of H1 against H0 after `pairs`: zero before any pair.
    ///
    /// The variance comes from the pairs plus one pseudo-pair split between a lost and a
    /// won pair. Without it the first few pairs, often all alike, would give a variance near
    /// zero and a ratio far past either bound (a single drawn pair would "prove" equality).
    /// Its weight fades as pairs accumulate; it only ever makes the test more cautious.
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        let n = pairs.pairs() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let mean = pairs.score();
        let prior = [0.5, 0.0, 0.0, 0.0, 0.5];
        let spread: f64 = pairs
            .0
            .iter()
            .zip(prior)
            .enumerate()
            .map(|(i, (&c, p))| (c as f64 + p) * (i as f64 / 4.0 - mean).powi(2))
            .sum();
        let var = spread / (n + 1.0);
        let (s0, s1) = (elo_to_score(self.elo0), elo_to_score(self.elo1));
        n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The test after `pairs`.
    pub fn status(&self, pairs: &Pentanomial) -> SprtStatus {
        let llr = self.llr(pairs);
        let (lower, upper) = self.bounds();
        let verdict = if llr >= upper {
            Verdict::AcceptH1
        } else if llr <= lower {
            Verdict::AcceptH0
        } else if pairs.pairs() * 2 >= u64::from(self.max_games) {
            Verdict::Truncated
        } else {
            Verdict::Continue
        };
        SprtStatus { llr, lower, upper, verdict }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_base::rng::Rng;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn elo_and_score_convert_both_ways() {
        assert_eq!(elo_to_score(0.0), 0.5);
        assert!((elo_to_score(400.0) - 10.0 / 11.0).abs() < 1e-12);
        for elo in [-300.0, -35.0, 0.0, 10.0, 200.0] {
            assert!((score_to_elo(elo_to_score(elo)) - elo).abs() < 1e-9, "{elo}");
        }
        assert_eq!(score_to_elo(1.0), 1000.0);
        assert_eq!(score_to_elo(0.0), -1000.0);
    }

    #[test]
    fn pairs_are_counted_by_their_score() {
        let mut p = Pentanomial::default();
        p.add_pair(1.0, 1.0);
        p.add_pair(1.0, 0.0);
        p.add_pair(0.5, 1.0);
        p.add_pair(0.0, 0.5);
        assert_eq!(p.0, [0, 1, 1, 1, 1]);
        assert_eq!(p.pairs(), 4);
        assert!((p.score() - (2.0 + 1.0 + 1.5 + 0.5) / 8.0).abs() < 1e-12);
    }

    #[test]
    fn the_ratio_has_the_sign_of_the_evidence_and_wald_bounds() {
        let c = SprtConfig::default();
        let (lower, upper) = c.bounds();
        assert!((lower - (0.1f64 / 0.95).ln()).abs() < 1e-12 && (upper - (0.9f64 / 0.05).ln()).abs() < 1e-12);
        assert_eq!(c.llr(&Pentanomial::default()), 0.0);
        let strong = Pentanomial([0, 1, 4, 10, 5]);
        let weak = Pentanomial([5, 10, 4, 1, 0]);
        assert!(c.llr(&strong) > 0.0 && c.llr(&weak) < 0.0);
        // All pairs won: finite, and past the upper bound after enough of them.
        let sweep = Pentanomial([0, 0, 0, 0, 30]);
        assert!(c.llr(&sweep).is_finite());
        assert_eq!(c.status(&sweep).verdict, Verdict::AcceptH1);
        // Undecided at the game limit: truncated, passed by the sign.
        let c = SprtConfig { max_games: 8, ..SprtConfig::default() };
        let s = c.status(&Pentanomial([0, 1, 1, 2, 0]));
        assert_eq!(s.verdict, Verdict::Truncated);
        assert_eq!(s.passed(), s.llr > 0.0);
    }

    #[test]
    fn bad_settings_are_named() {
        let bad = SprtConfig { alpha: 0.0, ..SprtConfig::default() };
        assert_eq!(bad.validate().unwrap_err().to_string(), "sprt alpha = 0 and beta = 0.1 must be within (0, 0.5)");
        let bad = SprtConfig { elo1: -5.0, ..SprtConfig::default() };
        assert_eq!(bad.validate().unwrap_err().to_string(), "sprt elo1 = -5 must be above elo0 = 0");
        let bad = SprtConfig { max_games: 41, ..SprtConfig::default() };
        assert_eq!(bad.validate().unwrap_err().to_string(), "sprt max_games = 41 must be even and at least 2");
        assert!(SprtConfig::default().validate().is_ok());
    }

    /// One game's score for a player of `elo` over its opponent, with `draw` chance of a draw.
    fn game(rng: &mut Rng, elo: f64, draw: f64) -> f64 {
        let win = (elo_to_score(elo) - draw / 2.0).max(0.0);
        let u: f64 = rng.random();
        if u < win {
            1.0
        } else if u < win + draw {
            0.5
        } else {
            0.0
        }
    }

    /// Runs `trials` tests of a candidate `elo` stronger; returns how many passed.
    fn passes(config: &SprtConfig, elo: f64, draw: f64, trials: u32, seed: u64) -> (u32, f64) {
        let mut rng = Rng::seed_from_u64(seed);
        let (mut passed, mut games) = (0, 0u64);
        for _ in 0..trials {
            let mut pairs = Pentanomial::default();
            let status = loop {
                pairs.add_pair(game(&mut rng, elo, draw), game(&mut rng, elo, draw));
                let s = config.status(&pairs);
                if s.verdict != Verdict::Continue {
                    break s;
                }
            };
            games += pairs.pairs() * 2;
            passed += u32::from(status.passed());
        }
        (passed, games as f64 / f64::from(trials))
    }

    #[test]
    fn on_simulated_pairs_it_keeps_its_error_rates() {
        let config = SprtConfig { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05, max_games: 4000 };
        let trials = 400;
        // A clearly stronger candidate (+120 Elo) passes, nearly always.
        let (strong, strong_games) = passes(&config, 120.0, 0.2, trials, 1);
        assert!(strong as f64 >= 0.95 * trials as f64, "{strong} of {trials}");
        // At H1 itself it passes about 1 - beta of the time; at H0 about alpha.
        let (at_h1, _) = passes(&config, 50.0, 0.2, trials, 2);
        assert!(at_h1 as f64 >= 0.90 * trials as f64, "at H1: {at_h1} of {trials}");
        let (equal, equal_games) = passes(&config, 0.0, 0.2, trials, 3);
        assert!((equal as f64) <= 0.09 * trials as f64, "an equal player passed {equal} of {trials}");
        // A clear difference is settled much faster than the limit.
        assert!(strong_games < 200.0 && equal_games < 600.0, "{strong_games} {equal_games}");
    }
}
