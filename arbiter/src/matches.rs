//! Head-to-head matches between two players with alternating first player, and their
//! statistics (score with a 95% interval, Elo difference); and one-player matches (2048,
//! 2584): one player, many games, score statistics and reach rates.

use crate::openings::{Opening, Openings};
use dojo_core::game::sliding::{Rules, Sliding};
use dojo_core::game::{Action, Game, Outcome, Player, ToMove};
use dojo_core::ntuple::{GameScore, ScoreReport};
use dojo_core::rng::Rng;
use dojo_core::search::player::Agent;
use rand::{Rng as _, SeedableRng};
use serde::Serialize;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

/// One finished game of a match, from player A's point of view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameResult {
    pub index: u32,
    pub a_first: bool,
    /// 1 = A won, 0 = draw, -1 = A lost.
    pub result: i8,
    pub moves: String,
    /// The random moves that opened the pair of games ([`MatchPlan::opening_plies`]),
    /// played before `moves`; empty without.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub opening: String,
    /// The board it was played on (a random spec such as `connect4:saiblo` draws one per
    /// pair of games).
    pub board: String,
    /// Why the game ended other than by the rules: the loser's engine crashed, timed out
    /// or answered with an illegal or unreadable move.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<String>,
}

/// Wins, draws and losses of A against B.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Tally {
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Tally {
    pub fn add(&mut self, result: i8) {
        self.games += 1;
        match result {
            1 => self.wins += 1,
            0 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

    /// Points per game for A: wins count 1, draws 1/2.
    pub fn score(&self) -> f64 {
        if self.games == 0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games as f64
    }

    /// 95% Wilson score interval for A's score (well-behaved at 0% and 100%, unlike the
    /// normal approximation).
    pub fn interval(&self) -> (f64, f64) {
        wilson(self.score(), self.games as f64, 1.959_964)
    }

    /// Elo difference implied by the score (±inf at 0% or 100%, clamped to ±1000).
    pub fn elo(&self) -> f64 {
        elo_from_score(self.score())
    }
}

pub fn wilson(p: f64, n: f64, z: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

pub fn elo_from_score(score: f64) -> f64 {
    let s = score.clamp(1e-9, 1.0 - 1e-9);
    (-400.0 * (1.0 / s - 1.0).log10()).clamp(-1000.0, 1000.0)
}

/// The result of a whole match.
#[derive(Clone, Debug, Serialize)]
pub struct MatchResult {
    pub game: String,
    pub a: String,
    pub b: String,
    #[serde(flatten)]
    pub tally: Tally,
    pub score: f64,
    pub interval: [f64; 2],
    pub elo: f64,
    /// A's results split by who moved first.
    pub a_first: Tally,
    pub b_first: Tally,
}

impl MatchResult {
    pub fn summary(&self) -> String {
        let t = &self.tally;
        format!(
            "{a} vs {b} on {game}: {n} games, {a} {w} wins, {d} draws, {l} losses; score {s:.1}% (95% CI {lo:.1}%..{hi:.1}%), Elo {elo:+.0}\n  {a} moving first: {fw}-{fd}-{fl}; {b} moving first: {sw}-{sd}-{sl} (W-D-L for {a})",
            a = self.a,
            b = self.b,
            game = self.game,
            n = t.games,
            w = t.wins,
            d = t.draws,
            l = t.losses,
            s = 100.0 * self.score,
            lo = 100.0 * self.interval[0],
            hi = 100.0 * self.interval[1],
            elo = self.elo,
            fw = self.a_first.wins,
            fd = self.a_first.draws,
            fl = self.a_first.losses,
            sw = self.b_first.wins,
            sd = self.b_first.draws,
            sl = self.b_first.losses,
        )
    }
}

/// A finished game: how it ended, the final position and the moves played.
pub struct Played<G> {
    pub outcome: Outcome,
    pub end: G,
    pub moves: Vec<dojo_core::game::Action>,
    /// Set where a player failed to move (see [`Agent::try_select_move`]): the reason,
    /// named after the player, who loses.
    pub forfeit: Option<String>,
}

/// Plays one game between `first` and `second` from `start`. The players' randomness is
/// seeded from `rng`, and chance events (none in two-player games) are sampled from it. A
/// player that fails to move, or answers with an illegal move, loses.
pub fn play_game<G: Game>(
    mut game: G,
    first: &mut dyn Agent<G>,
    second: &mut dyn Agent<G>,
    rng: &mut Rng,
) -> Played<G> {
    first.new_game(rng.next_u64());
    second.new_game(rng.next_u64());
    let mut moves = Vec::new();
    loop {
        if let Some(outcome) = game.outcome() {
            return Played { outcome, end: game, moves, forfeit: None };
        }
        match game.to_move() {
            ToMove::Chance => game.sample_chance(rng),
            ToMove::Player(p) => {
                let agent: &mut dyn Agent<G> = if p == Player::First { &mut *first } else { &mut *second };
                match agent_moves(agent, &mut game) {
                    Ok(action) => moves.push(action),
                    Err(why) => {
                        let forfeit = Some(format!("{} forfeits: {why}", agent.name()));
                        return Played { outcome: Outcome::Win(p.other()), end: game, moves, forfeit };
                    }
                }
            }
        }
    }
}

/// Says whether a match's first games (in order, whole pairs) decide it.
pub type Decides<'a> = dyn Fn(&[GameResult]) -> bool + Sync + 'a;

/// How a match is played: `games` games on `threads` threads (each with its own pair of
/// agents), reproducible from `seed`; `cancel`, when set, stops it before the next game.
#[derive(Clone, Copy)]
pub struct MatchPlan<'a> {
    /// Games at most (all of them without `enough`).
    pub games: u32,
    pub threads: usize,
    pub seed: u64,
    pub cancel: Option<&'a AtomicBool>,
    /// Ends the match early: asked with the results of the first games in order (whole
    /// pairs), whether they decide it. The match keeps the shortest such prefix, so its
    /// result does not depend on which thread finished what first.
    pub enough: Option<&'a Decides<'a>>,
    /// Random plies played from `start`'s position before each pair of games (both games
    /// of a pair get the same ones; none in one-player games). Two deterministic players,
    /// such as two networks, would otherwise play the same two games over and over.
    pub opening_plies: usize,
    /// A book of openings instead (pair `k` opens with its line `k`, cycling): where
    /// given, `opening_plies` must be 0.
    pub openings: Option<&'a Openings>,
}

impl MatchPlan<'_> {
    pub fn new(games: u32, threads: usize, seed: u64) -> MatchPlan<'static> {
        MatchPlan { games, threads, seed, cancel: None, enough: None, opening_plies: 0, openings: None }
    }
}

