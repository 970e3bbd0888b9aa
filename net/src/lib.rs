//! The policy/value network in tch (libtorch): model, checkpoints, devices and threads.

pub mod agent;
pub mod agreement;
pub mod allocator;
pub mod any_size;
pub mod autotune;
pub mod average;
pub mod bench;
pub mod checkpoint;
pub mod denormals;
pub mod device;
pub mod folded;
pub mod infer;
pub mod model;
pub mod optim;
pub mod precision;
pub mod timing;
pub mod train;
