//! Gomoku on `N × N` boards for `N` in [`GOMOKU_MIN`]`..=`[`GOMOKU_MAX`], no renju
//! restrictions, by one of two rules ([`GomokuRule`]): freestyle (five *or more* in a row wins,
//! the default and the game's spec `gomoku:N`) or standard (exactly five wins; six or more
//! does not, and a five wins whatever stands next to it). The rule is the position's, not
//! the spec's: `gomoku:N` names the board, and [`Gomoku::with_rule`] the standard game on it
//! (Gomocup's `INFO rule 1`); records, configs and networks know the board only.
//!
//! Points are `(x, y)`: `x` the column left→right, `y` the row top→bottom, both 0-based as in
//! the Gomocup protocol; the action is `y * size + x` and its text is `x,y`.
//!
//! Each player's stones are one `u32` per row (bit `x`). Only a line through the new stone
//! can have become five, so the win check looks at that stone's row (one "five consecutive
//! bits" test: a few shifts and ands) and at the 9-point windows through it along the
//! column and both diagonals, gathered from the nine rows around it; no board scan. Bits
//! past the board's edge are never set, so a run can never wrap into the next row.
//!
//! The position is under 200 bytes of plain data: cheap to clone in search, and small in
//! [`AnyGame`](super::AnyGame).
//!
//! An any-size network (`dojo_arch::architecture::Architecture::any_size`) sees a board framed
//! into its larger square ([`Gomoku::framed`]): the planes are the frame's, with the board
//! in the top left corner, and there are as many actions as frame cells so that boards of
//! several sizes share a batch; yet the moves keep the board's own numbering
//! (`y * size + x`), so records, texts and symmetries are the same framed or not, and the
//! numbers past the board's points are never legal. The network reads each point's logit
//! from its frame cell (`dojo_net::any_size`).

mod threats;
mod vcf;

pub use threats::{five_points, threats, Bits, Threats};
pub use vcf::{vcf, Vcf};

use crate::spec::GomokuRule;
pub use crate::spec::{GOMOKU_MAX, GOMOKU_MIN};
use crate::tactics::{Lookahead, Tactics};
use crate::{board_outcome, BoardLayout, Chance, Scoring, Symmetries, DRAW, FIRST_WINS, ONGOING, SECOND_WINS};
use crate::{
    Action, Game, GameError, GameSpec, MoveProblem, OffBoard, Outcome, ParseProblem, PlaneShape, Player, SpecProblem,
    ToMove,
};
use dojo_base::rng::Rng;
use rand::{Rng as _, RngExt, SeedableRng};
use std::fmt;
use std::sync::OnceLock;

const MAX: usize = GOMOKU_MAX as usize;
const MAX_POINTS: usize = MAX * MAX;

const NO_MOVE: u16 = u16::MAX;

struct Zobrist {
    /// Keyed by the largest board's point `y * MAX + x`, so one table serves every size.
    stones: [[u64; MAX_POINTS]; 2],
    side: u64,
    /// The empty board's hash, per size: the same stones on boards of different sizes
    /// are different positions.
    sizes: [u64; MAX + 1],
    /// Xored into a standard game's hash: the same stones are another position under
    /// another rule. Drawn after the others, so freestyle hashes are what they always were.
    standard: u64,
}

#[inline]
fn zobrist() -> &'static Zobrist {
    static TABLE: OnceLock<Zobrist> = OnceLock::new();
    TABLE.get_or_init(|| {
        // Fixed seed: hashes must agree between processes (workers, learner, records).
        let mut rng = Rng::seed_from_u64(0x676f_6d6f_6b75_5a6f);
        let mut stones = [[0u64; MAX_POINTS]; 2];
        for table in &mut stones {
            for k in table.iter_mut() {
                *k = rng.next_u64();
            }
        }
        let side = rng.next_u64();
        let mut sizes = [0u64; MAX + 1];
        for k in sizes.iter_mut() {
            *k = rng.next_u64();
        }
        let standard = rng.next_u64();
        Zobrist { stones, side, sizes, standard }
    })
}

