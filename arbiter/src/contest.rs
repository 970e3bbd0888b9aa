//! Contests: how the players of a game are compared. The game chooses, by the one question
//! [`GameSpec::is_one_player`](dojo_game::GameSpec::is_one_player):
//!
//! | | [`TwoPlayer`] (Connect Four, Gomoku) | [`OnePlayer`] (2048, 2584) |
//! | --- | --- | --- |
//! | a game | two players from one start, each moving first once in a pair | one player alone; game `i` of every player on the same seed |
//! | a game's result | win, draw or loss | a score (and the largest tile) |
//! | a match | score with a 95% interval, Elo difference | mean score, reach rates |
//! | a tournament's standings | Elo ratings fitted to every game (`ratings.json`) | mean scores (`scores.json`) |
//! | a gate | the SPRT, or a score threshold | the paired score differences on the same seeds |
//!
//! Matches ([`crate::matches`]), tournaments and their standings ([`crate::tournament`])
//! and gates ([`crate::gating`]) are one mechanism each, generic over the contest; each
//! states what its contests do differently in a trait of its own, implemented for
//! [`TwoPlayer`] and [`OnePlayer`] beside the mechanism ([`crate::matches::MatchContest`],
//! [`crate::tournament::TournamentContest`], [`crate::gating::GateContest`]).
//!
//! A tournament's side of each contest is `crate::tournament::contest`: one concept in two
//! layers of this crate.

/// Two players meet: wins, draws and losses; Elo; the SPRT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TwoPlayer;

/// One player plays alone: scores; mean score; paired score differences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OnePlayer;

/// Runs `$body` with `$contest` bound to the contest of the game `$game` (a
/// [`GameSpec`](dojo_game::GameSpec)): [`OnePlayer`] or [`TwoPlayer`], so generic code
/// is monomorphised per contest: `with_contest!(&spec, contest => play(contest, ...))`.
#[macro_export]
macro_rules! with_contest {
    ($game:expr, $contest:ident => $body:expr) => {
        if $game.is_one_player() {
            let $contest = $crate::contest::OnePlayer;
            $body
        } else {
            let $contest = $crate::contest::TwoPlayer;
            $body
        }
    };
}
