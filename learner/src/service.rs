//! The gRPC `Learner` service: handshake, model streaming, game ingestion, status.
//!
//! An upload stream is read by one task and answered by another: the reader validates each
//! game and queues it for the committer (group commit, [`crate::committer`]) up to a window
//! ahead, the answerer sends the acks in order as their fsyncs complete. Every bound of
//! [`IngestLimits`] is enforced here: turns for streams, the bounded queue in bytes, games
//! per stream, idle and stream deadlines.

use crate::committer::{self, CommitQueue, StoreError};
use crate::gamelog::Appended;
use crate::ingest::{check_record, IngestLimits};
use crate::learner::{read_published, Published, Shared};
use crate::telemetry::Ingest;
use dojo_proto::pb::game_ack::Result as AckResult;
use dojo_proto::pb::learner_server::Learner;
use dojo_proto::pb::{
    GameAck, GameSubmission, GetModelRequest, HelloReply, HelloRequest, ModelChunk, StatusReply, StatusRequest,
};
use dojo_proto::{MODEL_CHUNK_BYTES, PROTOCOL_VERSION, WORKER_HEADER};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use subtle::ConstantTimeEq;
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Request, Response, Status, Streaming};

pub struct LearnerService {
    shared: Arc<Shared>,
    limits: IngestLimits,
    /// Turns for upload streams (`limits.max_streams`).
    streams: Arc<Semaphore>,
    /// The bounded ingest queue, in encoded bytes of games read and not yet acknowledged.
    queue_bytes: Arc<Semaphore>,
    commits: CommitQueue,
}

impl LearnerService {
    /// The service, with its group-commit task started on the current tokio runtime.
    pub fn new(shared: Arc<Shared>, limits: IngestLimits) -> LearnerService {
        let commits = committer::spawn(shared.clone(), limits.max_batch, limits.max_batch * 2);
        LearnerService {
            streams: Arc::new(Semaphore::new(limits.max_streams)),
            queue_bytes: Arc::new(Semaphore::new(limits.queue_bytes)),
            shared,
            limits,
            commits,
        }
    }
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

/// The chunks of a model, made one at a time as the client takes them: a thousand workers
/// fetching a model hold one shared copy of it plus a chunk each, not a copy each.
fn chunks_of(model: Arc<Published>) -> impl Iterator<Item = Result<ModelChunk, Status>> + Send {
    let total = model.weights.len();
    // An empty model is still one (empty) chunk, which carries the sidecar.
    let count = total.div_ceil(MODEL_CHUNK_BYTES).max(1);
    (0..count).map(move |i| {
        let offset = i * MODEL_CHUNK_BYTES;
        let end = (offset + MODEL_CHUNK_BYTES).min(total);
        Ok(ModelChunk {
            version: model.version,
            sha256: model.sha256.clone(),
            total_bytes: total as u64,
            offset: offset as u64,
            data: model.weights[offset..end].to_vec(),
            sidecar_json: if i == 0 { model.sidecar_json.clone() } else { String::new() },
            up_to_date: false,
        })
    })
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
            // tidy: text cause: a gRPC status carries its message as text.
            let loaded = tokio::task::spawn_blocking(move || read_published(&run, v))
                .await
                .map_err(|e| Status::internal(e.to_string()))?;
            // tidy: text cause: as above.
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
        Ok(Response::new(Box::pin(tokio_stream::iter(chunks_of(model)))))
    }

    type SubmitGamesStream = Acks;

