//! What a user reads when a library error reaches the command line: the library crates
//! return typed errors, and `dojo` prints each with its sources (`{:#}`). These tests pin
//! whole lines, so a typed error keeps the words its string had, and a cause that is part
//! of a message is not printed a second time as its source.

use crate::common;

use common::{dojo, error_line, path, tiny_config, tiny_net, wait_until, Proc};
use std::time::Duration;

#[test]
fn settings_out_of_range_name_the_setting_and_its_value() {
    assert_eq!(
        error_line(&["bench", "selfplay", "--playouts", "0", "--seconds", "1"]),
        "dojo: error: search.simulations must be at least 1"
    );
    // An f32 setting prints as the user wrote it, not widened to f64's digits.
    assert_eq!(
        error_line(&["bench", "selfplay", "--full-search-fraction", "1.1", "--seconds", "1"]),
        "dojo: error: selfplay.full_search_fraction = 1.1 must be within 0 (exclusive) and 1"
    );
    assert_eq!(
        error_line(&["bench", "train", "--batch", "0", "--millis", "1"]),
        "dojo: error: train.batch_size must be at least 1"
    );
}

#[test]
fn a_word_that_names_no_choice_lists_the_choices() {
    let out = dojo(&["bench", "net", "--precision", "int8", "--millis", "1"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = "unknown precision \"int8\": expected auto, f32, bf16 or f16 (f16 on CUDA only)";
    assert!(stderr.contains(want), "{stderr}");
    let out = dojo(&["bench", "net", "--policy-head", "cnn", "--millis", "1"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown policy head \"cnn\": expected auto, fc or conv"), "{stderr}");
}

#[test]
fn an_architecture_error_keeps_its_context() {
    let dir = tempfile::tempdir().unwrap();
    let net = dir.path().join("net");
    let args = ["init", "--game", "connect4", "--blocks", "1", "--channels", "8", "--policy-head", "conv"];
    assert_eq!(
        error_line(&[&args[..], &["--out", path(&net)]].concat()),
        "dojo: error: --policy-head: policy head conv needs a game whose moves are its board's cells; \
         connect4:7x6's 7 moves are not (use fc or auto)"
    );
    let args = ["init", "--game", "connect4", "--blocks", "65", "--channels", "8", "--out", path(&net)];
    // The flags override the run config's [net], which is checked as a whole.
    assert_eq!(
        error_line(&args),
        "dojo: error: net.blocks = 65 and net.channels = 8 must be within 1..=64 and 1..=1024"
    );
}

#[test]
fn an_io_cause_inside_a_message_is_printed_once() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    let line = error_line(&["worker", "--learner", "http://127.0.0.1:1", "--http", &addr, "--spool", path(&spool)]);
    assert!(line.starts_with(&format!("dojo: error: cannot serve HTTP on {addr}: ")), "{line}");
    assert_eq!(line.matches("in use").count(), 1, "{line}");
}

#[test]
fn a_second_worker_on_a_spool_exits_at_once_naming_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("spool");
    // The first waits for a learner that is not there, holding its spool meanwhile.
    let first = Proc::spawn(&["worker", "--learner", "http://127.0.0.1:1", "--spool", path(&spool)]);
    let pid = first.child.id();
    let lock = spool.join(dojo_worker::spool::LOCK_FILE);
    wait_until("the first worker to hold its spool", Duration::from_secs(60), || {
        std::fs::read_to_string(&lock).is_ok_and(|holder| holder.starts_with(&format!("pid {pid} on host ")))
    });
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    assert_eq!(
        error_line(&["worker", "--learner", "http://127.0.0.1:1", "--spool", path(&spool)]),
        format!(
            "dojo: error: spool: {} is in use by another worker (pid {pid} on host {}): give each worker a spool \
             directory of its own (--spool)",
            spool.display(),
            host.trim()
        )
    );
    let (code, log) = first.terminate();
    assert_eq!(code, Some(0), "{log}");
}

