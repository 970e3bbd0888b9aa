//! Search: players that pick moves. Baselines (uniform random, pure MCTS with rollouts, the
//! exact Connect Four solver) and the network-guided PUCT graph search.

pub mod config;
pub mod evaluator;
pub mod mcts;
pub mod player;
pub mod puct;
pub mod selfplay;
pub mod solver;
pub mod solver_agent;
