//! `solver` and `solver:NODES`: Connect Four's exact solver as a player.

use super::error::{PlayerError, PlayerSpecProblem};
use super::kind::{own_players, Baseline, PlayerForm, PlayerKind};
use dojo_base::bits::Bits192;
use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_game::{AnyGame, FromAnyGame, Game, GameSpec};
use dojo_search::solver_agent::SolverAgent;
use rand::SeedableRng;
use std::fmt;

/// The solver's node budget a move when the spec names none.
pub const DEFAULT_SOLVER_NODES: u64 = 20_000_000;

/// The exact Connect Four solver (`solver`, or `solver:NODES` for its budget a move), on
/// boards of at most 64 bits (width × (height + 1)).
#[derive(Clone, Debug, PartialEq)]
pub struct SolverSpec {
    pub max_nodes: u64,
}

impl PlayerKind for SolverSpec {
    const WORD: &'static str = "solver";
    const FORMS: &'static [PlayerForm] = &[
        PlayerForm {
            syntax: "solver",
            about: "Connect Four's exact solver (boards with width x (height + 1) <= 64)",
            example: "solver",
        },
        PlayerForm { syntax: "solver:NODES", about: "the solver with a node budget a move", example: "solver:1000000" },
    ];

    fn parse(rest: Option<&str>) -> Result<SolverSpec, PlayerSpecProblem> {
        let Some(nodes) = rest else { return Ok(SolverSpec { max_nodes: DEFAULT_SOLVER_NODES }) };
        let max_nodes = nodes
            .parse()
            .map_err(|_| PlayerSpecProblem::Form("solver:NODES needs a node budget, e.g. solver:20000000"))?;
        Ok(SolverSpec { max_nodes })
    }

    fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, seed: u64) -> Baseline<G> {
        let solver =
            || -> Baseline<Connect4<u64>> { Ok(Box::new(SolverAgent::new(self.max_nodes, Rng::seed_from_u64(seed)))) };
        own_players::<G, Connect4<u64>>(solver)
            .or_else(|| own_players::<G, Connect4<Bits192>>(|| Err(PlayerError::SolverBoard)))
            .unwrap_or(Err(PlayerError::SolverGame { game: None }))
    }

    fn check_game(&self, game: &GameSpec) -> Result<(), PlayerError> {
        if game.family() == "connect4" {
            Ok(())
        } else {
            Err(PlayerError::SolverGame { game: Some(game.clone()) })
        }
    }
}

impl fmt::Display for SolverSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.max_nodes {
            DEFAULT_SOLVER_NODES => write!(f, "solver"),
            nodes => write!(f, "solver:{nodes}"),
        }
    }
}
