//! The distributed pipeline on loopback: a learner and workers in this process, talking
//! gRPC, with a tiny network so a run takes seconds.

use crate::common;

use common::{tiny_config, wait_until};
use dojo_arch::precision::PrecisionChoice;
use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_game::GameSpec;
use dojo_learner::server::{start_learner, LearnerError, LearnerHandle, LearnerOptions};
use dojo_net::checkpoint;
use dojo_net::device::{set_threads, Device};
use dojo_record::{random_game_record, GameRecord};
use dojo_run::config::RunConfig;
use dojo_run::dir::RunDir;
use dojo_worker::client::{self, CallError, Delivery, Refusal};
use dojo_worker::run::{run_worker, WorkerOptions, WorkerSummary};
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A run directory inside a fresh temporary one (removed when the guard drops).
fn temp_run(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::Builder::new().prefix(&format!("dojo-pipeline-{name}-")).tempdir().unwrap();
    let run = tmp.path().join("run");
    (tmp, run)
}

fn learner(run: &Path, listen: &str, token: Option<&str>, max_steps: Option<u64>) -> LearnerHandle {
    set_threads(1);
    let options = options(run, &tiny_config(), max_steps, None);
    start_learner(LearnerOptions { listen: listen.parse().unwrap(), token: token.map(String::from), ..options })
        .unwrap()
}

/// A learner's options for `config` on `run` (training at most `max_steps`, a new run
/// starting from the network at `from` where given), on loopback with no token.
fn options(run: &Path, config: &RunConfig, max_steps: Option<u64>, from: Option<&Path>) -> LearnerOptions {
    LearnerOptions {
        http: None,
        run_dir: run.to_path_buf(),
        config: Some(config.clone()),
        listen: "127.0.0.1:0".parse().unwrap(),
        token: None,
        max_steps,
        deadline: None,
        drain: std::time::Duration::from_secs(2),
        device: Device::Cpu,
        tls: None,
        limits: Default::default(),
        start_from: from.map(Path::to_path_buf),
    }
}

fn worker_options(
    addr: std::net::SocketAddr,
    spool: PathBuf,
    token: Option<&str>,
    games: Option<u64>,
    seed: u64,
) -> WorkerOptions {
    WorkerOptions {
        learner: format!("http://{addr}"),
        token: token.map(String::from),
        tls_ca: None,
        spool,
        device: Device::Cpu,
        precision: PrecisionChoice::Auto,
        threads: 1,
        name: format!("test-{seed}"),
        max_games: games,
        parallel_games: Some(4),
        model_poll: Duration::from_millis(200),
        seed: Some(seed),
        grace: Duration::from_secs(5),
        telemetry: Default::default(),
    }
}

fn random_game(rng: &mut Rng) -> GameRecord {
    random_game_record(&Connect4::<u64>::standard(), 1, rng)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

#[test]
fn learner_and_two_workers_train_and_publish_versions() {
    let (_tmp, run) = temp_run("e2e");
    let handle = learner(&run, "127.0.0.1:0", Some("secret"), None);
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..2)
        .map(|i| {
            let opts = worker_options(handle.addr, run.join(format!("spool{i}")), Some("secret"), None, i);
            let stop = stop.clone();
            std::thread::spawn(move || run_worker(opts, stop))
        })
        .collect();
    let shared = handle.shared.clone();
    wait_until("three published versions", Duration::from_secs(240), || shared.newest().version >= 3);
    stop.store(true, Ordering::Relaxed);
    let summaries: Vec<WorkerSummary> = workers.into_iter().map(|w| w.join().unwrap().unwrap()).collect();
    let games = shared.counters.games.load(Ordering::Relaxed);
    let delivered: u64 = summaries.iter().map(|s| s.games_delivered).sum();
    assert!(games > 0 && delivered == games, "learner stored {games}, workers delivered {delivered}");
    assert!(summaries.iter().all(|s| s.games_delivered > 0), "{summaries:?}");
    let version = shared.newest().version;
    handle.stop().unwrap();
    // Every published version on disk loads, and state.json points at a loadable checkpoint.
    let dir = RunDir::new(&run);
    for v in 1..=version {
        let loaded = checkpoint::load(&dir.model_version(v), Device::Cpu, Some(&GameSpec::connect4())).unwrap();
        assert_eq!(loaded.sidecar.version, v);
    }
    let state = dir.read_state().unwrap();
    assert!(state.step > 0);
    checkpoint::load(&dir.resolve(state.model.as_deref().unwrap()), Device::Cpu, None).unwrap();
    let metrics = std::fs::read_to_string(dir.metrics()).unwrap();
    assert!(metrics.lines().count() >= 1 && metrics.contains("\"policy_loss\""), "{metrics}");
}

