//! What the `dojo` binary's integration tests share: running the binary, and a run
//! configuration small enough that a run takes seconds.

// Each test file uses only some of these.
#![allow(dead_code)]

use dojo_run::config::RunConfig;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Runs the `dojo` binary with `args`.
pub fn dojo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dojo")).args(args).output().expect("the dojo binary runs")
}

/// Runs the `dojo` binary with `args`, writing `stdin` to its standard input.
pub fn dojo_with_input(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dojo"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the dojo binary runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// Polls `done` every 100 ms until it holds; panics naming `what` after `limit`.
pub fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The stdout of a run that must have succeeded.
pub fn stdout_of(out: &Output) -> String {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The `dojo: error:` line of a failed run, checked to be the only one.
pub fn error_line(args: &[&str]) -> String {
    let out = dojo(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("dojo: error:")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    lines[0].to_string()
}

/// A path as the `&str` an argument list wants.
pub fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A random 1×8 network for `game` at `dir/net`: players and checkpoints that cost next to
/// nothing.
pub fn tiny_net(dir: &Path, game: &str) -> PathBuf {
    let net = dir.join("net");
    stdout_of(&dojo(&["init", "--game", game, "--blocks", "1", "--channels", "8", "--out", path(&net)]));
    net
}

/// [`tiny_net`] with weights drawn from `seed`: for tests whose assertions depend on them.
pub fn seeded_tiny_net(dir: &Path, game: &str, seed: u32) -> PathBuf {
    let net = dir.join(format!("net-{seed}"));
    let seed = seed.to_string();
    stdout_of(&dojo(&[
        "init",
        "--game",
        game,
        "--blocks",
        "1",
        "--channels",
        "8",
        "--seed",
        &seed,
        "--out",
        path(&net),
    ]));
    net
}

/// A stand-in for seed 001's engine, where a test is about what plays it rather than the
/// engine: saiblo_players' checker strategy (it keeps the game itself and aborts on any
/// difference from the SDK's conventions), built into `dir/Strategy.so` as the engine's is.
pub fn saiblo_stand_in(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/saiblo/checker.c");
    let so = dir.join("Strategy.so");
    let status = Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&so)
        .arg(source)
        .status()
        .expect("a C compiler (cc) builds the stand-in");
    assert!(status.success(), "cc failed on checker.c");
    so
}

/// A run of a 1×8 network with 8-playout searches that trains and publishes within seconds.
pub fn tiny_config() -> RunConfig {
    let mut c = RunConfig::default();
    c.net.blocks = 1;
    c.net.channels = 8;
    c.search.simulations = 8;
    c.selfplay.parallel_games = 4;
    c.train.batch_size = 32;
    c.learner.min_positions = 60;
    c.learner.publish_every = 5;
    c.learner.checkpoint_every = 10;
    c.replay.max_samples_per_position = 100.0;
    c.gating.games = 4;
    c.gating.simulations = 8;
    // Grading draws a solver-labelled set at the first gate: the tests that grade ask.
    c.gating.grade_positions = 0;
    c
}

/// `tiny_config` gating every 2 versions with 2-game matches, written to `dir/tiny.toml`
/// for `dojo train --config`; the run goes to `dir/run`.
pub fn tiny_gating_run(dir: &Path) -> (dojo_run::dir::RunDir, std::path::PathBuf) {
    let mut c = tiny_config();
    c.gating.every_versions = 2;
    c.gating.games = 2;
    let config = dir.join("tiny.toml");
    std::fs::write(&config, c.to_toml()).unwrap();
    (dojo_run::dir::RunDir::new(dir.join("run")), config)
}

/// `GET path` from `addr`: the status code and the body.
pub fn get(addr: &str, path: &str) -> (u16, String) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    (head[9..12].parse().unwrap(), body.to_string())
}

pub fn value(page: &str, name: &str) -> f64 {
    page.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok()).unwrap_or(0.0)
}

/// `n` random (legal, finished) Connect Four game records, the same for the same seed.
pub fn random_games(n: usize, seed: u64) -> Vec<dojo_record::GameRecord> {
    use rand::SeedableRng;
    let mut rng = dojo_base::rng::Rng::seed_from_u64(seed);
    let start = dojo_game::connect4::Connect4::<u64>::standard();
    (0..n).map(|_| dojo_record::random_game_record(&start, 1, &mut rng)).collect()
}

/// The path of the `dojo` binary under test.
pub fn dojo_bin() -> &'static str {
    env!("CARGO_BIN_EXE_dojo")
}

pub fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let began = Instant::now();
    while !done() {
        assert!(began.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A `dojo` process whose stderr is read on a thread: every line is kept, and lines are
/// handed over as they come.
pub struct Proc {
    pub child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Proc {
    pub fn spawn(args: &[&str]) -> Proc {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dojo"));
        command.args(args);
        Proc::spawn_command(command)
    }

    /// Runs `command` (the dojo binary under a wrapper, say) as [`Proc::spawn`] runs dojo.
    pub fn spawn_command(mut command: Command) -> Proc {
        let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        let stderr: ChildStderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Proc { child, lines, seen: Vec::new() }
    }

    /// The rest of the first line starting with `prefix` (waiting for it).
    pub fn after(&mut self, prefix: &str) -> String {
        if let Some(l) = self.seen.iter().find(|l| l.starts_with(prefix)) {
            return l[prefix.len()..].to_string();
        }
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no line {prefix:?}; saw:\n{}", self.seen.join("\n")));
            self.seen.push(line.clone());
            if let Some(rest) = line.strip_prefix(prefix) {
                return rest.to_string();
            }
        }
    }

    /// A `dojo learner`'s gRPC address, from its `learner: serving run DIR on ADDR (...)` line.
    pub fn learner_addr(&mut self) -> String {
        let serving = self.after("learner: serving run ");
        serving.split(" on ").nth(1).unwrap().split(' ').next().unwrap().to_string()
    }

    /// Sends SIGTERM and waits: the exit code and everything it wrote to stderr.
    pub fn terminate(self) -> (Option<i32>, String) {
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        self.wait()
    }

    /// Waits (at most 60 s) for the process to exit: its exit code and all of its stderr.
    pub fn wait(mut self) -> (Option<i32>, String) {
        let (tx, rx) = mpsc::channel();
        let mut child = self.child;
        std::thread::spawn(move || tx.send(child.wait()));
        let status = rx.recv_timeout(Duration::from_secs(60)).expect("exits within 60 s").unwrap();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        (status.code(), self.seen.join("\n"))
    }
}
