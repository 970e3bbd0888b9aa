//! `dojo solve`: the exact Connect Four oracle. One position per input line (the moves from
//! the empty board, e.g. `4453`); one output line per input line with the exact score of
//! each column, `.` where a column cannot be played.

use anyhow::{Context, Result};
use clap::Args;
use dojo_core::game::connect4::Connect4;
use dojo_core::game::{AnyGame, Game, GameSpec};
use dojo_core::search::solver::{Position, Solver};
use std::io::{BufRead, Write};

#[derive(Args)]
pub struct SolveArgs {
    /// Connect Four board: connect4 (7x6) or connect4:WxH[:C.R,...] with W×(H+1) <= 64.
    #[arg(long, default_value = "connect4")]
    game: String,
    /// One JSON object per line: {"position", "scores", "score", "best"}.
    #[arg(long)]
    json: bool,
}

pub fn run(args: SolveArgs) -> Result<()> {
    let spec: GameSpec = args.game.parse().context("--game")?;
    let start = match spec.start()? {
        AnyGame::Connect4(g) => g,
        AnyGame::Connect4Wide(_) => {
            anyhow::bail!("{spec} is too big for the solver: it needs width × (height + 1) <= 64")
        }
        _ => anyhow::bail!("dojo solve only solves Connect Four, not {spec}"),
    };
    let mut solver = Solver::new();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut failures = 0usize;
    for (number, line) in stdin.lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        let text = line.trim();
        match analyze(&start, text, &mut solver) {
            Ok(scores) => {
                if args.json {
                    let best = scores.iter().flatten().max().copied();
                    let best_columns: Vec<usize> = scores
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.is_some() && **s == best)
                        .map(|(c, _)| c + 1)
                        .collect();
                    let value =
                        serde_json::json!({"position": text, "scores": scores, "score": best, "best": best_columns});
                    writeln!(out, "{value}")?;
                } else {
                    let cells: Vec<String> =
                        scores.iter().map(|s| s.map_or_else(|| ".".to_string(), |v| v.to_string())).collect();
                    writeln!(out, "{}", cells.join(" "))?;
                }
            }
            Err(e) => {
                failures += 1;
                eprintln!("dojo solve: line {}: {e}", number + 1);
                if args.json {
                    writeln!(out, "{}", serde_json::json!({"position": text, "error": e.to_string()}))?;
                } else {
                    writeln!(out, "error: {e}")?;
                }
            }
        }
        out.flush()?;
    }
    if failures > 0 {
        anyhow::bail!("{failures} position(s) could not be solved (see the errors above)");
    }
    Ok(())
}

/// The score of each column for the side to move in the position `moves` (None: full).
fn analyze(start: &Connect4<u64>, moves: &str, solver: &mut Solver) -> Result<Vec<Option<i32>>> {
    let mut game = start.clone();
    for action in game.moves_from_text(moves)? {
        game.play(action)?;
    }
    if game.outcome().is_some() {
        anyhow::bail!("position {moves:?} is already over");
    }
    let position = Position::from_game(&game);
    Ok(solver.analyze(&position))
}
