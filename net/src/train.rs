//! One training step: policy cross-entropy + value MSE (+ L2 through the optimizer's weight
//! decay, + KataGo's auxiliary policy targets where they are on), per-sample weights, SGD
//! with momentum or Adam; the optimizer's state can be saved next to a checkpoint and
//! restored on restart.
//!
//! A step computes in f32 or, with `train.precision = bf16`, in mixed precision: the input
//! and so the network's layers in bf16 ([`super::model`]), the weights, their gradients,
//! the optimizer and the losses in f32. On a CPU with AMX that trained a 15×15 Gomoku
//! network 2-3 times faster (docs/training.md); `auto`, the default, times both on the
//! network being trained and keeps bf16 where it pays (the choice cached per machine).
//!
//! The trainer's settings (`TrainConfig`, `OptimizerKind`) are `dojo_arch::train`: one
//! concept in two layers, hence one name.

use super::autotune::{cache_key, DecisionCache};
use super::device::Device;
use super::model::Model;
use super::optim::{OptimError, Optimizer, OptimizerConfig, StateFormatError};
use super::precision::tensor_kind;
use super::timing::sample_planes;
use dojo_arch::architecture::{Architecture, AuxHeads};
use dojo_arch::precision::{Precision, PrecisionChoice};
use dojo_base::util::{atomic_write, SettingError};
use dojo_game::Game;
use dojo_record::{RecordError, SampleOptions, TrainingGame};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tch::{Kind, Tensor};

use dojo_arch::train::{OptimizerKind, TrainConfig};

/// Metadata key of the trainer's step in a state file.
const STEP_KEY: &str = "trainer_step";

/// Why a trainer cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A `train.*` setting outside its range.
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// The optimizer refused its settings or could not allocate its state (its error is in
    /// the message, not also a source, so a report does not print it twice).
    #[error("cannot build the optimizer: {0}")]
    Optimizer(OptimError),
    /// An auxiliary target switched on for a network built without its head: the heads are
    /// part of the network's shape, made when a run starts.
    #[error(
        "{key} is {weight}, but this network has no {head} head (a run gets one when it starts with the weight above 0; \
         set it to 0 to go on with this network)"
    )]
    NoAuxHead { key: &'static str, weight: f64, head: &'static str },
}

