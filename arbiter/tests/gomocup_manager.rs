//! The Gomocup manager against a scripted brain (`fake_brain.py`) that misbehaves in each
//! way a real one can: every fault loses the game with its reason, and the next game gets
//! a working brain again.

use dojo_arbiter::contest::TwoPlayer;
use dojo_arbiter::match_report::MatchReport;
use dojo_arbiter::matches::{play_match, GameResult, MatchPlan, MatchResult};
use dojo_arbiter::players::{check_player_for, BaselinePlayers, PbrainSpec, PlayerError, PlayerSpec};
use dojo_base::rng::Rng;
use dojo_external::forfeit::ForfeitKind;
use dojo_external::gomocup::manager::BrainLimits;
use dojo_game::gomoku::Gomoku;
use dojo_game::play_random_opening;
use dojo_search::player::{Agent, RandomAgent};
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

fn fake_brain(mode: &str, log: &Path, timeout_ms: u64) -> PlayerSpec {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_brain.py");
    PlayerSpec::Pbrain(PbrainSpec {
        command: format!("python3 {} {mode} {}", script.display(), log.display()),
        move_timeout_ms: timeout_ms,
        limits: BrainLimits::default(),
        clock_ms: None,
        match_ms: None,
    })
}

/// The fake brain with a match clock of `match_ms` as well as its turn clock.
fn timed_brain(mode: &str, log: &Path, turn_ms: u64, match_ms: u64) -> PlayerSpec {
    match fake_brain(mode, log, turn_ms) {
        PlayerSpec::Pbrain(brain) => PlayerSpec::Pbrain(PbrainSpec { match_ms: Some(match_ms), ..brain }),
        _ => unreachable!("fake_brain is a pbrain: spec"),
    }
}

