//! The learner's ingest limits (issue 21): games per stream, turns for streams, the idle
//! deadline that frees a stuck client's turn, and limits that make no sense are refused.

use crate::common;

use common::{random_games, tiny_config};
use dojo_learner::ingest::IngestLimits;
use dojo_learner::server::{start_learner, LearnerError, LearnerHandle, LearnerOptions};
use dojo_net::device::Device;
use dojo_proto::pb::GameSubmission;
use dojo_worker::client::{self, Delivery};
use std::time::{Duration, Instant};

fn learner(dir: &std::path::Path, limits: IngestLimits) -> Result<LearnerHandle, LearnerError> {
    let mut config = tiny_config();
    config.learner.min_positions = 1_000_000;
    start_learner(LearnerOptions {
        run_dir: dir.join("run"),
        config: Some(config),
        listen: "127.0.0.1:0".parse().unwrap(),
        token: None,
        http: None,
        max_steps: None,
        deadline: None,
        drain: Duration::from_secs(1),
        device: Device::Cpu,
        tls: None,
        limits,
        start_from: None,
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

#[test]
fn a_stream_carries_at_most_its_limit_and_the_worker_sends_the_rest_in_another() {
    let tmp = tempfile::tempdir().unwrap();
    let handle = learner(tmp.path(), IngestLimits { max_games_per_stream: 3, ..IngestLimits::default() }).unwrap();
    let url = format!("http://{}", handle.addr);
    let five = random_games(5, 1);
    let rt = runtime();
    rt.block_on(async {
        let mut c = client::connect(&url, None, "limits").await.unwrap();
        // One raw stream of five: three acks, then the stream ends saying why.
        let messages: Vec<GameSubmission> = five.iter().map(|g| GameSubmission { record: g.encode() }).collect();
        let mut acks = c.submit_games(tokio_stream::iter(messages)).await.unwrap().into_inner();
        let mut acked = 0;
        let status = loop {
            match acks.message().await {
                Ok(Some(_)) => acked += 1,
                Ok(None) => panic!("the stream ended without an error after {acked} acks"),
                Err(status) => break status,
            }
        };
        assert_eq!(acked, 3);
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        assert_eq!(status.message(), "a stream may carry at most 3 games; send the rest in another");
        // The worker's client: what one stream did not take goes in the next call.
        let first = client::submit(&mut c, &five).await.unwrap();
        assert_eq!(first.len(), 3, "three per stream");
        let rest = client::submit(&mut c, &five[3..]).await.unwrap();
        assert!(rest.iter().all(|a| a.1 == Delivery::Delivered) && rest.len() == 2);
    });
    assert_eq!(handle.shared.log.lock().unwrap().len(), 5);
    handle.stop().unwrap();
}

#[test]
fn silent_streams_lose_their_turn_after_the_idle_deadline_and_others_are_served() {
    let tmp = tempfile::tempdir().unwrap();
    let limits = IngestLimits { max_streams: 2, idle_timeout: Duration::from_secs(2), ..IngestLimits::default() };
    let handle = learner(tmp.path(), limits).unwrap();
    let url = format!("http://{}", handle.addr);
    let rt = runtime();
    rt.block_on(async {
        // Two clients take both turns and send nothing.
        let mut silent = Vec::new();
        for i in 0..2 {
            let mut c = client::connect(&url, None, &format!("silent-{i}")).await.unwrap();
            let acks = c.submit_games(tokio_stream::pending::<GameSubmission>()).await.unwrap().into_inner();
            silent.push((c, acks));
        }
        // A third client waits for a turn, which comes when a silent stream times out.
        let began = Instant::now();
        let mut c = client::connect(&url, None, "polite").await.unwrap();
        let acks = client::submit(&mut c, &random_games(1, 2)).await.unwrap();
        assert_eq!(acks.len(), 1);
        assert_eq!(acks[0].1, Delivery::Delivered);
        let waited = began.elapsed();
        for (_, mut acks) in silent {
            let status = acks.message().await.unwrap_err();
            assert_eq!(status.code(), tonic::Code::DeadlineExceeded);
            assert_eq!(status.message(), "no game for 2 s; the stream is closed");
        }
        assert!(waited >= Duration::from_secs(1), "the polite client had to wait for a turn ({waited:?})");
    });
    handle.stop().unwrap();
}

#[test]
fn limits_that_would_stop_every_upload_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let err =
        learner(tmp.path(), IngestLimits { max_streams: 0, ..IngestLimits::default() }).err().unwrap().to_string();
    assert_eq!(err, "ingest limit max_streams must be at least 1");
    let err =
        learner(tmp.path(), IngestLimits { queue_bytes: 1000, ..IngestLimits::default() }).err().unwrap().to_string();
    assert_eq!(err, "ingest limit queue_bytes is 1000; it must hold the largest record, 4194304 bytes");
}
