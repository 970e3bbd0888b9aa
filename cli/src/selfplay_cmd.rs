//! `dojo selfplay`: plays games with a checkpoint and the batched PUCT search, writes records.

use crate::common::{load_checkpoint, progress, record_start_of, DeviceArgs, PrecisionArgs};
use crate::settings::RunConfigArgs;
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

/// Every search and self-play default is the run config's (`--config`, else the built-in
/// one); the flags below set one setting each, and `--set` any other.
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
    run_config: RunConfigArgs,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    precision: PrecisionArgs,
    /// Games played at once (the network batch is this wide) (default: selfplay.parallel_games).
    #[arg(long)]
    parallel: Option<usize>,
    /// Plies played at temperature 1 at the start of each game (default:
    /// selfplay.temperature_moves).
    #[arg(long)]
    temperature_moves: Option<u32>,
    /// Resign below this value (0 = never) (default: selfplay.resign_threshold).
    #[arg(long)]
    resign_threshold: Option<f32>,
    /// Playout cap randomisation: share of moves given the full search (--sims) and kept as
    /// training targets; the rest get --fast-sims without noise and are not trained on
    /// (default: selfplay.full_search_fraction).
    #[arg(long)]
    full_search_fraction: Option<f32>,
    /// Playouts of the fast searches (see --full-search-fraction) (default:
    /// selfplay.fast_simulations).
    #[arg(long)]
    fast_sims: Option<u32>,
    /// Each game opens with 0..=N uniformly random moves (not trained on), so the network
    /// meets openings its own play avoids; 0 = off (default: selfplay.random_opening_plies).
    #[arg(long)]
    random_opening_plies: Option<u32>,
    /// Seed (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    device: DeviceArgs,
}

/// Search settings of self-play, each a flag for one key of the run config's `[search]`
/// section (default: the run config's).
#[derive(Args, Clone, Debug)]
pub struct SearchArgs {
    /// Playouts per move (default: search.simulations).
    #[arg(long)]
    pub sims: Option<u32>,
    /// PUCT exploration constant (default: search.c_puct).
    #[arg(long)]
    pub c_puct: Option<f32>,
    /// Forced root visits in self-play: off, min:N (AlphaFive: min:2) or katago:K (default:
    /// search.forced_visits).
    #[arg(long)]
    pub forced_visits: Option<ForcedVisits>,
    /// AlphaFive's non-root Dirichlet noise weight, 0 = off (default:
    /// search.nonroot_noise_epsilon).
    #[arg(long)]
    pub nonroot_noise: Option<f32>,
    /// Threat-space search (Gomoku's VCF prover) of at most this many nodes at every
    /// expanded position, 0 = off (default: search.vcf_nodes).
    #[arg(long)]
    pub vcf_nodes: Option<u32>,
}

impl SearchArgs {
    /// Sets the settings given as flags in `search`.
    fn apply(&self, search: &mut SearchConfig) {
        set(&mut search.simulations, self.sims);
        set(&mut search.c_puct, self.c_puct);
        set(&mut search.forced_visits, self.forced_visits);
        set(&mut search.nonroot_noise_epsilon, self.nonroot_noise);
        set(&mut search.vcf_nodes, self.vcf_nodes);
    }
}

impl SelfPlayArgs {
    /// Sets the self-play settings given as flags in `play`.
    fn apply(&self, play: &mut SelfPlayConfig) {
        set(&mut play.parallel_games, self.parallel);
        set(&mut play.temperature_moves, self.temperature_moves);
        set(&mut play.resign_threshold, self.resign_threshold);
        set(&mut play.full_search_fraction, self.full_search_fraction);
        set(&mut play.fast_simulations, self.fast_sims);
        set(&mut play.random_opening_plies, self.random_opening_plies);
    }
}

/// A flag's value where it was given.
fn set<T>(setting: &mut T, flag: Option<T>) {
    if let Some(value) = flag {
        *setting = value;
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
    let mut config = args.run_config.load_for(spec)?;
    args.search.apply(&mut config.search);
    args.apply(&mut config.selfplay);
    let mut play = config.selfplay;
    play.parallel_games = play.parallel_games.min(args.games.max(1) as usize);
    let precision = args.precision.choose(&loaded.model, play.parallel_games)?;
    let mut evaluator = NetEvaluator::with_precision(loaded.model, precision);
    let seed = args.seed.unwrap_or_else(rand::random);
    let starter = {
        let start = start.clone();
        Box::new(move |_: &mut Rng| start.clone())
    };
    let mut engine = SelfPlayEngine::new(config.search, play, starter, Rng::seed_from_u64(seed), Some(args.games))?;
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
