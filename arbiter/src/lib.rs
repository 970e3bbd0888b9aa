//! Arbiter: judging players. Matches between players and their reports, tournaments and
//! ratings, opening books, building players from specs, and promoting a run's best
//! network. Gating is `dojo-gating`'s (above this crate), grading against a solver
//! `dojo-grading`'s, and the outside programs played as players `dojo-external`'s.

pub mod bench;
pub mod charts;
pub mod contest;
pub mod match_report;
pub mod match_session;
pub mod matches;
pub mod openings;
pub mod players;
pub mod promotion;
pub mod rating;
pub mod tournament;
