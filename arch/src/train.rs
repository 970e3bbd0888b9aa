//! The trainer's settings as data: the update rule and its knobs. `dojo_net::train`
//! trains with them; a run's config holds them. One concept in two layers, hence one name:
//! the settings here (no libtorch), the trainer in `dojo_net::train`.

use crate::precision::{Precision, PrecisionChoice};
use dojo_base::util::SettingError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which update rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    Sgd,
    Adam,
}

impl OptimizerKind {
    pub fn name(self) -> &'static str {
        match self {
            OptimizerKind::Sgd => "sgd",
            OptimizerKind::Adam => "adam",
        }
    }

    /// A learning rate that suits this rule where none was chosen for it (1e-3 for Adam,
    /// 0.02 for SGD).
    pub fn default_learning_rate(self) -> f64 {
        match self {
            OptimizerKind::Sgd => 0.02,
            OptimizerKind::Adam => 1e-3,
        }
    }

    /// The per-variable buffers this rule keeps, in order.
    pub fn buffers(self) -> &'static [&'static str] {
        match self {
            OptimizerKind::Sgd => &["momentum"],
            OptimizerKind::Adam => &["exp_avg", "exp_avg_sq"],
        }
    }
}

impl std::str::FromStr for OptimizerKind {
    type Err = SettingError;
    fn from_str(text: &str) -> Result<OptimizerKind, Self::Err> {
        match text {
            "sgd" => Ok(OptimizerKind::Sgd),
            "adam" => Ok(OptimizerKind::Adam),
            _ => Err(SettingError::not_a_choice("optimizer", text, "sgd or adam")),
        }
    }
}

impl fmt::Display for OptimizerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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
    /// Weight of KataGo's auxiliary target, the opponent's reply: the search's policy at
    /// the next move (the move played where that move had no full search). 0 = off; a run
    /// started with it on has the head ([`crate::architecture::AuxHeads`]). KataGo: 0.15.
    pub opponent_policy_weight: f64,
    /// Weight of KataGo's soft policy target: the policy target to the power 1/4,
    /// renormalised, which keeps the moves the search liked less apart from each other.
    /// 0 = off; as above. KataGo: 8.
    pub soft_policy_weight: f64,
    /// The format the training step computes in: `f32`; `bf16`, mixed precision (the
    /// weights, the optimizer and the losses stay f32; convolutions and batch norms run in
    /// bf16, as PyTorch's autocast runs them); or `auto` (the default), bf16 where it is at
    /// least 1.2× f32 by a timing of this network when training starts (cached per
    /// machine), else f32. f16 is not offered: it needs loss scaling.
    pub precision: PrecisionChoice,
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
            opponent_policy_weight: 0.0,
            soft_policy_weight: 0.0,
            precision: PrecisionChoice::Auto,
        }
    }
}

impl TrainConfig {
    pub fn validate(&self) -> Result<(), SettingError> {
        let lr = self.learning_rate;
        SettingError::check(lr > 0.0 && lr < 10.0, "train.learning_rate", lr, "within (0, 10)")?;
        let momentum = self.momentum;
        SettingError::check((0.0..1.0).contains(&momentum), "train.momentum", momentum, "within 0..1")?;
        let decay = self.weight_decay;
        SettingError::check((0.0..1.0).contains(&decay), "train.weight_decay", decay, "within 0..1")?;
        for (key, weight) in [
            ("train.opponent_policy_weight", self.opponent_policy_weight),
            ("train.soft_policy_weight", self.soft_policy_weight),
        ] {
            SettingError::check((0.0..=100.0).contains(&weight), key, weight, "within 0..=100")?;
        }
        if self.precision == PrecisionChoice::Fixed(Precision::F16) {
            return Err(SettingError::not_a_choice(
                "train.precision",
                "f16",
                "auto, f32 or bf16 (f16 needs loss scaling, which the trainer does not do)",
            ));
        }
        if self.batch_size == 0 {
            return Err(SettingError::Zero { key: "train.batch_size" });
        }
        Ok(())
    }
}
