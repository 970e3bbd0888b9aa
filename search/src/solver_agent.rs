//! The solver as a player: exact play whenever the position can be solved within a node
//! budget, strong MCTS (seed 001 rollouts, proven-result propagation) before that.
//!
//! Solving the first few plies of 7×6 exactly takes minutes per move without an opening
//! book; a player in a match cannot wait that long. From about ten discs on, the budget
//! (20M nodes by default, a few seconds) suffices and every move is provably optimal.

use super::mcts::{Connect4Rollout, Mcts, MctsConfig};
use super::player::Agent;
use dojo_base::rng::Rng;
use dojo_game::connect4::solver::{Position, Solver};
use dojo_game::connect4::Connect4;
use dojo_game::Action;
use rand::{seq::IndexedRandom, Rng as _, SeedableRng};

/// MCTS iterations per move while the position is still too hard to solve.
const FALLBACK_ITERATIONS: u32 = 50_000;

pub struct SolverAgent {
    solver: Solver,
    max_nodes: u64,
    fallback: Mcts<Connect4, Connect4Rollout>,
    rng: Rng,
    /// Moves played exactly / by the fallback (for reports).
    pub exact_moves: u64,
    pub fallback_moves: u64,
}

impl SolverAgent {
    pub fn new(max_nodes: u64, mut rng: Rng) -> SolverAgent {
        let fallback = Mcts::new(
            MctsConfig::with_iterations(FALLBACK_ITERATIONS),
            Connect4Rollout,
            Rng::seed_from_u64(rng.next_u64()),
        );
        SolverAgent { solver: Solver::new(), max_nodes, fallback, rng, exact_moves: 0, fallback_moves: 0 }
    }

    /// The exact score of every legal column, or None when the budget ran out.
    pub fn exact_scores(&mut self, pos: &Position) -> Option<Vec<(usize, i32)>> {
        let mut scores = Vec::new();
        let start = self.solver.node_count();
        for col in 0..pos.width() {
            if !pos.can_play(col) {
                continue;
            }
            if pos.is_winning_move(col) {
                scores.push((col, pos.win_now_score()));
                continue;
            }
            let used = self.solver.node_count() - start;
            let left = self.max_nodes.checked_sub(used).filter(|&n| n > 0)?;
            let mut child = *pos;
            child.play(col).ok()?;
            scores.push((col, -self.solver.solve_with_budget(&child, left)?));
        }
        Some(scores)
    }
}

impl Agent<Connect4> for SolverAgent {
    fn name(&self) -> String {
        "solver".into()
    }

    fn new_game(&mut self, seed: u64) {
        let mut rng = Rng::seed_from_u64(seed);
        self.fallback.new_game(rng.next_u64());
        self.rng = rng;
    }

    fn select_move(&mut self, game: &Connect4) -> Action {
        let pos = Position::from_game(game);
        if let Some(col) = (0..pos.width()).find(|&c| pos.can_play(c) && pos.is_winning_move(c)) {
            self.exact_moves += 1;
            return col as Action;
        }
        match self.exact_scores(&pos) {
            Some(scores) => {
                self.exact_moves += 1;
                let best = scores.iter().map(|s| s.1).max().expect("a position that is not over has moves");
                let best_cols: Vec<usize> = scores.iter().filter(|s| s.1 == best).map(|s| s.0).collect();
                *best_cols.choose(&mut self.rng).expect("a non-empty list") as Action
            }
            None => {
                self.fallback_moves += 1;
                self.fallback.select_move(game)
            }
        }
    }
}
