//! Publishing: the model versions workers fetch (`models/vNNNNNN.*`, `models/latest.json`),
//! the checkpoints a restart resumes from (`state.json` and the optimizer state), and pruning
//! the versions beyond `learner.keep_versions`. A version is handed to the service (which
//! streams it to workers) once its files are complete.

use super::{read_published, Shared};
use crate::storage::Writer;
use dojo_net::average::WeightAverage;
use dojo_net::checkpoint::{self, CheckpointError};
use dojo_net::optim::OptimError;
use dojo_net::train::Trainer;
use dojo_run::dir::{RunDir, RunDirError, RunState};
use std::path::PathBuf;
use std::sync::Arc;

/// What can go wrong writing a model version or a checkpoint, or reading a version back. A
/// wrapped error's text is part of the message and not also its `source()`, so that `dojo`'s
/// `{:#}` does not print it twice.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// A version's or the trained weights' files cannot be written or read.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error("cannot update models/latest.json: {error}")]
    Latest { error: std::io::Error },
    /// A published version's weights or sidecar cannot be read back.
    #[error("cannot read {}: {error}", .path.display())]
    Read { path: PathBuf, error: std::io::Error },
    /// The optimizer state cannot be written.
    #[error(transparent)]
    Optimizer(#[from] OptimError),
    /// `state.json` cannot be written.
    #[error(transparent)]
    State(#[from] RunDirError),
}

pub struct Publisher {
    run: RunDir,
    /// The newest version written (0: none yet).
    version: u64,
    /// Versions kept on disk (0: all).
    keep: u64,
}

impl Publisher {
    pub fn new(run: RunDir, version: u64, keep_versions: usize) -> Publisher {
        Publisher { run, version, keep: keep_versions as u64 }
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    /// Writes the next version: the weight average where there is one (that is what gets
    /// published), the trained weights otherwise; then hands it to the service, once there
    /// is one (`to`; restoring happens before the service exists).
    pub fn publish(
        &mut self,
        trainer: &Trainer,
        average: Option<&WeightAverage>,
        to: Option<&Shared>,
    ) -> Result<(), PublishError> {
        let run = &self.run;
        let version = self.version + 1;
        let path = run.model_version(version);
        let parent = (self.version > 0).then(|| run.model_version(self.version));
        let model = average.map_or(&trainer.model, |a| a.model());
        let sidecar = checkpoint::save(model, &path, trainer.step, version, parent.as_deref())?;
        // Atomic: a gatekeeper polls this file while versions come several a second.
        let json = serde_json::to_vec_pretty(&sidecar).expect("sidecar serialises");
        dojo_game::util::atomic_write(&run.latest(), &json).map_err(|error| PublishError::Latest { error })?;
        self.version = version;
        self.announce(to)
    }

    /// Writes what a restart resumes from: the newest version (published first if training
    /// moved on since), the optimizer state, with weight averaging the trained weights, and
    /// `state.json` naming them; then prunes old versions.
    pub fn checkpoint(
        &mut self,
        trainer: &Trainer,
        average: Option<&WeightAverage>,
        samples_drawn: u64,
        to: Option<&Shared>,
    ) -> Result<(), PublishError> {
        if checkpoint::read_sidecar(&self.run.model_version(self.version)).map(|s| s.step).ok() != Some(trainer.step) {
            self.publish(trainer, average, to)?;
        }
        let run = &self.run;
        let optim = run.optimizer_state(self.version);
        trainer.save_state(&optim)?;
        let train_model = match average {
            Some(_) => {
                let path = run.train_weights(self.version);
                checkpoint::save(&trainer.model, &path, trainer.step, self.version, None)?;
                Some(run.relative(&path))
            }
            None => None,
        };
        let state = RunState {
            version: self.version,
            step: trainer.step,
            model: Some(run.relative(&run.model_version(self.version))),
            optimizer: Some(run.relative(&optim)),
            samples_drawn,
            train_model,
        };
        run.write_state(&state)?;
        self.prune();
        Ok(())
    }

    /// Whether the run has a checkpoint to resume from (`state.json`).
    pub fn has_checkpoint(&self) -> bool {
        self.run.state().exists()
    }

    /// Makes the newest version the one the service streams.
    fn announce(&self, to: Option<&Shared>) -> Result<(), PublishError> {
        if let Some(shared) = to {
            let published = read_published(&self.run, self.version)?;
            shared.telemetry.published(published.version);
            *shared.model.write().expect("model lock") = Arc::new(published);
        }
        Ok(())
    }

    /// Deletes old versions beyond `keep_versions` (never the one state.json names).
    fn prune(&self) {
        if self.keep == 0 || self.version <= self.keep {
            return;
        }
        let run = &self.run;
        let oldest_kept = self.version - self.keep + 1;
        for v in 1..oldest_kept {
            let (w, s) = checkpoint::paths(&run.model_version(v));
            let (trained_w, trained_s) = checkpoint::paths(&run.train_weights(v));
            for path in [w, s, run.optimizer_state(v), trained_w, trained_s] {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// Reports how a write of models or checkpoints went to the storage health (which `/readyz`
/// and `/metrics` show); true when it worked.
pub fn saved(shared: &Shared, result: Result<(), PublishError>) -> bool {
    match result {
        Ok(()) => {
            shared.storage.recovered(Writer::Checkpoints);
            true
        }
        Err(e) => {
            shared.storage.failed(Writer::Checkpoints, &e.to_string());
            false
        }
    }
}
