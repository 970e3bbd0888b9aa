//! What the network-guided search asks of a network: a batch of positions in, policy logits
//! and values out. The search layer defines it so it never depends on tch; `net` implements
//! it with a real network, tests and benchmarks use [`UniformEvaluator`].

/// Evaluates batches of positions.
pub trait Evaluator: Send {
    /// `planes` holds `batch` positions' input planes back to back (each
    /// `Game::plane_shape().len()` floats). Writes `batch × num_actions` policy logits (any
    /// scale; illegal actions are masked by the caller) and `batch` values in [-1, 1] from the
    /// side to move's point of view.
    fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]);

    /// A name for logs and player descriptions.
    fn describe(&self) -> String;
}

/// Every move equally likely, every position even: the "free" evaluator for search tests
/// and search-speed benchmarks.
#[derive(Clone, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&mut self, _planes: &[f32], _batch: usize, policy: &mut [f32], value: &mut [f32]) {
        policy.fill(0.0);
        value.fill(0.0);
    }

    fn describe(&self) -> String {
        "uniform".into()
    }
}

impl<E: Evaluator + ?Sized> Evaluator for Box<E> {
    fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
        (**self).evaluate(planes, batch, policy, value)
    }

    fn describe(&self) -> String {
        (**self).describe()
    }
}
