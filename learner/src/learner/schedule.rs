//! What bounds a learner session (`dojo train --for`, `--steps`) and the learning rate that
//! follows from it: annealed over the final part of a bounded session, so a run that is
//! told when it ends finishes on small steps.

use dojo_run::config::RunConfig;
use std::time::Instant;

/// What bounds this learner session: a wall-clock deadline (`dojo train --for`) and a total
/// step count (`--steps`), either, both or neither.
#[derive(Clone, Copy, Debug)]
pub struct SessionBound {
    started: Instant,
    deadline: Option<Instant>,
    /// Total steps of the run (earlier sessions included) at which training stops.
    pub max_steps: Option<u64>,
    /// The step this session started at, set when training starts.
    first_step: u64,
}

impl SessionBound {
    pub fn new(deadline: Option<Instant>, max_steps: Option<u64>) -> SessionBound {
        SessionBound { started: Instant::now(), deadline, max_steps, first_step: 0 }
    }

    /// Training starts (or resumes) at `step`: the step bound's fraction counts from it.
    pub fn start_at(&mut self, step: u64) {
        self.first_step = step;
    }

    /// Whether the session has taken its steps.
    pub fn steps_done(&self, step: u64) -> bool {
        self.max_steps.is_some_and(|m| step >= m)
    }

    /// How far through its bound the session is, in `0..=1`: the further of the time and
    /// the step fraction. `None` for an unbounded session.
    pub fn progress(&self, step: u64, now: Instant) -> Option<f64> {
        let first_step = self.first_step;
        let by_time = self.deadline.map(|d| {
            let total = d.saturating_duration_since(self.started).as_secs_f64();
            let done = now.saturating_duration_since(self.started).as_secs_f64();
            if total > 0.0 {
                (done / total).min(1.0)
            } else {
                1.0
            }
        });
        let by_steps = self.max_steps.map(|m| {
            let total = m.saturating_sub(first_step);
            if total > 0 {
                (step.saturating_sub(first_step) as f64 / total as f64).min(1.0)
            } else {
                1.0
            }
        });
        match (by_time, by_steps) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    /// The learning rate of step `step`: the configured one, annealed near the end of a
    /// bounded session.
    pub fn learning_rate(&self, config: &RunConfig, step: u64) -> f64 {
        let l = &config.learner;
        let factor = match self.progress(step, Instant::now()) {
            Some(p) => anneal_factor(p, l.anneal_fraction, l.anneal_factor),
            None => 1.0,
        };
        config.train.learning_rate * factor
    }
}

/// The learning-rate multiplier at `progress` through a bounded session: 1 until the final
/// `fraction`, then falling linearly to `end` at the bound.
pub fn anneal_factor(progress: f64, fraction: f64, end: f64) -> f64 {
    if fraction <= 0.0 {
        return 1.0;
    }
    let into = ((progress - (1.0 - fraction)) / fraction).clamp(0.0, 1.0);
    1.0 - (1.0 - end) * into
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn progress_is_the_further_of_time_and_steps() {
        let start = Instant::now();
        let unbounded = SessionBound { started: start, deadline: None, max_steps: None, first_step: 0 };
        assert_eq!(unbounded.progress(500, start + Duration::from_secs(9)), None);
        let deadline = Some(start + Duration::from_secs(100));
        let both = SessionBound { started: start, deadline, max_steps: Some(300), first_step: 100 };
        // Resumed at step 100: 50 of the session's 200 steps is 0.25, 40 s of 100 is 0.4.
        assert_eq!(both.progress(150, start + Duration::from_secs(40)), Some(0.4));
        assert_eq!(both.progress(260, start + Duration::from_secs(40)), Some(0.8));
        assert_eq!(both.progress(400, start + Duration::from_secs(400)), Some(1.0));
        // Already at the step bound when the session starts: done.
        let steps = SessionBound { started: start, deadline: None, max_steps: Some(50), first_step: 80 };
        assert_eq!(steps.progress(80, start), Some(1.0));
        assert!(steps.steps_done(80) && !unbounded.steps_done(u64::MAX));
    }

    #[test]
    fn learning_rate_anneals_only_in_the_final_fraction() {
        assert_eq!(anneal_factor(0.5, 0.3, 0.1), 1.0);
        assert_eq!(anneal_factor(0.7, 0.3, 0.1), 1.0);
        assert!((anneal_factor(0.85, 0.3, 0.1) - 0.55).abs() < 1e-12);
        assert!((anneal_factor(1.0, 0.3, 0.1) - 0.1).abs() < 1e-12);
        assert_eq!(anneal_factor(1.0, 0.0, 0.1), 1.0, "fraction 0 turns annealing off");
        assert!((anneal_factor(0.0, 1.0, 0.5) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_bounded_sessions_last_steps_train_on_the_annealed_rate() {
        let config = RunConfig::default();
        let mut bound = SessionBound::new(None, Some(200));
        bound.start_at(100);
        let lr = config.train.learning_rate;
        assert_eq!(bound.learning_rate(&config, 120), lr);
        let (fraction, end) = (config.learner.anneal_fraction, config.learner.anneal_factor);
        assert!((bound.learning_rate(&config, 200) - lr * anneal_factor(1.0, fraction, end)).abs() < 1e-15);
        assert_eq!(SessionBound::new(None, None).learning_rate(&config, 10_000), lr, "unbounded: never annealed");
    }
}
