//! `dojo bench selfplay`: self-play as a worker plays it, against the bare network
//! (`dojo_net::bench::selfplay_speed`).

use super::NetChoice;
use crate::common::{DeviceArgs, PrecisionArgs};
use anyhow::{bail, Result};
use clap::Args;
use dojo_net::bench::selfplay_speed::{time_self_play, SelfPlayOptions};
use dojo_search::config::{SearchConfig, SelfPlayConfig};
use std::time::Duration;

#[derive(Args)]
pub struct SelfPlayBenchArgs {
    #[command(flatten)]
    net: NetChoice,
    /// Playouts of a full search (default: a run's default, search.simulations).
    #[arg(long, default_value_t = SearchConfig::default().simulations)]
    playouts: u32,
    /// Playouts of the fast searches of playout cap randomisation (selfplay.fast_simulations).
    #[arg(long, default_value_t = SelfPlayConfig::default().fast_simulations)]
    fast_playouts: u32,
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
    let search = SearchConfig { simulations: args.playouts, ..SearchConfig::default() };
    let play = SelfPlayConfig {
        parallel_games: args.parallel,
        fast_simulations: args.fast_playouts,
        full_search_fraction: args.full_search_fraction,
        ..SelfPlayConfig::default()
    };
    search.validate()?;
    play.validate()?;
    let device = args.device.init()?;
    let (spec, model) = args.net.load(device)?;
    let precision = args.precision.choose(&model, play.parallel_games)?;
    let start = dojo_record::record_start(&spec)?;
    let budget = Duration::from_secs_f64(args.seconds);
    let options = SelfPlayOptions { search, play, precision, seed: args.seed, budget, matmul_size: args.matmul_size };
    let report = time_self_play(start, &spec, &model, options)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{report}");
    }
    Ok(())
}