/// A batch of training samples laid out for the network.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub len: usize,
    /// `len` positions' planes as the game encodes them (`Game::plane_shape().len()` floats
    /// each; the network takes the first `input_channels` planes of each).
    pub planes: Vec<f32>,
    /// `len × actions` policy targets (each row sums to 1 over legal moves).
    pub policy: Vec<f32>,
    /// `len` value targets from the side to move's view.
    pub value: Vec<f32>,
    /// `len` sample weights.
    pub weight: Vec<f32>,
    /// Whether [`Batch::push`] writes the opponent's reply targets below (the trainer's
    /// `opponent_policy_weight` is on: [`Trainer::wants_opponent_policy`]).
    pub with_opponent_policy: bool,
    /// `len × actions` opponent's reply targets, or nothing without them.
    pub opponent_policy: Vec<f32>,
    /// `len` ones and zeros: whether the position has a reply to predict (the game's last
    /// move has none).
    pub has_opponent_policy: Vec<f32>,
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
        let written = game.write_sample(index, sym, opts, &mut self.planes[p0..], &mut self.policy[q0..]);
        let written = written.and_then(|t| {
            if self.with_opponent_policy {
                self.opponent_policy.resize(q0 + game.num_actions(), 0.0);
                let has = game.write_opponent_policy(index, sym, &mut self.opponent_policy[q0..])?;
                self.has_opponent_policy.push(if has { 1.0 } else { 0.0 });
            }
            Ok(t)
        });
        match written {
            Ok(t) => {
                self.value.push(t.value);
                self.weight.push(t.weight);
                self.len += 1;
                Ok(())
            }
            Err(e) => {
                self.planes.truncate(p0);
                self.policy.truncate(q0);
                self.opponent_policy.truncate(q0);
                self.has_opponent_policy.truncate(self.len);
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
        self.opponent_policy.clear();
        self.has_opponent_policy.clear();
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
    /// The auxiliary heads' cross-entropies ([`TrainConfig::opponent_policy_weight`],
    /// [`TrainConfig::soft_policy_weight`]); 0 where the head is off. The opponent's is
    /// the mean over positions that have a reply.
    #[serde(default)]
    pub opponent_policy: f64,
    #[serde(default)]
    pub soft_policy: f64,
}

impl Losses {
    /// The mean of a window of steps' losses (each step's, unweighted; its total the mean
    /// objective), as the learner's metrics and offline training report them; zeros for
    /// none.
    pub fn mean(window: &[Losses]) -> Losses {
        let n = window.len().max(1) as f64;
        let mean = |of: fn(&Losses) -> f64| window.iter().map(of).sum::<f64>() / n;
        Losses {
            policy: mean(|l| l.policy),
            value: mean(|l| l.value),
            total: mean(|l| l.total),
            entropy: mean(|l| l.entropy),
            opponent_policy: mean(|l| l.opponent_policy),
            soft_policy: mean(|l| l.soft_policy),
        }
    }
}

/// The formats `train.precision = auto` chooses between: f16 would need loss scaling.
const TRAINING_CANDIDATES: [Precision; 2] = [Precision::F32, Precision::Bf16];

/// How long `auto` times each format, after its warm-up.
const AUTO_BUDGET: Duration = Duration::from_millis(300);

/// The largest batch `auto` times: the ratio of the formats' speeds hardly changes above
/// it, and a large network's f32 steps on a full batch would hold up the start.
const AUTO_BATCH: usize = 64;

/// bf16 replaces f32 only when at least this much faster: its steps are not f32's to the
/// last bit, so a gain within the timing's noise is not worth them.
const AUTO_MIN_GAIN: f64 = 1.2;

/// `auto` stops timing a format whose first step took this many of f32's steps: it cannot
/// win, and emulated bf16 would hold up the start for many seconds.
const AUTO_GIVE_UP: f64 = 10.0;

/// ... but never before this: a first step also pays one-time costs (oneDNN compiles its
/// bf16 kernels then), which on a small network are many of its steps.
const AUTO_GIVE_UP_FLOOR: Duration = Duration::from_secs(1);

/// The format a trainer's steps compute in, and for `auto` the timings behind the choice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainingPrecision {
    pub chosen: Precision,
    /// Training steps a second of a fresh network of the trained one's shape, in each
    /// candidate format (at most [`AUTO_BATCH`] positions a step); empty for a named format.
    pub measured: Vec<(Precision, f64)>,
    /// The cache the timings were read from (None: a named format, or timed just now).
    #[serde(skip)]
    pub cached: Option<PathBuf>,
}

impl TrainingPrecision {
    /// `choice` for a model of `arch` on `device`: a named format as it is; `auto` the
    /// faster of f32 and bf16 by a timing of a fresh network of that shape, kept in `cache`
    /// (when given) for this CPU, device, thread count, network, optimizer and batch, so a
    /// learner that restarts, or the next run of that network, trains as the last did
    /// without timing again.
    pub fn choose(
        choice: PrecisionChoice,
        arch: &Architecture,
        device: Device,
        config: &TrainConfig,
        cache: Option<&DecisionCache>,
    ) -> Result<TrainingPrecision, TrainError> {
        if let PrecisionChoice::Fixed(chosen) = choice {
            return Ok(TrainingPrecision { chosen, measured: Vec::new(), cached: None });
        }
        let batch = config.batch_size.min(AUTO_BATCH);
        let measure = || TrainingPrecision::measure(arch, device, config, batch);
        let Some(cache) = cache else { return measure() };
        let key = format!(
            "training with {} | {}",
            config.optimizer,
            cache_key(arch, device, tch::get_num_threads(), &[batch])
        );
        let (decision, cached) = cache.get_or_measure(&key, measure)?;
        Ok(TrainingPrecision { cached: cached.then(|| cache.path().to_path_buf()), ..decision })
    }

