//! Training and what a run writes and shows, one test binary (each binary links libtorch, so
//! the tests that train share one): the pipeline on loopback (`pipeline`), any-size boards
//! (`any_size`), the games docs/new-game.md adds (`new_game`), an earlier release's run
//! resumed (`old_run`), `--set` and `--config` (`settings`), error lines (`errors`), log
//! lines (`logs`), the Prometheus page (`metrics`), TensorBoard's reader (`tensorboard`), the
//! dashboard in a browser (`dashboard`) and `dojo plot` (`plot`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../sliding/mod.rs"]
mod sliding;

mod any_size;
mod dashboard;
mod errors;
mod logs;
mod metrics;
mod new_game;
mod old_run;
mod pipeline;
mod plot;
mod settings;
mod tensorboard;
