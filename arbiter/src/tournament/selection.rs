//! Which of a run's published versions `--every-nth-version K` rates, and, where some it
//! asks for are no longer on disk, a note saying how many, which and why: the run's
//! retention pruned them (`dojo_run::retention`), or something else removed them.

use dojo_run::retention::{ordinal, Retention};

/// The versions that play: those on disk divisible by `every`, and the newest.
pub fn chosen(on_disk: &[u64], every: Option<u64>) -> Vec<u64> {
    let newest = on_disk.last().copied();
    on_disk.iter().copied().filter(|&v| every.is_some_and(|k| v.is_multiple_of(k)) || Some(v) == newest).collect()
}

/// What to tell the user when `--every-nth-version every` asked for versions that are gone:
/// "asked for every 20th version up to v385: 1 of 19 is no longer on disk (v340): the run
/// keeps … : rating 18 and the newest, v385; --every-nth-version 40 finds every one it asks
/// for". None when every version asked for is there.
pub fn shortfall(on_disk: &[u64], every: u64, retention: Retention) -> Option<String> {
    let newest = *on_disk.last()?;
    let asked: Vec<u64> = (1..=newest / every).map(|i| i * every).collect();
    let missing: Vec<u64> = asked.iter().copied().filter(|v| on_disk.binary_search(v).is_err()).collect();
    if missing.is_empty() {
        return None;
    }
    let (pruned, other): (Vec<u64>, Vec<u64>) = missing.iter().partition(|&&v| !retention.keeps(v, newest));
    let mut note = format!(
        "asked for every {} version up to v{newest}: {} of {} {} no longer on disk",
        ordinal(every),
        missing.len(),
        asked.len(),
        if missing.len() == 1 { "is" } else { "are" },
    );
    if !pruned.is_empty() {
        note += &format!(" ({}: the run keeps {})", list(&pruned), retention.describe(newest));
    }
    if !other.is_empty() {
        note += &format!(
            "; {} {} though the run's settings keep {} (pruned under earlier settings, or removed)",
            list(&other),
            if other.len() == 1 { "is gone" } else { "are gone" },
            if other.len() == 1 { "it" } else { "them" },
        );
    }
    let rated = asked.len() - missing.len();
    note += &match asked.last() == Some(&newest) {
        true => format!(": rating {rated}"),
        false => format!(": rating {rated} and the newest, v{newest}"),
    };
    // Every step of the history divides the newest step, so a multiple of it finds all.
    if let Some(step) = retention.step_at(newest).filter(|s| !every.is_multiple_of(*s) && !pruned.is_empty()) {
        note += &format!("; --every-nth-version {step} finds every one it asks for");
    }
    Some(note)
}

/// "v340", "v20, v40 and v60", or the first few and how many more: "v20, v40, v60, v80,
/// v100 and 12 more".
fn list(versions: &[u64]) -> String {
    const SHOWN: usize = 5;
    let names: Vec<String> = versions.iter().take(SHOWN).map(|v| format!("v{v}")).collect();
    match (versions.len(), names.split_last()) {
        (n, Some((last, rest))) if n <= SHOWN && !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        (n, _) if n > SHOWN => format!("{} and {} more", names.join(", "), n - SHOWN),
        _ => names.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The versions on disk once `published` versions were published under `retention`.
    fn on_disk(retention: Retention, published: u64) -> Vec<u64> {
        (1..=published).filter(|&v| retention.keeps(v, published)).collect()
    }

    #[test]
    fn a_default_run_of_thirty_minutes_is_rated_from_its_start() {
        let retention = Retention { newest: 20, every: 10 };
        let disk = on_disk(retention, 385);
        assert_eq!(chosen(&disk, Some(40)), [40, 80, 120, 160, 200, 240, 280, 320, 360, 385]);
        assert_eq!(shortfall(&disk, 40, retention), None);
        assert_eq!(chosen(&disk, Some(20)).len(), 18 + 1);
        assert_eq!(
            shortfall(&disk, 20, retention).unwrap(),
            "asked for every 20th version up to v385: 1 of 19 is no longer on disk (v340: the run keeps the newest \
             20 versions and, for good, every 10th up to v160, every 20th up to v320 and every 40th after it \
             (learner.keep_versions = 20, learner.keep_every = 10)): rating 18 and the newest, v385; \
             --every-nth-version 40 finds every one it asks for"
        );
    }

    #[test]
    fn without_a_history_it_says_which_setting_pruned_them() {
        let retention = Retention { newest: 20, every: 0 };
        let disk = on_disk(retention, 400);
        assert_eq!(chosen(&disk, Some(20)), [400]);
        assert_eq!(chosen(&disk, Some(1)), (381..=400).collect::<Vec<_>>());
        assert_eq!(
            shortfall(&disk, 20, retention).unwrap(),
            "asked for every 20th version up to v400: 19 of 20 are no longer on disk (v20, v40, v60, v80, v100 and \
             14 more: the run keeps only the newest 20 versions (learner.keep_versions = 20, \
             learner.keep_every = 0)): rating 1"
        );
    }

    #[test]
    fn versions_gone_that_the_settings_keep_are_told_apart() {
        let retention = Retention { newest: 0, every: 0 };
        let disk = [1, 2, 4, 5, 6, 7, 8];
        assert_eq!(
            shortfall(&disk, 3, retention).unwrap(),
            "asked for every 3rd version up to v8: 1 of 2 is no longer on disk; v3 is gone though the run's \
             settings keep it (pruned under earlier settings, or removed): rating 1 and the newest, v8"
        );
        assert_eq!(shortfall(&disk, 2, retention), None);
        assert_eq!(shortfall(&[], 2, retention), None);
        assert_eq!(list(&[3, 6]), "v3 and v6");
        assert_eq!(list(&[3, 6, 9, 12, 15]), "v3, v6, v9, v12 and v15");
    }
}
