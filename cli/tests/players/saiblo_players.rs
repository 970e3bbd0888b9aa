//! saiblo strategies (`saiblo:PATH.so`) as players: small strategies in C, compiled here at
//! test time, hosted a process per game as the platform hosts them. A checker that keeps the
//! game itself proves the SDK's conventions on every board size and forbidden row; the
//! misbehaving ones lose by their cause, and none of them stops the match.

use crate::common;

use common::{dojo, path};
use dojo_arbiter::matches::play_game;
use dojo_base::bits::Bits192;
use dojo_base::rng::Rng;
use dojo_external::saiblo::{StrategyAgent, StrategyConfig};
use dojo_game::connect4::Connect4;
use dojo_game::{Game, Outcome};
use dojo_search::player::{Agent, RandomAgent};
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// `tests/saiblo/SOURCE` built as a shared object `dir/NAME.so`, with `-DMODE=MODE`.
fn build(dir: &Path, name: &str, source: &str, mode: &str) -> PathBuf {
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/saiblo");
    let out = dir.join(format!("{name}.so"));
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", &format!("-DMODE={mode}"), "-o"])
        .arg(&out)
        .arg(sources.join(source))
        .status()
        .expect("a C compiler (cc) builds the test strategies");
    assert!(status.success(), "cc failed on {source}");
    out
}

fn hosted(so: &Path, clock_ms: u64) -> StrategyAgent {
    let config = StrategyConfig {
        path: so.to_path_buf(),
        clock: Duration::from_millis(clock_ms),
        host: PathBuf::from(env!("CARGO_BIN_EXE_dojo")),
    };
    StrategyAgent::new(config, format!("saiblo:{}", so.display()))
}

#[test]
fn the_checker_sees_the_sdk_conventions_on_every_board_size_and_forbidden_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut checker = hosted(&build(dir.path(), "checker", "checker.c", "0"), 3_000);
    let mut random = RandomAgent::new(Rng::seed_from_u64(1));
    let mut rng = Rng::seed_from_u64(2);
    let mut games = 0;
    for height in 9..=12 {
        for width in 9..=12 {
            // The forbidden cell on the bottom row, the top row, and one between, in
            // columns that move with the board.
            for row in [0, height - 1, (width + height) % height] {
                let column = (width * height + row) % width;
                let board = Connect4::<Bits192>::new(width, height, &[(column, row)]).unwrap();
                let checker_first = games % 2 == 0;
                let seats: &mut [&mut dyn Agent<Connect4<Bits192>>] =
                    if checker_first { &mut [&mut checker, &mut random] } else { &mut [&mut random, &mut checker] };
                let played = play_game(board, seats, &mut rng);
                let where_ = format!("{width}x{height}, forbidden {column}.{row}");
                assert_eq!(played.forfeit, None, "{where_}");
                assert!(played.outcome.is_some(), "{where_}");
                games += 1;
            }
        }
    }
    assert_eq!(games, 48);
    // It wins some: it is a real player, not one that the host replaced by a default move.
    let board = Connect4::<Bits192>::new(9, 9, &[(0, 8)]).unwrap();
    let mut idle = hosted(&build(dir.path(), "leftmost", "misbehaving.c", "LEFTMOST"), 3_000);
    let played = play_game(board, &mut [&mut checker, &mut idle], &mut rng);
    assert_eq!(played.forfeit, None);
    assert!(matches!(played.outcome, Some(Outcome::Win(_) | Outcome::Draw)));
    assert!(played.end.ply() > 7, "{} plies", played.end.ply());
}

