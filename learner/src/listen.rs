//! The learner's network side, on a thread of its own: binds the gRPC port (and the HTTP
//! one), says where it listens, and serves the learner's service (behind the token), the
//! standard health service and the HTTP router until shutdown, then drains.

use crate::ingest::IngestLimits;
use crate::learner::Shared;
use crate::service::{check_token, LearnerService};
use dojo_proto::pb::learner_server::{LearnerServer, SERVICE_NAME as LEARNER_SERVICE};
use dojo_proto::MAX_MESSAGE_BYTES;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{mpsc, Arc};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// A server's TLS certificate chain and private key, as PEM.
#[derive(Clone)]
pub struct TlsIdentity {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
}

impl std::fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.write_str("TlsIdentity")
    }
}

/// Why the learner's network side could not listen or serve.
#[derive(Debug, thiserror::Error)]
pub enum ListenError {
    #[error("cannot start the async runtime: {error}")]
    Runtime { error: std::io::Error },
    #[error("cannot listen on {addr}: {error}")]
    Listen { addr: SocketAddr, error: std::io::Error },
    #[error("cannot serve HTTP on {addr}: {error}")]
    Http { addr: SocketAddr, error: std::io::Error },
    #[error("the TLS certificate or key: {error}")]
    Tls { error: tonic::transport::Error },
    /// The gRPC socket's own address cannot be read.
    #[error("{error}")]
    Address { error: std::io::Error },
    #[error("the gRPC server failed: {error}")]
    Serve { error: tonic::transport::Error },
    #[error(
        "refusing to listen on {addr} without a token: anyone who can reach it could send games. \
         Give --token-file FILE (or DOJO_TOKEN), listen on 127.0.0.1, or pass --insecure"
    )]
    Exposed { addr: SocketAddr },
    #[error("cannot read {}: {error}", .path.display())]
    ReadTls { path: PathBuf, error: std::io::Error },
}

impl TlsIdentity {
    /// The certificate chain and key in the PEM files `cert` and `key`.
    pub fn read(cert: &std::path::Path, key: &std::path::Path) -> Result<TlsIdentity, ListenError> {
        let read = |path: &std::path::Path| {
            std::fs::read(path).map_err(|error| ListenError::ReadTls { path: path.to_path_buf(), error })
        };
        Ok(TlsIdentity { cert_pem: read(cert)?, key_pem: read(key)? })
    }
}

/// Refuses a learner that anyone on the network could send games to: one listening beyond
/// loopback without a token, unless the user said `insecure`.
pub fn refuse_exposed(listen: SocketAddr, token: bool, insecure: bool) -> Result<(), ListenError> {
    match token || insecure || listen.ip().is_loopback() {
        true => Ok(()),
        false => Err(ListenError::Exposed { addr: listen }),
    }
}

/// Where the learner listens: its gRPC address and its HTTP one, if any.
pub type Addresses = (SocketAddr, Option<SocketAddr>);

/// What the serving thread needs.
pub struct Serving {
    pub shared: Arc<Shared>,
    pub listen: SocketAddr,
    pub http: Option<SocketAddr>,
    pub token: Option<String>,
    pub drain: Duration,
    pub tls: Option<TlsIdentity>,
    pub limits: IngestLimits,
}

impl Serving {
    /// Serves until `shutdown` turns true, then drains. Where it listens, or why it cannot,
    /// goes to `addresses` first: an error before listening goes to the starter, which
    /// returns it and never joins this thread.
    pub fn run(
        self,
        addresses: mpsc::Sender<Result<Addresses, ListenError>>,
        shutdown: watch::Receiver<bool>,
    ) -> Result<(), ListenError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|error| ListenError::Runtime { error })?;
        rt.block_on(self.serve(addresses, shutdown))
    }

    async fn serve(
        self,
        addresses: mpsc::Sender<Result<Addresses, ListenError>>,
        shutdown: watch::Receiver<bool>,
    ) -> Result<(), ListenError> {
        let bound = match bind(self.listen, self.http).await {
            Ok((grpc, http)) => builder(&self.limits, self.tls).map(|builder| (builder, grpc, http)),
            Err(e) => Err(e),
        };
        let (mut builder, listener, http_listener) = match bound {
            Ok(parts) => parts,
            Err(e) => {
                let _ = addresses.send(Err(e));
                return Ok(());
            }
        };
        let http_addr = http_listener.as_ref().and_then(|l| l.local_addr().ok());
        let _ = addresses
            .send(listener.local_addr().map(|a| (a, http_addr)).map_err(|error| ListenError::Address { error }));
        if let Some(l) = http_listener {
            spawn_http(l, self.shared.clone(), shutdown.clone());
        }
        let service = LearnerServer::new(LearnerService::new(self.shared.clone(), self.limits))
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES);
        let service = tonic::service::interceptor::InterceptedService::new(service, check_token(self.token));
        let health_service = health(self.shared, shutdown.clone()).await;
        // Acks are small: without TCP_NODELAY each one waits out Nagle's algorithm against
        // the client's delayed ACK (measured: ~44 ms per single-game call).
        let incoming = tokio_stream::StreamExt::map(tokio_stream::wrappers::TcpListenerStream::new(listener), |conn| {
            conn.inspect(|s| {
                let _ = s.set_nodelay(true);
            })
        });
        let serve = builder
            .add_service(health_service)
            .add_service(service)
            .serve_with_incoming_shutdown(incoming, stopped(shutdown.clone()));
        // Graceful shutdown lets the calls in flight finish and waits for clients to hang
        // up; one that keeps its connection open must not keep the learner from exiting.
        tokio::select! {
            served = serve => served.map_err(|error| ListenError::Serve { error }),
            _ = async {
                stopped(shutdown).await;
                tokio::time::sleep(self.drain).await;
            } => Ok(()),
        }
    }
}

