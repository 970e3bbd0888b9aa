//! `dojo export gomocup`: the shipped Gomocup network (any-size) written as a Gomocup brain,
//! built with g++ (and, where this machine has them, with mingw-w64 for Windows, run under
//! wine), is the network (its policy and value within 1e-4 of dojo's on positions of every
//! board size from 7x7 to 20x20, its lookahead and threat search dojo's), speaks the
//! protocol as Gomocup's manager expects (sizes, rules, BOARD, TAKEBACK, errors), plays
//! through dojo's own manager without a forfeit, and keeps its graph within `INFO
//! max_memory`; what cannot be a brain is refused by name.

use crate::common::{dojo, error_line, path, stdout_of};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A network the repository ships (networks/README.md).
fn shipped(name: &str) -> String {
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../networks/{name}.safetensors"));
    assert!(net.exists(), "{} is shipped", net.display());
    net.to_str().unwrap().to_string()
}

/// `dojo export gomocup` of the network the guide tells an entrant to export
/// (`networks/gomocup`, any-size) into `out` with `extra` flags; its stdout.
fn export(out: &Path, extra: &[&str]) -> String {
    let net = shipped("gomocup");
    let mut args = vec!["export", "gomocup", "--model", &net, "--out", path(out)];
    args.extend_from_slice(extra);
    stdout_of(&dojo(&args))
}

/// A brain process with its pipes, answering one line at a time (its MESSAGE lines kept
/// apart).
struct Brain {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
    messages: Vec<String>,
}

impl Brain {
    fn start(command: &mut Command) -> Brain {
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let to = child.stdin.take().unwrap();
        let from = BufReader::new(child.stdout.take().unwrap());
        Brain { child, to, from, messages: Vec::new() }
    }

    fn tell(&mut self, line: &str) {
        writeln!(self.to, "{line}\r").unwrap();
        self.to.flush().unwrap();
    }

    /// The next line that is not a MESSAGE.
    fn answer(&mut self) -> String {
        loop {
            let mut line = String::new();
            assert!(self.from.read_line(&mut line).unwrap() > 0, "the brain closed its output");
            let line = line.trim().to_string();
            if line.starts_with("MESSAGE") {
                self.messages.push(line);
            } else {
                return line;
            }
        }
    }

    fn ask(&mut self, line: &str) -> String {
        self.tell(line);
        self.answer()
    }

    /// Its peak resident memory so far, in bytes (Linux's VmHWM).
    fn peak_memory(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
    }
}

/// A move answer "x,y" as numbers.
fn point(answer: &str) -> (usize, usize) {
    let (x, y) = answer.split_once(',').unwrap_or_else(|| panic!("not a move: {answer}"));
    (x.parse().unwrap(), y.parse().unwrap())
}

fn linux_brain(dir: &Path) -> PathBuf {
    let said = export(dir, &["--targets", "linux", "--check", "140"]);
    assert!(said.contains("built "), "{said}");
    let brain = dir.join("pbrain-dojo");
    assert!(brain.is_file(), "{said}");
    brain
}

#[test]
fn a_gomocup_brain_is_the_network_on_every_board_size() {
    let dir = tempfile::tempdir().unwrap();
    let said = export(dir.path(), &["--targets", "linux", "--check", "280"]);
    // 20 positions on each of the 14 sizes, each kernel this machine runs.
    assert!(said.contains("checked: 20 positions on each of the 14 board sizes, with "), "{said}");
    assert!(said.contains("its lookahead and threat search are dojo's on every one"), "{said}");
    let source = std::fs::read_to_string(dir.path().join("pbrain-dojo.cpp")).unwrap();
    assert!(source.contains("constexpr uint32_t VCF_NODES = 1000u;"), "the threat search is on by default");
    assert!(source.contains("constexpr int BRAIN_MAX_SIZE = 20;"));
    assert!(!source.contains("//@ENGINE@"), "the engine replaced its line");
}

