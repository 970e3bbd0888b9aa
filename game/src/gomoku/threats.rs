//! Gomoku's threat planes: the empty points where a stone would make five for either side,
//! and those where it would make an open four, two ways to make five at once that one reply
//! cannot both stop (a straight four `.XXXX.`, or two fours from one stone).
//!
//! Why hand them to the network: a five spans five points along any of four directions, and
//! a small trunk of 3×3 convolutions spends most of its 32 channels and 7 layers assembling
//! such lines; a 3×32 network's raw policy still missed about a quarter of one-move tactics
//! after 25 minutes of training without them (docs/gomoku.md). Connect Four's threat planes did the
//! same for its threats.
//!
//! Every five lies in a window of five consecutive points along one of the four
//! directions. A point makes five when the other four points of some window through it
//! hold own stones; it makes a four whose five is at point `q` when some window through
//! both holds own stones on its three other points and `q` is empty. A point's fours are
//! the distinct points they would make five at: two or more is an open four.
//!
//! Under the standard rule ([`GomokuRule::Standard`]) a five is exactly five: a window counts only
//! when the points just outside it (one step past either end) hold no own stone, for then
//! filling it makes a run of five and no more. So a point that would make six is no
//! five-point, and a four whose completion would be six is no four.
//!
//! Both are computed for the whole board at once, bit-parallel: the board's rows are
//! shifted so that bit `x` of row `y` reads the point `d` steps along a direction from
//! `(x, y)`, and a window's test is then an AND of shifted boards. Every board here is 20
//! rows of `u32`, so each step is a few vector instructions: a whole position's planes cost
//! about a microsecond, and the search's lookahead (the fives alone) less, at every
//! expanded position (they were a twentieth of Gomoku self-play's time, point by point).

use super::{Gomoku, GomokuRule, MAX};

/// The four directions as steps `(dx, dy)`: along a row, down a column, down-right,
/// down-left.
const DIRECTIONS: [(isize, isize); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];

/// A set of points as the board keeps them: bit `x` of row `y`; rows at and past the
/// board's size, and bits past its width, are zero.
pub type Bits = [u32; MAX];

/// Per side (index 0 the first player), the points where one stone would make five, and
/// those where it would make an open four, as rows of bits (bit `x` of row `y`), like the
/// board's own rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Threats {
    pub five: [Bits; 2],
    pub open_four: [Bits; 2],
}

/// The threats of both sides in `game`, from its stones alone (whoever is to move).
pub fn threats(game: &Gomoku) -> Threats {
    let free = free_points(game);
    let exact = game.rule() == GomokuRule::Standard;
    let mut out = Threats::default();
    // Per side, the points with a four towards at least one point so far.
    let mut fours = [Bits::default(); 2];
    for dir in DIRECTIONS {
        let f = Along::new(&free, dir, false);
        for (side, fours) in fours.iter_mut().enumerate() {
            let own = Along::new(&game.rows[side], dir, exact);
            or_assign(&mut out.five[side], &own.fives(exact));
            // A second distinct partner makes an open four. Fives along different lines
            // through a point are at different points, so the directions add up without
            // counting one partner twice.
            for e in [-4, -3, -2, -1, 1, 2, 3, 4] {
                let partner = and(&own.partners(e, exact), f.at(e));
                or_assign(&mut out.open_four[side], &and(fours, &partner));
                or_assign(fours, &partner);
            }
        }
    }
    for side in 0..2 {
        out.five[side] = and(&out.five[side], &free);
        out.open_four[side] = and(&out.open_four[side], &free);
    }
    out
}

/// The empty points where a stone of `side` (0 the first player) would win by the game's
/// rule (five or more in a row through it; exactly five under the standard rule), from the
/// stones alone: the lookahead's question.
pub fn five_points(game: &Gomoku, side: usize) -> Bits {
    let exact = game.rule() == GomokuRule::Standard;
    let mut five = Bits::default();
    for dir in DIRECTIONS {
        or_assign(&mut five, &Along::new(&game.rows[side], dir, exact).fives(exact));
    }
    and(&five, &free_points(game))
}

