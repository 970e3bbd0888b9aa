//! dojo's Connect Four positions as the saiblo SDK's arrays, and a strategy's answer as a
//! dojo move (the conventions are in the module docs of [`super`]).

use dojo_base::bits::BitWord;
use dojo_game::connect4::Connect4;
use dojo_game::{Action, Game};
use std::ffi::c_int;
use std::fmt::Write as _;

/// `getPoint`'s arguments: `M, N, top, board, lastX, lastY, noX, noY`.
pub type SdkArgs = (c_int, c_int, *const c_int, *const c_int, c_int, c_int, c_int, c_int);

/// A position as `getPoint` receives it, from the side to move's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaibloView {
    /// Rows (dojo's height).
    pub m: usize,
    /// Columns (dojo's width).
    pub n: usize,
    /// One more than the landing row of each column, counted from the top; 0 when full.
    pub top: Vec<i32>,
    /// `board[x*n + y]`: 0 empty (the forbidden cell too), 1 the opponent, 2 the mover.
    pub board: Vec<i32>,
    /// The opponent's last move, `(-1, -1)` before any.
    pub last: (i32, i32),
    /// The forbidden cell.
    pub no: (i32, i32),
}

/// Why a position cannot be shown to a saiblo strategy, or why its answer is not a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// saiblo's boards have exactly one forbidden cell.
    #[error("saiblo strategies play boards with exactly one blocked cell, and this one has {blocked}")]
    Blocked { blocked: u32 },
    #[error("illegal move ({x}, {y}): off the {m}x{n} board (x is the row from the top, y the column)")]
    OffBoard { x: i32, y: i32, m: usize, n: usize },
    #[error("illegal move ({x}, {y}): column {y} is full")]
    ColumnFull { x: i32, y: i32 },
    #[error("illegal move ({x}, {y}): the forbidden cell")]
    Forbidden { x: i32, y: i32 },
    /// A cell of a column that is not where a disc dropped there lands (`top[y] - 1`).
    #[error("illegal move ({x}, {y}): a disc dropped in column {y} lands on row {lands}")]
    NotLanding { x: i32, y: i32, lands: i32 },
}

impl SaibloView {
    /// The SDK's view of `game` for its side to move.
    pub fn of<B: BitWord>(game: &Connect4<B>) -> Result<SaibloView, BoardError> {
        let blocked = game.blocked();
        if blocked.count_ones() != 1 {
            return Err(BoardError::Blocked { blocked: blocked.count_ones() });
        }
        let (m, n) = (game.height(), game.width());
        // dojo's rows count from the bottom, the SDK's from the top.
        let x_of = |row: usize| (m - 1 - row) as i32;
        let mover = game.side_to_move();
        let (mine, theirs) = (game.stones(mover), game.stones(mover.other()));
        let mut board = vec![0; m * n];
        let mut no = (-1, -1);
        for col in 0..n {
            for row in 0..m {
                let bit = game.bit_index(col, row);
                let cell = x_of(row) as usize * n + col;
                if mine.has(bit) {
                    board[cell] = 2;
                } else if theirs.has(bit) {
                    board[cell] = 1;
                } else if blocked.has(bit) {
                    no = (x_of(row), col as i32);
                }
            }
        }
        let top = (0..n)
            .map(|col| match game.playable() & game.column_mask(col) {
                landing if landing.is_zero() => 0,
                landing => x_of(game.row_of_bit(landing.trailing_zeros())) + 1,
            })
            .collect();
        // The last disc played is the highest disc of its column.
        let last = match game.last_action() {
            None => (-1, -1),
            Some(col) => {
                let col = usize::from(col);
                let discs = game.stones(mover.other()) | game.stones(mover);
                let row = (0..m).rev().find(|&row| discs.has(game.bit_index(col, row))).expect("a disc was played");
                (x_of(row), col as i32)
            }
        };
        Ok(SaibloView { m, n, top, board, last, no })
    }

    /// The arguments `getPoint` takes for this view, as the SDK orders them: `M, N, top,
    /// board, lastX, lastY, noX, noY` (an exported strategy's `dojoEvaluate` starts with
    /// them too). The pointers live as long as the view.
    pub fn sdk_args(&self) -> SdkArgs {
        let int = |v: usize| v as c_int;
        (
            int(self.m),
            int(self.n),
            self.top.as_ptr(),
            self.board.as_ptr(),
            self.last.0,
            self.last.1,
            self.no.0,
            self.no.1,
        )
    }

    /// The request line the host reads: `M N lastX lastY noX noY top[0..N] board[0..M*N]`.
    pub fn request_line(&self) -> String {
        let mut line = format!("{} {} {} {} {} {}", self.m, self.n, self.last.0, self.last.1, self.no.0, self.no.1);
        for v in self.top.iter().chain(&self.board) {
            let _ = write!(line, " {v}");
        }
        line
    }

