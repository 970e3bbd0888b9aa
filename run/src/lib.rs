//! dojo-run: what a run is, apart from the services that work on it. The learner trains it,
//! the arbiter judges it and the command line reports on it; all three read it from here.
//!
//! - [`config`]: the run's configuration (`config.toml`), every section of it.
//! - [`paths`]: where a run directory keeps each thing, drawn once.
//! - [`dir`]: creating or reopening a run directory, and the state a restart resumes from.
//! - [`journal`]: append-only journals and exclusive locks that survive a crash.
//! - [`retention`]: which published versions the run keeps on disk.

pub mod config;
pub mod dir;
pub mod journal;
pub mod paths;
pub mod retention;
