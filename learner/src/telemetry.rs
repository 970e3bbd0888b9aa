//! What the learner tells Prometheus (`GET /metrics` on `--http ADDR`): ingest by outcome
//! and its ack latency, the metrics window's gauges (training progress and losses, and for
//! one-player games (2048, 2584) the self-play scores), the workers it has heard from, and
//! how many one-player games reached each tile. Every name, help and type is a row of the
//! metrics table (`dojo_metrics::table`): the window's gauges are made from it.
//!
//! One concept with `dojo_worker::telemetry`: what each service tells Prometheus, hence one
//! name.

use dojo_game::GameScore;
use dojo_game::GameSpec;
use dojo_metrics::table::{self, learner as names, LINE};
use dojo_metrics::{Kind, Line, Metric, Value};
use dojo_record::score::reach_tiles;
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

/// The gauge of a metrics window's number (a row of the table's `LINE` with a Prometheus
/// name): an integer one for counts, so `dojo_training_step 120` reads as it always has.
#[derive(Debug)]
enum WindowGauge {
    Count(Gauge),
    Real(Gauge<f64, AtomicU64>),
}

impl WindowGauge {
    fn set(&self, value: &Value) {
        match (self, value) {
            (WindowGauge::Count(g), Value::Count(n)) => {
                g.set(i64::try_from(*n).unwrap_or(i64::MAX));
            }
            (WindowGauge::Real(g), v) => {
                if let Some(x) = v.as_f64() {
                    g.set(x);
                }
            }
            _ => {}
        }
    }
}

/// One-player runs' counters, which a query can turn into reach rates over any range
/// (`rate(games_reaching_tile_total[1h]) / rate(scored_games_total[1h])`).
struct ScoreCounters {
    spec: GameSpec,
    scored_games: Counter,
    reaching: Family<Tile, Counter>,
}

