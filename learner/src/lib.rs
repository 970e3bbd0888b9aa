//! Learner: gRPC service, durable game log, replay buffer, training loop, checkpoints, metrics.

pub mod committer;
pub mod gamelog;
pub mod http;
pub mod ingest;
pub mod learner;
pub mod listen;
pub mod offline;
pub mod replay_buffer;
pub mod server;
pub mod service;
pub mod storage;
pub mod telemetry;
