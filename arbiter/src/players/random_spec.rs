//! `random`: uniformly random legal moves, on every game.

use super::error::PlayerSpecProblem;
use super::kind::{Baseline, PlayerForm, PlayerKind};
use dojo_base::rng::Rng;
use dojo_game::{AnyGame, FromAnyGame, Game};
use dojo_search::player::RandomAgent;
use rand::SeedableRng;
use std::fmt;

/// Uniformly random legal moves.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomSpec;

impl PlayerKind for RandomSpec {
    const WORD: &'static str = "random";
    const FORMS: &'static [PlayerForm] =
        &[PlayerForm { syntax: "random", about: "uniformly random legal moves", example: "random" }];

    fn parse(rest: Option<&str>) -> Result<RandomSpec, PlayerSpecProblem> {
        match rest {
            None => Ok(RandomSpec),
            Some(_) => Err(PlayerSpecProblem::Form("random takes no options")),
        }
    }

    fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, seed: u64) -> Baseline<G> {
        Ok(Box::new(RandomAgent::new(Rng::seed_from_u64(seed))))
    }
}

impl fmt::Display for RandomSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Self::WORD)
    }
}
