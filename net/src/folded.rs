//! The network prepared for inference only: what the search evaluates with.
//!
//! Two changes that leave the outputs as they are (up to float rounding) but cut the time
//! of a forward pass, measured with libtorch on one core, 3×32 net on Connect Four at the
//! self-play batch of about 55: 10.4 k evals/s as trained, 13.8 k with both.
//! - Every batch norm is folded into the convolution before it. At inference a batch norm
//!   is a fixed per-channel affine map, so `bn(conv(x)) = conv'(x) + b'` with the kernel
//!   scaled by `γ / sqrt(var + ε)` and `b' = β - mean · γ / sqrt(var + ε)`: one op per layer
//!   instead of two.
//! - Activations and kernels are kept channels-last (NHWC strides under the NCHW shape),
//!   libtorch's faster convolution path for these small boards with few channels.
//!
//! Self-play may also run it in bfloat16 ([`Precision`]): weights and activations are
//! converted after folding, which itself is done in f32.
//!
//! Built once per model version (workers swap models between games), so the folding costs
//! nothing per evaluation. Training keeps the real batch norms in [`super::model`].

use super::any_size;
use super::model::{infer_with, ConvBn, Model, PolicyOut, BN_EPS};
use crate::device::Device;
use dojo_arch::architecture::{Architecture, ArchitectureError};
use dojo_arch::precision::Precision;
use tch::{Kind, Tensor};

/// NCHW-shaped tensor with NHWC strides.
fn channels_last(t: &Tensor) -> Tensor {
    t.permute([0, 2, 3, 1]).contiguous().permute([0, 3, 1, 2])
}

/// A convolution with its batch norm folded in.
struct FoldedConv {
    weight: Tensor,
    bias: Tensor,
    padding: i64,
}

impl FoldedConv {
    fn new(layer: &ConvBn, kind: Kind) -> FoldedConv {
        let bn = &layer.bn;
        let (gamma, beta) = (bn.ws.as_ref(), bn.bs.as_ref());
        let inv_std = (&bn.running_var + BN_EPS).rsqrt();
        let scale = match gamma {
            Some(g) => g * &inv_std,
            None => inv_std,
        };
        let weight = &layer.conv.ws * scale.view([-1, 1, 1, 1]);
        // bn(conv(x) + c) = scale · conv(x) + (β + scale · (c - mean)).
        let shift = match &layer.conv.bs {
            Some(c) => (c - &bn.running_mean) * &scale,
            None => -(&bn.running_mean * &scale),
        };
        let bias = match beta {
            Some(b) => shift + b,
            None => shift,
        };
        FoldedConv::from_parts(&weight, &bias, kind)
    }

    /// A convolution without a batch norm after it, copied as it is.
    fn plain(conv: &tch::nn::Conv2D, kind: Kind) -> FoldedConv {
        let weight = conv.ws.detach().copy();
        let bias = match &conv.bs {
            Some(b) => b.detach().copy(),
            None => Tensor::zeros([weight.size()[0]], (weight.kind(), weight.device())),
        };
        FoldedConv::from_parts(&weight, &bias, kind)
    }

    /// The layer in `kind`, its kernel channels-last (the folding itself is done in f32).
    fn from_parts(weight: &Tensor, bias: &Tensor, kind: Kind) -> FoldedConv {
        let padding = weight.size()[2] / 2;
        FoldedConv { weight: channels_last(&weight.to_kind(kind)), bias: bias.to_kind(kind), padding }
    }

    fn forward(&self, xs: &Tensor) -> Tensor {
        xs.conv2d(&self.weight, Some(&self.bias), [1, 1], [self.padding, self.padding], [1, 1], 1)
    }
}

/// A linear layer's weights, copied from the model.
struct Linear {
    weight: Tensor,
    bias: Option<Tensor>,
}

impl Linear {
    fn new(l: &tch::nn::Linear, kind: Kind) -> Linear {
        // Copies, so that training the model later leaves this network as it was folded.
        let copy = |t: &Tensor| t.detach().to_kind(kind).copy();
        Linear { weight: copy(&l.ws), bias: l.bs.as_ref().map(copy) }
    }

    fn forward(&self, xs: &Tensor) -> Tensor {
        xs.linear(&self.weight, self.bias.as_ref())
    }
}

