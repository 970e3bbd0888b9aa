//! Gating a run (AlphaGo Zero's evaluator): each new version plays the run's best, and
//! takes its place when it does better.
//!
//! The one way in is [`Gatekeeper`]: `dojo gate` and `dojo train`'s gating thread both
//! [`open`](Gatekeeper::open) the run's gatekeeper from its config and run its loop
//! ([`Gatekeeper::watch`]: once, or every few versions as the learner publishes); training
//! gates its final version with [`Gatekeeper::gate`]. Below it:
//!
//! - [`gatekeeper`]: the gatekeeper itself: how a run gates ([`GatePolicy`]), the best
//!   network kept (through the arbiter's `promotion`), each decision appended to
//!   `gating.jsonl` ([`GateRecord`]) and graded on the run's benchmark (`dojo-grading`).
//! - [`watch`]: the loop, deciding when a version is due and saying what happened
//!   ([`Event`]).
//! - [`gating`]: one gate, a candidate against the best: a match (two-player games) or
//!   scores on shared seeds (one-player games).
//! - [`sprt`]: the sequential probability ratio test a match gate may stop early by.

pub mod gatekeeper;
pub mod gating;
pub mod sprt;
pub mod watch;

pub use gatekeeper::{GatePolicy, GateRecord, Gatekeeper};
pub use watch::{Event, Newest, Schedule, Watch};
