//! Whether the run directory is taking writes.
//!
//! A full disk, a read-only remount or an I/O error must not kill a learner holding days of
//! training, and must never lead to acknowledging a game that is not on disk. Writers report
//! here when a write fails and when writing works again (for the game log, when the
//! committer's probe finds room, not when one small batch happens to fit); the health
//! checks read it (a failing
//! game log makes the learner not ready, so orchestrators route workers elsewhere and the
//! workers keep their games spooled), and the game log's committer probes for recovery.

use std::collections::BTreeMap;
use tokio::sync::watch;

/// What writes the run directory; each can fail and recover on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Writer {
    /// Appends to the game log: while it fails, no game can be acknowledged.
    GameLog,
    /// Checkpoints and published models: training goes on in memory meanwhile.
    Checkpoints,
}

impl Writer {
    fn name(self) -> &'static str {
        match self {
            Writer::GameLog => "the game log",
            Writer::Checkpoints => "checkpoints",
        }
    }
}

/// The failing writers and their last error (empty: all is well). Cheap to read from async
/// code (`watch`), written from the committer and training threads.
pub struct StorageHealth {
    faults: watch::Sender<BTreeMap<Writer, String>>,
}

impl Default for StorageHealth {
    fn default() -> Self {
        StorageHealth { faults: watch::Sender::new(BTreeMap::new()) }
    }
}

impl StorageHealth {
    /// Records that `writer` failed with `error`; logged once when it starts failing.
    pub fn failed(&self, writer: Writer, error: &str) {
        self.faults.send_if_modified(|faults| match faults.insert(writer, error.to_string()) {
            None => {
                tracing::error!("cannot write {}: {error}; retrying until it works again", writer.name());
                true
            }
            Some(old) => old != error,
        });
    }

    /// Records that `writer` wrote successfully; logged when it had been failing.
    pub fn recovered(&self, writer: Writer) {
        self.faults.send_if_modified(|faults| match faults.remove(&writer) {
            Some(_) => {
                tracing::info!("{} is writable again", writer.name());
                true
            }
            None => false,
        });
    }

    /// Whether `writer` is failing now.
    pub fn is_failing(&self, writer: Writer) -> bool {
        self.faults.borrow().contains_key(&writer)
    }

    /// Why games cannot be taken now (the game log fails), if they cannot.
    pub fn not_ready_reason(&self) -> Option<String> {
        self.faults.borrow().get(&Writer::GameLog).map(|e| format!("cannot store games: {e}"))
    }

    /// Every failing writer, as "what: error" lines.
    pub fn faults(&self) -> Vec<String> {
        self.faults.borrow().iter().map(|(w, e)| format!("cannot write {}: {e}", w.name())).collect()
    }

    /// Woken on every change (for the gRPC health status).
    pub fn subscribe(&self) -> watch::Receiver<BTreeMap<Writer, String>> {
        self.faults.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_come_and_go_per_writer() {
        let h = StorageHealth::default();
        assert_eq!(h.not_ready_reason(), None);
        h.failed(Writer::Checkpoints, "No space left on device (os error 28)");
        assert_eq!(h.not_ready_reason(), None, "checkpoints failing do not stop ingest");
        h.failed(Writer::GameLog, "No space left on device (os error 28)");
        assert_eq!(h.not_ready_reason().as_deref(), Some("cannot store games: No space left on device (os error 28)"));
        assert_eq!(h.faults().len(), 2);
        h.recovered(Writer::GameLog);
        assert_eq!(h.not_ready_reason(), None);
        assert!(h.is_failing(Writer::Checkpoints));
        h.recovered(Writer::Checkpoints);
        assert!(h.faults().is_empty());
    }
}
