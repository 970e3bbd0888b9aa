//! The run directory: everything a run produces, in one place, so it can be stopped,
//! copied, resumed and inspected.
//!
//! ```text
//! RUN/config.toml           the run's configuration (written at creation, read on resume)
//! RUN/run_id                a random id, stable for the run's life
//! RUN/state.json            what to resume from: newest version, step, checkpoint paths
//! RUN/games/                the durable game log (segment-NNNNNN.dlog)
//! RUN/models/vNNNNNN.*      published model versions (.safetensors weights + .json sidecar)
//! RUN/models/latest.json    copy of the newest sidecar, for scripts
//! RUN/models/best.*         the best version so far by gating (a copy: pruning keeps it)
//! RUN/gating.jsonl          one JSON object per gating match: candidate, best, score, promoted
//! RUN/checkpoints/optim-vNNNNNN.safetensors   optimizer state for resuming
//! RUN/checkpoints/train-vNNNNNN.*             the weights being trained, where versions
//!                                             publish their average (learner.weight_average_steps)
//! RUN/metrics.jsonl         one JSON object per line: losses, buffer, games/s, version
//! RUN/spool/                local workers' spools (dojo train)
//! RUN/logs/                 local workers' logs (dojo train)
//! ```

use crate::config::RunConfig;
use dojo_core::util::atomic_write;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
pub struct RunDir {
    pub root: PathBuf,
}

/// What a restarted learner resumes from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunState {
    /// Newest published model version (0: none yet).
    pub version: u64,
    /// Training steps taken.
    pub step: u64,
    /// Model checkpoint to resume from (relative to the run dir).
    pub model: Option<String>,
    /// Optimizer state to resume from (relative to the run dir).
    pub optimizer: Option<String>,
    /// Samples drawn so far (the replay buffer's cap accounting survives restarts).
    #[serde(default)]
    pub samples_drawn: u64,
    /// The weights being trained (relative to the run dir), where the published model is
    /// their average; none where the published model is the trained weights themselves.
    #[serde(default)]
    pub train_model: Option<String>,
}

impl RunDir {
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    pub fn state(&self) -> PathBuf {
        self.root.join("state.json")
    }
    pub fn games(&self) -> PathBuf {
        self.root.join("games")
    }
    pub fn models(&self) -> PathBuf {
        self.root.join("models")
    }
    /// The best version by gating, as a checkpoint path (`best.safetensors` + `best.json`).
    pub fn best(&self) -> PathBuf {
        self.models().join("best.safetensors")
    }
    pub fn gating_log(&self) -> PathBuf {
        self.root.join("gating.jsonl")
    }
    /// Held (flock) by whichever process gates the run, so two never write the best at once.
    pub fn gating_lock(&self) -> PathBuf {
        self.root.join("gating.lock")
    }
    pub fn checkpoints(&self) -> PathBuf {
        self.root.join("checkpoints")
    }
    pub fn metrics(&self) -> PathBuf {
        self.root.join("metrics.jsonl")
    }
    pub fn spool(&self, worker: usize) -> PathBuf {
        self.root.join("spool").join(format!("worker-{worker}"))
    }
    pub fn logs(&self) -> PathBuf {
        self.root.join("logs")
    }
    pub fn model_version(&self, version: u64) -> PathBuf {
        self.models().join(format!("v{version:06}.safetensors"))
    }
    pub fn train_weights(&self, version: u64) -> PathBuf {
        self.checkpoints().join(format!("train-v{version:06}.safetensors"))
    }
    pub fn optimizer_state(&self, version: u64) -> PathBuf {
        self.checkpoints().join(format!("optim-v{version:06}.safetensors"))
    }

    /// Whether a run exists here.
    pub fn exists(&self) -> bool {
        self.config().is_file()
    }

    /// Creates a new run with `config`, or opens an existing one. An existing run keeps its
    /// own config; a different one given now is an error naming the difference's place,
    /// unless `config` is None.
    pub fn create_or_open(&self, config: Option<&RunConfig>) -> Result<(RunConfig, String), String> {
        if self.exists() {
            let stored = RunConfig::load(&self.config())?;
            if let Some(c) = config {
                if c.game != stored.game || c.net != stored.net {
                    return Err(format!(
                        "{} is a run of {} with a {} net; it cannot be resumed as {} with {}",
                        self.root.display(),
                        stored.game,
                        stored.net.describe(),
                        c.game,
                        c.net.describe()
                    ));
                }
            }
            let run_id = std::fs::read_to_string(self.root.join("run_id"))
                .map_err(|e| format!("{}: cannot read run_id: {e}", self.root.display()))?;
            return Ok((config.cloned().unwrap_or(stored), run_id.trim().to_string()));
        }
        let config = config.cloned().unwrap_or_default();
        config.validate()?;
        for dir in [self.root.clone(), self.games(), self.models(), self.checkpoints(), self.logs()] {
            std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let run_id = format!("{:016x}", rand::random::<u64>());
        let write = |path: PathBuf, bytes: &[u8]| {
            atomic_write(&path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
        };
        write(self.root.join("run_id"), run_id.as_bytes())?;
        // The config last: its presence marks a complete run directory.
        write(self.config(), config.to_toml().as_bytes())?;
        Ok((config, run_id))
    }

    pub fn read_state(&self) -> Result<RunState, String> {
        match std::fs::read(self.state()) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", self.state().display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(RunState::default()),
            Err(e) => Err(format!("cannot read {}: {e}", self.state().display())),
        }
    }

    pub fn write_state(&self, state: &RunState) -> Result<(), String> {
        let bytes = serde_json::to_vec_pretty(state).expect("state serialises");
        atomic_write(&self.state(), &bytes).map_err(|e| format!("cannot write {}: {e}", self.state().display()))
    }

    /// A path inside the run as stored in state.json.
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root).unwrap_or(path).to_string_lossy().into_owned()
    }

    pub fn resolve(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}
