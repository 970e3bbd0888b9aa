//! `dojo solve`: the exact Connect Four oracle. One position per input line (the moves from
//! the empty board, e.g. `4453`); one output line per input line with the exact score of
//! each column, `.` where a column cannot be played. With `--mistakes`, one finished game
//! per input line instead, and each side's first move that made its solved outcome worse.

use anyhow::{Context, Result};
use clap::Args;
use dojo_arbiter::match_report::game_of_line;
use dojo_core::game::connect4::Connect4;
use dojo_core::game::{AnyGame, Game, GameSpec};
use dojo_core::search::mistakes::{common_lines, first_mistakes, Mistake};
use dojo_core::search::solver::{Position, Solver};
use std::io::{BufRead, Write};

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
    let start = match spec.start()? {
        AnyGame::Connect4(g) => g,
        AnyGame::Connect4Wide(_) => {
            anyhow::bail!("{spec} is too big for the solver: it needs width × (height + 1) <= 64")
        }
        _ => anyhow::bail!("dojo solve only solves Connect Four, not {spec}"),
    };
    let mut solver = Solver::new();
    if args.mistakes {
        return run_mistakes(&start, &args, &mut solver);
    }
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

/// `--mistakes`: one verdict per game, then the most common lines of each side's first
/// mistake.
fn run_mistakes(start: &Connect4<u64>, args: &SolveArgs, solver: &mut Solver) -> Result<()> {
    let empty = Position::from_game(start);
    let mut out = std::io::stdout().lock();
    let mut games = Vec::new();
    for (number, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        let text = game_of_line(&line).unwrap_or_else(|| line.trim().to_string());
        if text.is_empty() {
            continue;
        }
        let verdict = start
            .moves_from_text(&text)
            .map_err(anyhow::Error::from)
            .and_then(|moves| {
                let columns: Vec<usize> = moves.iter().map(|&a| a as usize).collect();
                Ok((first_mistakes(&empty, &columns, solver, args.budget_nodes)?, moves, columns))
            })
            .with_context(|| format!("line {}: {text:?}", number + 1))?;
        let (verdict, moves, columns) = verdict;
        if args.json {
            writeln!(
                out,
                "{}",
                serde_json::json!({"game": text, "outcomes": verdict.outcomes, "mistakes": verdict.mistakes})
            )?;
        } else {
            let said: Vec<String> = ["first player", "second player"]
                .iter()
                .zip(&verdict.mistakes)
                .map(|(side, m)| format!("{side}: {}", m.as_ref().map_or("no mistake".into(), |m| describe(start, m))))
                .collect();
            writeln!(out, "{}  {}", start.moves_to_text(&moves), said.join("; "))?;
        }
        out.flush()?;
        games.push((columns, verdict));
    }
    if !args.json {
        for (side, name) in ["first player", "second player"].iter().enumerate() {
            let lines = common_lines(&games, side);
            if lines.is_empty() {
                continue;
            }
            writeln!(out, "{name}'s first mistakes, by the line up to them:")?;
            for (line, count) in lines.iter().take(10) {
                let moves: Vec<_> = line.iter().map(|&c| c as dojo_core::game::Action).collect();
                writeln!(out, "  {count:>4}  {}", start.moves_to_text(&moves))?;
            }
        }
    }
    Ok(())
}

/// "ply 7, column 2: win -> loss (4 kept it)".
fn describe(start: &Connect4<u64>, m: &Mistake) -> String {
    let column = start.moves_to_text(&[m.column as dojo_core::game::Action]);
    let better: Vec<_> = m.better.iter().map(|&c| start.moves_to_text(&[c as dojo_core::game::Action])).collect();
    let kept = if better.is_empty() { String::new() } else { format!(" ({} kept it)", better.join(" ")) };
    format!("move {}, column {column}: {} -> {}{kept}", m.ply + 1, m.before, m.after)
}