/// The first bits of the runs of five consecutive set bits in `w`.
#[inline(always)]
fn five_starts(w: u32) -> u32 {
    let pairs = w & (w >> 1);
    let fours = pairs & (pairs >> 2);
    fours & (w >> 4)
}

/// Whether `w` has five consecutive set bits.
#[inline(always)]
fn has_five(w: u32) -> bool {
    five_starts(w) != 0
}

/// The directions off the row (a set of [`DIAG`], [`COL`], [`ANTI`]) that pass a cheap
/// necessary test for a five through `(x, y)`: any such five holds a stone one step and a
/// stone two steps away along its line (on either side). Most moves of an open game pass
/// none, and skip the 9-row gathers.
#[inline(always)]
fn five_candidates(rows: &[u32; MAX], x: usize, y: usize) -> u32 {
    let row = |k: usize| rows.get(k).map_or(0, |&r| r << 2);
    // 3 bits per row around x, lane 0: diagonal, 1: column, 2: anti-diagonal. Rows below
    // the stone see the diagonals mirrored, so their outer bits swap lanes.
    let swap3 = |v: u32| ((v & 1) << 2) | (v & 2) | (v >> 2);
    let near = ((row(y.wrapping_sub(1)) >> (x + 1)) & 7) | swap3((row(y + 1) >> (x + 1)) & 7);
    let spread = |v: u32| (v & 1) | ((v >> 1) & 2) | ((v >> 2) & 4);
    let far = spread((row(y.wrapping_sub(2)) >> x) & 0b10101) | swap3(spread((row(y + 2) >> x) & 0b10101));
    near & far
}

/// Directions off the row, as lanes of [`five_candidates`] and slopes of [`window`].
const DIAG: u32 = 1; // down-right
const COL: u32 = 2;
const ANTI: u32 = 4; // down-left

/// The 9-point window centred on `(x, y)` along direction `dir`: bit `i` is the point
/// `i - 4` rows below. Any five inside a 9-bit window covers its centre bit 4.
#[inline(always)]
fn window(rows: &[u32; MAX], x: usize, y: usize, dir: u32) -> u32 {
    let mut w = 0;
    for i in 0..9 {
        // Rows off the board (above: the index wraps) read as empty, and `<< 4` keeps the
        // columns left of the board as zero bits instead of negative shifts.
        let row = rows.get((y + i).wrapping_sub(4)).map_or(0, |&r| r << 4);
        let shift = match dir {
            DIAG => x + i,
            COL => x + 4,
            _ => x + 8 - i,
        };
        w |= ((row >> shift) & 1) << i;
    }
    w
}

/// What the side to move must do at once (see [`Gomoku::tactic`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tactic {
    /// Make five: any of these points wins.
    Win(Vec<Action>),
    /// Stop the opponent's only five at this point.
    Block(Action),
}

impl Tactic {
    /// Whether `action` is the right answer.
    pub fn solved_by(&self, action: Action) -> bool {
        match self {
            Tactic::Win(points) => points.contains(&action),
            Tactic::Block(point) => *point == action,
        }
    }

    /// "win" or "block".
    pub fn kind(&self) -> &'static str {
        match self {
            Tactic::Win(_) => "win",
            Tactic::Block(_) => "block",
        }
    }
}

/// A Gomoku position. Plain data (no heap), so cloning it for search is one `memcpy`.
#[derive(Clone)]
pub struct Gomoku {
    size: u8,
    /// The side of the square the planes are encoded in: `size` unless [`Gomoku::framed`].
    frame: u8,
    state: u8,
    rule: GomokuRule,
    /// `2^16 / size + 1`: `a * recip >> 16 == a / size` exactly for every point `a` of the
    /// board (the error is below `400 / 2^16`, less than the `1 / size` gap to the next
    /// integer); a multiply is several times faster than the division on every move.
    recip: u16,
    last: u16,
    ply: u16,
    empty: u16,
    hash: u64,
    /// `rows[player][y]` bit `x`; rows at and past `size` stay zero.
    rows: [[u32; MAX]; 2],
}

