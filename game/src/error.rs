//! What goes wrong when a caller hands a game bad input: the one error of this crate's
//! rules, specs and notation.

/// Everything that can go wrong when a caller hands a game bad input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("illegal move {action}: {reason}")]
    IllegalMove { action: String, reason: String },
    #[error("the game is already over")]
    GameOver,
    #[error("a chance event is pending; a player move is not allowed now")]
    ChancePending,
    #[error("no chance event is pending")]
    NoChancePending,
    #[error("cannot parse {what} {text:?}: {reason}")]
    Parse { what: &'static str, text: String, reason: String },
    #[error("bad game spec {spec:?}: {reason}")]
    Spec { spec: String, reason: String },
}
