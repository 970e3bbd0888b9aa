//! Gomoku's threat planes: the empty points where a stone would make five for either side,
//! and those where it would make an open four, two ways to make five at once that one reply
//! cannot both stop (a straight four `.XXXX.`, or two fours from one stone).
//!
//! Why hand them to the network: a five spans five points along any of four directions, and
//! a small trunk of 3×3 convolutions spends most of its 32 channels and 7 layers assembling
//! such lines; a 3×32 network's raw policy still missed about a quarter of one-move tactics
//! after 25 minutes of training without them (README). Connect Four's threat planes did the
//! same for its threats.
//!
//! Every five lies in a window of five consecutive points along one of the four
//! directions. Each line of the board is read once as two bit sets (own stones, the
//! opponent's), and each window of five on it with no opposing stone is judged by its own
//! count: four own stones make its empty point a five; three make each of its two empty
//! points a four whose five is the other one. A point's fours are then the distinct points
//! they would make five at: two or more is an open four. About 70 lines and 700 windows on
//! 15×15, a few microseconds beside a network evaluation of hundreds.

use super::{Gomoku, MAX};

/// The four directions as steps `(dx, dy)`: along a row, down a column, down-right,
/// down-left.
const DIRECTIONS: [(isize, isize); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];

/// Per side (index 0 the first player), the points where one stone would make five, and
/// those where it would make an open four, as rows of bits (bit `x` of row `y`), like the
/// board's own rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Threats {
    pub five: [[u32; MAX]; 2],
    pub open_four: [[u32; MAX]; 2],
}

/// The threats of both sides in `game`, from its stones alone (whoever is to move).
pub fn threats(game: &Gomoku) -> Threats {
    let s = game.size();
    let mut out = Threats::default();
    // Per side, how many distinct points each point's fours would make five at.
    let mut fours = [[0u8; MAX * MAX]; 2];
    let mut line = [(0usize, 0usize); MAX];
    for (dx, dy) in DIRECTIONS {
        for (x0, y0) in line_starts(s, dx, dy) {
            // The points of this line, in order.
            let mut len = 0;
            let (mut x, mut y) = (x0 as isize, y0 as isize);
            while x >= 0 && y >= 0 && (x as usize) < s && (y as usize) < s {
                line[len] = (x as usize, y as usize);
                len += 1;
                x += dx;
                y += dy;
            }
            if len < 5 {
                continue;
            }
            let mut stones = [0u32; 2];
            for (i, &(x, y)) in line[..len].iter().enumerate() {
                for (side, bits) in stones.iter_mut().enumerate() {
                    *bits |= (game.rows[side][y] >> x & 1) << i;
                }
            }
            for side in 0..2 {
                let (own, theirs) = (stones[side], stones[1 - side]);
                // `partner[i]`: the points (as line bits) that a stone on point i would
                // make five at along this line.
                let mut partner = [0u32; MAX];
                for start in 0..=len - 5 {
                    let window = 0x1f << start;
                    if theirs & window != 0 {
                        continue;
                    }
                    let empty = window & !own;
                    match empty.count_ones() {
                        1 => {
                            let (x, y) = line[empty.trailing_zeros() as usize];
                            out.five[side][y] |= 1 << x;
                        }
                        2 => {
                            let (a, b) = (empty.trailing_zeros() as usize, 31 - empty.leading_zeros() as usize);
                            partner[a] |= 1 << b;
                            partner[b] |= 1 << a;
                        }
                        _ => {}
                    }
                }
                // Fives along different lines through a point are at different points,
                // so the counts of the four directions add up.
                for (i, &p) in partner[..len].iter().enumerate() {
                    let (x, y) = line[i];
                    fours[side][y * MAX + x] += p.count_ones() as u8;
                }
            }
        }
    }
    for (side, counts) in fours.iter().enumerate() {
        for y in 0..s {
            for x in 0..s {
                if counts[y * MAX + x] >= 2 {
                    out.open_four[side][y] |= 1 << x;
                }
            }
        }
    }
    out
}

/// The first point of every line along `(dx, dy)`: those whose step back is off the board.
fn line_starts(s: usize, dx: isize, dy: isize) -> impl Iterator<Item = (usize, usize)> {
    (0..s).flat_map(move |y| (0..s).map(move |x| (x, y))).filter(move |&(x, y)| {
        let (px, py) = (x as isize - dx, y as isize - dy);
        px < 0 || py < 0 || px as usize >= s || py as usize >= s
    })
}
