//! An exponential moving average of a model's weights (KataGo's stochastic weight
//! averaging, in its running form). The averaged network sits in the middle of the region
//! the optimizer's noisy steps jitter around, so it plays more steadily than the weights of
//! any single step: an ensemble over recent steps at the cost of one network.

use super::model::Model;

pub struct WeightAverage {
    model: Model,
    decay: f64,
    updates: u64,
}

impl WeightAverage {
    /// Starts the average at `from`'s weights. `steps` is its time constant: each update
    /// moves the average `1/steps` of the way to the current weights. `updates` counts the
    /// updates already in `from` (a resumed average), which ends the warm-up below.
    pub fn new(from: &Model, steps: f64, updates: u64) -> Result<WeightAverage, String> {
        if steps < 1.0 {
            return Err(format!("a weight average over {steps} steps: needs at least 1"));
        }
        let mut model = Model::new(from.arch().clone(), from.device());
        model.vs.copy(&from.vs).map_err(|e| format!("copying the weights to average: {e}"))?;
        Ok(WeightAverage { model, decay: 1.0 - 1.0 / steps, updates })
    }

    /// Moves the average towards `current` (every variable, batch-norm statistics too).
    /// The first updates move further (TensorFlow's warm-up, `(1 + n) / (10 + n)`), so a
    /// fresh average is not dominated by its starting weights.
    pub fn update(&mut self, current: &Model) -> Result<(), String> {
        let decay = self.decay.min((1.0 + self.updates as f64) / (10.0 + self.updates as f64));
        let sources = current.vs.variables();
        tch::no_grad(|| {
            for (name, mut avg) in self.model.vs.variables() {
                let src = sources.get(&name).ok_or_else(|| format!("averaging: {name} is not in the trained model"))?;
                // avg ← decay·avg + (1 − decay)·src, in place.
                avg.f_mul_scalar_(decay)
                    .and_then(|_| avg.f_add_(&(src * (1.0 - decay))))
                    .map(drop)
                    .map_err(|e| format!("averaging {name}: {e}"))?;
            }
            Ok::<(), String>(())
        })?;
        self.updates += 1;
        Ok(())
    }

    /// The averaged network.
    pub fn model(&self) -> &Model {
        &self.model
    }
}
