//! A run's own benchmark: `RUN/benchmark/pons.jsonl`, a labelled set drawn once (at the
//! first gate, from a fixed seed, so every version of the run is graded on the same
//! positions), and the grade of one checkpoint on it, as the gatekeeper records it.

use super::draw::{draw_positions, DrawSettings, Drawn};
use super::grade::{grade, labelled_verdict, Case, ErrorRate, Mover};
use super::labelled::{read_labelled, write_labelled, LabelledError};
use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_net::agent::{NetAgent, NetPlayerError};
use dojo_net::checkpoint::{self, CheckpointError};
use dojo_run::paths::RunPaths;
use dojo_search::config::SearchConfig;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Why a run's benchmark cannot be read, written or graded on. A wrapped error's text is the
/// message (or part of it, and not also the `source()`).
#[derive(Debug, thiserror::Error)]
pub enum BenchmarkError {
    /// The set's file cannot be read or written, or a position in it is wrong.
    #[error(transparent)]
    Labelled(#[from] LabelledError),
    #[error("cannot create {}: {error}", .path.display())]
    CreateDir { path: PathBuf, error: std::io::Error },
    /// The checkpoint to grade cannot be loaded.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The checkpoint's network cannot play (its search settings or board).
    #[error(transparent)]
    NetPlayer(#[from] NetPlayerError),
}

/// The seed of every run's benchmark draw.
pub const BENCHMARK_SEED: u64 = 23;

/// How the gatekeeper grades each version (`[gating]`'s `grade_*` keys).
#[derive(Clone, Debug, PartialEq)]
pub struct GradeSettings {
    /// Positions per Pons category in the run's set.
    pub per_category: usize,
    /// Playouts of the graded search.
    pub sims: u32,
    /// Solver nodes per position when drawing the set.
    pub budget_nodes: u64,
    /// Solver nodes for the whole draw: categories still short then stay short.
    pub total_nodes: u64,
}

pub fn benchmark_path(run: &RunPaths) -> PathBuf {
    run.root.join("benchmark").join("pons.jsonl")
}

/// The run's set for `start`'s board: read from its file, or drawn and written the first
/// time (then the draw's report comes back too).
pub fn load_or_make(
    run: &RunPaths,
    start: &Connect4,
    settings: &GradeSettings,
) -> Result<(Vec<Case<Connect4>>, Option<Drawn>), BenchmarkError> {
    let path = benchmark_path(run);
    if path.exists() {
        let read = read_labelled(&path, start)?;
        let cases = read.into_iter().map(|(game, l)| Case { game, verdict: Some(labelled_verdict(&l)) }).collect();
        return Ok((cases, None));
    }
    let draw = DrawSettings {
        per_category: Some(settings.per_category),
        total_nodes: Some(settings.total_nodes),
        ..DrawSettings::new(usize::MAX, settings.budget_nodes, BENCHMARK_SEED)
    };
    let drawn = draw_positions(start, &draw, |_| {});
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|error| BenchmarkError::CreateDir { path: dir.to_path_buf(), error })?;
    }
    write_labelled(&path, &drawn.positions)?;
    let cases = drawn
        .positions
        .iter()
        .map(|l| Ok(Case { game: l.position(start)?, verdict: Some(labelled_verdict(l)) }))
        .collect::<Result<_, LabelledError>>()?;
    Ok((cases, Some(drawn)))
}

/// A version's grade: error rates by Pons category and "all", for the raw policy and the
/// search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VersionGrade {
    pub positions: u32,
    /// The search's playouts per move.
    pub sims: u32,
    /// How long grading took.
    pub seconds: f64,
    pub policy: BTreeMap<String, ErrorRate>,
    pub search: BTreeMap<String, ErrorRate>,
}

impl VersionGrade {
    /// "graded on 300 positions: policy 12.3% errors, search 4.0% at 100 playouts".
    pub fn describe(&self) -> String {
        let rate = |m: &BTreeMap<String, ErrorRate>| m.get("all").map_or(0.0, |r| 100.0 * r.rate);
        format!(
            "graded on {} positions: policy {:.1}% errors, search {:.1}% at {} playouts ({:.0} s)",
            self.positions,
            rate(&self.policy),
            rate(&self.search),
            self.sims,
            self.seconds
        )
    }

    /// TensorBoard scalars: `grade/policy/L2R1`, `grade/search/all`, ...
    pub fn scalars(&self) -> Vec<(String, f64)> {
        let movers = [("policy", &self.policy), ("search", &self.search)];
        movers
            .iter()
            .flat_map(|(m, rates)| rates.iter().map(move |(c, r)| (format!("grade/{m}/{c}"), r.rate)))
            .collect()
    }
}

/// Grades the checkpoint at `path` (on the CPU) on `cases`: its raw policy, and its search
/// at `sims` playouts.
pub fn grade_checkpoint(path: &Path, cases: &[Case<Connect4>], sims: u32) -> Result<VersionGrade, BenchmarkError> {
    let started = Instant::now();
    let loaded = checkpoint::load(path, dojo_net::device::Device::Cpu, None)?;
    let name = path.display().to_string();
    let search = SearchConfig::for_play(sims);
    let mut agent: NetAgent<Connect4> =
        NetAgent::from_checkpoint(path, loaded, search, false, name, Rng::seed_from_u64(0))?;
    let grades = grade(cases, &mut agent, &[Mover::Policy, Mover::Search], sims, || {});
    Ok(VersionGrade {
        positions: cases.len() as u32,
        sims,
        seconds: started.elapsed().as_secs_f64(),
        policy: grades[0].by_category_and_all(),
        search: grades[1].by_category_and_all(),
    })
}
