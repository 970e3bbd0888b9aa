//! Which published versions a run keeps on disk: the newest `learner.keep_versions` (what a
//! restart, gating and the workers use) and, kept for good, a thinned history of the whole
//! run (`learner.keep_every`), so that a tournament or the ladder over training sees the run
//! from its start and not only its last minutes.
//!
//! The history is log-spaced, not every K-th version: the step between kept versions
//! doubles each time the run does. How many versions a run publishes depends on the machine
//! far more than on its settings: a default Connect Four run (a version every 50 steps)
//! publishes about 385 in 30 minutes on 2 CPU cores (~11 steps a second), 18,000 in a day,
//! and some 170,000 in a day on a GPU (~100 steps a second). A fixed K would keep 3 versions
//! of the short run or thousands of the long one; doubling keeps dozens of each (8 more per
//! doubling: 25 of the 30-minute run, ~70 of the day on 2 cores, ~100 of the day on a GPU),
//! densest early, where strength changes fastest. Each step is a multiple of every step
//! before it, so `--every-nth-version S`, with S the step the history has reached, finds
//! every version it asks for.

use crate::config::LearnerConfig;

/// Versions kept at each step before it doubles: the first `KEPT_AT_FIRST_STEP` multiples
/// of `keep_every`, then 8 more at every doubling.
pub const KEPT_AT_FIRST_STEP: u64 = 16;

/// The retention rule of a run, from its `[learner]` settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retention {
    /// The newest this many versions are kept (0: every version is).
    pub newest: u64,
    /// The history's first step (0: no history beyond the newest).
    pub every: u64,
}

impl Retention {
    pub fn of(learner: &LearnerConfig) -> Retention {
        Retention { newest: learner.keep_versions as u64, every: learner.keep_every }
    }

    /// Whether nothing is ever deleted (`keep_versions = 0`).
    pub fn keeps_all(&self) -> bool {
        self.newest == 0
    }

    /// The history's step at version `v` (None: no history): `keep_every` up to
    /// `KEPT_AT_FIRST_STEP × keep_every`, then doubling with each doubling of the run.
    pub fn step_at(&self, v: u64) -> Option<u64> {
        if self.every == 0 {
            return None;
        }
        let (mut step, mut up_to) = (self.every, self.every.saturating_mul(KEPT_AT_FIRST_STEP));
        while v > up_to {
            step = step.saturating_mul(2);
            up_to = up_to.saturating_mul(2);
        }
        Some(step)
    }

    /// Whether `v` belongs to the history kept for good.
    pub fn in_history(&self, v: u64) -> bool {
        v > 0 && self.step_at(v).is_some_and(|step| v.is_multiple_of(step))
    }

    /// Whether version `v` stays on disk once `newest` has been published.
    pub fn keeps(&self, v: u64, newest: u64) -> bool {
        self.keeps_all() || newest.saturating_sub(v) < self.newest || self.in_history(v)
    }

    /// What the run keeps, in words, as far as `newest`: "the newest 20 versions and, for
    /// good, every 10th version up to v160, every 20th up to v320 and every 40th after it
    /// (learner.keep_versions = 20, learner.keep_every = 10)".
    pub fn describe(&self, newest: u64) -> String {
        let settings = format!("learner.keep_versions = {}, learner.keep_every = {}", self.newest, self.every);
        if self.keeps_all() {
            return format!("every version ({settings})");
        }
        if self.every == 0 {
            return format!("only the newest {} versions ({settings})", self.newest);
        }
        let mut spans = Vec::new();
        let (mut step, mut up_to) = (self.every, self.every.saturating_mul(KEPT_AT_FIRST_STEP));
        while up_to < newest && up_to < u64::MAX {
            spans.push(format!("every {} up to v{up_to}", ordinal(step)));
            step = step.saturating_mul(2);
            up_to = up_to.saturating_mul(2);
        }
        let after = match spans.len() {
            0 => format!("every {} version", ordinal(step)),
            _ => format!("every {} after it", ordinal(step)),
        };
        if spans.len() > 3 {
            spans.drain(1..spans.len() - 1);
            spans.insert(1, "…".into());
        }
        spans.push(after);
        let history = match spans.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => unreachable!("a span was pushed"),
        };
        format!("the newest {} versions and, for good, {history} ({settings})", self.newest)
    }
}

