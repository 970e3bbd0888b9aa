//! What the learner tells Prometheus (`GET /metrics` on `--http ADDR`): ingest by outcome
//! and its ack latency, training progress, the workers it has heard from, and for
//! one-player games (2048, 2584) the self-play scores and how many games reached each tile.

use dojo_core::game::GameSpec;
use dojo_core::ntuple::report::{reach_tiles, GameScore};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// A worker counts as connected while it has called within this long.
pub const CONNECTED_WITHIN: Duration = Duration::from_secs(60);

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Outcome {
    status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Store {
    writer: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Worker {
    worker: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Tile {
    tile: u32,
}

/// The metrics of one-player runs: gauges of the last metrics window's games (what the
/// dashboard charts), and counters a query can turn into reach rates over any range
/// (`rate(games_reaching_tile_total[1h]) / rate(scored_games_total[1h])`).
struct ScoreMetrics {
    spec: GameSpec,
    mean_score: Gauge<f64, AtomicU64>,
    max_score: Gauge,
    max_tile: Gauge,
    scored_games: Counter,
    reaching: Family<Tile, Counter>,
}

/// The learner's metrics, updated where things happen and read by each scrape.
pub struct Telemetry {
    registry: Registry,
    games: Family<Outcome, Counter>,
    ack_seconds: Histogram,
    step: Gauge,
    samples_per_second: Gauge<f64, AtomicU64>,
    model_version: Gauge,
    buffer_positions: Gauge,
    workers_connected: Gauge,
    worker_last_seen: Family<Worker, Gauge<f64, AtomicU64>>,
    worker_games: Family<Worker, Counter>,
    storage_writable: Family<Store, Gauge>,
    /// Only for one-player games: a two-player run has no scores to show as zeros.
    scores: Option<ScoreMetrics>,
    /// Each worker's calls and games, for the connected count and the dashboard.
    seen: Mutex<HashMap<String, WorkerSeen>>,
}

struct WorkerSeen {
    first: Instant,
    last: Instant,
    /// The model version of its newest stored game.
    model_version: Option<u64>,
}

/// A worker as the dashboard shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct WorkerStatus {
    pub name: String,
    pub seconds_ago: f64,
    pub games: u64,
    /// Games stored per minute since the learner first heard from it.
    pub games_per_minute: f64,
    pub model_version: Option<u64>,
}

/// How an ingested game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ingest {
    Stored,
    Duplicate,
    Rejected,
    /// Valid, but the game log could not store it (a full disk): not acknowledged.
    Unstored,
}

impl Default for Telemetry {
    fn default() -> Telemetry {
        Telemetry::new()
    }
}

impl Telemetry {
    pub fn new() -> Telemetry {
        let mut t = Telemetry {
            registry: Registry::with_prefix("dojo"),
            games: Family::default(),
            // 0.1 ms .. ~3 s.
            ack_seconds: Histogram::new(exponential_buckets(0.0001, 2.0, 16)),
            step: Gauge::default(),
            samples_per_second: Gauge::default(),
            model_version: Gauge::default(),
            buffer_positions: Gauge::default(),
            workers_connected: Gauge::default(),
            worker_last_seen: Family::default(),
            worker_games: Family::default(),
            storage_writable: Family::default(),
            scores: None,
            seen: Mutex::new(HashMap::new()),
        };
        t.registry.register("ingest_games", "Games submitted by workers, by what became of them", t.games.clone());
        t.registry.register(
            "ingest_ack_seconds",
            "Time from a game's arrival to its acknowledgement (validation and fsync)",
            t.ack_seconds.clone(),
        );
        t.registry.register("training_step", "Training steps taken", t.step.clone());
        t.registry.register(
            "training_samples_per_second",
            "Training samples per second, last window",
            t.samples_per_second.clone(),
        );
        t.registry.register("model_version", "Newest published model version", t.model_version.clone());
        t.registry.register("replay_buffer_positions", "Positions in the replay buffer", t.buffer_positions.clone());
        t.registry.register(
            "workers_connected",
            "Workers heard from within the last 60 seconds",
            t.workers_connected.clone(),
        );
        t.registry.register(
            "worker_last_seen_timestamp_seconds",
            "When each worker last called, in Unix seconds",
            t.worker_last_seen.clone(),
        );
        t.registry.register(
            "worker_games",
            "Games each worker delivered and the learner stored",
            t.worker_games.clone(),
        );
        t.registry.register(
            "storage_writable",
            "1 while the run directory takes this writer's writes, 0 while they fail (a full disk)",
            t.storage_writable.clone(),
        );
        t.storage(true, true);
        t
    }

    /// [`Telemetry::new`] with the score metrics when `spec` is a one-player game.
    pub fn for_game(spec: &GameSpec) -> Telemetry {
        let mut t = Telemetry::new();
        if !spec.is_one_player() {
            return t;
        }
        let scores = ScoreMetrics {
            spec: spec.clone(),
            mean_score: Gauge::default(),
            max_score: Gauge::default(),
            max_tile: Gauge::default(),
            scored_games: Counter::default(),
            reaching: Family::default(),
        };
        let r = &mut t.registry;
        r.register(
            "selfplay_mean_score",
            "Mean score of the self-play games of the last metrics window",
            scores.mean_score.clone(),
        );
        r.register(
            "selfplay_max_score",
            "Best score among the self-play games of the last metrics window",
            scores.max_score.clone(),
        );
        r.register(
            "selfplay_max_tile",
            "Largest tile of the self-play games of the last metrics window",
            scores.max_tile.clone(),
        );
        r.register("selfplay_scored_games", "Self-play games whose scores were counted", scores.scored_games.clone());
        r.register(
            "selfplay_games_reaching_tile",
            "Self-play games whose largest tile was this tile or bigger",
            scores.reaching.clone(),
        );
        // Every tile of the table from the start, so a rate has a zero to start from.
        for tile in reach_tiles(spec, 0) {
            drop(scores.reaching.get_or_create(&Tile { tile }));
        }
        t.scores = Some(scores);
        t
    }

    /// Whether the game log and the checkpoints can be written now.
    pub fn storage(&self, game_log: bool, checkpoints: bool) {
        self.storage_writable.get_or_create(&Store { writer: "game_log" }).set(i64::from(game_log));
        self.storage_writable.get_or_create(&Store { writer: "checkpoints" }).set(i64::from(checkpoints));
    }

    /// A worker called (any request naming itself).
    pub fn seen(&self, worker: &str) {
        let now = Instant::now();
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        seen.entry(worker.to_string()).and_modify(|w| w.last = now).or_insert(WorkerSeen {
            first: now,
            last: now,
            model_version: None,
        });
        drop(seen);
        let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_secs_f64();
        self.worker_last_seen.get_or_create(&Worker { worker: worker.to_string() }).set(now);
    }

    /// A game was acknowledged `after` its arrival; `worker` sent it, where known, played by
    /// `model_version`, where it could be read.
    pub fn ingested(&self, outcome: Ingest, after: Duration, worker: Option<&str>, model_version: Option<u64>) {
        let status = match outcome {
            Ingest::Stored => "stored",
            Ingest::Duplicate => "duplicate",
            Ingest::Rejected => "rejected",
            Ingest::Unstored => "unstored",
        };
        self.games.get_or_create(&Outcome { status }).inc();
        self.ack_seconds.observe(after.as_secs_f64());
        if let Some(w) = worker {
            self.seen(w);
            if outcome == Ingest::Stored {
                self.worker_games.get_or_create(&Worker { worker: w.to_string() }).inc();
                if let Some(seen) = self.seen.lock().unwrap_or_else(|p| p.into_inner()).get_mut(w) {
                    seen.model_version = model_version.or(seen.model_version);
                }
            }
        }
    }

    /// Training's state after a metrics window.
    pub fn trained(&self, step: u64, samples_per_second: f64, buffer_positions: usize) {
        self.step.set(step as i64);
        self.samples_per_second.set(samples_per_second);
        self.buffer_positions.set(buffer_positions as i64);
    }

    /// The one-player games of a metrics window (nothing for a two-player run): the gauges
    /// show this window once it has games, the counters add them.
    pub fn scored(&self, games: &[GameScore]) {
        let Some(s) = &self.scores else { return };
        let Some(best) = games.iter().map(|g| g.score).max() else { return };
        let mean = games.iter().map(|g| g.score as f64).sum::<f64>() / games.len() as f64;
        s.mean_score.set(mean);
        s.max_score.set(i64::try_from(best).unwrap_or(i64::MAX));
        s.max_tile.set(games.iter().map(|g| i64::from(g.max_tile)).max().unwrap_or(0));
        s.scored_games.inc_by(games.len() as u64);
        for g in games {
            for tile in reach_tiles(&s.spec, g.max_tile).into_iter().filter(|&t| t <= g.max_tile) {
                s.reaching.get_or_create(&Tile { tile }).inc();
            }
        }
    }

    pub fn published(&self, version: u64) {
        self.model_version.set(version as i64);
    }

    /// The workers heard from, by name.
    pub fn workers(&self) -> Vec<WorkerStatus> {
        let seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let mut workers: Vec<WorkerStatus> = seen
            .iter()
            .map(|(name, w)| {
                let games = self.worker_games.get_or_create(&Worker { worker: name.clone() }).get();
                let minutes = w.first.elapsed().as_secs_f64() / 60.0;
                WorkerStatus {
                    name: name.clone(),
                    seconds_ago: w.last.elapsed().as_secs_f64(),
                    games,
                    games_per_minute: if minutes > 0.0 { games as f64 / minutes } else { 0.0 },
                    model_version: w.model_version,
                }
            })
            .collect();
        workers.sort_by(|a, b| a.name.cmp(&b.name));
        workers
    }

    /// The page Prometheus scrapes, in its classic text format (0.0.4).
    pub fn render(&self) -> String {
        let connected = {
            let seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
            seen.values().filter(|w| w.last.elapsed() < CONNECTED_WITHIN).count()
        };
        self.workers_connected.set(connected as i64);
        dojo_proto::prometheus::render(&self.registry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_counts_ingest_by_outcome_and_names_the_workers() {
        let t = Telemetry::new();
        t.ingested(Ingest::Stored, Duration::from_millis(2), Some("host-1"), Some(3));
        t.ingested(Ingest::Stored, Duration::from_millis(3), Some("host-1"), Some(4));
        t.ingested(Ingest::Duplicate, Duration::from_millis(1), Some("host-2"), Some(4));
        t.ingested(Ingest::Rejected, Duration::from_millis(1), None, None);
        t.trained(120, 950.5, 4000);
        t.published(7);
        let page = t.render();
        for line in [
            "dojo_ingest_games_total{status=\"stored\"} 2",
            "dojo_ingest_games_total{status=\"duplicate\"} 1",
            "dojo_ingest_games_total{status=\"rejected\"} 1",
            "dojo_ingest_ack_seconds_count 4",
            "dojo_training_step 120",
            "dojo_training_samples_per_second 950.5",
            "dojo_model_version 7",
            "dojo_replay_buffer_positions 4000",
            "dojo_workers_connected 2",
            "dojo_worker_games_total{worker=\"host-1\"} 2",
        ] {
            assert!(page.lines().any(|l| l == line), "no {line:?} in\n{page}");
        }
        assert!(page.contains("dojo_worker_last_seen_timestamp_seconds{worker=\"host-2\"} 1"), "{page}");
        // Prometheus's text format: counter families named as their samples, no "# EOF".
        assert!(page.contains("# TYPE dojo_ingest_games_total counter\n"), "{page}");
        assert!(page.contains("# HELP dojo_worker_games_total Games each worker"), "{page}");
        assert!(!page.contains("# EOF"), "{page}");
        let workers = t.workers();
        let names: Vec<&str> = workers.iter().map(|w| w.name.as_str()).collect();
        assert_eq!(names, ["host-1", "host-2"]);
        assert_eq!((workers[0].games, workers[0].model_version), (2, Some(4)));
        assert_eq!((workers[1].games, workers[1].model_version), (0, None), "a duplicate is not a new game");
        assert!(!page.contains("selfplay"), "a two-player run has no scores: {page}");
    }

    #[test]
    fn one_player_runs_show_the_windows_scores_and_count_games_reaching_each_tile() {
        let t = Telemetry::for_game(&GameSpec::Twenty48);
        let zeros = t.render();
        assert!(zeros.contains("dojo_selfplay_games_reaching_tile_total{tile=\"32768\"} 0\n"), "{zeros}");
        let g = |score, max_tile| GameScore { score, max_tile };
        t.scored(&[g(100, 2048), g(300, 1024)]);
        t.scored(&[]);
        t.scored(&[g(50, 4096), g(70, 512), g(90, 256), g(20, 8)]);
        let page = t.render();
        for line in [
            "dojo_selfplay_mean_score 57.5",
            "dojo_selfplay_max_score 90",
            "dojo_selfplay_max_tile 4096",
            "dojo_selfplay_scored_games_total 6",
            "dojo_selfplay_games_reaching_tile_total{tile=\"2048\"} 2",
            "dojo_selfplay_games_reaching_tile_total{tile=\"4096\"} 1",
            "dojo_selfplay_games_reaching_tile_total{tile=\"8192\"} 0",
        ] {
            assert!(page.lines().any(|l| l == line), "no {line:?} in\n{page}");
        }
        assert!(page.contains("# TYPE dojo_selfplay_games_reaching_tile_total counter\n"), "{page}");
        assert!(page.contains("# TYPE dojo_selfplay_max_tile gauge\n"), "{page}");
    }
}
