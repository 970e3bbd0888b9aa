//! Game records: what a self-play worker sends the learner, what the game log stores, and
//! what training samples are cut from.
//!
//! A [`GameRecord`] names its rules ([`GameSpec`], always a concrete board), the model that
//! played, every move with its search target, and how the game ended. It travels over gRPC
//! and sits in an append-only log, so its binary form ([`GameRecord::encode`]) is versioned,
//! self-delimiting and checksummed; see [`codec`] for the layout. A record is only trusted
//! after [`GameRecord::validate`] has replayed it.
//!
//! Stochastic games (2048, 2584) are replayed from the *empty* board
//! ([`GameRecord::start`]): their `moves` begin with the two opening tile spawns as chance
//! events, so the whole game is in the record. A worker must therefore record the opening
//! spawns itself rather than take them from [`GameSpec::new_game`], which applies them
//! silently.
//!
//! How a one-player game ended, and statistics over many ([`score`]: mean, median, a 95%
//! interval, seed 002's reach-rate table), live here, beside the records they are read
//! from, for every contest of one-player games (matches, gating, tournaments, the learner).

pub mod boards;
pub mod codec;
mod file;
mod sample;
pub mod score;
mod verify;

pub use codec::{MAX_BODY_LEN, MAX_MOVES, MAX_POLICY, MAX_SPEC_LEN, MAX_TOTAL_POLICY, RECORD_MAGIC, RECORD_VERSION};
pub use file::{read_records, write_records, FILE_MAGIC, FILE_VERSION};
pub use sample::{samples, Sample, SampleOptions, SampleTarget, TrainingGame};

use dojo_base::rng::Rng;
use dojo_game::{Action, AnyGame, Game, GameError, GameSpec, Outcome, PlaneShape, Player};
use rand::{seq::IndexedRandom, Rng as _};
use std::fmt;
use std::path::PathBuf;

/// One entry of a game: a player move with its search target, or a chance event.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRecord {
    /// The player action, or for a chance event the event index in the game's chance space.
    pub action: Action,
    /// The search's visit-count distribution over legal moves (sums to 1). Empty for chance
    /// events, and allowed to be empty for moves that are not training targets.
    pub policy: Vec<(Action, f32)>,
    /// The search's value of the position before the move, from the mover's point of view.
    pub root_value: f32,
    /// Whether this position is a training target (false for the fast-search moves of
    /// playout cap randomisation, and always for chance events).
    pub train: bool,
    /// A chance event (a tile spawn in 2048/2584): then `policy` is empty and `train` false.
    pub chance: bool,
}

impl MoveRecord {
    /// A player move that is a training target.
    pub fn player(action: Action, policy: Vec<(Action, f32)>, root_value: f32) -> MoveRecord {
        MoveRecord { action, policy, root_value, train: true, chance: false }
    }

    /// A player move from a fast search: recorded for the replay, not trained on.
    pub fn untrained(action: Action) -> MoveRecord {
        MoveRecord { action, policy: Vec::new(), root_value: 0.0, train: false, chance: false }
    }

    /// A chance event.
    pub fn chance(event: Action) -> MoveRecord {
        MoveRecord { action: event, policy: Vec::new(), root_value: 0.0, train: false, chance: true }
    }
}

/// How a recorded game ended: [`Outcome`] as stored in a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordOutcome {
    Win(Player),
    Draw,
    Score(u64),
}

impl From<Outcome> for RecordOutcome {
    fn from(o: Outcome) -> RecordOutcome {
        match o {
            Outcome::Win(p) => RecordOutcome::Win(p),
            Outcome::Draw => RecordOutcome::Draw,
            Outcome::Score(s) => RecordOutcome::Score(s),
        }
    }
}

impl From<RecordOutcome> for Outcome {
    fn from(o: RecordOutcome) -> Outcome {
        match o {
            RecordOutcome::Win(p) => Outcome::Win(p),
            RecordOutcome::Draw => Outcome::Draw,
            RecordOutcome::Score(s) => Outcome::Score(s),
        }
    }
}

impl fmt::Display for RecordOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordOutcome::Win(Player::First) => write!(f, "a win for the first player"),
            RecordOutcome::Win(Player::Second) => write!(f, "a win for the second player"),
            RecordOutcome::Draw => write!(f, "a draw"),
            RecordOutcome::Score(s) => write!(f, "score {s}"),
        }
    }
}

/// One finished self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Unique per game; the game log is idempotent by it.
    pub game_id: [u8; 16],
    /// The concrete rules (never a random spec such as `connect4:saiblo`).
    pub spec: GameSpec,
    /// The model version that played the game.
    pub model_version: u64,
    /// When the game finished, milliseconds since the Unix epoch.
    pub created_unix_ms: u64,
    /// Every move from [`GameRecord::start`], chance events included.
    pub moves: Vec<MoveRecord>,
    pub outcome: RecordOutcome,
    /// The game ended by resignation of the side to move after the last move.
    pub resigned: bool,
    /// Resignation was on for the run but disabled for this game, so it was played out
    /// (the games that measure resignation false positives).
    pub no_resign: bool,
    /// In a `no_resign` game, the first player whose resignation threshold was crossed: a
    /// false positive when that player did not lose.
    pub would_have_resigned: Option<Player>,
}

