//! Where a run directory keeps each thing: the one layout the learner writes, the arbiter
//! judges from and the command line reports on. Paths only; what the files hold belongs to
//! the layer that writes them.
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
//! RUN/tournaments/NAME/     a tournament's games, results.jsonl, ratings.json and plot
//! RUN/tensorboard/WHO/      TensorBoard event files: learner/, gating/, tournament-NAME/
//! RUN/checkpoints/optim-vNNNNNN.safetensors   optimizer state for resuming
//! RUN/checkpoints/start.*                    the network a run started from (`--start-from`)
//! RUN/checkpoints/train-vNNNNNN.*             the weights being trained, where versions
//!                                             publish their average (learner.weight_average_steps)
//! RUN/metrics.jsonl         one JSON object per line: losses, buffer, games/s, version
//! RUN/spool/                local workers' spools (dojo train)
//! RUN/logs/                 local workers' logs (dojo train)
//! ```

use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunPaths {
    pub root: PathBuf,
}

impl RunPaths {
    pub fn new(root: impl Into<PathBuf>) -> RunPaths {
        RunPaths { root: root.into() }
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
    /// The newest version's sidecar, copied for scripts.
    pub fn latest(&self) -> PathBuf {
        self.models().join("latest.json")
    }
    pub fn gating_log(&self) -> PathBuf {
        self.root.join("gating.jsonl")
    }
    /// Held (flock) by whichever process gates the run, so two never write the best at once.
    pub fn gating_lock(&self) -> PathBuf {
        self.root.join("gating.lock")
    }
    pub fn tournaments(&self) -> PathBuf {
        self.root.join("tournaments")
    }
    /// TensorBoard's folder for one writer (`learner`, `gating`, `tournament-NAME`): each
    /// is a run of its own to TensorBoard, so writers never share a folder.
    pub fn tensorboard(&self, who: &str) -> PathBuf {
        self.root.join("tensorboard").join(who)
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

    /// Waits until a run exists here (a learner started beside this process makes it),
    /// polling twice a second; false when `stop` was set first.
    pub fn wait_until_made(&self, stop: &std::sync::atomic::AtomicBool) -> bool {
        while !self.exists() {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
        true
    }

    /// The tournament whose `ratings.json` was written last: its name and that file.
    pub fn newest_tournament_ratings(&self) -> Option<(String, PathBuf)> {
        let entries = std::fs::read_dir(self.tournaments()).ok()?;
        let rated = entries.flatten().filter_map(|e| {
            let ratings = e.path().join("ratings.json");
            let modified = std::fs::metadata(&ratings).and_then(|m| m.modified()).ok()?;
            Some((modified, e.file_name().to_string_lossy().into_owned(), ratings))
        });
        rated.max_by_key(|r| r.0).map(|(_, name, ratings)| (name, ratings))
    }

    /// A path inside the run as stored in state.json.
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root).unwrap_or(path).to_string_lossy().into_owned()
    }

    pub fn resolve(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

/// `v000123.json` → 123.
pub(crate) fn version_of_sidecar(name: &str) -> Option<u64> {
    let digits = name.strip_prefix('v')?.strip_suffix(".json")?;
    (digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_digit())).then(|| digits.parse().ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_the_published_sidecars_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunPaths::new(dir.path());
        assert!(run.versions().unwrap_err().to_string().contains("cannot list"));
        std::fs::create_dir_all(run.models()).unwrap();
        for name in ["v000020.json", "v000003.json", "v000003.safetensors", "v000007.safetensors", "best.json"] {
            std::fs::write(run.models().join(name), b"").unwrap();
        }
        std::fs::write(run.models().join("latest.json"), b"").unwrap();
        std::fs::write(run.models().join("v12.json"), b"").unwrap();
        // v7's weights without a sidecar are a publication cut short: not a version yet.
        assert_eq!(run.versions().unwrap(), vec![3, 20]);
        assert_eq!(run.model_version(20), run.models().join("v000020.safetensors"));
    }
}