#[test]
fn duplicates_are_acked_and_stored_once_and_bad_records_are_rejected_with_reasons() {
    let (_tmp, run) = temp_run("ingest");
    let handle = learner(&run, "127.0.0.1:0", None, Some(0));
    let rt = rt();
    let mut rng = Rng::seed_from_u64(11);
    let good: Vec<GameRecord> = (0..3).map(|_| random_game(&mut rng)).collect();
    let mut bad = random_game(&mut rng);
    bad.moves[1].policy = vec![(bad.moves[1].action, 0.25)];
    let mut wrong_game = random_game(&mut rng);
    wrong_game.spec = GameSpec::Connect4 { width: 6, height: 5, blocked: vec![] };
    let batch =
        vec![good[0].clone(), bad.clone(), good[1].clone(), good[0].clone(), wrong_game.clone(), good[2].clone()];
    let acks = rt.block_on(async {
        let mut c = client::connect(&format!("http://{}", handle.addr), None, "test-worker").await.unwrap();
        client::submit(&mut c, &batch).await.unwrap()
    });
    assert_eq!(acks.len(), 6);
    assert_eq!(acks[0], (good[0].game_id, Delivery::Delivered));
    assert!(matches!(&acks[1].1, Delivery::Rejected { reason } if reason.contains("move 2")), "{:?}", acks[1]);
    assert_eq!(acks[3], (good[0].game_id, Delivery::Delivered));
    assert!(
        matches!(&acks[4].1, Delivery::Rejected { reason } if reason.contains("this run plays connect4:7x6")),
        "{:?}",
        acks[4]
    );
    let c = &handle.shared.counters;
    assert_eq!(c.games.load(Ordering::Relaxed), 3);
    assert_eq!(c.duplicates.load(Ordering::Relaxed), 1);
    assert_eq!(c.rejected.load(Ordering::Relaxed), 2);
    handle.stop().unwrap();
    // The log holds exactly the three good games.
    let handle = learner(&run, "127.0.0.1:0", None, Some(0));
    assert_eq!(handle.shared.counters.games.load(Ordering::Relaxed), 3);
    handle.stop().unwrap();
}

#[test]
fn restarted_learner_resumes_its_checkpoint_and_log() {
    let (_tmp, run) = temp_run("resume");
    let rt = rt();
    let mut rng = Rng::seed_from_u64(12);
    let games: Vec<GameRecord> = (0..40).map(|_| random_game(&mut rng)).collect();
    let handle = learner(&run, "127.0.0.1:0", None, Some(12));
    let acks = rt.block_on(async {
        let mut c = client::connect(&format!("http://{}", handle.addr), None, "test-worker").await.unwrap();
        client::submit(&mut c, &games).await.unwrap()
    });
    assert!(acks.iter().all(|a| a.1 == Delivery::Delivered));
    wait_until("12 training steps", Duration::from_secs(120), || handle.trainer_finished());
    let version = handle.shared.newest().version;
    handle.stop().unwrap();
    let state = RunDir::new(&run).read_state().unwrap();
    assert_eq!(state.step, 12);
    // A session bounded by --steps anneals: the 12th step ran at 1 - 0.9 * (11/12 - 0.7) / 0.3
    // = 0.35 of the configured rate.
    let metrics = std::fs::read_to_string(RunDir::new(&run).metrics()).unwrap();
    let last: serde_json::Value = serde_json::from_str(metrics.lines().last().unwrap()).unwrap();
    let lr = last["learning_rate"].as_f64().unwrap();
    assert!((lr - 0.35e-3).abs() < 1e-9, "{last}");

    let handle = learner(&run, "127.0.0.1:0", None, Some(12));
    assert_eq!(handle.shared.counters.games.load(Ordering::Relaxed), 40, "no acked game lost");
    assert_eq!(handle.shared.counters.steps.load(Ordering::Relaxed), 12);
    assert_eq!(handle.shared.newest().version, version);
    assert!(handle.shared.counters.buffer_positions.load(Ordering::Relaxed) > 0);
    // Resubmitting after the restart is still a duplicate.
    let acks = rt.block_on(async {
        let mut c = client::connect(&format!("http://{}", handle.addr), None, "test-worker").await.unwrap();
        client::submit(&mut c, &games[..5]).await.unwrap()
    });
    assert!(acks.iter().all(|a| a.1 == Delivery::Delivered));
    assert_eq!(handle.shared.counters.duplicates.load(Ordering::Relaxed), 5);
    handle.stop().unwrap();
}