/// The learner's metrics, updated where things happen and read by each scrape. Names, help
/// and types are the metrics table's (`dojo_metrics::table`).
pub struct Telemetry {
    registry: Registry,
    games: Family<Outcome, Counter>,
    ack_seconds: Histogram,
    /// The gauges of the metrics window, those of the table's rows this run's game has.
    window: Vec<(&'static Metric, WindowGauge)>,
    workers_connected: Gauge,
    worker_last_seen: Family<Worker, Gauge<f64, AtomicU64>>,
    worker_games: Family<Worker, Counter>,
    storage_writable: Family<Store, Gauge>,
    /// Only for one-player games: a two-player run has no scores to show as zeros.
    scores: Option<ScoreCounters>,
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
    /// A two-player run's metrics.
    pub fn new() -> Telemetry {
        Telemetry::with_scores(None)
    }

    /// [`Telemetry::new`] with the score metrics when `spec` is a one-player game.
    pub fn for_game(spec: &GameSpec) -> Telemetry {
        Telemetry::with_scores(spec.is_one_player().then_some(spec))
    }

    fn with_scores(scored: Option<&GameSpec>) -> Telemetry {
        let mut registry = Registry::default();
        let window = LINE
            .iter()
            .filter(|m| m.players.includes(scored.is_some()))
            .filter_map(|m| {
                let p = m.prometheus.as_ref()?;
                let gauge = match m.kind {
                    Kind::Real => WindowGauge::Real(Gauge::default()),
                    Kind::Count | Kind::Keyed => WindowGauge::Count(Gauge::default()),
                };
                match &gauge {
                    WindowGauge::Count(g) => p.register(&mut registry, g.clone()),
                    WindowGauge::Real(g) => p.register(&mut registry, g.clone()),
                }
                Some((*m, gauge))
            })
            .collect();
        let mut t = Telemetry {
            registry,
            games: Family::default(),
            // 0.1 ms .. ~3 s.
            ack_seconds: Histogram::new(exponential_buckets(0.0001, 2.0, 16)),
            window,
            workers_connected: Gauge::default(),
            worker_last_seen: Family::default(),
            worker_games: Family::default(),
            storage_writable: Family::default(),
            scores: None,
            seen: Mutex::new(HashMap::new()),
        };
        let r = &mut t.registry;
        names::INGEST_GAMES.register(r, t.games.clone());
        names::INGEST_ACK_SECONDS.register(r, t.ack_seconds.clone());
        names::WORKERS_CONNECTED.register(r, t.workers_connected.clone());
        names::WORKER_LAST_SEEN.register(r, t.worker_last_seen.clone());
        names::WORKER_GAMES.register(r, t.worker_games.clone());
        names::STORAGE_WRITABLE.register(r, t.storage_writable.clone());
        if let Some(spec) = scored {
            let scores =
                ScoreCounters { spec: spec.clone(), scored_games: Counter::default(), reaching: Family::default() };
            names::SCORED_GAMES.register(r, scores.scored_games.clone());
            names::GAMES_REACHING_TILE.register(r, scores.reaching.clone());
            // Every tile of the table from the start, so a rate has a zero to start from.
            for tile in reach_tiles(spec, 0) {
                drop(scores.reaching.get_or_create(&Tile { tile }));
            }
            t.scores = Some(scores);
        }
        t.storage(true, true);
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

    /// A metrics window's line: its numbers that have a gauge (the losses, the step, the
    /// throughput, a one-player window's scores once it has games); and the scores of its
    /// one-player games (nothing for a two-player run), which the counters add.
    pub fn window(&self, line: &Line, scores: &[GameScore]) {
        for (metric, value) in line.values() {
            self.set(metric, value);
        }
        let Some(s) = &self.scores else { return };
        s.scored_games.inc_by(scores.len() as u64);
        for g in scores {
            for tile in reach_tiles(&s.spec, g.max_tile).into_iter().filter(|&t| t <= g.max_tile) {
                s.reaching.get_or_create(&Tile { tile }).inc();
            }
        }
    }

    /// Sets the gauge of a window's metric (nothing where the run has none for it).
    pub fn set(&self, metric: &Metric, value: &Value) {
        if let Some((_, gauge)) = self.window.iter().find(|(m, _)| m.key == metric.key) {
            gauge.set(value);
        }
    }

    pub fn published(&self, version: u64) {
        self.set(&table::VERSION, &Value::Count(version));
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
    use crate::learner::metrics::scores;
    use dojo_metrics::table::*;

    #[test]
    fn the_page_counts_ingest_by_outcome_and_names_the_workers() {
        let t = Telemetry::new();
        t.ingested(Ingest::Stored, Duration::from_millis(2), Some("host-1"), Some(3));
        t.ingested(Ingest::Stored, Duration::from_millis(3), Some("host-1"), Some(4));
        t.ingested(Ingest::Duplicate, Duration::from_millis(1), Some("host-2"), Some(4));
        t.ingested(Ingest::Rejected, Duration::from_millis(1), None, None);
        let mut line = Line::new();
        line.count(&STEP, 120).real(&SAMPLES_PER_S, 950.5).count(&BUFFER_POSITIONS, 4000).count(&GAMES, 9);
        line.real(&POLICY_LOSS, 1.5).real(&VALUE_LOSS, 0.25).real(&L2_LOSS, 0.125).real(&TOTAL_LOSS, 1.875);
        t.window(&line, &[]);
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
            "dojo_training_policy_loss 1.5",
            "dojo_training_value_loss 0.25",
            "dojo_training_l2_loss 0.125",
            "dojo_training_total_loss 1.875",
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
        let window = |games: &[GameScore]| {
            let mut line = Line::new();
            line.count(&STEP, 20);
            scores(&GameSpec::Twenty48, games, &mut line);
            t.window(&line, games);
        };
        window(&[g(100, 2048), g(300, 1024)]);
        window(&[]);
        window(&[g(50, 4096), g(70, 512), g(90, 256), g(20, 8)]);
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

    #[test]
    fn the_page_declares_every_metric_of_the_table_with_its_type_and_help() {
        let t = Telemetry::for_game(&GameSpec::Twenty48);
        // A family shows once it has a member.
        t.ingested(Ingest::Stored, Duration::from_millis(2), Some("host-1"), Some(1));
        let page = t.render();
        let window = LINE.iter().filter_map(|m| m.prometheus.as_ref());
        let undeclared: Vec<&str> =
            window.chain(names::ALL.iter().copied()).filter(|p| !p.declared_on(&page)).map(|p| p.name).collect();
        assert!(undeclared.is_empty(), "{undeclared:?} in\n{page}");
    }
}
