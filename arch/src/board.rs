//! The boards an any-size network plays (Connect Four's and Gomoku's), as data: which
//! input planes hold the board, how many moves a frame has, the largest frame. The tensor
//! side (the board mask, the moves' logits) is `dojo_net::any_size`.

use dojo_game::connect4::Connect4;
use dojo_game::gomoku::Gomoku;
use dojo_game::spec::{C4_MAX_HEIGHT, C4_MAX_WIDTH, GOMOKU_MAX, GOMOKU_MIN};
use dojo_game::{Game, GameSpec};

/// The boards an any-size network plays: where the input planes hold the board, and how
/// its moves are read off the cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Board {
    /// Connect Four: the board is the ones plane less the blocked plane; one move per
    /// column, read at the column's playable cell.
    Connect4,
    /// Gomoku: the board is the ones plane, a square in the frame's top left corner; one
    /// move per point, numbered `y * size + x` by the board's own size.
    Gomoku,
}

/// Connect Four's planes the mask and the policy read.
pub const C4_BLOCKED_PLANE: i64 = 3;
pub const C4_ONES_PLANE: i64 = 4;
pub const C4_PLAYABLE_PLANE: i64 = 8;
/// Gomoku's plane of ones (the stones, the last move, then the ones).
pub const GOMOKU_ONES_PLANE: i64 = 3;

impl Board {
    /// The boards of `game`'s family; None for a game without frames (2048, 2584).
    pub fn of(game: &GameSpec) -> Option<Board> {
        match game.family() {
            "connect4" => Some(Board::Connect4),
            "gomoku" => Some(Board::Gomoku),
            _ => None,
        }
    }

    /// The moves of a `width × height` frame: one per column (Connect Four) or per cell
    /// (Gomoku).
    pub fn moves(self, width: usize, height: usize) -> usize {
        match self {
            Board::Connect4 => width,
            Board::Gomoku => width * height,
        }
    }

    /// The largest frame: the game's largest board (a square for Gomoku, whose frames are).
    pub fn largest_frame(self) -> (usize, usize) {
        match self {
            Board::Connect4 => (C4_MAX_WIDTH as usize, C4_MAX_HEIGHT as usize),
            Board::Gomoku => (GOMOKU_MAX as usize, GOMOKU_MAX as usize),
        }
    }

    /// Input planes the network needs: up to the last plane its mask and policy read.
    pub fn min_input_planes(self) -> usize {
        match self {
            Board::Connect4 => C4_PLAYABLE_PLANE as usize + 1,
            Board::Gomoku => GOMOKU_ONES_PLANE as usize + 1,
        }
    }

    /// The planes a new network of these boards is fed: Connect Four's up to the playable
    /// plane (as the first any-size networks were trained), Gomoku's all (the threat planes
    /// are worth the most there).
    pub fn default_input_planes(self) -> usize {
        match self {
            Board::Connect4 => self.min_input_planes(),
            Board::Gomoku => self.encoded_planes(),
        }
    }

    /// The planes the game encodes today: the most a network can be fed.
    pub fn encoded_planes(self) -> usize {
        match self {
            Board::Connect4 => Connect4::<u64>::standard().plane_shape().channels,
            Board::Gomoku => Gomoku::new(GOMOKU_MIN as usize).expect("the smallest board").plane_shape().channels,
        }
    }
}
