//! Matches: the players of one game play many games, reproducible from a seed on any number
//! of threads. What a match measures is its game's contest ([`crate::contest`]): two
//! players play games in pairs from one start, A moving first in one and B in the other,
//! for a score with a 95% interval and an Elo difference ([`TwoPlayer`]); one player plays
//! every game alone, for its scores and reach rates ([`OnePlayer`]: 2048, 2584).

use crate::contest::{OnePlayer, TwoPlayer};
use crate::openings::{Opening, Openings, OpeningsError};
use crate::players::PlayerError;
use dojo_base::rng::Rng;
use dojo_external::child::ChildError;
use dojo_external::forfeit::ForfeitKind;
use dojo_external::gomocup::manager::EngineError;
use dojo_external::saiblo::StrategyError;
use dojo_game::GameScore;
use dojo_game::{Action, AnyGame, Game, GameError, GameSpec, Outcome, Player, ToMove};
use dojo_record::score::{score_of_position, ScoreReport};
use dojo_search::player::{Agent, ClockUse, MoveError};
use rand::{Rng as _, SeedableRng};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;

/// Why a match cannot be played, or stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// A two-player match of a one-player game (`family`).
    #[error("{family} is a one-player game; matches need two players")]
    NeedsTwoPlayers { family: &'static str },
    /// A one-player match of a game that is not one, or has no score.
    #[error("{family} is not a one-player game with a score")]
    NotScored { family: &'static str },
    #[error("a one-player match has no early stop: it plays every game")]
    EarlyStop,
    #[error("{family} is a one-player game: its games start from their own random tiles, with no openings")]
    OnePlayerOpenings { family: &'static str },
    #[error("a match opens from a book or with {plies} random plies, not both")]
    BookAndPlies { plies: usize },
    /// A match of `game` needs `needs` players and was given `given`.
    #[error("a match of {game} has {needs} players, not {given}")]
    PlayerCount { game: GameSpec, needs: usize, given: usize },
    /// The opening book does not fit the game, or an opening cannot be played.
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    /// A player cannot be built (boxed: a player's error is large, a match's is returned
    /// often).
    #[error(transparent)]
    Player(Box<PlayerError>),
    #[error("the match was cancelled")]
    Cancelled,
}

impl From<PlayerError> for MatchError {
    fn from(error: PlayerError) -> MatchError {
        MatchError::Player(Box::new(error))
    }
}

/// What a match is in each contest: who plays a game, how a game is recorded, and what the
/// games add up to. The match itself (threads, seeds, openings, early stops) is
/// [`play_match`]'s, the same for both.
pub trait MatchContest: Copy + Send + Sync + 'static {
    /// Players in each game, and games from one start: each player moves first in one of
    /// them (2: a pair of games; 1: a game alone).
    const PLAYERS: usize;
    /// One finished game of a match.
    type Game: Clone + std::fmt::Debug + Serialize + Send;
    /// The result of a whole match.
    type Result;
    /// Why this contest cannot play a match of `probe`'s game with `plan`, if it cannot.
    fn check<G: Game + Into<AnyGame>>(probe: &G, plan: &MatchPlan<'_, Self::Game>) -> Result<(), MatchError>;
    /// Game `index` of the match, as it was `played` from a start opened by the moves
    /// `opening` (text) on the board `board`.
    fn record<G: Game + Into<AnyGame>>(index: u32, played: Played<G>, opening: String, board: String) -> Self::Game;
    /// A game's number in the match.
    fn index(game: &Self::Game) -> u32;
    /// The match of `players` (their names) on `game`: its `games` in order, played in
    /// `seconds` (all threads; building the players not counted).
    fn result(game: &GameSpec, players: Vec<String>, games: &[Self::Game], seconds: f64) -> Self::Result;
}

/// One finished game of a two-player match, from player A's point of view.
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
    /// What kind of failure `forfeit` was, for counting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit_kind: Option<ForfeitKind>,
    /// How long A and B thought in this game, for players timed by a clock of their own
    /// (Gomocup brains): [`Agent::clock_use`].
    #[serde(skip_serializing_if = "no_clocks")]
    pub clocks: [Option<ClockUse>; 2],
}

fn no_clocks(clocks: &[Option<ClockUse>; 2]) -> bool {
    clocks.iter().all(Option::is_none)
}

/// Wins, draws and losses of A against B: how every contest counts a player's games (a
/// match, a gate's record, a tournament's standings and gauntlet), which print and store
/// these four fields as they are (`#[serde(flatten)]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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

impl MatchContest for TwoPlayer {
    const PLAYERS: usize = 2;
    type Game = GameResult;
    type Result = MatchResult;

    fn check<G: Game + Into<AnyGame>>(probe: &G, _plan: &MatchPlan<'_, GameResult>) -> Result<(), MatchError> {
        if probe.is_one_player() || probe.to_move() == ToMove::Chance || probe.outcome().is_some() {
            return Err(MatchError::NeedsTwoPlayers { family: probe.spec().family() });
        }
        Ok(())
    }

    /// A moves first (after the opening) in the even games: the first of each pair.
    fn record<G: Game + Into<AnyGame>>(index: u32, played: Played<G>, opening: String, board: String) -> GameResult {
        let a_first = index.is_multiple_of(2);
        let a_player = if a_first { Player::First } else { Player::Second };
        // Seats are in the order of play: A's is the first where A moved first.
        let seat = |k: usize| played.clocks.get(k).copied().flatten();
        let clocks = if a_first { [seat(0), seat(1)] } else { [seat(1), seat(0)] };
        GameResult {
            index,
            a_first,
            result: played.value_for(a_player),
            moves: played.end.moves_to_text(&played.moves),
            opening,
            board,
            forfeit: played.forfeit,
            forfeit_kind: played.forfeit_kind,
            clocks,
        }
    }

    fn index(game: &GameResult) -> u32 {
        game.index
    }

    fn result(game: &GameSpec, players: Vec<String>, games: &[GameResult], _seconds: f64) -> MatchResult {
        let (mut tally, mut a_first, mut b_first) = (Tally::default(), Tally::default(), Tally::default());
        for r in games {
            tally.add(r.result);
            if r.a_first {
                a_first.add(r.result)
            } else {
                b_first.add(r.result)
            }
        }
        let (lo, hi) = tally.interval();
        let [a, b]: [String; 2] = players.try_into().expect("a two-player match has two players");
        MatchResult {
            game: game.to_string(),
            a,
            b,
            score: tally.score(),
            interval: [lo, hi],
            elo: tally.elo(),
            tally,
            a_first,
            b_first,
        }
    }
}

/// One finished game of a one-player match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OnePlayerGame {
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
pub struct OnePlayerResult {
    pub game: String,
    pub player: String,
    #[serde(flatten)]
    pub report: ScoreReport,
    /// Player moves over all games.
    pub total_moves: u64,
    /// Wall-clock seconds the games took (all threads; building the players not counted).
    pub seconds: f64,
}

impl OnePlayerResult {
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

/// A one-player match plays game `i` from seed `i` alone (its tile spawns and the player's
/// seed come from it), so a match plays the same games on any number of threads, and two
/// matches of one plan play every player on the same games.
impl MatchContest for OnePlayer {
    const PLAYERS: usize = 1;
    type Game = OnePlayerGame;
    type Result = OnePlayerResult;

    fn check<G: Game + Into<AnyGame>>(probe: &G, plan: &MatchPlan<'_, OnePlayerGame>) -> Result<(), MatchError> {
        let family = probe.spec().family();
        if !probe.is_one_player() || score_of_position(&probe.clone().into()).is_none() {
            return Err(MatchError::NotScored { family });
        }
        if plan.enough.is_some() {
            return Err(MatchError::EarlyStop);
        }
        if plan.opening_plies > 0 || plan.openings.is_some() {
            return Err(MatchError::OnePlayerOpenings { family });
        }
        Ok(())
    }

    fn record<G: Game + Into<AnyGame>>(
        index: u32,
        played: Played<G>,
        _opening: String,
        _board: String,
    ) -> OnePlayerGame {
        // `check` made sure the game has a score.
        let end = score_of_position(&played.end.clone().into()).unwrap_or(GameScore { score: 0, max_tile: 0 });
        OnePlayerGame {
            index,
            score: end.score,
            max_tile: end.max_tile,
            plies: played.moves.len() as u32,
            moves: played.end.moves_to_text(&played.moves),
            forfeit: played.forfeit,
        }
    }

    fn index(game: &OnePlayerGame) -> u32 {
        game.index
    }

    fn result(game: &GameSpec, players: Vec<String>, games: &[OnePlayerGame], seconds: f64) -> OnePlayerResult {
        let scores: Vec<GameScore> = games.iter().map(|g| GameScore { score: g.score, max_tile: g.max_tile }).collect();
        OnePlayerResult {
            game: game.to_string(),
            player: players.into_iter().next().expect("a one-player match has its player"),
            report: ScoreReport::new(game, &scores),
            total_moves: games.iter().map(|g| u64::from(g.plies)).sum(),
            seconds,
        }
    }
}

/// A finished game: the final position, the moves played, and how it ended.
pub struct Played<G> {
    pub end: G,
    pub moves: Vec<Action>,
    /// How the game ended: by the rules, or, where a player failed to move, as a loss for
    /// that player. None when the one player of a one-player game failed: its game stops
    /// where it stood (`end`), with the score it had.
    pub outcome: Option<Outcome>,
    /// Set where a player failed to move (see [`Agent::try_select_move`]): the reason,
    /// named after the player.
    pub forfeit: Option<String>,
    /// The kind of that failure.
    pub forfeit_kind: Option<ForfeitKind>,
    /// Each seat's thinking in the game, in seat order ([`Agent::clock_use`]).
    pub clocks: Vec<Option<ClockUse>>,
}

impl<G> Played<G> {
    /// The result for `player`: 1 won, 0 drawn (or a score), -1 lost.
    pub fn value_for(&self, player: Player) -> i8 {
        self.outcome.map_or(0, |o| o.value_for(player) as i8)
    }
}

/// Plays one game from `game` with `seats[k]` playing player `k` (one seat in a one-player
/// game, two in the others). The players' randomness is seeded from `rng`, in seat order,
/// and chance events are sampled from it. A player that fails to move, or answers with an
/// illegal move, loses (and a one-player game stops there).
pub fn play_game<G: Game>(mut game: G, seats: &mut [&mut (dyn Agent<G> + '_)], rng: &mut Rng) -> Played<G> {
    for seat in seats.iter_mut() {
        seat.new_game(rng.next_u64());
    }
    let mut moves = Vec::new();
    let clocks = |seats: &[&mut (dyn Agent<G> + '_)]| seats.iter().map(|s| s.clock_use()).collect();
    loop {
        if let Some(outcome) = game.outcome() {
            let clocks = clocks(seats);
            return Played { end: game, moves, outcome: Some(outcome), forfeit: None, forfeit_kind: None, clocks };
        }
        match game.to_move() {
            ToMove::Chance => game.sample_chance(rng),
            ToMove::Player(p) => {
                let agent = &mut *seats[p.index()];
                match agent_moves(agent, &mut game) {
                    Ok(action) => moves.push(action),
                    Err(why) => {
                        let forfeit = Some(format!("{} forfeits: {why}", agent.name()));
                        let outcome = (!game.is_one_player()).then_some(Outcome::Win(p.other()));
                        let (forfeit_kind, clocks) = (Some(why.kind()), clocks(seats));
                        return Played { end: game, moves, outcome, forfeit, forfeit_kind, clocks };
                    }
                }
            }
        }
    }
}

/// Says whether a match's first games (in order, whole starts) decide it.
pub type Decides<'a, R = GameResult> = dyn Fn(&[R]) -> bool + Sync + 'a;

/// How a match is played: `games` games on `threads` threads (each with its own players),
/// reproducible from `seed`; `cancel`, when set, stops it before the next game. `R` is the
/// record of one game ([`MatchContest::Game`]).
pub struct MatchPlan<'a, R = GameResult> {
    /// Games at most (all of them without `enough`).
    pub games: u32,
    pub threads: usize,
    pub seed: u64,
    pub cancel: Option<&'a AtomicBool>,
    /// Ends the match early: asked with the results of the first games in order (whole
    /// pairs), whether they decide it. The match keeps the shortest such prefix, so its
    /// result does not depend on which thread finished what first. Two-player matches only.
    pub enough: Option<&'a Decides<'a, R>>,
    /// Random plies played from `start`'s position before each pair of games (both games
    /// of a pair get the same ones; none in one-player games). Two deterministic players,
    /// such as two networks, would otherwise play the same two games over and over.
    pub opening_plies: usize,
    /// A book of openings instead (pair `k` opens with its line `k`, cycling): where
    /// given, `opening_plies` must be 0.
    pub openings: Option<&'a Openings>,
}

// By hand: derived, they would ask `R: Clone`.
impl<R> Clone for MatchPlan<'_, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R> Copy for MatchPlan<'_, R> {}

impl<R> MatchPlan<'_, R> {
    pub fn new(games: u32, threads: usize, seed: u64) -> MatchPlan<'static, R> {
        MatchPlan { games, threads, seed, cancel: None, enough: None, opening_plies: 0, openings: None }
    }
}

/// The length of the shortest run of first games, in whole starts (`per_start` games each),
/// that `enough` says decides the match, if the finished games (in any order) hold one.
/// Runs up to `checked` games were found undecided before and are not asked again;
/// `checked` grows to the longest run asked now.
fn deciding_prefix<C: MatchContest>(
    results: &mut [C::Game],
    enough: &Decides<'_, C::Game>,
    checked: &mut usize,
) -> Option<usize> {
    let per_start = C::PLAYERS;
    results.sort_by_key(C::index);
    let contiguous = results.iter().enumerate().take_while(|(i, r)| C::index(r) == *i as u32).count();
    let found = (*checked + per_start..=contiguous).step_by(per_start).find(|&n| enough(&results[..n]));
    *checked = found.unwrap_or(contiguous - contiguous % per_start).max(*checked);
    found
}

/// Makes a player of a match from a seed: its randomness, and each copy's on its thread.
pub type MakePlayer<'a, G> = dyn Fn(u64) -> Result<Box<dyn Agent<G>>, PlayerError> + 'a;

/// Plays a match of `contest` between `players` (as many as a game of the contest seats:
/// A and B, or the one player). The games from one start (a pair; a single game in a
/// one-player match) start from the same position (`start` is given the same random stream
/// for each), player `k` moving first in game `k` of them, so a lucky opening or board
/// favours no one. Each thread gets its own copy of every player, made before the games
/// start (so what copies share, an n-tuple network, is loaded once). `on_game` sees every
/// finished game as it ends. A cancelled match is an error.
pub fn play_match<C, G, S>(
    _contest: C,
    plan: MatchPlan<'_, C::Game>,
    players: &[&MakePlayer<'_, G>],
    start: S,
    on_game: &(dyn Fn(&C::Game) + Sync),
) -> Result<C::Result, MatchError>
where
    C: MatchContest,
    G: Game + Into<AnyGame>,
    S: Fn(&mut Rng) -> G + Sync,
{
    let MatchPlan { games, threads, seed, cancel, enough, .. } = plan;
    let probe = start(&mut Rng::seed_from_u64(start_seed(seed, 0)));
    let opening = check_plan::<C, G>(&probe, &plan, players.len())?;
    let seats = seat_players(players, threads.clamp(1, games.max(1) as usize), seed)?;
    let names: Vec<String> = seats[0].iter().map(|p| p.name()).collect();
    let per_start = C::PLAYERS as u32;
    let decided = AtomicBool::new(false);
    let next = AtomicU32::new(0);
    // The finished games, and how many first games were found not to decide the match yet.
    let results: Mutex<(Vec<C::Game>, usize)> = Mutex::new((Vec::new(), 0));
    let errors: Mutex<Option<OpeningsError>> = Mutex::new(None);
    let clock = std::time::Instant::now();
    std::thread::scope(|scope| {
        for mut seat in seats {
            let (next, results, errors, start, decided) = (&next, &results, &errors, &start, &decided);
            scope.spawn(move || loop {
                if decided.load(Ordering::Relaxed) {
                    break;
                }
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= games || cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                    break;
                }
                let start_no = index / per_start;
                let mut rng = Rng::seed_from_u64(start_seed(seed, start_no));
                let mut game = start(&mut rng);
                let before = game.clone();
                let opening = match opening.open(&mut game, start_no, &mut rng) {
                    Ok(moves) => before.moves_to_text(&moves),
                    Err(e) => {
                        *errors.lock().unwrap() = Some(e);
                        break;
                    }
                };
                let board = game.spec().to_string();
                // Game k of a start: the players in turn from player k.
                let mut order: Vec<&mut (dyn Agent<G> + 'static)> = seat.iter_mut().map(|p| p.as_mut()).collect();
                order.rotate_left((index % per_start) as usize);
                let played = play_game(game, &mut order, &mut rng);
                let result = C::record(index, played, opening, board);
                on_game(&result);
                let (all, checked) = &mut *results.lock().unwrap();
                all.push(result);
                if enough.is_some_and(|e| deciding_prefix::<C>(all, e, checked).is_some()) {
                    decided.store(true, Ordering::Relaxed);
                }
            });
        }
    });
    let seconds = clock.elapsed().as_secs_f64();
    if let Some(e) = errors.into_inner().unwrap() {
        return Err(e.into());
    }
    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err(MatchError::Cancelled);
    }
    let (mut results, _) = results.into_inner().unwrap();
    results.sort_by_key(C::index);
    if let Some(n) = enough.and_then(|e| deciding_prefix::<C>(&mut results, e, &mut 0)) {
        // Games past the deciding ones were in flight when it was decided: not counted.
        results.truncate(n);
    }
    Ok(C::result(&probe.spec(), names, &results, seconds))
}

/// Checks a match can be played from `probe` (its first start) with `players` players,
/// and how its games open.
fn check_plan<'a, C: MatchContest, G: Game + Into<AnyGame>>(
    probe: &G,
    plan: &MatchPlan<'a, C::Game>,
    players: usize,
) -> Result<Opening<'a>, MatchError> {
    let opening = match plan.openings {
        Some(_) if plan.opening_plies > 0 => return Err(MatchError::BookAndPlies { plies: plan.opening_plies }),
        Some(book) => Opening::Book(book),
        None => Opening::Random(plan.opening_plies),
    };
    C::check(probe, plan)?;
    if players != C::PLAYERS {
        return Err(MatchError::PlayerCount { game: probe.spec(), needs: C::PLAYERS, given: players });
    }
    if let Some(book) = plan.openings {
        book.check(probe)?;
    }
    Ok(opening)
}

/// One thread's players, in seat order.
type Seat<G> = Vec<Box<dyn Agent<G>>>;

/// Each thread's copy of every player: player `k` of thread `t` seeded from the thread's
/// seed and `k`.
fn seat_players<G: Game>(
    players: &[&MakePlayer<'_, G>],
    threads: usize,
    seed: u64,
) -> Result<Vec<Seat<G>>, PlayerError> {
    (0..threads)
        .map(|t| {
            let thread_seed = seed ^ (t as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            players.iter().enumerate().map(|(k, make)| make(thread_seed ^ k as u64)).collect()
        })
        .collect()
}

/// Why an agent forfeits a game: it failed, or chose an illegal move.
#[derive(Debug, thiserror::Error)]
enum Forfeit {
    #[error(transparent)]
    Failed(#[from] MoveError),
    #[error("illegal move {text}: {error}")]
    Illegal { text: String, error: GameError },
}

impl Forfeit {
    /// The kind of failure, where the engine's error is one the arbiter knows.
    fn kind(&self) -> ForfeitKind {
        let engine = match self {
            Forfeit::Illegal { .. } => return ForfeitKind::Illegal,
            Forfeit::Failed(MoveError::Engine(engine)) => engine,
            Forfeit::Failed(_) => return ForfeitKind::Other,
        };
        if let Some(brain) = engine.downcast_ref::<EngineError>() {
            brain.kind()
        } else if let Some(strategy) = engine.downcast_ref::<StrategyError>() {
            strategy.kind()
        } else if let Some(child) = engine.downcast_ref::<ChildError>() {
            child.kind()
        } else {
            ForfeitKind::Other
        }
    }
}

/// Asks `agent` for a move in `game` and plays it: the move, or why the agent forfeits.
fn agent_moves<G: Game>(agent: &mut dyn Agent<G>, game: &mut G) -> Result<Action, Forfeit> {
    let action = agent.try_select_move(game)?;
    game.play(action).map_err(|error| Forfeit::Illegal { text: game.action_to_text(action), error })?;
    Ok(action)
}

/// The seed of the match's `start`-th start (pair of games): its opening and every
/// player's randomness in its games. Seed and start are hashed together (splitmix64's
/// finaliser over both, each mixed first), so the matches of two seeds share no start: a
/// sum of the two made seed s + 1's starts seed s's shifted by one, and "three seeds of
/// 100 games" replayed one match's games.
fn start_seed(seed: u64, start: u32) -> u64 {
    let mut z = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(start).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contest::{OnePlayer, TwoPlayer};
    use dojo_game::connect4::Connect4;
    use dojo_game::Chance;
    use dojo_search::mcts::{Connect4Rollout, Mcts, MctsConfig};
    use dojo_search::player::RandomAgent;

    type MakeC4 = Result<Box<dyn Agent<Connect4>>, PlayerError>;

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
        use dojo_game::sliding::Twenty48;
        let make = |s: u64| -> Result<Box<dyn Agent<Twenty48>>, PlayerError> {
            Ok(Box::new(RandomAgent::new(Rng::seed_from_u64(s))))
        };
        let start = |rng: &mut Rng| {
            let mut g = Twenty48::new();
            g.sample_chance(rng);
            g.sample_chance(rng);
            g
        };
        let err = play_match(TwoPlayer, MatchPlan::new(2, 1, 1), &[&make, &make], start, &|_| {}).unwrap_err();
        assert_eq!(err.to_string(), "2048 is a one-player game; matches need two players");
    }

    fn start_2048(rng: &mut Rng) -> dojo_game::sliding::Twenty48 {
        dojo_game::sliding::Sliding::new_game(dojo_game::sliding::Rules2048, rng)
    }

    #[test]
    fn one_player_matches_play_the_same_games_on_any_threads_and_report_scores() {
        use dojo_game::sliding::Twenty48;
        let make = |s: u64| -> Result<Box<dyn Agent<Twenty48>>, PlayerError> {
            Ok(Box::new(RandomAgent::new(Rng::seed_from_u64(s))))
        };
        let run = |threads: usize| {
            let seen = Mutex::new(Vec::new());
            let r = play_match(OnePlayer, MatchPlan::new(12, threads, 5), &[&make], start_2048, &|g| {
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
        use dojo_game::sliding::Twenty48;
        let make = |s: u64| -> Result<Box<dyn Agent<Twenty48>>, PlayerError> {
            Ok(Box::new(RandomAgent::new(Rng::seed_from_u64(s))))
        };
        let never = |_: &[OnePlayerGame]| false;
        let plan = MatchPlan { enough: Some(&never), ..MatchPlan::new(2, 1, 1) };
        assert!(play_match(OnePlayer, plan, &[&make], start_2048, &|_| {})
            .unwrap_err()
            .to_string()
            .contains("no early stop"));
        let cancel = AtomicBool::new(true);
        let plan = MatchPlan { cancel: Some(&cancel), ..MatchPlan::new(4, 1, 1) };
        let err = play_match(OnePlayer, plan, &[&make], start_2048, &|_| panic!("no game is played")).unwrap_err();
        assert_eq!(err.to_string(), "the match was cancelled");
        let failing = |_: u64| -> Result<Box<dyn Agent<Twenty48>>, PlayerError> { Err(PlayerError::SolverBoard) };
        let err = play_match(OnePlayer, MatchPlan::new(2, 2, 1), &[&failing], start_2048, &|_| {}).unwrap_err();
        assert_eq!(err.to_string(), PlayerError::SolverBoard.to_string());
    }

    #[test]
    fn matches_alternate_colours_and_count_results() {
        let (strong, weak) = (mcts_c4(300), random_c4);
        let seen = Mutex::new(0);
        let r = play_match(
            TwoPlayer,
            MatchPlan::new(10, 2, 5),
            &[&strong, &weak],
            |_: &mut Rng| Connect4::standard(),
            &|_| *seen.lock().unwrap() += 1,
        )
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
            dojo_game::play_random_opening(&mut g, 2, rng);
            g
        };
        let run = |threads| {
            let plan = MatchPlan { enough: Some(&enough), ..MatchPlan::new(40, threads, 11) };
            play_match(TwoPlayer, plan, &[&random_c4, &random_c4], start, &|_| {}).unwrap().tally
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
        assert_eq!(play_match(TwoPlayer, plan, &[&random_c4, &random_c4], start, &|_| {}).unwrap().tally.games, 6);
    }

    #[test]
    fn both_games_of_a_pair_start_from_one_opening_and_cancel_stops_a_match() {
        use dojo_game::play_random_opening;
        let random = random_c4;
        let openings = Mutex::new(Vec::new());
        let start = |rng: &mut Rng| {
            let mut g = Connect4::standard();
            let moves = play_random_opening(&mut g, 4, rng);
            openings.lock().unwrap().push(g.moves_to_text(&moves));
            g
        };
        // The probe game draws one opening before the match: the pair of the first game.
        let r = play_match(TwoPlayer, MatchPlan::new(12, 3, 7), &[&random, &random], start, &|_| {}).unwrap();
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
        let err = play_match(TwoPlayer, plan, &[&random, &random], |_: &mut Rng| Connect4::standard(), &|_| {
            panic!("no game is played")
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "the match was cancelled");
    }

    #[test]
    fn a_match_plays_the_same_games_on_any_number_of_threads() {
        // Each thread has its own agents, and which games a thread plays depends on timing;
        // every game still depends only on its index and the match's seed.
        let (mcts, random) = (mcts_c4(20), random_c4);
        let games = |threads: usize, seed: u64| {
            let all = Mutex::new(Vec::new());
            play_match(
                TwoPlayer,
                MatchPlan::new(16, threads, seed),
                &[&mcts, &random],
                |_: &mut Rng| Connect4::standard(),
                &|g| all.lock().unwrap().push((g.index, g.moves.clone())),
            )
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
        // Not a shifted copy: seeds next to each other share no game (a sum of seed and
        // pair number once made seed 4's pair k seed 3's pair k + 1).
        let moves =
            |games: Vec<(u32, String)>| games.into_iter().map(|g| g.1).collect::<std::collections::HashSet<_>>();
        let (three, four) = (moves(one), moves(games(1, 4)));
        assert_eq!(three.intersection(&four).count(), 0, "seeds 3 and 4 share games");
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
