//! Exact Connect Four solver, after Pascal Pons' "Solving Connect 4" series (gamesolver.org):
//! negamax with alpha-beta on a `u64` bitboard, a transposition table keyed by
//! `current + mask`, centre-first move ordering refined by the number of threats a move
//! creates, pruning of moves that hand the opponent an immediate win, and a null-window
//! search that narrows the score interval.
//!
//! The board is generalised to any `width × height` with `width * (height + 1) <= 64` and to
//! blocked cells (cells nobody may play; a disc reaching one skips over it, as in the saiblo
//! variant). It lives beside the rules it solves, as Gomoku's threat prover does
//! (`gomoku/vcf.rs`): a game's tactics are the game crate's. It keeps its own [`Position`]
//! (a `u64` board and nothing else, for the search's speed); the game converts with
//! [`Position::from_game`] or [`Position::from_bitboards`].
//!
//! # Layout
//! Column-major, one sentinel bit above each column: cell `(col, row)` (row 0 at the bottom)
//! is bit `col * (height + 1) + row`. For 7 × 6:
//! ```text
//!   .  .  .  .  .  .  .     <- sentinels
//!   5 12 19 26 33 40 47
//!   4 11 18 25 32 39 46
//!   3 10 17 24 31 38 45
//!   2  9 16 23 30 37 44
//!   1  8 15 22 29 36 43
//!   0  7 14 21 28 35 42
//! ```
//! `mask` holds every occupied cell, blocked cells included; `current` the discs of the side
//! to move. A blocked cell is in `mask` but belongs to nobody.
//!
//! # Score
//! As on gamesolver.org, from the side to move's point of view: 0 for a draw; if the side to
//! move can force a win whose winning disc goes onto a board already holding `k` discs, its
//! score is `(cells + 1 - k) / 2` for the earliest such win, where `cells` counts the cells
//! that are not blocked (so winning with one's very last disc scores 1, and a win available
//! right now scores `(cells + 1 - moves_played) / 2`); a loss is the negation of the
//! opponent's score.

use crate::{GameError, MoveProblem, ParseProblem, SpecProblem};

/// A column needs at least two bits (one cell and the sentinel), so no board is wider.
const MAX_WIDTH: usize = 32;

/// Default transposition table size: 2^23 entries of 8 bytes (64 MiB, allocated lazily).
pub const DEFAULT_TT_BITS: u32 = 23;

// ---------------------------------------------------------------------------------------------
// Board geometry
// ---------------------------------------------------------------------------------------------

/// The fixed part of a board: its size and blocked cells, with the masks derived from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Shape {
    width: u8,
    height: u8,
    /// Bit 0 of every column.
    bottom: u64,
    /// Every cell of the grid, blocked ones included, sentinels excluded.
    board: u64,
    blocked: u64,
}

fn spec_error(width: usize, height: usize, reason: SpecProblem) -> GameError {
    GameError::Spec { spec: format!("connect4:{width}x{height}"), reason: reason.into() }
}

impl Shape {
    fn new(width: usize, height: usize, blocked: u64) -> Result<Shape, GameError> {
        if width == 0 || height == 0 {
            return Err(spec_error(
                width,
                height,
                SpecProblem::Rule("the solver needs at least one column and one row"),
            ));
        }
        let bits = height.checked_add(1).and_then(|h1| width.checked_mul(h1)).unwrap_or(usize::MAX);
        if bits > 64 {
            return Err(spec_error(width, height, SpecProblem::SolverBitboard { width, height, bits }));
        }
        let h1 = height + 1;
        let mut bottom = 0u64;
        let mut board = 0u64;
        let column = (1u64 << height) - 1;
        for c in 0..width {
            bottom |= 1u64 << (c * h1);
            board |= column << (c * h1);
        }
        if blocked & !board != 0 {
            return Err(spec_error(width, height, SpecProblem::BlockedOutside { blocked, board }));
        }
        Ok(Shape { width: width as u8, height: height as u8, bottom, board, blocked })
    }

