//! The positions of a positions file, each with its verdict, as `dojo eval` grades them:
//! Connect Four by the solver (plain move strings) or by its stored scores (labelled lines
//! from `dojo positions --pons`), Gomoku by one-move tactics (a position without one is
//! kept with no verdict, counted as skipped).

use super::grade::{labelled_verdict, solver_verdict, tactic_verdict, Case};
use super::labelled::{parse_lines, LabelledError, PositionLine};
use dojo_game::connect4::solver::Solver;
use dojo_game::connect4::Connect4;
use dojo_game::gomoku::Gomoku;
use dojo_game::{AnyGame, Game, GameError, GameSpec};

#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error("{file}: {error}")]
    Lines { file: String, error: LabelledError },
    #[error("{file} line {line}: {error}")]
    Position { file: String, line: usize, error: LineError },
    #[error(
        "dojo eval judges Connect Four (width × (height + 1) <= 64, by the solver) and Gomoku (by one-move tactics), not {spec}"
    )]
    Unjudged { spec: GameSpec },
    #[error(transparent)]
    Game(#[from] GameError),
}

/// A file's cases, typed by the game they are judged in.
pub enum Judged {
    Connect4(Connect4, Vec<Case<Connect4>>),
    Gomoku(Gomoku, Vec<Case<Gomoku>>),
}

/// Judges the positions in `text` (the file `file`) on `spec`'s board; `tick` runs after
/// each line (progress).
pub fn judge_file(spec: &GameSpec, text: &str, file: &str, mut tick: impl FnMut()) -> Result<Judged, JudgeError> {
    let lines = parse_lines(text).map_err(|error| JudgeError::Lines { file: file.to_string(), error })?;
    match spec.start()? {
        AnyGame::Connect4(start) => {
            let mut solver = Solver::new();
            let cases = cases(&start, &lines, file, &mut tick, |game, line| {
                Ok(Some(match line {
                    PositionLine::Labelled(l) => (l.position(&start)?, labelled_verdict(l)),
                    PositionLine::Plain(_) => (game.clone(), solver_verdict(&mut solver, game)),
                }))
            })?;
            Ok(Judged::Connect4(start, cases))
        }
        AnyGame::Gomoku(start) => {
            let cases = cases(&start, &lines, file, &mut tick, |game, line| match line {
                PositionLine::Labelled(_) => Err(LineError::LabelledNotConnect4),
                PositionLine::Plain(_) => Ok(tactic_verdict(game).map(|v| (game.clone(), v))),
            })?;
            Ok(Judged::Gomoku(start, cases))
        }
        _ => Err(JudgeError::Unjudged { spec: spec.clone() }),
    }
}

/// Why a line's moves give no position to judge.
#[derive(Debug, thiserror::Error)]
pub enum PositionError {
    #[error(transparent)]
    Game(#[from] GameError),
    #[error("position {moves:?} is already over")]
    Over { moves: String },
}

/// Why a line of a positions file gives no case.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    #[error(transparent)]
    Position(#[from] PositionError),
    #[error(transparent)]
    Labelled(#[from] LabelledError),
    #[error("labelled positions are Connect Four's")]
    LabelledNotConnect4,
}

/// The position `moves` (text) reaches from `start`; it must not be over.
pub fn position_after<G: Game>(start: &G, moves: &str) -> Result<G, PositionError> {
    let mut game = start.clone();
    for action in game.moves_from_text(moves)? {
        game.play(action)?;
    }
    if game.outcome().is_some() {
        return Err(PositionError::Over { moves: moves.to_string() });
    }
    Ok(game)
}

/// The cases of a file's lines. `judge` gets the position a plain line reaches (labelled
/// lines: the start, as it checks them itself) and returns the position and its verdict,
/// None for nothing to judge.
fn cases<G: Game>(
    start: &G,
    lines: &[(usize, PositionLine)],
    file: &str,
    tick: &mut impl FnMut(),
    mut judge: impl FnMut(&G, &PositionLine) -> Result<Option<(G, super::Verdict)>, LineError>,
) -> Result<Vec<Case<G>>, JudgeError> {
    let at = |line: usize| move |error: LineError| JudgeError::Position { file: file.to_string(), line, error };
    let mut out = Vec::with_capacity(lines.len());
    for (number, line) in lines {
        tick();
        let game = match line {
            PositionLine::Plain(moves) => position_after(start, moves).map_err(|e| at(*number)(e.into()))?,
            PositionLine::Labelled(_) => start.clone(),
        };
        out.push(match judge(&game, line).map_err(at(*number))? {
            Some((game, verdict)) => Case { game, verdict: Some(verdict) },
            None => Case { game, verdict: None },
        });
    }
    Ok(out)
}
