//! The games a match and a tournament play, pinned (a gate's are pinned in dojo-gating's
//! tests/gating.rs): one- and two-player contests were merged into one engine each (issue
//! 33), and a run's matches, gates and resumed tournaments must still play exactly the
//! games they played before. Each digest is of
//! every game's moves and result, taken before the merge; the matches' and gates' were
//! taken again when a match's pairs got seeds of their own (issue 35: a pair's seed was
//! the match's seed plus the pair's number, so the matches of seeds 1, 2 and 3 were one
//! match shifted), the tournaments' are unchanged.

use dojo_arbiter::contest::{OnePlayer, TwoPlayer};
use dojo_arbiter::matches::{play_match, MatchPlan};
use dojo_arbiter::players::{BaselinePlayers, MctsSpec, PlayerSpec, RandomSpec};
use dojo_arbiter::tournament::{Entrant, Format, Tournament, TournamentDir, TournamentSpec};
use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_game::sliding::{Rules2048, Sliding, Twenty48};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

/// 64-bit FNV-1a of the games' lines, sorted.
fn digest(mut lines: Vec<String>) -> String {
    lines.sort();
    let hash = lines
        .join("|")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{hash:016x}")
}

#[test]
fn matches_play_the_games_they_played_before() {
    let (mcts, random) = (PlayerSpec::Mcts(MctsSpec::rollouts(30)), PlayerSpec::Random(RandomSpec));
    let seen = Mutex::new(Vec::new());
    let plan = MatchPlan { opening_plies: 2, ..MatchPlan::new(8, 3, 11) };
    let (a, b) = (|s| Connect4::<u64>::baseline(&mcts, s), |s| Connect4::<u64>::baseline(&random, s));
    let r = play_match(TwoPlayer, plan, &[&a, &b], |_: &mut Rng| Connect4::standard(), &|g| {
        let line =
            format!("{} {} {} {} {} {} {:?}", g.index, g.a_first, g.result, g.moves, g.opening, g.board, g.forfeit);
        seen.lock().unwrap().push(line)
    })
    .unwrap();
    assert_eq!((r.tally.wins, r.tally.draws, r.tally.losses), (8, 0, 0));
    assert_eq!(digest(seen.into_inner().unwrap()), "0df148f7269db7ee");

    let seen = Mutex::new(Vec::new());
    let make = |s| Twenty48::baseline(&random, s);
    let r = play_match(
        OnePlayer,
        MatchPlan::new(6, 2, 5),
        &[&make],
        |rng: &mut Rng| Sliding::new_game(Rules2048, rng),
        &|g| {
            let line = format!("{} {} {} {} {} {:?}", g.index, g.score, g.max_tile, g.plies, g.moves, g.forfeit);
            seen.lock().unwrap().push(line)
        },
    )
    .unwrap();
    assert_eq!((r.report.mean, r.total_moves), (799.3333333333334, 585));
    assert_eq!(digest(seen.into_inner().unwrap()), "977689b583c7fd22");
}

/// The text of a game in `games/`, less its time.
fn game_text(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().filter(|l| !l.starts_with("seconds")).collect::<Vec<_>>().join("\n")
}

#[test]
fn tournaments_play_the_games_they_played_before() {
    let tmp = tempfile::tempdir().unwrap();
    let entrant = |n: &str| Entrant { name: n.into(), spec: n.into(), version: None, step: None };
    let spec = TournamentSpec {
        game: "connect4".into(),
        format: Format::RoundRobin,
        games_per_pair: 4,
        opening_plies: 2,
        openings: vec![],
        seed: 9,
        move_timeout_ms: Some(100),
        entrants: vec![entrant("random"), entrant("mcts:10"), entrant("uct:5")],
    };
    let cancel = AtomicBool::new(false);
    let mut t = Tournament::open(TwoPlayer, TournamentDir::new(tmp.path().join("a")), &spec).unwrap();
    let lines = t.play(2, &cancel, &|_| {}).unwrap();
    let lines = lines
        .iter()
        .map(|l| format!("{} {} {} {}{}{}{}", l.key.a, l.key.b, l.key.game, l.a_first, l.result, l.opening, l.moves));
    assert_eq!(digest(lines.collect()), "aba483d178c741c9");
    let text = game_text(&tmp.path().join("a/games/mcts_10--uct_5--0003.txt"));
    assert_eq!(digest(vec![text]), "d96d1af7159041eb");

    let spec = TournamentSpec { game: "2048".into(), games_per_pair: 3, opening_plies: 0, ..spec };
    let mut t = Tournament::open(OnePlayer, TournamentDir::new(tmp.path().join("b")), &spec).unwrap();
    let lines = t.play(2, &cancel, &|_| {}).unwrap();
    let lines = lines.iter().map(|l| format!("{} {} {}{}{}", l.key.player, l.key.game, l.score, l.max_tile, l.moves));
    assert_eq!(digest(lines.collect()), "1837eaaf37cb63cd");
    let text = game_text(&tmp.path().join("b/games/uct_5--0002.txt"));
    assert_eq!(digest(vec![text]), "619e7fa691d2d3bc");
}
