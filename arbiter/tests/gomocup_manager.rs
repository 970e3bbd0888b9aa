//! The Gomocup manager against a scripted brain (`fake_brain.py`) that misbehaves in each
//! way a real one can: every fault loses the game with its reason, and the next game gets
//! a working brain again.

use dojo_arbiter::contest::TwoPlayer;
use dojo_arbiter::gomocup::manager::BrainLimits;
use dojo_arbiter::matches::{play_match, GameResult, MatchPlan, MatchResult};
use dojo_arbiter::players::{check_player_for, BaselinePlayers, PlayerError, PlayerSpec};
use dojo_game::gomoku::Gomoku;
use dojo_game::play_random_opening;
use dojo_game::rng::Rng;
use dojo_search::player::{Agent, RandomAgent};
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

fn fake_brain(mode: &str, log: &Path, timeout_ms: u64) -> PlayerSpec {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_brain.py");
    PlayerSpec::Pbrain {
        command: format!("python3 {} {mode} {}", script.display(), log.display()),
        move_timeout_ms: timeout_ms,
        limits: BrainLimits::default(),
        clock_ms: None,
    }
}

/// `games` games of the brain (A) against a random player on 9x9, `opening` random plies
/// first; the finished games in order.
fn play(brain: &PlayerSpec, games: u32, opening: usize) -> (MatchResult, Vec<GameResult>) {
    let random = |seed: u64| -> Result<Box<dyn Agent<Gomoku>>, PlayerError> {
        Ok(Box::new(RandomAgent::new(Rng::seed_from_u64(seed))))
    };
    let start = |rng: &mut Rng| {
        let mut g = Gomoku::new(9).unwrap();
        play_random_opening(&mut g, opening, rng);
        g
    };
    let played = Mutex::new(Vec::new());
    let brain = |s| Gomoku::baseline(brain, s);
    let result = play_match(TwoPlayer, MatchPlan::new(games, 1, 7), &[&brain, &random], start, &|r| {
        played.lock().unwrap().push(r.clone())
    })
    .unwrap();
    let mut played = played.into_inner().unwrap();
    played.sort_by_key(|r| r.index);
    (result, played)
}

fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log).unwrap().lines().map(str::to_string).collect()
}

fn temp_log() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("commands.log");
    (dir, log)
}

#[test]
fn a_good_brain_is_told_each_move_and_restarted_between_games() {
    let (_dir, log) = temp_log();
    let (result, games) = play(&fake_brain("good", &log, 5_000), 2, 0);
    assert_eq!(result.tally.games, 2);
    assert!(games.iter().all(|g| g.forfeit.is_none()), "{games:?}");
    let lines = log_lines(&log);
    assert_eq!(lines[0], "START 9");
    assert!(lines.contains(&"INFO timeout_turn 5000".to_string()), "{lines:?}");
    // One process for both games: RESTART between them, START once.
    assert_eq!(lines.iter().filter(|l| l.starts_with("START")).count(), 1, "{lines:?}");
    assert_eq!(lines.iter().filter(|l| *l == "RESTART").count(), 1, "{lines:?}");
    // Game 1 the brain moves first (BEGIN), game 2 second (its first command is a TURN).
    let restart = lines.iter().position(|l| l == "RESTART").unwrap();
    assert!(lines[..restart].contains(&"BEGIN".to_string()), "{lines:?}");
    assert!(lines[restart + 1].starts_with("TURN "), "{lines:?}");
    assert!(!lines.iter().any(|l| l == "BOARD"), "no opening: every position follows from TURN");
    // The brain's first-empty-point moves were played as it said them: (0,0) first.
    assert!(games[0].moves.starts_with("0,0"), "{}", games[0].moves);
}