    fn from_cells(width: usize, height: usize, blocked: &[(usize, usize)]) -> Result<Shape, GameError> {
        // Validate the size before shifting by it.
        Shape::new(width, height, 0)?;
        let mut bits = 0u64;
        for &(c, r) in blocked {
            if c >= width || r >= height {
                let off = SpecProblem::CellOffBoardFrom0 { column: c, row: r, width, height };
                return Err(spec_error(width, height, off));
            }
            bits |= 1u64 << (c * (height + 1) + r);
        }
        Shape::new(width, height, bits)
    }

    #[inline(always)]
    fn h1(&self) -> u32 {
        u32::from(self.height) + 1
    }

    /// Cells that are not blocked.
    fn cells(&self) -> i32 {
        (self.board.count_ones() - self.blocked.count_ones()) as i32
    }

    /// The cell each column's next disc lands on (none for a full column). Adding the bottom
    /// row carries through each column's run of occupied cells, blocked ones included, so a
    /// disc skips over a blocked cell; `!mask` drops the blocked cells above the run.
    #[inline(always)]
    fn possible(&self, mask: u64) -> u64 {
        mask.wrapping_add(self.bottom) & self.board & !mask
    }

    /// The empty cells that would complete four in a row for the owner of `pos`.
    #[inline(always)]
    fn winning_cells(&self, pos: u64, mask: u64) -> u64 {
        let mut r = (pos << 1) & (pos << 2) & (pos << 3);
        // Narrower boards have no horizontal or diagonal line; skipping them also keeps every
        // shift below 64 (width >= 4 means height + 2 <= 17).
        if self.width >= 4 {
            let h1 = self.h1();
            for s in [h1, h1 - 1, h1 + 1] {
                let p = (pos << s) & (pos << (2 * s));
                r |= p & (pos << (3 * s));
                r |= p & (pos >> s);
                let p = (pos >> s) & (pos >> (2 * s));
                r |= p & (pos << s);
                r |= p & (pos >> (3 * s));
            }
        }
        r & (self.board ^ mask)
    }

    /// Whether `pos` holds four in a row (validation only, not a hot path).
    fn has_four(&self, pos: u64) -> bool {
        let h1 = self.h1();
        let shr = |x: u64, s: u32| x.checked_shr(s).unwrap_or(0);
        [1, h1 - 1, h1, h1 + 1].into_iter().any(|s| {
            let m = pos & shr(pos, s);
            m & shr(m, 2 * s) != 0
        })
    }
}

/// The cells of column `col` on a board of `height` rows.
#[inline(always)]
fn column_bits(height: u8, col: usize) -> u64 {
    let h = u32::from(height);
    ((1u64 << h) - 1) << (col as u32 * (h + 1))
}

// ---------------------------------------------------------------------------------------------
// Position
// ---------------------------------------------------------------------------------------------

/// A Connect Four position the solver accepts: never already won (the solver, as on
/// gamesolver.org, scores the side to move of a game still in progress), possibly full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    shape: Shape,
    /// Discs of the side to move.
    current: u64,
    /// Occupied cells: both players' discs and the blocked cells.
    mask: u64,
    /// Discs played (blocked cells not counted).
    moves: u32,
}

impl Position {
    /// The empty board. `blocked` lists `(column, row)` cells, 0-based, row 0 at the bottom.
    pub fn new(width: usize, height: usize, blocked: &[(usize, usize)]) -> Result<Position, GameError> {
        let shape = Shape::from_cells(width, height, blocked)?;
        Ok(Position { shape, current: 0, mask: shape.blocked, moves: 0 })
    }

