//! Restoring the training loop from its run directory: the network (or a new one), the
//! weight average, the optimizer state and the replay buffer refilled from the game log, each
//! checked against the run's config so that a run keeps its network's shape and meaning; a
//! new run publishes its random network as version 1, so workers can start at once.

use super::metrics::{Metrics, MetricsError};
use super::publisher::{PublishError, Publisher};
use super::schedule::SessionBound;
use super::{read_published, Published, TrainingLoop};
use crate::replay_buffer::ReplayBuffer;
use dojo_arch::architecture::Architecture;
use dojo_game::{FromAnyGame, Game, GameError};
use dojo_net::average::{AverageError, WeightAverage};
use dojo_net::checkpoint::{self, CheckpointError};
use dojo_net::device::{set_threads, Device};
use dojo_net::model::Model;
use dojo_net::optim::OptimError;
use dojo_net::train::{TrainError, Trainer};
use dojo_record::boards::Boards;
use dojo_record::{GameRecord, RecordError, TrainingGame};
use dojo_run::config::{ConfigError, RunConfig};
use dojo_run::dir::{RunDir, RunDirError, RunState};
use dojo_run::retention::Retention;
use std::path::Path;
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
    /// A run that has published a version already was asked to start from a network.
    #[error(
        "{} has trained already (version {version} published): a network to start from is for a new run; resume it without one, or give another run directory",
        .root.display()
    )]
    StartedAlready { root: std::path::PathBuf, version: u64 },
    /// The network to start from is not the network the run's config asks for.
    #[error(
        "{} is not the network the run's config asks for ({}); make the config's [net] (and train's auxiliary target weights) match it",
        .path.display(),
        .differences.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
    )]
    StartShape { path: std::path::PathBuf, differences: Vec<ShapeDifference> },
}

/// One field in which a network's architecture differs from the config's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeDifference {
    pub field: String,
    pub network: String,
    pub config: String,
}

impl std::fmt::Display for ShapeDifference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: the network's {}, the config's {}", self.field, self.network, self.config)
    }
}

/// The fields in which `network` differs from `config`, by their names in a sidecar.
fn shape_differences(network: &Architecture, config: &Architecture) -> Vec<ShapeDifference> {
    let as_map = |a: &Architecture| match serde_json::to_value(a) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let (network, config) = (as_map(network), as_map(config));
    let mut fields: Vec<&String> = network.keys().chain(config.keys()).collect();
    fields.sort();
    fields.dedup();
    let show = |v: Option<&serde_json::Value>| v.map_or_else(|| "none".to_string(), ToString::to_string);
    fields
        .into_iter()
        .filter(|f| network.get(*f) != config.get(*f))
        .map(|f| ShapeDifference { field: f.clone(), network: show(network.get(f)), config: show(config.get(f)) })
        .collect()
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
    pub device: Device,
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
        let publisher = Publisher::new(run.clone(), version, Retention::of(&config.learner));
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
            // A new run: version 1 is the random network (or the one it starts from), so
            // workers can start at once.
            lp.publisher.publish(&lp.trainer, lp.average.as_ref(), None)?;
            lp.checkpoint(None)?;
            if state.model.is_some() {
                // Started from a trained network: gating's first best, so that no version
                // becomes the best without beating it.
                checkpoint::copy(&run.model_version(1), &run.best())?;
            }
        }
        let published = read_published(&run, lp.publisher.version())?;
        Ok((lp, published, rejected))
    }
}

/// Where a run started from a network keeps that network, beside its checkpoints.
const START_NETWORK: &str = "start";

/// Makes `from` the network a new run starts from, in place of a random one: checked to be
/// of the game and shape the run's config asks for, copied into the run directory (so the
/// run resumes without it) and named in `state.json` as the checkpoint of version 0, which
/// [`TrainingLoop::restore`] then publishes as version 1 with a new optimizer at step 0, and
/// makes gating's first best.
/// Refused once the run has published a version: its own network is the one it resumes.
pub fn start_from<G: Game>(run: &RunDir, config: &RunConfig, start: &G, from: &Path) -> Result<(), RestoreError> {
    let state = run.read_state()?;
    if state.version > 0 {
        return Err(RestoreError::StartedAlready { root: run.root.clone(), version: state.version });
    }
    let sidecar = checkpoint::read_sidecar(from)?;
    let wanted = config.architecture(start)?;
    let copy = run.checkpoints().join(START_NETWORK);
    if reframes_to(&sidecar.architecture, &wanted) {
        // An any-size network's weights do not depend on its boards: it starts a run on
        // other boards of its game as it is, in the run's frame (e.g. Gomoku's 9-15 network
        // on 15-20).
        let loaded = checkpoint::load(from, Device::Cpu, None)?;
        let model = checkpoint::model_from_bytes(&wanted, &loaded.weights, Device::Cpu)?;
        checkpoint::save(&model, &copy, sidecar.step, sidecar.version, None)?;
    } else {
        if sidecar.architecture.game != config.game {
            return Err(CheckpointError::WrongGame {
                path: checkpoint::paths(from).0,
                expected: config.game.to_string(),
                found: sidecar.architecture.game.to_string(),
            }
            .into());
        }
        if sidecar.architecture != wanted {
            let differences = shape_differences(&sidecar.architecture, &wanted);
            return Err(RestoreError::StartShape { path: checkpoint::paths(from).0, differences });
        }
        checkpoint::copy(from, &copy)?;
    }
    let model = Some(run.relative(&checkpoint::paths(&copy).0));
    run.write_state(&RunState { model, ..RunState::default() })?;
    Ok(())
}

/// Whether `network` is an any-size network that is `wanted` but for its boards (another
/// range of sizes of the same game, another frame).
fn reframes_to(network: &Architecture, wanted: &Architecture) -> bool {
    let same_but_boards = Architecture {
        game: wanted.game.clone(),
        width: wanted.width,
        height: wanted.height,
        actions: wanted.actions,
        ..network.clone()
    };
    network != wanted
        && network.any_size
        && wanted.any_size
        && network.game.family() == wanted.game.family()
        && same_but_boards == *wanted
}

/// The run's network and its version: the checkpoint `state.json` names, or a new network
/// (version 0) for a new run; refused where the config asks for another shape.
fn network<G: Game>(
    run: &RunDir,
    config: &RunConfig,
    state: &RunState,
    start: &G,
    device: Device,
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
    device: Device,
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
    tracing::info!("{}", trainer.precision());
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
