//! `dojo pbrain`: a Gomoku network as a Gomocup (Piskvork) brain on stdin/stdout, so
//! tournament managers and other engines' tools can play it. The protocol is
//! `dojo_arbiter::gomocup`; stdout carries nothing but its answers (logs go to stderr).

use crate::analyse_cmd::{net_agent, PlayArgs};
use crate::common::DeviceArgs;
use anyhow::{bail, Context, Result};
use clap::Args;
use dojo_arbiter::gomocup::{Brain, MoveChooser, Reply};
use dojo_core::game::gomoku::Gomoku;
use dojo_core::game::{Action, AnyGame};
use dojo_core::net::agent::NetAgent;
use dojo_core::net::checkpoint::read_sidecar;
use dojo_core::search::player::Agent;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Args)]
pub struct PbrainArgs {
    /// Gomoku checkpoint to play with (its board size is the only one the brain accepts).
    #[arg(long)]
    model: PathBuf,
    /// Playouts per move when the manager sets no time limit (with one, the brain searches
    /// until its share of the time is spent).
    #[command(flatten)]
    search: PlayArgs,
    /// Evaluate the board as it stands instead of averaging over its 8 symmetries (8 times
    /// fewer network evaluations per playout).
    #[arg(long)]
    no_average: bool,
    /// Under a time limit, stop at this many playouts a move even with time left (default:
    /// search until the move's time is spent). Makes games against a clock quick.
    #[arg(long)]
    max_sims: Option<u32>,
    #[command(flatten)]
    device: DeviceArgs,
}

/// The most playouts a timed search may run (the clock stops it long before on any board).
const MAX_TIMED_PLAYOUTS: u32 = 10_000_000;

struct NetChooser {
    agent: NetAgent<Gomoku>,
    /// The most playouts of a timed search.
    max_timed: u32,
}

impl MoveChooser for NetChooser {
    fn choose(&mut self, game: &Gomoku, deadline: Option<Instant>) -> Action {
        match deadline {
            Some(deadline) => self.agent.select_move_until(game, deadline, self.max_timed),
            None => self.agent.select_move(game),
        }
    }
}

pub fn run(args: PbrainArgs) -> Result<()> {
    let device = args.device.init()?;
    let spec = read_sidecar(&args.model)?.architecture.game;
    let Ok(AnyGame::Gomoku(start)) = spec.start() else {
        bail!("{}: a network for {spec}; the Gomocup protocol plays Gomoku", args.model.display());
    };
    let mut agent = net_agent(&args.model, &spec, &start, &args.search, !args.no_average, device)?;
    agent.new_game(0);
    let about = format!(
        "name=\"dojo\", version=\"{}\", author=\"dojo developers\", country=\"-\", model=\"{}\"",
        env!("CARGO_PKG_VERSION"),
        args.model.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned())
    );
    let mut brain = Brain::new(
        start.size(),
        NetChooser { agent, max_timed: args.max_sims.unwrap_or(MAX_TIMED_PLAYOUTS).max(1) },
        about,
    );
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.context("reading the manager's commands")?;
        match brain.handle(&line) {
            Reply::Lines(lines) => {
                for l in lines {
                    writeln!(stdout, "{l}")?;
                }
                stdout.flush()?;
            }
            Reply::End => break,
        }
    }
    Ok(())
}