impl Gomoku {
    /// The empty `size × size` freestyle board; `size` must be in `7..=20`.
    pub fn new(size: usize) -> Result<Gomoku, GameError> {
        Gomoku::with_rule(size, GomokuRule::Freestyle)
    }

    /// The empty `size × size` board played by `rule`; `size` must be in `7..=20`.
    pub fn with_rule(size: usize, rule: GomokuRule) -> Result<Gomoku, GameError> {
        if !(GOMOKU_MIN as usize..=GOMOKU_MAX as usize).contains(&size) {
            return Err(GameError::Spec {
                spec: format!("gomoku:{size}"),
                reason: SpecProblem::BoardSize { size, min: GOMOKU_MIN as usize, max: GOMOKU_MAX as usize }.into(),
            });
        }
        Ok(Gomoku {
            size: size as u8,
            frame: size as u8,
            state: ONGOING,
            rule,
            recip: ((1 << 16) / size + 1) as u16,
            last: NO_MOVE,
            ply: 0,
            empty: (size * size) as u16,
            hash: zobrist().sizes[size] ^ if rule == GomokuRule::Standard { zobrist().standard } else { 0 },
            rows: [[0; MAX]; 2],
        })
    }

    /// The rule the game is played by.
    #[inline]
    pub fn rule(&self) -> GomokuRule {
        self.rule
    }

    /// The side length of the board.
    #[inline]
    pub fn size(&self) -> usize {
        self.size as usize
    }

    /// The same position encoded in a `frame × frame` square, for an any-size network: the
    /// board in its top left corner, `frame²` actions of which the board's points keep their
    /// numbers and the rest are never legal (see the module's notes).
    pub fn framed(mut self, frame: usize) -> Result<Gomoku, GameError> {
        if !(self.size()..=MAX).contains(&frame) {
            let s = self.size();
            return Err(GameError::Spec {
                spec: self.spec().to_string(),
                reason: SpecProblem::SquareFrame { size: s, frame, max: MAX }.into(),
            });
        }
        self.frame = frame as u8;
        Ok(self)
    }

    /// The side of the square the planes are encoded in (the board's unless framed).
    pub fn frame(&self) -> usize {
        self.frame as usize
    }

    /// Points on the board: `size²` (the actions past them are the frame's).
    #[inline]
    fn points(&self) -> usize {
        self.size() * self.size()
    }

    /// The action of point `(x, y)`.
    #[inline]
    pub fn action_at(&self, x: usize, y: usize) -> Action {
        (y * self.size() + x) as Action
    }

    /// The point `(x, y)` of `action`.
    #[inline]
    pub fn point(&self, action: Action) -> (usize, usize) {
        let a = action as usize;
        let s = self.size();
        if a < s * s {
            let y = (a * self.recip as usize) >> 16;
            (a - y * s, y)
        } else {
            (a % s, a / s)
        }
    }

    /// The stone on `(x, y)`, if any (`None` also off the board).
    pub fn stone(&self, x: usize, y: usize) -> Option<Player> {
        if x >= self.size() || y >= self.size() {
            return None;
        }
        let bit = 1u32 << x;
        if self.rows[0][y] & bit != 0 {
            Some(Player::First)
        } else if self.rows[1][y] & bit != 0 {
            Some(Player::Second)
        } else {
            None
        }
    }

    /// Number of empty points.
    #[inline]
    pub fn empty_count(&self) -> usize {
        self.empty as usize
    }

    /// The empty points of row `y` as a bit set (bit `x`).
    #[inline]
    fn free_row(&self, y: usize) -> u32 {
        let full = (1u32 << self.size) - 1;
        !(self.rows[0][y] | self.rows[1][y]) & full
    }