    /// The position after playing `moves` (0-based columns) from the empty board. Fails on a
    /// board that does not fit, a column off the board, a full column, or a move that
    /// completes four in a row (the game would be over, so the solver could not take it).
    pub fn from_moves(
        width: usize,
        height: usize,
        blocked: &[(usize, usize)],
        moves: &[usize],
    ) -> Result<Position, GameError> {
        let mut pos = Position::new(width, height, blocked)?;
        for (i, &col) in moves.iter().enumerate() {
            pos.play(col).map_err(|e| match e {
                GameError::IllegalMove { action, reason } => GameError::IllegalMove {
                    action,
                    reason: MoveProblem::AtMove { index: i + 1, of: "the sequence", problem: Box::new(reason) },
                },
                other => other,
            })?;
        }
        Ok(pos)
    }

    /// The solver's view of a Connect Four game (the same bitboard layout).
    pub fn from_game(game: &super::Connect4<u64>) -> Position {
        Position::from_bitboards(
            game.width(),
            game.height(),
            game.current_stones(),
            game.occupied(),
            game.blocked(),
            game.discs_played(),
        )
        .expect("a Connect4<u64> position that is not over is always a valid solver position")
    }

    /// A position from the bitboards the Connect Four game keeps (same layout): `current`
    /// the side to move's discs, `mask` every occupied cell (both players and `blocked`).
    /// Checks that the discs obey gravity, that the disc counts fit `moves_played`, and that
    /// nobody has four in a row.
    pub fn from_bitboards(
        width: usize,
        height: usize,
        current: u64,
        mask: u64,
        blocked: u64,
        moves_played: usize,
    ) -> Result<Position, GameError> {
        let shape = Shape::new(width, height, blocked)?;
        let bad = |reason: ParseProblem| GameError::Parse {
            what: "connect4 bitboards",
            text: format!("current={current:#x} mask={mask:#x} blocked={blocked:#x}"),
            reason: reason.into(),
        };
        if mask & !shape.board != 0 {
            return Err(bad(ParseProblem::MaskOutside { width, height }));
        }
        if blocked & !mask != 0 {
            return Err(bad(ParseProblem::Rule("blocked cells must be part of mask")));
        }
        let stones = mask & !blocked;
        if current & !stones != 0 {
            return Err(bad(ParseProblem::Rule("current has discs outside mask or on blocked cells")));
        }
        // `next` has exactly one bit per column: the first free cell or the sentinel, so
        // `next - bottom` is every cell under it and all discs must lie there.
        let next = mask.wrapping_add(shape.bottom) & !mask;
        let under = next.wrapping_sub(shape.bottom);
        if stones & !under != 0 {
            return Err(bad(ParseProblem::Rule("a disc floats above an empty cell")));
        }
        let n = stones.count_ones() as usize;
        if n != moves_played {
            return Err(bad(ParseProblem::DiscCount { discs: n, moves: moves_played }));
        }
        if current.count_ones() as usize != moves_played / 2 {
            return Err(bad(ParseProblem::SideToMove { has: current.count_ones() as usize, moves: moves_played }));
        }
        if shape.has_four(current) || shape.has_four(stones ^ current) {
            return Err(bad(ParseProblem::Rule(
                "a player already has four in a row; the solver takes only games in progress",
            )));
        }
        Ok(Position { shape, current, mask, moves: moves_played as u32 })
    }

    pub fn width(&self) -> usize {
        usize::from(self.shape.width)
    }

    pub fn height(&self) -> usize {
        usize::from(self.shape.height)
    }

    /// Discs of the side to move.
    pub fn current(&self) -> u64 {
        self.current
    }

    /// Occupied cells, blocked cells included.
    pub fn mask(&self) -> u64 {
        self.mask
    }

    pub fn blocked(&self) -> u64 {
        self.shape.blocked
    }

    /// Discs played so far.
    pub fn moves_played(&self) -> usize {
        self.moves as usize
    }

    /// Cells that are not blocked: the most discs a game on this board can hold.
    pub fn cells(&self) -> usize {
        self.shape.cells() as usize
    }

