//! Where a Connect Four game was decided: the solver's outcome (win, draw or loss for the
//! side to move) of every position of a game, and for each side the first move that made
//! its outcome worse. `dojo solve --mistakes` prints them for games as `dojo match --verbose`
//! lists them: that is how a network's losses to `mcts:N` are traced to the line it keeps
//! losing (issue 35's first-player hole).
//!
//! Positions are solved from the end of the game backwards: late positions are cheap, and
//! what they leave in the transposition table makes the earlier ones cheaper. Each solve has
//! a node budget; a position the solver cannot settle in it stays unknown, and a mistake is
//! only named between two known outcomes.

use dojo_game::connect4::solver::{Position, Solver};
use dojo_game::{GameError, MoveProblem};
use serde::Serialize;
use std::fmt;

/// A game-theoretic outcome for the side to move, worst first (so `<` reads "worse").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Loss,
    Draw,
    Win,
}

impl Outcome {
    fn from_weak(score: i32) -> Outcome {
        match score.signum() {
            1 => Outcome::Win,
            0 => Outcome::Draw,
            _ => Outcome::Loss,
        }
    }

    /// The same outcome from the other side.
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
            Outcome::Win => Outcome::Loss,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Loss => "loss",
            Outcome::Draw => "draw",
            Outcome::Win => "win",
        })
    }
}

/// A move that turned its player's outcome from `before` to the worse `after`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mistake {
    /// The move's index in the game, from 0 (even: the first player's).
    pub ply: usize,
    /// The column played, 0-based.
    pub column: usize,
    pub before: Outcome,
    pub after: Outcome,
    /// The columns that would have kept `before` (0-based), where the solver settled them.
    pub better: Vec<usize>,
}

/// One game as the solver sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameVerdict {
    /// The outcome of each position for its side to move, from the start (index 0) to the
    /// position after the last move; `None` where the budget ran out.
    pub outcomes: Vec<Option<Outcome>>,
    /// The first player's first mistake, then the second player's.
    pub mistakes: [Option<Mistake>; 2],
}

/// Solves each position of the game `moves` (0-based columns) played from `start` with at
/// most `budget` nodes each, and names each side's first mistake. A game may end with a
/// winning move; moves after the game is over, full columns and columns off the board are
/// refused with the move's number.
pub fn first_mistakes(
    start: &Position,
    moves: &[usize],
    solver: &mut Solver,
    budget: u64,
) -> Result<GameVerdict, GameError> {
    let (positions, final_outcome) = positions_of(start, moves)?;
    let mut outcomes = vec![None; positions.len() + 1];
    outcomes[positions.len()] = Some(final_outcome);
    for (i, pos) in positions.iter().enumerate().rev() {
        outcomes[i] = solver.solve_weak_with_budget(pos, budget).map(Outcome::from_weak);
    }
    let mut mistakes: [Option<Mistake>; 2] = [None, None];
    for (ply, (&column, pos)) in moves.iter().zip(&positions).enumerate() {
        let side = ply % 2;
        if mistakes[side].is_some() {
            continue;
        }
        let (Some(before), Some(next)) = (outcomes[ply], outcomes[ply + 1]) else { continue };
        let after = next.flip();
        if after < before {
            let better = keeping(pos, before, solver, budget);
            mistakes[side] = Some(Mistake { ply, column, before, after, better });
        }
    }
    Ok(GameVerdict { outcomes, mistakes })
}

/// The positions before each move, and the outcome of the last position for its side to
/// move (a loss where the last move won; otherwise unknown until solved, so `Draw` is only
/// returned for a full board: the caller solves the rest).
fn positions_of(start: &Position, moves: &[usize]) -> Result<(Vec<Position>, Outcome), GameError> {
    let mut pos = *start;
    let mut positions = Vec::with_capacity(moves.len());
    for (i, &col) in moves.iter().enumerate() {
        let illegal = |rule| GameError::IllegalMove {
            action: format!("column {}", col + 1),
            reason: MoveProblem::AtMove { index: i + 1, of: "the game", problem: Box::new(MoveProblem::Rule(rule)) },
        };
        if col >= pos.width() || !pos.can_play(col) {
            return Err(illegal(if col >= pos.width() { "off the board" } else { "the column is full" }));
        }
        positions.push(pos);
        if pos.is_winning_move(col) {
            if i + 1 < moves.len() {
                return Err(illegal("the game is over after it, yet more moves follow"));
            }
            return Ok((positions, Outcome::Loss));
        }
        pos.play(col)?;
    }
    if pos.is_full() {
        return Ok((positions, Outcome::Draw));
    }
    Err(GameError::IllegalMove { action: "the last move".into(), reason: MoveProblem::NotOver(moves.len()) })
}

/// The columns of `pos` whose outcome for the side to move is still `target`.
fn keeping(pos: &Position, target: Outcome, solver: &mut Solver, budget: u64) -> Vec<usize> {
    (0..pos.width())
        .filter(|&col| pos.can_play(col))
        .filter(|&col| {
            if pos.is_winning_move(col) {
                return target == Outcome::Win;
            }
            let mut child = *pos;
            child.play(col).expect("a playable column that does not win");
            solver.solve_weak_with_budget(&child, budget).map(|s| Outcome::from_weak(s).flip()) == Some(target)
        })
        .collect()
}