    #[inline]
    fn side(&self) -> Player {
        if self.ply & 1 == 0 {
            Player::First
        } else {
            Player::Second
        }
    }

    /// The empty points where a stone of `player` would win: make five or more in a row
    /// through it (freestyle), exactly five (standard); ascending. Looks at the stones only, whoever is to move and even after
    /// the game ended.
    pub fn winning_points(&self, player: Player) -> Vec<Action> {
        let mut out = Vec::new();
        self.winning_points_into(player, usize::MAX, &mut out);
        out
    }

    /// Up to `limit` of [`Gomoku::winning_points`], into `out` (cleared first): the search's
    /// lookahead only needs to know of none, one or two, and must not allocate.
    fn winning_points_into(&self, player: Player, limit: usize, out: &mut Vec<Action>) {
        out.clear();
        let five = five_points(self, player.index());
        for (y, &row) in five.iter().enumerate().take(self.size()) {
            let mut row = row;
            while row != 0 {
                let x = row.trailing_zeros() as usize;
                row &= row - 1;
                out.push(self.action_at(x, y));
                if out.len() == limit {
                    return;
                }
            }
        }
    }

    /// The one-move tactic of the position, if it has one: the side to move can make five
    /// ([`Tactic::Win`], every such point), or it cannot but the opponent threatens five at
    /// exactly one point ([`Tactic::Block`]). None when neither side threatens five, when
    /// the opponent threatens two points (lost whatever is played), or when the game is over.
    pub fn tactic(&self) -> Option<Tactic> {
        let ToMove::Player(me) = self.to_move() else { return None };
        if self.outcome().is_some() {
            return None;
        }
        let wins = self.winning_points(me);
        if !wins.is_empty() {
            return Some(Tactic::Win(wins));
        }
        match self.winning_points(me.other())[..] {
            [only] => Some(Tactic::Block(only)),
            _ => None,
        }
    }

    /// A uniformly random empty point, without allocating. The board must not be full
    /// (true whenever the game is not over); on a full board it returns action 0.
    #[inline]
    pub fn random_move(&self, rng: &mut Rng) -> Action {
        let s = self.size as u64;
        let points = self.size() * self.size();
        // While at least half the board is empty, rejection needs under two draws on
        // average; each draw yields both coordinates from its two 32-bit halves.
        if 2 * self.empty_count() >= points {
            loop {
                let r = rng.next_u64();
                let x = (((r & 0xffff_ffff) * s) >> 32) as usize;
                let y = (((r >> 32) * s) >> 32) as usize;
                if self.free_row(y) & (1 << x) != 0 {
                    return self.action_at(x, y);
                }
            }
        }
        if self.empty == 0 {
            debug_assert!(false, "random_move on a full board");
            return 0;
        }
        // Otherwise pick the k-th empty point by row popcounts.
        let mut k = rng.random_range(..self.empty_count()) as u32;
        for y in 0..self.size() {
            let mut free = self.free_row(y);
            let n = free.count_ones();
            if k < n {
                for _ in 0..k {
                    free &= free - 1;
                }
                return self.action_at(free.trailing_zeros() as usize, y);
            }
            k -= n;
        }
        debug_assert!(false, "the empty count does not match the rows");
        0
    }

    /// Whether the stone of `side` on `(x, y)` stands in a run of exactly five along some
    /// line: the standard rule's win, asked only after a five (or more) was seen.
    fn exact_five_through(&self, side: usize, x: usize, y: usize) -> bool {
        let rows = &self.rows[side];
        // Rows past the board and bits past its width are zero, so the runs stop there.
        let own = |x: isize, y: isize| {
            (0..MAX as isize).contains(&x) && (0..MAX as isize).contains(&y) && rows[y as usize] >> x & 1 != 0
        };
        let (x, y) = (x as isize, y as isize);
        [(1, 0), (0, 1), (1, 1), (-1, 1)].into_iter().any(|(dx, dy)| {
            let run = |sign: isize| (1..).take_while(|&k| own(x + sign * k * dx, y + sign * k * dy)).count();
            1 + run(1) + run(-1) == 5
        })
    }

