//! The policy/value network in tch (libtorch): model, checkpoints, devices and threads.

pub mod checkpoint;
pub mod device;
pub mod model;
