//! Checkpoints: `NAME.safetensors` (the weights, readable by any safetensors tool) plus
//! `NAME.json` (game, architecture, training step, parent, sha256 of the weights, time).
//!
//! Both files are written atomically (temp file, fsync, rename; weights first, so a sidecar
//! never names weights that are not there). Loading checks the sidecar's sha256 against the
//! weights, the game against the caller's, and every tensor's name, shape and dtype against
//! the architecture, so a truncated, swapped or mismatched file is a clear error rather than
//! a silently wrong network.
//!
//! `dojo_program::checkpoint` loads one as every command does (its path in the error): one
//! concept in two layers.

use super::model::Model;
use crate::device::Device;
use dojo_arch::architecture::{Architecture, ArchitectureError};
use dojo_base::util::{atomic_write, sha256_hex};
use dojo_game::GameSpec;
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use tch::{Kind, Tensor};

pub const FORMAT: &str = "dojo-checkpoint/1";

/// The JSON sidecar of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sidecar {
    pub format: String,
    pub architecture: Architecture,
    /// Training steps taken to reach these weights.
    pub step: u64,
    /// The model version a learner published these weights as (0 for offline training).
    #[serde(default)]
    pub version: u64,
    /// File name of the checkpoint these weights were trained from, if any.
    pub parent: Option<String>,
    /// sha256 of the .safetensors file, lowercase hex.
    pub sha256: String,
    pub created_unix_ms: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The cause is in the message and not also a source, so a report that prints an
    /// error with its sources says it once.
    #[error("cannot read {path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    /// No checkpoint at the path the user gave: neither it nor its weights are there.
    #[error("{path} does not exist")]
    Missing { path: PathBuf },
    /// The weights are there but not the sidecar beside them.
    #[error("{weights} has no sidecar: {sidecar} does not exist (a checkpoint is NAME.safetensors with NAME.json beside it)")]
    NoSidecar { weights: PathBuf, sidecar: PathBuf },
    #[error("{path}: bad sidecar JSON: {reason}")]
    Sidecar { path: PathBuf, reason: SidecarProblem },
    /// The sidecar describes a network that cannot be built or cannot play its game.
    #[error("{path}: bad sidecar JSON: {error}")]
    Architecture { path: PathBuf, error: ArchitectureError },
    #[error("{path}: the weights' sha256 is {actual} but the sidecar says {expected} (truncated or replaced file?)")]
    Checksum { path: PathBuf, expected: String, actual: String },
    #[error("{path}: not a valid safetensors file: {reason}")]
    Weights { path: PathBuf, reason: WeightsProblem },
    #[error("{path}: checkpoint is for {found}, not {expected}")]
    WrongGame { path: PathBuf, expected: String, found: String },
    #[error("{path}: tensor {name}: {reason}")]
    Tensor { path: PathBuf, name: String, reason: TensorMismatch },
    #[error("serialising weights: {0}")]
    Serialise(safetensors::SafeTensorError),
}

/// What is wrong in a sidecar ([`CheckpointError::Sidecar`]).
#[derive(Debug, thiserror::Error)]
pub enum SidecarProblem {
    #[error("{0}")]
    Json(serde_json::Error),
    #[error("format {0:?} is not {FORMAT:?}")]
    Format(String),
}

/// Why a weights file is not one ([`CheckpointError::Weights`]).
#[derive(Debug, thiserror::Error)]
pub enum WeightsProblem {
    #[error("{0}")]
    Unreadable(safetensors::SafeTensorError),
    /// The sidecar claims a network larger than the file could hold.
    #[error("a {blocks}x{channels} network has at least {least} parameters, but the weights hold at most {held}")]
    TooSmall { blocks: usize, channels: usize, least: u64, held: u64 },
}

/// How one stored tensor does not fit the architecture ([`CheckpointError::Tensor`]).
#[derive(Debug, thiserror::Error)]
pub enum TensorMismatch {
    #[error("not part of this architecture")]
    Extra,
    #[error("missing")]
    Missing,
    #[error("dtype {0:?} is not F32")]
    Dtype(Dtype),
    #[error("shape {found:?} does not match the architecture's {want:?}")]
    Shape { found: Vec<usize>, want: Vec<usize> },
    #[error("holds NaN or infinite values")]
    NotFinite,
}

/// The two paths of a checkpoint named by either of them (or by the stem).
pub fn paths(path: &Path) -> (PathBuf, PathBuf) {
    let stem = match path.extension().and_then(|e| e.to_str()) {
        Some("safetensors") | Some("json") => path.with_extension(""),
        _ => path.to_path_buf(),
    };
    let with = |ext: &str| {
        let mut s = stem.clone().into_os_string();
        s.push(".");
        s.push(ext);
        PathBuf::from(s)
    };
    (with("safetensors"), with("json"))
}

