//! The `[replay]` section of a run's config: the replay buffer's knobs. The buffer itself,
//! which draws the samples these settings shape, is the learner's (`dojo_learner::replay_buffer`).

use super::{ConfigError, Rule};
use dojo_game::returns::ReturnScale;
use dojo_record::SampleOptions;
use serde::{Deserialize, Serialize};

/// The replay buffer's knobs (the `replay` section of a run's config).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReplayConfig {
    /// The window in positions; with `power_law`, its upper bound.
    pub window_positions: u64,
    /// KataGo's growing window: `c·(1 + β·((N/c)^α − 1)/α)` positions after `N` positions
    /// were ever added, with `c = min_window`, `α = power_alpha`, `β = power_beta`, at least
    /// `c` (while `N ≤ c` everything fits anyway) and at most `window_positions`.
    pub power_law: bool,
    /// `c` of the power-law window.
    pub min_window: u64,
    /// `α` of the power-law window.
    pub power_alpha: f64,
    /// `β` of the power-law window.
    pub power_beta: f64,
    /// Give each outcome class present in the window the same probability mass (AlphaFive).
    /// Off: every position is equally likely (up to the short-game weight).
    pub balance_outcomes: bool,
    /// Games with fewer player moves than this are drawn less often; 0 turns it off.
    pub short_game_plies: u32,
    /// How often a position of a short game is drawn relative to one of a longer game.
    pub short_game_weight: f32,
    /// AlphaFive's late-position loss weight: a position `k` player moves before the end
    /// weighs `factor^k` (0.94 there); 0 turns it off.
    pub late_position_factor: f32,
    /// Give each sample a random symmetry of the board.
    pub augment: bool,
    /// Weight of the self-play search's root value in the value target of win/draw games:
    /// `(1 - w)·result + w·root value`; 0 = the game's result alone (AlphaZero).
    pub search_value_weight: f32,
    /// The trainer may draw at most this many samples per position ever added.
    pub max_samples_per_position: f32,
}

impl Default for ReplayConfig {
    fn default() -> Self {
        // A fixed window sampled uniformly: in 30-minute Connect Four runs on 2 cores it gave
        // a clearly stronger net (91/5/4 against mcts:1000) than KataGo's growing window with
        // AlphaFive's outcome balancing (83/4/13); likely because the growing window's
        // early windows of a few thousand positions, each drawn up to 8 times, fit the first
        // games too closely. Both stay options for long runs.
        //
        // The cap of 16 samples per position keeps the learner busy on 2 cores (with 8 it
        // waited for games and used about 0.4 of a core): in 30-minute Connect Four runs the
        // extra training beat the extra games a little (c4-cap16: 78-91 of 100 against
        // mcts:1000 from 28,000-30,000 games, against 72-81 from the defaults of the day).
        ReplayConfig {
            window_positions: 100_000,
            power_law: false,
            min_window: 10_000,
            power_alpha: 0.75,
            power_beta: 0.4,
            balance_outcomes: false,
            short_game_plies: 0,
            short_game_weight: 0.5,
            late_position_factor: 0.0,
            augment: true,
            search_value_weight: 0.5,
            max_samples_per_position: 16.0,
        }
    }
}