/// The gRPC listener, and the HTTP one where asked.
async fn bind(listen: SocketAddr, http: Option<SocketAddr>) -> Result<(TcpListener, Option<TcpListener>), ListenError> {
    let listener = TcpListener::bind(listen).await.map_err(|error| ListenError::Listen { addr: listen, error })?;
    let http_listener = match http {
        None => None,
        Some(at) => Some(TcpListener::bind(at).await.map_err(|error| ListenError::Http { addr: at, error })?),
    };
    Ok((listener, http_listener))
}

/// The gRPC server's settings. HTTP/2 windows bound what a client can have buffered here
/// before it is read (a waiting stream is not); keepalive finds connections whose peer
/// vanished (a cut network) so their streams end.
fn builder(limits: &IngestLimits, tls: Option<TlsIdentity>) -> Result<tonic::transport::Server, ListenError> {
    let builder = tonic::transport::Server::builder()
        .timeout(limits.request_timeout)
        .max_concurrent_streams(limits.max_streams_per_connection)
        .initial_stream_window_size(256 * 1024)
        .initial_connection_window_size(512 * 1024)
        .http2_keepalive_interval(Some(Duration::from_secs(30)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)));
    match tls {
        None => Ok(builder),
        Some(id) => {
            let identity = tonic::transport::Identity::from_pem(id.cert_pem, id.key_pem);
            builder
                .tls_config(tonic::transport::ServerTlsConfig::new().identity(identity))
                .map_err(|error| ListenError::Tls { error })
        }
    }
}

/// The dashboard, `/metrics` and the probes, until shutdown.
fn spawn_http(listener: TcpListener, shared: Arc<Shared>, mut shutdown: watch::Receiver<bool>) {
    let app = crate::http::router(shared);
    tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = shutdown.wait_for(|&s| s).await;
            })
            .await;
        if let Err(e) = served {
            tracing::error!("the HTTP server failed: {e}");
        }
    });
}

/// The standard health service, which answers without the token (probes carry none):
/// NOT_SERVING while the game log cannot be written (probes route workers elsewhere; they
/// keep their games) and from the moment the learner stops.
async fn health(
    shared: Arc<Shared>,
    mut shutdown: watch::Receiver<bool>,
) -> tonic_health::pb::health_server::HealthServer<impl tonic_health::pb::health_server::Health> {
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<LearnerServer<LearnerService>>().await;
    health.set_service_status("", tonic_health::ServingStatus::Serving).await;
    let mut storage = shared.storage.subscribe();
    tokio::spawn(async move {
        loop {
            let serving = shared.storage.not_ready_reason().is_none();
            let status =
                if serving { tonic_health::ServingStatus::Serving } else { tonic_health::ServingStatus::NotServing };
            health.set_service_status(LEARNER_SERVICE, status).await;
            health.set_service_status("", status).await;
            tokio::select! {
                _ = shutdown.wait_for(|&s| s) => break,
                changed = storage.changed() => if changed.is_err() { break },
            }
        }
        health.set_not_serving::<LearnerServer<LearnerService>>().await;
        health.set_service_status("", tonic_health::ServingStatus::NotServing).await;
    });
    health_service
}

/// Resolves once `shutdown` turns true.
async fn stopped(mut shutdown: watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|&stop| stop).await;
}