#[test]
fn a_position_after_an_opening_is_sent_as_a_board_with_the_movers_fields() {
    let (_dir, log) = temp_log();
    // Three random plies, then in game 1 the random player moves (it is second, and on
    // move) and the brain, first player, is asked at ply 4; in game 2 at ply 3.
    let (result, games) = play(&fake_brain("good", &log, 5_000), 2, 3);
    assert_eq!(result.tally.games, 2);
    assert!(games.iter().all(|g| g.forfeit.is_none()), "{games:?}");
    let lines = log_lines(&log);
    let blocks: Vec<(usize, usize)> = (0..lines.len())
        .filter(|&i| lines[i] == "BOARD")
        .map(|i| (i, i + lines[i..].iter().position(|l| l == "DONE").unwrap()))
        .collect();
    assert_eq!(blocks.len(), 2, "{lines:?}");
    // Field 1: the brain's own stones (it is to move); 2: the opponent's; in the order of
    // a game, the colours alternating from the first player's (the brain's in game 1, at
    // ply 4; the opponent's in game 2, at ply 3), for brains that replay a BOARD as moves.
    for (&(board, done), want) in blocks.iter().zip([["1", "2", "1", "2"].as_slice(), &["2", "1", "2"]]) {
        let fields: Vec<&str> = lines[board + 1..done].iter().map(|l| l.rsplit(',').next().unwrap()).collect();
        assert_eq!(fields, want, "{lines:?}");
    }
    let done = blocks[0].1;
    // After the BOARD, the brain's later moves come one TURN at a time.
    assert!(lines[done + 1].starts_with("TURN "), "{lines:?}");
}

#[test]
fn a_brain_that_crashes_hangs_or_answers_nonsense_loses_with_the_reason() {
    for (mode, timeout_ms, why) in [
        ("crash", 5_000, "exited (exit status: 3); its stderr ended: fake brain: segmentation fault (pretend)"),
        ("hang", 300, "no answer to TURN"),
        ("illegal", 5_000, "illegal move"),
        ("garbage", 5_000, "unparsable answer \"hello\" (expected x,y)"),
    ] {
        let (_dir, log) = temp_log();
        let brain = fake_brain(mode, &log, timeout_ms);
        let (result, games) = play(&brain, 2, 0);
        assert_eq!((result.tally.games, result.tally.losses), (2, 2), "{mode}: {games:?}");
        for g in &games {
            let forfeit = g.forfeit.as_deref().unwrap_or_else(|| panic!("{mode}: no forfeit in {g:?}"));
            assert!(forfeit.starts_with(&format!("{brain} forfeits: ")), "{mode}: {forfeit}");
            assert!(forfeit.contains(why), "{mode}: {forfeit}");
            // It lost on its second move: one move of its own was played.
            assert_eq!(g.moves.split_whitespace().count(), if g.a_first { 2 } else { 3 }, "{mode}: {g:?}");
        }
        // A failed brain is not reused: each game started a process of its own.
        let starts = log_lines(&log).iter().filter(|l| l.starts_with("START")).count();
        assert_eq!(starts, 2, "{mode}");
    }
}

#[test]
fn talkative_brains_and_brains_without_restart_play_normally() {
    for mode in ["chatty", "norestart"] {
        let (_dir, log) = temp_log();
        let (result, games) = play(&fake_brain(mode, &log, 5_000), 2, 0);
        assert_eq!(result.tally.games, 2);
        assert!(games.iter().all(|g| g.forfeit.is_none()), "{mode}: {games:?}");
        let starts = log_lines(&log).iter().filter(|l| l.starts_with("START")).count();
        assert_eq!(starts, if mode == "norestart" { 2 } else { 1 }, "{mode}");
    }
}

#[test]
fn a_brain_is_checked_before_a_match_and_specs_keep_the_whole_command() {
    let (_dir, log) = temp_log();
    let spec: PlayerSpec =
        format!("pbrain:{}", fake_brain("good", &log, 1).to_string().trim_start_matches("pbrain:")).parse().unwrap();
    assert!(matches!(&spec, PlayerSpec::Pbrain { command, move_timeout_ms: 5_000, .. } if command.contains("good")));
    check_player_for(&spec, &"gomoku:9".parse().unwrap()).unwrap();
    assert_eq!(log_lines(&log)[..2], ["START 9".to_string(), "INFO timeout_turn 5000".to_string()]);
    let err = check_player_for(&spec, &"connect4".parse().unwrap()).unwrap_err().to_string();
    assert!(err.contains("only play Gomoku"), "{err}");
    let missing: PlayerSpec = "pbrain:/no/such/brain --flag".parse().unwrap();
    let err = check_player_for(&missing, &"gomoku:9".parse().unwrap()).unwrap_err().to_string();
    assert!(err.starts_with("pbrain:/no/such/brain --flag: the brain exited"), "{err}");
    assert!("pbrain: ".parse::<PlayerSpec>().unwrap_err().to_string().contains("needs the command"));
}

