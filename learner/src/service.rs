//! The gRPC `Learner` service: handshake, model streaming, game ingestion, status.

use crate::gamelog::Appended;
use crate::ingest::check_record;
use crate::learner::{read_published, Published, Shared};
use crate::telemetry::Ingest;
use dojo_proto::pb::game_ack::Result as AckResult;
use dojo_proto::pb::learner_server::Learner;
use dojo_proto::pb::{
    GameAck, GameSubmission, GetModelRequest, HelloReply, HelloRequest, ModelChunk, StatusReply, StatusRequest,
};
use dojo_proto::{MODEL_CHUNK_BYTES, PROTOCOL_VERSION, WORKER_HEADER};
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use subtle::ConstantTimeEq;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status, Streaming};

pub struct LearnerService {
    pub shared: Arc<Shared>,
}

/// Refuses calls without the run's token (when it has one).
pub fn check_token(token: Option<String>) -> impl FnMut(Request<()>) -> Result<Request<()>, Status> + Clone {
    move |req: Request<()>| {
        let Some(token) = &token else { return Ok(req) };
        let given = req.metadata().get("authorization").and_then(|v| v.to_str().ok());
        match given.and_then(|v| v.strip_prefix("Bearer ")) {
            // In constant time: how long a wrong guess takes says nothing of the token.
            Some(t) if bool::from(t.as_bytes().ct_eq(token.as_bytes())) => Ok(req),
            Some(_) => Err(Status::unauthenticated("wrong token")),
            None => Err(Status::unauthenticated("this learner needs a token: authorization: Bearer <token>")),
        }
    }
}

type Chunks = Pin<Box<dyn Stream<Item = Result<ModelChunk, Status>> + Send>>;
type Acks = Pin<Box<dyn Stream<Item = Result<GameAck, Status>> + Send>>;

fn chunks_of(model: &Published) -> Vec<Result<ModelChunk, Status>> {
    let total = model.weights.len();
    let mut out = Vec::with_capacity(total / MODEL_CHUNK_BYTES + 1);
    let mut offset = 0;
    while offset < total || offset == 0 {
        let end = (offset + MODEL_CHUNK_BYTES).min(total);
        out.push(Ok(ModelChunk {
            version: model.version,
            sha256: model.sha256.clone(),
            total_bytes: total as u64,
            offset: offset as u64,
            data: model.weights[offset..end].to_vec(),
            sidecar_json: if offset == 0 { model.sidecar_json.clone() } else { String::new() },
            up_to_date: false,
        }));
        if end == total {
            break;
        }
        offset = end;
    }
    out
}

#[tonic::async_trait]
impl Learner for LearnerService {
    async fn hello(&self, request: Request<HelloRequest>) -> Result<Response<HelloReply>, Status> {
        let req = request.into_inner();
        self.shared.telemetry.seen(&req.worker);
        if req.protocol_version != PROTOCOL_VERSION {
            return Err(Status::failed_precondition(format!(
                "protocol version mismatch: worker {} speaks {}, this learner speaks {PROTOCOL_VERSION}",
                req.worker, req.protocol_version
            )));
        }
        let s = &self.shared;
        Ok(Response::new(HelloReply {
            protocol_version: PROTOCOL_VERSION,
            run_id: s.run_id.clone(),
            game: s.config.game.to_string(),
            newest_version: s.newest().version,
            search_json: serde_json::to_string(&s.config.search).expect("config serialises"),
            selfplay_json: serde_json::to_string(&s.config.selfplay).expect("config serialises"),
        }))
    }

    type GetModelStream = Chunks;

