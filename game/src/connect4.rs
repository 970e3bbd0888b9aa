//! Connect Four on bitboards, after the gamesolver.org articles, with the saiblo variant's
//! blocked cells (seed 001).
//!
//! # Layout
//!
//! Column-major: cell `(col, row)` is bit `col * (height + 1) + row`, row 0 at the bottom.
//! Each column has one extra *sentinel* bit above its top row that is never set, so carries
//! and shifted lines never leak from one column into the next.
//!
//! A position keeps `current` (the side to move's discs) and `mask` (every occupied cell,
//! blocked cells included). A blocked cell behaves like a disc that belongs to no one: discs
//! stack on top of it and it never counts toward a line. Because occupied cells are always
//! "the bottom of the column plus some blocked cells higher up", the next playable cell of
//! every column is the lowest zero bit of `mask` in that column:
//! `(mask + bottom) & !mask & board`. A column whose remaining cells are all blocked has no
//! zero bit below the sentinel, so it is simply not playable.
//!
//! `B` is the bit-set type: `u64` fits every board with `width * (height + 1) <= 64`
//! (7×6, 8×7), `u128` up to 128 bits, [`Bits192`](dojo_base::bits::Bits192) everything up to 12×12.
//!
//! # Notation
//!
//! One action is a 1-based column number: `4`, `10`. For columns 10, 11, 12 the letters
//! `a`, `b`, `c` (either case) are accepted as well.
//!
//! A move list is either
//! - *compact*, with no separators: one character per move, digits `1`–`9` then `a`, `b`, `c`
//!   for columns 10–12, e.g. `4453` or `4a3b`. [`Game::moves_to_text`] writes this form; or
//! - *tokens* separated by whitespace, `;` or `,`: one column per token, each a number or a
//!   letter, e.g. `10 4 12` or `4;4;5;3`.
//!
//! So on a wide board `12` is the two moves 1 then 2; write `12;` or `c` for column 12 alone.

use crate::spec;
use crate::tactics::{Lookahead, Tactics};
use crate::{board_outcome, BoardLayout, Chance, Scoring, Symmetries, DRAW, FIRST_WINS, ONGOING};
use crate::{
    Action, Game, GameError, GameSpec, MoveProblem, Outcome, ParseProblem, PlaneShape, Player, SpecProblem, ToMove,
};
use dojo_base::bits::BitWord;
use dojo_base::rng::Rng;
use rand::{Rng as _, RngExt};

pub mod solver;

/// Zobrist keys: one per bit index per player, one per blocked bit index, one for the side
/// to move. Built at compile time so the hot path is a plain table load.
const ZOBRIST_CELLS: usize = 192;

/// The next word of a splitmix64 stream at `state`.
const fn splitmix(state: &mut u64) -> u64 {
    let word = dojo_base::rng::splitmix64(*state);
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    word
}

/// What seed 001's rollout rules play ([`Connect4::heuristic_move`]).
#[derive(Clone, Copy)]
enum SeedChoice<B> {
    /// The side to move wins at once on this cell (the lowest, if several).
    Win(B),
    /// The one cell to play: the block (the lowest of two threats) or a column's two-step kill.
    Cell(B),
    /// Any one of these cells, drawn uniformly.
    AnyOf(B),
}

/// The lowest cell of the non-empty `cells`.
#[inline(always)]
fn lowest_cell<B: BitWord>(cells: B) -> B {
    cells ^ cells.clear_lowest()
}

/// A cell of the non-empty `cells` drawn uniformly from the splitmix64 stream at `state`:
/// the k-th in bit order, k the top 32 bits of the word scaled to the count.
#[inline]
fn random_cell<B: BitWord>(mut cells: B, state: &mut u64) -> B {
    let k = ((splitmix(state) >> 32) * u64::from(cells.count_ones())) >> 32;
    for _ in 0..k {
        cells = cells.clear_lowest();
    }
    lowest_cell(cells)
}

const fn zobrist_table() -> [[u64; ZOBRIST_CELLS]; 3] {
    let mut t = [[0u64; ZOBRIST_CELLS]; 3];
    let mut s = 0x0c4c_4f4e_4e45_4354u64;
    let mut k = 0;
    while k < 3 {
        let mut i = 0;
        while i < ZOBRIST_CELLS {
            t[k][i] = splitmix(&mut s);
            i += 1;
        }
        k += 1;
    }
    t
}

/// `[First, Second, blocked][bit index]`.
static ZOBRIST: [[u64; ZOBRIST_CELLS]; 3] = zobrist_table();
const ZOBRIST_SIDE: u64 = 0x6a09_e667_f3bc_c909;

const NO_LAST: u8 = u8::MAX;
/// Input planes of [`Game::encode_planes`].
const PLANES: usize = 9;