    async fn submit_games(&self, request: Request<Streaming<GameSubmission>>) -> Result<Response<Acks>, Status> {
        // Workers name themselves in a header (older clients do not: counted, unnamed).
        let worker = request.metadata().get(WORKER_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
        // A turn among the streams served at once. Waiting here reads nothing, so a
        // waiting client holds at most HTTP/2's window of data; the server's request
        // timeout bounds the wait.
        let turn =
            self.streams.clone().acquire_owned().await.map_err(|_| Status::unavailable("the learner is stopping"))?;
        let upload = Upload {
            shared: self.shared.clone(),
            limits: self.limits.clone(),
            queue_bytes: self.queue_bytes.clone(),
            commits: self.commits.clone(),
            worker,
        };
        let (acks_tx, acks_rx) = mpsc::channel(self.limits.stream_window);
        let (pending_tx, pending_rx) = mpsc::channel(self.limits.stream_window);
        let idle = self.limits.idle_timeout;
        tokio::spawn(upload.read(request.into_inner(), pending_tx, turn));
        tokio::spawn(send_acks(pending_rx, acks_tx, idle));
        Ok(Response::new(Box::pin(ReceiverStream::new(acks_rx))))
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

/// What an upload stream has read and will answer, in order.
type Pending = Pin<Box<dyn Future<Output = Result<GameAck, Status>> + Send>>;

/// One SubmitGames stream being read.
struct Upload {
    shared: Arc<Shared>,
    limits: IngestLimits,
    queue_bytes: Arc<Semaphore>,
    commits: CommitQueue,
    worker: Option<String>,
}

impl Upload {
    /// Reads the stream's games, validates each and queues it for the committer, up to
    /// `stream_window` ahead of the acks; ends the stream (after the acks of what it read)
    /// on the client's end, an error, the idle timeout, the stream deadline or too many games.
    async fn read(
        self,
        mut incoming: Streaming<GameSubmission>,
        pending: mpsc::Sender<Pending>,
        _turn: OwnedSemaphorePermit,
    ) {
        let limits = &self.limits;
        let ends = tokio::time::Instant::now() + limits.stream_deadline;
        let end = |status: Status| -> Pending { Box::pin(std::future::ready(Err(status))) };
        let mut index = 0u64;
        loop {
            if index == limits.max_games_per_stream {
                let status = Status::resource_exhausted(format!(
                    "a stream may carry at most {} games; send the rest in another",
                    limits.max_games_per_stream
                ));
                let _ = pending.send(end(status)).await;
                break;
            }
            let wait = ends.min(tokio::time::Instant::now() + limits.idle_timeout);
            let msg = match tokio::time::timeout_at(wait, incoming.message()).await {
                Ok(Ok(Some(m))) => m,
                Ok(Ok(None)) => break,
                Ok(Err(status)) => {
                    let _ = pending.send(end(status)).await;
                    break;
                }
                Err(_) => {
                    let why = if wait == ends {
                        format!(
                            "this stream has lasted {} s, the most one may; send the rest in another",
                            limits.stream_deadline.as_secs()
                        )
                    } else {
                        format!("no game for {} s; the stream is closed", limits.idle_timeout.as_secs())
                    };
                    let _ = pending.send(end(Status::deadline_exceeded(why))).await;
                    break;
                }
            };
            let arrived = std::time::Instant::now();
            // The bounded ingest queue: wait (reading nothing more) until this game fits.
            let weight = msg.record.len().clamp(1, limits.queue_bytes) as u32;
            let Ok(room) = self.queue_bytes.clone().acquire_many_owned(weight).await else { break };
            let ack = self.take(msg, index, arrived, room).await;
            if let Err(mpsc::error::SendError(ack)) = pending.send(ack).await {
                // The acks' side has ended the stream; this game may be queued to be stored
                // all the same, so it is seen through (and counted), answered to no one.
                let _ = ack.await;
                break;
            }
            index += 1;
        }
    }

    /// Validates one game (a replay, so on the blocking pool) and queues it to be stored;
    /// the returned future is its ack.
    async fn take(
        &self,
        msg: GameSubmission,
        index: u64,
        arrived: std::time::Instant,
        room: OwnedSemaphorePermit,
    ) -> Pending {
        let spec = self.shared.config.game.clone();
        let checked = tokio::task::spawn_blocking(move || check_record(&msg.record, &spec)).await;
        let shared = self.shared.clone();
        let worker = self.worker.clone();
        let counted =
            move |outcome, version| shared.telemetry.ingested(outcome, arrived.elapsed(), worker.as_deref(), version);
        let record = match checked {
            Err(e) => return Box::pin(std::future::ready(Err(Status::internal(e.to_string())))),
            Ok(Err(rejection)) => {
                drop(room);
                self.shared.counters.rejected.fetch_add(1, Ordering::Relaxed);
                counted(Ingest::Rejected, None);
                return Box::pin(std::future::ready(Ok(GameAck {
                    game_id: rejection.game_id.map(|id| id.to_vec()).unwrap_or_default(),
                    result: AckResult::Rejected as i32,
                    code: tonic::Code::InvalidArgument as u32,
                    message: rejection.reason,
                    index,
                })));
            }
            Ok(Ok(record)) => record,
        };
        let (id, version) = (record.game_id.to_vec(), Some(record.model_version));
        let outcome = self.commits.submit(record, Some(room)).await;
        Box::pin(async move {
            let outcome = outcome.await.unwrap_or(Err(StoreError::Stopping));
            let (result, code, message) = match outcome {
                Ok(Appended::Stored) => {
                    counted(Ingest::Stored, version);
                    (AckResult::Stored, 0, String::new())
                }
                Ok(Appended::Duplicate) => {
                    counted(Ingest::Duplicate, version);
                    (AckResult::Duplicate, 0, String::new())
                }
                Err(e) => {
                    counted(Ingest::Unstored, version);
                    (AckResult::Rejected, tonic::Code::Unavailable as u32, e.to_string())
                }
            };
            Ok(GameAck { game_id: id, result: result as i32, code, message, index })
        })
    }
}

/// Sends a stream's acks in order. A game the learner could not store (its disk) is
/// answered UNAVAILABLE and ends the stream, so the client keeps its games and backs off;
/// so does a client that does not take its acks within `idle`.
async fn send_acks(mut pending: mpsc::Receiver<Pending>, acks: mpsc::Sender<Result<GameAck, Status>>, idle: Duration) {
    while let Some(next) = pending.recv().await {
        let ack = next.await;
        let unstored = match &ack {
            Ok(a) if a.code == tonic::Code::Unavailable as u32 => Some(a.message.clone()),
            _ => None,
        };
        let failed = ack.is_err();
        match tokio::time::timeout(idle, acks.send(ack)).await {
            Ok(Ok(())) => {}
            // The client hung up, or takes no acks: drop what is left (unacknowledged games
            // stay in the client's spool).
            _ => break,
        }
        if let Some(why) = unstored {
            let _ = tokio::time::timeout(idle, acks.send(Err(Status::unavailable(why)))).await;
            break;
        }
        if failed {
            break;
        }
    }
    // The reader stops at its next game; what it already queued still finishes (some of it
    // may be stored, unacknowledged, and is counted), answered to no one.
    pending.close();
    while let Some(next) = pending.recv().await {
        let _ = next.await;
    }
}