/// The length of the shortest run of first games, in whole pairs, that `enough` says
/// decides the match, if the finished games (in any order) hold one. Runs up to `checked`
/// games were found undecided before and are not asked again; `checked` grows to the
/// longest run asked now.
fn deciding_prefix(results: &mut [GameResult], enough: &Decides<'_>, checked: &mut usize) -> Option<usize> {
    results.sort_by_key(|r| r.index);
    let contiguous = results.iter().enumerate().take_while(|(i, r)| r.index == *i as u32).count();
    let found = (*checked + 2..=contiguous).step_by(2).find(|&n| enough(&results[..n]));
    *checked = found.unwrap_or(contiguous - contiguous % 2).max(*checked);
    found
}

/// Plays a match between A and B. Games come in pairs: games 2k and 2k+1 start from the
/// same position (`start` is given the same random stream for both), A moving first in
/// the even one and B in the odd one, so a lucky opening or board favours neither side.
/// `on_game` sees every finished game as it ends. A cancelled match is an error.
pub fn play_match<G, FA, FB, S>(
    plan: MatchPlan<'_>,
    make_a: FA,
    make_b: FB,
    start: S,
    on_game: &(dyn Fn(&GameResult) + Sync),
) -> Result<MatchResult, String>
where
    G: Game,
    FA: Fn(u64) -> Result<Box<dyn Agent<G>>, String> + Sync,
    FB: Fn(u64) -> Result<Box<dyn Agent<G>>, String> + Sync,
    S: Fn(&mut Rng) -> G + Sync,
{
    let MatchPlan { games, threads, seed, cancel, enough, opening_plies, openings } = plan;
    let opening = match openings {
        Some(_) if opening_plies > 0 => {
            return Err(format!("a match opens from a book or with {opening_plies} random plies, not both"))
        }
        Some(book) => Opening::Book(book),
        None => Opening::Random(opening_plies),
    };
    let decided = AtomicBool::new(false);
    let probe = start(&mut Rng::seed_from_u64(pair_seed(seed, 0)));
    if probe.num_players() != 2 || probe.to_move() == ToMove::Chance || probe.outcome().is_some() {
        return Err(format!("{} is a one-player game; matches need two players", probe.spec().family()));
    }
    if let Some(book) = openings {
        book.check(&probe).map_err(|e| e.to_string())?;
    }
    let a_name = make_a(seed)?.name();
    let b_name = make_b(seed)?.name();
    let next = AtomicU32::new(0);
    // The finished games, and how many first games were found not to decide the match yet.
    let results: Mutex<(Vec<GameResult>, usize)> = Mutex::new((Vec::new(), 0));
    let threads = threads.clamp(1, games.max(1) as usize);
    let errors: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (next, results, errors, make_a, make_b, start) = (&next, &results, &errors, &make_a, &make_b, &start);
            let decided = &decided;
            scope.spawn(move || {
                let thread_seed = seed ^ (t as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                let (mut a, mut b) = match (make_a(thread_seed), make_b(thread_seed ^ 1)) {
                    (Ok(a), Ok(b)) => (a, b),
                    (Err(e), _) | (_, Err(e)) => {
                        *errors.lock().unwrap() = Some(e);
                        return;
                    }
                };
                loop {
                    if decided.load(Ordering::Relaxed) {
                        break;
                    }
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games || cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                        break;
                    }
                    let opening_seed = pair_seed(seed, index / 2);
                    let mut rng = Rng::seed_from_u64(opening_seed);
                    let mut game = start(&mut rng);
                    let before = game.clone();
                    let opening = match opening.open(&mut game, index / 2, &mut rng) {
                        Ok(moves) => before.moves_to_text(&moves),
                        Err(e) => {
                            *errors.lock().unwrap() = Some(e.to_string());
                            break;
                        }
                    };
                    let board = game.spec().to_string();
                    let a_first = index % 2 == 0;
                    let played = if a_first {
                        play_game(game, a.as_mut(), b.as_mut(), &mut rng)
                    } else {
                        play_game(game, b.as_mut(), a.as_mut(), &mut rng)
                    };
                    let a_player = if a_first { Player::First } else { Player::Second };
                    let result = GameResult {
                        index,
                        a_first,
                        result: played.outcome.value_for(a_player) as i8,
                        moves: played.end.moves_to_text(&played.moves),
                        opening,
                        board,
                        forfeit: played.forfeit,
                    };
                    on_game(&result);
                    let (all, checked) = &mut *results.lock().unwrap();
                    all.push(result);
                    if enough.is_some_and(|e| deciding_prefix(all, e, checked).is_some()) {
                        decided.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    if let Some(e) = errors.into_inner().unwrap() {
        return Err(e);
    }
    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err("the match was cancelled".into());
    }
    let (mut results, _) = results.into_inner().unwrap();
    results.sort_by_key(|r| r.index);
    if let Some(n) = enough.and_then(|e| deciding_prefix(&mut results, e, &mut 0)) {
        // Games past the deciding ones were in flight when it was decided: not counted.
        results.truncate(n);
    }
    let (mut tally, mut a_first, mut b_first) = (Tally::default(), Tally::default(), Tally::default());
    for r in &results {
        tally.add(r.result);
        if r.a_first {
            a_first.add(r.result)
        } else {
            b_first.add(r.result)
        }
    }
    let (lo, hi) = tally.interval();
    Ok(MatchResult {
        game: probe.spec().to_string(),
        a: a_name,
        b: b_name,
        score: tally.score(),
        interval: [lo, hi],
        elo: tally.elo(),
        tally,
        a_first,
        b_first,
    })
}

/// One finished game of a one-player match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SoloGame {
    pub index: u32,
    pub score: u64,
    /// The largest tile at the end (a face value).
    pub max_tile: u32,
    /// Player moves made.
    pub plies: u32,
    pub moves: String,
    /// Why the player stopped before the game was over (it failed to move).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<String>,
}

/// The result of a one-player match.
#[derive(Clone, Debug, Serialize)]
pub struct SoloResult {
    pub game: String,
    pub player: String,
    #[serde(flatten)]
    pub report: ScoreReport,
    /// Player moves over all games.
    pub total_moves: u64,
    /// Wall-clock seconds the games took (all threads; building the players not counted).
    pub seconds: f64,
}

impl SoloResult {
    /// The player and game, the score statistics, and the reach-rate table.
    pub fn summary(&self) -> String {
        format!(
            "{} on {}: {}
{}",
            self.player,
            self.game,
            self.report.summary(),
            self.report.table()
        )
    }
}

/// Plays `plan.games` games of a one-player sliding game (2048, 2584) with the player
/// `make` builds, one per thread, and reports their scores and reach rates. Game `i`
/// depends only on `i` and `plan.seed` (its tile spawns and the player's seed come from
/// them), so a match plays the same games on any number of threads. Early stops
/// (`plan.enough`) are for pairs of two-player games and are refused here.
pub fn play_solo<R, F, S>(
    plan: MatchPlan<'_>,
    make: F,
    start: S,
    on_game: &(dyn Fn(&SoloGame) + Sync),
) -> Result<SoloResult, String>
where
    R: Rules,
    F: Fn(u64) -> Result<Box<dyn Agent<Sliding<R>>>, String>,
    S: Fn(&mut Rng) -> Sliding<R> + Sync,
{
    let MatchPlan { games, threads, seed, cancel, enough, .. } = plan;
    if enough.is_some() {
        return Err("a one-player match has no early stop: it plays every game".into());
    }
    let spec = start(&mut Rng::seed_from_u64(pair_seed(seed, 0))).spec();
    let threads = threads.clamp(1, games.max(1) as usize);
    // Players are built here, before the threads, so the first one names the player and
    // what they share (an n-tuple network) is loaded once and stays loaded.
    let players = (0..threads)
        .map(|t| make(seed ^ (t as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
        .collect::<Result<Vec<_>, String>>()?;
    let player = players[0].name();
    let clock = std::time::Instant::now();
    let next = AtomicU32::new(0);
    let results: Mutex<Vec<SoloGame>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for mut agent in players {
            let (next, results, start) = (&next, &results, &start);
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= games || cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                    break;
                }
                let mut rng = Rng::seed_from_u64(pair_seed(seed, index));
                let mut game = start(&mut rng);
                agent.new_game(rng.next_u64());
                let (mut moves, mut forfeit) = (Vec::new(), None);
                while game.outcome().is_none() {
                    if game.to_move() == ToMove::Chance {
                        game.sample_chance(&mut rng);
                        continue;
                    }
                    match agent_moves(&mut *agent, &mut game) {
                        Ok(action) => moves.push(action),
                        Err(why) => {
                            forfeit = Some(format!("{} forfeits: {why}", agent.name()));
                            break;
                        }
                    }
                }
                let result = SoloGame {
                    index,
                    score: game.score(),
                    max_tile: game.max_tile(),
                    plies: moves.len() as u32,
                    moves: game.moves_to_text(&moves),
                    forfeit,
                };
                on_game(&result);
                results.lock().unwrap().push(result);
            });
        }
    });
    let seconds = clock.elapsed().as_secs_f64();
    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err("the match was cancelled".into());
    }
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.index);
    let scores: Vec<GameScore> = results.iter().map(|r| GameScore { score: r.score, max_tile: r.max_tile }).collect();
    Ok(SoloResult {
        game: spec.to_string(),
        player,
        report: ScoreReport::new(&spec, &scores),
        total_moves: results.iter().map(|r| u64::from(r.plies)).sum(),
        seconds,
    })
}

