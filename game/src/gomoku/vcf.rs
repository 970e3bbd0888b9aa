//! Threat-space search: a bounded VCF prover (victory by continuous fours), Gomoku's
//! counterpart of Connect Four's two-step kills (seed 001's 两步杀).
//!
//! A *four* is a stone after which its side would make five at one empty point; the
//! opponent must take that point at once (unless it can make five itself), so a chain of
//! fours leaves the defender exactly one move at every step and the tree stays narrow. The
//! attacker wins when a four makes two five-points at once (an open four or a double four),
//! which one reply cannot both take.
//!
//! Fives and fours follow the game's rule: under the standard rule a five-point is where
//! a stone makes exactly five, so a window of five whose filling would join an own stone
//! just past either end (six or more) makes neither a five-point nor a four.
//!
//! The prover is exact about what it proves: at each attacker turn it knows the defender
//! has no five-point, or exactly one (made by the defender's last block), which the
//! attacker must take, and that forced stone continues the VCF only if it is a four itself
//! (else the line is dropped). A block that makes the defender two five-points ends the
//! line. A defender five after a block cannot happen: the block point was not a five-point
//! of the defender's, or the attacker would have had to take it first. So a line it returns
//! is a forced win, and "none" means none within the node budget and depth cap.
//!
//! Fast: the board is copied once into bit lines per direction (rows, columns, both
//! diagonals), and a node reads only the lines holding three stones of the attacker (for
//! its fours) or the four lines through a stone (for the five-points it made). Iterative
//! deepening on the attacker's moves finds the shortest VCF, and a small table of positions
//! already refuted at a depth saves the re-search of transposed fours. Nothing allocates
//! until a line is found.

use super::{zobrist, Gomoku, GomokuRule, MAX};
use crate::tactics::Lookahead;
use crate::{Action, Game, Player};

/// Lines per direction: the diagonals of a `MAX × MAX` board.
const LINES: usize = 2 * MAX - 1;
/// Attacker moves a line may hold before its winning double threat.
const DEPTH_CAP: u32 = 40;
/// Refuted positions remembered (a power of two).
const TABLE: usize = 1024;
/// Fours tried per position at most; more is a board full of fours, where a missed VCF
/// costs less than the stack.
const MAX_FOURS: usize = 64;

/// A prover's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vcf {
    /// The winning line when one was found: the attacker's moves and the defender's forced
    /// replies alternately, ending with the attacker's five.
    pub line: Option<Vec<Action>>,
    /// Attacker moves tried (the budget's unit).
    pub nodes: u32,
    /// The search ran out of budget before it finished: "no line" then means "none found".
    pub out_of_budget: bool,
}

impl Vcf {
    /// The attacker's first move, if a VCF was found.
    pub fn first(&self) -> Option<Action> {
        self.line.as_ref().and_then(|l| l.first().copied())
    }

