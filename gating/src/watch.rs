//! The gatekeeper's loop, the one both of its homes run: `dojo gate` (once, or `--watch` as
//! a cluster's arbiter, reading the newest version from `models/latest.json`) and
//! `dojo train`'s gating thread (watching, the newest version from the learner in the same
//! process). It decides when a version is due, gates it, and hands what happened to the
//! caller as [`Event`]s, which each prints its own way.

use crate::gatekeeper::{newest_version, GateFailed, GateRecord, Gatekeeper};
use dojo_net::checkpoint::CheckpointError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// When the loop gates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// The newest version, unless it has been gated already; then return.
    Once,
    /// Every time this many versions (at least 1) are new since the last gated one, until
    /// the stop flag is set.
    Every(u64),
}

/// Where the loop reads the newest version.
#[derive(Clone, Copy)]
pub enum Newest<'a> {
    /// The run's newest published version (`models/latest.json`): `dojo gate`, wherever
    /// the run directory is.
    Published,
    /// What this function says: `dojo train`'s gating thread asks the learner in its
    /// process.
    Read(&'a dyn Fn() -> Result<u64, CheckpointError>),
}

impl Newest<'_> {
    fn read(&self, keeper: &Gatekeeper) -> Result<u64, CheckpointError> {
        match self {
            Newest::Published => newest_version(keeper.run()),
            Newest::Read(read) => read(),
        }
    }
}

/// How the loop runs.
#[derive(Clone, Copy, Debug)]
pub struct Watch<'a> {
    pub schedule: Schedule,
    /// Between looks at the newest version, watching.
    pub poll: Duration,
    /// Ends a watch between looks, and cancels the match being played (a cancelled gate
    /// ends the loop quietly, once or watching).
    pub stop: &'a AtomicBool,
}

/// An unreadable newest version is read again after this long, watching ("trying again
/// every second").
const RETRY: Duration = Duration::from_secs(1);

/// What the loop did, for the caller to say.
#[derive(Debug)]
pub enum Event<'a> {
    /// Watching, the newest version cannot be read (a learner of an older dojo rewriting
    /// `latest.json` in place, a volume hiccup): said once for each new error; it is read
    /// again every second.
    Unreadable(&'a CheckpointError),
    /// This version is about to be gated.
    Gating(u64),
    /// A decision, recorded; `best` is the best version after it.
    Gated { record: &'a GateRecord, best: Option<u64> },
    /// Watching, a gate that failed (a version pruned before it was read, say): the version
    /// is passed over.
    Failed(&'a GateFailed),
    /// Once, the newest version had been gated already; `best` is the best version.
    AlreadyGated { newest: u64, best: Option<u64> },
}

/// Why a gate once did not happen. (Watching, the loop tries again or passes a version
/// over instead, and never returns one.)
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The newest version cannot be read.
    #[error(transparent)]
    Newest(CheckpointError),
    /// The gate failed.
    #[error(transparent)]
    Gate(GateFailed),
}

impl Gatekeeper {
    /// Gates the versions `newest` names as `options` schedule them, reporting to `on`.
    /// Returns when a gate once is done (or was not due), or when `options.stop` is set.
    pub fn watch(
        &mut self,
        newest: Newest<'_>,
        options: &Watch<'_>,
        on: &mut dyn FnMut(Event<'_>),
    ) -> Result<(), WatchError> {
        watch(self, &|keeper| newest.read(keeper), options, on)
    }
}

/// [`Gatekeeper::watch`]'s loop.
fn watch(
    keeper: &mut Gatekeeper,
    newest: &dyn Fn(&Gatekeeper) -> Result<u64, CheckpointError>,
    options: &Watch<'_>,
    on: &mut dyn FnMut(Event<'_>),
) -> Result<(), WatchError> {
    let Watch { schedule, poll, stop } = *options;
    let watching = matches!(schedule, Schedule::Every(_));
    let stopped = || stop.load(Ordering::Relaxed);
    let mut unreadable: Option<String> = None;
    loop {
        if watching && stopped() {
            return Ok(());
        }
        let newest = match newest(keeper) {
            Ok(v) => {
                unreadable = None;
                v
            }
            Err(e) if watching => {
                let text = e.to_string();
                if unreadable.as_ref() != Some(&text) {
                    on(Event::Unreadable(&e));
                }
                unreadable = Some(text);
                if stopped() {
                    return Ok(());
                }
                std::thread::sleep(RETRY);
                continue;
            }
            Err(e) => return Err(WatchError::Newest(e)),
        };
        let due = match schedule {
            Schedule::Once => newest > keeper.last_gated(),
            Schedule::Every(every) => keeper.due(newest, every),
        };
        // Drawing the benchmark took a while: the learner may have published (and pruned)
        // versions meanwhile, so look for the newest again.
        if due && keeper.prepare() {
            continue;
        }
        if due {
            on(Event::Gating(newest));
            match keeper.gate(newest, Some(stop)) {
                Ok(record) => on(Event::Gated { record: &record, best: keeper.best_version() }),
                Err(_) if stopped() => return Ok(()),
                Err(e) if watching => {
                    on(Event::Failed(&e));
                    keeper.skip(newest);
                }
                Err(e) => return Err(WatchError::Gate(e)),
            }
        } else if !watching {
            on(Event::AlreadyGated { newest, best: keeper.best_version() });
        }
        if !watching || stopped() {
            return Ok(());
        }
        std::thread::sleep(poll);
    }
}
