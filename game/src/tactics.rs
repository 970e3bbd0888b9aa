//! Game tactics' one trait: what a position proves by looking a few plies ahead or by a
//! threat search, and a game's own rollouts ([`Tactics`]), with the references by play
//! that every game's fast version is tested against. The tactics themselves sit with the
//! rules they read (Connect Four's bitboard kills in `connect4.rs`, Gomoku's threats and
//! VCF prover in `gomoku/`); Connect Four's exact solver is `dojo_search::solver`.

use crate::{Action, Game, Outcome, ToMove};

/// What [`Tactics::lookahead`] proves about a position, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookahead {
    /// This move wins at once.
    Win(Action),
    /// Every legal move loses: with [`Tactics::lookahead`], no move wins at once and every one
    /// lets the opponent win at once (`out` is empty); with [`Tactics::two_step_lookahead`],
    /// also when every move that does not lose at once allows a two-step kill, and then
    /// `out` holds those moves: the ones that make the opponent find the kill.
    Lost,
    /// No move wins at once; the moves written to `out` are the ones worth searching.
    Moves,
}

/// A game's tactics: every game implements it, empty where the defaults do (a one-ply
/// lookahead by play, no threat search, no rollouts).
pub trait Tactics {
    /// One ply of lookahead for the side to move, cheap enough to run at every node a
    /// search expands (seed 001's rollout rules, moved into the tree): a move that wins at
    /// once, or else the moves that do not hand the opponent an immediate win, written to
    /// `out`. Only called on positions that are not over.
    ///
    /// The default, [`lookahead_by_play`], is exact but plays every move and every reply;
    /// games override it with something cheaper that must give the same answer.
    fn lookahead(&self, out: &mut Vec<Action>) -> Lookahead
    where
        Self: Game,
    {
        lookahead_by_play(self, out)
    }

    /// [`Tactics::lookahead`] two plies deeper: seed 001's two-step kills (两步杀). A safe move
    /// after which the opponent is lost at once (a double threat, or a threat with another
    /// stacked on it) is a win in three, returned as [`Lookahead::Win`]; safe moves that
    /// hand the opponent such a kill are dropped from `out`, and when none is left the
    /// position is [`Lookahead::Lost`] with the one-ply safe moves left in `out`. Exact,
    /// like `lookahead`.
    ///
    /// The default looks only one ply deep: a game opts in where the deeper look is cheap
    /// next to a network evaluation (Connect Four: at most 12 × 12 bitboard lookaheads;
    /// on a Gomoku board it would be thousands). [`two_step_lookahead_by_play`] is the
    /// reference a game's version is tested against.
    fn two_step_lookahead(&self, out: &mut Vec<Action>) -> Lookahead
    where
        Self: Game,
    {
        self.lookahead(out)
    }

    /// Threat-space search, run where [`Tactics::lookahead`] (or the two-step version) left
    /// `out` holding the moves worth searching (or, without tactics, every legal move), at
    /// most `max_nodes` nodes a search; Gomoku's VCF prover. [`Lookahead::Win`]: the side to
    /// move wins by force, starting with that move. [`Lookahead::Moves`]: `out` is kept, or
    /// narrowed to the moves that refute a forced win the opponent would have were it to
    /// move. [`Lookahead::Lost`]: every move in `out` was checked and allows the opponent's
    /// forced win; `out` is left as it came, so the search still has moves to play.
    ///
    /// The default finds nothing and keeps `out`: Connect Four's threats are in its
    /// two-step lookahead, and the search stays game-agnostic.
    fn threat_search(&self, max_nodes: u32, out: &mut Vec<Action>) -> Lookahead {
        let _ = (max_nodes, out);
        Lookahead::Moves
    }

    /// The game played out to its end by the game's own rollout policy, from a position
    /// that is not over: the result for the side to move (1 won, -1 lost, 0 drawn), its
    /// random choices drawn from the SplitMix64 stream at `state` (a stream another
    /// language replays exactly: `dojo export saiblo`'s strategy mixes the same rollouts).
    /// The search mixes such results into the network's value at every expanded position
    /// (`search.rollouts`).
    ///
    /// The default has no rollout policy (None), and the search then keeps the network's
    /// value: Connect Four has one, seed 001's.
    fn rollout_result(&self, state: &mut u64) -> Option<f32> {
        let _ = state;
        None
    }
}

/// [`Tactics::two_step_lookahead`] by playing it out: [`Tactics::lookahead`] at the position, after
/// every safe move, and after every safe reply to it. The reference for games' versions.
pub fn two_step_lookahead_by_play<G: Game>(game: &G, out: &mut Vec<Action>) -> Lookahead {
    let first = game.lookahead(out);
    if first != Lookahead::Moves {
        return first;
    }
    let safe = out.clone();
    out.clear();
    let mut replies = Vec::new();
    let mut scratch = Vec::new();
    // Lost at once after `m`: the side to move there cannot win at once and every move of
    // its loses at once.
    let lost_after = |g: &G, m: Action, scratch: &mut Vec<Action>| {
        let mut after = g.clone();
        after.play_unchecked(m);
        after.outcome().is_none() && after.lookahead(scratch) == Lookahead::Lost
    };
    if let Some(&kill) = safe.iter().find(|&&m| lost_after(game, m, &mut scratch)) {
        return Lookahead::Win(kill);
    }
    for &m in &safe {
        let mut after = game.clone();
        after.play_unchecked(m);
        let opponent_kills = after.outcome().is_none()
            && match after.lookahead(&mut replies) {
                Lookahead::Win(_) => true,
                Lookahead::Lost => false,
                Lookahead::Moves => replies.iter().any(|&r| lost_after(&after, r, &mut scratch)),
            };
        if !opponent_kills {
            out.push(m);
        }
    }
    if out.is_empty() {
        *out = safe;
        Lookahead::Lost
    } else {
        Lookahead::Moves
    }
}

/// [`Tactics::lookahead`] by brute force: plays each legal move, then each reply. The reference
/// the games' fast versions are tested against.
pub fn lookahead_by_play<G: Game>(game: &G, out: &mut Vec<Action>) -> Lookahead {
    out.clear();
    let ToMove::Player(me) = game.to_move() else { return Lookahead::Moves };
    let mut moves = Vec::new();
    let mut replies = Vec::new();
    game.legal_actions(&mut moves);
    for &m in &moves {
        let mut after = game.clone();
        after.play_unchecked(m);
        if after.outcome() == Some(Outcome::Win(me)) {
            return Lookahead::Win(m);
        }
    }
    for &m in &moves {
        let mut after = game.clone();
        after.play_unchecked(m);
        after.legal_actions(&mut replies);
        let loses = replies.iter().any(|&r| {
            let mut reply = after.clone();
            reply.play_unchecked(r);
            reply.outcome() == Some(Outcome::Win(me.other()))
        });
        if !loses {
            out.push(m);
        }
    }
    if out.is_empty() && !moves.is_empty() {
        Lookahead::Lost
    } else {
        Lookahead::Moves
    }
}
