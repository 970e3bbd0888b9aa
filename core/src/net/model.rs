//! The policy/value ResNet.
//!
//! Trunk: a 3×3 convolution, then `blocks` residual blocks of two 3×3 convolutions with
//! `channels` filters. Policy head: 1×1 convolution to 2 planes, then a linear layer to one
//! logit per action (illegal actions are masked by the search and the loss, not here).
//! Value head: 1×1 convolution to 1 plane, a hidden linear layer, tanh: the expected result
//! in [-1, 1] for the side to move.
//!
//! Batch norm after every convolution: it lets the trainer use a high learning rate from a
//! random start, which matters when training runs for minutes, not days; at inference it
//! is a fixed affine map using the running statistics (`train = false`).

use crate::game::{Game, GameSpec};
use serde::{Deserialize, Serialize};
use tch::nn::{self, ModuleT};
use tch::{Device, Kind, Tensor};

/// The network's shape: everything needed to rebuild it around stored weights.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Architecture {
    pub game: GameSpec,
    pub blocks: usize,
    pub channels: usize,
    pub input_channels: usize,
    pub height: usize,
    pub width: usize,
    pub actions: usize,
    /// Hidden units of the value head.
    pub value_hidden: usize,
}

impl Architecture {
    /// The architecture for `game`'s board with a `blocks × channels` trunk.
    pub fn for_game<G: Game>(game: &G, blocks: usize, channels: usize) -> Architecture {
        let shape = game.plane_shape();
        Architecture {
            game: game.spec(),
            blocks,
            channels,
            input_channels: shape.channels,
            height: shape.height,
            width: shape.width,
            actions: game.num_actions(),
            value_hidden: 64,
        }
    }

    pub fn input_len(&self) -> usize {
        self.input_channels * self.height * self.width
    }

    /// Checks sizes a user could have typed wrong.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=64).contains(&self.blocks) {
            return Err(format!("blocks = {} must be within 1..=64", self.blocks));
        }
        if !(1..=1024).contains(&self.channels) {
            return Err(format!("channels = {} must be within 1..=1024", self.channels));
        }
        self.check_input_matches_game()
    }

    /// The input planes and move space must be the ones the game encodes today: a
    /// checkpoint from a build whose planes differed would otherwise feed the network
    /// tensors of the wrong shape.
    fn check_input_matches_game(&self) -> Result<(), String> {
        let Ok(start) = self.game.start() else {
            return Ok(()); // a spec that draws its board per game has no one shape to check
        };
        let (shape, actions) = crate::with_game!(&start, g => (g.plane_shape(), g.num_actions()));
        let ours = (self.input_channels, self.height, self.width, self.actions);
        let game = (shape.channels, shape.height, shape.width, actions);
        if ours != game {
            return Err(format!(
                "the network takes {} input planes of {}x{} and {} moves, but {} is encoded as {} planes \
                 of {}x{} with {} moves (a checkpoint from an older dojo with other input planes?)",
                ours.0, ours.2, ours.1, ours.3, self.game, game.0, game.2, game.1, game.3
            ));
        }
        Ok(())
    }

    /// Multiply-adds per position (for throughput reports).
    pub fn flops_per_eval(&self) -> f64 {
        let cells = (self.height * self.width) as f64;
        let c = self.channels as f64;
        let conv = 9.0 * c * c * cells;
        2.0 * (9.0 * self.input_channels as f64 * c * cells + 2.0 * self.blocks as f64 * conv)
    }
}

/// The batch norms' epsilon (libtorch's default), named so the folded inference network
/// ([`super::folded`]) divides by exactly what the batch norm does.
pub(crate) const BN_EPS: f64 = 1e-5;

#[derive(Debug)]
pub(crate) struct ConvBn {
    pub(crate) conv: nn::Conv2D,
    pub(crate) bn: nn::BatchNorm,
}

impl ConvBn {
    fn new(p: nn::Path, cin: i64, cout: i64, k: i64) -> ConvBn {
        let cfg = nn::ConvConfig { padding: k / 2, bias: false, ..Default::default() };
        let bn = nn::BatchNormConfig { eps: BN_EPS, ..Default::default() };
        ConvBn { conv: nn::conv2d(&p / "conv", cin, cout, k, cfg), bn: nn::batch_norm2d(&p / "bn", cout, bn) }
    }

    fn forward(&self, xs: &Tensor, train: bool) -> Tensor {
        xs.apply(&self.conv).apply_t(&self.bn, train)
    }
}

