//! Offline self-play (`dojo selfplay`): a checkpoint plays games with the run config's
//! search and self-play settings, as a worker would, and the records go to a file.
//!
//! The games are `dojo_search::selfplay`'s engine's: the same concept a layer down, hence
//! the same name.

use crate::checkpoint::{load_checkpoint, LoadError};
use dojo_arch::precision::PrecisionChoice;
use dojo_base::rng::Rng;
use dojo_game::with_game;
use dojo_game::GameError;
use dojo_game::GameScore;
use dojo_game::{FromAnyGame, Game, GameSpec, Player};
use dojo_net::autotune::self_play_precision;
use dojo_net::device::{Device, DeviceError};
use dojo_net::infer::NetEvaluator;
use dojo_record::boards::{typing_start, Boards};
use dojo_record::score::{score_of_record, ScoreReport};
use dojo_record::{write_records, GameRecord, RecordError};
use dojo_run::config::RunConfig;
use dojo_search::evaluator::Evaluator;
use dojo_search::selfplay::{winner, SelfPlayEngine, SelfPlayError};
use rand::SeedableRng;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum SelfPlayRunError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    SelfPlay(#[from] SelfPlayError),
    #[error(transparent)]
    Record(#[from] RecordError),
    /// The network's frame does not hold the spec's boards.
    #[error(transparent)]
    Boards(#[from] GameError),
}

/// What to play: `games` games with `model` under `config`'s `[search]` and `[selfplay]`.
pub struct SelfPlayJob<'a> {
    pub model: &'a Path,
    pub spec: &'a GameSpec,
    pub config: RunConfig,
    pub games: u64,
    pub precision: PrecisionChoice,
    pub seed: u64,
    pub device: Device,
    /// Where the records go.
    pub out: &'a Path,
}

/// What was played, and how fast.
pub struct SelfPlaySummary {
    /// The records file written.
    pub out: PathBuf,
    pub games: usize,
    pub positions: u64,
    pub targets: usize,
    pub seconds: f64,
    pub evals: u64,
    /// Seconds inside the network.
    pub eval_seconds: f64,
    pub batches: u64,
    pub cache_hits: u64,
    /// The network as it ran (device, format).
    pub evaluator: String,
    /// Two-player games: the first player's wins and the draws; one-player games: the
    /// scores' report.
    pub outcome: Outcomes,
}

pub enum Outcomes {
    TwoPlayer { first_wins: usize, draws: usize },
    Scores(ScoreReport),
}

/// Plays the job's games (`on_game` after each) and writes their records.
pub fn self_play(job: SelfPlayJob<'_>, on_game: impl FnMut()) -> Result<SelfPlaySummary, SelfPlayRunError> {
    let start = typing_start(job.spec)?;
    with_game!(start, g => play_typed(g, job, on_game))
}

fn play_typed<G: Game + FromAnyGame>(
    start: G,
    job: SelfPlayJob<'_>,
    mut on_game: impl FnMut(),
) -> Result<SelfPlaySummary, SelfPlayRunError> {
    let loaded = load_checkpoint(job.model, job.device, Some(job.spec))?;
    let version = loaded.sidecar.version;
    let mut play = job.config.selfplay;
    play.parallel_games = play.parallel_games.min(job.games.max(1) as usize);
    let precision = self_play_precision(job.precision, &loaded.model, play.parallel_games)?;
    let mut evaluator = NetEvaluator::with_precision(loaded.model, precision);
    let one_player = start.is_one_player();
    // Each game on its board (a random spec: one drawn per game), framed as the network takes it.
    let boards = Boards::new(job.spec, start, loaded.sidecar.architecture.frame())?;
    let starter = Box::new(move |rng: &mut Rng| boards.draw(rng));
    let mut engine =
        SelfPlayEngine::new(job.config.search, play, starter, Rng::seed_from_u64(job.seed), Some(job.games))?;
    engine.set_model_version(version);
    let t0 = Instant::now();
    let records: Vec<GameRecord> = engine.play_games(&mut evaluator, |_| on_game());
    let seconds = t0.elapsed().as_secs_f64();
    write_records(job.out, &records)?;
    let s = &engine.stats;
    let outcome = if one_player {
        let scores: Vec<GameScore> = records.iter().filter_map(score_of_record).collect();
        Outcomes::Scores(ScoreReport::new(job.spec, &scores))
    } else {
        Outcomes::TwoPlayer {
            first_wins: records.iter().filter(|r| winner(r) == Some(Player::First)).count(),
            draws: records.iter().filter(|r| winner(r).is_none()).count(),
        }
    };
    Ok(SelfPlaySummary {
        out: job.out.to_path_buf(),
        games: records.len(),
        positions: s.moves,
        targets: records.iter().map(|r| r.training_moves()).sum(),
        seconds,
        evals: s.evals,
        eval_seconds: s.eval_time.as_secs_f64(),
        batches: s.batches,
        cache_hits: s.cache_hits,
        evaluator: evaluator.describe(),
        outcome,
    })
}

impl fmt::Display for SelfPlaySummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (secs, games) = (self.seconds, self.games.max(1) as f64);
        writeln!(
            f,
            "wrote {} games ({} positions, {} training targets) to {}",
            self.games,
            self.positions,
            self.targets,
            self.out.display()
        )?;
        writeln!(
            f,
            "{:.1} s: {:.2} games/s, {:.1} positions/s, {:.0} NN evals/s overall ({:.0}/s inside the {}, mean batch {:.1}, {} cache hits)",
            secs,
            self.games as f64 / secs,
            self.positions as f64 / secs,
            self.evals as f64 / secs,
            self.evals as f64 / self.eval_seconds.max(1e-9),
            self.evaluator,
            self.evals as f64 / self.batches.max(1) as f64,
            self.cache_hits
        )?;
        match &self.outcome {
            Outcomes::Scores(report) => write!(f, "{report}"),
            Outcomes::TwoPlayer { first_wins, draws } => writeln!(
                f,
                "first player won {:.1}%, draws {:.1}%, mean length {:.1} plies",
                100.0 * *first_wins as f64 / games,
                100.0 * *draws as f64 / games,
                self.positions as f64 / games
            ),
        }
    }
}
