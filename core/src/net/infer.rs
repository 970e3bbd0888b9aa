//! The network as the search's [`Evaluator`].

use super::model::Model;
use crate::search::evaluator::Evaluator;

/// Evaluates batches with a [`Model`] (no gradients, batch-norm in inference mode).
pub struct NetEvaluator {
    pub model: Model,
    /// Evaluations done (positions), for throughput reports.
    pub evals: u64,
    pub batches: u64,
}

impl NetEvaluator {
    pub fn new(model: Model) -> NetEvaluator {
        NetEvaluator { model, evals: 0, batches: 0 }
    }
}

impl Evaluator for NetEvaluator {
    fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
        self.model.infer(planes, batch, policy, value);
        self.evals += batch as u64;
        self.batches += 1;
    }

    fn describe(&self) -> String {
        let a = self.model.arch();
        format!("{}x{} net", a.blocks, a.channels)
    }
}
