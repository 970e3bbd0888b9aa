//! SGD with momentum and Adam on tch tensors, with state that can be saved and restored.
//!
//! tch's `nn::Optimizer` wraps libtorch's C++ optimizers, whose momentum buffers, Adam moments
//! and step counts cannot be read out or put back. A learner that restarts from its newest
//! checkpoint must continue with the same optimizer state, or Adam restarts its bias correction
//! and moments and the first steps after every restart differ from an uninterrupted run. These
//! optimizers follow torch's update rules exactly (`torch.optim.SGD` with dampening 0 and no
//! Nesterov; `torch.optim.Adam` without amsgrad, weight decay as L2 added to the gradient) and
//! serialise their state as safetensors.
//!
//! State file layout: one F32 tensor per variable and buffer, named `<var>.momentum` (SGD) or
//! `<var>.exp_avg` and `<var>.exp_avg_sq` (Adam), plus string metadata: `format`, `kind`,
//! `steps` (updates taken, Adam's bias-correction `t`), `lr` and the hyperparameters (recorded
//! for inspection; on load the optimizer keeps its own, so a restart may change them).

use safetensors::tensor::{Dtype, SafeTensors, TensorView};

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::PathBuf;
use tch::{nn, Kind, Tensor};

use dojo_arch::train::OptimizerKind;

pub const FORMAT: &str = "dojo-optimizer/1";

/// A state file's safetensors metadata: key to value.
pub type Metadata = HashMap<String, String>;

/// The update rule and its hyperparameters (the learning rate is kept apart, as it changes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptimizerConfig {
    /// `torch.optim.SGD(momentum, weight_decay, dampening=0, nesterov=False)`.
    Sgd { momentum: f64, weight_decay: f64 },
    /// `torch.optim.Adam(betas=(beta1, beta2), eps, weight_decay, amsgrad=False)`.
    Adam { beta1: f64, beta2: f64, eps: f64, weight_decay: f64 },
}

impl OptimizerConfig {
    pub fn sgd(momentum: f64, weight_decay: f64) -> OptimizerConfig {
        OptimizerConfig::Sgd { momentum, weight_decay }
    }

    /// Adam with torch's defaults (betas 0.9, 0.999; eps 1e-8).
    pub fn adam(weight_decay: f64) -> OptimizerConfig {
        OptimizerConfig::Adam { beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay }
    }

    pub fn kind(&self) -> OptimizerKind {
        match self {
            OptimizerConfig::Sgd { .. } => OptimizerKind::Sgd,
            OptimizerConfig::Adam { .. } => OptimizerKind::Adam,
        }
    }

    pub fn validate(&self) -> Result<(), OptimError> {
        let bad = |setting: &'static str, value: f64, range: &'static str| {
            Err(OptimSettingError::OutOfRange { optimizer: self.kind(), setting, value, range }.into())
        };
        match *self {
            OptimizerConfig::Sgd { momentum, weight_decay } => {
                if !(0.0..1.0).contains(&momentum) {
                    return bad("momentum", momentum, "0..1");
                }
                if !(weight_decay >= 0.0 && weight_decay.is_finite()) {
                    return bad("weight_decay", weight_decay, "0..");
                }
            }
            OptimizerConfig::Adam { beta1, beta2, eps, weight_decay } => {
                if !(0.0..1.0).contains(&beta1) {
                    return bad("beta1", beta1, "0..1");
                }
                if !(0.0..1.0).contains(&beta2) {
                    return bad("beta2", beta2, "0..1");
                }
                if !(eps > 0.0 && eps.is_finite()) {
                    return bad("eps", eps, "(0, inf)");
                }
                if !(weight_decay >= 0.0 && weight_decay.is_finite()) {
                    return bad("weight_decay", weight_decay, "0..");
                }
            }
        }
        Ok(())
    }

