//! Game rules. Every game implements [`Game`]; search, network and records only ever
//! see this trait, so adding a game never touches them.
//!
//! Moves are *actions*: small integers indexing the game's fixed action space (a column in
//! Connect Four, a point in Gomoku, a direction in 2048). The network's policy head has one
//! logit per action, records store actions, and notation converts them to and from text.
//!
//! Stochastic one-player games (2048, 2584) alternate a player's move with a chance event
//! (a tile spawn). While a chance event is pending, [`Game::to_move`] is [`ToMove::Chance`]
//! and [`Chance::chance_outcomes`] lists the events with their probabilities, so a search can
//! expand them; the chance events are actions too, in their own space.

pub mod returns;

pub mod connect4;
pub mod gomoku;
pub mod hex;
pub mod pig;
pub mod registry;
pub mod sliding;
pub mod spec;
pub mod tactics;

mod error;

pub use error::{GameError, MoveProblem, OffBoard, ParseProblem, SpecProblem};
pub use registry::{AnyGame, FromAnyGame};
pub use spec::GameSpec;

use crate::tactics::Tactics;
use dojo_base::rng::Rng;
use rand::seq::IndexedRandom;
use rand::RngExt;
use std::fmt;

/// An index into a game's action space (or, at a chance node, its chance-event space).
pub type Action = u16;

/// One of the two players; one-player games only have `First`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Player {
    First,
    Second,
}

impl Player {
    pub fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Who acts next in a position that is not over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToMove {
    Player(Player),
    /// Nature: pick one of [`Chance::chance_outcomes`].
    Chance,
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win(Player),
    Draw,
    /// One-player games end with a score (the sum of the move rewards).
    Score(u64),
}

/// How a one-player game stands or ended: its score and its largest tile (a face value:
/// 2048, 2584, ...; 0 for a game without tiles).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GameScore {
    pub score: u64,
    pub max_tile: u32,
}

impl Outcome {
    /// The result from `player`'s point of view in {-1, 0, 1}; a score counts as 0.
    pub fn value_for(self, player: Player) -> f32 {
        match self {
            Outcome::Win(p) if p == player => 1.0,
            Outcome::Win(_) => -1.0,
            Outcome::Draw | Outcome::Score(_) => 0.0,
        }
    }
}

// A two-player board's state in one byte, as Connect Four and Gomoku keep it (it is
// compared on every move): still going, a side's win (`FIRST_WINS + player.index()`), or a
// draw.
pub(crate) const ONGOING: u8 = 0;
pub(crate) const FIRST_WINS: u8 = 1;
pub(crate) const SECOND_WINS: u8 = 2;
pub(crate) const DRAW: u8 = 3;

/// The outcome of a two-player board whose state byte is `state` ([`ONGOING`] or another of
/// the four above); None while the game goes on.
#[inline]
pub(crate) fn board_outcome(state: u8) -> Option<Outcome> {
    match state {
        ONGOING => None,
        FIRST_WINS => Some(Outcome::Win(Player::First)),
        SECOND_WINS => Some(Outcome::Win(Player::Second)),
        _ => Some(Outcome::Draw),
    }
}

/// The shape of the network input for a game: `channels` planes of `height × width`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaneShape {
    pub channels: usize,
    pub height: usize,
    pub width: usize,
}