/// A Connect Four position. See the module docs for the layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connect4<B: BitWord = u64> {
    /// Discs of the side to move.
    current: B,
    /// Every occupied cell: both players' discs and the blocked cells.
    mask: B,
    blocked: B,
    /// Bit 0 of every column.
    bottom: B,
    /// Every cell of the board (no sentinels).
    board: B,
    hash: u64,
    width: u8,
    height: u8,
    /// The input planes' size and the number of moves the network is asked about: the
    /// board's own unless [`Connect4::framed`] placed it in a larger frame, so that boards
    /// of several sizes share one network's batches.
    frame_width: u8,
    frame_height: u8,
    /// `ceil(2^16 / (height + 1))`: `idx * col_magic >> 16 == idx / (height + 1)` for every
    /// bit index below 192, without a division on the hot path.
    col_magic: u32,
    ply: u16,
    /// Cells that are not blocked: the game is drawn when `ply` reaches it.
    free_cells: u16,
    /// Bit index of the last disc (its column is derived on demand, off the hot path).
    last_bit: u8,
    result: u8,
    mirror_symmetric: bool,
}

/// The spec text of a `width × height` board with `blocked` cells (0-based), as a user
/// would have written it, for an error about it.
fn spec_text(width: usize, height: usize, blocked: &[(usize, usize)]) -> String {
    let mut s = format!("connect4:{width}x{height}");
    if !blocked.is_empty() {
        let cells: Vec<String> =
            blocked.iter().map(|&(c, r)| format!("{}.{}", c.saturating_add(1), r.saturating_add(1))).collect();
        s.push(':');
        s.push_str(&cells.join(","));
    }
    s
}

/// The `blocked` cells `(column, row)` of a `width × height` board as bits (duplicates once)
/// and their part of the position's hash; a cell off the board is the problem.
fn blocked_cells<B: BitWord>(width: usize, height: usize, blocked: &[(usize, usize)]) -> Result<(B, u64), SpecProblem> {
    let h1 = (height + 1) as u32;
    let mut bits = B::zero();
    let mut hash = 0u64;
    for &(c, r) in blocked {
        if c >= width || r >= height {
            let (column, row) = (c.saturating_add(1), r.saturating_add(1));
            return Err(SpecProblem::CellOffBoard { column, row, width, height });
        }
        let i = c as u32 * h1 + r as u32;
        if !bits.has(i) {
            bits = bits | B::bit(i);
            hash ^= ZOBRIST[2][i as usize];
        }
    }
    Ok((bits, hash))
}

impl<B: BitWord> Connect4<B> {
    /// An empty `width × height` board with the given blocked cells `(column, row)`, 0-based,
    /// row 0 at the bottom. Duplicates are allowed.
    pub fn new(width: usize, height: usize, blocked: &[(usize, usize)]) -> Result<Self, GameError> {
        let min = spec::C4_MIN as usize;
        let err =
            |reason: SpecProblem| GameError::Spec { spec: spec_text(width, height, blocked), reason: reason.into() };
        for (what, v, max) in
            [("width", width, spec::C4_MAX_WIDTH as usize), ("height", height, spec::C4_MAX_HEIGHT as usize)]
        {
            if !(min..=max).contains(&v) {
                return Err(err(SpecProblem::OutOfRange { what, value: v, min, max }));
            }
        }
        let h1 = (height + 1) as u32;
        let bits = width as u32 * h1;
        if bits > B::BITS {
            return Err(err(SpecProblem::BitboardTooSmall { width, height, bits, capacity: B::BITS }));
        }
        let mut bottom = B::zero();
        let mut board = B::zero();
        let column = B::ones(height as u32);
        for c in 0..width as u32 {
            bottom = bottom | B::bit(c * h1);
            board = board | (column << (c * h1));
        }
        let (blocked_bits, hash) = blocked_cells::<B>(width, height, blocked).map_err(err)?;
        let free_cells = (width * height) as u32 - blocked_bits.count_ones();
        if free_cells == 0 {
            return Err(err(SpecProblem::Rule("every cell is blocked, so no move is possible")));
        }
        let mirror_symmetric = blocked.iter().all(|&(c, r)| {
            let i = (width - 1 - c) as u32 * h1 + r as u32;
            blocked_bits.has(i)
        });
        Ok(Connect4 {
            current: B::zero(),
            mask: blocked_bits,
            blocked: blocked_bits,
            bottom,
            board,
            hash,
            width: width as u8,
            height: height as u8,
            frame_width: width as u8,
            frame_height: height as u8,
            col_magic: (1u32 << 16).div_ceil(h1),
            ply: 0,
            free_cells: free_cells as u16,
            last_bit: NO_LAST,
            result: ONGOING,
            mirror_symmetric,
        })
    }

    /// The same position, encoded in a `width × height` frame: its planes are the frame's
    /// size with the board in the top left corner (zero outside it) and it has one move per
    /// frame column, those beyond the board never legal. An any-size network
    /// (`dojo_arch::architecture::Architecture::any_size`) plays every board this way.
    pub fn framed(mut self, width: usize, height: usize) -> Result<Self, GameError> {
        if width < self.width() || height < self.height() || width > 255 || height > 255 {
            return Err(GameError::Spec {
                spec: self.spec().to_string(),
                reason: SpecProblem::FrameTooSmall {
                    width: self.width(),
                    height: self.height(),
                    frame_width: width,
                    frame_height: height,
                }
                .into(),
            });
        }
        self.frame_width = width as u8;
        self.frame_height = height as u8;
        Ok(self)
    }

