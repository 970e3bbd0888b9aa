//! Self-play worker: fetches models, plays batched self-play games, uploads them with spool and retry.

pub mod backoff;
pub mod client;
pub mod http;
pub mod run;
pub mod spool;
pub mod telemetry;
