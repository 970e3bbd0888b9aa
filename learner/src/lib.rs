//! Learner: gRPC service, durable game log, replay buffer, training loop, checkpoints, metrics.

pub mod gamelog;
