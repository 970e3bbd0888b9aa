//! Choosing moves with an n-tuple value function: greedy by `r + V(s')` (seed 002), or an
//! expectimax search that looks further ahead before asking the network (seed 000's
//! `get_before_expect` / `get_after_expect`).
//!
//! Depth counts player moves: depth 1 is greedy; depth 2 is seed 000's search (its
//! `search_deep = 1`): for each move, the average over every tile spawn (each empty cell ×
//! each spawn tile, weighted by the rules' odds) of the best reply's `r + V(s')`. A position
//! with no move left is worth 0. Every extra level costs about `4 × 2 × empty cells` times
//! more network evaluations.

use super::network::Network;
use super::TupleRules;
use dojo_game::sliding::{Bits, Spawn};
use dojo_game::Action;

/// A greedy choice: the move, its after-state and reward, and the after-state's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice<B> {
    pub dir: Action,
    pub after: B,
    pub reward: u32,
    pub value: f32,
}

/// The move with the largest `reward + V(after-state)`, or `None` when no move changes
/// the board (the game is over). Ties go to the first in the order up, right, down, left,
/// as in seed 002.
#[inline]
pub fn greedy<R: TupleRules>(net: &Network<R>, board: R::Bits) -> Option<Choice<R::Bits>> {
    let mut best: Option<(f32, Choice<R::Bits>)> = None;
    for dir in 0..4 {
        if let Some((after, reward)) = R::after(board, dir) {
            let value = net.value(after);
            let total = reward as f32 + value;
            if best.as_ref().is_none_or(|(b, _)| total > *b) {
                best = Some((total, Choice { dir, after, reward, value }));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// The best move from `board` by an expectimax search `depth` player moves deep (1 =
/// greedy; see the module docs), with tiles spawning by `spawn`; `None` when the game is
/// over. `depth` 0 counts as 1.
pub fn best_move<R: TupleRules>(net: &Network<R>, board: R::Bits, spawn: Spawn, depth: u32) -> Option<Action> {
    if depth <= 1 {
        return greedy(net, board).map(|c| c.dir);
    }
    let mut best: Option<(f32, Action)> = None;
    for dir in 0..4 {
        if let Some((after, reward)) = R::after(board, dir) {
            let total = reward as f32 + after_value(net, after, spawn, depth - 1);
            if best.is_none_or(|(b, _)| total > b) {
                best = Some((total, dir));
            }
        }
    }
    best.map(|(_, d)| d)
}

/// The expected value of an after-state with `moves` player moves still to search: the
/// network's value when none are left, otherwise the average over the tile spawns of the
/// best move from the resulting position (seed 000's `get_after_expect`).
pub fn after_value<R: TupleRules>(net: &Network<R>, after: R::Bits, spawn: Spawn, moves: u32) -> f32 {
    if moves == 0 {
        return net.value(after);
    }
    let empty = after.empty_flags();
    let n = empty.count_ones();
    if n == 0 {
        // Not reachable after a legal move (a move that changes a full board merges), but
        // a caller may hand any board: nothing spawns, so the player moves on as it is.
        return before_value(net, after, spawn, moves);
    }
    let p_big = spawn.big_percent as f32 / 100.0;
    let (mut small, mut big) = (0.0f32, 0.0f32);
    for k in 0..n {
        let cell = empty.nth_flag_cell(k);
        small += before_value(net, after.with_cell(cell, spawn.small), spawn, moves);
        big += before_value(net, after.with_cell(cell, spawn.big), spawn, moves);
    }
    ((1.0 - p_big) * small + p_big * big) / n as f32
}

/// The value of a position with the player to move and `moves` moves to search: the best
/// `reward + after_value` over the legal moves, 0 when there is none (seed 000's
/// `get_before_expect`).
pub fn before_value<R: TupleRules>(net: &Network<R>, board: R::Bits, spawn: Spawn, moves: u32) -> f32 {
    let mut best: Option<f32> = None;
    for dir in 0..4 {
        if let Some((after, reward)) = R::after(board, dir) {
            let v = reward as f32 + after_value(net, after, spawn, moves - 1);
            best = Some(best.map_or(v, |b| b.max(v)));
        }
    }
    best.unwrap_or(0.0)
}
