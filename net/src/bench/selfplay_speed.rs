//! Self-play as a worker plays it, for a fixed time, against the bare network at the batch
//! self-play reached (`dojo bench selfplay`). The pipeline's efficiency is the network
//! evals per wall-clock second of self-play over the bare network's rate at that batch: 1.0
//! would mean the search, the tactics, the encoding and the cache cost nothing and the
//! batches are as wide as measured.
//!
//! `dojo bench selfplay` prints it (`cli/src/bench_cmd/selfplay_speed.rs`): one concept in
//! two layers.

use super::describe;
use super::forward::matmul_rates;
use crate::infer::NetEvaluator;
use crate::model::Model;
use crate::timing::NetTimer;
use dojo_arch::precision::Precision;
use dojo_base::rng::Rng;
use dojo_game::with_game;
use dojo_game::{AnyGame, FromAnyGame, Game, GameSpec};
use dojo_search::config::{SearchConfig, SelfPlayConfig};
use dojo_search::selfplay::{EngineStats, SelfPlayEngine, SelfPlayError};
use rand::SeedableRng;
use serde::Serialize;
use std::fmt;
use std::time::{Duration, Instant};

/// What to play and how long.
pub struct SelfPlayOptions {
    pub search: SearchConfig,
    pub play: SelfPlayConfig,
    pub precision: Precision,
    /// Seed of the games.
    pub seed: u64,
    /// Wall-clock time of self-play.
    pub budget: Duration,
    /// Side of the square matrices of the reference multiply the shares are given of.
    pub matmul_size: usize,
}

#[derive(Serialize)]
pub struct SelfPlayReport {
    pub network: String,
    pub precision: Precision,
    pub simulations: u32,
    pub fast_simulations: u32,
    pub full_search_fraction: f32,
    pub parallel_games: usize,
    pub seconds: f64,
    pub games: u64,
    pub positions: u64,
    pub games_per_s: f64,
    pub positions_per_s: f64,
    pub evals: u64,
    pub mean_batch: f64,
    /// Of the positions the search asked the network for.
    pub cache_hit_rate: f64,
    /// Network evaluations per second of self-play's wall-clock time.
    pub evals_per_s: f64,
    /// The same per second spent inside the network.
    pub evals_per_s_in_network: f64,
    /// The bare network at the mean batch, timed in spells between self-play's.
    pub raw_evals_per_s_at_mean_batch: f64,
    /// evals_per_s over the raw rate.
    pub pipeline_efficiency: f64,
    /// evals_per_s_in_network over the raw rate.
    pub network_efficiency: f64,
    /// Share of the wall-clock time inside the network.
    pub network_time_share: f64,
    pub f32_matmul_gflops: f64,
    pub gflops_in_network: f64,
    pub gflops_overall: f64,
    pub share_of_f32_matmul_in_network: f64,
    pub share_of_f32_matmul_overall: f64,
}

/// Plays self-play from `start` (a position of `spec`) with `model` and times the bare
/// network after it.
pub fn time_self_play(
    start: AnyGame,
    spec: &GameSpec,
    model: &Model,
    options: SelfPlayOptions,
) -> Result<SelfPlayReport, SelfPlayError> {
    let SelfPlayOptions { search, play, precision, seed, budget, matmul_size } = options;
    let (simulations, fast_simulations, full_search_fraction, parallel_games) =
        (search.simulations, play.fast_simulations, play.full_search_fraction, play.parallel_games);
    let (stats, wall, raw) = with_game!(start, g => play_for(g, model, precision, search, play, seed, budget))?;
    let mean_batch = stats.evals as f64 / stats.batches.max(1) as f64;
    let f32_matmul = matmul_rates(model.device(), &[], matmul_size, Duration::from_millis(300))[0].gflops;
    let flops = model.arch().flops_per_eval();
    let secs = wall.as_secs_f64();
    let eval_secs = stats.eval_time.as_secs_f64().max(1e-9);
    let evals_per_s = stats.evals as f64 / secs;
    let evals_per_s_in_network = stats.evals as f64 / eval_secs;
    Ok(SelfPlayReport {
        network: describe(spec, model.arch()),
        precision,
        simulations,
        fast_simulations,
        full_search_fraction,
        parallel_games,
        seconds: secs,
        games: stats.games,
        positions: stats.moves,
        games_per_s: stats.games as f64 / secs,
        positions_per_s: stats.moves as f64 / secs,
        evals: stats.evals,
        mean_batch,
        cache_hit_rate: stats.cache_hits as f64 / (stats.cache_hits + stats.evals).max(1) as f64,
        evals_per_s,
        evals_per_s_in_network,
        raw_evals_per_s_at_mean_batch: raw,
        pipeline_efficiency: evals_per_s / raw,
        network_efficiency: evals_per_s_in_network / raw,
        network_time_share: eval_secs / secs,
        f32_matmul_gflops: f32_matmul,
        gflops_in_network: evals_per_s_in_network * flops / 1e9,
        gflops_overall: evals_per_s * flops / 1e9,
        share_of_f32_matmul_in_network: evals_per_s_in_network * flops / 1e9 / f32_matmul,
        share_of_f32_matmul_overall: evals_per_s * flops / 1e9 / f32_matmul,
    })
}

