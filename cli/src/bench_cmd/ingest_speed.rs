//! `dojo bench ingest`: the learner's intake under many clients on loopback
//! (`dojo_program::bench::ingest_speed`).

use anyhow::Result;
use clap::Args;
use dojo_program::bench::ingest_speed::{bench_ingest, Load};

#[derive(Args)]
pub struct IngestArgs {
    /// Concurrent clients (each one connection).
    #[arg(long, default_value_t = 16)]
    clients: usize,
    /// Flood: games in total, split among the clients.
    #[arg(long, default_value_t = 2000)]
    games: usize,
    /// Flood: games per SubmitGames call (1 = every game is its own round trip).
    #[arg(long, default_value_t = 1)]
    games_per_call: usize,
    /// Games per second each client sends (one per call), as workers do, instead of a flood; runs for --seconds.
    #[arg(long)]
    rate: Option<f64>,
    /// With --rate: how long to send.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: IngestArgs) -> Result<()> {
    let load = Load {
        clients: args.clients,
        games: args.games,
        batch: args.games_per_call,
        rate: args.rate,
        seconds: args.seconds,
    };
    let report = bench_ingest(load)?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!("{report}");
    }
    Ok(())
}