impl ReplayConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.window_positions == 0 {
            return Err(ConfigError::Zero { keys: "replay.window_positions" });
        }
        if self.power_law {
            if self.min_window == 0 {
                return Err(ConfigError::Zero { keys: "replay.min_window" });
            }
            if self.min_window > self.window_positions {
                let rule = Rule::NotExceed { key: "replay.window_positions", value: self.window_positions };
                return Err(ConfigError::out_of_range("replay.min_window", self.min_window, rule));
            }
        }
        if !(self.power_alpha > 0.0 && self.power_alpha <= 1.0) {
            return Err(ConfigError::out_of_range("replay.power_alpha", self.power_alpha, "be within (0, 1]"));
        }
        if !(self.power_beta >= 0.0 && self.power_beta.is_finite()) {
            return Err(ConfigError::out_of_range(
                "replay.power_beta",
                self.power_beta,
                "be a finite number, at least 0",
            ));
        }
        // Zero would leave a window of short games with no mass to draw from.
        if !(self.short_game_weight > 0.0 && self.short_game_weight <= 1.0) {
            return Err(ConfigError::out_of_range(
                "replay.short_game_weight",
                self.short_game_weight,
                "be within (0, 1]",
            ));
        }
        if !(0.0..=1.0).contains(&self.late_position_factor) {
            return Err(ConfigError::out_of_range(
                "replay.late_position_factor",
                self.late_position_factor,
                "be within 0..=1",
            ));
        }
        if !(0.0..=1.0).contains(&self.search_value_weight) {
            return Err(ConfigError::out_of_range(
                "replay.search_value_weight",
                self.search_value_weight,
                "be within 0..=1",
            ));
        }
        if !(self.max_samples_per_position > 0.0 && self.max_samples_per_position.is_finite()) {
            let rule = "be a finite number above 0";
            return Err(ConfigError::out_of_range(
                "replay.max_samples_per_position",
                self.max_samples_per_position,
                rule,
            ));
        }
        Ok(())
    }

    /// The window in positions after `total_positions_added` positions were ever added.
    pub fn window_limit(&self, total_positions_added: u64) -> u64 {
        if !self.power_law {
            return self.window_positions;
        }
        let c = self.min_window.max(1) as f64;
        let x = (total_positions_added as f64).max(c) / c;
        let w = c * (1.0 + self.power_beta * (x.powf(self.power_alpha) - 1.0) / self.power_alpha);
        // `as` saturates (and maps NaN to 0, which the clamp lifts to 1).
        (w.floor() as u64).clamp(1, self.window_positions)
    }

    /// The options every sample is cut with; `return_scale` maps one-player games' returns
    /// to value targets (the search's, `search.max_return`).
    pub fn sample_options(&self, return_scale: ReturnScale) -> SampleOptions {
        SampleOptions {
            late_weight: (self.late_position_factor > 0.0).then_some(self.late_position_factor),
            augment: self.augment,
            search_value_weight: self.search_value_weight,
            return_scale,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn power_law_window_follows_the_formula() {
        let cfg = ReplayConfig {
            power_law: true,
            min_window: 1000,
            window_positions: 1_000_000,
            power_alpha: 0.75,
            power_beta: 0.4,
            ..Default::default()
        };
        // 16^0.75 = 8: 1000·(1 + 0.4·7/0.75) = 4733.3; 81^0.75 = 27: 1000·(1 + 0.4·26/0.75).
        assert_eq!(cfg.window_limit(0), 1000);
        assert_eq!(cfg.window_limit(1000), 1000);
        assert_eq!(cfg.window_limit(16_000), 4733);
        assert_eq!(cfg.window_limit(81_000), 14_866);
        let capped = ReplayConfig { window_positions: 10_000, ..cfg.clone() };
        assert_eq!(capped.window_limit(16_000), 4733);
        assert_eq!(capped.window_limit(81_000), 10_000);
        let defaults = ReplayConfig { power_law: true, ..ReplayConfig::default() };
        assert_eq!(defaults.window_limit(5_000), 10_000);
        assert_eq!(defaults.window_limit(320_000), 76_423);
        assert_eq!(defaults.window_limit(5_000_000), 100_000);
        // Off (the default), the window is window_positions from the start.
        assert!(!ReplayConfig::default().power_law);
        assert_eq!(ReplayConfig::default().window_limit(5_000), 100_000);
    }

    #[test]
    fn config_validation_names_the_bad_field() {
        ReplayConfig::default().validate().unwrap();
        let bad = |c: ReplayConfig| c.validate().unwrap_err().to_string();
        let d = ReplayConfig::default;
        assert_eq!(bad(ReplayConfig { window_positions: 0, ..d() }), "replay.window_positions must be at least 1");
        assert_eq!(bad(ReplayConfig { power_law: true, min_window: 0, ..d() }), "replay.min_window must be at least 1");
        assert_eq!(
            bad(ReplayConfig { power_law: true, window_positions: 1000, ..d() }),
            "replay.min_window = 10000 must not exceed replay.window_positions = 1000"
        );
        // Without the power law, min_window is unused and may exceed the window.
        ReplayConfig { window_positions: 1000, power_law: false, ..d() }.validate().unwrap();
        assert_eq!(bad(ReplayConfig { power_alpha: 0.0, ..d() }), "replay.power_alpha = 0 must be within (0, 1]");
        assert_eq!(
            bad(ReplayConfig { power_beta: -0.5, ..d() }),
            "replay.power_beta = -0.5 must be a finite number, at least 0"
        );
        assert_eq!(
            bad(ReplayConfig { short_game_weight: 0.0, ..d() }),
            "replay.short_game_weight = 0 must be within (0, 1]"
        );
        assert_eq!(
            bad(ReplayConfig { late_position_factor: f32::NAN, ..d() }),
            "replay.late_position_factor = NaN must be within 0..=1"
        );
        assert_eq!(
            bad(ReplayConfig { search_value_weight: 1.5, ..d() }),
            "replay.search_value_weight = 1.5 must be within 0..=1"
        );
        assert_eq!(
            bad(ReplayConfig { max_samples_per_position: 0.0, ..d() }),
            "replay.max_samples_per_position = 0 must be a finite number above 0"
        );
    }

    #[test]
    fn config_reads_from_json_with_defaults_and_refuses_unknown_fields() {
        let c: ReplayConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(c, ReplayConfig::default());
        let c: ReplayConfig = serde_json::from_str(r#"{"window_positions": 5000, "power_law": true}"#).unwrap();
        assert_eq!((c.window_positions, c.power_law, c.max_samples_per_position), (5000, true, 16.0));
        let err = serde_json::from_str::<ReplayConfig>(r#"{"window_size": 5000}"#).unwrap_err().to_string();
        assert!(err.contains("unknown field `window_size`"), "{err}");
        let back: ReplayConfig = serde_json::from_str(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(back, c);
    }
}
