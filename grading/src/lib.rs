//! Solver-graded benchmarks (issue 23): Pons' categories of Connect Four positions, labelled
//! position files, drawing a balanced labelled set from random play, and grading a player's
//! moves on them (AlphaZero.jl's rule: an error is a move whose win/draw/loss class is below
//! the best available). `dojo positions --pons`, `dojo eval` and the gatekeeper use it.

pub mod category;
pub mod draw;
pub mod grade;
pub mod judge;
pub mod labelled;
pub mod positions;
pub mod run_set;

pub use category::{Category, Difficulty, Stage};
pub use draw::{draw_positions, DrawSettings, Drawn};
pub use grade::{grade, Case, Chooser, ErrorRate, Grade, Mover, Verdict};
pub use labelled::{Labelled, PositionLine};