    /// The frame's width and height (the board's own unless [`Connect4::framed`]).
    pub fn frame(&self) -> (usize, usize) {
        (self.frame_width as usize, self.frame_height as usize)
    }

    /// Standard 7 × 6 Connect Four (needs a bit set of at least 49 bits).
    pub fn standard() -> Self {
        Self::new(7, 6, &[]).expect("7x6 fits every BitWord")
    }

    #[inline(always)]
    pub fn width(&self) -> usize {
        self.width as usize
    }

    #[inline(always)]
    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// Discs played so far (blocked cells not counted); equals [`Game::ply`].
    #[inline(always)]
    pub fn discs_played(&self) -> usize {
        self.ply as usize
    }

    /// The side to move (also meaningful, as "who would move", once the game is over).
    #[inline(always)]
    pub fn side_to_move(&self) -> Player {
        if self.ply & 1 == 0 {
            Player::First
        } else {
            Player::Second
        }
    }

    /// The side to move's discs.
    #[inline(always)]
    pub fn current_stones(&self) -> B {
        self.current
    }

    /// The discs of the player who just moved.
    #[inline(always)]
    pub fn opponent_stones(&self) -> B {
        self.current ^ self.mask ^ self.blocked
    }

    /// The discs of `player`.
    #[inline]
    pub fn stones(&self, player: Player) -> B {
        if player == self.side_to_move() {
            self.current_stones()
        } else {
            self.opponent_stones()
        }
    }

    /// Every occupied cell: both players' discs and the blocked cells.
    #[inline(always)]
    pub fn occupied(&self) -> B {
        self.mask
    }

    #[inline(always)]
    pub fn blocked(&self) -> B {
        self.blocked
    }

    /// Bit 0 of every column.
    #[inline(always)]
    pub fn bottom_mask(&self) -> B {
        self.bottom
    }

    /// Every cell of the board, without the sentinel bits.
    #[inline(always)]
    pub fn board_mask(&self) -> B {
        self.board
    }

    /// The bit index of cell `(col, row)`, row 0 at the bottom.
    #[inline(always)]
    pub fn bit_index(&self, col: usize, row: usize) -> u32 {
        col as u32 * (self.height as u32 + 1) + row as u32
    }

    /// The column of bit index `i`.
    #[inline(always)]
    pub fn column_of_bit(&self, i: u32) -> usize {
        ((i * self.col_magic) >> 16) as usize
    }

    /// The row of bit index `i` (row 0 at the bottom).
    #[inline(always)]
    pub fn row_of_bit(&self, i: u32) -> usize {
        (i - self.column_of_bit(i) as u32 * (self.height as u32 + 1)) as usize
    }

    /// Every cell of column `col`.
    #[inline]
    pub fn column_mask(&self, col: usize) -> B {
        B::ones(self.height as u32) << self.bit_index(col, 0)
    }

    /// The lowest empty cell of every column (none for a full or blocked-out column),
    /// given the occupied cells `occ`.
    #[inline(always)]
    fn next_cells(&self, occ: B) -> B {
        occ.wrapping_add(self.bottom) & !occ & self.board
    }

    /// The next playable cell of every column; empty once the game is over.
    #[inline(always)]
    pub fn playable(&self) -> B {
        if self.result != ONGOING {
            return B::zero();
        }
        self.next_cells(self.mask)
    }

    /// The empty, unblocked cells where a disc of `player` would complete four in a row
    /// (gamesolver's `compute_winning_position`), playable now or not.
    #[inline]
    pub fn winning_cells(&self, player: Player) -> B {
        self.winning_cells_of(self.stones(player))
    }

    #[inline]
    fn winning_cells_of(&self, p: B) -> B {
        self.winning_cells_of_in(p, self.mask)
    }

    /// [`Connect4::winning_cells_of`] on the occupied cells `mask` rather than the board's.
    #[inline]
    fn winning_cells_of_in(&self, p: B, mask: B) -> B {
        let h1 = self.height as u32 + 1;
        // Vertical: three below.
        let mut r = (p << 1) & (p << 2) & (p << 3);
        // Horizontal and both diagonals: the missing cell may be at any of the four spots.
        for d in [h1, h1 - 1, h1 + 1] {
            let a = (p << d) & (p << (2 * d));
            r = r | (a & (p << (3 * d)));
            r = r | (a & (p >> d));
            let b = (p >> d) & (p >> (2 * d));
            r = r | (b & (p << d));
            r = r | (b & (p >> (3 * d)));
        }
        r & self.board & !mask
    }

    /// Playable cells where the side to move wins at once.
    #[inline]
    pub fn immediate_wins(&self) -> B {
        self.playable() & self.winning_cells_of(self.current)
    }