/// The lines (the moves up to and including the mistake) on which `side` (0: the first
/// player) made its first mistake in `games`, most frequent first, then shortest: the
/// lines an opponent keeps finding.
pub fn common_lines(games: &[(Vec<usize>, GameVerdict)], side: usize) -> Vec<(Vec<usize>, usize)> {
    let mut counts = std::collections::HashMap::<&[usize], usize>::new();
    for (moves, verdict) in games {
        if let Some(m) = &verdict.mistakes[side] {
            *counts.entry(&moves[..=m.ply]).or_default() += 1;
        }
    }
    let mut lines: Vec<(Vec<usize>, usize)> = counts.into_iter().map(|(line, n)| (line.to_vec(), n)).collect();
    lines.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.len().cmp(&b.0.len())).then(a.0.cmp(&b.0)));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    fn cols(text: &str) -> Vec<usize> {
        text.bytes().map(|b| (b - b'1') as usize).collect()
    }

    /// A uniformly random game to its end on `start`'s board.
    fn random_game(start: &Position, rng: &mut StdRng) -> Vec<usize> {
        let mut pos = *start;
        let mut moves = Vec::new();
        loop {
            let legal: Vec<usize> = (0..pos.width()).filter(|&c| pos.can_play(c)).collect();
            if legal.is_empty() {
                return moves;
            }
            let col = legal[rng.random_range(0..legal.len())];
            moves.push(col);
            if pos.is_winning_move(col) {
                return moves;
            }
            pos.play(col).unwrap();
        }
    }

    /// The verdict worked out the slow way, from exact scores (`solve`, `analyze`) rather
    /// than the weak solves `first_mistakes` uses.
    fn reference(start: &Position, moves: &[usize]) -> GameVerdict {
        let mut solver = Solver::new();
        let mut pos = *start;
        let mut outcomes = Vec::new();
        let mut better_at = Vec::new();
        for &col in moves {
            outcomes.push(Some(Outcome::from_weak(solver.solve(&pos))));
            let best = outcomes.last().unwrap().unwrap();
            let scores = solver.analyze(&pos);
            better_at.push(
                (0..pos.width()).filter(|&c| scores[c].map(Outcome::from_weak) == Some(best)).collect::<Vec<_>>(),
            );
            if pos.is_winning_move(col) {
                outcomes.push(Some(Outcome::Loss));
                break;
            }
            pos.play(col).unwrap();
        }
        if outcomes.len() == moves.len() {
            outcomes.push(Some(Outcome::Draw));
        }
        let mut mistakes: [Option<Mistake>; 2] = [None, None];
        for ply in 0..moves.len() {
            let (before, after) = (outcomes[ply].unwrap(), outcomes[ply + 1].unwrap().flip());
            if mistakes[ply % 2].is_none() && after < before {
                let better = better_at[ply].clone();
                mistakes[ply % 2] = Some(Mistake { ply, column: moves[ply], before, after, better });
            }
        }
        GameVerdict { outcomes, mistakes }
    }

    #[test]
    fn random_games_on_small_boards_agree_with_exact_scores() {
        let mut rng = StdRng::seed_from_u64(35);
        let mut named = 0;
        for (w, h) in [(4, 4), (5, 4), (6, 4), (5, 5)] {
            let start = Position::new(w, h, &[]).unwrap();
            for _ in 0..12 {
                let moves = random_game(&start, &mut rng);
                let got = first_mistakes(&start, &moves, &mut Solver::new(), u64::MAX).unwrap();
                assert_eq!(got, reference(&start, &moves), "{w}x{h} game {moves:?}");
                named += got.mistakes.iter().flatten().count();
            }
        }
        assert!(named > 20, "random play makes mistakes: only {named} named");
    }

    #[test]
    fn common_lines_count_each_sides_first_mistakes_by_the_line_up_to_them() {
        let start = Position::new(5, 4, &[]).unwrap();
        let mut rng = StdRng::seed_from_u64(3);
        let mut solver = Solver::new();
        let games: Vec<(Vec<usize>, GameVerdict)> = (0..40)
            .map(|_| {
                let moves = random_game(&start, &mut rng);
                let v = first_mistakes(&start, &moves, &mut solver, u64::MAX).unwrap();
                (moves, v)
            })
            .collect();
        for side in 0..2 {
            let lines = common_lines(&games, side);
            let total: usize = lines.iter().map(|l| l.1).sum();
            assert_eq!(total, games.iter().filter(|g| g.1.mistakes[side].is_some()).count());
            assert!(lines.windows(2).all(|w| w[0].1 >= w[1].1), "most frequent first: {lines:?}");
            for (line, _) in &lines {
                assert_eq!(line.len() % 2, 1 - side, "the line ends with the side's own move");
            }
        }
    }

    #[test]
    fn a_budget_too_small_leaves_early_positions_unknown() {
        let start = Position::new(7, 6, &[]).unwrap();
        let v = first_mistakes(&start, &cols("4142434"), &mut Solver::new(), 10).unwrap();
        assert_eq!(v.outcomes[0], None, "the empty board is not solved in 10 nodes");
        assert_eq!(v.outcomes[6], Some(Outcome::Win), "a win in one is known without search");
        assert_eq!(v.outcomes[7], Some(Outcome::Loss));
    }

    #[test]
    fn games_that_are_not_over_or_go_on_after_the_end_are_refused_by_move_number() {
        let start = Position::new(7, 6, &[]).unwrap();
        let mut solver = Solver::new();
        let err = first_mistakes(&start, &cols("4444"), &mut solver, 1000).unwrap_err().to_string();
        assert!(err.contains("not over"), "{err}");
        let err = first_mistakes(&start, &cols("41414141"), &mut solver, 1000).unwrap_err().to_string();
        assert!(err.contains("move 7 of the game") && err.contains("more moves follow"), "{err}");
        let err = first_mistakes(&start, &cols("4444444"), &mut solver, 1000).unwrap_err().to_string();
        assert!(err.contains("move 7 of the game") && err.contains("full"), "{err}");
    }
}