    /// A key unique among positions of this board (gamesolver's `current + mask`).
    pub fn key(&self) -> u64 {
        self.current.wrapping_add(self.mask)
    }

    pub fn is_full(&self) -> bool {
        self.shape.possible(self.mask) == 0
    }

    pub fn can_play(&self, col: usize) -> bool {
        col < self.width() && self.shape.possible(self.mask) & column_bits(self.shape.height, col) != 0
    }

    /// Whether playing `col` completes four in a row (false for a column that cannot be
    /// played).
    pub fn is_winning_move(&self, col: usize) -> bool {
        col < self.width()
            && self.shape.winning_cells(self.current, self.mask)
                & self.shape.possible(self.mask)
                & column_bits(self.shape.height, col)
                != 0
    }

    /// Whether the side to move can win with its next disc.
    pub fn can_win_next(&self) -> bool {
        self.shape.winning_cells(self.current, self.mask) & self.shape.possible(self.mask) != 0
    }

    /// Plays `col` (0-based). Refuses a column off the board, a full column, and a winning
    /// move (a position is never over).
    pub fn play(&mut self, col: usize) -> Result<(), GameError> {
        let illegal = |reason: MoveProblem| GameError::IllegalMove { action: format!("column {col}"), reason };
        if col >= self.width() {
            return Err(illegal(MoveProblem::ColumnsFrom0(self.width())));
        }
        if !self.can_play(col) {
            return Err(illegal(MoveProblem::Rule("the column is full")));
        }
        if self.is_winning_move(col) {
            return Err(illegal(MoveProblem::Rule(
                "it completes four in a row: the game would be over, and the solver takes only games in progress",
            )));
        }
        self.play_unchecked(col);
        Ok(())
    }

    #[inline]
    fn play_unchecked(&mut self, col: usize) {
        let mv = self.shape.possible(self.mask) & column_bits(self.shape.height, col);
        self.current ^= self.mask ^ self.shape.blocked;
        self.mask |= mv;
        self.moves += 1;
    }

    /// The score of a win by the side to move with its next disc.
    pub fn win_now_score(&self) -> i32 {
        (self.shape.cells() + 1 - self.moves as i32) / 2
    }
}

// ---------------------------------------------------------------------------------------------
// Transposition table
// ---------------------------------------------------------------------------------------------

/// Always-replace table of 2^bits `u64` entries, each a tag above an 8-bit value (0 =
/// empty). The key is first multiplied by an odd constant, a bijection of `u64`; the top
/// `bits` bits of the product pick the slot and the other `64 - bits` (at most 56) are the
/// tag, so slot and tag together identify the key exactly, with no division on the hot path
/// (gamesolver gets the same guarantee from a prime size and the Chinese remainder theorem).
struct TransTable {
    entries: Vec<u64>,
    /// `64 - bits`: the tag's width.
    shift: u32,
    dirty: bool,
}

impl TransTable {
    fn new(bits: u32) -> TransTable {
        TransTable { entries: vec![0; 1usize << bits], shift: 64 - bits, dirty: false }
    }

    /// The slot and the tag of `key`.
    #[inline(always)]
    fn locate(&self, key: u64) -> (usize, u64) {
        let h = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        ((h >> self.shift) as usize, h & ((1u64 << self.shift) - 1))
    }

    #[inline(always)]
    fn get(&self, slot: usize, tag: u64) -> u8 {
        let e = self.entries[slot];
        if e >> 8 == tag {
            e as u8
        } else {
            0
        }
    }

    /// Starts loading `key`'s slot into the cache: the table is far larger than the caches,
    /// so without this nearly every probe waits on main memory.
    #[inline(always)]
    fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot = self.locate(key).0;
            let p = self.entries[slot..].as_ptr() as *const i8;
            // SAFETY: a prefetch is only a hint; it never faults nor changes memory, and `p`
            // points into the table anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline(always)]
    fn put(&mut self, slot: usize, tag: u64, value: u8) {
        self.entries[slot] = (tag << 8) | u64::from(value);
    }