/// Serialises a model's weights (names sorted, f32) to safetensors bytes.
pub fn weights_bytes(model: &Model) -> Result<Vec<u8>, CheckpointError> {
    let mut vars: Vec<(String, Tensor)> = model.vs.variables().into_iter().collect();
    vars.sort_by(|a, b| a.0.cmp(&b.0));
    let mut owned: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::with_capacity(vars.len());
    for (name, t) in vars {
        let t = t.to_device(tch::Device::Cpu).to_kind(Kind::Float).contiguous();
        let shape: Vec<usize> = t.size().iter().map(|&d| d as usize).collect();
        let n = t.numel();
        let mut data = vec![0f32; n];
        t.copy_data(&mut data, n);
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        owned.push((name, shape, bytes));
    }
    let views: Vec<(String, TensorView<'_>)> = owned
        .iter()
        .map(|(name, shape, bytes)| TensorView::new(Dtype::F32, shape.clone(), bytes).map(|v| (name.clone(), v)))
        .collect::<Result<_, _>>()
        .map_err(CheckpointError::Serialise)?;
    safetensors::serialize(views, None).map_err(CheckpointError::Serialise)
}

/// Writes `model` as a checkpoint at `path` (either name, or the stem). Returns the sidecar.
pub fn save(
    model: &Model,
    path: &Path,
    step: u64,
    version: u64,
    parent: Option<&Path>,
) -> Result<Sidecar, CheckpointError> {
    let (weights_path, sidecar_path) = paths(path);
    let bytes = weights_bytes(model)?;
    let sidecar = Sidecar {
        format: FORMAT.into(),
        architecture: model.arch().clone(),
        step,
        version,
        parent: parent.map(|p| paths(p).0.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())),
        sha256: sha256_hex(&bytes),
        created_unix_ms: dojo_base::util::now_unix_ms(),
    };
    atomic_write(&weights_path, &bytes).map_err(|error| CheckpointError::Io { path: weights_path.clone(), error })?;
    let json = serde_json::to_vec_pretty(&sidecar).expect("sidecar serialises");
    atomic_write(&sidecar_path, &json).map_err(|error| CheckpointError::Io { path: sidecar_path.clone(), error })?;
    Ok(sidecar)
}

/// Reads and checks a checkpoint's sidecar (not the weights).
pub fn read_sidecar(path: &Path) -> Result<Sidecar, CheckpointError> {
    let (_, sidecar_path) = paths(path);
    let text = std::fs::read(&sidecar_path).map_err(|error| unreadable_sidecar(path, &sidecar_path, error))?;
    let sidecar: Sidecar = serde_json::from_slice(&text)
        .map_err(|e| CheckpointError::Sidecar { path: sidecar_path.clone(), reason: SidecarProblem::Json(e) })?;
    if sidecar.format != FORMAT {
        return Err(CheckpointError::Sidecar { path: sidecar_path, reason: SidecarProblem::Format(sidecar.format) });
    }
    sidecar.architecture.validate().map_err(|error| CheckpointError::Architecture { path: sidecar_path, error })?;
    Ok(sidecar)
}

/// A sidecar that cannot be read, said in the words of the path the user gave: a missing
/// checkpoint is the file they named (its weights file where they named the stem), not the
/// sidecar they may never have heard of.
fn unreadable_sidecar(given: &Path, sidecar: &Path, error: std::io::Error) -> CheckpointError {
    if error.kind() != std::io::ErrorKind::NotFound {
        return CheckpointError::Io { path: sidecar.to_path_buf(), error };
    }
    let (weights, _) = paths(given);
    if weights.exists() {
        return CheckpointError::NoSidecar { weights, sidecar: sidecar.to_path_buf() };
    }
    let named = if given.extension().is_some_and(|e| e == "safetensors" || e == "json") {
        given.to_path_buf()
    } else {
        weights
    };
    CheckpointError::Missing { path: named }
}

/// Reads a checkpoint's sidecar and weights and checks that they belong together (the
/// weights' sha256 is the sidecar's), without building the network. Returns both.
pub fn read_verified(path: &Path) -> Result<(Sidecar, Vec<u8>), CheckpointError> {
    let sidecar = read_sidecar(path)?;
    let (weights_path, _) = paths(path);
    let weights =
        std::fs::read(&weights_path).map_err(|error| CheckpointError::Io { path: weights_path.clone(), error })?;
    let actual = sha256_hex(&weights);
    if actual != sidecar.sha256 {
        return Err(CheckpointError::Checksum { path: weights_path, expected: sidecar.sha256, actual });
    }
    Ok((sidecar, weights))
}