    /// For cells `x`, each above a cell of `target` in the same column with only blocked
    /// cells in between, those cells of `target`. (Without blocked cells: `(x >> 1) & target`.)
    #[inline]
    fn drop_onto(&self, x: B, target: B) -> B {
        let down = x >> 1;
        if self.blocked.is_zero() {
            return down & target;
        }
        // Kogge–Stone occluded fill downward through runs of blocked cells (height <= 12,
        // so runs are shorter than 15 and four doublings reach the bottom of any run).
        let mut g = down;
        let mut p = self.blocked;
        g = g | (p & (g >> 1));
        p = p & (p >> 1);
        g = g | (p & (g >> 2));
        p = p & (p >> 2);
        g = g | (p & (g >> 4));
        p = p & (p >> 4);
        g = g | (p & (g >> 8));
        (g | (g >> 1)) & target
    }

    /// Playable cells that do not lose at once, gamesolver's `possibleNonLosingMoves`: empty
    /// if the opponent has two immediate wins; only the block if it has one; never a cell
    /// that makes an opponent winning cell playable. Assumes the side to move cannot win at
    /// once (check [`Connect4::immediate_wins`] first).
    #[inline]
    pub fn non_losing_moves(&self) -> B {
        let mut possible = self.playable();
        let opp_win = self.winning_cells_of(self.opponent_stones());
        let forced = possible & opp_win;
        if !forced.is_zero() {
            if !forced.clear_lowest().is_zero() {
                return B::zero();
            }
            possible = forced;
        }
        let above = self.next_cells(self.mask | possible);
        possible & !self.drop_onto(above & opp_win, possible)
    }

    #[inline(always)]
    fn column_of_cell(&self, cell: B) -> Action {
        self.column_of_bit(cell.trailing_zeros()) as Action
    }

    /// A uniformly random legal column, 0 if the game is over.
    #[inline]
    pub fn random_move(&self, rng: &mut Rng) -> Action {
        let poss = self.playable();
        self.random_in(poss, rng)
    }

    /// A uniformly random column among those holding a cell of `cells` (at most one cell
    /// per column), 0 if `cells` is empty.
    #[inline]
    fn random_in(&self, cells: B, rng: &mut Rng) -> Action {
        // Rejection sampling over columns: most of the time the first candidate is legal, so
        // this costs one draw and no data-dependent loop. Two 32-bit candidates per draw
        // (bias below 2^-28); if both miss, fall back to picking the k-th cell. Every path
        // is uniform over the columns of `cells`.
        let r = rng.next_u64();
        let w = self.width as u64;
        for half in [r & 0xffff_ffff, r >> 32] {
            let c = ((half * w) >> 32) as usize;
            if !(cells & self.column_mask(c)).is_zero() {
                return c as Action;
            }
        }
        let n = cells.count_ones();
        if n == 0 {
            return 0;
        }
        let mut x = cells;
        for _ in 0..rng.random_range(..n) {
            x = x.clear_lowest();
        }
        self.column_of_cell(x)
    }

    /// The seed-001 rollout policy, in priority order:
    /// 1. win at once if possible;
    /// 2. block the opponent's immediate win (with two of them the game is lost: block one);
    /// 3. never play directly under an opponent winning cell (禁入) unless nothing else is
    ///    left;
    /// 4. play a column whose next two cells are both our winning cells (同列两步杀): the
    ///    opponent must block the first and we win on the second;
    /// 5. prefer columns the opponent may still play: a column whose second cell is ours to
    ///    win is a resource (敌方禁入列), so spend it last;
    ///
    /// choosing uniformly within the best class. 0 if the game is over.
    #[inline]
    pub fn heuristic_move(&self, rng: &mut Rng) -> Action {
        match self.seed_choice(self.current, self.opponent_stones(), self.mask, self.playable()) {
            SeedChoice::Win(cell) | SeedChoice::Cell(cell) => self.column_of_cell(cell),
            SeedChoice::AnyOf(cells) => self.random_in(cells, rng),
        }
    }

    /// [`Connect4::heuristic_move`]'s rules on a position given as the side to move's discs
    /// `cur`, the other side's `opp`, the occupied cells `mask` and the playable cells `poss`
    /// (the rollouts play on these alone): what they play, the random choice left to the
    /// caller. One implementation for `mcts:N`'s rollouts (which draw from dojo's generator)
    /// and the search's (a stream the exported strategy replays).
    #[inline(always)]
    fn seed_choice(&self, cur: B, opp: B, mask: B, poss: B) -> SeedChoice<B> {
        let my_win = self.winning_cells_of_in(cur, mask);
        let win = poss & my_win;
        if !win.is_zero() {
            return SeedChoice::Win(lowest_cell(win));
        }
        let opp_win = self.winning_cells_of_in(opp, mask);
        let threats = poss & opp_win;
        if !threats.is_zero() {
            return SeedChoice::Cell(lowest_cell(threats));
        }
        let occ2 = mask | poss;
        let second = self.next_cells(occ2);
        let safe = poss & !self.drop_onto(second & opp_win, poss);
        if safe.is_zero() {
            return SeedChoice::AnyOf(poss);
        }
        let theirs_forbidden = safe & self.drop_onto(second & my_win, poss);
        if !theirs_forbidden.is_zero() {
            let third = self.next_cells(occ2 | second);
            let two_step = theirs_forbidden & self.drop_onto(self.drop_onto(third & my_win, second), poss);
            if !two_step.is_zero() {
                return SeedChoice::Cell(lowest_cell(two_step));
            }
        }
        let rest = safe & !theirs_forbidden;
        SeedChoice::AnyOf(if rest.is_zero() { safe } else { rest })
    }

