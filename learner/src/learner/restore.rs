//! Restoring the training loop from its run directory: the network (or a new one), the
//! weight average, the optimizer state and the replay buffer refilled from the game log, each
//! checked against the run's config so that a run keeps its network's shape and meaning; a
//! new run publishes its random network as version 1, so workers can start at once.

use super::metrics::{Metrics, MetricsError};
use super::publisher::{PublishError, Publisher};
use super::schedule::SessionBound;
use super::{read_published, Published, TrainingLoop};
use crate::replay::ReplayBuffer;
use dojo_game::{FromAnyGame, Game, GameError};
use dojo_net::average::{AverageError, WeightAverage};
use dojo_net::checkpoint::{self, CheckpointError};
use dojo_net::device::set_threads;
use dojo_net::model::Model;
use dojo_net::optim::OptimError;
use dojo_net::train::{TrainError, Trainer};
use dojo_record::boards::Boards;
use dojo_record::{GameRecord, RecordError, TrainingGame};
use dojo_run::config::{ConfigError, RunConfig};
use dojo_run::dir::{RunDir, RunDirError, RunState};
use std::sync::mpsc::Receiver;

/// Why a run's training loop cannot be restored: a file of the run cannot be read, or the
/// config asks for a network other than the run's. A wrapped error's text is the message.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// `state.json` cannot be read.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// A checkpoint `state.json` names cannot be loaded.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The config's network, or its replay settings, cannot be built.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The run's boards cannot be drawn for the network's frame.
    #[error(transparent)]
    Boards(#[from] GameError),
    #[error(
        "the run's network was trained with search.max_return = {trained}, but the config says {config}: value targets would change their meaning mid-run"
    )]
    MaxReturnChanged { trained: u64, config: f64 },
    /// The network is (or is not) an any-size network, and the config asks otherwise.
    #[error(
        "the run's network is {}an any-size network, but the config {}: a run keeps its network's shape",
        if *.network_any_size { "" } else { "not " },
        if *.network_any_size { "does not ask for one (net.any_size)" } else { "asks for one" }
    )]
    AnySizeChanged { network_any_size: bool },
    #[error(transparent)]
    Average(#[from] AverageError),
    #[error(transparent)]
    Trainer(#[from] TrainError),
    /// The optimizer state cannot be read.
    #[error(transparent)]
    Optimizer(#[from] OptimError),
    /// The optimizer state is of another step than `state.json`'s.
    #[error("{file} is the optimizer state of step {optimizer_step}, but state.json says step {state_step}")]
    OptimizerStep { file: String, optimizer_step: u64, state_step: u64 },
    /// A stored game cannot go into the replay buffer.
    #[error(transparent)]
    Replay(#[from] RecordError),
    #[error(transparent)]
    Metrics(#[from] MetricsError),
    /// A new run's first version cannot be written, or the newest read back.
    #[error(transparent)]
    Publish(#[from] PublishError),
}

/// What [`TrainingLoop::restore`] needs.
pub struct RestoreInputs<G: Game> {
    pub run: RunDir,
    pub config: RunConfig,
    /// The record start of the run's board, or one of its boards (for the type).
    pub start: G,
    pub stored: Vec<GameRecord>,
    pub incoming: Receiver<GameRecord>,
    pub bound: SessionBound,
    /// Where the network trains (published weights are written from it as f32 on the CPU).
    pub device: tch::Device,
}

impl<G: Game + FromAnyGame> TrainingLoop<G> {
    /// Restores (or creates) the model, optimizer and replay buffer of the run. Returns the
    /// loop, the newest published model and the stored games that could not be replayed.
    pub fn restore(inputs: RestoreInputs<G>) -> Result<(TrainingLoop<G>, Published, Vec<GameRecord>), RestoreError> {
        let RestoreInputs { run, config, start, stored, incoming, bound, device } = inputs;
        set_threads(config.learner.threads);
        let state = run.read_state()?;
        let (model, version) = network(&run, &config, &state, &start, device)?;
        // Every record replays from its own board, framed as the network takes it.
        let boards = Boards::new(&config.game, start, model.arch().frame())?;
        if let Some(trained) = model.arch().max_return {
            if trained as f64 != config.search.max_return {
                return Err(RestoreError::MaxReturnChanged { trained, config: config.search.max_return });
            }
        }
        let (trainer, average) = trainer(&run, &config, &state, model, device)?;
        let mut buffer = ReplayBuffer::new(config.replay.clone(), config.search.return_scale())?;
        let mut rejected = Vec::new();
        for record in stored {
            match boards.of_record(&record).and_then(|start| TrainingGame::new(record.clone(), start)) {
                Ok(game) => buffer.add(game)?,
                Err(_) => rejected.push(record),
            }
        }
        // The cap on samples per position counts across restarts.
        let added = buffer.total_positions_added();
        buffer.restore_counters(added, state.samples_drawn);
        let metrics = Metrics::open(&run, &config.game)?;
        let publisher = Publisher::new(run.clone(), version, config.learner.keep_versions);
        let mut lp = TrainingLoop {
            config,
            boards,
            trainer,
            average,
            buffer,
            incoming,
            rng: rand::make_rng(),
            bound,
            publisher,
            metrics,
        };
        if version == 0 {
            // A new run: version 1 is the random network, so workers can start at once.
            lp.publisher.publish(&lp.trainer, lp.average.as_ref(), None)?;
            lp.checkpoint(None)?;
        }
        let published = read_published(&run, lp.publisher.version())?;
        Ok((lp, published, rejected))
    }
}

/// The run's network and its version: the checkpoint `state.json` names, or a new network
/// (version 0) for a new run; refused where the config asks for another shape.
fn network<G: Game>(
    run: &RunDir,
    config: &RunConfig,
    state: &RunState,
    start: &G,
    device: tch::Device,
) -> Result<(Model, u64), RestoreError> {
    let (model, version) = match &state.model {
        Some(rel) => {
            let loaded = checkpoint::load(&run.resolve(rel), device, Some(&config.game))?;
            (loaded.model, state.version)
        }
        None => (Model::new(config.architecture(start)?, device), 0),
    };
    if model.arch().any_size != config.any_size() {
        return Err(RestoreError::AnySizeChanged { network_any_size: model.arch().any_size });
    }
    Ok((model, version))
}

/// The trainer at the checkpoint's step, with its optimizer state, and the weight average
/// where the run keeps one.
fn trainer(
    run: &RunDir,
    config: &RunConfig,
    state: &RunState,
    published: Model,
    device: tch::Device,
) -> Result<(Trainer, Option<WeightAverage>), RestoreError> {
    // With weight averaging, the published versions are the average and the weights
    // being trained are checkpointed beside the optimizer state.
    let (model, average) = match (config.learner.weight_average_steps, &state.train_model) {
        (0, _) => (published, None),
        (steps, Some(rel)) => {
            let raw = checkpoint::load(&run.resolve(rel), device, Some(&config.game))?;
            let average = WeightAverage::new(&published, steps as f64, state.step)?;
            (raw.model, Some(average))
        }
        (steps, None) => {
            let average = WeightAverage::new(&published, steps as f64, state.step)?;
            (published, Some(average))
        }
    };
    let mut trainer = Trainer::new(model, config.train.clone())?;
    if let Some(rel) = &state.optimizer {
        trainer.load_state(&run.resolve(rel))?;
        if trainer.step != state.step {
            return Err(RestoreError::OptimizerStep {
                file: rel.clone(),
                optimizer_step: trainer.step,
                state_step: state.step,
            });
        }
    }
    trainer.step = state.step;
    Ok((trainer, average))
}
