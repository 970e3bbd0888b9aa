//! Loading a checkpoint as every program does: its path named in the error.
//!
//! The format and the loading itself are `dojo_net::checkpoint`: one concept in two layers.

use dojo_game::GameSpec;
use dojo_net::checkpoint::{self, CheckpointError, Loaded};
use dojo_net::device::Device;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[error("loading checkpoint {}", .path.display())]
pub struct LoadError {
    pub path: PathBuf,
    #[source]
    /// Boxed: a checkpoint's error is large, and loading one returns this often.
    pub error: Box<CheckpointError>,
}

/// Loads a checkpoint, checking it is for `game` when given.
pub fn load_checkpoint(path: &Path, device: Device, game: Option<&GameSpec>) -> Result<Loaded, LoadError> {
    checkpoint::load(path, device, game).map_err(|error| LoadError { path: path.to_path_buf(), error: Box::new(error) })
}
