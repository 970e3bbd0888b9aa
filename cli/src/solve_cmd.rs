//! `dojo solve`: the exact Connect Four oracle. One position per input line (the moves from
//! the empty board, e.g. `4453`); one output line per input line with the exact score of
//! each column, `.` where a column cannot be played. With `--mistakes`, one finished game
//! per input line instead, and each side's first move that made its solved outcome worse
//! (`dojo_program::solve`).

use anyhow::{Context, Result};
use clap::Args;
use dojo_game::GameSpec;
use dojo_program::solve::{first_mistakes_of_games, solvable, solve_positions};

#[derive(Args)]
pub struct SolveArgs {
    /// Connect Four board: connect4 (7x6) or connect4:WxH[:C.R,...] with W×(H+1) <= 64.
    #[arg(long, default_value = "connect4")]
    game: String,
    /// One JSON object per line: {"position", "scores", "score", "best"} (with --mistakes:
    /// {"game", "outcomes", "mistakes"}).
    #[arg(long)]
    json: bool,
    /// Read finished games (their moves from the empty board; `dojo match --verbose` lines are
    /// read too) and name each side's first mistake: the first move that turned its outcome
    /// (win, draw, loss) worse, with the columns that kept it; then the lines the mistakes
    /// were made on, most frequent first.
    #[arg(long)]
    mistakes: bool,
    /// With --mistakes: the solver's node budget per position (a position it cannot settle
    /// in it stays unknown, and no mistake is named across it).
    #[arg(long, default_value_t = 20_000_000)]
    budget_nodes: u64,
}

pub fn run(args: SolveArgs) -> Result<()> {
    let spec: GameSpec = args.game.parse().context("--game")?;
    let start = solvable(&spec)?;
    let (input, output) = (std::io::stdin().lock(), std::io::stdout().lock());
    match args.mistakes {
        true => first_mistakes_of_games(&start, input, output, args.json, args.budget_nodes)?,
        false => solve_positions(&start, input, output, std::io::stderr(), args.json)?,
    }
    Ok(())
}
