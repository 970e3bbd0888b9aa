//! The run directory as the learner keeps it: creating or reopening a run, and the state a
//! restart resumes from. Where each file lives is [`RunPaths`], which a `RunDir` derefs to.

use crate::config::{ConfigError, RunConfig};
use crate::paths::RunPaths;
use dojo_base::util::atomic_write;
use dojo_game::GameSpec;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What can go wrong creating, reopening or resuming a run directory. A wrapped error's text
/// is part of the message (see [`ConfigError`] for why it is not also the `source()`).
#[derive(Debug, thiserror::Error)]
pub enum RunDirError {
    /// The run's config (given, or stored in the directory) is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The run directory holds a run of another game or network than the config given.
    #[error(
        "{} is a run of {} with a {} net; it cannot be resumed as {} with {}",
        .root.display(), .stored.game, .stored.net, .given.game, .given.net
    )]
    Mismatch { root: PathBuf, stored: Box<GameAndNet>, given: Box<GameAndNet> },
    /// The run's id cannot be read.
    #[error("{}: cannot read run_id: {error}", .root.display())]
    RunId { root: PathBuf, error: std::io::Error },
    /// A file or folder of the run cannot be read, listed, created or written (`op`).
    #[error("cannot {op} {}: {error}", .path.display())]
    Io { op: &'static str, path: PathBuf, error: std::io::Error },
    /// `state.json` is not a state this release reads.
    #[error("{}: {error}", .path.display())]
    State { path: PathBuf, error: serde_json::Error },
}

/// What a run cannot change once made: its game, and its network (as
/// [`NetConfig::describe`](crate::config::NetConfig::describe) names it).
#[derive(Clone, Debug, PartialEq)]
pub struct GameAndNet {
    pub game: GameSpec,
    pub net: String,
}

impl GameAndNet {
    fn of(config: &RunConfig) -> Box<GameAndNet> {
        Box::new(GameAndNet { game: config.game.clone(), net: config.net.describe() })
    }
}

fn io_error(op: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> RunDirError {
    let path = path.to_path_buf();
    move |error| RunDirError::Io { op, path, error }
}

/// Reading the run directory's models, in this file because it can fail with a run
/// directory's error (the paths themselves are plain names: `paths.rs` knows no errors).
impl RunPaths {
    /// The published versions on disk (those with a sidecar: it is written last), oldest
    /// first.
    pub fn versions(&self) -> Result<Vec<u64>, RunDirError> {
        let path = self.models();
        let entries = std::fs::read_dir(&path).map_err(|error| RunDirError::Io { op: "list", path, error })?;
        let mut versions: Vec<u64> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| crate::paths::version_of_sidecar(&e.file_name().to_string_lossy()))
            .collect();
        versions.sort_unstable();
        Ok(versions)
    }
}

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
    pub fn create_or_open(&self, config: Option<&RunConfig>) -> Result<(RunConfig, String), RunDirError> {
        if self.exists() {
            let stored = RunConfig::load_stored(&self.config())?;
            if let Some(c) = config {
                if c.game != stored.game || c.net != stored.net {
                    let (stored, given) = (GameAndNet::of(&stored), GameAndNet::of(c));
                    return Err(RunDirError::Mismatch { root: self.root.clone(), stored, given });
                }
            }
            let run_id = std::fs::read_to_string(self.root.join("run_id"))
                .map_err(|error| RunDirError::RunId { root: self.root.clone(), error })?;
            return Ok((config.cloned().unwrap_or(stored), run_id.trim().to_string()));
        }
        // A new run with no config gets a new Connect Four run's defaults, as `dojo train` gives.
        let config = config.cloned().unwrap_or_else(|| RunConfig::for_game(RunConfig::default().game));
        config.validate()?;
        for dir in [self.root.clone(), self.games(), self.models(), self.checkpoints(), self.logs()] {
            std::fs::create_dir_all(&dir).map_err(io_error("create", &dir))?;
        }
        let run_id = format!("{:016x}", rand::random::<u64>());
        let write = |path: PathBuf, bytes: &[u8]| atomic_write(&path, bytes).map_err(io_error("write", &path));
        write(self.root.join("run_id"), run_id.as_bytes())?;
        // The config last: its presence marks a complete run directory.
        write(self.config(), config.to_toml().as_bytes())?;
        Ok((config, run_id))
    }

    pub fn read_state(&self) -> Result<RunState, RunDirError> {
        let path = self.state();
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|error| RunDirError::State { path, error }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(RunState::default()),
            Err(e) => Err(io_error("read", &path)(e)),
        }
    }

    pub fn write_state(&self, state: &RunState) -> Result<(), RunDirError> {
        let bytes = serde_json::to_vec_pretty(state).expect("state serialises");
        atomic_write(&self.state(), &bytes).map_err(io_error("write", &self.state()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_is_wrong_and_where() {
        let tmp = tempfile::tempdir().unwrap();
        let run = RunDir::new(tmp.path().join("run"));
        run.create_or_open(None).unwrap();
        let gomoku = RunConfig { game: GameSpec::gomoku(9), ..RunConfig::default() };
        let err = run.create_or_open(Some(&gomoku)).unwrap_err();
        assert!(
            matches!(&err, RunDirError::Mismatch { stored, given, .. }
                if stored.game == GameSpec::connect4() && given.game == gomoku.game && given.net == "3x32"),
            "{err:?}"
        );

        std::fs::write(run.state(), "{\"version\": \"one\"}").unwrap();
        let err = run.read_state().unwrap_err();
        assert!(matches!(&err, RunDirError::State { path, .. } if *path == run.state()), "{err:?}");
        assert!(err.to_string().starts_with(&format!("{}: invalid type", run.state().display())), "{err}");

        std::fs::write(run.config(), "[learner]\npublish_every = 0\n").unwrap();
        let err = run.create_or_open(None).unwrap_err();
        let RunDirError::Config(ConfigError::InFile { path, error }) = &err else { panic!("{err:?}") };
        assert_eq!(path, &run.config());
        assert!(matches!(**error, ConfigError::Zero { keys: "learner.publish_every and learner.checkpoint_every" }));
        assert_eq!(
            err.to_string(),
            format!("{}: learner.publish_every and learner.checkpoint_every must be at least 1", path.display())
        );

        let missing = RunDir::new(tmp.path().join("nothing"));
        std::fs::create_dir_all(&missing.root).unwrap();
        std::fs::write(missing.config(), RunConfig::default().to_toml()).unwrap();
        let err = missing.create_or_open(None).unwrap_err();
        assert!(matches!(&err, RunDirError::RunId { root, .. } if *root == missing.root), "{err:?}");
        assert!(err.to_string().starts_with(&format!("{}: cannot read run_id: ", missing.root.display())), "{err}");
    }
}
