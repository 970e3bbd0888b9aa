//! Programs: what a `dojo` command runs when it wires several services together, as
//! KataGo's `program/` layer sits between its libraries and its thin `command/`s. The
//! command parses its arguments, calls one of these, and prints what it reports.
//!
//! - [`train`]: the main job on one machine (`dojo train`): a learner in this process,
//!   self-play worker processes beside it, gating on a thread, and a clean stop.

pub mod train;