/// A learner of `config` on `run` whose new run starts from the network at `from`.
fn learner_from(run: &Path, config: &RunConfig, from: &Path) -> Result<LearnerHandle, LearnerError> {
    set_threads(1);
    start_learner(options(run, config, Some(0), Some(from)))
}

#[test]
fn a_new_run_starts_from_a_given_network_and_refuses_one_that_does_not_fit() {
    // A trained network, from a run of its own.
    let (_tmp, first) = temp_run("start-from");
    let handle = learner(&first, "127.0.0.1:0", None, Some(6));
    let mut rng = Rng::seed_from_u64(14);
    let games: Vec<GameRecord> = (0..40).map(|_| random_game(&mut rng)).collect();
    rt().block_on(async {
        let mut c = client::connect(&format!("http://{}", handle.addr), None, "test-worker").await.unwrap();
        client::submit(&mut c, &games).await.unwrap()
    });
    wait_until("6 training steps", Duration::from_secs(120), || handle.trainer_finished());
    let trained_version = handle.shared.newest().version;
    handle.stop().unwrap();
    let trained = RunDir::new(&first).model_version(trained_version);
    let trained_sidecar = checkpoint::read_sidecar(&trained).unwrap();
    assert!(trained_sidecar.step > 0);

    // A new run's first version is that network, bit for bit, at step 0; the run keeps its
    // own copy, so it resumes with the original gone.
    let run = first.with_file_name("second");
    let handle = learner_from(&run, &tiny_config(), &trained).unwrap();
    assert_eq!(handle.shared.newest().version, 1);
    handle.stop().unwrap();
    let dir = RunDir::new(&run);
    let v1 = checkpoint::read_sidecar(&dir.model_version(1)).unwrap();
    assert_eq!((v1.sha256.as_str(), v1.step), (trained_sidecar.sha256.as_str(), 0));
    // Gating's first best: a later version must beat it to replace it.
    let best = checkpoint::read_sidecar(&dir.best()).unwrap();
    assert_eq!((best.version, best.sha256), (1, v1.sha256.clone()));
    std::fs::remove_dir_all(&first).unwrap();
    let handle = learner(&run, "127.0.0.1:0", None, Some(0));
    assert_eq!(handle.shared.newest().version, 1);
    handle.stop().unwrap();

    // Once it has a version, a run does not start over from another network.
    let again = learner_from(&run, &tiny_config(), &dir.model_version(1)).err().expect("refused");
    let text = again.to_string();
    assert!(text.contains("has trained already (version 1 published)"), "{text}");

    // A network of another shape or game is refused by what differs, before a new run's
    // directory is left behind.
    let other = run.with_file_name("third");
    let mut wider = tiny_config();
    wider.net.channels = 16;
    let text = learner_from(&other, &wider, &dir.model_version(1)).err().expect("refused").to_string();
    assert!(text.contains("channels: the network's 8, the config's 16"), "{text}");
    assert!(!other.exists(), "a refused new run leaves no directory");
    let gomoku = RunConfig { game: GameSpec::gomoku(9), ..tiny_config() };
    let text = learner_from(&other, &gomoku, &dir.model_version(1)).err().expect("refused").to_string();
    assert!(text.contains("gomoku:9") && text.contains("connect4"), "{text}");
    assert!(!other.exists());
}

/// Euclidean distance between two checkpoints' trained weights (batch-norm statistics,
/// which every forward pass in training moves whatever the learning rate, left out).
fn distance(a: &Path, b: &Path) -> f64 {
    let a = checkpoint::load(a, Device::Cpu, None).unwrap().model;
    let b = checkpoint::load(b, Device::Cpu, None).unwrap().model;
    a.weight_distance(&b)
}