/// The network; its weights live in the [`nn::VarStore`] it was built in.
#[derive(Debug)]
pub struct Network {
    pub arch: Architecture,
    pub(crate) stem: ConvBn,
    pub(crate) blocks: Vec<(ConvBn, ConvBn)>,
    pub(crate) policy_conv: ConvBn,
    pub(crate) policy_fc: nn::Linear,
    pub(crate) value_conv: ConvBn,
    pub(crate) value_fc1: nn::Linear,
    pub(crate) value_fc2: nn::Linear,
}

impl Network {
    /// Builds the layers (randomly initialised) under `root`.
    pub fn new(root: &nn::Path, arch: Architecture) -> Network {
        let c = arch.channels as i64;
        let cells = (arch.height * arch.width) as i64;
        let stem = ConvBn::new(root / "stem", arch.input_channels as i64, c, 3);
        let blocks = (0..arch.blocks)
            .map(|i| {
                let p = root / format!("block{i}");
                (ConvBn::new(&p / "a", c, c, 3), ConvBn::new(&p / "b", c, c, 3))
            })
            .collect();
        let policy_conv = ConvBn::new(root / "policy", c, 2, 1);
        let policy_fc = nn::linear(root / "policy" / "fc", 2 * cells, arch.actions as i64, Default::default());
        let value_conv = ConvBn::new(root / "value", c, 1, 1);
        let value_fc1 = nn::linear(root / "value" / "fc1", cells, arch.value_hidden as i64, Default::default());
        let value_fc2 = nn::linear(root / "value" / "fc2", arch.value_hidden as i64, 1, Default::default());
        Network { arch, stem, blocks, policy_conv, policy_fc, value_conv, value_fc1, value_fc2 }
    }

    /// `xs`: [batch, input_channels, height, width]. Returns (policy logits [batch, actions],
    /// values [batch]).
    pub fn forward(&self, xs: &Tensor, train: bool) -> (Tensor, Tensor) {
        let mut x = self.stem.forward(xs, train).relu();
        for (a, b) in &self.blocks {
            let y = a.forward(&x, train).relu();
            x = (b.forward(&y, train) + x).relu();
        }
        let p = self.policy_conv.forward(&x, train).relu().flatten(1, -1).apply(&self.policy_fc);
        let v = self
            .value_conv
            .forward(&x, train)
            .relu()
            .flatten(1, -1)
            .apply(&self.value_fc1)
            .relu()
            .apply(&self.value_fc2)
            .tanh()
            .squeeze_dim(1);
        (p, v)
    }
}

impl ModuleT for Network {
    fn forward_t(&self, xs: &Tensor, train: bool) -> Tensor {
        let (p, v) = self.forward(xs, train);
        Tensor::cat(&[p, v.unsqueeze(1)], 1)
    }
}

/// A network with its own weights, on a device.
pub struct Model {
    pub vs: nn::VarStore,
    pub net: Network,
}

impl Model {
    /// A randomly initialised model.
    pub fn new(arch: Architecture, device: Device) -> Model {
        let vs = nn::VarStore::new(device);
        let net = Network::new(&vs.root(), arch);
        Model { vs, net }
    }

    pub fn arch(&self) -> &Architecture {
        &self.net.arch
    }

    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// Inference on a batch of input planes laid out back to back; writes logits and values.
    pub fn infer(&self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
        infer_with(self.arch(), self.device(), planes, batch, policy, value, |xs| self.net.forward(xs, false));
    }
}

/// Runs `forward` (logits, values) without gradients on a batch of input planes laid out
/// back to back, on `device`, and writes its outputs: what [`Model::infer`] and the folded
/// network share.
pub(crate) fn infer_with(
    a: &Architecture,
    device: Device,
    planes: &[f32],
    batch: usize,
    policy: &mut [f32],
    value: &mut [f32],
    forward: impl FnOnce(&Tensor) -> (Tensor, Tensor),
) {
    debug_assert_eq!(planes.len(), batch * a.input_len());
    let xs = Tensor::from_slice(planes)
        .view([batch as i64, a.input_channels as i64, a.height as i64, a.width as i64])
        .to_device(device);
    let (p, v) = tch::no_grad(|| forward(&xs));
    let p = p.to_device(Device::Cpu).to_kind(Kind::Float).contiguous();
    let v = v.to_device(Device::Cpu).to_kind(Kind::Float).contiguous();
    p.copy_data(&mut policy[..batch * a.actions], batch * a.actions);
    v.copy_data(&mut value[..batch], batch);
}
