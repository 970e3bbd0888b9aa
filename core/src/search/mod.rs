//! Search: players that pick moves. Baselines (uniform random, pure MCTS with rollouts, the
//! exact Connect Four solver) live here beside the network-guided search.

pub mod mcts;
pub mod player;
pub mod solver;