#[test]
fn a_gomocup_brain_speaks_the_protocol() {
    let dir = tempfile::tempdir().unwrap();
    let brain_path = linux_brain(dir.path());
    let mut brain = Brain::start(&mut Command::new(&brain_path));
    assert_eq!(brain.ask("START 21"), "ERROR unsupported size 21: this brain's network plays 7x7 to 20x20");
    assert_eq!(brain.ask("RECTSTART 15,10"), "ERROR rectangular boards (15x10) are not supported");
    assert_eq!(brain.ask("BEGIN"), "ERROR no game: START comes first");
    assert_eq!(brain.ask("RECTSTART 9,9"), "OK");
    assert_eq!(brain.ask("START 15"), "OK");
    assert!(brain.ask("ABOUT").starts_with("name=\"dojo\", version=\""));
    assert_eq!(brain.ask("FROBNICATE"), "UNKNOWN FROBNICATE");
    // INFO has no answer, but a rule this brain does not play is refused at once, and so is
    // every move asked under it.
    brain.tell("INFO timeout_turn 300");
    assert!(brain.ask("INFO rule 4").starts_with("ERROR rule 4 (renju) is not supported"));
    assert_eq!(brain.ask("BEGIN"), "ERROR rule 4 is not played by this brain");
    assert!(brain.ask("INFO rule 16").starts_with("ERROR rule 16 is not supported: this brain plays freestyle (0)"));
    brain.tell("INFO rule 1");
    let (x, y) = point(&brain.ask("BEGIN"));
    assert!(x < 15 && y < 15);
    assert!(brain.messages.last().unwrap().starts_with("MESSAGE dojo: "), "{:?}", brain.messages);
    assert_eq!(brain.ask(&format!("TURN {x},{y}")), format!("ERROR {x},{y} is not a legal move here"));
    assert_eq!(brain.ask("TURN 15,0"), "ERROR TURN needs x,y on the board, not 15,0");
    let (ox, oy) = if (x, y) == (0, 0) { (1, 0) } else { (0, 0) };
    let (x2, y2) = point(&brain.ask(&format!("TURN {ox},{oy}")));
    assert!((x2, y2) != (x, y) && (x2, y2) != (ox, oy));
    assert_eq!(brain.ask("TAKEBACK 3,3"), "ERROR TAKEBACK needs the last move's x,y");
    assert_eq!(brain.ask(&format!("TAKEBACK {x2},{y2}")), "OK");
    // A whole position: our four in a row with an open end is finished at once.
    assert_eq!(brain.ask("RESTART"), "OK");
    brain.tell("BOARD");
    for line in ["5,5,1", "0,0,2", "6,5,1", "0,2,2", "7,5,1", "0,4,2", "8,5,1", "14,14,2"] {
        brain.tell(line);
    }
    let win = brain.ask("DONE");
    assert!(win == "4,5" || win == "9,5", "the five: {win}");
    brain.tell("BOARD");
    brain.tell("1,1,3");
    assert_eq!(brain.ask("DONE"), "ERROR field 3 (a continuous game's stone) is not supported");
    brain.tell("END");
    assert!(brain.child.wait().unwrap().success());
}

/// Under the standard rule (exactly five), a move that makes six does not win: the brain
/// that wins with it in freestyle blocks the opponent's four instead.
#[test]
fn a_gomocup_brain_plays_the_standard_rule() {
    let dir = tempfile::tempdir().unwrap();
    let brain_path = linux_brain(dir.path());
    let mut brain = Brain::start(&mut Command::new(&brain_path));
    assert_eq!(brain.ask("START 15"), "OK");
    brain.tell("INFO timeout_turn 500");
    // Ours: 3..6 and 8 on row 5, theirs on 2,5, so 7,5 makes six (3..8) and nothing makes
    // five; theirs: 5..8 on row 10, closed by ours on 4,10, so 9,10 is their only five.
    let position = [
        "3,5,1", "4,5,1", "5,5,1", "6,5,1", "8,5,1", "4,10,1", "2,5,2", "5,10,2", "6,10,2", "7,10,2", "8,10,2",
        "0,14,2",
    ];
    for (rule, want) in [("0", "7,5"), ("1", "9,10")] {
        assert_eq!(brain.ask("RESTART"), "OK");
        brain.tell(&format!("INFO rule {rule}"));
        brain.tell("BOARD");
        for line in position {
            brain.tell(line);
        }
        assert_eq!(brain.ask("DONE"), want, "rule {rule}");
    }
    brain.tell("END");
}

/// The graph stays within `INFO max_memory`: a brain told 40 MiB searching 20x20 moves fills
/// it (its MESSAGE says so) and keeps its peak resident memory under it. The turn is long
/// (20 s) so that memory, not the clock, ends the search on any machine: a full graph stops
/// a move's search, so a move takes as long as filling 24 MiB of graph does (a few seconds).
#[test]
fn a_gomocup_brain_keeps_within_its_memory() {
    let dir = tempfile::tempdir().unwrap();
    let brain_path = linux_brain(dir.path());
    let mut brain = Brain::start(&mut Command::new(&brain_path));
    assert_eq!(brain.ask("START 20"), "OK");
    let limit = 40u64 << 20;
    brain.tell(&format!("INFO max_memory {limit}"));
    brain.tell("INFO timeout_turn 20000");
    let mut answer = brain.ask("BEGIN");
    for k in 0..2 {
        let (x, _) = point(&answer);
        // Far from the brain's stones, a different point each time.
        let reply = if x < 10 { format!("19,{k}") } else { format!("0,{k}") };
        answer = brain.ask(&format!("TURN {reply}"));
    }
    let peak = brain.peak_memory();
    assert!(peak < limit, "peak {peak} bytes over the {limit} told");
    assert!(brain.messages.iter().any(|m| m.ends_with(", memory full")), "the limit bound: {:?}", brain.messages);
    brain.tell("END");
    assert!(brain.child.wait().unwrap().success());
}

