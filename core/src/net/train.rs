//! One training step: policy cross-entropy + value MSE (+ L2 through the optimizer's weight
//! decay), per-sample weights, SGD with momentum or Adam.

use super::model::Model;
use crate::game::Game;
use crate::record::{RecordError, SampleOptions, TrainingGame};
use serde::{Deserialize, Serialize};
use tch::nn::{self, OptimizerConfig};
use tch::{Kind, Reduction, Tensor};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    Sgd,
    Adam,
}

/// The trainer's knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    pub optimizer: OptimizerKind,
    pub learning_rate: f64,
    /// SGD momentum (ignored by Adam).
    pub momentum: f64,
    /// L2 regularisation, applied as weight decay.
    pub weight_decay: f64,
    pub batch_size: usize,
    /// Weight of the value loss against the policy loss.
    pub value_loss_weight: f64,
    /// AlphaFive's late-position weighting: a position k moves before the end of its game
    /// weighs `late_position_factor^k` (0.94 there); 0 turns it off.
    pub late_position_factor: f32,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            optimizer: OptimizerKind::Adam,
            learning_rate: 1e-3,
            momentum: 0.9,
            weight_decay: 1e-4,
            batch_size: 256,
            value_loss_weight: 1.0,
            late_position_factor: 0.0,
        }
    }
}

impl TrainConfig {
    pub fn validate(&self) -> Result<(), String> {
        if !(self.learning_rate > 0.0 && self.learning_rate < 10.0) {
            return Err(format!("train.learning_rate = {} must be within (0, 10)", self.learning_rate));
        }
        if !(0.0..1.0).contains(&self.momentum) {
            return Err(format!("train.momentum = {} must be within 0..1", self.momentum));
        }
        if !(self.weight_decay >= 0.0 && self.weight_decay < 1.0) {
            return Err(format!("train.weight_decay = {} must be within 0..1", self.weight_decay));
        }
        if self.batch_size == 0 {
            return Err("train.batch_size must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.late_position_factor) {
            return Err(format!("train.late_position_factor = {} must be within 0..=1", self.late_position_factor));
        }
        Ok(())
    }
}

/// A batch of training samples laid out for the network.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub len: usize,
    /// `len × input_len` planes.
    pub planes: Vec<f32>,
    /// `len × actions` policy targets (each row sums to 1 over legal moves).
    pub policy: Vec<f32>,
    /// `len` value targets from the side to move's view.
    pub value: Vec<f32>,
    /// `len` sample weights.
    pub weight: Vec<f32>,
}

impl Batch {
    /// Appends position `index` of `game` under symmetry `sym`.
    pub fn push<G: Game>(
        &mut self,
        game: &TrainingGame<G>,
        index: usize,
        sym: usize,
        opts: &SampleOptions,
    ) -> Result<(), RecordError> {
        let (p0, q0) = (self.planes.len(), self.policy.len());
        self.planes.resize(p0 + game.plane_shape().len(), 0.0);
        self.policy.resize(q0 + game.num_actions(), 0.0);
        match game.write_sample(index, sym, opts, &mut self.planes[p0..], &mut self.policy[q0..]) {
            Ok(t) => {
                self.value.push(t.value);
                self.weight.push(t.weight);
                self.len += 1;
                Ok(())
            }
            Err(e) => {
                self.planes.truncate(p0);
                self.policy.truncate(q0);
                Err(e)
            }
        }
    }

    pub fn clear(&mut self) {
        self.len = 0;
        self.planes.clear();
        self.policy.clear();
        self.value.clear();
        self.weight.clear();
    }
}

/// Losses of one step (unweighted means, for curves), and the policy's entropy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Losses {
    pub policy: f64,
    pub value: f64,
    /// The weighted objective that was minimised (without the L2 term).
    pub total: f64,
    pub entropy: f64,
}

/// Owns a model and its optimizer.
pub struct Trainer {
    pub model: Model,
    pub config: TrainConfig,
    optimizer: nn::Optimizer,
    pub step: u64,
}