    /// Times each candidate on a fresh network and keeps f32 unless bf16 pays
    /// [`AUTO_MIN_GAIN`]. A format whose first step takes [`AUTO_GIVE_UP`] times f32's
    /// step (and at least [`AUTO_GIVE_UP_FLOOR`]) is not timed further: bf16 emulated on a
    /// CPU without it ran ~80× slower.
    fn measure(
        arch: &Architecture,
        device: Device,
        config: &TrainConfig,
        batch: usize,
    ) -> Result<TrainingPrecision, TrainError> {
        let mut measured: Vec<(Precision, f64)> = Vec::new();
        for p in TRAINING_CANDIDATES {
            let timed = TrainConfig { precision: PrecisionChoice::Fixed(p), batch_size: batch, ..config.clone() };
            let give_up = measured
                .first()
                .map(|&(_, f32_rate)| Duration::from_secs_f64(AUTO_GIVE_UP / f32_rate).max(AUTO_GIVE_UP_FLOOR));
            let model = Model::new(arch.clone(), device);
            measured.push((p, timed_steps_per_s(model, timed, AUTO_BUDGET, give_up)?));
        }
        let rate = |p: Precision| measured.iter().find(|m| m.0 == p).map_or(0.0, |m| m.1);
        let bf16_pays = rate(Precision::Bf16) >= AUTO_MIN_GAIN * rate(Precision::F32);
        let chosen = if bf16_pays { Precision::Bf16 } else { Precision::F32 };
        Ok(TrainingPrecision { chosen, measured, cached: None })
    }
}

impl fmt::Display for TrainingPrecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "training in {}", self.chosen)?;
        if self.measured.is_empty() {
            return f.write_str(" (train.precision)");
        }
        let rates: Vec<String> = self.measured.iter().map(|(p, r)| format!("{p} {r:.2}")).collect();
        let from = self.cached.as_ref().map(|path| format!(", cached in {}", path.display())).unwrap_or_default();
        write!(f, " (auto{from}: steps/s of this network {})", rates.join(", "))
    }
}

/// Owns a model and its optimizer.
pub struct Trainer {
    pub model: Model,
    pub config: TrainConfig,
    optimizer: Optimizer,
    /// Training steps taken (from wherever the caller started counting; restored by
    /// [`Trainer::load_state`]).
    pub step: u64,
    /// `config.precision`, resolved.
    precision: TrainingPrecision,
}

impl Trainer {
    pub fn new(model: Model, config: TrainConfig) -> Result<Trainer, TrainError> {
        config.validate()?;
        let (has, wanted) = (model.arch().aux_heads, AuxHeads::for_training(&config));
        let heads = [
            (
                "train.opponent_policy_weight",
                config.opponent_policy_weight,
                wanted.opponent_policy && !has.opponent_policy,
                "opponent policy",
            ),
            (
                "train.soft_policy_weight",
                config.soft_policy_weight,
                wanted.soft_policy && !has.soft_policy,
                "soft policy",
            ),
        ];
        if let Some(&(key, weight, _, head)) = heads.iter().find(|h| h.2) {
            return Err(TrainError::NoAuxHead { key, weight, head });
        }
        let opt = match config.optimizer {
            OptimizerKind::Sgd => OptimizerConfig::sgd(config.momentum, config.weight_decay),
            OptimizerKind::Adam => OptimizerConfig::adam(config.weight_decay),
        };
        let optimizer = Optimizer::new(&model.vs, opt, config.learning_rate).map_err(TrainError::Optimizer)?;
        let cache = DecisionCache::default_location();
        let precision =
            TrainingPrecision::choose(config.precision, model.arch(), model.device(), &config, cache.as_ref())?;
        Ok(Trainer { model, config, optimizer, step: 0, precision })
    }

    /// The format the steps compute in, and why.
    pub fn precision(&self) -> &TrainingPrecision {
        &self.precision
    }

    /// Sets the learning rate of the following steps. A negative, NaN or infinite rate is
    /// ignored (the previous one stays); `TrainConfig::validate` bounds configured rates.
    pub fn set_learning_rate(&mut self, lr: f64) {
        let _ = self.optimizer.set_lr(lr);
    }

    /// Whether batches should carry the opponent's reply targets ([`Batch::with_opponent_policy`]).
    pub fn wants_opponent_policy(&self) -> bool {
        AuxHeads::for_training(&self.config).opponent_policy
    }

