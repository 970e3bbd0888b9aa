//! What a worker tells Prometheus and the probes (`dojo worker --http ADDR`): games played
//! and uploaded, the spool, the model it plays, and whether it is ready (a model loaded and
//! the learner reachable). Every name, help and type is a row of the metrics table
//! (`dojo_metrics::table::worker`).
//!
//! One concept with `dojo_learner::telemetry`: what each service tells Prometheus, hence
//! one name.

use dojo_metrics::table::worker as names;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Status {
    status: &'static str,
}

/// A worker's metrics, updated by its loop and read by each scrape.
pub struct WorkerTelemetry {
    registry: Registry,
    games_played: Counter,
    positions: Counter,
    uploaded: Family<Status, Counter>,
    upload_failures: Counter,
    upload_seconds: Histogram,
    spool_games: Gauge,
    games_in_flight: Gauge,
    model_version: Gauge,
    learner_reachable: Gauge,
    reachable: AtomicBool,
    model_loaded: AtomicBool,
    stopping: AtomicBool,
}

impl std::fmt::Debug for WorkerTelemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerTelemetry").field("ready", &self.ready()).finish_non_exhaustive()
    }
}

impl Default for WorkerTelemetry {
    fn default() -> WorkerTelemetry {
        WorkerTelemetry::new()
    }
}

impl WorkerTelemetry {
    pub fn new() -> WorkerTelemetry {
        let mut t = WorkerTelemetry {
            registry: Registry::default(),
            games_played: Counter::default(),
            positions: Counter::default(),
            uploaded: Family::default(),
            upload_failures: Counter::default(),
            // 1 ms .. ~30 s.
            upload_seconds: Histogram::new(exponential_buckets(0.001, 2.0, 16)),
            spool_games: Gauge::default(),
            games_in_flight: Gauge::default(),
            model_version: Gauge::default(),
            learner_reachable: Gauge::default(),
            reachable: AtomicBool::new(false),
            model_loaded: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
        };
        let r = &mut t.registry;
        names::GAMES_PLAYED.register(r, t.games_played.clone());
        names::POSITIONS.register(r, t.positions.clone());
        names::UPLOADED_GAMES.register(r, t.uploaded.clone());
        names::UPLOAD_FAILURES.register(r, t.upload_failures.clone());
        names::UPLOAD_SECONDS.register(r, t.upload_seconds.clone());
        names::SPOOL_GAMES.register(r, t.spool_games.clone());
        names::GAMES_IN_FLIGHT.register(r, t.games_in_flight.clone());
        names::MODEL_VERSION.register(r, t.model_version.clone());
        names::LEARNER_REACHABLE.register(r, t.learner_reachable.clone());
        t
    }

    /// A game finished with `moves` moves and went into the spool.
    pub fn played(&self, moves: u64) {
        self.games_played.inc();
        self.positions.inc_by(moves);
    }

    /// An upload came back: `delivered` games stored (or already stored), `rejected` refused.
    pub fn uploaded(&self, delivered: u64, rejected: u64, took: Duration) {
        self.uploaded.get_or_create(&Status { status: "delivered" }).inc_by(delivered);
        self.uploaded.get_or_create(&Status { status: "rejected" }).inc_by(rejected);
        self.upload_seconds.observe(took.as_secs_f64());
    }

    pub fn upload_failed(&self) {
        self.upload_failures.inc();
    }

    pub fn spool(&self, games: usize) {
        self.spool_games.set(games as i64);
    }

    pub fn in_flight(&self, games: usize) {
        self.games_in_flight.set(games as i64);
    }

    pub fn model(&self, version: u64) {
        self.model_version.set(version as i64);
        self.model_loaded.store(true, Ordering::Relaxed);
    }

    pub fn learner(&self, reachable: bool) {
        self.learner_reachable.set(reachable as i64);
        self.reachable.store(reachable, Ordering::Relaxed);
    }

    /// The worker was told to stop: it is no longer ready for new work.
    pub fn stopping(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// Why the worker is not ready, or None when it is (a model loaded, the learner
    /// reachable, not stopping).
    pub fn not_ready(&self) -> Option<&'static str> {
        if self.stopping.load(Ordering::Relaxed) {
            Some("stopping")
        } else if !self.model_loaded.load(Ordering::Relaxed) {
            Some("no model loaded yet")
        } else if !self.reachable.load(Ordering::Relaxed) {
            Some("the learner is unreachable")
        } else {
            None
        }
    }

    pub fn ready(&self) -> bool {
        self.not_ready().is_none()
    }

    /// The page Prometheus scrapes.
    pub fn render(&self) -> String {
        dojo_proto::prometheus::render(&self.registry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_counts_games_and_uploads_and_readiness_needs_a_model_and_the_learner() {
        let t = WorkerTelemetry::new();
        assert_eq!(t.not_ready(), Some("no model loaded yet"));
        t.model(4);
        assert_eq!(t.not_ready(), Some("the learner is unreachable"));
        t.learner(true);
        assert!(t.ready());
        t.played(30);
        t.played(12);
        t.uploaded(2, 0, Duration::from_millis(5));
        t.uploaded(0, 1, Duration::from_millis(5));
        t.upload_failed();
        t.spool(3);
        t.in_flight(8);
        let page = t.render();
        for line in [
            "dojo_worker_games_played_total 2",
            "dojo_worker_positions_total 42",
            "dojo_worker_uploaded_games_total{status=\"delivered\"} 2",
            "dojo_worker_uploaded_games_total{status=\"rejected\"} 1",
            "dojo_worker_upload_failures_total 1",
            "dojo_worker_upload_seconds_count 2",
            "dojo_worker_spool_games 3",
            "dojo_worker_games_in_flight 8",
            "dojo_worker_model_version 4",
            "dojo_worker_learner_reachable 1",
        ] {
            assert!(page.lines().any(|l| l == line), "no {line:?} in\n{page}");
        }
        t.learner(false);
        assert_eq!(t.not_ready(), Some("the learner is unreachable"));
        t.learner(true);
        t.stopping();
        assert_eq!(t.not_ready(), Some("stopping"));
    }

    #[test]
    fn the_page_declares_every_metric_of_the_table_with_its_type_and_help() {
        let t = WorkerTelemetry::new();
        // A family shows once it has a member.
        t.uploaded(1, 0, Duration::from_millis(5));
        let page = t.render();
        let undeclared: Vec<&str> = names::ALL.iter().filter(|p| !p.declared_on(&page)).map(|p| p.name).collect();
        assert!(undeclared.is_empty(), "{undeclared:?} in\n{page}");
    }
}