    fn clear(&mut self) {
        if self.dirty {
            self.entries.fill(0);
            self.dirty = false;
        }
    }
}

// Scores lie in -32..=32 (a board holds at most 64 cells); both bound kinds fit one byte.
const UPPER_OFFSET: i32 = 40;
const LOWER_OFFSET: i32 = 140;
const LOWER_FIRST: u8 = 100;

// ---------------------------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------------------------

/// What the search needs per board, derived once.
#[derive(Clone, Copy)]
struct Geo {
    shape: Shape,
    width: usize,
    cells: i32,
    /// Columns centre first: central columns take part in more lines.
    order: [u8; MAX_WIDTH],
    col_masks: [u64; MAX_WIDTH],
}

impl Geo {
    fn new(shape: Shape) -> Geo {
        let width = usize::from(shape.width);
        let mut order = [0u8; MAX_WIDTH];
        let mut col_masks = [0u64; MAX_WIDTH];
        for (i, slot) in order.iter_mut().take(width).enumerate() {
            // width/2, then alternately left and right of it.
            let offset = (i as isize + 1) / 2;
            let sign = if i % 2 == 0 { 1 } else { -1 };
            *slot = (width as isize / 2 + sign * offset) as u8;
        }
        for (c, m) in col_masks.iter_mut().take(width).enumerate() {
            *m = column_bits(shape.height, c);
        }
        Geo { shape, width, cells: shape.cells(), order, col_masks }
    }

    /// Playable cells that do not hand the opponent an immediate win; 0 when every move
    /// loses at once. The side to move must not be able to win now.
    #[inline(always)]
    fn non_losing_moves(&self, cur: u64, mask: u64) -> u64 {
        let s = &self.shape;
        let mut possible = s.possible(mask);
        let opp_win = s.winning_cells(cur ^ mask ^ s.blocked, mask);
        let forced = possible & opp_win;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0; // two threats to block at once
            }
            possible = forced;
        }
        // A move directly under an opponent's winning cell gives it away. Under blocked
        // cells the cell freed is the first one above them, so look further down through
        // the blocked run.
        let mut t = opp_win >> 1;
        let mut bad = t & possible;
        t &= s.blocked;
        while t != 0 {
            t >>= 1;
            bad |= t & possible;
            t &= s.blocked;
        }
        possible & !bad
    }
}

struct Search<'a> {
    geo: &'a Geo,
    tt: &'a mut TransTable,
    nodes: u64,
    limit: u64,
    aborted: bool,
}