enum FoldedPolicyOut {
    Fc(Linear),
    Conv(FoldedConv),
    Pooled { global: Linear, out: FoldedConv },
}

/// The inference-only form of a [`Model`]: same outputs, fewer and faster ops.
pub struct FoldedNetwork {
    arch: Architecture,
    device: Device,
    precision: Precision,
    stem: FoldedConv,
    blocks: Vec<(FoldedConv, FoldedConv)>,
    policy_conv: FoldedConv,
    policy_out: FoldedPolicyOut,
    value_conv: FoldedConv,
    value_fc1: Linear,
    value_fc2: Linear,
}

impl FoldedNetwork {
    /// Folds `model`'s current weights, to run in `precision`. Later training of `model`
    /// does not reach this copy: fold again after changing the weights.
    pub fn new(model: &Model, precision: Precision) -> FoldedNetwork {
        let net = &model.net;
        let kind = super::precision::tensor_kind(precision);
        let conv = |layer: &ConvBn| FoldedConv::new(layer, kind);
        tch::no_grad(|| FoldedNetwork {
            arch: net.arch.clone(),
            device: model.device(),
            precision,
            stem: conv(&net.stem),
            blocks: net.blocks.iter().map(|(a, b)| (conv(a), conv(b))).collect(),
            policy_conv: conv(&net.policy_conv),
            policy_out: match &net.policy_out {
                PolicyOut::Fc(fc) => FoldedPolicyOut::Fc(Linear::new(fc, kind)),
                PolicyOut::Conv(c) => FoldedPolicyOut::Conv(FoldedConv::plain(c, kind)),
                PolicyOut::Pooled { global, out } => {
                    FoldedPolicyOut::Pooled { global: Linear::new(global, kind), out: FoldedConv::plain(out, kind) }
                }
            },
            value_conv: conv(&net.value_conv),
            value_fc1: Linear::new(&net.value_fc1, kind),
            value_fc2: Linear::new(&net.value_fc2, kind),
        })
    }

    pub fn arch(&self) -> &Architecture {
        &self.arch
    }

    pub fn precision(&self) -> Precision {
        self.precision
    }

    fn forward(&self, xs: &Tensor) -> (Tensor, Tensor) {
        // The outputs go back to f32 in `infer_with`.
        let xs = xs.to_kind(super::precision::tensor_kind(self.precision));
        if self.arch.any_size {
            return self.forward_any_size(&xs);
        }
        // ReLUs and the residual sums work in place on tensors nothing else holds: half the
        // allocations of a pass, and no extra pass over memory for each.
        let mut x = self.stem.forward(&channels_last(&xs));
        let _ = x.relu_();
        for (a, b) in &self.blocks {
            let mut y = a.forward(&x);
            let _ = y.relu_();
            let mut z = b.forward(&y);
            z += &x;
            let _ = z.relu_();
            x = z;
        }
        let mut p = self.policy_conv.forward(&x);
        let _ = p.relu_();
        let p = match &self.policy_out {
            FoldedPolicyOut::Fc(fc) => fc.forward(&p.flatten(1, -1)),
            FoldedPolicyOut::Conv(conv) => conv.forward(&p).flatten(1, -1),
            FoldedPolicyOut::Pooled { .. } => unreachable!("a pooled head is any-size (validated)"),
        };
        let mut v = self.value_conv.forward(&x);
        let _ = v.relu_();
        let mut hidden = self.value_fc1.forward(&v.flatten(1, -1));
        let _ = hidden.relu_();
        let v = self.value_fc2.forward(&hidden).tanh().squeeze_dim(1);
        (p, v)
    }