    /// The game played out to its end by [`Connect4::heuristic_move`]'s rules (seed 001's
    /// rollout) on the bitboards alone: 1 if the side to move wins, -1 if it loses, 0 drawn.
    /// Its random choices come from the SplitMix64 stream `state`, a uniform pick among the
    /// candidate cells in bit order, so that the strategy `dojo export saiblo` writes (C++)
    /// replays the same rollouts from the same state.
    pub fn rollout(&self, state: &mut u64) -> f32 {
        match self.result {
            ONGOING => {}
            DRAW => return 0.0,
            _ => return -1.0, // the player who moved last won
        }
        let (mut cur, mut opp, mut mask) = (self.current, self.opponent_stones(), self.mask);
        let mut sign = 1.0;
        loop {
            let poss = self.next_cells(mask);
            if poss.is_zero() {
                return 0.0;
            }
            let cell = match self.seed_choice(cur, opp, mask, poss) {
                SeedChoice::Win(_) => return sign,
                SeedChoice::Cell(cell) => cell,
                SeedChoice::AnyOf(cells) => random_cell(cells, state),
            };
            (cur, opp) = (opp, cur | cell);
            mask = mask | cell;
            sign = -sign;
        }
    }

    /// Plays the playable cell `cell` (one bit, from [`Connect4::playable`]) for the side to
    /// move. The solver's entry point: no column lookup.
    #[inline]
    pub fn play_cell(&mut self, cell: B) {
        debug_assert!(cell.count_ones() == 1 && !(cell & self.playable()).is_zero());
        let idx = cell.trailing_zeros();
        let mover = self.current | cell;
        let side = (self.ply & 1) as usize;
        self.current = self.opponent_stones();
        self.mask = self.mask | cell;
        self.hash ^= ZOBRIST[side][idx as usize] ^ ZOBRIST_SIDE;
        self.ply += 1;
        self.last_bit = idx as u8;
        if self.has_four(mover) {
            self.result = FIRST_WINS + side as u8;
        } else if self.ply == self.free_cells {
            self.result = DRAW;
        }
    }

    /// The one-ply answer: the cells that do not lose at once, or else (`Err`) a win at once
    /// or a loss whatever is played.
    #[inline]
    fn safe_cells(&self) -> Result<B, Lookahead> {
        let wins = self.immediate_wins();
        if !wins.is_zero() {
            return Err(Lookahead::Win(self.column_of_cell(wins)));
        }
        let safe = self.non_losing_moves();
        if safe.is_zero() {
            return Err(Lookahead::Lost);
        }
        Ok(safe)
    }

    /// Appends the columns of `cells` (at most one cell per column), left to right.
    #[inline]
    fn push_columns(&self, mut cells: B, out: &mut Vec<Action>) {
        while !cells.is_zero() {
            out.push(self.column_of_cell(cells));
            cells = cells.clear_lowest();
        }
    }

    /// The position after the side to move plays `cell` (one playable cell).
    #[inline]
    fn after(&self, cell: B) -> Self {
        let mut next = self.clone();
        next.play_cell(cell);
        next
    }

    /// Whether the side to move, in a game still going, cannot win at once and loses at
    /// once whatever it plays: every move lets the opponent win at once (two threats to
    /// block, a threat with another right above it, or every playable cell under one).
    #[inline]
    fn is_lost_at_once(&self) -> bool {
        self.result == ONGOING && self.immediate_wins().is_zero() && self.non_losing_moves().is_zero()
    }

    /// Whether the side to move has a two-step kill: it wins at once, or has a safe move
    /// after which the opponent [`is lost at once`](Connect4::is_lost_at_once).
    #[inline]
    fn has_kill(&self) -> bool {
        if self.result != ONGOING {
            return false;
        }
        !self.immediate_wins().is_zero() || self.kill_among(self.non_losing_moves()).is_some()
    }

    /// The first of the `safe` cells after which the opponent is lost at once.
    #[inline]
    fn kill_among(&self, safe: B) -> Option<B> {
        let mut rest = safe;
        while !rest.is_zero() {
            let cell = rest ^ rest.clear_lowest();
            if self.after(cell).is_lost_at_once() {
                return Some(cell);
            }
            rest = rest.clear_lowest();
        }
        None
    }

