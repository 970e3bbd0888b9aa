//! The worker's side of the gRPC contract: handshake, model download, game upload.

use dojo_core::net::checkpoint::{self, Sidecar};
use dojo_core::net::model::Model;
use dojo_core::record::GameRecord;
use dojo_core::util::sha256_hex;
use dojo_proto::pb::game_ack::Result as AckResult;
use dojo_proto::pb::learner_client::LearnerClient;
use dojo_proto::pb::{GameSubmission, GetModelRequest, HelloReply, HelloRequest, StatusReply, StatusRequest};
use dojo_proto::{MAX_MESSAGE_BYTES, PROTOCOL_VERSION};
use std::time::Duration;
use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};
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
    /// Refused for good (the reason says why); resending cannot help.
    Rejected(String),
}

/// A downloaded model.
pub struct Downloaded {
    pub version: u64,
    pub model: Model,
    pub sidecar: Sidecar,
}

/// Connects to the learner at `url` (e.g. `http://host:7878`) as `worker` (a name for the
/// learner's logs and metrics; one a header cannot carry is left out).
pub async fn connect(url: &str, token: Option<&str>, worker: &str) -> Result<Client, String> {
    let endpoint = Endpoint::from_shared(url.to_string())
        .map_err(|e| format!("bad learner address {url:?}: {e}"))?
        .connect_timeout(Duration::from_secs(5))
        .tcp_nodelay(true);
    let channel = endpoint.connect().await.map_err(|e| format!("cannot reach the learner at {url}: {e}"))?;
    let header = match token {
        Some(t) => Some(
            format!("Bearer {t}").parse().map_err(|_| "the token has characters a header cannot carry".to_string())?,
        ),
        None => None,
    };
    let worker = worker.parse().ok();
    Ok(LearnerClient::with_interceptor(channel, Auth { header, worker })
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES))
}

/// The handshake; a protocol mismatch is an error on this side too.
pub async fn hello(client: &mut Client, worker: &str) -> Result<HelloReply, String> {
    let reply = client
        .hello(HelloRequest { protocol_version: PROTOCOL_VERSION, worker: worker.to_string() })
        .await
        .map_err(|s| format!("learner refused the handshake: {}", s.message()))?
        .into_inner();
    if reply.protocol_version != PROTOCOL_VERSION {
        return Err(format!(
            "protocol version mismatch: the learner speaks {}, this worker speaks {PROTOCOL_VERSION}",
            reply.protocol_version
        ));
    }
    Ok(reply)
}

pub async fn status(client: &mut Client) -> Result<StatusReply, String> {
    Ok(client.status(StatusRequest {}).await.map_err(|s| s.message().to_string())?.into_inner())
}

/// Downloads the newest model unless it is `have_version` (then None). Checks size,
/// sha256 and architecture before building the model.
pub async fn fetch_model(
    client: &mut Client,
    have_version: u64,
    device: tch::Device,
) -> Result<Option<Downloaded>, String> {
    let mut stream = client
        .get_model(GetModelRequest { version: 0, have_version })
        .await
        .map_err(|s| format!("GetModel failed: {}", s.message()))?
        .into_inner();
    let mut bytes = Vec::new();
    let mut head: Option<(u64, String, u64, String)> = None;
    while let Some(chunk) = stream.message().await.map_err(|s| format!("model download failed: {}", s.message()))? {
        if chunk.up_to_date {
            return Ok(None);
        }
        match &head {
            None => {
                if chunk.total_bytes as usize > 1 << 30 {
                    return Err(format!("the learner offers a {} byte model; refusing", chunk.total_bytes));
                }
                bytes.reserve(chunk.total_bytes as usize);
                head = Some((chunk.version, chunk.sha256.clone(), chunk.total_bytes, chunk.sidecar_json.clone()));
            }
            Some((v, sha, _, _)) if *v != chunk.version || *sha != chunk.sha256 => {
                return Err("model chunks of different versions in one download".into());
            }
            Some(_) => {}
        }
        if chunk.offset as usize != bytes.len() {
            return Err(format!("model chunk at offset {} but {} bytes received", chunk.offset, bytes.len()));
        }
        bytes.extend_from_slice(&chunk.data);
    }
    let (version, sha, total, sidecar_json) = head.ok_or("the learner sent no model")?;
    if bytes.len() as u64 != total {
        return Err(format!("model download truncated: {} of {total} bytes", bytes.len()));
    }
    let actual = sha256_hex(&bytes);
    if actual != sha {
        return Err(format!("model v{version} sha256 is {actual}, the learner said {sha}"));
    }
    let sidecar: Sidecar = serde_json::from_str(&sidecar_json).map_err(|e| format!("bad model sidecar: {e}"))?;
    if sidecar.sha256 != sha {
        return Err("model sidecar and weights disagree".into());
    }
    // Sizes, and input planes the game still encodes this way (a learner of another build).
    sidecar.architecture.validate().map_err(|e| format!("model v{version} cannot be used: {e}"))?;
    let model = checkpoint::model_from_bytes(&sidecar.architecture, &bytes, device).map_err(|e| e.to_string())?;
    Ok(Some(Downloaded { version, model, sidecar }))
}

/// Submits games; returns, per game id, how it fared. Games without an ack (the stream
/// broke) are missing from the result and stay in the caller's spool.
pub async fn submit(client: &mut Client, games: &[GameRecord]) -> Result<Vec<([u8; 16], Delivery)>, String> {
    let messages: Vec<GameSubmission> = games.iter().map(|g| GameSubmission { record: g.encode() }).collect();
    let mut acks = client
        .submit_games(tokio_stream::iter(messages))
        .await
        .map_err(|s| format!("SubmitGames failed: {}", s.message()))?
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
                    _ => Delivery::Rejected(ack.message),
                };
                out.push((game.game_id, delivery));
            }
            Ok(None) => break,
            Err(s) if out.is_empty() => return Err(format!("SubmitGames failed: {}", s.message())),
            Err(_) => break,
        }
    }
    Ok(out)
}