/// dojo's own manager runs the brain: games by the clock against a random player, none
/// forfeited, all won.
#[test]
fn a_gomocup_brain_plays_through_dojos_manager() {
    let dir = tempfile::tempdir().unwrap();
    let brain_path = linux_brain(dir.path());
    wins_two_of_two_against_random(&format!("pbrain:clock=400ms:{}", path(&brain_path)));
}

/// `player` (a brain) plays two games of 15x15 against a random player: both won, neither
/// forfeited.
fn wins_two_of_two_against_random(player: &str) {
    let out = dojo(&["match", "--a", player, "--b", "random", "--game", "gomoku:15", "--games", "2", "--json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("forfeit"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((report["games"].as_u64(), report["wins"].as_u64()), (Some(2), Some(2)), "{report}");
}

/// At equal playouts (the clock far away) the brain is dojo's `net:` player: the same
/// network, lookahead, threat search and graph search, the graph kept between moves as dojo
/// keeps it, so from each balanced opening the two play the same game with either first.
#[test]
fn a_gomocup_brain_plays_as_its_net_player_does() {
    let dir = tempfile::tempdir().unwrap();
    let said = export(dir.path(), &["--targets", "linux", "--check", "0", "--playouts", "32", "--move-ms", "60000"]);
    assert!(said.contains("at most 32 playouts, a 1000-node threat search"), "{said}");
    let brain = format!("pbrain:clock=60s:{}", path(&dir.path().join("pbrain-dojo")));
    let net = format!("net:{}:sims=32:noavg:vcf=1000", shipped("gomocup"));
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/openings/gomoku15.txt");
    let out = dojo(&[
        "match",
        "--a",
        &brain,
        "--b",
        &net,
        "--game",
        "gomoku:15",
        "--games",
        "12",
        "--parallel",
        "2",
        "--openings",
        path(&book),
        "--json",
        "--verbose",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !stderr.contains("forfeit"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let games = report["games_played"].as_array().unwrap();
    let same = games.chunks(2).filter(|pair| pair[0]["moves"] == pair[1]["moves"]).count();
    // A pair may part where the two networks' last bits tip a tie (5 of 6 here).
    assert!(same >= 4, "only {same} of 6 pairs were the same game twice: {report}");
}

/// The Windows build, under wine, through dojo's manager: what Gomocup runs. Needs
/// mingw-w64 and wine64 (scripts/test.sh installs them); says SKIPPED without.
#[test]
fn a_windows_gomocup_brain_plays_under_wine() {
    let Some(wine) = std::env::var_os("DOJO_WINE") else {
        eprintln!("SKIPPED: the Windows brain under wine (DOJO_WINE is unset: scripts/test.sh sets it)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let said = export(dir.path(), &["--targets", "windows", "--check", "0"]);
    let exe = dir.path().join("pbrain-dojo.exe");
    assert!(said.contains(&format!("built {}", exe.display())), "{said}");
    wins_two_of_two_against_random(&format!("pbrain:clock=2s:{} {}", wine.to_str().unwrap(), path(&exe)));
}

#[test]
fn what_cannot_be_a_gomocup_brain_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = path(dir.path());
    let board_specific = shipped("gomoku15");
    let said = error_line(&["export", "gomocup", "--model", &board_specific, "--out", out]);
    assert!(
        said.contains("a network for gomoku:15 cannot be a Gomocup brain: export an any-size Gomoku network"),
        "{said}"
    );
    let connect4 = shipped("connect4-saiblo");
    let said = error_line(&["export", "gomocup", "--model", &connect4, "--out", out]);
    assert!(said.contains("cannot be a Gomocup brain"), "{said}");
    let any = shipped("gomocup");
    let said = error_line(&["export", "gomocup", "--model", &any, "--out", out, "--name", "my brain"]);
    assert!(said.contains("the brain's name \"my brain\" must be letters, digits"), "{said}");
    let said = error_line(&["export", "gomocup", "--model", &any, "--out", out, "--set", "search.rollouts=2"]);
    assert!(said.contains("search.rollouts is Connect Four's"), "{said}");
    assert!(!dir.path().join("pbrain-dojo.cpp").exists(), "nothing written");
}