/// Self-play and the bare network take turns this many times.
const SPELLS: u32 = 10;

/// Plays self-play from `start` for `budget` (games in flight when it runs out count for
/// their positions, not as games) and returns the engine's counters, the time taken and
/// the bare network's evals/s at self-play's mean batch. The bare network is timed in
/// [`SPELLS`] short spells between stretches of self-play (a tenth of `budget` in all), so
/// that both rates are averaged over the same minutes: on a shared machine a separate
/// timing, before or after, is caught by other load (or by its absence) and the ratio
/// swung by ±10% from one run to the next.
fn play_for<G: Game + FromAnyGame>(
    start: G,
    model: &Model,
    precision: Precision,
    search: SearchConfig,
    play: SelfPlayConfig,
    seed: u64,
    budget: Duration,
) -> Result<(EngineStats, Duration, f64), SelfPlayError> {
    let mut evaluator = NetEvaluator::folding(model, precision);
    let starter = Box::new(move |_: &mut Rng| start.clone());
    let mut engine = SelfPlayEngine::new(search, play, starter, Rng::seed_from_u64(seed), None)?;
    let mut timer = NetTimer::new(model, budget / (10 * SPELLS));
    let (mut finished, mut wall, mut bare) = (Vec::new(), Duration::ZERO, 0.0);
    for spell in 1..=SPELLS {
        let t0 = Instant::now();
        while wall + t0.elapsed() < budget * spell / SPELLS {
            engine.step(&mut evaluator, &mut finished);
            finished.clear();
        }
        wall += t0.elapsed();
        let mean_batch = engine.stats.evals as f64 / engine.stats.batches.max(1) as f64;
        bare += timer.evals_per_s(precision, mean_batch.round() as usize) / f64::from(SPELLS);
    }
    Ok((engine.stats, wall, bare))
}

impl fmt::Display for SelfPlayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        writeln!(f, "{}, in {}", r.network, r.precision)?;
        writeln!(
            f,
            "self-play: {} playouts ({:.0}% of moves; {} otherwise), {} games at once, {} libtorch thread(s)",
            r.simulations,
            100.0 * r.full_search_fraction,
            r.fast_simulations,
            r.parallel_games,
            tch::get_num_threads()
        )?;
        writeln!(f)?;
        let rows: Vec<(String, String)> = vec![
            ("seconds".into(), format!("{:.1}", r.seconds)),
            ("games finished".into(), r.games.to_string()),
            ("positions/s".into(), format!("{:.1}", r.positions_per_s)),
            ("games/s".into(), format!("{:.2}", r.games_per_s)),
            ("mean batch".into(), format!("{:.1}", r.mean_batch)),
            ("cache hits".into(), format!("{:.1}%", 100.0 * r.cache_hit_rate)),
            ("NN evals/s (wall clock)".into(), format!("{:.0}", r.evals_per_s)),
            ("NN evals/s (inside the network)".into(), format!("{:.0}", r.evals_per_s_in_network)),
            (format!("bare network at batch {:.0}", r.mean_batch), format!("{:.0}", r.raw_evals_per_s_at_mean_batch)),
            ("pipeline efficiency (wall / bare)".into(), format!("{:.2}", r.pipeline_efficiency)),
            ("network efficiency (inside / bare)".into(), format!("{:.2}", r.network_efficiency)),
            ("time in the network".into(), format!("{:.1}%", 100.0 * r.network_time_share)),
            ("f32 matmul GFLOP/s (the shares' base)".into(), format!("{:.1}", r.f32_matmul_gflops)),
            (
                "GFLOP/s inside the network (share)".into(),
                format!("{:.2} ({:.2})", r.gflops_in_network, r.share_of_f32_matmul_in_network),
            ),
            (
                "GFLOP/s over the wall clock (share)".into(),
                format!("{:.2} ({:.2})", r.gflops_overall, r.share_of_f32_matmul_overall),
            ),
        ];
        for (label, value) in &rows {
            writeln!(f, "{label:<38} {value:>12}")?;
        }
        Ok(())
    }
}
