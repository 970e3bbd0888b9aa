//! The worker's side of the gRPC contract: handshake, model download, game upload.

use dojo_arch::architecture::ArchitectureError;
use dojo_base::util::sha256_hex;
use dojo_net::checkpoint::{self, Sidecar};
use dojo_net::device::Device;
use dojo_net::model::Model;
use dojo_proto::pb::game_ack::Result as AckResult;
use dojo_proto::pb::learner_client::LearnerClient;
use dojo_proto::pb::{GameSubmission, GetModelRequest, HelloReply, HelloRequest, StatusReply, StatusRequest};
use dojo_proto::{MAX_MESSAGE_BYTES, PROTOCOL_VERSION};
use dojo_record::GameRecord;
use std::sync::Arc;
use std::time::Duration;
use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Status};

/// Adds `authorization: Bearer <token>` and the worker's name to every call.
#[derive(Clone)]
pub struct Auth {
    header: Option<MetadataValue<tonic::metadata::Ascii>>,
    worker: Option<MetadataValue<tonic::metadata::Ascii>>,
}

impl tonic::service::Interceptor for Auth {
    fn call(&mut self, mut req: Request<()>) -> Result<Request<()>, Status> {
        if let Some(h) = &self.header {
            req.metadata_mut().insert("authorization", h.clone());
        }
        if let Some(w) = &self.worker {
            req.metadata_mut().insert(dojo_proto::WORKER_HEADER, w.clone());
        }
        Ok(req)
    }
}

pub type Client = LearnerClient<InterceptedService<Channel, Auth>>;

/// How a submitted game fared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Stored now, or already stored earlier: either way the learner has it.
    Delivered,
    /// Refused for good; resending cannot help. `reason` is the learner's own words (its
    /// ack's message).
    Rejected { reason: String },
}

