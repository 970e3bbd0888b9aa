//! Restoring the training loop from its run directory: the network (or a new one), the
//! weight average, the optimizer state and the replay buffer refilled from the game log, each
//! checked against the run's config so that a run keeps its network's shape and meaning; a
//! new run publishes its random network as version 1, so workers can start at once.

use super::metrics::Metrics;
use super::publisher::Publisher;
use super::schedule::SessionBound;
use super::{read_published, Published, TrainingLoop};
use crate::replay::ReplayBuffer;
use dojo_core::game::{FromAnyGame, Game};
use dojo_core::net::average::WeightAverage;
use dojo_core::net::checkpoint;
use dojo_core::net::device::set_threads;
use dojo_core::net::model::Model;
use dojo_core::net::train::Trainer;
use dojo_core::record::boards::Boards;
use dojo_core::record::{GameRecord, TrainingGame};
use dojo_run::config::RunConfig;
use dojo_run::dir::{RunDir, RunState};
use std::sync::mpsc::Receiver;

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
    pub fn restore(inputs: RestoreInputs<G>) -> Result<(TrainingLoop<G>, Published, Vec<GameRecord>), String> {
        let RestoreInputs { run, config, start, stored, incoming, bound, device } = inputs;
        set_threads(config.learner.threads);
        let state = run.read_state().map_err(|e| e.to_string())?;
        let (model, version) = network(&run, &config, &state, &start, device)?;
        // Every record replays from its own board, framed as the network takes it.
        let boards = Boards::new(&config.game, start, model.arch().frame()).map_err(|e| e.to_string())?;
        if let Some(trained) = model.arch().max_return {
            if trained as f64 != config.search.max_return {
                return Err(format!(
                    "the run's network was trained with search.max_return = {trained}, but the config says {}: value targets would change their meaning mid-run",
                    config.search.max_return
                ));
            }
        }
        let (trainer, average) = trainer(&run, &config, &state, model, device)?;
        let mut buffer = ReplayBuffer::new(config.replay.clone(), config.search.return_scale())?;
        let mut rejected = Vec::new();
        for record in stored {
            match boards.of_record(&record).and_then(|start| TrainingGame::new(record.clone(), start)) {
                Ok(game) => buffer.add(game).map_err(|e| e.to_string())?,
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
) -> Result<(Model, u64), String> {
    let (model, version) = match &state.model {
        Some(rel) => {
            let loaded = checkpoint::load(&run.resolve(rel), device, Some(&config.game)).map_err(|e| e.to_string())?;
            (loaded.model, state.version)
        }
        None => (Model::new(config.architecture(start).map_err(|e| e.to_string())?, device), 0),
    };
    if model.arch().any_size != config.any_size() {
        return Err(format!(
            "the run's network is {}an any-size network, but the config {}: a run keeps its network's shape",
            if model.arch().any_size { "" } else { "not " },
            if config.any_size() { "asks for one" } else { "does not ask for one (net.any_size)" }
        ));
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
) -> Result<(Trainer, Option<WeightAverage>), String> {
    // With weight averaging, the published versions are the average and the weights
    // being trained are checkpointed beside the optimizer state.
    let (model, average) = match (config.learner.weight_average_steps, &state.train_model) {
        (0, _) => (published, None),
        (steps, Some(rel)) => {
            let raw = checkpoint::load(&run.resolve(rel), device, Some(&config.game)).map_err(|e| e.to_string())?;
            let average = WeightAverage::new(&published, steps as f64, state.step).map_err(|e| e.to_string())?;
            (raw.model, Some(average))
        }
        (steps, None) => {
            let average = WeightAverage::new(&published, steps as f64, state.step).map_err(|e| e.to_string())?;
            (published, Some(average))
        }
    };
    let mut trainer = Trainer::new(model, config.train.clone()).map_err(|e| e.to_string())?;
    if let Some(rel) = &state.optimizer {
        trainer.load_state(&run.resolve(rel)).map_err(|e| e.to_string())?;
        if trainer.step != state.step {
            return Err(format!(
                "{rel} is the optimizer state of step {}, but state.json says step {}",
                trainer.step, state.step
            ));
        }
    }
    trainer.step = state.step;
    Ok((trainer, average))
}
