//! What dojo reports about training and self-play, each metric defined once in [`table`]:
//! its key in `metrics.jsonl`, its TensorBoard tag, its Prometheus name, help and type, and
//! the label and unit `dojo plot` and the dashboard draw it with. Every sink is generated
//! from the table: a training window is measured into a [`Line`], which serialises as the
//! `metrics.jsonl` line, gives TensorBoard its scalars ([`Line::scalars`]) and the learner
//! its Prometheus gauges; [`charts`] lays the figures out for `dojo plot` and the dashboard.
//! So a new metric touches two files: the table, and the place that measures it.
//!
//! The table lives here, not in the learner, because three crates read it: the learner
//! (which writes every sink), the worker (its Prometheus metrics) and the command line
//! (`dojo plot`, which must not need the learner). It knows no game, network or run: only
//! names, and whether a metric means something in one- or two-player games.

mod charts;
mod line;
pub mod table;

use prometheus_client::registry::Registry;

pub use charts::{charts, Charts, FigureLayout, PanelLayout, SeriesLayout};
pub use line::{Line, Value};

/// What a metric's number is: how `metrics.jsonl` writes it and which Prometheus gauge holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number (`300`; an integer gauge).
    Count,
    /// A real number (`200.0`; a floating-point gauge).
    Real,
    /// Real numbers by key, one JSON object (`"reach": {"2048": 0.5, ...}`): a TensorBoard
    /// tag and a chart line per key, where the tag and the label put the key for `{}`.
    Keyed,
}

/// The games a metric means something in: where it does not, no chart draws it and no
/// Prometheus gauge shows it (a two-player run has no scores to show as zeros).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Players {
    Any,
    /// Two-player games only (who won; a one-player game's lines still carry them).
    Two,
    /// One-player games only (2048, 2584: scores and tiles).
    One,
}

impl Players {
    pub fn includes(self, one_player: bool) -> bool {
        match self {
            Players::Any => true,
            Players::Two => !one_player,
            Players::One => one_player,
        }
    }
}

/// A Prometheus metric type (the `# TYPE` line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromType {
    Gauge,
    /// Exposed as `NAME_total`.
    Counter,
    Histogram,
}

/// A metric on a `/metrics` page: its name as registered (with the `dojo_` or
/// `dojo_worker_` prefix; a counter is exposed with `_total` added), help and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prometheus {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: PromType,
}

impl Prometheus {
    /// Registers `metric` in `registry` under this name and help (the learner's and the
    /// workers' `/metrics` pages).
    pub fn register(&self, registry: &mut Registry, metric: impl prometheus_client::registry::Metric) {
        registry.register(self.name, self.help, metric);
    }

    pub const fn gauge(name: &'static str, help: &'static str) -> Prometheus {
        Prometheus { name, help, kind: PromType::Gauge }
    }

    pub const fn counter(name: &'static str, help: &'static str) -> Prometheus {
        Prometheus { name, help, kind: PromType::Counter }
    }

    pub const fn histogram(name: &'static str, help: &'static str) -> Prometheus {
        Prometheus { name, help, kind: PromType::Histogram }
    }

    /// The name of its samples and of its `# TYPE` line on the page.
    pub fn exposed(&self) -> String {
        match self.kind {
            PromType::Counter => format!("{}_total", self.name),
            PromType::Gauge | PromType::Histogram => self.name.to_string(),
        }
    }

    /// The `# TYPE` line's type.
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            PromType::Gauge => "gauge",
            PromType::Counter => "counter",
            PromType::Histogram => "histogram",
        }
    }

    /// Whether a `/metrics` page declares it as the table does: its `# TYPE` line, and its
    /// `# HELP` line (the client library ends the help with a full stop). A service's test
    /// checks its page with this, so the code that registers a row cannot drift from it.
    pub fn declared_on(&self, page: &str) -> bool {
        let name = self.exposed();
        page.contains(&format!("# TYPE {name} {}\n", self.type_name()))
            && page.contains(&format!("# HELP {name} {}.\n", self.help))
    }
}

