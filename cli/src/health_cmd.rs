//! `dojo health`: asks a learner (its gRPC port) or a worker (its `--http` port) whether it
//! is serving, by the standard gRPC health protocol, and exits 0 only when it is: a health
//! check for container engines that have no gRPC probe of their own (Docker, compose)
//! (`dojo_program::health`).

use anyhow::Result;
use clap::Args;
use dojo_program::health;

#[derive(Args)]
pub struct HealthArgs {
    /// The server, e.g. 127.0.0.1:7878 or http://learner:7878.
    addr: String,
    /// The service to ask about ("" is the whole server; the learner's is dojo.v1.Learner).
    #[arg(long, default_value = "")]
    service: String,
    /// Seconds to wait for an answer.
    #[arg(long, default_value_t = 5.0)]
    timeout: f64,
}

pub fn run(args: HealthArgs) -> Result<()> {
    println!("{}", health::check(&args.addr, &args.service, args.timeout)?);
    Ok(())
}
