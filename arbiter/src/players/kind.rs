//! One kind of player ([`PlayerKind`]): the word its specs open with, its forms as the
//! help lists them ([`PlayerForm`]), and how a spec of it parses, prints, checks a game and
//! builds its player. Each kind is a file (`*_spec.rs`) below the registry that lists them
//! all (`kinds.rs`).

use super::error::{PlayerError, PlayerSpecProblem};
use dojo_game::{AnyGame, FromAnyGame, Game, GameSpec};
use dojo_search::player::Agent;
use std::any::{Any, TypeId};
use std::fmt;

/// One way to write a player.
pub struct PlayerForm {
    /// How it is written: `mcts:N`, `net:CKPT:vcf=N`.
    pub syntax: &'static str,
    /// What it is, in a line.
    pub about: &'static str,
    /// A spec of this form (the tests parse every one).
    pub example: &'static str,
}

/// A player of the game `G`, or why it cannot be built.
pub type Baseline<G> = Result<Box<dyn Agent<G>>, PlayerError>;

/// One kind of player: everything about it but its line in `player_kinds!`.
pub trait PlayerKind: Sized + fmt::Display {
    /// The word its specs open with: `WORD` or `WORD:...`.
    const WORD: &'static str;
    /// How its specs are written, a form a row, in the order the help lists them.
    const FORMS: &'static [PlayerForm];
    /// A spec from what follows `WORD:` (None: the bare word), or why it is none. The rest
    /// is given whole, so a kind whose spec ends in a command or a path takes it as it is.
    fn parse(rest: Option<&str>) -> Result<Self, PlayerSpecProblem>;
    /// Its player on the game `G`; a game it does not play is an error naming the kind.
    fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, seed: u64) -> Baseline<G>;
    /// Whether it can play `game`, checked before a long run starts (a file it reads is
    /// read, a program it starts is started). Every game by default.
    fn check_game(&self, _game: &GameSpec) -> Result<(), PlayerError> {
        Ok(())
    }
    /// The game its own file is for (a checkpoint's, n-tuple weights'); None without one.
    fn own_game(&self) -> Result<Option<GameSpec>, PlayerError> {
        Ok(None)
    }
    /// Whether it answers a position with the same move every time.
    fn is_deterministic(&self) -> bool {
        false
    }
    /// The spec with an outside program's time a move set to `ms` (dojo's own players have
    /// no such clock and stay as they are).
    fn with_move_timeout(self, _ms: u64) -> Self {
        self
    }
}

/// The player `build` makes for the game `H`, when the game `G` is `H`; None for any other
/// game. A kind's builder, generic over every game, reaches one game's own players through
/// this (Connect Four's rollouts and solver, a Gomocup brain), so the games need no trait
/// of the arbiter's (the type check makes the downcast sure).
pub(super) fn own_players<G: Game, H: Game>(build: impl FnOnce() -> Baseline<H>) -> Option<Baseline<G>> {
    if TypeId::of::<G>() != TypeId::of::<H>() {
        return None;
    }
    let agent = match build() {
        Ok(agent) => agent,
        Err(error) => return Some(Err(error)),
    };
    let erased: Box<dyn Any> = Box::new(agent);
    Some(Ok(*erased.downcast::<Box<dyn Agent<G>>>().expect("G and H are the same type")))
}
