//! The training thread's metrics: a window of training steps and stored games, measured
//! into a line of the metrics table (`dojo_metrics`) every so many steps and written to
//! every sink at once: `RUN/metrics.jsonl`, TensorBoard (`RUN/tensorboard/learner/`, a file
//! of this session's own), the learner's Prometheus gauges, and the losses `dojo train`'s
//! progress line shows. What each number is called in each sink is the table's business;
//! this is where they are measured.

use super::Shared;
use crate::replay_buffer::ReplayBuffer;
use dojo_arch::architecture::AuxHeads;
use dojo_game::GameScore;
use dojo_game::{Game, GameSpec, Outcome, Player};
use dojo_metrics::table::*;
use dojo_metrics::Line;
use dojo_net::train::{Losses, Trainer};
use dojo_proto::tensorboard::EventWriter;
use dojo_record::score::{score_of_record, ScoreReport};
use dojo_record::GameRecord;
use dojo_run::dir::RunDir;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// What happened since the last line.
struct Window {
    started: Instant,
    losses: Vec<Losses>,
    /// Each stored game's winner (none: a draw, or a one-player game's end) and moves.
    games: Vec<(Option<Player>, usize)>,
    /// One-player games' scores.
    scores: Vec<GameScore>,
}

impl Window {
    fn new() -> Window {
        Window { started: Instant::now(), losses: Vec::new(), games: Vec::new(), scores: Vec::new() }
    }
}

/// `metrics.jsonl` cannot be opened. Its cause is part of the message, not also its
/// `source()`.
#[derive(Debug, thiserror::Error)]
#[error("cannot open {}: {error}", .path.display())]
pub struct MetricsError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

pub struct Metrics {
    spec: GameSpec,
    /// Whether the game ends in a score (one-player): then the window's games are scored.
    scored: bool,
    window: Window,
    file: std::fs::File,
    /// None where the file could not be made (training goes on without, and says so once).
    tensorboard: Option<EventWriter>,
}

impl Metrics {
    /// Appends to the run's `metrics.jsonl` and starts this session's TensorBoard file.
    pub fn open(run: &RunDir, spec: &GameSpec) -> Result<Metrics, MetricsError> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(run.metrics())
            .map_err(|error| MetricsError { path: run.metrics(), error })?;
        let tensorboard = EventWriter::create(&run.tensorboard("learner"))
            .map_err(|e| tracing::warn!("no TensorBoard events: {}: {e}", run.tensorboard("learner").display()))
            .ok();
        Ok(Metrics { spec: spec.clone(), scored: spec.is_one_player(), window: Window::new(), file, tensorboard })
    }

    /// A game was stored (and goes into the replay buffer).
    pub fn game(&mut self, record: &GameRecord) {
        let winner = match Outcome::from(record.outcome) {
            Outcome::Win(p) => Some(p),
            _ => None,
        };
        self.window.games.push((winner, record.player_moves()));
        if self.scored {
            self.window.scores.extend(score_of_record(record));
        }
    }

    /// A training step was taken.
    pub fn step(&mut self, losses: Losses) {
        self.window.losses.push(losses);
    }

    pub fn has_steps(&self) -> bool {
        !self.window.losses.is_empty()
    }

    /// Measures the window, writes the line to every sink and starts the next window.
    pub fn write<G: Game>(&mut self, trainer: &Trainer, buffer: &ReplayBuffer<G>, version: u64, shared: &Shared) {
        let mean = Losses::mean(&self.window.losses);
        let line = self.measure(&mean, trainer, buffer, version, shared);
        shared.telemetry.window(&line, &self.window.scores);
        *shared.latest_losses.lock().expect("losses lock") = Some(mean);
        if let Ok(mut text) = serde_json::to_string(&line) {
            text.push('\n');
            let _ = self.file.write_all(text.as_bytes());
        }
        if let Some(tb) = &mut self.tensorboard {
            let scalars = line.scalars();
            let scalars: Vec<(&str, f64)> = scalars.iter().map(|(tag, x)| (tag.as_str(), *x)).collect();
            if let Err(e) = tb.scalars(trainer.step as i64, &scalars).and_then(|()| tb.flush()) {
                tracing::warn!("no more TensorBoard events: {}: {e}", tb.path().display());
                self.tensorboard = None;
            }
        }
        self.window = Window::new();
    }

    fn measure<G: Game>(
        &self,
        mean: &Losses,
        trainer: &Trainer,
        buffer: &ReplayBuffer<G>,
        version: u64,
        shared: &Shared,
    ) -> Line {
        let w = &self.window;
        let secs = w.started.elapsed().as_secs_f64().max(1e-9);
        let games = w.games.len().max(1) as f64;
        let share = |won: Option<Player>| w.games.iter().filter(|g| g.0 == won).count() as f64 / games;
        let l2 = trainer.l2_term();
        let counters = &shared.counters;
        let mut line = Line::new();
        line.count(&UNIX_MS, dojo_base::util::now_unix_ms())
            .count(&STEP, trainer.step)
            .count(&VERSION, version)
            .real(&POLICY_LOSS, mean.policy)
            .real(&VALUE_LOSS, mean.value)
            .real(&L2_LOSS, l2)
            .real(&TOTAL_LOSS, mean.total + l2)
            .real(&ENTROPY, mean.entropy)
            .real(&LEARNING_RATE, trainer.optimizer().lr())
            .real(&SAMPLES_PER_S, (w.losses.len() * trainer.config.batch_size) as f64 / secs)
            .real(&GAMES_PER_S, w.games.len() as f64 / secs)
            .count(&GAMES, counters.games.load(Ordering::Relaxed))
            .count(&POSITIONS, counters.positions.load(Ordering::Relaxed))
            .count(&BUFFER_POSITIONS, buffer.positions() as u64)
            .count(&BUFFER_GAMES, buffer.games() as u64)
            .real(&FIRST_PLAYER_WIN_RATE, share(Some(Player::First)))
            .real(&DRAW_RATE, share(None))
            .real(&MEAN_GAME_LENGTH, w.games.iter().map(|g| g.1).sum::<usize>() as f64 / games);
        let heads = AuxHeads::for_training(&trainer.config);
        if heads.opponent_policy {
            line.real(&OPPONENT_POLICY_LOSS, mean.opponent_policy);
        }
        if heads.soft_policy {
            line.real(&SOFT_POLICY_LOSS, mean.soft_policy);
        }
        scores(&self.spec, &w.scores, &mut line);
        line
    }
}