    async fn get_model(&self, request: Request<GetModelRequest>) -> Result<Response<Chunks>, Status> {
        let req = request.into_inner();
        let newest = self.shared.newest();
        let model = if req.version == 0 || req.version == newest.version {
            newest
        } else {
            let run = self.shared.run_dir.clone();
            let v = req.version;
            let loaded = tokio::task::spawn_blocking(move || read_published(&run, v))
                .await
                .map_err(|e| Status::internal(e.to_string()))?;
            Arc::new(loaded.map_err(|e| Status::not_found(format!("model version {v}: {e}")))?)
        };
        if req.have_version == model.version {
            let chunk = ModelChunk {
                version: model.version,
                sha256: model.sha256.clone(),
                up_to_date: true,
                ..Default::default()
            };
            return Ok(Response::new(Box::pin(tokio_stream::iter(vec![Ok(chunk)]))));
        }
        Ok(Response::new(Box::pin(tokio_stream::iter(chunks_of(&model)))))
    }

    type SubmitGamesStream = Acks;

    async fn submit_games(&self, request: Request<Streaming<GameSubmission>>) -> Result<Response<Acks>, Status> {
        // Workers name themselves in a header (older clients do not: counted, unnamed).
        let worker = request.metadata().get(WORKER_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
        let mut incoming = request.into_inner();
        let shared = self.shared.clone();
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        tokio::spawn(async move {
            let mut index = 0u64;
            loop {
                let msg = match incoming.message().await {
                    Ok(Some(m)) => m,
                    Ok(None) => break,
                    Err(status) => {
                        let _ = tx.send(Err(status)).await;
                        break;
                    }
                };
                let arrived = std::time::Instant::now();
                let shared = shared.clone();
                let spec = shared.config.game.clone();
                let worker = worker.clone();
                // Validation replays the game and storing fsyncs: both block.
                let ack = tokio::task::spawn_blocking(move || {
                    let counted = |outcome, version| {
                        shared.telemetry.ingested(outcome, arrived.elapsed(), worker.as_deref(), version)
                    };
                    match check_record(&msg.record, &spec) {
                        Err(rejection) => {
                            shared.counters.rejected.fetch_add(1, Ordering::Relaxed);
                            counted(Ingest::Rejected, None);
                            GameAck {
                                game_id: rejection.game_id.map(|id| id.to_vec()).unwrap_or_default(),
                                result: AckResult::Rejected as i32,
                                code: tonic::Code::InvalidArgument as u32,
                                message: rejection.reason,
                                index: 0,
                            }
                        }
                        Ok(record) => {
                            let (id, version) = (record.game_id.to_vec(), Some(record.model_version));
                            match shared.store(record) {
                                Ok(Appended::Stored) => {
                                    counted(Ingest::Stored, version);
                                    GameAck { game_id: id, result: AckResult::Stored as i32, ..Default::default() }
                                }
                                Ok(Appended::Duplicate) => {
                                    counted(Ingest::Duplicate, version);
                                    GameAck { game_id: id, result: AckResult::Duplicate as i32, ..Default::default() }
                                }
                                Err(e) => {
                                    counted(Ingest::Rejected, version);
                                    GameAck {
                                        game_id: id,
                                        result: AckResult::Rejected as i32,
                                        code: tonic::Code::Unavailable as u32,
                                        message: e,
                                        index: 0,
                                    }
                                }
                            }
                        }
                    }
                })
                .await;
                let ack = match ack {
                    Ok(a) => GameAck { index, ..a },
                    Err(e) => {
                        let _ = tx.send(Err(Status::internal(e.to_string()))).await;
                        break;
                    }
                };
                index += 1;
                if tx.send(Ok(ack)).await.is_err() {
                    break;
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn status(&self, _request: Request<StatusRequest>) -> Result<Response<StatusReply>, Status> {
        let s = &self.shared;
        let c = &s.counters;
        Ok(Response::new(StatusReply {
            run_id: s.run_id.clone(),
            game: s.config.game.to_string(),
            newest_version: s.newest().version,
            games: c.games.load(Ordering::Relaxed),
            positions: c.positions.load(Ordering::Relaxed),
            train_steps: c.steps.load(Ordering::Relaxed),
            buffer_positions: c.buffer_positions.load(Ordering::Relaxed),
            rejected: c.rejected.load(Ordering::Relaxed),
            duplicates: c.duplicates.load(Ordering::Relaxed),
            protocol_version: PROTOCOL_VERSION,
        }))
    }
}