    /// [`Self::forward`] of an any-size network: every layer's output masked to the board
    /// (as [`super::model::Network`] does at inference), pooled heads.
    fn forward_any_size(&self, xs: &Tensor) -> (Tensor, Tensor) {
        let board = self.arch.policy_head.any_size_board().expect("an any-size network (validated)");
        let mask = super::any_size::mask(board, xs);
        // In place, as in `forward`: a product would allocate, and could lose the
        // channels-last layout the convolutions run fastest in.
        let masked = |mut t: Tensor| {
            let _ = t.relu_();
            t *= &mask;
            t
        };
        let mut x = masked(self.stem.forward(&channels_last(&(xs * &mask))));
        for (a, b) in &self.blocks {
            let y = masked(a.forward(&x));
            let mut z = b.forward(&y);
            z += &x;
            x = masked(z);
        }
        let FoldedPolicyOut::Pooled { global, out } = &self.policy_out else {
            unreachable!("an any-size network has a pooled head (validated)")
        };
        let mut p = self.policy_conv.forward(&x);
        p *= &mask;
        let p = any_size::policy_logits(board, &p, &x, &mask, xs, |g| global.forward(g), |p| out.forward(p));
        let v = masked(self.value_conv.forward(&x));
        let hidden = self.value_fc1.forward(&any_size::pool(&v, &mask)).relu();
        let v = self.value_fc2.forward(&hidden).tanh().squeeze_dim(1);
        (p, v)
    }

    /// An any-size network in another frame ([`Architecture::reframed`]): its weights do
    /// not depend on the frame, so only the shape it is fed changes.
    pub fn reframe(&mut self, frame: (usize, usize)) -> Result<(), ArchitectureError> {
        self.arch = self.arch.reframed(frame)?;
        Ok(())
    }

    /// Inference on a batch of input planes laid out back to back; writes logits and values
    /// (as [`Model::infer`] does).
    pub fn infer(&self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
        infer_with(&self.arch, self.device, planes, batch, policy, value, |xs| self.forward(xs));
    }
}

/// A layer's weights as plain numbers, for code that runs a network without libtorch (`dojo
/// export saiblo` writes them into C++): `weight` in libtorch's order, `[out][in][kh][kw]`
/// for a convolution and `[out][in]` for a linear layer, with `shape` its dimensions.
#[derive(Clone, Debug, PartialEq)]
pub struct PlainLayer {
    pub shape: Vec<usize>,
    pub weight: Vec<f32>,
    pub bias: Vec<f32>,
}

impl PlainLayer {
    fn of(weight: &Tensor, bias: &Tensor) -> PlainLayer {
        let numbers = |t: &Tensor| {
            let t = t.to_kind(Kind::Float).contiguous().view([-1]);
            let len = t.numel();
            let mut out = vec![0.0f32; len];
            t.copy_data(&mut out, len);
            out
        };
        let shape = weight.size().iter().map(|&d| d as usize).collect();
        PlainLayer { shape, weight: numbers(weight), bias: numbers(bias) }
    }

    fn conv(layer: &FoldedConv) -> PlainLayer {
        PlainLayer::of(&layer.weight, &layer.bias)
    }

    fn linear(layer: &Linear) -> PlainLayer {
        let bias = match &layer.bias {
            Some(b) => b.shallow_clone(),
            None => Tensor::zeros([layer.weight.size()[0]], (Kind::Float, layer.weight.device())),
        };
        PlainLayer::of(&layer.weight, &bias)
    }
}

/// An any-size network's folded layers as plain numbers, in the order
/// [`FoldedNetwork::forward_any_size`] runs them.
#[derive(Clone, Debug, PartialEq)]
pub struct PlainAnySize {
    pub stem: PlainLayer,
    pub blocks: Vec<(PlainLayer, PlainLayer)>,
    pub policy_conv: PlainLayer,
    pub policy_global: PlainLayer,
    pub policy_out: PlainLayer,
    pub value_conv: PlainLayer,
    pub value_fc1: PlainLayer,
    pub value_fc2: PlainLayer,
}

impl FoldedNetwork {
    /// The layers of an any-size network as plain numbers (None for a board-specific
    /// network, whose heads are another shape).
    pub fn plain_any_size(&self) -> Option<PlainAnySize> {
        let FoldedPolicyOut::Pooled { global, out } = &self.policy_out else { return None };
        let conv = PlainLayer::conv;
        Some(PlainAnySize {
            stem: conv(&self.stem),
            blocks: self.blocks.iter().map(|(a, b)| (conv(a), conv(b))).collect(),
            policy_conv: conv(&self.policy_conv),
            policy_global: PlainLayer::linear(global),
            policy_out: conv(out),
            value_conv: conv(&self.value_conv),
            value_fc1: PlainLayer::linear(&self.value_fc1),
            value_fc2: PlainLayer::linear(&self.value_fc2),
        })
    }
}