    pub fn optimizer(&self) -> &Optimizer {
        &self.optimizer
    }

    /// The optimizer state plus `step`, as safetensors bytes (see [`super::optim`]).
    pub fn state_bytes(&self) -> Result<Vec<u8>, OptimError> {
        self.optimizer.state_bytes_with(&[(STEP_KEY, self.step.to_string())])
    }

    /// Writes the optimizer state and `step` to `path` atomically.
    pub fn save_state(&self, path: &Path) -> Result<(), OptimError> {
        let bytes = self.state_bytes()?;
        atomic_write(path, &bytes).map_err(|error| OptimError::Io { path: path.to_path_buf(), error })
    }

    /// Restores the optimizer state and `step` from bytes written by [`Trainer::state_bytes`].
    /// On error nothing changes.
    pub fn load_state_bytes(&mut self, bytes: &[u8]) -> Result<(), OptimError> {
        let meta = Optimizer::state_metadata(bytes)?;
        let step = meta.get(STEP_KEY).ok_or(StateFormatError::NoKey { key: STEP_KEY })?;
        let step = step.parse::<u64>().map_err(|error| StateFormatError::BadKey {
            key: STEP_KEY,
            text: step.clone(),
            error,
        })?;
        self.optimizer.load_state(bytes)?;
        self.step = step;
        Ok(())
    }

    /// Restores the optimizer state and `step` from a file written by [`Trainer::save_state`].
    /// Errors name the file; on error nothing changes.
    pub fn load_state(&mut self, path: &Path) -> Result<(), OptimError> {
        let bytes = std::fs::read(path).map_err(|error| OptimError::Io { path: path.to_path_buf(), error })?;
        self.load_state_bytes(&bytes).map_err(|e| OptimError::File { path: path.to_path_buf(), error: Box::new(e) })
    }

    /// One gradient step on `batch`.
    pub fn train_step(&mut self, batch: &Batch) -> Losses {
        super::denormals::flush_to_zero();
        let terms = self.loss_terms(batch, true);
        // The loss always depends on the trainable weights, so a failure here is libtorch's
        // (out of memory and the like), which the old tch optimizer panicked on as well.
        if let Err(e) = self.optimizer.step(&terms.total) {
            panic!("training step {}: {e}", self.step + 1);
        }
        self.step += 1;
        tch::no_grad(|| terms.numbers())
    }

    /// The L2 term the weight decay minimises: `weight_decay / 2 × Σ w²` over the trainable
    /// weights (the optimizer adds its gradient, `weight_decay × w`, rather than the term).
    pub fn l2_term(&self) -> f64 {
        let squares: f64 = tch::no_grad(|| {
            self.model.vs.trainable_variables().iter().map(|v| v.square().sum(Kind::Double).double_value(&[])).sum()
        });
        self.config.weight_decay / 2.0 * squares
    }

    /// Losses on `batch` without training (batch norm in inference mode), every position
    /// weighing the same.
    pub fn evaluate(&self, batch: &Batch) -> Losses {
        tch::no_grad(|| self.loss_terms(batch, false).numbers())
    }