#[test]
fn a_strategy_that_crashes_hangs_or_answers_badly_loses_by_its_cause() {
    let dir = tempfile::tempdir().unwrap();
    let leftmost = build(dir.path(), "leftmost", "misbehaving.c", "LEFTMOST");
    // The hanger's clock is short, to keep the test quick; the others have the platform's.
    for (mode, clock, why) in [
        ("CRASH", "3000", "forfeits: the strategy exited (signal: 11 (SIGSEGV))"),
        ("EXIT", "3000", "forfeits: the strategy exited (exit status: 3); its stderr ended: giving up"),
        ("HANG", "300", "forfeits: no answer to its move 2 within 350 ms"),
        ("ILLEGAL", "3000", "forfeits: illegal move (8, 0): the forbidden cell"),
        ("NULLPOINT", "3000", "forfeits: getPoint returned no point (a null pointer)"),
    ] {
        let bad = build(dir.path(), &mode.to_lowercase(), "misbehaving.c", mode);
        let spec = format!("saiblo:{}", path(&bad));
        // Four games on one board, each side first twice: the strategy loses every one (it
        // misbehaves on its second move in each, as a fresh process each game).
        let out = dojo(&[
            "match",
            "--a",
            &spec,
            "--b",
            &format!("saiblo:{}", path(&leftmost)),
            "--game",
            "connect4:10x9:1.1",
            "--games",
            "4",
            "--parallel",
            "2",
            "--move-timeout-ms",
            clock,
            "--json",
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{mode}: {stderr}");
        let report: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!((report["wins"].as_u64(), report["losses"].as_u64()), (Some(0), Some(4)), "{mode}: {stdout}");
        let forfeits: Vec<&str> = stderr.lines().filter(|l| l.starts_with("forfeit: ")).collect();
        assert_eq!(forfeits.len(), 4, "{mode}: {stderr}");
        for line in forfeits {
            assert!(line.contains(&format!("{spec} {why}")), "{mode}: {line}");
        }
    }
}

#[test]
fn a_strategy_that_prints_plays_on_and_the_default_move_outside_a_match_is_legal() {
    let dir = tempfile::tempdir().unwrap();
    // Its prints go to stderr, not into the answers.
    let chatty = build(dir.path(), "chatty", "misbehaving.c", "CHATTY");
    let out = dojo(&[
        "match",
        "--a",
        &format!("saiblo:{}", path(&chatty)),
        "--b",
        "random",
        "--game",
        "connect4:saiblo",
        "--games",
        "4",
        "--parallel",
        "1",
        "--seed",
        "5",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["games"].as_u64(), Some(4));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("forfeit"));
    // select_move (no forfeits outside a match) falls back to the first legal move.
    let crash = build(dir.path(), "crash", "misbehaving.c", "CRASH");
    let mut agent = hosted(&crash, 1_000);
    let mut game = Connect4::<Bits192>::new(9, 9, &[(0, 0)]).unwrap();
    Agent::<Connect4<Bits192>>::new_game(&mut agent, 1);
    let first = agent.select_move(&game);
    assert_eq!(first, 0);
    game.play(first).unwrap();
    game.play(1).unwrap();
    assert_eq!(agent.select_move(&game), 0, "the first legal move after the crash");
}

#[test]
fn saiblo_players_are_refused_where_they_cannot_play() {
    let dir = tempfile::tempdir().unwrap();
    let leftmost = build(dir.path(), "leftmost", "misbehaving.c", "LEFTMOST");
    let spec = format!("saiblo:{}", path(&leftmost));
    let error = |game: &str, a: &str| {
        let out = dojo(&["match", "--a", a, "--b", "random", "--game", game, "--games", "2"]);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).trim().to_string()
    };
    let said = error("gomoku:9", &spec);
    assert!(said.ends_with("saiblo: players (saiblo strategies) only play Connect Four, not gomoku:9"), "{said}");
    let said = error("connect4", &spec);
    assert!(
        said.ends_with("saiblo: players (saiblo strategies) play boards with one blocked cell (connect4:saiblo, connect4:WxH:C.R), not connect4:7x6"),
        "{said}"
    );
    let missing = dir.path().join("missing.so");
    let said = error("connect4:saiblo", &format!("saiblo:{}", path(&missing)));
    assert!(said.contains(&format!("cannot load {}", path(&missing))), "{said}");
    // A shared object that is not a strategy.
    let not = dir.path().join("not.c");
    std::fs::write(&not, "int answer(void) { return 42; }\n").unwrap();
    let so = dir.path().join("not.so");
    assert!(Command::new("cc").args(["-shared", "-fPIC", "-o"]).arg(&so).arg(&not).status().unwrap().success());
    let said = error("connect4:saiblo", &format!("saiblo:{}", path(&so)));
    assert!(
        said.ends_with("exports no getPoint (a saiblo strategy exports getPoint and clearPoint as extern \"C\")"),
        "{said}"
    );
    assert_eq!(error("connect4:saiblo", "saiblo:"), "dojo: error: --a: bad player spec \"saiblo:\": saiblo:PATH needs the strategy's shared object, e.g. saiblo:Strategy.so");
}