#[test]
fn averaged_weights_are_published_and_training_resumes_from_the_trained_ones() {
    let (_tmp, run) = temp_run("average");
    let mut config = tiny_config();
    config.learner.weight_average_steps = 4;
    let start = |max_steps: u64, config: &RunConfig| {
        set_threads(1);
        start_learner(options(&run, config, Some(max_steps), None)).unwrap()
    };
    let mut rng = Rng::seed_from_u64(13);
    let games: Vec<GameRecord> = (0..40).map(|_| random_game(&mut rng)).collect();
    let handle = start(12, &config);
    rt().block_on(async {
        let mut c = client::connect(&format!("http://{}", handle.addr), None, "test-worker").await.unwrap();
        client::submit(&mut c, &games).await.unwrap()
    });
    wait_until("12 training steps", Duration::from_secs(120), || handle.trainer_finished());
    handle.stop().unwrap();
    let dir = RunDir::new(&run);
    let state = dir.read_state().unwrap();
    let published = dir.resolve(state.model.as_deref().unwrap());
    let trained = dir.resolve(state.train_model.as_deref().expect("the trained weights are checkpointed"));
    assert_eq!(trained, dir.train_weights(state.version));
    let lag = distance(&published, &trained);
    assert!(lag > 0.0, "the published version is the average, not the trained weights");

    // One more step after a restart, a step too small to matter, starts from the trained
    // weights, not from the average.
    config.train.learning_rate = 1e-7;
    let handle = start(13, &config);
    wait_until("the 13th step", Duration::from_secs(120), || handle.trainer_finished());
    handle.stop().unwrap();
    let state = dir.read_state().unwrap();
    assert_eq!(state.step, 13);
    let resumed = dir.resolve(state.train_model.as_deref().unwrap());
    let moved = distance(&resumed, &trained);
    assert!(moved < lag / 100.0, "one step moved the trained weights {moved}; the average lags them by {lag}");
}

#[test]
fn worker_keeps_games_through_a_learner_restart() {
    let (_tmp, run) = temp_run("spool");
    // Find a free port, then keep using it across the restart.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let listen = format!("127.0.0.1:{port}");
    let handle = learner(&run, &listen, None, Some(0));
    let addr = handle.addr;
    let stop = Arc::new(AtomicBool::new(false));
    let spool = run.join("worker-spool");
    let opts = worker_options(addr, spool.clone(), None, Some(12), 5);
    let worker = std::thread::spawn(move || run_worker(opts, stop));
    let shared = handle.shared.clone();
    wait_until("the first games", Duration::from_secs(120), || shared.counters.games.load(Ordering::Relaxed) >= 2);
    handle.stop().unwrap();
    // The learner is away: the worker plays on and spools.
    std::thread::sleep(Duration::from_secs(3));
    let handle = learner(&run, &listen, None, Some(0));
    let summary = worker.join().unwrap().unwrap();
    assert_eq!(summary.games_delivered, 12, "{summary:?}");
    assert_eq!(summary.left_in_spool, 0);
    assert_eq!(handle.shared.counters.games.load(Ordering::Relaxed), 12);
    handle.stop().unwrap();
}

#[test]
fn wrong_token_and_wrong_protocol_are_refused() {
    let (_tmp, run) = temp_run("auth");
    let handle = learner(&run, "127.0.0.1:0", Some("right"), Some(0));
    let rt = rt();
    let url = format!("http://{}", handle.addr);
    let err = rt.block_on(async {
        let mut c = client::connect(&url, Some("wrong"), "test-worker").await.unwrap();
        client::hello(&mut c, "t").await.unwrap_err()
    });
    assert!(
        matches!(&err, CallError::Refused(Refusal::Unauthorized { what: "the handshake", message }) if message == "wrong token"),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "the learner refused this worker (the handshake): wrong token");
    let err = rt.block_on(async {
        let mut c = client::connect(&url, None, "test-worker").await.unwrap();
        client::status(&mut c).await.unwrap_err()
    });
    assert!(err.to_string().contains("needs a token"), "{err}");
    let err = rt.block_on(async {
        use dojo_proto::pb::HelloRequest;
        let mut c = client::connect(&url, Some("right"), "test-worker").await.unwrap();
        c.hello(HelloRequest { protocol_version: 999, worker: "old".into() }).await.unwrap_err()
    });
    assert_eq!(err.code(), tonic::Code::FailedPrecondition);
    assert!(err.message().contains("worker old speaks 999, this learner speaks 1"), "{}", err.message());
    handle.stop().unwrap();
}