    fn metadata(&self, out: &mut HashMap<String, String>) {
        // `{}` on f64 prints the shortest text that parses back to the same value.
        match *self {
            OptimizerConfig::Sgd { momentum, weight_decay } => {
                out.insert("momentum".into(), momentum.to_string());
                out.insert("weight_decay".into(), weight_decay.to_string());
            }
            OptimizerConfig::Adam { beta1, beta2, eps, weight_decay } => {
                out.insert("beta1".into(), beta1.to_string());
                out.insert("beta2".into(), beta2.to_string());
                out.insert("eps".into(), eps.to_string());
                out.insert("weight_decay".into(), weight_decay.to_string());
            }
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OptimError {
    #[error("bad optimizer settings: {0}")]
    Config(#[from] OptimSettingError),
    #[error("not a valid optimizer state file: {0}")]
    Format(#[from] StateFormatError),
    #[error("optimizer state is for {found} but the trainer uses {expected}")]
    WrongKind { expected: OptimizerKind, found: String },
    #[error("optimizer state lacks {0}")]
    Missing(String),
    #[error("optimizer state holds {0}, which is not part of this model")]
    Unexpected(String),
    #[error("optimizer state tensor {name}: {problem}")]
    Tensor { name: String, problem: TensorProblem },
    /// The causes of `Io` and `File` are in their messages and not also sources, so a
    /// report that prints an error with its sources says each once.
    #[error("{path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    /// An error about a state file, with the file's path.
    #[error("{path}: {error}")]
    File { path: PathBuf, error: Box<OptimError> },
    /// A libtorch operation failed while `what` (e.g. `adam update`).
    #[error("{what}: {error}")]
    Torch { what: &'static str, error: tch::TchError },
    #[error("serialising optimizer state: {0}")]
    Serialise(safetensors::SafeTensorError),
}

/// An optimizer setting out of its range.
#[derive(Debug, thiserror::Error)]
pub enum OptimSettingError {
    /// `setting` of `optimizer` (`sgd`, `adam`) is `value`, not within `range`.
    #[error("{optimizer} {setting} = {value} must be within {range}")]
    OutOfRange { optimizer: OptimizerKind, setting: &'static str, value: f64, range: &'static str },
    #[error("metadata key {0:?} is the optimizer's own")]
    OwnMetadataKey(String),
    #[error("learning rate {0} must be finite and not negative")]
    LearningRate(f64),
}

/// What makes a file not an optimizer's (or a trainer's) saved state.
#[derive(Debug, thiserror::Error)]
pub enum StateFormatError {
    #[error("{0}")]
    Safetensors(#[from] safetensors::SafeTensorError),
    #[error("format {found:?} is not {expected:?}")]
    OtherFormat { found: String, expected: &'static str },
    #[error("no format in its metadata (not an optimizer state?)")]
    NoFormat,
    #[error("no optimizer kind in its metadata")]
    NoKind,
    #[error("no step count in its metadata")]
    NoSteps,
    #[error("step count {text:?}: {error}")]
    BadSteps { text: String, error: std::num::ParseIntError },
    /// A trainer's own key (`key`) missing.
    #[error("no {key} in its metadata (not a trainer's state?)")]
    NoKey { key: &'static str },
    #[error("{key} {text:?}: {error}")]
    BadKey { key: &'static str, text: String, error: std::num::ParseIntError },
}

/// Why one stored tensor cannot be the buffer it is named for.
#[derive(Debug, thiserror::Error)]
pub enum TensorProblem {
    #[error("{0}")]
    Unreadable(safetensors::SafeTensorError),
    #[error("dtype {0:?} is not F32")]
    Dtype(Dtype),
    #[error("shape {found:?} does not match the variable's {want:?}")]
    Shape { found: Vec<usize>, want: Vec<usize> },
    #[error("holds NaN or infinite values")]
    NotFinite,
}

fn torch(what: &'static str) -> impl Fn(tch::TchError) -> OptimError {
    move |error| OptimError::Torch { what, error }
}

/// One trainable variable and its buffers (in `OptimizerKind::buffers` order).
struct Param {
    name: String,
    var: Tensor,
    buffers: Vec<Tensor>,
}

/// An optimizer over a VarStore's trainable variables (those that exist when it is built).
pub struct Optimizer {
    config: OptimizerConfig,
    lr: f64,
    params: Vec<Param>,
    steps: u64,
}

impl fmt::Debug for Optimizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Optimizer")
            .field("config", &self.config)
            .field("lr", &self.lr)
            .field("params", &self.params.len())
            .field("steps", &self.steps)
            .finish()
    }
}

impl Optimizer {
    /// Builds the optimizer with zeroed buffers. The variables are the VarStore's ones that
    /// require gradients, ordered by name so the layout does not depend on hash order.
    pub fn new(vs: &nn::VarStore, config: OptimizerConfig, lr: f64) -> Result<Optimizer, OptimError> {
        config.validate()?;
        check_lr(lr)?;
        let mut vars: Vec<(String, Tensor)> = vs.variables().into_iter().filter(|(_, t)| t.requires_grad()).collect();
        vars.sort_by(|a, b| a.0.cmp(&b.0));
        let kind = config.kind();
        let params = tch::no_grad(|| {
            vars.into_iter()
                .map(|(name, var)| {
                    let buffers = kind
                        .buffers()
                        .iter()
                        .map(|_| var.f_zeros_like().map_err(torch("allocating optimizer state")))
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(Param { name, var, buffers })
                })
                .collect::<Result<Vec<_>, OptimError>>()
        })?;
        Ok(Optimizer { config, lr, params, steps: 0 })
    }

    pub fn kind(&self) -> OptimizerKind {
        self.config.kind()
    }

    pub fn config(&self) -> &OptimizerConfig {
        &self.config
    }

    pub fn lr(&self) -> f64 {
        self.lr
    }

    /// Sets the learning rate for the following steps; a negative, NaN or infinite rate is
    /// refused (the old one stays).
    pub fn set_lr(&mut self, lr: f64) -> Result<(), OptimError> {
        check_lr(lr)?;
        self.lr = lr;
        Ok(())
    }

    /// Updates taken so far (Adam's bias-correction step `t`).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The optimised variables' names, in state order.
    pub fn var_names(&self) -> Vec<&str> {
        self.params.iter().map(|p| p.name.as_str()).collect()
    }

    /// Zeroes every gradient (as tch's `Tensor::zero_grad`: libtorch's own optimizers drop
    /// them instead, which only differs for variables the loss does not reach).
    pub fn zero_grad(&mut self) {
        for p in &mut self.params {
            p.var.zero_grad();
        }
    }

    /// Zeroes the gradients, back-propagates `loss` and applies one update.
    pub fn step(&mut self, loss: &Tensor) -> Result<(), OptimError> {
        self.zero_grad();
        loss.f_backward().map_err(torch("backward pass"))?;
        self.update()
    }

    /// Applies one update from the gradients already accumulated. Variables without a
    /// gradient are left alone, as torch does.
    pub fn update(&mut self) -> Result<(), OptimError> {
        let _guard = tch::no_grad_guard();
        let t = self.steps + 1;
        let lr = self.lr;
        for p in &mut self.params {
            let grad = p.var.grad();
            if !grad.defined() {
                continue;
            }
            match self.config {
                OptimizerConfig::Sgd { momentum, weight_decay } => {
                    // d_p = g + wd·p;  buf = momentum·buf + d_p;  p -= lr·buf. With dampening 0 a
                    // zero-initialised buffer gives torch's first step (buf = d_p) exactly.
                    let d_p = if weight_decay != 0.0 { &grad + &p.var * weight_decay } else { grad };
                    let buf = &mut p.buffers[0];
                    in_place(buf.f_mul_scalar_(momentum), "sgd momentum")?;
                    in_place(buf.f_add_(&d_p), "sgd momentum")?;
                    let delta = &*buf * lr;
                    in_place(p.var.f_sub_(&delta), "sgd update")?;
                }
                OptimizerConfig::Adam { beta1, beta2, eps, weight_decay } => {
                    let g = if weight_decay != 0.0 { &grad + &p.var * weight_decay } else { grad };
                    let (m, v) = p.buffers.split_at_mut(1);
                    let (m, v) = (&mut m[0], &mut v[0]);
                    in_place(m.f_mul_scalar_(beta1), "adam exp_avg")?;
                    in_place(m.f_add_(&(&g * (1.0 - beta1))), "adam exp_avg")?;
                    in_place(v.f_mul_scalar_(beta2), "adam exp_avg_sq")?;
                    in_place(v.f_add_(&(&g * &g * (1.0 - beta2))), "adam exp_avg_sq")?;
                    let bias1 = 1.0 - beta1.powf(t as f64);
                    let bias2 = 1.0 - beta2.powf(t as f64);
                    let denom = v.f_sqrt().map_err(torch("adam update"))? / bias2.sqrt() + eps;
                    let delta = &*m / &denom * (lr / bias1);
                    in_place(p.var.f_sub_(&delta), "adam update")?;
                }
            }
        }
        self.steps = t;
        Ok(())
    }

    /// The state as safetensors bytes.
    pub fn state_bytes(&self) -> Result<Vec<u8>, OptimError> {
        self.state_bytes_with(&[])
    }

    /// The state as safetensors bytes, with `extra` metadata entries (which may not reuse the
    /// optimizer's own keys).
    pub fn state_bytes_with(&self, extra: &[(&str, String)]) -> Result<Vec<u8>, OptimError> {
        let mut meta = HashMap::new();
        meta.insert("format".to_string(), FORMAT.to_string());
        meta.insert("kind".to_string(), self.kind().name().to_string());
        meta.insert("steps".to_string(), self.steps.to_string());
        meta.insert("lr".to_string(), self.lr.to_string());
        self.config.metadata(&mut meta);
        for (k, v) in extra {
            if meta.insert(k.to_string(), v.clone()).is_some() {
                return Err(OptimSettingError::OwnMetadataKey(k.to_string()).into());
            }
        }
        let suffixes = self.kind().buffers();
        let mut owned: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
        for p in &self.params {
            for (suffix, buf) in suffixes.iter().zip(&p.buffers) {
                let t = buf
                    .f_to_device(tch::Device::Cpu)
                    .and_then(|t| t.f_to_kind(Kind::Float))
                    .and_then(|t| t.f_contiguous())
                    .map_err(torch("copying optimizer state"))?;
                let shape: Vec<usize> = t.size().iter().map(|&d| d as usize).collect();
                let n = t.numel();
                let mut data = vec![0f32; n];
                t.f_copy_data(&mut data, n).map_err(torch("copying optimizer state"))?;
                let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
                owned.push((format!("{}.{suffix}", p.name), shape, bytes));
            }
        }
        let views: Vec<(String, TensorView<'_>)> = owned
            .iter()
            .map(|(name, shape, bytes)| TensorView::new(Dtype::F32, shape.clone(), bytes).map(|v| (name.clone(), v)))
            .collect::<Result<_, _>>()
            .map_err(OptimError::Serialise)?;
        safetensors::serialize(views, Some(meta)).map_err(OptimError::Serialise)
    }

    /// The metadata of a state file (checked to be one), without loading it.
    pub fn state_metadata(bytes: &[u8]) -> Result<Metadata, OptimError> {
        let (_, meta) = SafeTensors::read_metadata(bytes).map_err(StateFormatError::from)?;
        let meta = meta.metadata().clone().unwrap_or_default();
        match meta.get("format") {
            Some(f) if f == FORMAT => Ok(meta),
            Some(f) => Err(StateFormatError::OtherFormat { found: f.clone(), expected: FORMAT }.into()),
            None => Err(StateFormatError::NoFormat.into()),
        }
    }

    /// Restores buffers and step count from `bytes` (written by [`Optimizer::state_bytes`]
    /// for the same kind of optimizer over the same variables). Everything is checked before
    /// anything changes, so on error the optimizer is as it was. The learning rate and
    /// hyperparameters stay this optimizer's own.
    pub fn load_state(&mut self, bytes: &[u8]) -> Result<(), OptimError> {
        let meta = Self::state_metadata(bytes)?;
        let kind = self.kind();
        match meta.get("kind") {
            Some(k) if k == kind.name() => {}
            Some(k) => return Err(OptimError::WrongKind { expected: kind, found: k.clone() }),
            None => return Err(StateFormatError::NoKind.into()),
        }
        let steps = meta.get("steps").ok_or(StateFormatError::NoSteps)?;
        let steps = steps.parse::<u64>().map_err(|error| StateFormatError::BadSteps { text: steps.clone(), error })?;
        let st = SafeTensors::deserialize(bytes).map_err(StateFormatError::from)?;

        let suffixes = kind.buffers();
        let expected: Vec<String> =
            self.params.iter().flat_map(|p| suffixes.iter().map(move |s| format!("{}.{s}", p.name))).collect();
        let want: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
        let found: BTreeSet<&str> = st.names().into_iter().collect();
        if let Some(name) = want.difference(&found).next() {
            return Err(OptimError::Missing(name.to_string()));
        }
        if let Some(name) = found.difference(&want).next() {
            return Err(OptimError::Unexpected(name.to_string()));
        }

        let mut fresh: Vec<Tensor> = Vec::with_capacity(expected.len());
        for (name, var) in expected.iter().zip(self.params.iter().flat_map(|p| suffixes.iter().map(move |_| &p.var))) {
            let bad = |problem: TensorProblem| OptimError::Tensor { name: name.clone(), problem };
            let view = st.tensor(name).map_err(|e| bad(TensorProblem::Unreadable(e)))?;
            if view.dtype() != Dtype::F32 {
                return Err(bad(TensorProblem::Dtype(view.dtype())));
            }
            let shape = var.size();
            let want_shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
            if view.shape() != want_shape.as_slice() {
                return Err(bad(TensorProblem::Shape { found: view.shape().to_vec(), want: want_shape }));
            }
            let data: Vec<f32> =
                view.data().chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
            if data.iter().any(|x| !x.is_finite()) {
                return Err(bad(TensorProblem::NotFinite));
            }
            let t = Tensor::f_from_slice(&data)
                .and_then(|t| t.f_view(shape.as_slice()))
                .and_then(|t| t.f_to_kind(var.kind()))
                .and_then(|t| t.f_to_device(var.device()))
                .map_err(torch("loading optimizer state"))?;
            fresh.push(t);
        }

        // `fresh` holds exactly one tensor per buffer, in the same order.
        let mut fresh = fresh.into_iter();
        for buf in self.params.iter_mut().flat_map(|p| p.buffers.iter_mut()) {
            if let Some(t) = fresh.next() {
                *buf = t;
            }
        }
        self.steps = steps;
        Ok(())
    }
}

/// In-place ops hand back another handle to the tensor they changed; only the error matters.
fn in_place(result: Result<Tensor, tch::TchError>, what: &'static str) -> Result<(), OptimError> {
    result.map(drop).map_err(torch(what))
}

fn check_lr(lr: f64) -> Result<(), OptimError> {
    if lr >= 0.0 && lr.is_finite() {
        Ok(())
    } else {
        Err(OptimSettingError::LearningRate(lr).into())
    }
}