/// Copies the checkpoint at `from` to `to`, checked first, written as [`save`] writes
/// (weights, then sidecar, each atomically). Returns the sidecar.
pub fn copy(from: &Path, to: &Path) -> Result<Sidecar, CheckpointError> {
    let (sidecar, weights) = read_verified(from)?;
    let (weights_path, sidecar_path) = paths(to);
    atomic_write(&weights_path, &weights).map_err(|error| CheckpointError::Io { path: weights_path.clone(), error })?;
    let json = serde_json::to_vec_pretty(&sidecar).expect("sidecar serialises");
    atomic_write(&sidecar_path, &json).map_err(|error| CheckpointError::Io { path: sidecar_path.clone(), error })?;
    Ok(sidecar)
}

/// A loaded checkpoint: its model and sidecar, plus the raw weight bytes (which the
/// learner streams to workers as they are).
pub struct Loaded {
    pub model: Model,
    pub sidecar: Sidecar,
    pub weights: Vec<u8>,
}

/// Loads a checkpoint onto `device`, checking everything; `expect_game`, when given, must be
/// the checkpoint's game.
pub fn load(path: &Path, device: Device, expect_game: Option<&GameSpec>) -> Result<Loaded, CheckpointError> {
    let (sidecar, weights) = read_verified(path)?;
    let (weights_path, _) = paths(path);
    if let Some(game) = expect_game {
        if *game != sidecar.architecture.game {
            return Err(CheckpointError::WrongGame {
                path: weights_path,
                expected: game.to_string(),
                found: sidecar.architecture.game.to_string(),
            });
        }
    }
    let model = model_from_bytes(&sidecar.architecture, &weights, device).map_err(|e| match e {
        CheckpointError::Weights { reason, .. } => CheckpointError::Weights { path: weights_path.clone(), reason },
        CheckpointError::Tensor { name, reason, .. } => {
            CheckpointError::Tensor { path: weights_path.clone(), name, reason }
        }
        other => other,
    })?;
    Ok(Loaded { model, sidecar, weights })
}

/// Builds a model of `arch` from safetensors bytes, checking every tensor's name, shape and
/// dtype (errors carry an empty path; callers fill it in).
pub fn model_from_bytes(arch: &Architecture, bytes: &[u8], device: Device) -> Result<Model, CheckpointError> {
    let st = SafeTensors::deserialize(bytes)
        .map_err(|e| CheckpointError::Weights { path: PathBuf::new(), reason: WeightsProblem::Unreadable(e) })?;
    // Bytes / 4 bounds the f32 parameters the file can hold; a claim of more is refused
    // before the network it claims is allocated (up to gigabytes for 64×1024).
    let held = bytes.len() as u64 / 4;
    if arch.min_parameters() > held {
        return Err(CheckpointError::Weights {
            path: PathBuf::new(),
            reason: WeightsProblem::TooSmall {
                blocks: arch.blocks,
                channels: arch.channels,
                least: arch.min_parameters(),
                held,
            },
        });
    }
    let model = Model::new(arch.clone(), device);
    let mut vars: Vec<(String, Tensor)> = model.vs.variables().into_iter().collect();
    vars.sort_by(|a, b| a.0.cmp(&b.0));
    let tensor_err = |name: &str, reason: TensorMismatch| CheckpointError::Tensor {
        path: PathBuf::new(),
        name: name.to_string(),
        reason,
    };
    if st.len() != vars.len() {
        let expected: std::collections::BTreeSet<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
        let found: std::collections::BTreeSet<&str> = st.names().into_iter().collect();
        let extra = found.difference(&expected).next().map(|s| s.to_string());
        return Err(match extra {
            Some(name) => tensor_err(&name, TensorMismatch::Extra),
            None => tensor_err(expected.difference(&found).next().copied().unwrap_or("?"), TensorMismatch::Missing),
        });
    }
    tch::no_grad(|| -> Result<(), CheckpointError> {
        for (name, var) in vars.iter_mut() {
            let view = st.tensor(name).map_err(|_| tensor_err(name, TensorMismatch::Missing))?;
            if view.dtype() != Dtype::F32 {
                return Err(tensor_err(name, TensorMismatch::Dtype(view.dtype())));
            }
            let want: Vec<usize> = var.size().iter().map(|&d| d as usize).collect();
            if view.shape() != want.as_slice() {
                return Err(tensor_err(name, TensorMismatch::Shape { found: view.shape().to_vec(), want }));
            }
            let data: Vec<f32> =
                view.data().chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            if data.iter().any(|x| !x.is_finite()) {
                return Err(tensor_err(name, TensorMismatch::NotFinite));
            }
            let src = Tensor::from_slice(&data).view(var.size().as_slice()).to_device(var.device());
            var.copy_(&src);
        }
        Ok(())
    })?;
    Ok(model)
}