/// Why a call to the learner failed.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// Worth retrying: the learner is away or busy, the connection broke, a download was bad.
    #[error(transparent)]
    Transient(#[from] Transient),
    /// Retrying cannot help (a wrong or missing token, another protocol version): a worker
    /// must stop and say so rather than look healthy while it retries forever.
    #[error(transparent)]
    Refused(#[from] Refusal),
}

/// A call that failed this time and may work the next. A wrapped error's text (`why`,
/// `error`) is kept as the learner or the transport said it.
#[derive(Debug, thiserror::Error)]
pub enum Transient {
    /// The call (`what`: "SubmitGames", "the handshake"...) came back with an error status;
    /// `why` is its message and the transport's causes.
    #[error("{what} failed: {why}")]
    Failed { what: &'static str, why: String },
    #[error("{what} timed out after {secs}s")]
    TimedOut { what: &'static str, secs: u64 },
    /// The transport error's causes (refused, TLS handshake, certificate) are part of the
    /// message: tonic's own text says only "transport error".
    #[error("cannot reach the learner at {url}: {}", with_causes(error))]
    Unreachable { url: String, error: tonic::transport::Error },
    #[error("the learner offers a {bytes} byte model; refusing")]
    ModelTooLarge { bytes: u64 },
    #[error("model chunks of different versions in one download")]
    MixedChunks,
    #[error("model chunk at offset {offset} but {received} bytes received")]
    ChunkGap { offset: u64, received: usize },
    #[error("the learner sent no model")]
    NoModel,
    #[error("model download truncated: {received} of {total} bytes")]
    Truncated { received: usize, total: u64 },
    #[error("model v{version} sha256 is {actual}, the learner said {said}")]
    Checksum { version: u64, actual: String, said: String },
    #[error("bad model sidecar: {error}")]
    Sidecar { error: serde_json::Error },
    #[error("model sidecar and weights disagree")]
    SidecarMismatch,
    #[error("model v{version} cannot be used: {error}")]
    Unusable { version: u64, error: ArchitectureError },
    /// The weights do not load into the sidecar's architecture.
    #[error("{error}")]
    Weights { error: checkpoint::CheckpointError },
}

/// A call this worker must not repeat: its settings or the learner's answer rule it out.
/// (Cloned: the worker keeps the refusal to stop with it; hence the shared causes.)
#[derive(Clone, Debug, thiserror::Error)]
pub enum Refusal {
    /// The learner refused this worker as such (`what`: the call) with `message`.
    #[error("the learner refused this worker ({what}): {message}")]
    Unauthorized { what: &'static str, message: String },
    #[error("bad learner address {url:?}: {error}")]
    Address { url: String, error: Arc<tonic::transport::Error> },
    #[error("TLS settings: {error}")]
    Tls { error: Arc<tonic::transport::Error> },
    #[error("a CA certificate is given but {url} is not https://")]
    CaWithoutHttps { url: String },
    #[error("the token has characters a header cannot carry")]
    TokenCharacters,
    #[error("protocol version mismatch: the learner speaks {learner}, this worker speaks {ours}")]
    Protocol { learner: u32, ours: u32 },
}

/// `error`'s text and its first cause's, as the transport reports a connection's failure.
fn with_causes(error: &tonic::transport::Error) -> String {
    match std::error::Error::source(error) {
        Some(cause) => format!("{error}: {cause}"),
        None => error.to_string(),
    }
}

impl CallError {
    /// A failed call's status: refusals of this worker as such are final, the rest transient.
    fn from_status(what: &'static str, status: &Status) -> CallError {
        match status.code() {
            tonic::Code::Unauthenticated | tonic::Code::PermissionDenied => {
                Refusal::Unauthorized { what, message: status.message().to_string() }.into()
            }
            _ => {
                // A transport error's cause (reset, refused, timed out) is in its sources.
                let mut why = status.message().to_string();
                let mut source = std::error::Error::source(status);
                while let Some(s) = source {
                    why = format!("{why}: {s}");
                    source = s.source();
                }
                Transient::Failed { what, why }.into()
            }
        }
    }
}

/// A downloaded model.
pub struct Downloaded {
    pub version: u64,
    pub model: Model,
    pub sidecar: Sidecar,
}

/// Connects to the learner at `url` (e.g. `http://host:7878`) as `worker` (a name for the
/// learner's logs and metrics; one a header cannot carry is left out).
pub async fn connect(url: &str, token: Option<&str>, worker: &str) -> Result<Client, CallError> {
    connect_tls(url, token, worker, None).await
}

/// [`connect`], over TLS where `url` is `https://`: the learner's certificate must chain to
/// `ca_pem` (a PEM file's bytes) or, without one, to the system's roots.
pub async fn connect_tls(
    url: &str,
    token: Option<&str>,
    worker: &str,
    ca_pem: Option<&[u8]>,
) -> Result<Client, CallError> {
    let mut endpoint = Endpoint::from_shared(url.to_string())
        .map_err(|e| Refusal::Address { url: url.to_string(), error: Arc::new(e) })?
        .connect_timeout(Duration::from_secs(5))
        .tcp_nodelay(true);
    if url.starts_with("https://") {
        let tls = match ca_pem {
            Some(pem) => ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)),
            None => ClientTlsConfig::new().with_native_roots(),
        };
        endpoint = endpoint.tls_config(tls).map_err(|e| Refusal::Tls { error: Arc::new(e) })?;
    } else if ca_pem.is_some() {
        return Err(Refusal::CaWithoutHttps { url: url.to_string() }.into());
    }
    let channel = endpoint.connect().await.map_err(|error| Transient::Unreachable { url: url.to_string(), error })?;
    let header = match token {
        Some(t) => Some(format!("Bearer {t}").parse().map_err(|_| Refusal::TokenCharacters)?),
        None => None,
    };
    let worker = worker.parse().ok();
    Ok(LearnerClient::with_interceptor(channel, Auth { header, worker })
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES))
}

/// The handshake; a protocol mismatch is an error on this side too.
pub async fn hello(client: &mut Client, worker: &str) -> Result<HelloReply, CallError> {
    let reply = client
        .hello(HelloRequest { protocol_version: PROTOCOL_VERSION, worker: worker.to_string() })
        .await
        .map_err(|s| CallError::from_status("the handshake", &s))?
        .into_inner();
    if reply.protocol_version != PROTOCOL_VERSION {
        return Err(Refusal::Protocol { learner: reply.protocol_version, ours: PROTOCOL_VERSION }.into());
    }
    Ok(reply)
}

/// The learner's status; a refusal (no or a wrong token) is final, as for every call.
pub async fn status(client: &mut Client) -> Result<StatusReply, CallError> {
    Ok(client.status(StatusRequest {}).await.map_err(|s| CallError::from_status("Status", &s))?.into_inner())
}

/// Downloads the newest model unless it is `have_version` (then None). Checks size,
/// sha256 and architecture before building the model.
pub async fn fetch_model(
    client: &mut Client,
    have_version: u64,
    device: Device,
) -> Result<Option<Downloaded>, CallError> {
    let mut stream = client
        .get_model(GetModelRequest { version: 0, have_version })
        .await
        .map_err(|s| CallError::from_status("GetModel", &s))?
        .into_inner();
    let mut bytes = Vec::new();
    let mut head: Option<(u64, String, u64, String)> = None;
    while let Some(chunk) = stream.message().await.map_err(|s| CallError::from_status("the model download", &s))? {
        if chunk.up_to_date {
            return Ok(None);
        }
        match &head {
            None => {
                if chunk.total_bytes as usize > 1 << 30 {
                    return Err(Transient::ModelTooLarge { bytes: chunk.total_bytes }.into());
                }
                bytes.reserve(chunk.total_bytes as usize);
                head = Some((chunk.version, chunk.sha256.clone(), chunk.total_bytes, chunk.sidecar_json.clone()));
            }
            Some((v, sha, _, _)) if *v != chunk.version || *sha != chunk.sha256 => {
                return Err(Transient::MixedChunks.into());
            }
            Some(_) => {}
        }
        if chunk.offset as usize != bytes.len() {
            return Err(Transient::ChunkGap { offset: chunk.offset, received: bytes.len() }.into());
        }
        bytes.extend_from_slice(&chunk.data);
    }
    let (version, sha, total, sidecar_json) = head.ok_or(Transient::NoModel)?;
    if bytes.len() as u64 != total {
        return Err(Transient::Truncated { received: bytes.len(), total }.into());
    }
    let actual = sha256_hex(&bytes);
    if actual != sha {
        return Err(Transient::Checksum { version, actual, said: sha }.into());
    }
    let sidecar: Sidecar = serde_json::from_str(&sidecar_json).map_err(|error| Transient::Sidecar { error })?;
    if sidecar.sha256 != sha {
        return Err(Transient::SidecarMismatch.into());
    }
    // Sizes, and input planes the game still encodes this way (a learner of another build).
    sidecar.architecture.validate().map_err(|error| Transient::Unusable { version, error })?;
    let model = checkpoint::model_from_bytes(&sidecar.architecture, &bytes, device)
        .map_err(|error| Transient::Weights { error })?;
    Ok(Some(Downloaded { version, model, sidecar }))
}

/// Games sent in one SubmitGames stream at most (a learner takes 4096 by default; one
/// that takes fewer ends the stream, and the rest go in the next).
pub const SUBMIT_CHUNK: usize = 512;

/// Submits games, in streams of at most [`SUBMIT_CHUNK`]; returns, per game id, how it
/// fared. Games without an ack (a stream broke, or the learner could not store them now)
/// are missing from the result and stay in the caller's spool; an error only when not even
/// the first stream got an ack.
pub async fn submit(client: &mut Client, games: &[GameRecord]) -> Result<Vec<([u8; 16], Delivery)>, CallError> {
    let mut out = Vec::new();
    for chunk in games.chunks(SUBMIT_CHUNK) {
        match submit_stream(client, chunk).await {
            Ok(acks) => {
                let whole = acks.len() == chunk.len();
                out.extend(acks);
                if !whole {
                    break;
                }
            }
            Err(e) if out.is_empty() => return Err(e),
            Err(_) => break,
        }
    }
    Ok(out)
}

/// One SubmitGames stream.
async fn submit_stream(client: &mut Client, games: &[GameRecord]) -> Result<Vec<([u8; 16], Delivery)>, CallError> {
    let messages: Vec<GameSubmission> = games.iter().map(|g| GameSubmission { record: g.encode() }).collect();
    let mut acks = client
        .submit_games(tokio_stream::iter(messages))
        .await
        .map_err(|s| CallError::from_status("SubmitGames", &s))?
        .into_inner();
    let mut out = Vec::new();
    loop {
        match acks.message().await {
            Ok(Some(ack)) => {
                let Some(game) = games.get(ack.index as usize) else { continue };
                let delivery = match AckResult::try_from(ack.result) {
                    Ok(AckResult::Stored) | Ok(AckResult::Duplicate) => Delivery::Delivered,
                    // Unavailable: the learner could not store it now; try again later.
                    _ if ack.code == tonic::Code::Unavailable as u32 => continue,
                    _ => Delivery::Rejected { reason: ack.message },
                };
                out.push((game.game_id, delivery));
            }
            Ok(None) => break,
            Err(s) if out.is_empty() => return Err(CallError::from_status("SubmitGames", &s)),
            Err(_) => break,
        }
    }
    Ok(out)
}