/// A figure: one PNG of `dojo plot` (a panel per unit, stacked) and one or more charts on the
/// dashboard (dygraphs has two y axes, so a chart per two panels: the first of the figure
/// is `chart_id`, the next `chart_id-2`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figure {
    pub file: &'static str,
    pub chart_id: &'static str,
    pub title: &'static str,
}

/// Where a metric is drawn: a figure, the y axis it shares with the other metrics of that
/// unit there, and the label of its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chart {
    pub figure: &'static Figure,
    pub unit: &'static str,
    pub label: &'static str,
}

/// A number a training window measures: a key of each `metrics.jsonl` line, and whatever
/// other sinks show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metric {
    pub key: &'static str,
    pub kind: Kind,
    pub players: Players,
    pub tensorboard: Option<&'static str>,
    /// Always a gauge: a window's number replaces the last.
    pub prometheus: Option<Prometheus>,
    pub chart: Option<Chart>,
}

impl Metric {
    /// A metric `metrics.jsonl` carries under `key`, and no other sink yet.
    pub const fn line(key: &'static str, kind: Kind) -> Metric {
        Metric { key, kind, players: Players::Any, tensorboard: None, prometheus: None, chart: None }
    }

    pub const fn tensorboard(self, tag: &'static str) -> Metric {
        Metric { tensorboard: Some(tag), ..self }
    }

    pub const fn gauge(self, name: &'static str, help: &'static str) -> Metric {
        Metric { prometheus: Some(Prometheus::gauge(name, help)), ..self }
    }

    pub const fn chart(self, figure: &'static Figure, unit: &'static str, label: &'static str) -> Metric {
        Metric { chart: Some(Chart { figure, unit, label }), ..self }
    }

    pub const fn only(self, players: Players) -> Metric {
        Metric { players, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::table::*;
    use super::*;
    use std::collections::HashSet;

    fn all_prometheus() -> Vec<Prometheus> {
        let window = LINE.iter().filter_map(|m| m.prometheus);
        window.chain(learner::ALL.iter().copied().copied()).chain(worker::ALL.iter().copied().copied()).collect()
    }

    #[test]
    fn every_key_tag_and_prometheus_name_is_spelled_once() {
        let keys: HashSet<&str> = LINE.iter().map(|m| m.key).collect();
        assert_eq!(keys.len(), LINE.len(), "a metrics.jsonl key twice");
        let tags: Vec<&str> = LINE.iter().filter_map(|m| m.tensorboard).collect();
        assert_eq!(tags.iter().collect::<HashSet<_>>().len(), tags.len(), "a TensorBoard tag twice");
        let names: Vec<String> = all_prometheus().iter().map(Prometheus::exposed).collect();
        assert_eq!(names.iter().collect::<HashSet<_>>().len(), names.len(), "a Prometheus name twice: {names:?}");
    }

    #[test]
    fn prometheus_names_are_valid_and_only_counters_end_in_total() {
        for p in all_prometheus() {
            let name = p.exposed();
            let valid = name.starts_with("dojo_")
                && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            assert!(valid, "{name}");
            assert_eq!(name.ends_with("_total"), p.kind == PromType::Counter, "{name}");
            assert!(!p.help.is_empty() && !p.help.ends_with('.'), "{name}: the client adds the full stop");
        }
        let gauges: Vec<&Metric> = LINE.iter().copied().filter(|m| m.prometheus.is_some()).collect();
        assert!(gauges.iter().all(|m| m.prometheus.unwrap().kind == PromType::Gauge && m.kind != Kind::Keyed));
    }

    #[test]
    fn keyed_metrics_put_the_key_into_their_tag_and_label() {
        for m in LINE.iter().filter(|m| m.kind == Kind::Keyed) {
            assert!(m.tensorboard.is_none_or(|t| t.contains("{}")), "{}", m.key);
            assert!(m.chart.is_none_or(|c| c.label.contains("{}")), "{}", m.key);
        }
    }

    #[test]
    fn every_charted_figure_is_listed() {
        for m in LINE.iter().filter_map(|m| m.chart) {
            assert!(FIGURES.contains(&m.figure), "{:?}", m.figure);
        }
    }
}
