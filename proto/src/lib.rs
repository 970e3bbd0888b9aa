//! dojo's wire formats: the contract (`dojo.proto`) between workers and the learner,
//! generated tonic/prost code plus the protocol version both sides check; TensorBoard's
//! event files ([`tensorboard`]); and Prometheus's text format ([`prometheus`]).

pub mod prometheus;
pub mod tensorboard;

/// Bumped whenever a message changes in a way an old peer would misread.
pub const PROTOCOL_VERSION: u32 = 1;

/// Largest message either side sends or accepts (a model chunk, a game record).
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;

/// The metadata header in which a worker names itself on every call (for the learner's
/// per-worker metrics; calls without it are served all the same).
pub const WORKER_HEADER: &str = "x-dojo-worker";

/// Model weights travel in chunks of this size.
pub const MODEL_CHUNK_BYTES: usize = 1024 * 1024;

#[allow(clippy::all, missing_docs)]
pub mod pb {
    tonic::include_proto!("dojo.v1");
}
