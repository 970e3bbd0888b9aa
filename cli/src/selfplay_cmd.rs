//! `dojo selfplay`: plays games with a checkpoint as a worker would, writes records
//! (`dojo_program::selfplay`).

use crate::common::{progress, DeviceArgs, PrecisionArgs};
use crate::settings::RunConfigArgs;
use anyhow::Result;
use clap::Args;
use dojo_net::checkpoint::read_sidecar;
use dojo_program::selfplay::{self_play, SelfPlayJob};
use dojo_run::config::RunConfig;
use dojo_search::config::ForcedVisits;
use std::path::PathBuf;

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
    pub(crate) run_config: RunConfigArgs,
    #[command(flatten)]
    search: SearchArgs,
    #[command(flatten)]
    precision: PrecisionArgs,
    /// Games played at once (the network batch is this wide) (default: selfplay.parallel_games).
    #[arg(long)]
    parallel: Option<usize>,
    /// Plies played at temperature 1 at the start of each game (default: selfplay.temperature_moves).
    #[arg(long)]
    temperature_moves: Option<u32>,
    /// Resign below this value (0 = never) (default: selfplay.resign_threshold).
    #[arg(long)]
    resign_threshold: Option<f32>,
    /// Playout cap randomisation: share of moves given the full search (--playouts) and kept
    /// as training targets; the rest get --fast-playouts without noise and are not trained on
    /// (default: selfplay.full_search_fraction).
    #[arg(long)]
    full_search_fraction: Option<f32>,
    /// Playouts of the fast searches (see --full-search-fraction) (default: selfplay.fast_simulations).
    #[arg(long)]
    fast_playouts: Option<u32>,
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
    pub playouts: Option<u32>,
    /// PUCT exploration constant (default: search.c_puct).
    #[arg(long)]
    pub c_puct: Option<f32>,
    /// Forced root visits in self-play: off, min:N (AlphaFive: min:2) or katago:K (default: search.forced_visits).
    #[arg(long)]
    pub forced_visits: Option<ForcedVisits>,
    /// AlphaFive's non-root Dirichlet noise weight, 0 = off (default: search.nonroot_noise_epsilon).
    #[arg(long)]
    pub nonroot_noise: Option<f32>,
    /// Threat-space search (Gomoku's VCF prover) of at most this many nodes at every
    /// expanded position, 0 = off (default: search.vcf_nodes).
    #[arg(long)]
    pub vcf_nodes: Option<u32>,
}

impl SelfPlayArgs {
    /// Sets the search and self-play settings given as flags in `config`.
    pub(crate) fn apply(&self, config: &mut RunConfig) {
        let (search, play) = (&mut config.search, &mut config.selfplay);
        set(&mut search.simulations, self.search.playouts);
        set(&mut search.c_puct, self.search.c_puct);
        set(&mut search.forced_visits, self.search.forced_visits);
        set(&mut search.nonroot_noise_epsilon, self.search.nonroot_noise);
        set(&mut search.vcf_nodes, self.search.vcf_nodes);
        set(&mut play.parallel_games, self.parallel);
        set(&mut play.temperature_moves, self.temperature_moves);
        set(&mut play.resign_threshold, self.resign_threshold);
        set(&mut play.full_search_fraction, self.full_search_fraction);
        set(&mut play.fast_simulations, self.fast_playouts);
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
    let mut config = args.run_config.load_for(&spec)?;
    args.apply(&mut config);
    let job = SelfPlayJob {
        model: &args.model,
        spec: &spec,
        config,
        games: args.games,
        precision: args.precision.precision,
        seed: args.seed.unwrap_or_else(rand::random),
        device,
        out: &args.out,
    };
    let bar = progress(args.games, "games");
    bar.set_prefix("selfplay");
    let summary = self_play(job, || bar.inc(1))?;
    bar.finish_and_clear();
    print!("{summary}");
    Ok(())
}