/// "1st", "2nd", "3rd", "10th", "11th", "22nd".
pub fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(r: Retention, published: u64) -> Vec<u64> {
        (1..=published).filter(|&v| r.keeps(v, published)).collect()
    }

    #[test]
    fn the_default_keeps_the_newest_twenty_and_a_log_spaced_history() {
        let r = Retention::of(&LearnerConfig::default());
        assert_eq!(r, Retention { newest: 20, every: 10 });
        let mut expect: Vec<u64> = (1..=16).map(|i| i * 10).collect();
        expect.extend((9..=16).map(|i| i * 20));
        expect.push(360);
        expect.extend(366..=385);
        assert_eq!(kept(r, 385), expect);
        // Publishing one at a time, deleting what is not kept, ends with the same set:
        // nothing deleted is ever wanted back.
        let mut on_disk = Vec::new();
        for newest in 1..=385 {
            on_disk.push(newest);
            on_disk.retain(|&v| r.keeps(v, newest));
        }
        assert_eq!(on_disk, expect);
    }

    #[test]
    fn versions_one_to_two_hundred_with_five_newest_and_every_fourth() {
        let r = Retention { newest: 5, every: 4 };
        let mut expect: Vec<u64> = (1..=16).map(|i| i * 4).collect();
        expect.extend((9..=16).map(|i| i * 8));
        expect.extend([144, 160, 176, 192]);
        expect.extend(196..=200);
        assert_eq!(kept(r, 200), expect);
        assert_eq!(
            (r.step_at(64), r.step_at(65), r.step_at(128), r.step_at(129)),
            (Some(4), Some(8), Some(8), Some(16))
        );
    }

    #[test]
    fn zero_keeps_everything_and_no_history_keeps_only_the_newest() {
        assert_eq!(kept(Retention { newest: 0, every: 10 }, 50), (1..=50).collect::<Vec<_>>());
        assert_eq!(kept(Retention { newest: 3, every: 0 }, 50), vec![48, 49, 50]);
        assert_eq!(kept(Retention { newest: 30, every: 0 }, 20), (1..=20).collect::<Vec<_>>());
    }

    #[test]
    fn a_long_run_keeps_dozens_and_huge_versions_do_not_overflow() {
        let r = Retention { newest: 20, every: 10 };
        let history = |n: u64| (1..=n).filter(|&v| r.in_history(v)).count();
        assert_eq!(history(18_000), 16 + 8 * 6 + 6);
        assert_eq!(history(170_000), 16 + 8 * 10);
        assert!(r.keeps(u64::MAX, u64::MAX));
        assert!(r.step_at(u64::MAX).is_some());
        assert!(Retention { newest: 1, every: u64::MAX }.in_history(u64::MAX));
    }

    #[test]
    fn describe_says_what_is_kept_and_which_settings_say_so() {
        let r = Retention { newest: 20, every: 10 };
        assert_eq!(
            r.describe(100),
            "the newest 20 versions and, for good, every 10th version (learner.keep_versions = 20, learner.keep_every = 10)"
        );
        assert_eq!(
            r.describe(385),
            "the newest 20 versions and, for good, every 10th up to v160, every 20th up to v320 and every 40th after \
             it (learner.keep_versions = 20, learner.keep_every = 10)"
        );
        assert_eq!(
            r.describe(18_000),
            "the newest 20 versions and, for good, every 10th up to v160, …, every 640th up to v10240 and every \
             1280th after it (learner.keep_versions = 20, learner.keep_every = 10)"
        );
        assert_eq!(
            Retention { newest: 20, every: 0 }.describe(9),
            "only the newest 20 versions (learner.keep_versions = 20, learner.keep_every = 0)"
        );
        assert_eq!(
            Retention { newest: 0, every: 0 }.describe(9),
            "every version (learner.keep_versions = 0, learner.keep_every = 0)"
        );
        assert_eq!(
            [1, 2, 3, 4, 11, 12, 13, 21, 22, 112].map(ordinal).join(" "),
            "1st 2nd 3rd 4th 11th 12th 13th 21st 22nd 112th"
        );
    }
}
