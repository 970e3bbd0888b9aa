//! The exact Connect Four oracle on a stream (`dojo solve`): each position's column scores,
//! or each finished game's first mistakes by side and the lines they were made on.

use dojo_arbiter::match_report::game_of_line;
use dojo_game::connect4::solver::{Position, Solver};
use dojo_game::connect4::Connect4;
use dojo_game::{Action, AnyGame, Game, GameError, GameSpec};
use dojo_grading::judge::position_after;
use dojo_search::mistakes::{common_lines, first_mistakes, Mistake};
use std::io::{BufRead, Write};

#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error(transparent)]
    Game(#[from] GameError),
    #[error("{spec} is too big for the solver: it needs width × (height + 1) <= 64")]
    TooBig { spec: GameSpec },
    #[error("dojo solve only solves Connect Four, not {spec}")]
    NotConnect4 { spec: GameSpec },
    #[error("line {line}: {text:?}: {error}")]
    GameLine { line: usize, text: String, error: GameError },
    #[error("{failures} position(s) could not be solved (see the errors above)")]
    Unsolved { failures: usize },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The board `spec` names, if the solver can solve it.
pub fn solvable(spec: &GameSpec) -> Result<Connect4<u64>, SolveError> {
    match spec.start()? {
        AnyGame::Connect4(g) => Ok(g),
        AnyGame::Connect4Wide(_) => Err(SolveError::TooBig { spec: spec.clone() }),
        _ => Err(SolveError::NotConnect4 { spec: spec.clone() }),
    }
}

/// For each line of `input` (a position's moves from `start`), the exact score of each
/// column for the side to move (`.` where full), or with `json` one object
/// `{"position", "scores", "score", "best"}`; a line that is no position gets an error
/// line (said on `errors` too, for a person watching), and the whole fails at the end.
pub fn solve_positions(
    start: &Connect4<u64>,
    input: impl BufRead,
    mut out: impl Write,
    mut errors: impl Write,
    json: bool,
) -> Result<(), SolveError> {
    let mut solver = Solver::new();
    let mut failures = 0usize;
    for (number, line) in input.lines().enumerate() {
        let line = line?;
        let text = line.trim();
        match position_after(start, text) {
            Ok(game) => {
                let scores = solver.analyze(&Position::from_game(&game));
                writeln!(out, "{}", scores_line(text, &scores, json))?;
            }
            Err(e) => {
                failures += 1;
                writeln!(errors, "dojo solve: line {}: {e}", number + 1)?;
                match json {
                    true => writeln!(out, "{}", serde_json::json!({"position": text, "error": e.to_string()}))?,
                    false => writeln!(out, "error: {e}")?,
                }
            }
        }
        out.flush()?;
    }
    match failures {
        0 => Ok(()),
        failures => Err(SolveError::Unsolved { failures }),
    }
}

/// One position's answer: the scores, `.` for a full column; or the JSON object.
fn scores_line(position: &str, scores: &[Option<i32>], json: bool) -> String {
    if !json {
        let cells: Vec<String> = scores.iter().map(|s| s.map_or_else(|| ".".to_string(), |v| v.to_string())).collect();
        return cells.join(" ");
    }
    let best = scores.iter().flatten().max().copied();
    let best_columns: Vec<usize> =
        scores.iter().enumerate().filter(|(_, s)| s.is_some() && **s == best).map(|(c, _)| c + 1).collect();
    serde_json::json!({"position": position, "scores": scores, "score": best, "best": best_columns}).to_string()
}

/// For each finished game on `input` (its moves from `start`; `dojo match --verbose` lines
/// are read too), each side's first mistake: the first move that turned its solved outcome
/// worse, the solver spending at most `budget` nodes a position; then, without `json`, the
/// lines the mistakes were made on, most frequent first.
pub fn first_mistakes_of_games(
    start: &Connect4<u64>,
    input: impl BufRead,
    mut out: impl Write,
    json: bool,
    budget: u64,
) -> Result<(), SolveError> {
    let mut solver = Solver::new();
    let empty = Position::from_game(start);
    let mut games = Vec::new();
    for (number, line) in input.lines().enumerate() {
        let line = line?;
        let text = game_of_line(&line).unwrap_or_else(|| line.trim().to_string());
        if text.is_empty() {
            continue;
        }
        let at_line = |error| SolveError::GameLine { line: number + 1, text: text.clone(), error };
        let moves = start.moves_from_text(&text).map_err(at_line)?;
        let columns: Vec<usize> = moves.iter().map(|&a| a as usize).collect();
        let verdict = first_mistakes(&empty, &columns, &mut solver, budget).map_err(at_line)?;
        if json {
            let value = serde_json::json!({"game": text, "outcomes": verdict.outcomes, "mistakes": verdict.mistakes});
            writeln!(out, "{value}")?;
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
    if json {
        return Ok(());
    }
    for (side, name) in ["first player", "second player"].iter().enumerate() {
        let lines = common_lines(&games, side);
        if !lines.is_empty() {
            writeln!(out, "{name}'s first mistakes, by the line up to them:")?;
        }
        for (line, count) in lines.iter().take(10) {
            let moves: Vec<Action> = line.iter().map(|&c| c as Action).collect();
            writeln!(out, "  {count:>4}  {}", start.moves_to_text(&moves))?;
        }
    }
    Ok(())
}

/// "move 7, column 2: win -> loss (4 kept it)".
fn describe(start: &Connect4<u64>, m: &Mistake) -> String {
    let column = start.moves_to_text(&[m.column as Action]);
    let better: Vec<_> = m.better.iter().map(|&c| start.moves_to_text(&[c as Action])).collect();
    let kept = if better.is_empty() { String::new() } else { format!(" ({} kept it)", better.join(" ")) };
    format!("move {}, column {column}: {} -> {}{kept}", m.ply + 1, m.before, m.after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_position_gets_its_exact_scores_and_a_line_that_is_none_an_error() {
        let start = solvable(&"connect4".parse().unwrap()).unwrap();
        // Two of Pons' test positions (score -1 and +1 for the side to move), then a column
        // played an eighth time.
        let input = "2252576253462244111563365343671351441\n7422341735647741166133573473242566\n44444444\n";
        let mut out = Vec::new();
        let mut said = Vec::new();
        let err = solve_positions(&start, input.as_bytes(), &mut out, &mut said, true).unwrap_err();
        assert!(String::from_utf8(said).unwrap().starts_with("dojo solve: line 3: "));
        assert_eq!(err.to_string(), "1 position(s) could not be solved (see the errors above)");
        let lines: Vec<serde_json::Value> =
            String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!((lines[0]["score"].as_i64(), lines[1]["score"].as_i64()), (Some(-1), Some(1)));
        let best = lines[1]["best"].as_array().unwrap();
        let scores = lines[1]["scores"].as_array().unwrap();
        assert!(best.iter().all(|c| scores[c.as_u64().unwrap() as usize - 1].as_i64() == Some(1)));
        assert_eq!(lines[2]["position"], "44444444");
        assert!(lines[2]["error"].as_str().is_some_and(|e| !e.is_empty()), "{}", lines[2]);

        // As text (a small board, solved at once): one score per column, '.' for a full one.
        let small = solvable(&"connect4:5x4".parse().unwrap()).unwrap();
        let mut out = Vec::new();
        solve_positions(&small, "4444\n".as_bytes(), &mut out, std::io::sink(), false).unwrap();
        let text = String::from_utf8(out).unwrap();
        let cells: Vec<&str> = text.split_whitespace().collect();
        assert_eq!((cells.len(), cells[3]), (5, "."));
        assert!(cells.iter().enumerate().all(|(c, v)| c == 3 || v.parse::<i32>().is_ok()), "{text}");
    }

    #[test]
    fn boards_the_solver_cannot_take_are_named() {
        let err = |spec: &str| solvable(&spec.parse().unwrap()).unwrap_err().to_string();
        assert_eq!(err("gomoku:9"), "dojo solve only solves Connect Four, not gomoku:9");
        assert_eq!(err("connect4:9x7"), "connect4:9x7 is too big for the solver: it needs width × (height + 1) <= 64");
    }
}