    /// Whether discs `p` contain four in a row. The sentinel row keeps every shifted line
    /// inside its column.
    #[inline(always)]
    fn has_four(&self, p: B) -> bool {
        let h1 = self.height as u32 + 1;
        let mut any = B::zero();
        for d in [1, h1, h1 - 1, h1 + 1] {
            let m = p & (p >> d);
            any = any | (m & (m >> (2 * d)));
        }
        !any.is_zero()
    }

    /// The hash recomputed from the bitboards (equal to [`Game::hash`]; for tests and
    /// for positions set up without playing the moves).
    pub fn hash_from_scratch(&self) -> u64 {
        let mut h = 0;
        let tables = [(self.stones(Player::First), 0), (self.stones(Player::Second), 1), (self.blocked, 2)];
        for (mut bits, k) in tables {
            while !bits.is_zero() {
                h ^= ZOBRIST[k][bits.trailing_zeros() as usize];
                bits = bits.clear_lowest();
            }
        }
        if self.ply & 1 == 1 {
            h ^= ZOBRIST_SIDE;
        }
        h
    }

    /// Whether the blocked cells allow the left-right mirror as a symmetry.
    pub fn is_mirror_symmetric(&self) -> bool {
        self.mirror_symmetric
    }

    fn parse_column(&self, token: &str) -> Result<Action, GameError> {
        let w = self.width as usize;
        let bad =
            |reason: ParseProblem| GameError::Parse { what: "column", text: token.to_string(), reason: reason.into() };
        let col = match token {
            t if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
                // Long digit runs saturate so the message can still say "off the board".
                t.parse::<usize>().unwrap_or(usize::MAX)
            }
            t if t.len() == 1 && matches!(t.as_bytes()[0].to_ascii_lowercase(), b'a'..=b'c') => {
                (t.as_bytes()[0].to_ascii_lowercase() - b'a') as usize + 10
            }
            _ => return Err(bad(ParseProblem::NotAColumn { width: w })),
        };
        if col == 0 {
            return Err(bad(ParseProblem::ColumnsFrom1(w)));
        }
        if col > w {
            return Err(bad(ParseProblem::OnlyColumns(w)));
        }
        Ok((col - 1) as Action)
    }

    fn cell_char(&self, i: u32) -> char {
        if self.blocked.has(i) {
            '#'
        } else if self.stones(Player::First).has(i) {
            'X'
        } else if self.stones(Player::Second).has(i) {
            'O'
        } else {
            '.'
        }
    }
}

impl<B: BitWord> Game for Connect4<B> {
    fn spec(&self) -> GameSpec {
        let mut blocked = Vec::new();
        let mut bits = self.blocked;
        while !bits.is_zero() {
            let i = bits.trailing_zeros();
            blocked.push((self.column_of_bit(i) as u8, self.row_of_bit(i) as u8));
            bits = bits.clear_lowest();
        }
        // Bits ascend column-major, which is the sorted (column, row) order GameSpec uses.
        GameSpec::Connect4 { width: self.width, height: self.height, blocked }
    }

    #[inline]
    fn num_actions(&self) -> usize {
        self.frame_width as usize
    }

    #[inline]
    fn to_move(&self) -> ToMove {
        ToMove::Player(self.side_to_move())
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        let mut poss = self.playable();
        while !poss.is_zero() {
            out.push(self.column_of_cell(poss));
            poss = poss.clear_lowest();
        }
    }

    #[inline]
    fn is_legal(&self, action: Action) -> bool {
        (action as usize) < self.width as usize && !(self.playable() & self.column_mask(action as usize)).is_zero()
    }

    #[inline]
    fn play_unchecked(&mut self, action: Action) -> u32 {
        let base = B::bit(self.bit_index(action as usize, 0));
        let cell = self.mask.wrapping_add(base) & !self.mask;
        self.play_cell(cell);
        0
    }

    fn illegal_reason(&self, action: Action) -> GameError {
        let w = self.width as usize;
        let col = action as usize;
        let reason = if self.result != ONGOING {
            MoveProblem::Rule("the game is over")
        } else if col >= w {
            MoveProblem::OnlyColumns(w)
        } else {
            let top = self.bit_index(col, self.height as usize - 1);
            let column = self.column_mask(col);
            if (self.blocked & column) == column {
                MoveProblem::ColumnBlocked(col + 1)
            } else if self.blocked.has(top) {
                MoveProblem::RestOfColumnBlocked(col + 1)
            } else {
                MoveProblem::ColumnFull(col + 1)
            }
        };
        GameError::IllegalMove { action: self.action_to_text(action), reason }
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        board_outcome(self.result)
    }

    #[inline]
    fn hash(&self) -> u64 {
        self.hash
    }

    #[inline]
    fn ply(&self) -> usize {
        self.ply as usize
    }

    #[inline]
    fn last_action(&self) -> Option<Action> {
        (self.last_bit != NO_LAST).then(|| self.column_of_bit(self.last_bit as u32) as Action)
    }

    fn plane_shape(&self) -> PlaneShape {
        PlaneShape { channels: PLANES, height: self.frame_height as usize, width: self.frame_width as usize }
    }

