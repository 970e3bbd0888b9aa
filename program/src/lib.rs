//! Programs: what a `dojo` command runs when it wires several services together, as
//! KataGo's `program/` layer sits between its libraries and its thin `command/`s. The
//! command parses its arguments, calls one of these, and prints what it reports.
//!
//! - [`train`]: the main job on one machine (`dojo train`): a learner in this process,
//!   self-play worker processes beside it, gating on a thread, and a clean stop.
//! - [`selfplay`]: a checkpoint's self-play games to a file (`dojo selfplay`).
//! - [`analyse`]: a network's moves in given positions and its error rate on a judged set
//!   (`dojo bestmove`, `dojo eval`), and the sets themselves (`dojo positions`).
//! - [`play`]: a game against a network in a terminal (`dojo play`).
//! - [`pbrain`]: a Gomoku network as a Gomocup brain (`dojo pbrain`), on [`brain`], the
//!   protocol from a brain's side.
//! - [`saiblo_export`]: a network written as a saiblo.net strategy (`dojo export saiblo`), by
//!   by [`cpp_export`], the C++ generator every export shares; [`gomocup_export`]: a Gomoku
//!   network written as a Gomocup brain (`dojo export gomocup`), by the same generator.
//! - [`run_plots`]: a run's charts as PNGs (`dojo plot`): the metrics table's figures,
//!   gating's decisions (`dojo-gating`) and tournaments' standings (`dojo-arbiter`).
//! - [`solve`]: the Connect Four oracle on a stream (`dojo solve`).
//! - [`bench`]: benchmarks that wire services together (the learner's intake).
//! - [`health`]: whether a learner or worker is serving (`dojo health`).
//! - [`checkpoint`]: loading a checkpoint, its path named in the error.

pub mod analyse;
pub mod bench;
pub mod brain;
pub mod checkpoint;
pub mod cpp_export;
pub mod gomocup_export;
pub mod health;
pub mod pbrain;
pub mod play;
pub mod run_plots;
pub mod saiblo_export;
pub mod selfplay;
pub mod solve;
pub mod training;