impl Search<'_> {
    /// Score of the position within `[alpha, beta]`: exact inside the window, otherwise a
    /// bound on the same side. The side to move must not be able to win at once.
    fn negamax(&mut self, cur: u64, mask: u64, moves: i32, alpha: i32, beta: i32) -> i32 {
        debug_assert!(alpha < beta);
        self.nodes += 1;
        if self.nodes > self.limit {
            self.aborted = true;
            return 0;
        }
        let geo = self.geo;
        let next = geo.non_losing_moves(cur, mask);
        if next == 0 {
            return -(geo.cells - moves) / 2; // the opponent wins with its next disc
        }
        if moves >= geo.cells - 2 {
            return 0; // we cannot win now and the opponent's last disc cannot win either
        }
        let (slot, tag) = self.tt.locate(cur.wrapping_add(mask));
        let (mut alpha, beta) = match self.window(slot, tag, moves, alpha, beta) {
            Ok(window) => window,
            Err(score) => return score,
        };
        let opp = cur ^ mask ^ geo.shape.blocked;
        let (sorted, mut n) = self.ordered_moves(cur, mask, next, opp);
        while n > 0 {
            n -= 1;
            let mv = next & geo.col_masks[(sorted[n] & 0xff) as usize];
            let score = -self.negamax(opp, mask | mv, moves + 1, -beta, -alpha);
            if self.aborted {
                return 0; // nothing below is trustworthy: store nothing
            }
            if score >= beta {
                self.tt.put(slot, tag, (score + LOWER_OFFSET) as u8);
                return score;
            }
            if score > alpha {
                alpha = score;
            }
        }
        self.tt.put(slot, tag, (alpha + UPPER_OFFSET) as u8);
        alpha
    }

    /// `[alpha, beta]` narrowed to the scores still possible after `moves` discs (the
    /// opponent cannot win with its next disc, nor we with this one) and by the table's
    /// bound in `slot`/`tag`; `Err(score)` where the window closes, the node's score.
    #[inline(always)]
    fn window(&self, slot: usize, tag: u64, moves: i32, mut alpha: i32, mut beta: i32) -> Result<(i32, i32), i32> {
        let cells = self.geo.cells;
        let min = -(cells - 2 - moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return Err(alpha);
            }
        }
        let max = (cells - 1 - moves) / 2;
        if beta > max {
            beta = max;
            if alpha >= beta {
                return Err(beta);
            }
        }
        let v = self.tt.get(slot, tag);
        if v >= LOWER_FIRST {
            let lower = i32::from(v) - LOWER_OFFSET;
            if alpha < lower {
                alpha = lower;
                if alpha >= beta {
                    return Err(alpha);
                }
            }
        } else if v != 0 {
            let upper = i32::from(v) - UPPER_OFFSET;
            if beta > upper {
                beta = upper;
                if alpha >= beta {
                    return Err(beta);
                }
            }
        }
        Ok((alpha, beta))
    }

    /// The moves of `next` in search order, last first: each entry packs (threats the move
    /// creates, centrality, column), so plain integer order is the order (threats, ties
    /// centre first). Each child's table slot is prefetched on the way.
    #[inline(always)]
    fn ordered_moves(&self, cur: u64, mask: u64, next: u64, opp: u64) -> ([u32; MAX_WIDTH], usize) {
        let geo = self.geo;
        let mut sorted = [0u32; MAX_WIDTH];
        let mut n = 0;
        for i in (0..geo.width).rev() {
            let col = geo.order[i] as usize;
            let mv = next & geo.col_masks[col];
            if mv != 0 {
                self.tt.prefetch(opp.wrapping_add(mask | mv));
                let threats = geo.shape.winning_cells(cur | mv, mask).count_ones();
                let entry = (threats << 16) | (((MAX_WIDTH - i) as u32) << 8) | col as u32;
                let mut p = n;
                while p > 0 && sorted[p - 1] > entry {
                    sorted[p] = sorted[p - 1];
                    p -= 1;
                }
                sorted[p] = entry;
                n += 1;
            }
        }
        (sorted, n)
    }
}

// ---------------------------------------------------------------------------------------------
// Solver
// ---------------------------------------------------------------------------------------------

/// Exact Connect Four solver. Owns its transposition table, which it keeps between calls on
/// the same board (its entries are true bounds, valid for any later search) and clears when
/// the board's size or blocked cells change.
pub struct Solver {
    tt: TransTable,
    geo: Option<Geo>,
    nodes: u64,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// A solver with a 2^[`DEFAULT_TT_BITS`]-entry table.
    pub fn new() -> Solver {
        Solver::with_tt_bits(DEFAULT_TT_BITS)
    }

    /// A solver with 2^`bits` table entries of 8 bytes; `bits` is clamped to 10..=30.
    pub fn with_tt_bits(bits: u32) -> Solver {
        Solver { tt: TransTable::new(bits.clamp(10, 30)), geo: None, nodes: 0 }
    }

    /// Nodes searched since construction or the last [`Solver::reset`].
    pub fn node_count(&self) -> u64 {
        self.nodes
    }

