//! Making a version the run's best network (`models/best.*`), the one way there is: the
//! gatekeeper promotes the candidates that win their gates, `dojo tournament --choose-best`
//! the top-rated checkpoint. Either first takes the run's gating lock ([`BestKeeper`]), so
//! two processes never write the best (or `gating.jsonl`, which the gatekeeper appends to
//! under the same lock) at once; the copy itself is checked and atomic ([`BestStore`]).

use dojo_base::util::{atomic_write, sha256_hex};
use dojo_net::checkpoint::{self, CheckpointError, Sidecar};
use dojo_run::journal::{self, JournalError};
use dojo_run::paths::RunPaths;
use std::path::{Path, PathBuf};

/// What can go wrong reading or repairing the best network. The I/O error is part of the
/// message and not also its `source()`, so that it is said once.
#[derive(Debug, thiserror::Error)]
pub enum BestError {
    #[error("cannot repair {}: {error}", .path.display())]
    Repair { path: PathBuf, error: std::io::Error },
    #[error("cannot remove {}: {error}", .path.display())]
    Remove { path: PathBuf, error: std::io::Error },
    #[error("cannot list {}: {error}", .path.display())]
    List { path: PathBuf, error: std::io::Error },
}

/// Why a promotion did not happen.
#[derive(Debug, thiserror::Error)]
pub enum PromoteError {
    /// Another process holds the run's gating lock (or the lock file cannot be opened).
    #[error(transparent)]
    Lock(#[from] JournalError),
    /// The version is missing, unreadable or damaged (checked before anything is written),
    /// or the best cannot be written.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
}

/// The best network of a run: a checkpoint at a fixed path (`DIR/best.safetensors` and
/// `DIR/best.json`), where `DIR` also holds the versions it is copied from.
pub struct BestStore {
    path: PathBuf,
}

impl BestStore {
    pub fn new(path: impl Into<PathBuf>) -> BestStore {
        BestStore { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The best network's sidecar, or `None` before the first promotion. A copy cut short
    /// (new weights under the old sidecar: the weights are written first) is repaired from
    /// the version whose sidecar matches the weights; a best that cannot be repaired is
    /// removed, so the next gate starts afresh, and the versions themselves are untouched.
    pub fn current(&self) -> Result<Option<Sidecar>, BestError> {
        let (weights_path, sidecar_path) = checkpoint::paths(&self.path);
        if !weights_path.exists() && !sidecar_path.exists() {
            return Ok(None);
        }
        let err = match checkpoint::read_verified(&self.path) {
            Ok((sidecar, _)) => return Ok(Some(sidecar)),
            Err(e) => e,
        };
        if let Some(sidecar) = self.matching_version()? {
            let json = serde_json::to_vec_pretty(&sidecar).expect("sidecar serialises");
            atomic_write(&sidecar_path, &json).map_err(|error| BestError::Repair { path: sidecar_path, error })?;
            tracing::warn!("{err}; repaired from version {}", sidecar.version);
            return Ok(Some(sidecar));
        }
        tracing::warn!("{err}; no version matches its weights, so the best is gated afresh");
        for path in [sidecar_path, weights_path] {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(BestError::Remove { path, error }),
            }
        }
        Ok(None)
    }

    /// The sidecar, among the other checkpoints beside the best, of the weights the best
    /// holds now.
    fn matching_version(&self) -> Result<Option<Sidecar>, BestError> {
        let (weights_path, sidecar_path) = checkpoint::paths(&self.path);
        let Ok(weights) = std::fs::read(&weights_path) else { return Ok(None) };
        let sha = sha256_hex(&weights);
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let entries = std::fs::read_dir(dir).map_err(|error| BestError::List { path: dir.to_path_buf(), error })?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path == sidecar_path || path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            if let Ok(sidecar) = checkpoint::read_sidecar(&path) {
                if sidecar.sha256 == sha {
                    return Ok(Some(sidecar));
                }
            }
        }
        Ok(None)
    }

    /// Makes the checkpoint at `candidate` the best (checked, then copied atomically:
    /// weights, then sidecar, each a whole file, so a crash leaves what
    /// [`BestStore::current`] repairs).
    pub fn promote(&self, candidate: &Path) -> Result<Sidecar, CheckpointError> {
        checkpoint::copy(candidate, &self.path)
    }
}

/// Who takes a run's gating lock: what the process that finds it taken is told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Promoter {
    /// The run's gatekeeper (`dojo train`'s gating thread, `dojo gate`).
    Gatekeeper,
    /// `dojo tournament --choose-best`.
    Tournament,
}

impl Promoter {
    /// The refusal `self` meets when another process holds the lock.
    fn refusal(self) -> &'static str {
        match self {
            Promoter::Gatekeeper => {
                "another process (dojo train or dojo gate, or dojo tournament --choose-best) is gating this run"
            }
            Promoter::Tournament => {
                "dojo train or dojo gate is gating this run: stop it to choose the best by tournament"
            }
        }
    }
}

/// The run's gating lock, held: the right to change `models/best.*` (and to append to
/// `gating.jsonl`). Released when dropped, or when the process dies.
pub struct BestKeeper {
    run: RunPaths,
    best: BestStore,
    _lock: std::fs::File,
}

impl BestKeeper {
    /// Takes `run`'s gating lock for `promoter`, or says that another process holds it.
    pub fn lock(run: &RunPaths, promoter: Promoter) -> Result<BestKeeper, JournalError> {
        let lock = journal::lock_exclusive(&run.gating_lock(), promoter.refusal())?;
        Ok(BestKeeper { run: run.clone(), best: BestStore::new(run.best()), _lock: lock })
    }

    /// The run's best network.
    pub fn best(&self) -> &BestStore {
        &self.best
    }

    /// Makes published `version` the run's best (checked, then copied atomically); a
    /// version that is missing or damaged is refused before anything is written.
    pub fn promote(&self, version: u64) -> Result<Sidecar, CheckpointError> {
        self.best.promote(&self.run.model_version(version))
    }
}

/// Makes published `version` the best of `run` for `promoter`, taking the gating lock for
/// the copy: what `dojo tournament --choose-best` does once its standings are in.
pub fn promote(run: &RunPaths, promoter: Promoter, version: u64) -> Result<Sidecar, PromoteError> {
    Ok(BestKeeper::lock(run, promoter)?.promote(version)?)
}
