//! A cluster's processes as Kubernetes or compose run them, without containers: a learner
//! and a worker with their token from a file, their probes (HTTP `/healthz` and `/readyz`,
//! the standard gRPC health service through `dojo health`), the worker's Prometheus page,
//! and SIGTERM: each exits 0, the worker with its spool delivered, and a restarted learner
//! holds every game it acknowledged. (scripts/cluster-test does the same with the image on
//! the Docker engine.)

use crate::common;

use common::{dojo, get, path, tiny_config, value, wait_for, Proc};
use std::time::Duration;

/// A learner on loopback: the process, its gRPC address and its HTTP address.
fn learner(run: &str, config: &str, token: &str) -> (Proc, String, String) {
    let mut p = Proc::spawn(&[
        "learner",
        "--run-dir",
        run,
        "--config",
        config,
        "--token-file",
        token,
        "--listen",
        "127.0.0.1:0",
        "--http",
        "127.0.0.1:0",
        "--grace-period",
        "5",
    ]);
    let grpc = p.learner_addr();
    let http = p.after("dashboard: http://").trim_end_matches('/').to_string();
    (p, grpc, http)
}

#[test]
fn learner_and_worker_answer_their_probes_and_stop_cleanly_on_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("tiny.toml");
    std::fs::write(&config, tiny_config().to_toml()).unwrap();
    let token = tmp.path().join("token");
    std::fs::write(&token, "s3cret\n").unwrap();
    let run = tmp.path().join("run");
    let (run, config, token) = (path(&run), path(&config), path(&token));

    let (mut learner_proc, grpc, http) = learner(run, config, token);
    assert_eq!(get(&http, "/healthz"), (200, "ok\n".to_string()));
    let (status, ready) = get(&http, "/readyz");
    assert!(status == 200 && ready.starts_with("ready: model v1, 0 games stored"), "{status} {ready}");
    let health = dojo(&["health", &grpc, "--service", "dojo.v1.Learner"]);
    assert!(health.status.success(), "{}", String::from_utf8_lossy(&health.stderr));
    assert!(String::from_utf8_lossy(&health.stdout).contains("SERVING"));
    let unknown = dojo(&["health", &grpc, "--service", "no.such.Service"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("NotFound"), "{unknown:?}");

    let spool = tmp.path().join("spool");
    let mut worker = Proc::spawn(&[
        "worker",
        "--learner",
        &format!("http://{grpc}"),
        "--token-file",
        token,
        "--spool",
        path(&spool),
        "--parallel",
        "4",
        "--http",
        "127.0.0.1:0",
        "--grace-period",
        "20",
    ]);
    let worker_http = worker.after("metrics: http://").trim_end_matches("/metrics").to_string();
    wait_for("the worker ready", Duration::from_secs(60), || get(&worker_http, "/readyz").0 == 200);
    assert_eq!(get(&worker_http, "/readyz").1, "ready\n");
    assert_eq!(get(&worker_http, "/healthz").0, 200);
    let health = dojo(&["health", &worker_http]);
    assert!(health.status.success(), "gRPC health on the worker's HTTP port: {health:?}");
    wait_for("games delivered", Duration::from_secs(90), || {
        value(&get(&worker_http, "/metrics").1, "dojo_worker_uploaded_games_total{status=\"delivered\"}") >= 3.0
    });
    let page = get(&worker_http, "/metrics").1;
    assert!(value(&page, "dojo_worker_positions_total") >= 3.0 * 7.0, "{page}");
    assert!(value(&page, "dojo_worker_model_version") >= 1.0, "{page}");
    assert_eq!(value(&page, "dojo_worker_learner_reachable"), 1.0, "{page}");

    // SIGTERM: no new games, the ones in flight finished, everything delivered, exit 0.
    let (code, log) = worker.terminate();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("stopping: no new games; finishing the"), "{log}");
    let summary = log.lines().find(|l| l.starts_with("worker: played ")).expect(&log);
    let numbers: Vec<u64> = summary.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
    let (played, delivered) = (numbers[0], numbers[1]);
    assert!(played >= 3 && played == delivered, "{summary}");
    assert!(summary.contains(", 0 left in the spool"), "{summary}");

    let stored = value(&get(&http, "/metrics").1, "dojo_ingest_games_total{status=\"stored\"}") as u64;
    assert_eq!(stored, delivered, "the learner stored what the worker delivered");
    let _ = learner_proc.after("learner: serving");
    let (code, log) = learner_proc.terminate();
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("learner: stopping: no new games, then a checkpoint"), "{log}");

    // Restarted, the learner has every game it acknowledged.
    let (again, _, http) = learner(run, config, token);
    let (status, ready) = get(&http, "/readyz");
    assert_eq!(status, 200);
    assert!(ready.contains(&format!(", {stored} games stored")), "{ready} (acknowledged {stored})");
    let (code, _) = again.terminate();
    assert_eq!(code, Some(0));
}

#[test]
fn a_token_file_must_hold_a_token_and_cannot_be_given_with_a_token() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::write(&empty, "  \n").unwrap();
    let out = dojo(&["worker", "--learner", "http://127.0.0.1:1", "--token-file", path(&empty)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("the token file {} is empty", empty.display())), "{err}");
    let missing = tmp.path().join("missing");
    let out = dojo(&["learner", "--run-dir", path(&tmp.path().join("r")), "--token-file", path(&missing)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("cannot read the token file"), "{err}");
    let out = dojo(&["worker", "--learner", "http://127.0.0.1:1", "--token-file", path(&empty), "--token", "x"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("cannot be used with"), "{err}");
}

#[test]
fn a_watching_gatekeeper_waits_for_its_run_and_stops_on_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("not-yet");
    let mut gate = Proc::spawn(&["gate", "--watch", "--run-dir", path(&run)]);
    assert_eq!(gate.after("gate: waiting for a run in "), run.display().to_string());
    let (code, log) = gate.terminate();
    assert_eq!(code, Some(0), "{log}");
}
