//! Offline training, as `dojo learn` runs it: a checkpoint trained on recorded games
//! through the learner's own replay buffer (its window, outcome balancing, late-position
//! weights, augmentation and value target, all from the run config's `[replay]`) and the
//! learner's own training step ([`crate::replay_buffer::train_step`]), so what `dojo learn`
//! measures is what a run would train. Only the sample cap does not apply: the steps are
//! asked for.

use crate::replay_buffer::{train_step, ReplayBuffer};
use dojo_base::rng::Rng;
use dojo_game::{FromAnyGame, Game};
use dojo_net::checkpoint::{self, CheckpointError, Sidecar};
use dojo_net::device::Device;
use dojo_net::train::{Batch, Losses, TrainError, Trainer};
use dojo_record::{read_records, RecordError, TrainingGame};
use dojo_run::config::{ConfigError, RunConfig};
use rand::SeedableRng;
use std::path::{Path, PathBuf};

/// Why offline training stopped. The wrapped errors are boxed: some are large, and this
/// one travels by value through every `?`.
#[derive(Debug, thiserror::Error)]
pub enum OfflineError {
    #[error("loading checkpoint {}: {error}", .path.display())]
    Load { path: PathBuf, error: Box<CheckpointError> },
    #[error("writing checkpoint {}: {error}", .path.display())]
    Save { path: PathBuf, error: Box<CheckpointError> },
    #[error("{}: {error}", .path.display())]
    Records { path: PathBuf, error: Box<RecordError> },
    #[error("{} game {game}: played on {played}, but the network is for {network}", .path.display())]
    OtherGame { path: PathBuf, game: usize, played: String, network: String },
    #[error("{} game {game}: {error}", .path.display())]
    Record { path: PathBuf, game: usize, error: Box<RecordError> },
    #[error("the records hold no trainable positions")]
    NoPositions,
    #[error(transparent)]
    Config(Box<ConfigError>),
    #[error(transparent)]
    Trainer(Box<TrainError>),
    #[error(transparent)]
    Sample(Box<RecordError>),
}

/// What to train.
pub struct Offline<'a> {
    /// The checkpoint to start from, and where the trained one goes.
    pub init: &'a Path,
    pub out: &'a Path,
    /// Record files (`dojo selfplay --out`).
    pub games: &'a [PathBuf],
    pub steps: u64,
    /// `train` and `replay` are read; the rest is not.
    pub config: &'a RunConfig,
    pub seed: u64,
    pub device: Device,
}

/// What the buffer holds once the records are in.
pub struct Loaded {
    pub games: usize,
    /// Trainable positions in the records, and in the buffer's window.
    pub positions: usize,
    pub in_window: usize,
}

/// What a session reports as it goes.
pub trait Observer {
    /// The records are read and the training starts.
    fn loaded(&mut self, loaded: &Loaded);
    /// Step `step` (counted from the checkpoint's own) trained with `losses`.
    fn step(&mut self, step: u64, losses: &Losses);
    /// The mean losses of the steps since the last report, every [`REPORT_EVERY`] steps
    /// and after the last (`step` as in [`Observer::step`]).
    fn report(&mut self, step: u64, mean: &Losses);
}

/// Steps between [`Observer::report`]s.
pub const REPORT_EVERY: u64 = 50;

/// Trains `job.init` for `job.steps` steps on the records and writes `job.out`; returns its
/// sidecar.
pub fn learn<G: Game + FromAnyGame>(
    start: G,
    job: &Offline<'_>,
    observer: &mut dyn Observer,
) -> Result<Sidecar, OfflineError> {
    let spec = start.spec();
    let loaded = checkpoint::load(job.init, job.device, Some(&spec))
        .map_err(|error| OfflineError::Load { path: job.init.to_path_buf(), error: Box::new(error) })?;
    let return_scale = loaded.sidecar.architecture.return_scale();
    let mut buffer = ReplayBuffer::<G>::new(job.config.replay.clone(), return_scale)
        .map_err(|e| OfflineError::Config(Box::new(e)))?;
    let mut counted = Loaded { games: 0, positions: 0, in_window: 0 };
    for path in job.games {
        let records =
            read_records(path).map_err(|error| OfflineError::Records { path: path.clone(), error: Box::new(error) })?;
        for (i, record) in records.into_iter().enumerate() {
            if record.spec != spec {
                let (played, network) = (record.spec.to_string(), spec.to_string());
                return Err(OfflineError::OtherGame { path: path.clone(), game: i + 1, played, network });
            }
            let bad = |error| OfflineError::Record { path: path.clone(), game: i + 1, error: Box::new(error) };
            let game = TrainingGame::new(record, start.clone()).map_err(bad)?;
            counted.games += 1;
            counted.positions += game.len();
            buffer.add(game).map_err(bad)?;
        }
    }
    counted.in_window = buffer.positions();
    if counted.in_window == 0 {
        return Err(OfflineError::NoPositions);
    }
    observer.loaded(&counted);
    let (start_step, version) = (loaded.sidecar.step, loaded.sidecar.version);
    let mut trainer =
        Trainer::new(loaded.model, job.config.train.clone()).map_err(|e| OfflineError::Trainer(Box::new(e)))?;
    tracing::info!("{}", trainer.precision());
    let mut rng = Rng::seed_from_u64(job.seed);
    let mut batch = Batch::default();
    let mut window = Vec::new();
    for step in 0..job.steps {
        let losses = train_step(&mut trainer, &mut buffer, &mut batch, job.config.train.batch_size, &mut rng)
            .map_err(|e| OfflineError::Sample(Box::new(e)))?;
        observer.step(start_step + step + 1, &losses);
        window.push(losses);
        if (step + 1).is_multiple_of(REPORT_EVERY) || step + 1 == job.steps {
            observer.report(start_step + step + 1, &Losses::mean(&window));
            window.clear();
        }
    }
    checkpoint::save(&trainer.model, job.out, start_step + job.steps, version, Some(job.init))
        .map_err(|error| OfflineError::Save { path: job.out.to_path_buf(), error: Box::new(error) })
}
