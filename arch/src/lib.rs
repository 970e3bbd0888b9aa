//! A network described as data: its shape ([`architecture::Architecture`]), the boards an
//! any-size network plays ([`board::Board`]), the number format it runs in
//! ([`precision::PrecisionChoice`]) and the trainer's settings ([`train::TrainConfig`]).
//! No tensors: a run's config reads all of it without libtorch, and `dojo-net` builds and
//! trains the network it describes.

pub mod architecture;
pub mod board;
pub mod precision;
pub mod train;