impl GameRecord {
    /// An empty record created now; the caller pushes moves and sets the outcome.
    pub fn new(game_id: [u8; 16], spec: GameSpec, model_version: u64) -> GameRecord {
        let created_unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        GameRecord {
            game_id,
            spec,
            model_version,
            created_unix_ms,
            moves: Vec::new(),
            outcome: RecordOutcome::Draw,
            resigned: false,
            no_resign: false,
            would_have_resigned: None,
        }
    }

    /// The game id as 32 lowercase hex digits.
    pub fn id_hex(&self) -> String {
        dojo_base::util::hex(&self.game_id)
    }

    /// Number of player moves (chance events left out).
    pub fn player_moves(&self) -> usize {
        self.moves.iter().filter(|m| !m.chance).count()
    }

    /// Number of moves that are training targets.
    pub fn training_moves(&self) -> usize {
        self.moves.iter().filter(|m| m.train && !m.chance).count()
    }

    /// The position this record's moves start from: the spec's start before nature's
    /// opening draws ([`GameSpec::record_start`]): for 2048/2584 the empty board with both
    /// opening spawns pending.
    pub fn start(&self) -> Result<AnyGame, RecordError> {
        record_start(&self.spec)
    }
}

/// The position records of `spec` replay from (see [`GameRecord::start`]).
pub fn record_start(spec: &GameSpec) -> Result<AnyGame, RecordError> {
    spec.record_start().map_err(RecordError::BadSpec)
}

/// A fresh random game id.
pub fn new_game_id(rng: &mut Rng) -> [u8; 16] {
    let mut id = [0u8; 16];
    id[..8].copy_from_slice(&rng.next_u64().to_le_bytes());
    id[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
    id
}

/// A valid record of a uniformly random two-player game from `start` (uniform policy targets
/// over the legal moves): load generators and tests use it.
pub fn random_game_record<G: Game>(start: &G, model_version: u64, rng: &mut Rng) -> GameRecord {
    let mut game = start.clone();
    let mut record = GameRecord::new(new_game_id(rng), start.spec(), model_version);
    let mut legal = Vec::new();
    while game.outcome().is_none() {
        game.legal_actions(&mut legal);
        let action = *legal.choose(rng).expect("a non-empty list");
        let p = 1.0 / legal.len() as f32;
        record.moves.push(MoveRecord::player(action, legal.iter().map(|&a| (a, p)).collect(), 0.0));
        game.play_unchecked(action);
    }
    if let Some(outcome) = game.outcome() {
        record.outcome = outcome.into();
    }
    record
}

/// A record that decodes but does not describe a game that could have been played (or not
/// one its reader can take).
#[derive(Debug, thiserror::Error)]
pub enum InvalidRecord {
    #[error("{board} is not a board of {spec}")]
    NotABoardOf { board: GameSpec, spec: GameSpec },
    #[error("the spec {spec} draws a random board; a record must name the concrete board")]
    RandomSpec { spec: GameSpec },
    #[error("the record is for {spec} but the replay starts from a {start} position")]
    OtherStart { spec: GameSpec, start: GameSpec },
    #[error("a no-resign game cannot end by resignation")]
    ResignedNoResign,
    #[error("would_have_resigned is only recorded for no-resign games")]
    WouldHaveResignedWithResign,
    #[error("the record says {recorded} but the replayed game ended in {played}")]
    OtherOutcome { recorded: RecordOutcome, played: RecordOutcome },
    #[error("the record says resigned but the game was already over after {moves} moves ({played})")]
    ResignedAfterTheEnd { moves: usize, played: RecordOutcome },
    #[error("the game is not over after {moves} moves and the record is not marked resigned")]
    NotOver { moves: usize },
    #[error("a one-player {spec} game cannot be resigned")]
    OnePlayerResigned { spec: GameSpec },
    #[error("resigned while a chance event is pending")]
    ResignedAtChance,
    /// `loser` names the resigning player (`the first player`, `the second player`).
    #[error("{loser} resigned after {moves} moves, so the outcome must be {want}, not {recorded}")]
    ResignOutcome { loser: &'static str, moves: usize, want: RecordOutcome, recorded: RecordOutcome },
    /// A game whose samples could not share a batch with the replay buffer's.
    #[error(
        "game {game} has {}x{}x{} input planes and {got_actions} actions, but the replay buffer holds games \
         with {}x{}x{} planes and {held_actions} actions",
        .got.channels, .got.height, .got.width, .held.channels, .held.height, .held.width
    )]
    OtherShape { game: String, got: PlaneShape, got_actions: usize, held: PlaneShape, held_actions: usize },
}

