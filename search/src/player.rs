//! The interface every move-picking player implements, and the uniform random baseline.

use dojo_base::rng::Rng;
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

    /// The time the player thought in its game so far (since [`Agent::new_game`]), for
    /// players judged by a clock of their own: an external engine, timed by the manager.
    /// None for players that keep none (dojo's own).
    fn clock_use(&self) -> Option<ClockUse> {
        None
    }
}

/// How long a player thought in one game, by the manager's clock: wall time from each move
/// request to its answer, summed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ClockUse {
    pub thought_ms: u64,
    /// Its time for the whole game (Gomocup's `timeout_match`), where it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_ms: Option<u64>,
}

impl ClockUse {
    /// The share of its match clock it used (1.0 = all of it), where it has one.
    pub fn share(&self) -> Option<f64> {
        self.match_ms.filter(|&m| m > 0).map(|m| self.thought_ms as f64 / m as f64)
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
