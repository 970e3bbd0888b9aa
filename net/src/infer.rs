//! The network as the search's [`Evaluator`].

use super::folded::FoldedNetwork;
use super::model::Model;
use dojo_arch::architecture::{Architecture, ArchitectureError};
use dojo_arch::precision::Precision;
use dojo_search::evaluator::Evaluator;

/// Evaluates batches with a [`Model`] folded for inference ([`FoldedNetwork`]: batch norms
/// folded into the convolutions, no gradients), in f32 unless made [`Self::with_precision`].
pub struct NetEvaluator {
    network: FoldedNetwork,
    /// Evaluations done (positions), for throughput reports.
    pub evals: u64,
    pub batches: u64,
}

impl NetEvaluator {
    pub fn new(model: Model) -> NetEvaluator {
        NetEvaluator::with_precision(model, Precision::F32)
    }

    pub fn with_precision(model: Model, precision: Precision) -> NetEvaluator {
        NetEvaluator::folding(&model, precision)
    }

    /// An evaluator of `model` as it is now (later changes to its weights are not seen).
    pub fn folding(model: &Model, precision: Precision) -> NetEvaluator {
        NetEvaluator { network: FoldedNetwork::new(model, precision), evals: 0, batches: 0 }
    }

    /// The network's architecture (its frame, for an any-size network).
    pub fn arch(&self) -> &Architecture {
        self.network.arch()
    }

    /// An any-size network in another frame ([`FoldedNetwork::reframe`]).
    pub fn reframe(&mut self, frame: (usize, usize)) -> Result<(), ArchitectureError> {
        self.network.reframe(frame)
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
        self.network.infer(planes, batch, policy, value);
        self.evals += batch as u64;
        self.batches += 1;
    }

    fn describe(&self) -> String {
        let a = self.network.arch();
        let precision = match self.network.precision() {
            Precision::F32 => String::new(),
            p => format!(", {p}"),
        };
        format!("{}x{} net ({} policy head{precision})", a.blocks, a.channels, a.policy_head.name())
    }
}