/// The board's empty points.
fn free_points(game: &Gomoku) -> Bits {
    let full = (1u32 << game.size()) - 1;
    let mut free = Bits::default();
    for (y, f) in free.iter_mut().enumerate().take(game.size()) {
        *f = !(game.rows[0][y] | game.rows[1][y]) & full;
    }
    free
}

/// A set of points seen from each point along one direction: `at(d)` has bit `x` of row
/// `y` set when the point `d` steps from `(x, y)` is in the set (off the board: not).
struct Along {
    /// `shifted[d + 5]` is `at(d)`, for `d` in `-4..=4`, and `-5..=5` when made to see
    /// past a window's ends (the standard rule's exact fives).
    shifted: [Bits; 11],
}

impl Along {
    /// `past_windows`: also `at(-5)` and `at(5)`.
    #[inline(always)]
    fn new(bits: &Bits, (dx, dy): (isize, isize), past_windows: bool) -> Along {
        // Five empty rows above and below, so every row shift is one in-bounds copy.
        let mut padded = [0u32; MAX + 10];
        padded[5..5 + MAX].copy_from_slice(bits);
        let mut shifted = [Bits::default(); 11];
        let reach = if past_windows { 5 } else { 4 };
        for (k, out) in shifted.iter_mut().enumerate().skip(5 - reach).take(2 * reach + 1) {
            let d = k as isize - 5;
            let rows = &padded[(5 + d * dy) as usize..][..MAX];
            let sx = d * dx;
            for (o, &r) in out.iter_mut().zip(rows) {
                // Bits shifted past the width land on points that are not empty, and
                // every result is masked by the empty points in the end.
                *o = if sx >= 0 { r >> sx } else { r << -sx };
            }
        }
        Along { shifted }
    }

    #[inline(always)]
    fn at(&self, d: isize) -> &Bits {
        &self.shifted[(d + 5) as usize]
    }

    /// The points with no set point just outside the window `s..=s + 4` (relative to
    /// them): a window filled there is a run of exactly five. Needs `past_windows`.
    #[inline(always)]
    fn bare_ends(&self, s: isize) -> Bits {
        std::array::from_fn(|y| !(self.at(s - 1)[y] | self.at(s + 5)[y]))
    }

    /// The points (empty or not) whose stone would complete some window of five along
    /// the direction: the window's four other points are in the set, and with `exact`
    /// (made `past_windows`) neither point just past the window is.
    #[inline(always)]
    fn fives(&self, exact: bool) -> Bits {
        // `left[k]`: the k points before are all in the set; `right[k]`: the k after.
        let mut left = [[u32::MAX; MAX]; 5];
        let mut right = [[u32::MAX; MAX]; 5];
        for k in 1..5 {
            left[k] = and(&left[k - 1], self.at(-(k as isize)));
            right[k] = and(&right[k - 1], self.at(k as isize));
        }
        let mut five = Bits::default();
        for k in 0..5 {
            let window = and(&left[k], &right[4 - k]);
            if exact {
                or_assign(&mut five, &and(&window, &self.bare_ends(-(k as isize))));
            } else {
                or_assign(&mut five, &window);
            }
        }
        five
    }

    /// The points `p` with some window of five through both `p` and `p + e` whose three
    /// other points are in the set: a stone on `p` (with `p + e` empty) makes a four whose
    /// five is `p + e`; with `exact` (made `past_windows`), a five and no more. `e` is in
    /// `-4..=4`, not 0.
    #[inline(always)]
    fn partners(&self, e: isize, exact: bool) -> Bits {
        let mut out = Bits::default();
        // The windows `s..=s + 4` (relative to p) that hold both 0 and e.
        for s in (e.max(0) - 4)..=e.min(0) {
            let mut w = [u32::MAX; MAX];
            for i in (s..=s + 4).filter(|&i| i != 0 && i != e) {
                w = and(&w, self.at(i));
            }
            if exact {
                w = and(&w, &self.bare_ends(s));
            }
            or_assign(&mut out, &w);
        }
        out
    }
}

#[inline(always)]
fn and(a: &Bits, b: &Bits) -> Bits {
    std::array::from_fn(|y| a[y] & b[y])
}

#[inline(always)]
fn or_assign(a: &mut Bits, b: &Bits) {
    for (x, y) in a.iter_mut().zip(b) {
        *x |= y;
    }
}