    fn off_board(&self, x: impl fmt::Display, y: impl fmt::Display) -> Box<OffBoard> {
        Box::new(OffBoard { x: x.to_string(), y: y.to_string(), size: self.size() })
    }
}

impl fmt::Debug for Gomoku {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (size, frame, rule, ply) = (self.size, self.frame, self.rule, self.ply);
        let h = self.hash;
        write!(
            f,
            "Gomoku {{ size: {size}, frame: {frame}, rule: {rule}, ply: {ply}, hash: {h:016x} }}\n{}",
            self.render()
        )
    }
}

/// Symmetry `sym` of the square `0..=n` (n = size - 1) applied to `(x, y)`:
/// 0 identity, 1–3 rotations by 90°, 180°, 270°, 4 mirror left↔right, 5 transpose,
/// 6 mirror top↔bottom, 7 anti-transpose.
#[inline]
fn map_point(sym: usize, n: usize, x: usize, y: usize) -> (usize, usize) {
    match sym & 7 {
        0 => (x, y),
        1 => (n - y, x),
        2 => (n - x, n - y),
        3 => (y, n - x),
        4 => (n - x, y),
        5 => (y, x),
        6 => (x, n - y),
        _ => (n - y, n - x),
    }
}

impl Game for Gomoku {
    /// The board's spec: `gomoku:N` under either rule (see the module's notes).
    fn spec(&self) -> GameSpec {
        GameSpec::Gomoku { size: self.size, rule: self.rule() }
    }

    /// The frame's cells: the board's points unless [`Gomoku::framed`].
    #[inline]
    fn num_actions(&self) -> usize {
        self.frame() * self.frame()
    }

    #[inline]
    fn to_move(&self) -> ToMove {
        ToMove::Player(self.side())
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.state != ONGOING {
            return;
        }
        for y in 0..self.size() {
            let mut free = self.free_row(y);
            while free != 0 {
                let x = free.trailing_zeros() as usize;
                free &= free - 1;
                out.push(self.action_at(x, y));
            }
        }
    }

    #[inline]
    fn is_legal(&self, action: Action) -> bool {
        if self.state != ONGOING || action as usize >= self.points() {
            return false;
        }
        let (x, y) = self.point(action);
        self.free_row(y) & (1 << x) != 0
    }

    #[inline]
    fn play_unchecked(&mut self, action: Action) -> u32 {
        debug_assert!(self.is_legal(action), "illegal gomoku move {action}");
        let (x, y) = self.point(action);
        let p = self.side();
        let rows = &mut self.rows[p.index()];
        rows[y] |= 1 << x;
        let five = has_five(rows[y]) || {
            let dirs = five_candidates(rows, x, y);
            dirs != 0 && [DIAG, COL, ANTI].into_iter().any(|d| dirs & d != 0 && has_five(window(rows, x, y, d)))
        };
        // Any exact five is a five: the standard rule only looks closer at those.
        let won = five && (self.rule == GomokuRule::Freestyle || self.exact_five_through(p.index(), x, y));
        let z = zobrist();
        self.hash ^= z.stones[p.index()][y * MAX + x] ^ z.side;
        self.ply += 1;
        self.empty -= 1;
        self.last = action;
        if won {
            self.state = if p == Player::First { FIRST_WINS } else { SECOND_WINS };
        } else if self.empty == 0 {
            self.state = DRAW;
        }
        0
    }

