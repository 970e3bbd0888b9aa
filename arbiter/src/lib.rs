//! Arbiter: matches between players, gating, tournaments and ratings.

pub mod bench;
pub mod charts;
pub mod child;
pub mod contest;
pub mod forfeit;
pub mod gatekeeper;
pub mod gating;
pub mod gomocup;
pub mod grading;
pub mod match_report;
pub mod match_session;
pub mod matches;
pub mod openings;
pub mod players;
pub mod promotion;
pub mod rating;
pub mod run_plots;
pub mod saiblo;
pub mod sprt;
pub mod tournament;
pub mod watch;
