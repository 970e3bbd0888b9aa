//! `dojo bench selfplay`: self-play as a worker plays it, for a fixed time, against the
//! bare network at the batch self-play reached. The pipeline's efficiency is the network
//! evals per wall-clock second of self-play over the bare network's rate at that batch: 1.0
//! would mean the search, the tactics, the encoding and the cache cost nothing and the
//! batches are as wide as measured.

use super::net::matmul_rates;
use super::{describe, NetChoice};
use crate::common::{DeviceArgs, PrecisionArgs};
use anyhow::{bail, Result};
use clap::Args;
use dojo_core::game::{FromAnyGame, Game};
use dojo_core::net::infer::NetEvaluator;
use dojo_core::net::model::Model;
use dojo_core::net::precision::Precision;
use dojo_core::net::timing::NetTimer;
use dojo_core::rng::Rng;
use dojo_core::search::config::{SearchConfig, SelfPlayConfig};
use dojo_core::search::selfplay::{EngineStats, SelfPlayEngine};
use dojo_core::with_game;
use rand::SeedableRng;
use serde::Serialize;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct SelfPlayBenchArgs {
    #[command(flatten)]
    net: NetChoice,
    /// Playouts of a full search (default: a run's default, search.simulations).
    #[arg(long, default_value_t = SearchConfig::default().simulations)]
    sims: u32,
    /// Playouts of the fast searches of playout cap randomisation (selfplay.fast_simulations).
    #[arg(long, default_value_t = SelfPlayConfig::default().fast_simulations)]
    fast_sims: u32,
    /// Share of moves given the full search (selfplay.full_search_fraction; 1 = all).
    #[arg(long, default_value_t = SelfPlayConfig::default().full_search_fraction)]
    full_search_fraction: f32,
    /// Games played at once (selfplay.parallel_games).
    #[arg(long, default_value_t = SelfPlayConfig::default().parallel_games)]
    parallel: usize,
    /// Seconds of self-play to time.
    #[arg(long, default_value_t = 20.0)]
    seconds: f64,
    #[command(flatten)]
    precision: PrecisionArgs,
    /// Seed of the games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Side of the square matrices of the reference multiply the shares are given of (a
    /// GPU needs several thousand to reach its rate).
    #[arg(long, default_value_t = 1024)]
    matmul_size: usize,
    #[command(flatten)]
    device: DeviceArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct SelfPlayReport {
    network: String,
    precision: Precision,
    simulations: u32,
    fast_simulations: u32,
    full_search_fraction: f32,
    parallel_games: usize,
    seconds: f64,
    games: u64,
    positions: u64,
    games_per_s: f64,
    positions_per_s: f64,
    evals: u64,
    mean_batch: f64,
    /// Of the positions the search asked the network for.
    cache_hit_rate: f64,
    /// Network evaluations per second of self-play's wall-clock time.
    evals_per_s: f64,
    /// The same per second spent inside the network.
    evals_per_s_in_network: f64,
    /// The bare network at the mean batch, timed after self-play (the best of three).
    raw_evals_per_s_at_mean_batch: f64,
    /// evals_per_s over the raw rate.
    pipeline_efficiency: f64,
    /// evals_per_s_in_network over the raw rate.
    network_efficiency: f64,
    /// Share of the wall-clock time inside the network.
    network_time_share: f64,
    f32_matmul_gflops: f64,
    gflops_in_network: f64,
    gflops_overall: f64,
    share_of_f32_matmul_in_network: f64,
    share_of_f32_matmul_overall: f64,
}

pub fn run(args: SelfPlayBenchArgs) -> Result<()> {
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        bail!("--seconds must be above 0");
    }
    if args.parallel == 0 {
        bail!("--parallel must be at least 1");
    }
    if args.matmul_size == 0 {
        bail!("--matmul-size must be at least 1");
    }
    let search = SearchConfig { simulations: args.sims, ..SearchConfig::default() };
    let play = SelfPlayConfig {
        parallel_games: args.parallel,
        fast_simulations: args.fast_sims,
        full_search_fraction: args.full_search_fraction,
        ..SelfPlayConfig::default()
    };
    search.validate()?;
    play.validate()?;
    let device = args.device.init()?;
    let (spec, model) = args.net.load(device)?;
    let precision = args.precision.choose(&model, play.parallel_games)?;
    let start = crate::common::record_start_of(&spec)?;
    let network = describe(&spec, model.arch());
    let budget = Duration::from_secs_f64(args.seconds);
    let (stats, wall) =
        with_game!(start, g => time_self_play(g, &model, precision, search, play.clone(), args.seed, budget))?;

    let mean_batch = stats.evals as f64 / stats.batches.max(1) as f64;
    // The best of three short timings: on a shared machine a single one is easily caught
    // by another process and would flatter the efficiency.
    let mut timer = NetTimer::new(&model, Duration::from_millis(300));
    let raw = (0..3).map(|_| timer.evals_per_s(precision, mean_batch.round() as usize)).fold(0.0, f64::max);
    let f32_matmul = matmul_rates(device, &[], args.matmul_size, Duration::from_millis(300))[0].gflops;
    let flops = model.arch().flops_per_eval();
    let secs = wall.as_secs_f64();
    let eval_secs = stats.eval_time.as_secs_f64().max(1e-9);
    let evals_per_s = stats.evals as f64 / secs;
    let evals_per_s_in_network = stats.evals as f64 / eval_secs;
    let report = SelfPlayReport {
        network,
        precision,
        simulations: args.sims,
        fast_simulations: args.fast_sims,
        full_search_fraction: args.full_search_fraction,
        parallel_games: play.parallel_games,
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
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let r = &report;
    println!("{}, in {}", r.network, r.precision);
    println!(
        "self-play: {} playouts ({:.0}% of moves; {} otherwise), {} games at once, {} libtorch thread(s)",
        r.simulations,
        100.0 * r.full_search_fraction,
        r.fast_simulations,
        r.parallel_games,
        tch::get_num_threads()
    );
    println!();
    println!("{:<38} {:>12}", "seconds", format!("{:.1}", r.seconds));
    println!("{:<38} {:>12}", "games finished", r.games);
    println!("{:<38} {:>12.1}", "positions/s", r.positions_per_s);
    println!("{:<38} {:>12.2}", "games/s", r.games_per_s);
    println!("{:<38} {:>12.1}", "mean batch", r.mean_batch);
    println!("{:<38} {:>11.1}%", "cache hits", 100.0 * r.cache_hit_rate);
    println!("{:<38} {:>12.0}", "NN evals/s (wall clock)", r.evals_per_s);
    println!("{:<38} {:>12.0}", "NN evals/s (inside the network)", r.evals_per_s_in_network);
    println!("{:<38} {:>12.0}", format!("bare network at batch {:.0}", r.mean_batch), r.raw_evals_per_s_at_mean_batch);
    println!("{:<38} {:>12.2}", "pipeline efficiency (wall / bare)", r.pipeline_efficiency);
    println!("{:<38} {:>12.2}", "network efficiency (inside / bare)", r.network_efficiency);
    println!("{:<38} {:>11.1}%", "time in the network", 100.0 * r.network_time_share);
    println!("{:<38} {:>12.1}", "f32 matmul GFLOP/s (the shares' base)", r.f32_matmul_gflops);
    println!(
        "{:<38} {:>12}",
        "GFLOP/s inside the network (share)",
        format!("{:.2} ({:.2})", r.gflops_in_network, r.share_of_f32_matmul_in_network)
    );
    println!(
        "{:<38} {:>12}",
        "GFLOP/s over the wall clock (share)",
        format!("{:.2} ({:.2})", r.gflops_overall, r.share_of_f32_matmul_overall)
    );
    Ok(())
}

/// Plays self-play from `start` for `budget` (games in flight when it runs out count for
/// their positions, not as games) and returns the engine's counters and the time taken.
fn time_self_play<G: Game + FromAnyGame>(
    start: G,
    model: &Model,
    precision: Precision,
    search: SearchConfig,
    play: SelfPlayConfig,
    seed: u64,
    budget: Duration,
) -> Result<(EngineStats, Duration)> {
    let mut evaluator = NetEvaluator::folding(model, precision);
    let starter = Box::new(move |_: &mut Rng| start.clone());
    let mut engine = SelfPlayEngine::new(search, play, starter, Rng::seed_from_u64(seed), None)?;
    let mut finished = Vec::new();
    let t0 = Instant::now();
    while t0.elapsed() < budget {
        engine.step(&mut evaluator, &mut finished);
        finished.clear();
    }
    Ok((engine.stats, t0.elapsed()))
}
