//! Publishing: the model versions workers fetch (`models/vNNNNNN.*`, `models/latest.json`),
//! the checkpoints a restart resumes from (`state.json` and the optimizer state), and pruning
//! the versions the run's [`Retention`] does not keep (the newest `learner.keep_versions`
//! and the history `learner.keep_every` thins). A version is handed to the service (which
//! streams it to workers) once its files are complete.

use super::{read_published, Shared};
use crate::storage::Writer;
use dojo_net::average::WeightAverage;
use dojo_net::checkpoint::{self, CheckpointError};
use dojo_net::optim::OptimError;
use dojo_net::train::Trainer;
use dojo_run::dir::{RunDir, RunDirError, RunState};
use dojo_run::retention::Retention;
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
    /// Which versions stay on disk.
    retention: Retention,
    /// Versions below this one were pruned already (this session), so a prune looks only
    /// at those published since, not at the whole history each time.
    pruned_below: u64,
}

impl Publisher {
    pub fn new(run: RunDir, version: u64, retention: Retention) -> Publisher {
        Publisher { run, version, retention, pruned_below: 1 }
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
        dojo_base::util::atomic_write(&run.latest(), &json).map_err(|error| PublishError::Latest { error })?;
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

    /// Deletes what the run no longer needs of the versions older than the newest
    /// `keep_versions`: everything of a version outside the kept history; of one inside it,
    /// the optimizer state and trained weights (a restart resumes from the newest), keeping
    /// the published model a tournament plays. Never the version `state.json` names (the
    /// newest); the run's best is a copy of its own (`models/best.*`), never touched.
    fn prune(&mut self) {
        if self.retention.keeps_all() {
            return;
        }
        let run = &self.run;
        let oldest_kept = (self.version + 1).saturating_sub(self.retention.newest);
        for v in self.pruned_below..oldest_kept {
            let (trained_w, trained_s) = checkpoint::paths(&run.train_weights(v));
            let mut doomed = vec![run.optimizer_state(v), trained_s, trained_w];
            if !self.retention.in_history(v) {
                // The sidecar first: a version is listed by its sidecar, so a tournament
                // listing the models meanwhile never finds one without its weights.
                let (w, s) = checkpoint::paths(&run.model_version(v));
                doomed.extend([s, w]);
            }
            for path in doomed {
                let _ = std::fs::remove_file(path);
            }
        }
        self.pruned_below = self.pruned_below.max(oldest_kept);
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