#[test]
fn a_brain_that_drops_a_command_just_after_its_move_still_plays_every_game() {
    // dropturn: the first TURN of a game comes back as an ERROR and is sent again.
    let (_dir, log) = temp_log();
    let (result, games) = play(&fake_brain("dropturn", &log, 5_000), 2, 0);
    assert_eq!(result.tally.games, 2);
    assert!(games.iter().all(|g| g.forfeit.is_none()), "{games:?}");
    let lines = log_lines(&log);
    let repeated = lines.windows(2).filter(|w| w[0].starts_with("TURN ") && w[0] == w[1]).count();
    assert_eq!(repeated, 2, "each game's first TURN, dropped, was sent again as it was: {lines:?}");
    // hasty: a command within 20 ms of its move is lost without a word; none is sent then.
    let (_dir, log) = temp_log();
    let (result, games) = play(&fake_brain("hasty", &log, 5_000), 2, 0);
    assert_eq!(result.tally.games, 2);
    assert!(games.iter().all(|g| g.forfeit.is_none()), "{games:?}");
    assert!(!log_lines(&log).contains(&"(dropped)".to_string()), "{:?}", log_lines(&log));
}

#[test]
fn node_and_depth_caps_are_told_to_the_brain_and_kept_in_the_spec() {
    let (_dir, log) = temp_log();
    let command = fake_brain("good", &log, 5_000).to_string();
    let command = command.trim_start_matches("pbrain:");
    let spec: PlayerSpec = format!("pbrain:nodes=1000:depth=4:{command}").parse().unwrap();
    let limits = BrainLimits { max_nodes: Some(1000), max_depth: Some(4) };
    assert!(matches!(&spec, PlayerSpec::Pbrain { command: c, limits: l, .. } if c == command && *l == limits));
    assert_eq!(spec.to_string(), format!("pbrain:nodes=1000:depth=4:{command}"));
    assert_eq!(spec.to_string().parse::<PlayerSpec>().unwrap(), spec);
    check_player_for(&spec, &"gomoku:9".parse().unwrap()).unwrap();
    let lines = log_lines(&log);
    let info: Vec<&String> = lines.iter().filter(|l| l.starts_with("INFO MAX_")).collect();
    assert_eq!(info, ["INFO MAX_NODE 1000", "INFO MAX_DEPTH 4"], "{lines:?}");
    // A brain's own clock is its time a move, whatever the match's default.
    let (_dir, log) = temp_log();
    let command = fake_brain("good", &log, 5_000).to_string();
    let timed: PlayerSpec = format!("pbrain:clock=250ms:{}", command.trim_start_matches("pbrain:")).parse().unwrap();
    check_player_for(&timed.with_move_timeout(Some(60_000)), &"gomoku:9".parse().unwrap()).unwrap();
    assert!(log_lines(&log).contains(&"INFO timeout_turn 250".to_string()), "{:?}", log_lines(&log));
    // A depth cap alone; a command that merely looks like one is a command.
    let depth: PlayerSpec = "pbrain:depth=2:brain".parse().unwrap();
    assert!(matches!(depth, PlayerSpec::Pbrain { limits: BrainLimits { max_nodes: None, max_depth: Some(2) }, .. }));
    let plain: PlayerSpec = "pbrain:env NODES=3 brain".parse().unwrap();
    assert!(matches!(plain, PlayerSpec::Pbrain { limits, .. } if limits == BrainLimits::default()));
    for (bad, why) in [
        ("pbrain:nodes=many:brain", "pbrain:nodes=N:COMMAND needs a whole number above 0, not nodes=many"),
        ("pbrain:depth=0:brain", "pbrain:depth=D:COMMAND needs a whole number above 0, not depth=0"),
        ("pbrain:nodes=10:", "pbrain:COMMAND needs the command that starts the brain"),
    ] {
        let err = bad.parse::<PlayerSpec>().unwrap_err().to_string();
        assert_eq!(err, format!("bad player spec {bad:?}: {why}"));
    }
}
