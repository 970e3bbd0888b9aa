//! `dojo`: the one command users run. Each subcommand lives in its own module and only
//! parses arguments, wires the library crates together and prints.

mod match_cmd;
mod solve_cmd;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "dojo", version, about = "AlphaZero-style self-play training for board games")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play two players against each other and report wins, draws and losses.
    Match(match_cmd::MatchArgs),
    /// Print the exact score of every move for Connect Four positions read from stdin.
    Solve(solve_cmd::SolveArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Match(args) => match_cmd::run(args),
        Command::Solve(args) => solve_cmd::run(args),
    };
    if let Err(e) = result {
        eprintln!("dojo: error: {e:#}");
        std::process::exit(1);
    }
}