    /// The losses of the network on `batch`, as training and evaluation both count them:
    /// per position the policy's cross-entropy against its target and the value's squared
    /// error, and their total. In `training`, batch norm is in training mode and the total
    /// weighs each position by the batch's weights (normalised to mean 1, so the learning
    /// rate means the same with or without them); otherwise every position counts once.
    fn loss_terms(&self, batch: &Batch, training: bool) -> LossTerms {
        let arch = self.model.arch();
        let n = batch.len as i64;
        let device = self.model.vs.device();
        let rows = |data: &[f32]| Tensor::from_slice(data).view([n, arch.actions as i64]).to_device(device);
        let kind = tensor_kind(self.precision.chosen);
        let xs = super::model::input_tensor(arch, &batch.planes, batch.len).to_device(device).to_kind(kind);
        let target_p = rows(&batch.policy);
        let target_v = Tensor::from_slice(&batch.value).to_device(device);
        let (opponent_weight, soft_weight) = (self.config.opponent_policy_weight, self.config.soft_policy_weight);
        let wanted = AuxHeads::for_training(&self.config);
        let heads = self.model.net.forward_heads(&xs, training, !wanted.is_none());
        // The losses in f32 whatever the layers computed in (log_softmax casts first).
        let log_p = heads.policy.log_softmax(1, Kind::Float);
        let policy_each = cross_entropy(&target_p, &log_p);
        let value_each = (heads.value.to_kind(Kind::Float) - &target_v).square();
        // Each position's weight in the objective: in training the batch's weights,
        // normalised to mean 1 (so the learning rate means the same with or without them).
        let w = if training {
            let w = Tensor::from_slice(&batch.weight).to_device(device);
            &w / w.mean(Kind::Float).clamp_min(1e-8)
        } else {
            Tensor::ones([n], (Kind::Float, device))
        };
        let weighted = |each: &Tensor| (each * &w).mean(Kind::Float);
        let mut total = weighted(&policy_each) + weighted(&value_each) * self.config.value_loss_weight;
        let mut aux = AuxLosses::default();
        if let Some(logits) = heads.soft_policy.filter(|_| wanted.soft_policy) {
            // To the power 1/4, renormalised: zeros (illegal moves) stay zero.
            let soft = target_p.pow_tensor_scalar(0.25);
            let soft = &soft / soft.sum_dim_intlist(1, true, Kind::Float).clamp_min(1e-12);
            let each = cross_entropy(&soft, &logits.log_softmax(1, Kind::Float));
            total += weighted(&each) * soft_weight;
            aux.soft = Some(each.mean(Kind::Float));
        }
        if let Some(logits) = heads.opponent_policy.filter(|_| wanted.opponent_policy && batch.with_opponent_policy) {
            // Only positions with a reply count; their mean, not the batch's, is the loss.
            let has = Tensor::from_slice(&batch.has_opponent_policy).to_device(device);
            let each = cross_entropy(&rows(&batch.opponent_policy), &logits.log_softmax(1, Kind::Float)) * &has;
            let replies = has.sum(Kind::Float).clamp_min(1.0);
            total += (&each * &w).sum(Kind::Float) / &replies * opponent_weight;
            aux.opponent = Some(each.sum(Kind::Float) / replies);
        }
        LossTerms { policy_each, value_each, total, log_p, aux }
    }
}

/// Each position's cross-entropy of the log-probabilities `log_p` against the distribution
/// `target` ([batch, actions] both).
fn cross_entropy(target: &Tensor, log_p: &Tensor) -> Tensor {
    -(target * log_p).sum_dim_intlist(1, false, Kind::Float)
}

/// The auxiliary heads' mean losses, where they are on.
#[derive(Default)]
struct AuxLosses {
    opponent: Option<Tensor>,
    soft: Option<Tensor>,
}

/// What [`Trainer::loss_terms`] computed, still on the device.
struct LossTerms {
    policy_each: Tensor,
    value_each: Tensor,
    total: Tensor,
    log_p: Tensor,
    aux: AuxLosses,
}

impl LossTerms {
    /// The mean losses and the policy's entropy. The four numbers come back to the host in
    /// one copy: on a GPU each read is a wait for the device, and one per step is enough.
    fn numbers(&self) -> Losses {
        let entropy = -(self.log_p.exp() * &self.log_p).sum_dim_intlist(1, false, Kind::Float).mean(Kind::Float);
        let mean = |t: &Tensor| t.mean(Kind::Float);
        let device = entropy.device();
        let zero = || Tensor::zeros([], (Kind::Float, device));
        let aux = |t: &Option<Tensor>| t.as_ref().map_or_else(zero, Tensor::detach);
        let all = [
            mean(&self.policy_each),
            mean(&self.value_each),
            self.total.detach(),
            entropy,
            aux(&self.aux.opponent),
            aux(&self.aux.soft),
        ];
        let numbers = Tensor::stack(&all, 0).to_kind(Kind::Double).to_device(tch::Device::Cpu);
        let n = |i: i64| numbers.double_value(&[i]);
        Losses { policy: n(0), value: n(1), total: n(2), entropy: n(3), opponent_policy: n(4), soft_policy: n(5) }
    }
}

