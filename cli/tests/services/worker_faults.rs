//! A worker given a bad model: a learner (a fake one, serving over real gRPC) publishes v1,
//! then offers a "v2" whose bytes do not match its sha256. The worker must refuse v2, keep
//! playing and delivering with v1, and ask again later.

use crate::common;

use common::tiny_config;
use dojo_arch::architecture::Architecture;
use dojo_arch::precision::PrecisionChoice;
use dojo_base::util::sha256_hex;
use dojo_game::connect4::Connect4;
use dojo_net::checkpoint::{self, Sidecar, FORMAT};
use dojo_net::device::Device;
use dojo_net::model::Model;
use dojo_proto::pb::game_ack::Result as AckResult;
use dojo_proto::pb::learner_server::{Learner, LearnerServer};
use dojo_proto::pb::{
    GameAck, GameSubmission, GetModelRequest, HelloReply, HelloRequest, ModelChunk, StatusReply, StatusRequest,
};
use dojo_proto::PROTOCOL_VERSION;
use dojo_record::GameRecord;
use dojo_worker::run::{run_worker, WorkerOptions};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

struct BadV2 {
    weights: Vec<u8>,
    sidecar: Sidecar,
    /// Times the worker asked for something newer than v1 (and got the bad v2).
    asked_for_v2: AtomicU64,
    /// Games acknowledged.
    stored: AtomicU64,
}

type Stream_<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

#[tonic::async_trait]
impl Learner for BadV2 {
    async fn hello(&self, _: Request<HelloRequest>) -> Result<Response<HelloReply>, Status> {
        let c = tiny_config();
        Ok(Response::new(HelloReply {
            protocol_version: PROTOCOL_VERSION,
            run_id: "fake".into(),
            game: c.game.to_string(),
            newest_version: 2,
            search_json: serde_json::to_string(&c.search).unwrap(),
            selfplay_json: serde_json::to_string(&c.selfplay).unwrap(),
        }))
    }

    type GetModelStream = Stream_<ModelChunk>;

    async fn get_model(&self, request: Request<GetModelRequest>) -> Result<Response<Self::GetModelStream>, Status> {
        let have = request.into_inner().have_version;
        let mut sidecar = self.sidecar.clone();
        let chunk = if have == 0 {
            sidecar.version = 1;
            ModelChunk { version: 1, sha256: sidecar.sha256.clone(), ..Default::default() }
        } else {
            // v2 claims a digest its bytes do not have.
            self.asked_for_v2.fetch_add(1, Ordering::Relaxed);
            sidecar.version = 2;
            ModelChunk { version: 2, sha256: "00".repeat(32), ..Default::default() }
        };
        let chunk = ModelChunk {
            total_bytes: self.weights.len() as u64,
            data: self.weights.clone(),
            sidecar_json: serde_json::to_string(&sidecar).unwrap(),
            ..chunk
        };
        Ok(Response::new(Box::pin(tokio_stream::iter(vec![Ok(chunk)]))))
    }

    type SubmitGamesStream = Stream_<GameAck>;

    async fn submit_games(
        &self,
        request: Request<Streaming<GameSubmission>>,
    ) -> Result<Response<Self::SubmitGamesStream>, Status> {
        let mut incoming = request.into_inner();
        let mut acks = Vec::new();
        while let Some(sub) = incoming.next().await {
            let record = GameRecord::decode(&sub?.record).map_err(|e| Status::invalid_argument(e.to_string()))?;
            assert_eq!(record.model_version, 1, "games are played by v1, the only good model");
            self.stored.fetch_add(1, Ordering::Relaxed);
            acks.push(Ok(GameAck {
                game_id: record.game_id.to_vec(),
                result: AckResult::Stored as i32,
                index: acks.len() as u64,
                ..Default::default()
            }));
        }
        Ok(Response::new(Box::pin(tokio_stream::iter(acks))))
    }

    async fn status(&self, _: Request<StatusRequest>) -> Result<Response<StatusReply>, Status> {
        Ok(Response::new(StatusReply::default()))
    }
}

#[test]
fn a_worker_refuses_a_model_that_fails_its_checksum_and_keeps_playing_with_its_own() {
    let arch = Architecture::for_game(&Connect4::<u64>::standard(), 1, 8);
    let weights = checkpoint::weights_bytes(&Model::new(arch.clone(), Device::Cpu)).unwrap();
    let sidecar = Sidecar {
        format: FORMAT.into(),
        architecture: arch,
        step: 0,
        version: 1,
        parent: None,
        sha256: sha256_hex(&weights),
        created_unix_ms: 0,
    };
    let fake = Arc::new(BadV2 { weights, sidecar, asked_for_v2: AtomicU64::new(0), stored: AtomicU64::new(0) });
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let service = LearnerServer::from_arc(fake.clone());
    rt.spawn(
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );

    let spool = tempfile::tempdir().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let worker_stop = stop.clone();
    let spool_path = spool.path().to_path_buf();
    let worker = std::thread::spawn(move || {
        run_worker(
            WorkerOptions {
                learner: format!("http://{addr}"),
                token: None,
                tls_ca: None,
                spool: spool_path,
                device: Device::Cpu,
                precision: PrecisionChoice::Auto,
                threads: 1,
                name: "w".into(),
                max_games: None,
                parallel_games: Some(2),
                model_poll: Duration::from_millis(100),
                seed: Some(3),
                grace: Duration::from_secs(5),
                telemetry: Default::default(),
            },
            worker_stop,
        )
    });
    // Until it has been offered the bad v2 three times and kept delivering games.
    let began = std::time::Instant::now();
    while fake.asked_for_v2.load(Ordering::Relaxed) < 3 || fake.stored.load(Ordering::Relaxed) < 8 {
        assert!(began.elapsed() < Duration::from_secs(90), "the worker stalled");
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    let summary = worker.join().unwrap().unwrap();
    assert_eq!(summary.models_used, [1], "v2 was never used");
    assert!(summary.games_delivered >= 8 && summary.left_in_spool == 0, "{summary:?}");
}
