//! Whether a learner (its gRPC port) or a worker (its `--http` port) is serving, by the
//! standard gRPC health protocol (`dojo health`): a health check for container engines
//! that have no gRPC probe of their own (Docker, compose).

use std::time::Duration;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;

#[derive(Debug, thiserror::Error)]
pub enum HealthError {
    #[error("--timeout {0} is not a duration")]
    Timeout(f64),
    #[error("{addr:?} is not an address like 127.0.0.1:7878")]
    Address { addr: String },
    #[error("cannot start a runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot reach {url}")]
    Unreachable {
        url: String,
        #[source]
        error: tonic::transport::Error,
    },
    #[error("{url} answered {code:?}: {message}")]
    Answered { url: String, code: tonic::Code, message: String },
    #[error("{name} at {url}: {status}")]
    NotServing { name: String, url: String, status: &'static str },
}

/// Asks the server at `addr` (`HOST:PORT` or a URL) about `service` ("" for the server as
/// a whole), waiting at most `timeout` seconds; says "NAME at URL: SERVING" when it is.
pub fn check(addr: &str, service: &str, timeout: f64) -> Result<String, HealthError> {
    let url = if addr.contains("://") { addr.to_string() } else { format!("http://{addr}") };
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(HealthError::Timeout(timeout));
    }
    let timeout = Duration::from_secs_f64(timeout);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(HealthError::Runtime)?;
    let status = rt.block_on(async {
        let endpoint = tonic::transport::Endpoint::from_shared(url.clone())
            .map_err(|_| HealthError::Address { addr: addr.to_string() })?
            .connect_timeout(timeout)
            .timeout(timeout);
        let channel = endpoint.connect().await.map_err(|error| HealthError::Unreachable { url: url.clone(), error })?;
        let reply =
            HealthClient::new(channel).check(HealthCheckRequest { service: service.to_string() }).await.map_err(
                |s| HealthError::Answered { url: url.clone(), code: s.code(), message: s.message().to_string() },
            )?;
        Ok(reply.into_inner().status())
    })?;
    let name = if service.is_empty() { "the server".to_string() } else { service.to_string() };
    match status {
        ServingStatus::Serving => Ok(format!("{name} at {url}: SERVING")),
        other => Err(HealthError::NotServing { name, url, status: other.as_str_name() }),
    }
}