    /// A request line read back (the host's side); None if it is not one.
    pub fn parse_request(line: &str) -> Option<SaibloView> {
        let numbers: Vec<i32> = line.split_ascii_whitespace().map(|w| w.parse().ok()).collect::<Option<_>>()?;
        let [m, n, lx, ly, nx, ny, rest @ ..] = numbers.as_slice() else { return None };
        let (m, n) = (usize::try_from(*m).ok()?, usize::try_from(*n).ok()?);
        if rest.len() != n + m * n {
            return None;
        }
        let (top, board) = rest.split_at(n);
        Some(SaibloView { m, n, top: top.to_vec(), board: board.to_vec(), last: (*lx, *ly), no: (*nx, *ny) })
    }

    /// The strategy's answer `(x, y)` as a dojo move (a column), if it is legal.
    pub fn action(&self, x: i32, y: i32) -> Result<Action, BoardError> {
        let (m, n) = (self.m, self.n);
        if x < 0 || y < 0 || x as usize >= m || y as usize >= n {
            return Err(BoardError::OffBoard { x, y, m, n });
        }
        let top = self.top[y as usize];
        if (x, y) == self.no {
            return Err(BoardError::Forbidden { x, y });
        }
        if top == 0 {
            return Err(BoardError::ColumnFull { x, y });
        }
        if x != top - 1 {
            return Err(BoardError::NotLanding { x, y, lands: top - 1 });
        }
        Ok(y as Action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_base::bits::Bits192;

    /// A 9-row, 10-column board with the forbidden cell at the bottom of column 3.
    fn board() -> Connect4<Bits192> {
        Connect4::new(10, 9, &[(3, 0)]).unwrap()
    }

    #[test]
    fn the_empty_board_and_the_first_moves_read_as_the_sdk_says() {
        let mut game = board();
        let view = SaibloView::of(&game).unwrap();
        assert_eq!((view.m, view.n, view.last, view.no), (9, 10, (-1, -1), (8, 3)));
        // Column 3 skips its forbidden bottom cell: a disc lands on row 7.
        assert_eq!(view.top, vec![9, 9, 9, 8, 9, 9, 9, 9, 9, 9]);
        assert!(view.board.iter().all(|&c| c == 0), "the forbidden cell reads 0 too");
        game.play(3).unwrap();
        let view = SaibloView::of(&game).unwrap();
        // The second player sees the first's disc as the opponent's (1), above the cell.
        assert_eq!(view.last, (7, 3));
        assert_eq!(view.board[7 * 10 + 3], 1);
        assert_eq!(view.top[3], 7);
        game.play(0).unwrap();
        let view = SaibloView::of(&game).unwrap();
        // The first player sees its disc as 2, the opponent's reply (row 8, column 0) as 1.
        assert_eq!((view.board[7 * 10 + 3], view.board[8 * 10]), (2, 1));
        assert_eq!(view.last, (8, 0));
        assert_eq!(view.action(8, 0), Err(BoardError::NotLanding { x: 8, y: 0, lands: 7 }));
        assert_eq!(view.action(7, 0), Ok(0));
        assert_eq!(view.action(8, 3), Err(BoardError::Forbidden { x: 8, y: 3 }));
        assert_eq!(view.action(9, 0), Err(BoardError::OffBoard { x: 9, y: 0, m: 9, n: 10 }));
        assert_eq!(view.action(0, -1), Err(BoardError::OffBoard { x: 0, y: -1, m: 9, n: 10 }));
        let line = view.request_line();
        assert!(line.starts_with("9 10 8 0 8 3 8 9 9 7 9"), "{line}");
        assert_eq!(SaibloView::parse_request(&line), Some(view));
        assert_eq!(SaibloView::parse_request("9 10 8 0 8 3 1 2"), None);
    }

    #[test]
    fn a_column_under_a_top_forbidden_cell_is_full_once_filled_below_it() {
        // The forbidden cell on the top row of column 0, the three below it filled.
        let mut game = Connect4::<u64>::new(5, 4, &[(0, 3)]).unwrap();
        for _ in 0..3 {
            game.play(0).unwrap();
        }
        let view = SaibloView::of(&game).unwrap();
        assert_eq!((view.top[0], view.no), (0, (0, 0)));
        assert_eq!(view.action(0, 0), Err(BoardError::Forbidden { x: 0, y: 0 }));
        assert_eq!(view.action(1, 0), Err(BoardError::ColumnFull { x: 1, y: 0 }));
        assert_eq!(view.board[0], 0, "the forbidden cell reads 0");
        assert_eq!(view.top[1], 4);
        assert_eq!(SaibloView::of(&Connect4::<u64>::standard()), Err(BoardError::Blocked { blocked: 0 }));
    }
}
