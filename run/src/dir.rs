//! The run directory as the learner keeps it: creating or reopening a run, and the state a
//! restart resumes from. Where each file lives is [`RunPaths`], which a `RunDir` derefs to.

use crate::config::RunConfig;
use crate::paths::RunPaths;
use dojo_core::util::atomic_write;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Clone, Debug)]
pub struct RunDir {
    paths: RunPaths,
}

impl std::ops::Deref for RunDir {
    type Target = RunPaths;
    fn deref(&self) -> &RunPaths {
        &self.paths
    }
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
        RunDir { paths: RunPaths::new(root) }
    }

    /// Removes what a killed learner left half-written: the temporary files of its atomic
    /// writes (`.NAME.tmpPID`: state, published models, checkpoints), never read, since a
    /// file only gets its name once complete. The gatekeeper's (`.best.*`) are its own.
    /// Returns how many were removed.
    pub fn remove_stale_temp_files(&self) -> usize {
        let mut removed = 0;
        for dir in [self.root.clone(), self.models(), self.checkpoints(), self.games()] {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let ours = name.starts_with(".state.json.tmp")
                    || (dir == self.models() && (name.starts_with(".v") || name.starts_with(".latest.")))
                    || (dir == self.checkpoints() && name.starts_with('.'))
                    || (dir == self.games() && name.starts_with(".storage-probe."));
                if ours && name.contains(".tmp") && std::fs::remove_file(entry.path()).is_ok() {
                    removed += 1;
                }
            }
        }
        removed
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
}