    fn illegal_reason(&self, action: Action) -> GameError {
        let (x, y) = self.point(action);
        let reason = if action as usize >= self.points() {
            MoveProblem::OffBoard(self.off_board(x, y))
        } else if self.state != ONGOING {
            return GameError::GameOver;
        } else if self.stone(x, y).is_some() {
            MoveProblem::PointOccupied { x, y }
        } else {
            MoveProblem::Rule("not a legal move in this position")
        };
        GameError::IllegalMove { action: self.action_to_text(action), reason }
    }

    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        board_outcome(self.state)
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
        (self.last != NO_MOVE).then_some(self.last)
    }

    fn plane_shape(&self) -> PlaneShape {
        PlaneShape { channels: 8, height: self.frame(), width: self.frame() }
    }

    /// Planes: AlphaFive's three (the side to move's stones, the opponent's stones, the last
    /// move); a plane of ones (the convolutions pad with zeros, so without it an empty cell
    /// by the edge looks like any other, yet a line of five cannot run past the edge); then
    /// the threat planes ([`threats`]): the empty points where the side to move, then the
    /// opponent, would make five, and where each would make an open four. Planes are only
    /// ever appended, so a network trained on the first four is fed those. In a frame,
    /// every plane is the frame's with the board in the top left corner (the ones plane is
    /// the board: what an any-size network's mask reads).
    fn encode_planes(&self, out: &mut [f32]) {
        let (s, f) = (self.size(), self.frame());
        let n = f * f;
        debug_assert_eq!(out.len(), 8 * n);
        out.fill(0.0);
        let me = self.side().index();
        let mut set_bits = |plane: usize, rows: &[u32; MAX]| {
            for (y, &row) in rows[..s].iter().enumerate() {
                let mut row = row;
                while row != 0 {
                    let x = row.trailing_zeros() as usize;
                    row &= row - 1;
                    out[plane * n + y * f + x] = 1.0;
                }
            }
        };
        let t = threats(self);
        for (k, side) in [me, 1 - me].into_iter().enumerate() {
            set_bits(k, &self.rows[side]);
            set_bits(4 + k, &t.five[side]);
            set_bits(6 + k, &t.open_four[side]);
        }
        if let Some(a) = self.last_action() {
            let (x, y) = self.point(a);
            out[2 * n + y * f + x] = 1.0;
        }
        for y in 0..s {
            out[3 * n + y * f..][..s].fill(1.0);
        }
    }

    /// `x,y`, 0-based, as in the Gomocup protocol.
    fn action_to_text(&self, action: Action) -> String {
        let (x, y) = self.point(action);
        format!("{x},{y}")
    }

    fn action_from_text(&self, text: &str) -> Result<Action, GameError> {
        let err = |reason: ParseProblem| GameError::Parse {
            what: "gomoku move",
            text: text.to_string(),
            reason: reason.into(),
        };
        let (xs, ys) = text
            .trim()
            .split_once(',')
            .ok_or_else(|| err(ParseProblem::Expected("x,y (0-based column and row, as in Gomocup), e.g. 7,7")))?;
        let coord = |what: &'static str, t: &str| -> Result<usize, GameError> {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err(ParseProblem::NotWhole { what, text: t.to_string() }));
            }
            // Too many digits for usize is simply far off the board.
            Ok(t.parse::<usize>().unwrap_or(usize::MAX))
        };
        let x = coord("x", xs)?;
        let y = coord("y", ys)?;
        if x >= self.size() || y >= self.size() {
            return Err(err(ParseProblem::OffBoard(self.off_board(xs.trim(), ys.trim()))));
        }
        Ok(self.action_at(x, y))
    }

    /// Columns (x) across the top, rows (y) down the side; `X` is the first player.
    fn render(&self) -> String {
        let s = self.size();
        let mut out = String::with_capacity((s + 2) * (3 * s + 5));
        out.push_str("   ");
        for x in 0..s {
            out.push_str(&format!("{x:>3}"));
        }
        out.push('\n');
        for y in 0..s {
            out.push_str(&format!("{y:>3}"));
            for x in 0..s {
                let c = match self.stone(x, y) {
                    Some(Player::First) => 'X',
                    Some(Player::Second) => 'O',
                    None => '.',
                };
                // Brackets mark the last move.
                if self.last_action() == Some(self.action_at(x, y)) {
                    out.push('[');
                    out.push(c);
                    out.push(']');
                } else {
                    out.push_str("  ");
                    out.push(c);
                }
            }
            out.push('\n');
        }
        let mark = |p: Player| if p == Player::First { 'X' } else { 'O' };
        match self.outcome() {
            Some(Outcome::Win(p)) => out.push_str(&format!("{} wins", mark(p))),
            Some(_) => out.push_str("draw"),
            None => out.push_str(&format!("{} to move", mark(self.side()))),
        }
        out.push_str(&format!(" (ply {})", self.ply));
        if let Some(a) = self.last_action() {
            out.push_str(&format!(", last {}", self.action_to_text(a)));
        }
        out.push('\n');
        out
    }
}