#[test]
fn a_missing_file_is_named_with_its_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let cause = std::fs::read(&missing).unwrap_err().to_string();
    // A checkpoint that is not there is the file the user named (its weights file for a
    // stem), never its sidecar: `net:missing.safetensors` once said "cannot read missing.json".
    assert_eq!(
        error_line(&["bench", "net", "--model", path(&missing), "--millis", "1"]),
        format!("dojo: error: {}.safetensors does not exist", missing.display())
    );
    let weights = dir.path().join("missing.safetensors");
    for game in [&[][..], &["--game", "connect4"][..]] {
        let a = format!("net:{}", weights.display());
        let args = [&["match", "--a", &a, "--b", "random", "--games", "2"][..], game].concat();
        assert_eq!(error_line(&args), format!("dojo: error: {} does not exist", weights.display()), "{game:?}");
    }
    assert_eq!(
        error_line(&["ntuple", "play", "--model", path(&missing), "--games", "1"]),
        format!("dojo: error: {}: {cause}", missing.display())
    );
}

#[test]
fn a_player_that_cannot_play_is_named_before_a_game() {
    assert_eq!(
        error_line(&["match", "--a", "mcts:0", "--b", "random", "--games", "2"]),
        "dojo: error: --a: bad player spec \"mcts:0\": mcts needs at least 1 rollout"
    );
    assert_eq!(
        error_line(&["match", "--game", "gomoku:9", "--a", "solver", "--b", "random", "--games", "2"]),
        "dojo: error: the solver player only plays Connect Four, not gomoku:9"
    );
    let dir = tempfile::tempdir().unwrap();
    let net = tiny_net(dir.path(), "connect4");
    let spec = format!("net:{}", net.display());
    assert_eq!(
        error_line(&["match", "--game", "gomoku:9", "--a", "random", "--b", &spec, "--games", "2"]),
        format!("dojo: error: {} is a network for connect4:7x6, not gomoku:9", net.display())
    );
}

#[test]
fn a_tournament_that_cannot_be_played_says_why_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.toml"), tiny_config().to_toml()).unwrap();
    let run = path(dir.path());
    assert_eq!(
        error_line(&["tournament", "--run-dir", run, "--name", "a b", "--players", "random", "mcts:5"]),
        "dojo: error: tournament name \"a b\": use letters, digits, '.', '_' and '-' only (at most 40)"
    );
    assert_eq!(
        error_line(&["tournament", "--run-dir", run, "--players", "random", "random"]),
        "dojo: error: random is in the tournament twice"
    );
    let players = ["--players", "random", "mcts:5", "--games-per-pair", "2", "--seed", "3", "--parallel", "1"];
    let args = [&["tournament", "--run-dir", run, "--name", "t"][..], &players[..]].concat();
    assert!(dojo(&args).status.success());
    let other_seed = [&args[..args.len() - 4], &["--seed", "4", "--parallel", "1"][..]].concat();
    assert_eq!(
        error_line(&other_seed),
        "dojo: error: this tournament was started with seed 3, not 4: rerun with the same, or name a new tournament"
    );
}

#[test]
fn a_learner_that_cannot_start_says_why_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tiny.toml");
    std::fs::write(&config, tiny_config().to_toml()).unwrap();
    let run = dir.path().join("run");
    let learner = ["learner", "--run-dir", path(&run), "--config", path(&config)];
    assert_eq!(
        error_line(&[&learner[..], &["--listen", "127.0.0.1:0", "--max-streams", "0"]].concat()),
        "dojo: error: ingest limit max_streams must be at least 1"
    );
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let line = error_line(&[&learner[..], &["--listen", &addr]].concat());
    assert!(line.starts_with(&format!("dojo: error: cannot listen on {addr}: ")), "{line}");
    assert_eq!(line.matches("in use").count(), 1, "{line}");
}
