//! An n-tuple network as a match player: greedy or expectimax (see [`super::search`]).
//!
//! One concept with `dojo_net::agent` (a policy/value network as a match player), hence one
//! name.

use super::network::Network;
use super::search::best_move;
use super::TupleRules;
use dojo_game::sliding::Sliding;
use dojo_game::Action;
use dojo_search::player::{Agent, MoveError};
use std::sync::Arc;

/// Plays by a shared network (one copy in memory for every thread of a match) and a search
/// depth. It draws nothing at random, so a game depends only on the tile spawns.
pub struct NtupleAgent<R: TupleRules> {
    net: Arc<Network<R>>,
    depth: u32,
    name: String,
}

impl<R: TupleRules> NtupleAgent<R> {
    /// `depth` counts player moves searched: 1 is greedy, 2 is seed 000's expectimax.
    pub fn new(net: Arc<Network<R>>, depth: u32, name: impl Into<String>) -> NtupleAgent<R> {
        NtupleAgent { net, depth, name: name.into() }
    }

    fn choose(&self, game: &Sliding<R>) -> Option<Action> {
        // The game's own rules give the spawn odds, so weights learnt under other odds of
        // the same game still search with the odds being played.
        best_move(&self.net, game.board(), game.rules().spawn(), self.depth)
    }
}

impl<R: TupleRules> Agent<Sliding<R>> for NtupleAgent<R> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self, _seed: u64) {}

    fn select_move(&mut self, game: &Sliding<R>) -> Action {
        self.choose(game).expect("a position that is not over has a move that changes the board")
    }

    fn try_select_move(&mut self, game: &Sliding<R>) -> Result<Action, MoveError> {
        self.choose(game).ok_or(MoveError::NoMoveChangesTheBoard)
    }
}
