//! The repository as a user meets it, one test binary (each binary links libtorch, so the
//! checks of files and scripts share one): the docs keep their promises (`docs`), one
//! install puts dojo on PATH (`install`), every script answers `--help` (`scripts_help`),
//! seed 001's engine is found as a reference, never built (`seed_engine`), and the house's
//! rules read from the sources hold (`tidy`).

#[path = "../common/mod.rs"]
mod common;

mod docs;
mod install;
mod scripts_help;
mod seed_engine;
mod tidy;
