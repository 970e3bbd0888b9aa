//! `dojo bench search`: the searches and the game engines without a network
//! (`dojo_arbiter::bench`).

use anyhow::{bail, Context, Result};
use clap::Args;
use dojo_arbiter::bench::{measure_search, search_header};
use dojo_game::GameSpec;
use std::time::Duration;

#[derive(Args)]
pub struct SearchBenchArgs {
    /// Games to measure, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "connect4,gomoku:9,gomoku:15,2048,2584")]
    game: Vec<String>,
    /// Playouts per PUCT search and rollouts per MCTS move (each search starts afresh from the start position).
    #[arg(long, default_value_t = 1000)]
    playouts: u32,
    /// Milliseconds each measurement runs.
    #[arg(long, default_value_t = 1000)]
    millis: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: SearchBenchArgs) -> Result<()> {
    if args.playouts == 0 {
        bail!("--playouts must be at least 1");
    }
    if args.millis == 0 {
        bail!("--millis must be at least 1");
    }
    let budget = Duration::from_millis(args.millis);
    let mut rows = Vec::new();
    for text in &args.game {
        let spec: GameSpec = text.parse().with_context(|| format!("--game {text}"))?;
        let start = spec.start()?;
        let row = measure_search(&start, &spec, args.playouts, budget)?;
        if !args.json {
            if rows.is_empty() {
                println!("{}", search_header(args.playouts));
            }
            println!("{row}");
        }
        rows.push(row);
    }
    if args.json {
        println!("{}", serde_json::json!({ "simulations": args.playouts, "rows": rows }));
    }
    Ok(())
}