    /// Stones the attacker plays in the line, the five included (0 without a line).
    pub fn attacker_moves(&self) -> usize {
        self.line.as_ref().map_or(0, |l| l.len().div_ceil(2))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pt {
    x: u8,
    y: u8,
}

/// The line index and position along it of `(x, y)` in direction `dir` (0 row, 1 column,
/// 2 down-right diagonal, 3 down-left diagonal); diagonals are indexed by x.
#[inline(always)]
fn line_of(s: usize, dir: usize, x: usize, y: usize) -> (usize, usize) {
    match dir {
        0 => (y, x),
        1 => (x, y),
        2 => (x + s - 1 - y, x),
        _ => (x + y, x),
    }
}

#[inline(always)]
fn point_of(s: usize, dir: usize, idx: usize, pos: usize) -> Pt {
    let (x, y) = match dir {
        0 => (pos, idx),
        1 => (idx, pos),
        2 => (pos, pos + s - 1 - idx),
        _ => (pos, idx - pos),
    };
    Pt { x: x as u8, y: y as u8 }
}

/// The positions `lo..=hi` of line `idx` that lie on the board.
#[inline(always)]
fn span(s: usize, dir: usize, idx: usize) -> (usize, usize) {
    if dir < 2 {
        (0, s - 1)
    } else {
        (idx.saturating_sub(s - 1), idx.min(s - 1))
    }
}

/// Up to two distinct five-points.
#[derive(Clone, Copy)]
struct Fives {
    count: u8,
    first: Pt,
    second: Pt,
}

impl Fives {
    const NONE: Fives = Fives { count: 0, first: Pt { x: 0, y: 0 }, second: Pt { x: 0, y: 0 } };

    #[inline(always)]
    fn add(&mut self, p: Pt) {
        match self.count {
            0 => {
                self.first = p;
                self.count = 1;
            }
            1 if p != self.first => {
                self.second = p;
                self.count = 2;
            }
            _ => {}
        }
    }
}

struct Prover {
    s: usize,
    /// The standard rule: a window joined by an own stone just past an end is no five.
    exact: bool,
    /// `bits[side][dir][line]`: bit `pos` is a stone of `side`.
    bits: [[[u32; LINES]; 4]; 2],
    hash: u64,
    nodes: u32,
    max_nodes: u32,
    out_of_budget: bool,
    /// Some line was cut by the depth limit of this iteration (a deeper one may win).
    cut: bool,
    keys: [u64; TABLE],
    depths: [u8; TABLE],
    /// The line being tried, as points.
    path: [Pt; 2 * DEPTH_CAP as usize + 4],
    path_len: usize,
}

impl Prover {
    fn new(game: &Gomoku, max_nodes: u32) -> Prover {
        let s = game.size();
        let mut p = Prover {
            s,
            exact: game.rule() == GomokuRule::Standard,
            bits: [[[0; LINES]; 4]; 2],
            hash: 0,
            nodes: 0,
            max_nodes,
            out_of_budget: false,
            cut: false,
            keys: [0; TABLE],
            depths: [0; TABLE],
            path: [Pt { x: 0, y: 0 }; 2 * DEPTH_CAP as usize + 4],
            path_len: 0,
        };
        for side in 0..2 {
            for (y, &row) in game.rows[side][..s].iter().enumerate() {
                let mut row = row;
                while row != 0 {
                    let x = row.trailing_zeros() as usize;
                    row &= row - 1;
                    p.toggle(side, Pt { x: x as u8, y: y as u8 });
                }
            }
        }
        p
    }

    /// Places or lifts a stone of `side`.
    #[inline(always)]
    fn toggle(&mut self, side: usize, p: Pt) {
        let (x, y) = (p.x as usize, p.y as usize);
        for dir in 0..4 {
            let (idx, pos) = line_of(self.s, dir, x, y);
            self.bits[side][dir][idx] ^= 1 << pos;
        }
        self.hash ^= zobrist().stones[side][y * MAX + x];
    }

    /// Whether the window of five at `start` of a line whose own stones are `own` is
    /// joined by an own stone just past an end, under the standard rule (where filling it
    /// would make six or more, no five).
    #[inline(always)]
    fn overline(&self, own: u32, start: usize) -> bool {
        // `own << 1` reads position `start - 1`, and nothing before position 0.
        self.exact && ((own << 1) >> start | own >> (start + 5)) & 1 != 0
    }

    /// The five-points of `side` on the windows of `dir`'s line `idx` that hold
    /// positions `from..=to` (window starts), into `out`.
    #[inline(always)]
    fn fives_on(&self, side: usize, dir: usize, idx: usize, starts: (usize, usize), out: &mut Fives) {
        let own = self.bits[side][dir][idx];
        let theirs = self.bits[1 - side][dir][idx];
        for start in starts.0..=starts.1 {
            let w = 0x1f << start;
            if theirs & w == 0 && (own & w).count_ones() == 4 && !self.overline(own, start) {
                out.add(point_of(self.s, dir, idx, (w & !own).trailing_zeros() as usize));
            }
        }
    }

    /// The five-points of `side` on the four lines through `p` (where a new stone of
    /// `side` stands: only those lines can hold new ones).
    #[inline]
    fn fives_through(&self, side: usize, p: Pt) -> Fives {
        let mut out = Fives::NONE;
        for dir in 0..4 {
            let (idx, pos) = line_of(self.s, dir, p.x as usize, p.y as usize);
            let (lo, hi) = span(self.s, dir, idx);
            if hi < lo + 4 {
                continue;
            }
            let starts = (pos.saturating_sub(4).max(lo), pos.min(hi - 4));
            self.fives_on(side, dir, idx, starts, &mut out);
            if out.count == 2 {
                break;
            }
        }
        out
    }

    /// Every five-point of `side` on the board (up to two).
    fn fives(&self, side: usize) -> Fives {
        let mut out = Fives::NONE;
        for dir in 0..4 {
            for idx in 0..if dir < 2 { self.s } else { 2 * self.s - 1 } {
                let (lo, hi) = span(self.s, dir, idx);
                if hi < lo + 4 || self.bits[side][dir][idx].count_ones() < 4 {
                    continue;
                }
                self.fives_on(side, dir, idx, (lo, hi - 4), &mut out);
                if out.count == 2 {
                    return out;
                }
            }
        }
        out
    }

    /// The points where a stone of `side` makes a four, as rows of bits.
    fn fours(&self, side: usize, out: &mut [u32; MAX]) {
        *out = [0; MAX];
        for dir in 0..4 {
            for idx in 0..if dir < 2 { self.s } else { 2 * self.s - 1 } {
                let own = self.bits[side][dir][idx];
                let (lo, hi) = span(self.s, dir, idx);
                if hi < lo + 4 || own.count_ones() < 3 {
                    continue;
                }
                let theirs = self.bits[1 - side][dir][idx];
                for start in lo..=hi - 4 {
                    let w = 0x1f << start;
                    if theirs & w == 0 && (own & w).count_ones() == 3 && !self.overline(own, start) {
                        let mut empty = w & !own;
                        while empty != 0 {
                            let p = point_of(self.s, dir, idx, empty.trailing_zeros() as usize);
                            empty &= empty - 1;
                            out[p.y as usize] |= 1 << p.x;
                        }
                    }
                }
            }
        }
    }

    fn push(&mut self, p: Pt) {
        self.path[self.path_len] = p;
        self.path_len += 1;
    }

    /// Whether `a` (to move) wins by fours within `depth` moves before its double threat.
    /// On entry `a` has no five-point, and the defender none or exactly one (`forced`),
    /// which `a` must take. On a win the rest of the line is on `path`.
    fn attack(&mut self, a: usize, forced: Option<Pt>, depth: u32) -> bool {
        let d = 1 - a;
        let slot = self.hash as usize & (TABLE - 1);
        if self.keys[slot] == self.hash && u32::from(self.depths[slot]) >= depth {
            return false;
        }
        // Every four, its five-point, checked for an immediate double threat first so the
        // shortest win at this depth is the one found.
        let mut fours = [(Pt { x: 0, y: 0 }, Pt { x: 0, y: 0 }); MAX_FOURS];
        let mut n = 0;
        let mut rows = [0u32; MAX];
        match forced {
            Some(p) => rows[p.y as usize] = 1 << p.x,
            None => self.fours(a, &mut rows),
        }
        for (y, &row) in rows[..self.s].iter().enumerate() {
            let mut row = row;
            while row != 0 {
                let p = Pt { x: row.trailing_zeros() as u8, y: y as u8 };
                row &= row - 1;
                if self.nodes >= self.max_nodes {
                    self.out_of_budget = true;
                    return false;
                }
                self.nodes += 1;
                self.toggle(a, p);
                let fives = self.fives_through(a, p);
                self.toggle(a, p);
                match fives.count {
                    0 => {} // a forced block that is no four: the line breaks here
                    1 if depth > 1 && n < MAX_FOURS => {
                        fours[n] = (p, fives.first);
                        n += 1;
                    }
                    1 => self.cut = true,
                    _ => {
                        self.push(p);
                        self.push(fives.first);
                        self.push(fives.second);
                        return true;
                    }
                }
            }
        }
        for &(p, block) in &fours[..n] {
            self.toggle(a, p);
            self.toggle(d, block);
            self.push(p);
            self.push(block);
            // The block may have made the defender a four of its own: the attacker must
            // take its five-point next, and two of them end the line.
            let counter = self.fives_through(d, block);
            let won = match counter.count {
                0 => self.attack(a, None, depth - 1),
                1 => self.attack(a, Some(counter.first), depth - 1),
                _ => false,
            };
            self.toggle(d, block);
            self.toggle(a, p);
            if won {
                return true;
            }
            self.path_len -= 2;
            if self.out_of_budget {
                return false;
            }
        }
        self.keys[slot] = self.hash;
        self.depths[slot] = depth as u8;
        false
    }

    fn line(&self, game: &Gomoku) -> Vec<Action> {
        self.path[..self.path_len].iter().map(|p| game.action_at(p.x as usize, p.y as usize)).collect()
    }
}

/// The shortest VCF of `attacker` in `game` (whoever is to move there: a defender to move
/// is asked "what if it passed"), trying at most `max_nodes` attacker moves.
pub fn vcf(game: &Gomoku, attacker: Player, max_nodes: u32) -> Vcf {
    let mut p = Prover::new(game, max_nodes);
    let a = attacker.index();
    let none = |p: &Prover| Vcf { line: None, nodes: p.nodes, out_of_budget: p.out_of_budget };
    if game.outcome().is_some() {
        return none(&p);
    }
    let own = p.fives(a);
    if own.count > 0 {
        return Vcf {
            line: Some(vec![game.action_at(own.first.x as usize, own.first.y as usize)]),
            nodes: 0,
            out_of_budget: false,
        };
    }
    let forced = match p.fives(1 - a) {
        f if f.count == 0 => None,
        f if f.count == 1 => Some(f.first),
        _ => return none(&p),
    };
    for depth in 1..=DEPTH_CAP {
        p.cut = false;
        p.path_len = 0;
        if p.attack(a, forced, depth) {
            return Vcf { line: Some(p.line(game)), nodes: p.nodes, out_of_budget: false };
        }
        if p.out_of_budget || !p.cut {
            break;
        }
    }
    none(&p)
}

/// Defence checks allowed per expanded position, in VCF budgets: each checks one reply to
/// the opponent's VCF by searching the opponent's VCF again after it.
const DEFENCE_BUDGETS: u32 = 16;

/// [`Tactics::threat_search`] for Gomoku (see there): the side to move's VCF is a proven win;
/// otherwise, when the opponent would have one were it to move, `moves` is narrowed to the
/// replies after which it has none.
pub(super) fn threat_search(game: &Gomoku, max_nodes: u32, moves: &mut Vec<Action>) -> Lookahead {
    let me = match game.to_move() {
        crate::ToMove::Player(p) => p,
        crate::ToMove::Chance => return Lookahead::Moves,
    };
    if max_nodes == 0 || game.outcome().is_some() || moves.is_empty() {
        return Lookahead::Moves;
    }
    if let Some(win) = vcf(game, me, max_nodes).first() {
        return Lookahead::Win(win);
    }
    if moves.len() == 1 {
        return Lookahead::Moves;
    }
    let threat = vcf(game, me.other(), max_nodes);
    let Some(line) = threat.line else { return Lookahead::Moves };
    // Replies that may refute it: the points of its line, and our own fours (a four makes
    // the opponent answer first, and may leave it a block that ends its line).
    let mut near = [0u32; MAX];
    let prover = Prover::new(game, 0);
    prover.fours(me.index(), &mut near);
    for &a in &line {
        let (x, y) = game.point(a);
        near[y] |= 1 << x;
    }
    let mut budget = DEFENCE_BUDGETS * max_nodes;
    // Whether `m` refutes the threat: after it the opponent has no VCF found within the
    // budget, or the budget is spent (an unchecked move is kept, never called lost).
    let mut holds = |m: Action| -> bool {
        if budget == 0 {
            return true;
        }
        let mut after = game.clone();
        after.play_unchecked(m);
        if after.outcome().is_some() {
            return true;
        }
        let answer = vcf(&after, me.other(), max_nodes.min(budget));
        budget -= answer.nodes.min(budget);
        answer.line.is_none()
    };
    let is_near = |m: Action| {
        let (x, y) = game.point(m);
        near[y] >> x & 1 != 0
    };
    let safe = std::mem::take(moves);
    moves.extend(safe.iter().copied().filter(|&m| is_near(m) && holds(m)));
    if moves.is_empty() {
        // No reply near the line refutes it; one far away still might (a stone that turns
        // a forced block into a four): only a check of every move proves the loss.
        moves.extend(safe.iter().copied().filter(|&m| !is_near(m) && holds(m)));
    }
    if moves.is_empty() {
        *moves = safe;
        return Lookahead::Lost;
    }
    Lookahead::Moves
}
