//! `dojo selfplay`: plays games with a checkpoint and the batched PUCT search, writes records.

use crate::common::{load_checkpoint, progress, record_start_of, DeviceArgs, PrecisionArgs};
use anyhow::Result;
use clap::Args;
use dojo_core::game::{FromAnyGame, Game, GameSpec, Player};
use dojo_core::net::checkpoint::read_sidecar;
use dojo_core::net::infer::NetEvaluator;
use dojo_core::ntuple::report::{GameScore, ScoreReport};
use dojo_core::record::{write_records, GameRecord};
use dojo_core::rng::Rng;
use dojo_core::search::config::{ForcedVisits, SearchConfig, SelfPlayConfig};
use dojo_core::search::evaluator::Evaluator;
use dojo_core::search::selfplay::{winner, SelfPlayEngine};
use dojo_core::with_game;
use rand::SeedableRng;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct SelfPlayArgs {
    /// Checkpoint to play with.
    #[arg(long)]
    model: PathBuf,
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Records file to write.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    precision: PrecisionArgs,
    /// Games played at once (the network batch is this wide).
    #[arg(long, default_value_t = SelfPlayConfig::default().parallel_games)]
    parallel: usize,
    /// Plies played at temperature 1 at the start of each game.
    #[arg(long, default_value_t = 8)]
    temperature_moves: u32,
    /// Resign below this value (0 = never).
    #[arg(long, default_value_t = 0.0)]
    resign_threshold: f32,
    /// Playout cap randomisation: share of moves given the full search (--sims) and kept as
    /// training targets; the rest get --fast-sims without noise and are not trained on.
    #[arg(long, default_value_t = SelfPlayConfig::default().full_search_fraction)]
    full_search_fraction: f32,
    /// Playouts of the fast searches (see --full-search-fraction).
    #[arg(long, default_value_t = SelfPlayConfig::default().fast_simulations)]
    fast_sims: u32,
    /// Each game opens with 0..=N uniformly random moves (not trained on), so the network
    /// meets openings its own play avoids; 0 = off.
    #[arg(long, default_value_t = SelfPlayConfig::default().random_opening_plies)]
    random_opening_plies: u32,
    /// Seed (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    device: DeviceArgs,
}

/// Search settings shared by the commands that search with a network.
#[derive(Args, Clone, Debug)]
pub struct SearchArgs {
    /// Playouts per move.
    #[arg(long, default_value_t = 200)]
    pub sims: u32,
    /// PUCT exploration constant.
    #[arg(long, default_value_t = SearchConfig::default().c_puct)]
    pub c_puct: f32,
    /// Forced root visits in self-play: off, min:N (AlphaFive: min:2) or katago:K.
    #[arg(long, default_value = "katago:2")]
    pub forced_visits: ForcedVisits,
    /// AlphaFive's non-root Dirichlet noise weight (0 = off).
    #[arg(long, default_value_t = 0.0)]
    pub nonroot_noise: f32,
    /// Threat-space search (Gomoku's VCF prover) of at most this many nodes at every
    /// expanded position (`search.vcf_nodes`); 0 = off.
    #[arg(long, default_value_t = 0)]
    pub vcf_nodes: u32,
}

impl SearchArgs {
    pub fn config(&self) -> SearchConfig {
        SearchConfig {
            simulations: self.sims,
            c_puct: self.c_puct,
            forced_visits: self.forced_visits,
            nonroot_noise_epsilon: self.nonroot_noise,
            vcf_nodes: self.vcf_nodes,
            ..SearchConfig::default()
        }
    }
}

pub fn run(args: SelfPlayArgs) -> Result<()> {
    let device = args.device.init()?;
    let spec = read_sidecar(&args.model)?.architecture.game;
    let start = record_start_of(&spec)?;
    with_game!(start, g => run_typed(g, &spec, &args, device))
}

fn run_typed<G: Game + FromAnyGame>(start: G, spec: &GameSpec, args: &SelfPlayArgs, device: tch::Device) -> Result<()> {
    let loaded = load_checkpoint(&args.model, device, Some(spec))?;
    let version = loaded.sidecar.version;
    let play = SelfPlayConfig {
        parallel_games: args.parallel.min(args.games.max(1) as usize),
        temperature_moves: args.temperature_moves,
        resign_threshold: args.resign_threshold,
        full_search_fraction: args.full_search_fraction,
        fast_simulations: args.fast_sims,
        random_opening_plies: args.random_opening_plies,
        ..SelfPlayConfig::default()
    };
    let precision = args.precision.choose(&loaded.model, play.parallel_games)?;
    let mut evaluator = NetEvaluator::with_precision(loaded.model, precision);
    let seed = args.seed.unwrap_or_else(rand::random);
    let starter = {
        let start = start.clone();
        Box::new(move |_: &mut Rng| start.clone())
    };
    let mut engine =
        SelfPlayEngine::new(args.search.config(), play, starter, Rng::seed_from_u64(seed), Some(args.games))?;
    engine.set_model_version(version);
    let bar = progress(args.games, "games");
    bar.set_prefix("selfplay");
    let t0 = Instant::now();
    let records: Vec<GameRecord> = engine.play_games(&mut evaluator, |_| bar.inc(1));
    bar.finish_and_clear();
    let secs = t0.elapsed().as_secs_f64();
    write_records(&args.out, &records)?;
    let s = engine.stats;
    let first_wins = records.iter().filter(|r| winner(r) == Some(Player::First)).count();
    let draws = records.iter().filter(|r| winner(r).is_none()).count();
    let eval_secs = s.eval_time.as_secs_f64();
    let targets: usize = records.iter().map(|r| r.training_moves()).sum();
    println!(
        "wrote {} games ({} positions, {} training targets) to {}",
        records.len(),
        s.moves,
        targets,
        args.out.display()
    );
    println!(
        "{:.1} s: {:.2} games/s, {:.1} positions/s, {:.0} NN evals/s overall ({:.0}/s inside the {}, mean batch {:.1}, {} cache hits)",
        secs,
        records.len() as f64 / secs,
        s.moves as f64 / secs,
        s.evals as f64 / secs,
        s.evals as f64 / eval_secs.max(1e-9),
        evaluator.describe(),
        s.evals as f64 / s.batches.max(1) as f64,
        s.cache_hits
    );
    if start.is_one_player() {
        let scores: Vec<GameScore> = records.iter().filter_map(GameScore::of_record).collect();
        print!("{}", ScoreReport::new(spec, &scores));
        return Ok(());
    }
    println!(
        "first player won {:.1}%, draws {:.1}%, mean length {:.1} plies",
        100.0 * first_wins as f64 / records.len().max(1) as f64,
        100.0 * draws as f64 / records.len().max(1) as f64,
        s.moves as f64 / records.len().max(1) as f64
    );
    Ok(())
}