    /// Clears the transposition table and the node count.
    pub fn reset(&mut self) {
        self.tt.clear();
        self.nodes = 0;
    }

    /// The exact score of `pos` for the side to move (see the module docs).
    pub fn solve(&mut self, pos: &Position) -> i32 {
        self.run(pos, false, u64::MAX).expect("an unlimited search always finishes")
    }

    /// Only the outcome: 1 win, 0 draw, -1 loss for the side to move (faster than `solve`).
    pub fn solve_weak(&mut self, pos: &Position) -> i32 {
        self.run(pos, true, u64::MAX).expect("an unlimited search always finishes")
    }

    /// Like [`Solver::solve_weak`], but gives up (`None`) after searching `max_nodes` nodes.
    pub fn solve_weak_with_budget(&mut self, pos: &Position, max_nodes: u64) -> Option<i32> {
        self.run(pos, true, max_nodes)
    }

    /// Like [`Solver::solve`], but gives up (`None`) after searching `max_nodes` nodes. What
    /// it learnt stays in the table, so a retry with a bigger budget resumes cheaper.
    pub fn solve_with_budget(&mut self, pos: &Position, max_nodes: u64) -> Option<i32> {
        self.run(pos, false, max_nodes)
    }

    /// The score of playing each column, from the side to move's point of view (the
    /// negation of the resulting position's score, or the win score for a winning move);
    /// `None` for a column that cannot be played. The best entry equals [`Solver::solve`].
    pub fn analyze(&mut self, pos: &Position) -> Vec<Option<i32>> {
        self.analyze_with_budget(pos, u64::MAX).expect("an unlimited search always finishes")
    }

    /// Like [`Solver::analyze`], but gives up (`None`) once the columns together have
    /// searched `max_nodes` nodes. What it learnt stays in the table, as with
    /// [`Solver::solve_with_budget`].
    pub fn analyze_with_budget(&mut self, pos: &Position, max_nodes: u64) -> Option<Vec<Option<i32>>> {
        let limit = self.nodes.saturating_add(max_nodes);
        (0..pos.width())
            .map(|col| {
                if !pos.can_play(col) {
                    Some(None)
                } else if pos.is_winning_move(col) {
                    Some(Some(pos.win_now_score()))
                } else {
                    let mut child = *pos;
                    child.play_unchecked(col);
                    let left = limit.checked_sub(self.nodes).filter(|&n| n > 0)?;
                    self.run(&child, false, left).map(|score| Some(-score))
                }
            })
            .collect()
    }

    /// A column with the best score, centre first among equals. On a full board (no legal
    /// move) it returns `pos.width()`, which no board accepts.
    pub fn best_move(&mut self, pos: &Position) -> usize {
        if pos.is_full() {
            return pos.width();
        }
        let best = self.solve(pos);
        let geo = *self.geo_for(pos);
        let order = &geo.order[..geo.width];
        // Every child scores at least -best for the opponent; a null-window search tells
        // whether it scores exactly that, which is much cheaper than solving each child.
        for &col in order {
            let col = col as usize;
            if !pos.can_play(col) {
                continue;
            }
            if pos.is_winning_move(col) {
                if pos.win_now_score() == best {
                    return col;
                }
                continue;
            }
            let mut child = *pos;
            child.play_unchecked(col);
            let child_score = if child.can_win_next() {
                child.win_now_score()
            } else {
                let mut search =
                    Search { geo: &geo, tt: &mut self.tt, nodes: self.nodes, limit: u64::MAX, aborted: false };
                let r = search.negamax(child.current, child.mask, child.moves as i32, -best, -best + 1);
                self.nodes = search.nodes;
                r
            };
            if child_score <= -best {
                return col;
            }
        }
        // Unreachable when the search is exact; fall back to any legal column.
        (0..pos.width()).find(|&c| pos.can_play(c)).unwrap_or(pos.width())
    }