/// The seed of the starting position of the match's `pair`-th pair of games.
/// Asks `agent` for a move in `game` and plays it: the move, or why the agent forfeits
/// (it failed, or chose an illegal move).
fn agent_moves<G: Game>(agent: &mut dyn Agent<G>, game: &mut G) -> Result<Action, String> {
    let action = agent.try_select_move(game).map_err(|e| e.to_string())?;
    game.play(action).map_err(|e| format!("illegal move {}: {e}", game.action_to_text(action)))?;
    Ok(action)
}

fn pair_seed(seed: u64, pair: u32) -> u64 {
    seed.wrapping_add(u64::from(pair)).wrapping_mul(0x2545_f491_4f6c_dd1d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_core::game::connect4::Connect4;
    use dojo_core::search::mcts::{Connect4Rollout, Mcts, MctsConfig};
    use dojo_core::search::player::RandomAgent;

    type MakeC4 = Result<Box<dyn Agent<Connect4>>, String>;

    fn random_c4(seed: u64) -> MakeC4 {
        Ok(Box::new(RandomAgent::new(Rng::seed_from_u64(seed))))
    }

    /// A maker of `mcts:iterations` players with seed 001's rollouts.
    fn mcts_c4(iterations: u32) -> impl Fn(u64) -> MakeC4 + Sync + Copy {
        move |seed| {
            Ok(Box::new(Mcts::new(MctsConfig::with_iterations(iterations), Connect4Rollout, Rng::seed_from_u64(seed))))
        }
    }

    #[test]
    fn one_player_games_are_refused() {
        use dojo_core::game::sliding::Twenty48;
        let make = |s: u64| -> Result<Box<dyn Agent<Twenty48>>, String> {
            Ok(Box::new(RandomAgent::new(Rng::seed_from_u64(s))))
        };
        let start = |rng: &mut Rng| {
            let mut g = Twenty48::new();
            g.sample_chance(rng);
            g.sample_chance(rng);
            g
        };
        let err = play_match(MatchPlan::new(2, 1, 1), make, make, start, &|_| {}).unwrap_err();
        assert_eq!(err, "2048 is a one-player game; matches need two players");
    }

    fn start_2048(rng: &mut Rng) -> dojo_core::game::sliding::Twenty48 {
        dojo_core::game::sliding::Sliding::new_game(dojo_core::game::sliding::Rules2048, rng)
    }

    #[test]
    fn one_player_matches_play_the_same_games_on_any_threads_and_report_scores() {
        use dojo_core::game::sliding::Twenty48;
        let make = |s: u64| -> Result<Box<dyn Agent<Twenty48>>, String> {
            Ok(Box::new(RandomAgent::new(Rng::seed_from_u64(s))))
        };
        let run = |threads: usize| {
            let seen = Mutex::new(Vec::new());
            let r = play_solo(MatchPlan::new(12, threads, 5), make, start_2048, &|g| {
                seen.lock().unwrap().push((g.index, g.score, g.moves.clone()))
            })
            .unwrap();
            let mut seen = seen.into_inner().unwrap();
            seen.sort();
            (r, seen)
        };
        let (one, games) = run(1);
        let (three, games3) = run(3);
        assert_eq!(games, games3);
        assert_eq!(games.len(), 12);
        assert_eq!(one.report, three.report);
        assert_eq!(one.total_moves, three.total_moves);
        assert_eq!((one.game.as_str(), one.player.as_str(), one.report.games), ("2048", "random", 12));
        // The report is the games': mean of the scores seen, and every game moved.
        let mean = games.iter().map(|g| g.1 as f64).sum::<f64>() / 12.0;
        assert!((one.report.mean - mean).abs() < 1e-9);
        assert!(one.total_moves >= 12 * 20, "{}", one.total_moves);
        assert!(one.summary().starts_with("random on 2048: 12 games: mean score"), "{}", one.summary());
        assert!(one.summary().contains("    2048 "), "{}", one.summary());
    }

    #[test]
    fn one_player_matches_refuse_early_stops_and_report_cancellation() {
        use dojo_core::game::sliding::Twenty48;
        let make = |s: u64| -> Result<Box<dyn Agent<Twenty48>>, String> {
            Ok(Box::new(RandomAgent::new(Rng::seed_from_u64(s))))
        };
        let never = |_: &[GameResult]| false;
        let plan = MatchPlan { enough: Some(&never), ..MatchPlan::new(2, 1, 1) };
        assert!(play_solo(plan, make, start_2048, &|_| {}).unwrap_err().contains("no early stop"));
        let cancel = AtomicBool::new(true);
        let plan = MatchPlan { cancel: Some(&cancel), ..MatchPlan::new(4, 1, 1) };
        let err = play_solo(plan, make, start_2048, &|_| panic!("no game is played")).unwrap_err();
        assert_eq!(err, "the match was cancelled");
        let failing = |_: u64| -> Result<Box<dyn Agent<Twenty48>>, String> { Err("no such player".into()) };
        assert_eq!(play_solo(MatchPlan::new(2, 2, 1), failing, start_2048, &|_| {}).unwrap_err(), "no such player");
    }

    #[test]
    fn matches_alternate_colours_and_count_results() {
        let (strong, weak) = (mcts_c4(300), random_c4);
        let seen = Mutex::new(0);
        let r = play_match(MatchPlan::new(10, 2, 5), strong, weak, |_: &mut Rng| Connect4::standard(), &|_| {
            *seen.lock().unwrap() += 1
        })
        .unwrap();
        assert_eq!(*seen.lock().unwrap(), 10);
        assert_eq!((r.a_first.games, r.b_first.games), (5, 5));
        assert_eq!(r.tally.wins + r.tally.draws + r.tally.losses, 10);
        assert!(r.tally.wins >= 9, "{r:?}");
        assert_eq!((r.a.as_str(), r.b.as_str()), ("mcts:300", "random"));
    }

    #[test]
    fn a_match_that_is_decided_early_keeps_the_same_deciding_games_on_any_threads() {
        // Decided once A (random, so results vary from game to game) has 3 points in whole
        // pairs: the games kept are a prefix, the same on 1 and 4 threads.
        let enough = |results: &[GameResult]| results.iter().map(|r| f64::from(r.result + 1) / 2.0).sum::<f64>() >= 3.0;
        let start = |rng: &mut Rng| {
            let mut g = Connect4::standard();
            dojo_core::game::play_random_opening(&mut g, 2, rng);
            g
        };
        let run = |threads| {
            let plan = MatchPlan { enough: Some(&enough), ..MatchPlan::new(40, threads, 11) };
            play_match(plan, random_c4, random_c4, start, &|_| {}).unwrap().tally
        };
        let (one, four) = (run(1), run(4));
        assert_eq!(one, four);
        assert!(one.games < 40 && one.games % 2 == 0, "{one:?}");
        let points = f64::from(one.wins) + f64::from(one.draws) / 2.0;
        assert!(points >= 3.0, "{one:?}");
        // Without the last pair it was not yet decided.
        assert!(points - 2.0 < 3.0, "{one:?}");
        // Never decided: every game is played.
        let never = |_: &[GameResult]| false;
        let plan = MatchPlan { enough: Some(&never), ..MatchPlan::new(6, 2, 11) };
        assert_eq!(play_match(plan, random_c4, random_c4, start, &|_| {}).unwrap().tally.games, 6);
    }

    #[test]
    fn both_games_of_a_pair_start_from_one_opening_and_cancel_stops_a_match() {
        use dojo_core::game::play_random_opening;
        let random = random_c4;
        let openings = Mutex::new(Vec::new());
        let start = |rng: &mut Rng| {
            let mut g = Connect4::standard();
            let moves = play_random_opening(&mut g, 4, rng);
            openings.lock().unwrap().push(g.moves_to_text(&moves));
            g
        };
        // The probe game draws one opening before the match: the pair of the first game.
        let r = play_match(MatchPlan::new(12, 3, 7), random, random, start, &|_| {}).unwrap();
        assert_eq!(r.tally.games, 12);
        let mut seen = openings.into_inner().unwrap();
        assert_eq!(seen.len(), 13);
        seen.sort();
        let mut counts = std::collections::BTreeMap::new();
        for o in &seen {
            assert_eq!(o.len(), 4, "{o}");
            *counts.entry(o.clone()).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 6, "six pairs, six different openings: {counts:?}");
        assert_eq!(counts.values().filter(|&&n| n == 2).count(), 5, "{counts:?}");
        assert_eq!(counts.values().filter(|&&n| n == 3).count(), 1, "the probe's opening is the first pair's");

        let cancel = AtomicBool::new(true);
        let plan = MatchPlan { cancel: Some(&cancel), ..MatchPlan::new(4, 1, 1) };
        let err =
            play_match(plan, random, random, |_: &mut Rng| Connect4::standard(), &|_| panic!("no game is played"))
                .unwrap_err();
        assert_eq!(err, "the match was cancelled");
    }

    #[test]
    fn a_match_plays_the_same_games_on_any_number_of_threads() {
        // Each thread has its own agents, and which games a thread plays depends on timing;
        // every game still depends only on its index and the match's seed.
        let (mcts, random) = (mcts_c4(20), random_c4);
        let games = |threads: usize, seed: u64| {
            let all = Mutex::new(Vec::new());
            play_match(MatchPlan::new(16, threads, seed), mcts, random, |_: &mut Rng| Connect4::standard(), &|g| {
                all.lock().unwrap().push((g.index, g.moves.clone()))
            })
            .unwrap();
            let mut all = all.into_inner().unwrap();
            all.sort();
            all
        };
        let one = games(1, 3);
        assert_eq!(one.len(), 16);
        assert_eq!(games(3, 3), one);
        assert_eq!(games(4, 3), one);
        assert_ne!(games(1, 4), one, "another seed plays other games");
    }

    #[test]
    fn wilson_interval_is_sane_at_the_extremes_and_the_middle() {
        let (lo, hi) = wilson(1.0, 100.0, 1.959_964);
        assert!((lo - 0.963).abs() < 0.001 && hi == 1.0, "{lo} {hi}");
        let (lo, hi) = wilson(0.5, 100.0, 1.959_964);
        assert!((lo - 0.404).abs() < 0.001 && (hi - 0.596).abs() < 0.001, "{lo} {hi}");
        let t = Tally { games: 4, wins: 1, draws: 2, losses: 1 };
        assert_eq!(t.score(), 0.5);
        assert_eq!(t.elo(), 0.0);
        assert!((elo_from_score(0.75) - 190.85).abs() < 0.1);
    }
}
