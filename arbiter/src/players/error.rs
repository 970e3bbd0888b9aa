//! Why a player spec does not parse ([`PlayerSpecError`]) and why a player cannot be built
//! or cannot play a game ([`PlayerError`]).

use dojo_base::util::SettingError;
use dojo_external::gomocup::manager::EngineError;
use dojo_external::saiblo::StrategyError;
use dojo_game::{GameError, GameSpec};
use dojo_net::agent::NetPlayerError;
use dojo_net::checkpoint::CheckpointError;
use dojo_ntuple::weight_file::NtupleError;
use dojo_search::player::MoveError;
use std::path::PathBuf;

/// A player spec that does not parse: the spec as given, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad player spec {spec:?}: {why}")]
pub struct PlayerSpecError {
    pub spec: String,
    pub why: PlayerSpecProblem,
}

/// Why a player spec does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerSpecProblem {
    /// What the spec should look like, or what it lacks (`ntuple:PATH needs the weight file`).
    #[error("{0}")]
    Form(&'static str),
    /// A spec of no form the registry knows: the forms it knows (every form's syntax).
    #[error("expected {expected}")]
    Unknown { expected: String },
    #[error("{kind}:N needs a number of rollouts, e.g. {kind}:1000")]
    RolloutsNotANumber { kind: &'static str },
    #[error("{kind} needs at least 1 rollout")]
    NoRollouts { kind: &'static str },
    /// A clock of 0 for `who` (`mcts`, `pbrain`, `a net: player`).
    #[error("{who} needs a clock of at least 1 ms")]
    ZeroClock { who: &'static str },
    /// `text` after `prefix` (`mcts:`, `clock=`) is not a time.
    #[error("{prefix}{text} is not a time: {prefix}3s, {prefix}1.5s or {prefix}250ms")]
    NotATime { prefix: &'static str, text: String },
    /// A brain's cap (`key`: nodes or depth) that is not a whole number above 0.
    #[error("pbrain:{key}={}:COMMAND needs a whole number above 0, not {key}={value}", if *key == "nodes" { "N" } else { "D" })]
    BrainCap { key: &'static str, value: String },
    /// An n-tuple search depth outside 1..=max.
    #[error("depth must be in 1..={max} (1 = greedy)")]
    NtupleDepth { max: u32 },
    /// A `net:` search setting refused in the settings table's words.
    #[error("{0}")]
    Search(SettingError),
}

/// Why a player cannot be built, or cannot play a game. A wrapped error's text is part of
/// the message and not also its `source()`, so that `dojo`'s `{:#}` does not print it twice.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// The solver asked to play a game that is not Connect Four (`game`, where known).
    #[error("the solver player only plays Connect Four{}", not_game(.game))]
    SolverGame { game: Option<GameSpec> },
    #[error("this board is too big for the solver: it needs width × (height + 1) <= 64")]
    SolverBoard,
    /// A Gomocup brain asked to play a game that is not Gomoku (`game`, where known).
    #[error("pbrain: players (Gomocup brains) only play Gomoku{}", not_game(.game))]
    PbrainGame { game: Option<GameSpec> },
    #[error("ntuple: players only play 2048 and 2584")]
    NtupleGame,
    /// The game to play cannot start.
    #[error(transparent)]
    Game(#[from] GameError),
    /// A network player's checkpoint cannot be read (boxed: a checkpoint's error is large,
    /// and building a player returns this often).
    #[error(transparent)]
    Checkpoint(Box<CheckpointError>),
    /// An n-tuple player's weights cannot be read.
    #[error(transparent)]
    Ntuple(#[from] NtupleError),
    /// An n-tuple weights file that cannot be looked at.
    #[error("{}: {error}", .path.display())]
    NtupleFile { path: PathBuf, error: std::io::Error },
    #[error("{} holds n-tuple weights for {weights}, not {game}", .path.display())]
    NtupleWeights { path: PathBuf, weights: GameSpec, game: GameSpec },
    /// A network player that cannot be built from its checkpoint.
    #[error(transparent)]
    NetPlayer(#[from] NetPlayerError),
    #[error("{} is a network for {network}, not {game}", .path.display())]
    NetworkGame { path: PathBuf, network: GameSpec, game: GameSpec },
    /// A board a network cannot play (another game's).
    #[error(transparent)]
    Board(#[from] MoveError),
    #[error("{spec} is not a network player (net:CHECKPOINT)")]
    NotNet { spec: String },
    /// A saiblo strategy asked to play a game that is not Connect Four (`game`, where known).
    #[error("saiblo: players (saiblo strategies) only play Connect Four{}", not_game(.game))]
    SaibloGame { game: Option<GameSpec> },
    /// A saiblo strategy asked to play a board without exactly one blocked cell.
    #[error("saiblo: players (saiblo strategies) play boards with one blocked cell (connect4:saiblo, connect4:WxH:C.R), not {game}")]
    SaibloBoard { game: GameSpec },
    /// A saiblo strategy that does not load.
    #[error("{spec}: {error}")]
    Strategy { spec: String, error: StrategyError },
    /// A brain (`spec`) that does not start, or does not answer `ABOUT`.
    #[error("{spec}: {error}")]
    Engine { spec: String, error: EngineError },
}

impl From<CheckpointError> for PlayerError {
    fn from(error: CheckpointError) -> PlayerError {
        PlayerError::Checkpoint(Box::new(error))
    }
}

/// ", not GAME" where the game is known.
fn not_game(game: &Option<GameSpec>) -> String {
    game.as_ref().map(|g| format!(", not {g}")).unwrap_or_default()
}