/// The lines of `log` split into the lives of brain processes (each from its START).
fn processes(lines: &[String]) -> Vec<&[String]> {
    let starts: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].starts_with("START")).collect();
    starts.iter().enumerate().map(|(k, &i)| &lines[i..starts.get(k + 1).copied().unwrap_or(lines.len())]).collect()
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
    // No match clock: timeout_match 0 and no time_left; the rule told once, then ABOUT.
    assert!(lines.contains(&"INFO timeout_match 0".to_string()), "{lines:?}");
    assert!(!lines.iter().any(|l| l.starts_with("INFO time_left")), "{lines:?}");
    let rule = lines.iter().position(|l| l == "INFO rule 0").unwrap();
    assert_eq!(lines[rule + 1], "ABOUT", "{lines:?}");
    assert_eq!(lines.iter().filter(|l| l.starts_with("INFO rule")).count(), 1, "{lines:?}");
    // Its thinking is counted, with no match clock to share it out.
    assert!(games.iter().all(|g| g.clocks[0].is_some_and(|c| c.match_ms.is_none()) && g.clocks[1].is_none()));
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
    for (mode, timeout_ms, why, kind) in [
        (
            "crash",
            5_000,
            "exited (exit status: 3); its stderr ended: fake brain: segmentation fault (pretend)",
            ForfeitKind::Crash,
        ),
        ("hang", 300, "within 350 ms: over its turn clock (timeout_turn 300 ms)", ForfeitKind::Time),
        ("illegal", 5_000, "illegal move", ForfeitKind::Illegal),
        ("garbage", 5_000, "unparsable answer \"hello\" (expected x,y)", ForfeitKind::Unparsable),
    ] {
        let (_dir, log) = temp_log();
        let brain = fake_brain(mode, &log, timeout_ms);
        let (result, games) = play(&brain, 2, 0);
        assert_eq!((result.tally.games, result.tally.losses), (2, 2), "{mode}: {games:?}");
        for g in &games {
            let forfeit = g.forfeit.as_deref().unwrap_or_else(|| panic!("{mode}: no forfeit in {g:?}"));
            assert!(forfeit.starts_with(&format!("{brain} forfeits: ")), "{mode}: {forfeit}");
            assert!(forfeit.contains(why), "{mode}: {forfeit}");
            assert_eq!(g.forfeit_kind, Some(kind), "{mode}");
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
    assert!(
        matches!(&spec, PlayerSpec::Pbrain(PbrainSpec { command, move_timeout_ms: 5_000, .. }) if command.contains("good"))
    );
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
    assert!(
        matches!(&spec, PlayerSpec::Pbrain(PbrainSpec { command: c, limits: l, .. }) if c == command && *l == limits)
    );
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
    assert!(matches!(
        depth,
        PlayerSpec::Pbrain(PbrainSpec { limits: BrainLimits { max_nodes: None, max_depth: Some(2) }, .. })
    ));
    let plain: PlayerSpec = "pbrain:env NODES=3 brain".parse().unwrap();
    assert!(matches!(plain, PlayerSpec::Pbrain(PbrainSpec { limits, .. }) if limits == BrainLimits::default()));
    for (bad, why) in [
        ("pbrain:nodes=many:brain", "pbrain:nodes=N:COMMAND needs a whole number above 0, not nodes=many"),
        ("pbrain:depth=0:brain", "pbrain:depth=D:COMMAND needs a whole number above 0, not depth=0"),
        ("pbrain:nodes=10:", "pbrain:COMMAND needs the command that starts the brain"),
    ] {
        let err = bad.parse::<PlayerSpec>().unwrap_err().to_string();
        assert_eq!(err, format!("bad player spec {bad:?}: {why}"));
    }
}

#[test]
fn a_brain_over_its_match_clock_loses_on_time_though_each_move_is_within_its_turn_clock() {
    // 250 ms a move against a 2 s turn clock, but 500 ms for the whole game: the brain
    // cannot make the five moves of its five in a row (1.25 s) before its game time is out.
    let (_dir, log) = temp_log();
    let brain = timed_brain("slow", &log, 2_000, 500);
    let (result, games) = play(&brain, 2, 0);
    assert_eq!((result.tally.games, result.tally.losses), (2, 2), "{games:?}");
    for g in &games {
        let forfeit = g.forfeit.as_deref().unwrap_or_else(|| panic!("no forfeit in {g:?}"));
        assert!(forfeit.starts_with(&format!("{brain} forfeits: over its match clock: ")), "{forfeit}");
        assert!(forfeit.ends_with("ms thought in this game, timeout_match 500 ms"), "{forfeit}");
        assert_eq!(g.forfeit_kind, Some(ForfeitKind::Time));
        let clock = g.clocks[0].unwrap();
        assert_eq!(clock.match_ms, Some(500));
        assert!(clock.thought_ms > 500, "it thought past its clock: {clock:?}");
    }
    // Each game's brain was told its clocks, and before every move what is left of the
    // game's: all of it first, then less by at least the 250 ms each move slept.
    let lines = log_lines(&log);
    let lives = processes(&lines);
    assert_eq!(lives.len(), 2, "a brain that lost on time is not reused: {lines:?}");
    for life in lives {
        assert!(life.contains(&"INFO timeout_turn 2000".to_string()), "{life:?}");
        assert!(life.contains(&"INFO timeout_match 500".to_string()), "{life:?}");
        let left: Vec<u64> = life.iter().filter_map(|l| l.strip_prefix("INFO time_left ")?.parse().ok()).collect();
        assert!(left.len() >= 2 && left[0] == 500, "{life:?}");
        assert!(left.windows(2).all(|w| w[1] <= w[0].saturating_sub(250)), "time_left falls as it thinks: {left:?}");
        // The move requests follow each time_left line.
        for (i, _) in life.iter().enumerate().filter(|(_, l)| l.starts_with("INFO time_left")) {
            let next = &life[i + 1];
            assert!(next == "BEGIN" || next.starts_with("TURN ") || next == "BOARD", "{life:?}");
        }
    }
    // The match's report counts the time-outs and the share of the clock used.
    let rendered = TwoPlayer::render(result.clone(), &games, &"gomoku:9".parse().unwrap(), true, false).unwrap();
    let report: serde_json::Value = serde_json::from_str(&rendered.out).unwrap();
    let clocks = report["clocks"].as_array().unwrap();
    assert_eq!(clocks.len(), 1, "only the brain keeps a clock: {report}");
    assert_eq!((clocks[0]["seat"].as_str(), clocks[0]["games"].as_u64()), (Some("a"), Some(2)));
    assert_eq!(clocks[0]["forfeits"], serde_json::json!({"time": 2}));
    assert_eq!(clocks[0]["match_s"], 0.5);
    assert!(clocks[0]["share_max"].as_f64().unwrap() > 1.0, "{report}");
    let text = TwoPlayer::render(result, &games, &"gomoku:9".parse().unwrap(), false, false).unwrap().out;
    assert!(text.contains(&format!("clock of A ({brain}): 2 games, forfeits 2 (time 2); thought ")), "{text}");
    assert!(text.contains("of its 0.5 s match clock on average, "), "{text}");
}

#[test]
fn a_dropped_time_left_is_not_taken_for_a_dropped_move_request() {
    // The brain drops each game's first INFO time_left with an ERROR and answers the move
    // request after it: the request is not sent again (the brain would read two moves).
    let (_dir, log) = temp_log();
    let (result, games) = play(&timed_brain("dropinfo", &log, 5_000, 60_000), 2, 0);
    assert_eq!(result.tally.games, 2);
    assert!(games.iter().all(|g| g.forfeit.is_none()), "{games:?}");
    let lines = log_lines(&log);
    let repeated = lines.windows(3).filter(|w| w[1] == w[2] || (w[0] == w[2] && w[0].starts_with("TURN"))).count();
    assert_eq!(repeated, 0, "no request was sent twice: {lines:?}");
    assert_eq!(
        lines.iter().filter(|l| l.starts_with("INFO time_left")).count(),
        games.iter().map(brain_moves).sum::<usize>()
    );
}

/// The moves the brain (A) made in a game: the first, third, ... where it moved first.
fn brain_moves(g: &GameResult) -> usize {
    let n = g.moves.split_whitespace().count();
    if g.a_first {
        n.div_ceil(2)
    } else {
        n / 2
    }
}

#[test]
fn a_brain_that_answers_error_to_the_rule_refuses_to_play() {
    let (_dir, log) = temp_log();
    let brain = fake_brain("norule", &log, 5_000);
    let err = check_player_for(&brain, &"gomoku:9".parse().unwrap()).unwrap_err().to_string();
    assert_eq!(
        err,
        format!("{brain}: the brain refused the rule (INFO rule 0): ERROR this brain plays no rule but its own")
    );
    // In a match, every game is forfeited before the brain moves.
    let (result, games) = play(&brain, 2, 0);
    assert_eq!((result.tally.games, result.tally.losses), (2, 2), "{games:?}");
    for g in &games {
        let forfeit = g.forfeit.as_deref().unwrap();
        assert!(forfeit.contains("refused the rule (INFO rule 0)"), "{forfeit}");
        assert_eq!(g.forfeit_kind, Some(ForfeitKind::Refused));
        assert_eq!(g.moves.split_whitespace().count(), usize::from(!g.a_first), "{g:?}");
    }
    assert!(!log_lines(&log).iter().any(|l| l == "BEGIN" || l.starts_with("TURN")), "{:?}", log_lines(&log));
}

#[test]
fn a_match_clock_is_part_of_the_spec() {
    let spec: PlayerSpec = "pbrain:clock=5s:match=120s:engine --flag".parse().unwrap();
    assert!(matches!(
        &spec,
        PlayerSpec::Pbrain(PbrainSpec { clock_ms: Some(5_000), match_ms: Some(120_000), command, .. }) if command == "engine --flag"
    ));
    assert_eq!(spec.to_string(), "pbrain:clock=5s:match=120s:engine --flag");
    assert_eq!(spec.to_string().parse::<PlayerSpec>().unwrap(), spec);
    // Any order in, one order out; a match's --move-timeout-ms leaves the match clock be.
    let reordered: PlayerSpec = "pbrain:match=1.5s:nodes=9:engine".parse().unwrap();
    assert_eq!(reordered.to_string(), "pbrain:nodes=9:match=1.5s:engine");
    let timed = reordered.with_move_timeout(Some(60_000));
    assert!(matches!(timed, PlayerSpec::Pbrain(PbrainSpec { match_ms: Some(1_500), move_timeout_ms: 60_000, .. })));
    for (bad, why) in [
        ("pbrain:match=soon:engine", "pbrain:match=soon is not a time: pbrain:match=3s"),
        ("pbrain:match=0s:engine", "pbrain needs a clock of at least 1 ms"),
        ("pbrain:match=120s:", "pbrain:COMMAND needs the command that starts the brain"),
    ] {
        let err = bad.parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(err.contains(why), "{bad}: {err}");
    }
}
