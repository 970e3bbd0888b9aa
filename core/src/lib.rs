//! dojo-core: everything a worker, learner and arbiter share.
//!
//! Layers, lowest first (a module never imports one above it):
//! `rng`, `util`, `returns`, `metrics` ← `game` (rules, bitboards) ← `record` (game records, samples) ← `search` (MCTS, PUCT graph search, baselines,
//! solver) ← `net` (tch model, checkpoints, training). `ntuple` (n-tuple network agents for
//! 2048 and 2584) sits beside `net`: it uses `game` and `search`'s player trait only.

pub mod game;
pub mod metrics;
pub mod net;
pub mod ntuple;
pub mod record;
pub mod returns;
pub mod rng;
pub mod search;
pub mod util;