    /// Makes the table and move order match `pos`'s board.
    fn geo_for(&mut self, pos: &Position) -> &Geo {
        if self.geo.map(|g| g.shape) != Some(pos.shape) {
            self.tt.clear();
            self.geo = Some(Geo::new(pos.shape));
        }
        self.geo.as_ref().expect("just set")
    }

    /// The null-window loop of gamesolver part 7/8: halve the interval that holds the score
    /// (biased toward 0, where most scores lie) until it closes.
    fn run(&mut self, pos: &Position, weak: bool, max_nodes: u64) -> Option<i32> {
        if pos.can_win_next() {
            return Some(if weak { 1 } else { pos.win_now_score() });
        }
        let geo = *self.geo_for(pos);
        let cells = geo.cells;
        let moves = pos.moves as i32;
        let (mut min, mut max) = if weak { (-1, 1) } else { (-(cells - moves) / 2, (cells + 1 - moves) / 2) };
        self.tt.dirty = true;
        let mut search = Search {
            geo: &geo,
            tt: &mut self.tt,
            nodes: self.nodes,
            limit: self.nodes.saturating_add(max_nodes),
            aborted: false,
        };
        while min < max {
            let mut med = min + (max - min) / 2;
            if med <= 0 && min / 2 < med {
                med = min / 2;
            } else if med >= 0 && max / 2 > med {
                med = max / 2;
            }
            let r = search.negamax(pos.current, pos.mask, moves, med, med + 1);
            if search.aborted {
                self.nodes = search.nodes;
                return None;
            }
            if r <= med {
                max = r;
            } else {
                min = r;
            }
        }
        self.nodes = search.nodes;
        Some(if weak { min.signum() } else { min })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng as _, SeedableRng};

    #[test]
    fn layout_matches_the_game_module_convention() {
        let p = Position::from_moves(7, 6, &[], &[3, 3, 4]).unwrap();
        // Three discs played: the second player is to move and owns only column 3, row 1.
        assert_eq!(p.moves_played(), 3);
        assert_eq!(p.mask(), (1 << 21) | (1 << 22) | (1 << 28));
        assert_eq!(p.current(), 1 << 22);
        assert_eq!(p.key(), p.current() + p.mask());
    }

    #[test]
    fn table_slot_and_tag_identify_the_key() {
        // (slot, tag) is the product split in two, and multiplying by an odd number is a
        // bijection: the product, hence the key, is recovered from them.
        let tt = TransTable::new(10);
        let mut rng = dojo_base::rng::Rng::seed_from_u64(3);
        for _ in 0..10_000 {
            let key = rng.next_u64();
            let (slot, tag) = tt.locate(key);
            assert!(slot < 1024 && tag < 1 << 54);
            let product = ((slot as u64) << 54) | tag;
            assert_eq!(product.wrapping_mul(0xf1de_83e1_9937_733d), key);
        }
        // Keys that differ only in their top bits (the last columns) still spread.
        let slots: std::collections::HashSet<usize> = (0..64u64).map(|k| tt.locate(k << 42).0).collect();
        assert!(slots.len() > 40, "{}", slots.len());
    }

    #[test]
    fn blocked_cell_is_skipped_by_gravity() {
        // Column 0 blocked at row 1: the second disc lands on row 2.
        let p = Position::from_moves(4, 4, &[(0, 1)], &[0, 0]).unwrap();
        assert_eq!(p.mask(), 0b111);
        assert_eq!(p.blocked(), 0b010);
        assert_eq!(p.current(), 0b001);
        assert_eq!(p.cells(), 15);
    }

    #[test]
    fn column_order_is_centre_first() {
        let g = Geo::new(Shape::new(7, 6, 0).unwrap());
        assert_eq!(&g.order[..7], &[3, 2, 4, 1, 5, 0, 6]);
        let g = Geo::new(Shape::new(4, 4, 0).unwrap());
        assert_eq!(&g.order[..4], &[2, 1, 3, 0]);
    }
}