impl Scoring for Gomoku {}

impl Tactics for Gomoku {
    /// Make five if possible; else block the opponent's only five; two of them are lost.
    fn lookahead(&self, out: &mut Vec<Action>) -> Lookahead {
        let me = self.side();
        self.winning_points_into(me, 1, out);
        if let Some(win) = out.pop() {
            return Lookahead::Win(win);
        }
        self.winning_points_into(me.other(), 2, out);
        match out.len() {
            0 => {
                self.legal_actions(out);
                Lookahead::Moves
            }
            1 => Lookahead::Moves, // the block, already in `out`
            _ => {
                out.clear();
                Lookahead::Lost
            }
        }
    }

    /// A VCF (victory by continuous fours) of the side to move is a proven win; one of the
    /// opponent's narrows the moves to the replies that refute it (`gomoku/vcf.rs`).
    fn threat_search(&self, max_nodes: u32, out: &mut Vec<Action>) -> Lookahead {
        vcf::threat_search(self, max_nodes, out)
    }
}

impl Chance for Gomoku {}

impl Symmetries for Gomoku {
    fn num_symmetries(&self) -> usize {
        8
    }

    /// Actions off the board (a frame's) map to themselves.
    fn map_action(&self, sym: usize, action: Action) -> Action {
        debug_assert!(sym < 8);
        if action as usize >= self.points() {
            return action;
        }
        let (x, y) = self.point(action);
        let (mx, my) = map_point(sym, self.size() - 1, x, y);
        self.action_at(mx, my)
    }

    /// `dst[map(p)] = src[p]`, so mapping every plane of a position gives the planes of
    /// the position with every move mapped by [`Symmetries::map_action`]. In a frame, the board's
    /// cells map within the board and the frame's stay where they are.
    fn map_plane(&self, sym: usize, src: &[f32], dst: &mut [f32]) {
        debug_assert!(sym < 8);
        let (s, f) = (self.size(), self.frame());
        debug_assert!(src.len() == f * f && dst.len() == f * f);
        if f > s {
            dst.copy_from_slice(src);
        }
        for y in 0..s {
            for x in 0..s {
                let (mx, my) = map_point(sym, s - 1, x, y);
                dst[my * f + mx] = src[y * f + x];
            }
        }
    }
}

impl BoardLayout for Gomoku {
    /// The position in a `width × height` frame: a square one ([`Gomoku::framed`]).
    fn in_frame(&self, width: usize, height: usize) -> Result<Self, GameError> {
        if width != height {
            return Err(GameError::Spec {
                spec: self.spec().to_string(),
                reason: SpecProblem::NotSquare { width, height }.into(),
            });
        }
        self.clone().framed(width)
    }

    /// Action `y * size + x` places on cell (x, y), where the planes have it; in a larger
    /// frame the cells are `frame` wide, so the numbers differ.
    fn actions_are_cells(&self) -> bool {
        self.size == self.frame
    }
}
