//! The policy/value ResNet.
//!
//! Trunk: a 3×3 convolution, then `blocks` residual blocks of two 3×3 convolutions with
//! `channels` filters. Policy head, one of two ([`PolicyHead`]): AlphaZero's 1×1 convolution
//! to 2 planes and a linear layer to one logit per action, or, where the moves are the
//! board's cells (Gomoku), KataGo's fully convolutional head: 1×1 convolutions down to one
//! logit per cell, the same weights at every cell (illegal actions are masked by the search
//! and the loss, not here).
//! Value head: 1×1 convolution to 1 plane, a hidden linear layer, tanh: the expected result
//! in [-1, 1] for the side to move.
//! Auxiliary policy heads ([`AuxHeads`], training only): a last layer of their own over
//! the policy head's features, the same kind as the policy's.
//!
//! Batch norm after every convolution: it lets the trainer use a high learning rate from a
//! random start, which matters when training runs for minutes, not days; at inference it
//! is a fixed affine map using the running statistics (`train = false`).
//!
//! The network computes in the kind of its input: f32, or bf16 for mixed-precision
//! training ([`crate::train`]). The weights stay f32 either way (the optimizer's): each
//! convolution and linear layer casts its weights to the input's kind for the product, and
//! the batch norms take bf16 activations with their f32 statistics, as PyTorch's autocast
//! does on a CPU. The cast of an f32 weight for an f32 input is no copy.

use super::any_size;
use crate::device::Device;
use dojo_arch::architecture::{Architecture, PolicyHead};
use tch::nn::{self, ModuleT};
use tch::{Kind, Tensor};