/// A training batch of `len` positions for `arch`: [`sample_planes`], uniform policy
/// targets, values alternating between a win and a loss, unit weights. The learner's speed
/// does not depend on what it learns.
pub fn sample_batch(arch: &Architecture, len: usize) -> Batch {
    Batch {
        len,
        planes: sample_planes(arch, len),
        policy: vec![1.0 / arch.actions as f32; len * arch.actions],
        value: (0..len).map(|i| if i % 2 == 0 { 1.0 } else { -1.0 }).collect(),
        weight: vec![1.0; len],
        ..Default::default()
    }
}

/// Training steps per second of `model` (consumed: training changes it) with `config` (its
/// batch size and optimizer): a few warm-up steps, then as many as fit `budget`. Each step
/// reads its losses back to the host, so on CUDA every step has finished when it is counted.
pub fn train_steps_per_s(model: Model, config: TrainConfig, budget: Duration) -> Result<f64, TrainError> {
    timed_steps_per_s(model, config, budget, None)
}

/// [`train_steps_per_s`], answering after the first step where that step took longer than
/// `give_up`.
fn timed_steps_per_s(
    model: Model,
    config: TrainConfig,
    budget: Duration,
    give_up: Option<Duration>,
) -> Result<f64, TrainError> {
    let batch = sample_batch(model.arch(), config.batch_size);
    let mut trainer = Trainer::new(model, config)?;
    let warm = Instant::now();
    for i in 0.. {
        trainer.train_step(&batch);
        if i == 0 && give_up.is_some_and(|limit| warm.elapsed() > limit) {
            return Ok(1.0 / warm.elapsed().as_secs_f64());
        }
        if i >= 2 && warm.elapsed() >= budget / 4 {
            break;
        }
    }
    let (start, mut steps) = (Instant::now(), 0u64);
    while steps < 3 || start.elapsed() < budget {
        trainer.train_step(&batch);
        steps += 1;
    }
    Ok(steps as f64 / start.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Device;
    use dojo_game::connect4::Connect4;

    #[test]
    fn training_steps_are_timed_on_a_sample_batch() {
        crate::device::set_threads(1);
        let game = Connect4::<u64>::standard();
        let arch = Architecture::for_game(&game, 1, 8);
        let batch = sample_batch(&arch, 5);
        assert_eq!((batch.len, batch.planes.len(), batch.policy.len()), (5, 5 * arch.input_len(), 5 * arch.actions));
        assert_eq!(batch.value, [1.0, -1.0, 1.0, -1.0, 1.0]);
        let config =
            TrainConfig { batch_size: 4, precision: PrecisionChoice::Fixed(Precision::F32), ..Default::default() };
        let rate = train_steps_per_s(Model::new(arch, Device::Cpu), config, Duration::from_millis(5)).unwrap();
        assert!(rate.is_finite() && rate > 0.0, "{rate}");
        let bad = TrainConfig { batch_size: 0, ..TrainConfig::default() };
        let err = train_steps_per_s(Model::new(Architecture::for_game(&game, 1, 8), Device::Cpu), bad, Duration::ZERO);
        assert_eq!(err.unwrap_err().to_string(), "train.batch_size must be at least 1");
    }

    #[test]
    fn a_format_slower_than_the_give_up_limit_is_timed_by_one_step() {
        crate::device::set_threads(1);
        let arch = Architecture::for_game(&Connect4::<u64>::standard(), 1, 8);
        let config =
            TrainConfig { batch_size: 4, precision: PrecisionChoice::Fixed(Precision::F32), ..Default::default() };
        // Without a limit the timing fills its budget; with a limit every step exceeds, it
        // answers after the first (a step of this network takes milliseconds).
        let budget = Duration::from_secs(20);
        let started = Instant::now();
        let rate =
            timed_steps_per_s(Model::new(arch.clone(), Device::Cpu), config.clone(), budget, Some(Duration::ZERO));
        assert!(rate.unwrap() > 0.0);
        assert!(started.elapsed() < budget / 4, "gave up after {:?}", started.elapsed());
        let started = Instant::now();
        timed_steps_per_s(Model::new(arch, Device::Cpu), config, Duration::from_millis(200), None).unwrap();
        assert!(started.elapsed() >= Duration::from_millis(200));
    }
}
