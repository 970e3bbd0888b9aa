//! The network as the search's [`Evaluator`].

use super::folded::FoldedNetwork;
use super::model::Model;
use crate::search::evaluator::Evaluator;

/// Evaluates batches with a [`Model`] folded for inference ([`FoldedNetwork`]: batch norms
/// folded into the convolutions, no gradients).
pub struct NetEvaluator {
    network: FoldedNetwork,
    /// Evaluations done (positions), for throughput reports.
    pub evals: u64,
    pub batches: u64,
}

impl NetEvaluator {
    pub fn new(model: Model) -> NetEvaluator {
        NetEvaluator { network: FoldedNetwork::new(&model), evals: 0, batches: 0 }
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
        format!("{}x{} net ({} policy head)", a.blocks, a.channels, a.policy_head.name())
    }
}