impl Trainer {
    pub fn new(model: Model, config: TrainConfig) -> Result<Trainer, String> {
        config.validate()?;
        let optimizer = match config.optimizer {
            OptimizerKind::Sgd => nn::Sgd { momentum: config.momentum, wd: config.weight_decay, ..Default::default() }
                .build(&model.vs, config.learning_rate),
            OptimizerKind::Adam => {
                nn::Adam { wd: config.weight_decay, ..Default::default() }.build(&model.vs, config.learning_rate)
            }
        }
        .map_err(|e| format!("cannot build the optimizer: {e}"))?;
        Ok(Trainer { model, config, optimizer, step: 0 })
    }

    pub fn set_learning_rate(&mut self, lr: f64) {
        self.optimizer.set_lr(lr);
    }

    /// One gradient step on `batch`.
    pub fn train_step(&mut self, batch: &Batch) -> Losses {
        let arch = self.model.arch().clone();
        let n = batch.len as i64;
        let device = self.model.device();
        let xs = Tensor::from_slice(&batch.planes)
            .view([n, arch.input_channels as i64, arch.height as i64, arch.width as i64])
            .to_device(device);
        let target_p = Tensor::from_slice(&batch.policy).view([n, arch.actions as i64]).to_device(device);
        let target_v = Tensor::from_slice(&batch.value).to_device(device);
        let w = Tensor::from_slice(&batch.weight).to_device(device);
        // Normalised to mean 1 so the learning rate means the same with or without weights.
        let w = &w / w.mean(Kind::Float).clamp_min(1e-8);
        let (logits, v) = self.model.net.forward(&xs, true);
        let log_p = logits.log_softmax(1, Kind::Float);
        let policy_each = -(&target_p * &log_p).sum_dim_intlist(1, false, Kind::Float);
        let value_each = (&v - &target_v).square();
        let total = (&policy_each * &w).mean(Kind::Float)
            + (&value_each * &w).mean(Kind::Float) * self.config.value_loss_weight;
        self.optimizer.backward_step(&total);
        self.step += 1;
        let (policy, value, entropy) = tch::no_grad(|| {
            let entropy = -(log_p.exp() * &log_p).sum_dim_intlist(1, false, Kind::Float).mean(Kind::Float);
            (policy_each.mean(Kind::Float), value_each.mean(Kind::Float), entropy)
        });
        Losses {
            policy: policy.double_value(&[]),
            value: value.double_value(&[]),
            total: total.double_value(&[]),
            entropy: entropy.double_value(&[]),
        }
    }

    /// Losses on `batch` without training (batch norm in inference mode).
    pub fn evaluate(&self, batch: &Batch) -> Losses {
        let arch = self.model.arch();
        let n = batch.len as i64;
        let device = self.model.device();
        tch::no_grad(|| {
            let xs = Tensor::from_slice(&batch.planes)
                .view([n, arch.input_channels as i64, arch.height as i64, arch.width as i64])
                .to_device(device);
            let target_p = Tensor::from_slice(&batch.policy).view([n, arch.actions as i64]).to_device(device);
            let target_v = Tensor::from_slice(&batch.value).to_device(device);
            let (logits, v) = self.model.net.forward(&xs, false);
            let log_p = logits.log_softmax(1, Kind::Float);
            let policy = -(&target_p * &log_p).sum_dim_intlist(1, false, Kind::Float).mean(Kind::Float);
            let value = v.mse_loss(&target_v, Reduction::Mean);
            let entropy = -(log_p.exp() * &log_p).sum_dim_intlist(1, false, Kind::Float).mean(Kind::Float);
            let p = policy.double_value(&[]);
            let val = value.double_value(&[]);
            Losses {
                policy: p,
                value: val,
                total: p + self.config.value_loss_weight * val,
                entropy: entropy.double_value(&[]),
            }
        })
    }
}
