//! Search: players that pick moves. Baselines (uniform random, pure MCTS with rollouts, the
//! exact Connect Four solver as a player, whose search is the game crate's), the network-guided PUCT graph search, and its counterpart with
//! chance nodes for one-player games (2048, 2584), both reached through one entry point
//! ([`searcher::Searcher`]).

pub mod chance;
pub mod config;
pub mod evaluator;
mod graph;
pub mod gumbel;
pub mod mcts;
pub mod mistakes;
pub mod player;
pub mod puct;
pub mod searcher;
pub mod selfplay;
pub mod solver_agent;
pub mod step;
