//! An exponential moving average of a model's weights (KataGo's stochastic weight
//! averaging, in its running form). The averaged network sits in the middle of the region
//! the optimizer's noisy steps jitter around, so it plays more steadily than the weights of
//! any single step: an ensemble over recent steps at the cost of one network.

use super::model::Model;

/// Why an average could not be started or moved.
#[derive(Debug, thiserror::Error)]
pub enum AverageError {
    #[error("a weight average over {0} steps: needs at least 1")]
    Steps(f64),
    /// libtorch's error is in the message, not also a source, so a report prints it once.
    #[error("copying the weights to average: {0}")]
    Copy(tch::TchError),
    #[error("averaging: {0} is not in the trained model")]
    Missing(String),
    #[error("averaging {name}: {error}")]
    Torch { name: String, error: tch::TchError },
}

pub struct WeightAverage {
    model: Model,
    decay: f64,
    updates: u64,
}

impl WeightAverage {
    /// Starts the average at `from`'s weights. `steps` is its time constant: each update
    /// moves the average `1/steps` of the way to the current weights. `updates` counts the
    /// updates already in `from` (a resumed average), which ends the warm-up below.
    pub fn new(from: &Model, steps: f64, updates: u64) -> Result<WeightAverage, AverageError> {
        if steps < 1.0 {
            return Err(AverageError::Steps(steps));
        }
        let mut model = Model::new(from.arch().clone(), from.device());
        model.vs.copy(&from.vs).map_err(AverageError::Copy)?;
        Ok(WeightAverage { model, decay: 1.0 - 1.0 / steps, updates })
    }

    /// Moves the average towards `current` (every variable, batch-norm statistics too).
    /// The first updates move further (TensorFlow's warm-up, `(1 + n) / (10 + n)`), so a
    /// fresh average is not dominated by its starting weights.
    pub fn update(&mut self, current: &Model) -> Result<(), AverageError> {
        let decay = self.decay.min((1.0 + self.updates as f64) / (10.0 + self.updates as f64));
        let sources = current.vs.variables();
        tch::no_grad(|| {
            for (name, mut avg) in self.model.vs.variables() {
                let Some(src) = sources.get(&name) else { return Err(AverageError::Missing(name)) };
                // avg ← decay·avg + (1 − decay)·src, in place.
                avg.f_mul_scalar_(decay)
                    .and_then(|_| avg.f_add_(&(src * (1.0 - decay))))
                    .map(drop)
                    .map_err(|error| AverageError::Torch { name, error })?;
            }
            Ok(())
        })?;
        self.updates += 1;
        Ok(())
    }

    /// The averaged network.
    pub fn model(&self) -> &Model {
        &self.model
    }
}
