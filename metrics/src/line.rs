//! One training window's numbers, each under its metric of the table: a `metrics.jsonl` line
//! when serialised, TensorBoard's scalars, and what the learner sets its gauges from.

use super::table::LINE;
use super::{Kind, Metric};
use serde::ser::{Serialize, SerializeMap, Serializer};

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Count(u64),
    Real(f64),
    /// (key, number), written in this order (a 2048 run's tiles, smallest first: a map
    /// keyed by text would put "16384" before "2048").
    Keyed(Vec<(String, f64)>),
}

impl Value {
    fn kind(&self) -> Kind {
        match self {
            Value::Count(_) => Kind::Count,
            Value::Real(_) => Kind::Real,
            Value::Keyed(_) => Kind::Keyed,
        }
    }

    /// The number, for a value that is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Count(n) => Some(*n as f64),
            Value::Real(x) => Some(*x),
            Value::Keyed(_) => None,
        }
    }
}

/// A window's values, in whatever order they were measured; written in the table's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    values: Vec<(&'static Metric, Value)>,
}

impl Line {
    pub fn new() -> Line {
        Line::default()
    }

    /// Sets `metric` (a second time replaces the first). The value must be of the metric's
    /// kind, and the metric a row of [`LINE`]: a line writes nothing else.
    pub fn set(&mut self, metric: &'static Metric, value: Value) -> &mut Line {
        debug_assert_eq!(metric.kind, value.kind(), "{}", metric.key);
        debug_assert!(LINE.iter().any(|row| row.key == metric.key), "{} is not in the table's LINE", metric.key);
        match self.values.iter_mut().find(|(m, _)| m.key == metric.key) {
            Some(slot) => slot.1 = value,
            None => self.values.push((metric, value)),
        }
        self
    }

    pub fn count(&mut self, metric: &'static Metric, n: u64) -> &mut Line {
        self.set(metric, Value::Count(n))
    }

    pub fn real(&mut self, metric: &'static Metric, x: f64) -> &mut Line {
        self.set(metric, Value::Real(x))
    }

    pub fn keyed(&mut self, metric: &'static Metric, values: Vec<(String, f64)>) -> &mut Line {
        self.set(metric, Value::Keyed(values))
    }

    pub fn get(&self, metric: &Metric) -> Option<&Value> {
        self.values.iter().find(|(m, _)| m.key == metric.key).map(|(_, v)| v)
    }

    /// Every value set, in the order of [`LINE`].
    pub fn values(&self) -> impl Iterator<Item = (&'static Metric, &Value)> + '_ {
        LINE.iter().filter_map(|row| self.values.iter().find(|(m, _)| m.key == row.key).map(|(m, v)| (*m, v)))
    }

    /// TensorBoard's scalars: (tag, number) for each value whose metric has a tag, one per
    /// key of a keyed one.
    pub fn scalars(&self) -> Vec<(String, f64)> {
        let mut scalars = Vec::new();
        for (metric, value) in self.values() {
            let Some(tag) = metric.tensorboard else { continue };
            match value {
                Value::Keyed(by_key) => {
                    scalars.extend(by_key.iter().map(|(key, x)| (tag.replace("{}", key), *x)));
                }
                one => scalars.extend(one.as_f64().map(|x| (tag.to_string(), x))),
            }
        }
        scalars
    }
}

impl Serialize for Line {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (metric, value) in self.values() {
            match value {
                Value::Count(n) => map.serialize_entry(metric.key, n)?,
                Value::Real(x) => map.serialize_entry(metric.key, x)?,
                Value::Keyed(by_key) => map.serialize_entry(metric.key, &ByKey(by_key))?,
            }
        }
        map.end()
    }
}

struct ByKey<'a>(&'a [(String, f64)]);

impl Serialize for ByKey<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (key, x) in self.0 {
            map.serialize_entry(key, x)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::*;

    #[test]
    fn a_line_is_written_in_the_tables_order_with_whole_numbers_as_integers() {
        let mut line = Line::new();
        line.real(&DRAW_RATE, 0.25).count(&STEP, 20).real(&POLICY_LOSS, 1.5).count(&MAX_TILE, 2048);
        line.keyed(&REACH, vec![("2048".into(), 0.5), ("16384".into(), 0.0)]).count(&STEP, 40);
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            r#"{"step":40,"policy_loss":1.5,"draw_rate":0.25,"max_tile":2048,"reach":{"2048":0.5,"16384":0.0}}"#
        );
        assert_eq!(line.get(&STEP), Some(&Value::Count(40)), "set twice: the second");
        assert_eq!(line.get(&VERSION), None);
    }

    /// The keys every run's `metrics.jsonl` has had, in their order, which `jq` scripts,
    /// `dojo plot` and the dashboard read: a new key goes after them.
    const KEYS_OF_EVERY_RUN: [&str; 23] = [
        "unix_ms",
        "step",
        "version",
        "policy_loss",
        "value_loss",
        "l2_loss",
        "total_loss",
        "entropy",
        "learning_rate",
        "samples_per_s",
        "games_per_s",
        "games",
        "positions",
        "buffer_positions",
        "buffer_games",
        "first_player_win_rate",
        "draw_rate",
        "mean_game_length",
        "scored_games",
        "mean_score",
        "max_score",
        "max_tile",
        "reach",
    ];

    #[test]
    fn a_full_line_starts_with_the_keys_runs_have_always_had_in_their_order() {
        let mut line = Line::new();
        for metric in LINE {
            match metric.kind {
                Kind::Count => line.count(metric, 1),
                Kind::Real => line.real(metric, 0.5),
                Kind::Keyed => line.keyed(metric, vec![("2048".into(), 0.5)]),
            };
        }
        let text = serde_json::to_string(&line).unwrap();
        let keys: Vec<&str> = text.split('"').skip(1).step_by(2).filter(|k| *k != "2048").collect();
        assert_eq!(keys[..KEYS_OF_EVERY_RUN.len()], KEYS_OF_EVERY_RUN, "{text}");
    }

    #[test]
    fn tensorboard_gets_every_tagged_value_and_a_scalar_per_key() {
        let mut line = Line::new();
        line.count(&STEP, 20).count(&VERSION, 3).real(&POLICY_LOSS, 1.5).count(&GAMES, 9);
        line.keyed(&REACH, vec![("2048".into(), 0.5), ("4096".into(), 0.0)]);
        let scalars = line.scalars();
        let want =
            [("model/version", 3.0), ("loss/policy", 1.5), ("selfplay/reach_2048", 0.5), ("selfplay/reach_4096", 0.0)];
        assert_eq!(scalars, want.map(|(t, x)| (t.to_string(), x)), "no tag for the step (the x axis) or games");
    }
}