    /// Planes: side to move's discs, opponent's discs, the last move, blocked cells, a plane
    /// of ones, a plane of ones when the first player is to move, the empty cells where the
    /// side to move and where the opponent would complete four, and the playable cells.
    /// Plane row 0 is the top row of the board, so a plane reads like a diagram.
    ///
    /// Why the ones and side-to-move planes: the convolutions pad with zeros, so on an
    /// empty stretch of board a cell next to the edge looks like any other unless one plane
    /// is 1 on the board and 0 in the padding (KataGo's on-board plane). And Connect Four is
    /// a game of parity: a threat on an odd row is worth something to the first player, one
    /// on an even row to the second. From stone counts alone a convolution cannot tell which
    /// side it is looking at; the side-to-move plane tells every cell of the trunk.
    ///
    /// Why the threat planes: a middle game is won or lost on threats (empty cells that
    /// would complete four), which ones lie on which rows and which sit above which. Finding
    /// them takes a small trunk most of its layers, as a Go network spends layers on
    /// liberties that KataGo hands it as input features; the bitboards compute them in a few
    /// shifts (seed 001's "where are the threes"), so the trunk can spend itself on what
    /// the threats are worth.
    ///
    /// In a frame ([`Connect4::framed`]) the board takes the top left corner and every
    /// plane is 0 outside it: the ones plane is then the board's mask.
    fn encode_planes(&self, out: &mut [f32]) {
        let (w, h) = (self.width as usize, self.height as usize);
        let fw = self.frame_width as usize;
        let plane = fw * self.frame_height as usize;
        debug_assert_eq!(out.len(), PLANES * plane);
        out.fill(0.0);
        let last = if self.last_bit == NO_LAST { B::zero() } else { B::bit(self.last_bit as u32) };
        let mut put = |ch: usize, mut bits: B| {
            while !bits.is_zero() {
                let i = bits.trailing_zeros();
                let (c, r) = (self.column_of_bit(i), self.row_of_bit(i));
                out[ch * plane + (h - 1 - r) * fw + c] = 1.0;
                bits = bits.clear_lowest();
            }
        };
        put(0, self.current_stones());
        put(1, self.opponent_stones());
        put(2, last);
        put(3, self.blocked);
        put(6, self.winning_cells_of(self.current_stones()));
        put(7, self.winning_cells_of(self.opponent_stones()));
        put(8, self.playable());
        let first = self.side_to_move() == Player::First;
        for row in 0..h {
            out[4 * plane + row * fw..][..w].fill(1.0);
            if first {
                out[5 * plane + row * fw..][..w].fill(1.0);
            }
        }
    }

    fn action_to_text(&self, action: Action) -> String {
        (action as u32 + 1).to_string()
    }

    fn action_from_text(&self, text: &str) -> Result<Action, GameError> {
        self.parse_column(text.trim())
    }

    fn moves_from_text(&self, text: &str) -> Result<Vec<Action>, GameError> {
        let text = text.trim();
        let is_sep = |c: char| c.is_whitespace() || c == ';' || c == ',';
        if text.contains(is_sep) {
            text.split(is_sep).filter(|t| !t.is_empty()).map(|t| self.parse_column(t)).collect()
        } else {
            let mut buf = [0u8; 4];
            text.chars().map(|c| self.parse_column(c.encode_utf8(&mut buf))).collect()
        }
    }

    fn moves_to_text(&self, moves: &[Action]) -> String {
        moves
            .iter()
            .map(|&a| match a {
                0..=8 => (b'1' + a as u8) as char,
                9..=11 => (b'a' + (a - 9) as u8) as char,
                // Not a column of any legal board; keep it readable rather than lossy.
                _ => '?',
            })
            .collect()
    }

    fn render(&self) -> String {
        let (w, h) = (self.width as usize, self.height as usize);
        let cell_w = if w >= 10 { 2 } else { 1 };
        let mut s = String::new();
        for r in (0..h).rev() {
            let row: Vec<String> =
                (0..w).map(|c| format!("{:>cell_w$}", self.cell_char(self.bit_index(c, r)))).collect();
            s.push_str(&row.join(" "));
            s.push('\n');
        }
        let labels: Vec<String> = (1..=w).map(|c| format!("{c:>cell_w$}")).collect();
        s.push_str(&labels.join(" "));
        s.push('\n');
        match self.outcome() {
            None => {
                let who = if self.side_to_move() == Player::First { 'X' } else { 'O' };
                s.push_str(&format!("{who} to move\n"));
            }
            Some(Outcome::Win(Player::First)) => s.push_str("X wins\n"),
            Some(Outcome::Win(Player::Second)) => s.push_str("O wins\n"),
            Some(_) => s.push_str("draw\n"),
        }
        s
    }
}

impl<B: BitWord> Scoring for Connect4<B> {}

impl<B: BitWord> Tactics for Connect4<B> {
    /// Exact with bitboards: an immediate win, or gamesolver's non-losing moves (the block
    /// when the opponent threatens one cell; never a cell under an opponent winning cell).
    fn lookahead(&self, out: &mut Vec<Action>) -> Lookahead {
        out.clear();
        match self.safe_cells() {
            Ok(safe) => {
                self.push_columns(safe, out);
                Lookahead::Moves
            }
            Err(answer) => answer,
        }
    }

