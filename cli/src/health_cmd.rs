//! `dojo health`: asks a learner (its gRPC port) or a worker (its `--http` port) whether it
//! is serving, by the standard gRPC health protocol, and exits 0 only when it is: a health
//! check for container engines that have no gRPC probe of their own (Docker, compose).

use anyhow::{bail, Context, Result};
use clap::Args;
use std::time::Duration;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

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
    let url = if args.addr.contains("://") { args.addr.clone() } else { format!("http://{}", args.addr) };
    anyhow::ensure!(args.timeout.is_finite() && args.timeout > 0.0, "--timeout {} is not a duration", args.timeout);
    let timeout = Duration::from_secs_f64(args.timeout);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let status = rt.block_on(async {
        let endpoint = tonic::transport::Endpoint::from_shared(url.clone())
            .with_context(|| format!("{:?} is not an address like 127.0.0.1:7878", args.addr))?
            .connect_timeout(timeout)
            .timeout(timeout);
        let channel = endpoint.connect().await.with_context(|| format!("cannot reach {url}"))?;
        let reply = HealthClient::new(channel)
            .check(HealthCheckRequest { service: args.service.clone() })
            .await
            .map_err(|s| anyhow::anyhow!("{url} answered {:?}: {}", s.code(), s.message()))?;
        anyhow::Ok(reply.into_inner().status())
    })?;
    let name = if args.service.is_empty() { "the server".to_string() } else { args.service.clone() };
    match status {
        ServingStatus::Serving => {
            println!("{name} at {url}: SERVING");
            Ok(())
        }
        other => bail!("{name} at {url}: {}", other.as_str_name()),
    }
}