/// A sample asked for that a game or buffer cannot give.
#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    #[error("the replay buffer holds no positions to sample")]
    Empty,
    #[error("position {index} of a game with {positions} trainable positions")]
    Position { index: usize, positions: usize },
    #[error("the planes buffer holds {len} floats but the game needs {needed}")]
    PlanesBuffer { len: usize, needed: usize },
    #[error("the policy buffer holds {len} floats but the game has {actions} actions")]
    PolicyBuffer { len: usize, actions: usize },
    #[error("symmetry {symmetry} of a game with {symmetries} symmetries")]
    Symmetry { symmetry: usize, symmetries: usize },
    #[error("symmetry {symmetry} maps action {action} to {mapped}, outside the action space")]
    ActionOutside { symmetry: usize, action: Action, mapped: Action },
}

/// What is wrong with one recorded move ([`RecordError::Move`]). Moves are named in the
/// game's notation.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MoveProblem {
    #[error("the game is already over ({0})")]
    GameOver(RecordOutcome),
    #[error("a chance event is recorded but {0} is to move")]
    ChanceWhilePlayerToMove(&'static str),
    #[error("a chance event cannot have a policy")]
    ChancePolicy,
    #[error("a chance event cannot be a training target")]
    ChanceTrained,
    #[error("illegal chance event: {0}")]
    IllegalChance(GameError),
    #[error("a player move is recorded but a chance event is pending")]
    ChancePending,
    #[error("{0}")]
    Illegal(GameError),
    #[error("root value {0} is not finite")]
    RootValue(f32),
    #[error("a training move has no policy")]
    NoPolicy,
    #[error("policy entry {action} is outside the action space 0..{actions}")]
    PolicyOutside { action: Action, actions: usize },
    #[error("policy lists {0} twice")]
    PolicyTwice(String),
    #[error("policy entry {0} is not a legal move")]
    PolicyIllegal(String),
    #[error("policy probability {probability} for {action} is not a finite non-negative number")]
    PolicyProbability { probability: f32, action: String },
    #[error("policy sums to {0:.4}, not 1")]
    PolicySum(f64),
}

/// Everything that can be wrong with a record, its bytes, or a records file.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("record truncated in the {field} at byte {offset}")]
    Truncated { field: &'static str, offset: usize },
    #[error("not a game record: bad magic bytes {found:02x?} (expected {expected:02x?})")]
    BadMagic { found: Vec<u8>, expected: &'static [u8] },
    #[error("unsupported {what} format version {found} (this build reads version {supported})")]
    UnsupportedVersion { what: &'static str, found: u8, supported: u8 },
    #[error("record checksum mismatch: stored {stored:#010x}, computed {computed:#010x}")]
    ChecksumMismatch { stored: u32, computed: u32 },
    #[error("{field} {len} is over the limit of {max}")]
    TooLong { field: &'static str, len: u64, max: u64 },
    #[error("the {field} at byte {offset} is not valid UTF-8")]
    InvalidUtf8 { field: &'static str, offset: usize },
    #[error("bad game spec in record: {0}")]
    BadSpec(GameError),
    #[error("bad {field} at byte {offset}: {reason}")]
    BadField { field: &'static str, offset: usize, reason: FieldProblem },
    #[error("{count} unused byte(s) at the end of the record body")]
    UnusedBody { count: usize },
    #[error("{count} byte(s) after the end of the record")]
    TrailingData { count: usize },
    /// A replay problem at one move; `number` is 1-based in `moves` (chance events count).
    #[error("move {number} ({action}): {reason}")]
    Move { number: usize, action: String, reason: Box<MoveProblem> },
    #[error("invalid record: {0}")]
    Invalid(#[from] InvalidRecord),
    #[error("bad sample request: {0}")]
    Sample(#[from] SampleError),
    #[error("cannot {op} {}: {error}", .path.display())]
    Io { op: &'static str, path: PathBuf, error: std::io::Error },
    #[error("{} at byte {offset}: {error}", .path.display())]
    File { path: PathBuf, offset: u64, error: Box<RecordError> },
}

impl RecordError {
    /// `len` of `field` as a size, if it is at most `max`: every length the codec reads or a
    /// record holds is bounded, so no claim allocates or replays more than a record can hold.
    #[inline]
    pub(crate) fn at_most(field: &'static str, len: u64, max: usize) -> Result<usize, RecordError> {
        if len > max as u64 {
            return Err(RecordError::TooLong { field, len, max: max as u64 });
        }
        Ok(len as usize)
    }
}

/// What is wrong with a field of a record's binary form ([`RecordError::BadField`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldProblem {
    #[error("unknown flag bits {0:#04x}")]
    UnknownFlags(u8),
    #[error("a would-have-resigned player without the would-have-resigned flag")]
    ResignerWithoutFlag,
    #[error("unknown outcome tag {0}")]
    UnknownOutcome(u8),
    #[error("delta {0} is too large")]
    DeltaTooLarge(u64),
    #[error("action {0} is outside 0..=65535")]
    ActionOutOfRange(i64),
    #[error("{0} is outside 0..=65535")]
    NotU16(u64),
    #[error("varint overflows 64 bits")]
    VarintOverflow,
}