    /// Seed 001's rollout, [`Connect4::rollout`].
    #[inline]
    fn rollout_result(&self, state: &mut u64) -> Option<f32> {
        Some(self.rollout(state))
    }

    /// Exact with bitboards: at most `width` positions after a safe move and `width²` after
    /// a safe reply, each one `non_losing_moves`: a few microseconds, next to the ~100 µs of
    /// a small network's evaluation.
    fn two_step_lookahead(&self, out: &mut Vec<Action>) -> Lookahead {
        out.clear();
        let safe = match self.safe_cells() {
            Ok(safe) => safe,
            Err(answer) => return answer,
        };
        if let Some(kill) = self.kill_among(safe) {
            return Lookahead::Win(self.column_of_cell(kill));
        }
        let mut kept = B::zero();
        let mut rest = safe;
        while !rest.is_zero() {
            let cell = rest ^ rest.clear_lowest();
            if !self.after(cell).has_kill() {
                kept = kept | cell;
            }
            rest = rest.clear_lowest();
        }
        // Lost in two steps whatever is played: the moves that do not lose at once are still
        // the ones to play (an opponent may miss the kill).
        self.push_columns(if kept.is_zero() { safe } else { kept }, out);
        if kept.is_zero() {
            Lookahead::Lost
        } else {
            Lookahead::Moves
        }
    }
}

impl<B: BitWord> Chance for Connect4<B> {}

impl<B: BitWord> Symmetries for Connect4<B> {
    fn num_symmetries(&self) -> usize {
        if self.mirror_symmetric {
            2
        } else {
            1
        }
    }

    fn map_action(&self, sym: usize, action: Action) -> Action {
        debug_assert!(sym < self.num_symmetries());
        if sym == 1 && (action as usize) < self.width as usize {
            self.width as Action - 1 - action
        } else {
            action
        }
    }

    fn map_plane(&self, sym: usize, src: &[f32], dst: &mut [f32]) {
        debug_assert!(sym < self.num_symmetries());
        // Rows of the frame; the board's own columns are mirrored, the rest is outside it.
        let (w, fw) = (self.width as usize, self.frame_width as usize);
        if sym == 1 {
            for (d, s) in dst.chunks_exact_mut(fw).zip(src.chunks_exact(fw)) {
                for (x, y) in d[..w].iter_mut().zip(s[..w].iter().rev()) {
                    *x = *y;
                }
                d[w..].copy_from_slice(&s[w..]);
            }
        } else {
            dst.copy_from_slice(src);
        }
    }
}

impl<B: BitWord> BoardLayout for Connect4<B> {
    fn in_frame(&self, width: usize, height: usize) -> Result<Self, GameError> {
        self.clone().framed(width, height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_base::bits::Bits192;

    fn after(moves: &str) -> Connect4 {
        let mut g = Connect4::<u64>::standard();
        for a in g.moves_from_text(moves).unwrap() {
            g.play(a).unwrap();
        }
        g
    }

    /// Seed 001's rollout: forced lines need no random number and end as they must; others
    /// draw from the stream, the same stream giving the same game.
    #[test]
    fn a_rollout_takes_wins_and_blocks_and_replays_from_its_stream() {
        // First to move with three in the bottom row: it wins at once, drawing nothing.
        let mut state = 7;
        assert_eq!(after("112233").rollout(&mut state), 1.0);
        assert_eq!(state, 7);
        // Second to move against an open three (columns 2 to 4): it blocks one end and loses
        // at the other, drawing nothing either.
        assert_eq!(after("27374").rollout(&mut state), -1.0);
        assert_eq!(state, 7);
        // A finished game is its result for the side to move.
        assert_eq!(after("1122334").rollout(&mut state), -1.0);
        // From the start: random moves, the same from the same stream.
        let g = Connect4::<u64>::standard();
        let (mut a, mut b) = (11, 11);
        let (ra, rb) = (g.rollout(&mut a), g.rollout(&mut b));
        assert_eq!((ra, a), (rb, b));
        assert_ne!(a, 11);
        // Over many points of the stream each side wins many games (as with
        // `heuristic_move`: about 52% to 48% for the first over 4,000).
        let mut state = 1;
        let results: Vec<f32> = (0..400).map(|_| g.rollout(&mut state)).collect();
        let wins = results.iter().filter(|&&r| r == 1.0).count();
        let losses = results.iter().filter(|&&r| r == -1.0).count();
        assert!(wins > 150 && losses > 150, "{wins} won, {losses} lost of 400");
    }

    #[test]
    fn column_magic_divides_exactly() {
        for h in 4..=12u32 {
            let g = Connect4::<Bits192>::new(4, h as usize, &[]).unwrap();
            for i in 0..192 {
                assert_eq!(g.column_of_bit(i), (i / (h + 1)) as usize, "h={h} i={i}");
            }
        }
    }
}
