//! The interface every move-picking player implements, and the uniform random baseline.

use dojo_game::rng::Rng;
use dojo_game::{Action, Game, GameSpec};
use rand::{seq::IndexedRandom, SeedableRng};

/// A player: given a position where it is to move, picks a legal move.
pub trait Agent<G: Game>: Send {
    /// A short description, e.g. `mcts:1000`.
    fn name(&self) -> String;

    /// Called before each new game with a seed for its randomness: drop any reused tree,
    /// reset clocks, and draw every random choice of the game from `seed`, so that a game
    /// is played the same by any instance of the agent, whatever it played before (a match
    /// on several threads is reproducible from its seed).
    fn new_game(&mut self, seed: u64);

    /// Picks a legal player move for the side to move. The game is not over and no chance
    /// event is pending.
    fn select_move(&mut self, game: &G) -> Action;

    /// [`Agent::select_move`] for players that can fail: an external engine that crashed,
    /// timed out or answered nonsense. The error says why, and forfeits the game in a match.
    /// Players of our own never fail.
    fn try_select_move(&mut self, game: &G) -> Result<Action, MoveError> {
        Ok(self.select_move(game))
    }
}

/// Why a player could not move (in a match, it forfeits the game).
#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    /// A network player asked to play another game's board (`network`: its network's game).
    #[error("{player}: a network for {network} cannot play {spec}")]
    OtherGame { player: String, network: GameSpec, spec: GameSpec },
    /// An any-size network that could not be framed for the board (the source says why).
    #[error("{player}: cannot frame its network for {spec}")]
    Frame { player: String, spec: GameSpec, source: Box<dyn std::error::Error + Send + Sync> },
    /// No legal move changes the board: a sliding-tile player asked to move in a lost
    /// position.
    #[error("no move changes the board")]
    NoMoveChangesTheBoard,
    /// An external engine crashed, timed out or answered nonsense; its own error says how.
    #[error(transparent)]
    Engine(Box<dyn std::error::Error + Send + Sync>),
}

impl MoveError {
    /// [`MoveError::Engine`] from an engine's error (or the words of one).
    pub fn engine(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> MoveError {
        MoveError::Engine(error.into())
    }
}

/// Picks uniformly among the legal moves.
pub struct RandomAgent {
    rng: Rng,
    moves: Vec<Action>,
}

impl RandomAgent {
    pub fn new(rng: Rng) -> RandomAgent {
        RandomAgent { rng, moves: Vec::new() }
    }
}

impl<G: Game> Agent<G> for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = Rng::seed_from_u64(seed);
    }

    fn select_move(&mut self, game: &G) -> Action {
        game.legal_actions(&mut self.moves);
        *self.moves.choose(&mut self.rng).expect("a non-empty list")
    }
}
