//! A worker's optional HTTP port (`dojo worker --http ADDR`), for Prometheus and for
//! Kubernetes' probes, on its own thread so a busy self-play loop never delays a probe:
//!
//! - `GET /metrics`: [`WorkerTelemetry`] in Prometheus's text format;
//! - `GET /healthz`: 200 while the process runs;
//! - `GET /readyz`: 200 once a model is loaded and the learner answers, else 503 with why;
//! - the standard gRPC health service (`grpc.health.v1.Health`) on the same port, SERVING
//!   exactly when `/readyz` says ready.
//!
//! One concept with `dojo_learner::http` (the learner's HTTP side): each service's HTTP
//! port, hence one name.

use crate::telemetry::WorkerTelemetry;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use tonic_health::ServingStatus;

/// The serving HTTP port; dropping it stops the server.
pub struct HttpServer {
    pub addr: SocketAddr,
    shutdown: Option<tokio::sync::watch::Sender<bool>>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(true);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Why the HTTP port could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address is taken or not this machine's (the cause is in the message, not also a
    /// source, so a report prints it once).
    #[error("cannot serve HTTP on {addr}: {error}")]
    Bind { addr: SocketAddr, error: std::io::Error },
    /// The bound socket refused to be set up.
    #[error(transparent)]
    Socket(std::io::Error),
    #[error("cannot start the HTTP thread: {0}")]
    Thread(std::io::Error),
}

/// Starts serving `telemetry` on `addr` (port 0: any free port; see [`HttpServer::addr`]).
pub fn serve(addr: SocketAddr, telemetry: Arc<WorkerTelemetry>) -> Result<HttpServer, ServeError> {
    let listener = std::net::TcpListener::bind(addr).map_err(|error| ServeError::Bind { addr, error })?;
    let bound = listener.local_addr().map_err(ServeError::Socket)?;
    listener.set_nonblocking(true).map_err(ServeError::Socket)?;
    let (shutdown_tx, mut shutdown_rx) = tokio::sync::watch::channel(false);
    let thread = std::thread::Builder::new()
        .name("dojo-worker-http".into())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => return tracing::error!("cannot start the HTTP server's runtime: {e}"),
            };
            rt.block_on(async move {
                let listener = match tokio::net::TcpListener::from_std(listener) {
                    Ok(l) => l,
                    Err(e) => return tracing::error!("cannot serve HTTP on {bound}: {e}"),
                };
                let (reporter, health) = tonic_health::server::health_reporter();
                tokio::spawn(follow_readiness(reporter, telemetry.clone()));
                let app = router(telemetry).merge(tonic::service::Routes::new(health).prepare().into_axum_router());
                let served = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = shutdown_rx.wait_for(|&s| s).await;
                    })
                    .await;
                if let Err(e) = served {
                    tracing::error!("the worker's HTTP server failed: {e}");
                }
            })
        })
        .map_err(ServeError::Thread)?;
    Ok(HttpServer { addr: bound, shutdown: Some(shutdown_tx), thread: Some(thread) })
}

fn router(telemetry: Arc<WorkerTelemetry>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(readyz))
        .with_state(telemetry)
}

async fn metrics(State(t): State<Arc<WorkerTelemetry>>) -> impl IntoResponse {
    ([(CONTENT_TYPE, dojo_proto::prometheus::CONTENT_TYPE)], t.render())
}

async fn readyz(State(t): State<Arc<WorkerTelemetry>>) -> (StatusCode, String) {
    match t.not_ready() {
        None => (StatusCode::OK, "ready\n".into()),
        Some(why) => (StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {why}\n")),
    }
}

/// Keeps the gRPC health status (for the whole server, service name "") equal to readiness.
async fn follow_readiness(reporter: tonic_health::server::HealthReporter, telemetry: Arc<WorkerTelemetry>) {
    let mut last = None;
    loop {
        let status = if telemetry.ready() { ServingStatus::Serving } else { ServingStatus::NotServing };
        if last != Some(status) {
            reporter.set_service_status("", status).await;
            last = Some(status);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