/// A one-player window's scores, the numbers of seed 002's report: the games they are over,
/// mean and best score, largest tile and the share of games reaching each tile of the
/// game's reach table. Nothing without games: a window in which no game finished has no
/// score to plot.
pub(crate) fn scores(spec: &GameSpec, games: &[GameScore], line: &mut Line) {
    let Some(max_tile) = games.iter().map(|g| g.max_tile).max() else { return };
    let report = ScoreReport::new(spec, games);
    line.count(&SCORED_GAMES, report.games as u64)
        .real(&MEAN_SCORE, report.mean)
        .count(&MAX_SCORE, report.max)
        .count(&MAX_TILE, u64::from(max_tile))
        .keyed(&REACH, report.reach.iter().map(|r| (r.tile.to_string(), r.reached)).collect());
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::sliding::SpawnOdds;
    use dojo_metrics::Value;

    fn g(score: u64, max_tile: u32) -> GameScore {
        GameScore { score, max_tile }
    }

    fn scored(spec: &GameSpec, games: &[GameScore]) -> Line {
        let mut line = Line::new();
        scores(spec, games, &mut line);
        line
    }

    #[test]
    fn a_windows_scores_are_its_games_mean_best_and_reach_rates() {
        let line = scored(&GameSpec::Twenty48, &[g(100, 2048), g(300, 1024)]);
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            r#"{"scored_games":2,"mean_score":200.0,"max_score":300,"max_tile":2048,"reach":{"2048":0.5,"4096":0.0,"8192":0.0,"16384":0.0,"32768":0.0}}"#
        );
        let fib = GameSpec::Fib2584 { odds: SpawnOdds::OneTwo };
        let line = scored(&fib, &[g(10, 987), g(20, 610), g(60, 233), g(10, 2584)]);
        let number = |m| line.get(m).and_then(Value::as_f64);
        assert_eq!(
            (number(&MEAN_SCORE), number(&MAX_SCORE), number(&MAX_TILE)),
            (Some(25.0), Some(60.0), Some(2584.0))
        );
        let Some(Value::Keyed(reach)) = line.get(&REACH) else { panic!("{line:?}") };
        let want = [("610", 0.75), ("987", 0.5), ("1597", 0.25), ("2584", 0.25), ("4181", 0.0)];
        assert_eq!(reach[..5], want.map(|(t, r)| (t.to_string(), r)));
        assert_eq!(scored(&GameSpec::Twenty48, &[]), Line::new(), "no games, no scores");
    }

    #[test]
    fn a_windows_mean_losses_have_a_real_total() {
        let l = |policy, value, total| Losses { policy, value, total, entropy: 1.0, ..Default::default() };
        let m = Losses::mean(&[l(1.0, 0.5, 1.5), l(3.0, 0.5, 3.5)]);
        assert_eq!((m.policy, m.value, m.total, m.entropy), (2.0, 0.5, 2.5, 1.0));
        assert_eq!(Losses::mean(&[]).total, 0.0, "an empty window divides by one, not zero");
    }
}
