//! dojo-core: everything a worker, learner and arbiter share.
//!
//! Layers, lowest first (a module never imports one above it):
//! `rng` ← `game` (rules, bitboards) ← `search` (MCTS, baselines, solver).

pub mod game;
pub mod record;
pub mod rng;
pub mod search;