/// A batch of input planes laid out back to back, `batch` positions of as many planes
/// as the game encodes, as the network's input tensor: the first `input_channels`
/// planes of each, which is all of them unless the network is from a build that encoded
/// fewer.
pub fn input_tensor(arch: &Architecture, planes: &[f32], batch: usize) -> Tensor {
    let (b, cells) = (batch as i64, (arch.height * arch.width) as i64);
    let xs = Tensor::from_slice(planes);
    let encoded = if batch == 0 { arch.input_channels as i64 } else { xs.size()[0] / (b * cells) };
    let xs = xs.view([b, encoded, arch.height as i64, arch.width as i64]);
    if encoded == arch.input_channels as i64 {
        xs
    } else {
        xs.narrow(1, 0, arch.input_channels as i64)
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

    fn forward(&self, xs: &Tensor, train: bool, kind: Kind) -> Tensor {
        conv(&self.conv, xs, kind).apply_t(&self.bn, train)
    }

    /// On an any-size network: the output masked, and in training the batch statistics
    /// taken over the board's cells only.
    fn forward_masked(&self, xs: &Tensor, mask: &Tensor, train: bool, kind: Kind) -> Tensor {
        if train {
            any_size::masked_batch_norm(&conv(&self.conv, xs, kind), mask, &self.bn, BN_EPS)
        } else {
            self.forward(xs, false, kind) * mask
        }
    }
}

/// One of this network's convolutions (stride 1, padded to keep the board's size: all of
/// them are) computed in `kind`, its weights cast for the product.
fn conv(c: &nn::Conv2D, xs: &Tensor, kind: Kind) -> Tensor {
    let pad = c.ws.size()[2] / 2;
    let bias = c.bs.as_ref().map(|b| b.to_kind(kind));
    xs.to_kind(kind).conv2d(&c.ws.to_kind(kind), bias.as_ref(), [1, 1], [pad, pad], [1, 1], 1)
}

/// A linear layer computed in `kind`, its weights cast for the product.
fn linear(l: &nn::Linear, xs: &Tensor, kind: Kind) -> Tensor {
    let bias = l.bs.as_ref().map(|b| b.to_kind(kind));
    xs.to_kind(kind).linear(&l.ws.to_kind(kind), bias.as_ref())
}

/// The policy head's last layer.
#[derive(Debug)]
pub(crate) enum PolicyOut {
    /// From the 2 policy planes of every cell to every action.
    Fc(nn::Linear),
    /// From the policy planes of a cell to that cell's logit (1×1, with bias).
    Conv(nn::Conv2D),
    /// The globally pooled trunk to a bias per policy channel, then a cell's channels to its
    /// logit (1×1), read per column or point ([`any_size::policy_logits`]).
    Pooled { global: nn::Linear, out: nn::Conv2D },
}

/// The network; its weights live in the [`nn::VarStore`] it was built in.
#[derive(Debug)]
pub struct Network {
    pub arch: Architecture,
    pub(crate) stem: ConvBn,
    pub(crate) blocks: Vec<(ConvBn, ConvBn)>,
    pub(crate) policy_conv: ConvBn,
    pub(crate) policy_out: PolicyOut,
    pub(crate) value_conv: ConvBn,
    pub(crate) value_fc1: nn::Linear,
    pub(crate) value_fc2: nn::Linear,
    /// The training-only policy outputs ([`AuxHeads`]), each a last layer like
    /// `policy_out` over the same policy features.
    opponent_out: Option<PolicyOut>,
    soft_out: Option<PolicyOut>,
}

/// Everything the network outputs for a batch: what play reads (policy logits
/// [batch, actions], values [batch]) and, when asked for, the auxiliary heads' logits.
pub struct Heads {
    pub policy: Tensor,
    pub value: Tensor,
    pub opponent_policy: Option<Tensor>,
    pub soft_policy: Option<Tensor>,
}

/// The trunk's output: its features, and on an any-size network the board's mask.
struct Trunk {
    x: Tensor,
    mask: Option<Tensor>,
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
        let policy_conv = match arch.policy_head {
            PolicyHead::Fc => ConvBn::new(root / "policy", c, 2, 1),
            PolicyHead::Conv | PolicyHead::Column | PolicyHead::Point => ConvBn::new(root / "policy", c, c, 1),
        };
        let policy_out = Network::policy_out(&(root / "policy"), &arch);
        // An any-size network pools its value channels over the board instead of reading
        // each cell: as many inputs to the hidden layer on every board.
        let (value_planes, value_inputs) = if arch.any_size { (c, any_size::POOLED * c) } else { (1, cells) };
        let value_conv = ConvBn::new(root / "value", c, value_planes, 1);
        let value_fc1 = nn::linear(root / "value" / "fc1", value_inputs, arch.value_hidden as i64, Default::default());
        let value_fc2 = nn::linear(root / "value" / "fc2", arch.value_hidden as i64, 1, Default::default());
        // Built last, so the variables of a network without them are created as before.
        let opponent_out =
            arch.aux_heads.opponent_policy.then(|| Network::policy_out(&(root / "opponent_policy"), &arch));
        let soft_out = arch.aux_heads.soft_policy.then(|| Network::policy_out(&(root / "soft_policy"), &arch));
        Network {
            arch,
            stem,
            blocks,
            policy_conv,
            policy_out,
            value_conv,
            value_fc1,
            value_fc2,
            opponent_out,
            soft_out,
        }
    }

    /// The last layer(s) of a policy output under `p`, from the policy features to a logit
    /// per action: the policy's own, and each auxiliary head's.
    fn policy_out(p: &nn::Path, arch: &Architecture) -> PolicyOut {
        let c = arch.channels as i64;
        let cells = (arch.height * arch.width) as i64;
        match arch.policy_head {
            PolicyHead::Fc => PolicyOut::Fc(nn::linear(p / "fc", 2 * cells, arch.actions as i64, Default::default())),
            PolicyHead::Conv => PolicyOut::Conv(nn::conv2d(p / "out", c, 1, 1, Default::default())),
            PolicyHead::Column | PolicyHead::Point => PolicyOut::Pooled {
                global: nn::linear(p / "global", any_size::POOLED * c, c, Default::default()),
                out: nn::conv2d(p / "out", c, 1, 1, Default::default()),
            },
        }
    }

    /// `xs`: [batch, input_channels, height, width]. Returns (policy logits [batch, actions],
    /// values [batch]).
    pub fn forward(&self, xs: &Tensor, train: bool) -> (Tensor, Tensor) {
        let heads = self.forward_heads(xs, train, false);
        (heads.policy, heads.value)
    }

    /// [`Network::forward`], with the auxiliary heads' logits where `aux` asks for them and
    /// the network has them. The outputs are in the kind of `xs`.
    pub fn forward_heads(&self, xs: &Tensor, train: bool, aux: bool) -> Heads {
        let kind = xs.kind();
        let trunk = self.trunk(xs, train, kind);
        let features = match &trunk.mask {
            // The any-size head's features are not yet ReLU'd: its global pooling reads them.
            Some(mask) => self.policy_conv.forward_masked(&trunk.x, mask, train, kind),
            None => self.policy_conv.forward(&trunk.x, train, kind).relu(),
        };
        let logits = |out: &PolicyOut| self.policy_logits(out, &features, &trunk, xs, kind);
        let policy = logits(&self.policy_out);
        let opponent_policy = self.opponent_out.as_ref().filter(|_| aux).map(logits);
        let soft_policy = self.soft_out.as_ref().filter(|_| aux).map(logits);
        let value = match &trunk.mask {
            Some(mask) => {
                let v = self.value_conv.forward_masked(&trunk.x, mask, train, kind).relu();
                linear(&self.value_fc1, &any_size::pool(&v, mask), kind)
            }
            None => {
                linear(&self.value_fc1, &self.value_conv.forward(&trunk.x, train, kind).relu().flatten(1, -1), kind)
            }
        };
        let value = linear(&self.value_fc2, &value.relu(), kind).tanh().squeeze_dim(1);
        Heads { policy, value, opponent_policy, soft_policy }
    }

    /// The residual trunk; an any-size network ([`any_size`]) masks every layer to the
    /// board.
    fn trunk(&self, xs: &Tensor, train: bool, kind: Kind) -> Trunk {
        let Some(board) = self.arch.policy_head.any_size_board().filter(|_| self.arch.any_size) else {
            let mut x = self.stem.forward(xs, train, kind).relu();
            for (a, b) in &self.blocks {
                let y = a.forward(&x, train, kind).relu();
                x = (b.forward(&y, train, kind) + x).relu();
            }
            return Trunk { x, mask: None };
        };
        let mask = any_size::mask(board, xs);
        let mut x = self.stem.forward_masked(&(xs * &mask), &mask, train, kind).relu();
        for (a, b) in &self.blocks {
            let y = a.forward_masked(&x, &mask, train, kind).relu();
            x = (b.forward_masked(&y, &mask, train, kind) + x).relu();
        }
        Trunk { x, mask: Some(mask) }
    }

    /// One policy output's logits from the policy features.
    fn policy_logits(&self, out: &PolicyOut, features: &Tensor, trunk: &Trunk, xs: &Tensor, kind: Kind) -> Tensor {
        match (out, &trunk.mask) {
            (PolicyOut::Fc(fc), None) => linear(fc, &features.flatten(1, -1), kind),
            (PolicyOut::Conv(c), None) => conv(c, features, kind).flatten(1, -1),
            (PolicyOut::Pooled { global, out }, Some(mask)) => {
                let board = self.arch.policy_head.any_size_board().expect("an any-size network (validated)");
                let (global, out) = (|g: &Tensor| linear(global, g, kind), |p: &Tensor| conv(out, p, kind));
                any_size::policy_logits(board, features, &trunk.x, mask, xs, global, out)
            }
            _ => unreachable!("a pooled head is any-size, and an any-size network's head is pooled (validated)"),
        }
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
        let vs = nn::VarStore::new(device.into());
        let net = Network::new(&vs.root(), arch);
        Model { vs, net }
    }

    /// A model initialised from `seed`: the same seed, architecture and device give the same
    /// weights (libtorch's generator is seeded, so the draws that follow depend on it too).
    pub fn seeded(arch: Architecture, device: Device, seed: i64) -> Model {
        tch::manual_seed(seed);
        Model::new(arch, device)
    }

    pub fn arch(&self) -> &Architecture {
        &self.net.arch
    }

    /// The Euclidean distance between this model's trained weights and `other`'s, of the
    /// same architecture (batch-norm statistics, which every training forward pass moves
    /// whatever the learning rate, left out); NaN where `other` lacks a weight or holds it
    /// in another shape.
    pub fn weight_distance(&self, other: &Model) -> f64 {
        let theirs = other.vs.variables();
        let trained = self.vs.variables().into_iter().filter(|(name, _)| !name.contains("running_"));
        let square = |(name, t): (String, Tensor)| match theirs.get(&name) {
            Some(u) if u.size() == t.size() => {
                (&t - u.to_device(t.device())).square().sum(Kind::Double).double_value(&[])
            }
            _ => f64::NAN,
        };
        trained.map(square).sum::<f64>().sqrt()
    }

    pub fn device(&self) -> Device {
        self.vs.device().into()
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
    super::denormals::flush_to_zero();
    let xs = input_tensor(a, planes, batch).to_device(device.into());
    let (p, v) = tch::no_grad(|| forward(&xs));
    let p = p.to_device(tch::Device::Cpu).to_kind(Kind::Float).contiguous();
    let v = v.to_device(tch::Device::Cpu).to_kind(Kind::Float).contiguous();
    p.copy_data(&mut policy[..batch * a.actions], batch * a.actions);
    v.copy_data(&mut value[..batch], batch);
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::connect4::Connect4;

    #[test]
    fn weight_distance_is_zero_to_itself_and_nan_across_shapes() {
        crate::device::set_threads(1);
        let arch = |channels| Architecture::for_game(&Connect4::<u64>::standard(), 1, channels);
        let (a, b) = (Model::new(arch(8), Device::Cpu), Model::new(arch(8), Device::Cpu));
        assert_eq!(a.weight_distance(&a), 0.0);
        let (ab, ba) = (a.weight_distance(&b), b.weight_distance(&a));
        assert!(ab > 0.0 && (ab - ba).abs() < 1e-9 * ab, "{ab} {ba}");
        assert!(a.weight_distance(&Model::new(arch(16), Device::Cpu)).is_nan());
    }
}