impl PlaneShape {
    pub fn len(&self) -> usize {
        self.channels * self.height * self.width
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The rules of one game, implemented over a position value that is cheap to clone.
/// The core of a game's rules; what a game has besides them is a trait of its own, which
/// every game implements (empty where it has nothing of it, its methods' defaults):
/// [`Scoring`] (a one-player game's score), [`tactics::Tactics`] (lookahead, threat search,
/// rollouts), [`Chance`], [`Symmetries`] and [`BoardLayout`] (frames, one action a cell).
pub trait Game:
    Clone + Send + Sync + fmt::Debug + 'static + Scoring + Tactics + Chance + Symmetries + BoardLayout
{
    /// The spec this position's rules come from, e.g. `connect4:7x6`, `gomoku:15`.
    /// For games whose board is drawn at random (saiblo), the concrete board, so a
    /// record replays exactly.
    fn spec(&self) -> GameSpec;

    /// Size of the player action space (the policy head's width).
    fn num_actions(&self) -> usize;

    /// Who acts next; meaningless once [`Game::outcome`] is `Some`.
    fn to_move(&self) -> ToMove;

    /// Appends the legal player actions to `out` (clearing it first). Empty when the game
    /// is over or a chance event is pending.
    fn legal_actions(&self, out: &mut Vec<Action>);

    /// Whether `action` is a legal player move now.
    fn is_legal(&self, action: Action) -> bool;

    /// Plays a player move without checking it; the caller guarantees `is_legal`.
    /// Returns the move's reward (0 for two-player games).
    fn play_unchecked(&mut self, action: Action) -> u32;

    /// Plays a player move, or explains why it is not legal. Never panics.
    fn play(&mut self, action: Action) -> Result<u32, GameError> {
        if self.outcome().is_some() {
            return Err(GameError::GameOver);
        }
        if self.to_move() == ToMove::Chance {
            return Err(GameError::ChancePending);
        }
        if !self.is_legal(action) {
            return Err(self.illegal_reason(action));
        }
        Ok(self.play_unchecked(action))
    }

    /// The error for an illegal `action` (called only when `is_legal` is false).
    fn illegal_reason(&self, action: Action) -> GameError {
        GameError::IllegalMove {
            action: self.action_to_text(action),
            reason: MoveProblem::Rule("not a legal move in this position"),
        }
    }

    /// `Some` once the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// Zobrist-style hash of the position (including side to move and pending chance),
    /// kept incrementally.
    fn hash(&self) -> u64;

    /// Number of player moves played so far.
    fn ply(&self) -> usize;

    /// The last player action, if any (an input plane of the network).
    fn last_action(&self) -> Option<Action>;

    // --- network input ---

    /// Shape of [`Game::encode_planes`].
    fn plane_shape(&self) -> PlaneShape;

    /// Writes the input planes (from the side to move's point of view) into `out`,
    /// whose length is `plane_shape().len()`.
    ///
    /// An encoding only ever grows by planes appended after the existing ones: a network
    /// trained by an older build is fed the first planes, the ones it knows.
    fn encode_planes(&self, out: &mut [f32]);

    // --- notation ---

    /// Text for one action, e.g. `4` (Connect Four column, 1-based) or `7,7` (Gomoku).
    fn action_to_text(&self, action: Action) -> String;

    /// Parses one action's text.
    fn action_from_text(&self, text: &str) -> Result<Action, GameError>;

    /// Parses a move list (the game's position notation: the moves from the start).
    /// The default splits on whitespace and `;`; Connect Four also takes digit strings.
    fn moves_from_text(&self, text: &str) -> Result<Vec<Action>, GameError> {
        text.split(|c: char| c.is_whitespace() || c == ';')
            .filter(|t| !t.is_empty())
            .map(|t| self.action_from_text(t))
            .collect()
    }

    /// Formats a move list so that [`Game::moves_from_text`] reads it back.
    fn moves_to_text(&self, moves: &[Action]) -> String {
        moves.iter().map(|&a| self.action_to_text(a)).collect::<Vec<_>>().join(" ")
    }

    /// Human-readable board diagram (for `dojo play` and debugging).
    fn render(&self) -> String;
}

/// One-player games' score (2048, 2584, Pig): a two-player game implements it empty.
pub trait Scoring {
    /// Whether one player plays the game alone, for a score (2048, 2584), rather than two
    /// against each other. The one question every part of dojo asks about a game's kind:
    /// which search it gets, how its games are recorded and reported, and how its players
    /// are compared (see [`GameSpec::is_one_player`] for a spec).
    fn is_one_player(&self) -> bool {
        false
    }

    /// How a one-player game stands, over or not: its score so far and its largest tile.
    /// None for a two-player game. Reports, tournaments and the dashboard read a one-player
    /// game's score only through this, so a new one-player game needs nothing outside its
    /// rules to be scored.
    fn game_score(&self) -> Option<GameScore> {
        None
    }

    /// The tiles a one-player game's reach-rate table lists (seed 002's: the share of games
    /// whose largest tile reached each), given the largest tile any game reached. Empty for
    /// a game without tiles.
    fn reach_tiles(&self, largest: u32) -> Vec<u32> {
        let _ = largest;
        Vec::new()
    }

    /// The return a one-player game's network values are scaled to ([`returns`]): the
    /// `search.max_return` a new run of it starts with. About the largest score a strong
    /// player's games reach, so the value targets of good and bad games spread over [0, 1]
    /// (Pig: the best play averages 40.7, its scale is 120); a new game
    /// whose scores are far from 2048's says so here. 2048's and 2584's is
    /// [`returns::DEFAULT_MAX_RETURN`].
    fn max_return(&self) -> f64 {
        returns::DEFAULT_MAX_RETURN
    }

    /// A one-player tile game's board as face values (0 for empty), row-major, for displays
    /// such as the dashboard's final boards. None where the game has no such board.
    fn tile_board(&self) -> Option<Vec<u32>> {
        None
    }
}

/// Games with chance events (2048's tile spawns, Pig's die): a game without them implements
/// it empty.
pub trait Chance {
    /// The pending chance events with their probabilities (summing to 1). Empty when no
    /// chance event is pending.
    fn chance_outcomes(&self, out: &mut Vec<(Action, f32)>) {
        out.clear();
    }

    /// Applies a chance event from [`Chance::chance_outcomes`].
    fn apply_chance(&mut self, _event: Action) -> Result<(), GameError> {
        Err(GameError::NoChancePending)
    }

    /// Samples and applies a chance event with the right probabilities.
    fn sample_chance(&mut self, _rng: &mut Rng) {}
}

/// A board's symmetries (Connect Four's mirror, Gomoku's eight), which training augments by
/// and play averages over: a game without them implements it empty (the identity alone).
pub trait Symmetries {
    /// Number of symmetries of the board (1 = identity only).
    fn num_symmetries(&self) -> usize {
        1
    }

    /// Maps a player action through symmetry `sym` (0 is the identity).
    fn map_action(&self, sym: usize, action: Action) -> Action {
        debug_assert!(sym < self.num_symmetries());
        action
    }

    /// Maps a single `height × width` plane (row-major) through symmetry `sym`.
    fn map_plane(&self, sym: usize, src: &[f32], dst: &mut [f32]) {
        debug_assert!(sym < self.num_symmetries());
        dst.copy_from_slice(src);
    }
}

/// How a board lays out for a network beyond its planes: in a larger frame (an any-size
/// network's) and as one action a cell (a convolutional policy head). A game that has
/// neither implements it empty.
pub trait BoardLayout {
    /// This position encoded in a larger `width × height` frame, for an any-size network
    /// (see [`connect4::Connect4::framed`], [`gomoku::Gomoku::framed`]); games that have no
    /// frames say so.
    fn in_frame(&self, width: usize, height: usize) -> Result<Self, GameError>
    where
        Self: Game,
    {
        let _ = (width, height);
        Err(GameError::Spec {
            spec: self.spec().to_string(),
            reason: SpecProblem::Rule("only Connect Four and Gomoku boards are played by an any-size network").into(),
        })
    }

    /// Whether action `i` is placing on cell `i` of the planes (row-major), for every `i`:
    /// then a network may read one logit per cell off its last planes (a convolutional
    /// policy head) instead of learning every move from every cell.
    fn actions_are_cells(&self) -> bool {
        false
    }
}

/// A game named by its name alone (`hex5`): no sizes, no options, one start. Its spec is
/// [`GameSpec::Named`]; [`registry`]'s `games!` registers it.
pub trait NamedGame: Game + Default {
    /// What users type for it (`--game hex5`): lower case, no `:`.
    const NAME: &'static str;
}

/// Draws the pending chance event with its probability, applies it and returns it (what a
/// record stores); None when no chance event is pending. `scratch` holds the outcomes.
pub fn draw_chance_event<G: Game>(game: &mut G, rng: &mut Rng, scratch: &mut Vec<(Action, f32)>) -> Option<Action> {
    game.chance_outcomes(scratch);
    let total: f32 = scratch.iter().map(|&(_, p)| p).sum();
    let mut x = rng.random::<f32>() * total;
    let mut pick = *scratch.last()?;
    for &(event, p) in scratch.iter() {
        x -= p;
        if x < 0.0 {
            pick = (event, p);
            break;
        }
    }
    game.apply_chance(pick.0).ok()?;
    Some(pick.0)
}

/// Plays up to `plies` uniformly random moves that do not end the game (a varied opening
/// for self-play and for matches between deterministic players) and returns them. Stops
/// early at a chance event or when every move would end the game.
pub fn play_random_opening<G: Game>(game: &mut G, plies: usize, rng: &mut Rng) -> Vec<Action> {
    let mut played = Vec::with_capacity(plies);
    let mut moves = Vec::new();
    for _ in 0..plies {
        if !matches!(game.to_move(), ToMove::Player(_)) {
            break;
        }
        game.legal_actions(&mut moves);
        moves.retain(|&a| {
            let mut next = game.clone();
            next.play(a).is_ok() && next.outcome().is_none()
        });
        if moves.is_empty() {
            break;
        }
        let action = *moves.choose(rng).expect("a non-empty list");
        game.play(action).expect("a legal move");
        played.push(action);
    }
    played
}
