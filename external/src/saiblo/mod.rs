//! saiblo.net's Connect Four strategies (seed 001) as players: `saiblo:PATH.so`.
//!
//! A saiblo contestant submits C++ that the platform builds into a shared object exporting
//! two C functions, and calls them each move:
//!
//! ```c
//! Point* getPoint(const int M, const int N, const int* top, const int* board,
//!                 const int lastX, const int lastY, const int noX, const int noY);
//! void clearPoint(Point* p);
//! ```
//!
//! The conventions, as the course's SDK states them: the board has `M` rows and `N`
//! columns; `x` is the row counted from the top, `y` the column; `board[x*N + y]` is 0 for
//! an empty cell (the forbidden cell `noX, noY` reads 0 too), 1 for the opponent's disc and
//! 2 for the mover's: every strategy sees itself as 2. `top[y]` is one more than the row a
//! disc dropped in column `y` lands on (`M` for an empty column, 0 for a full one), skipping
//! the forbidden cell, which stops discs as a neutral disc does (dojo's blocked cell).
//! `lastX, lastY` is the opponent's last move, `-1, -1` on the first move of the game. The
//! answer is a `Point` (two ints, `x` then `y`) that the platform hands back to
//! `clearPoint`. A crash, an illegal cell or a late answer loses, and each game runs in a
//! process of its own, so a strategy's static state is new every game.
//!
//! dojo hosts a strategy the same way: [`host`] is the child process (`dojo saiblo-host
//! PATH.so`, one per game) that loads the shared object and calls it; [`strategy`] is the
//! player in dojo's matches that runs that process, keeps the clock and checks each answer;
//! [`view`] translates dojo's positions into the SDK's arrays and its answers back.

pub mod host;
pub mod strategy;
pub mod view;

pub use strategy::{StrategyAgent, StrategyConfig, StrategyError, DEFAULT_CLOCK_MS};
pub use view::SaibloView;
