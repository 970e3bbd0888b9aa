//! `dojo match`: two players, many games, alternating first player; or, for a one-player
//! game (2048, 2584), one player's scores and reach rates over many games.

use crate::common::progress;
use anyhow::{bail, Context, Result};
use clap::Args;
use dojo_arbiter::match_report::{forfeits, MatchReport, Rendered};
use dojo_arbiter::matches::{play_match, MakePlayer, MatchPlan};
use dojo_arbiter::openings::Openings;
use dojo_arbiter::players::{check_player_for, BaselinePlayers, PlayerSpec};
use dojo_arbiter::with_contest;
use dojo_core::game::GameSpec;
use dojo_core::rng::Rng;
use dojo_core::with_game;
use rand::SeedableRng;
use std::sync::Mutex;

#[derive(Args)]
pub struct MatchArgs {
    /// Game: connect4, connect4:WxH, connect4:saiblo, gomoku:N, ...
    #[arg(long, default_value = "connect4")]
    game: String,
    /// Player A: random, mcts:N, mcts:N:uniform, solver, solver:NODES, net:CKPT, net:CKPT:sims=N:cpuct=X (networks average over the board's symmetries; :noavg turns that off; :mode=gumbel searches by Gumbel AlphaZero's sequential halving), pbrain:COMMAND (an external Gomocup brain, e.g. "pbrain:dojo pbrain --model CKPT"; quote it), or for 2048 and 2584 ntuple:WEIGHTS or ntuple:WEIGHTS:depth=D (an n-tuple network, greedy or with expectimax D moves deep).
    #[arg(long)]
    a: String,
    /// Player B (same forms as --a). Not for one-player games (2048, 2584): there --a plays
    /// alone and the match reports its scores and reach rates.
    #[arg(long)]
    b: Option<String>,
    /// Number of games, in pairs from one starting position: A moves first in one, B in the
    /// other (one-player games: each game its own).
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Random plies opening each pair of games, both games of a pair from the same ones.
    /// Default: 4 where both players are networks (net:), which play without noise, so
    /// from one position every pair would be the same two games; otherwise 0, the game's
    /// start (the numbers against mcts:N in docs/strength-connect4.md are from there).
    #[arg(long)]
    opening_plies: Option<usize>,
    /// A book of openings (one move sequence a line, '#' comments; e.g.
    /// configs/openings/gomoku15.txt): pair K of the match opens with line K (cycling)
    /// instead of random plies.
    #[arg(long, value_name = "FILE", conflicts_with = "opening_plies")]
    openings: Option<std::path::PathBuf>,
    /// Games played at once (each thread has its own pair of players); default: the cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Seed for reproducible matches (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// An external brain's (pbrain:) time per move, in milliseconds: an answer later than
    /// this (and a tenth) loses the game.
    #[arg(long, default_value_t = dojo_arbiter::players::DEFAULT_MOVE_TIMEOUT_MS)]
    move_timeout_ms: u64,
    /// Print one JSON object (players, games, wins, draws, losses, score, interval, elo; for
    /// one-player games: player, games, mean, median, max, interval, reach).
    #[arg(long)]
    json: bool,
    /// Also print every game's moves (one line each; with --json, a `games_played` list).
    #[arg(long)]
    verbose: bool,
}

pub fn run(args: MatchArgs) -> Result<()> {
    let spec: GameSpec = args.game.parse().context("--game")?;
    let a: PlayerSpec = args.a.parse().context("--a")?;
    let a = a.with_move_timeout(args.move_timeout_ms);
    check_player_for(&a, &spec)?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let seed = args.seed.unwrap_or_else(rand::random);
    let probe = spec.new_game(&mut Rng::seed_from_u64(seed))?;
    let mut players = vec![a];
    // One-player games are played by --a alone.
    if spec.is_one_player() {
        if let Some(b) = &args.b {
            bail!("{} is a one-player game: give only --a (--b {b} has no one to play against)", spec.family());
        }
        if args.openings.is_some() {
            bail!(
                "{} is a one-player game: its games start from their own random tiles (leave out --openings)",
                spec.family()
            );
        }
    } else {
        let Some(b) = &args.b else {
            bail!("{spec} is a two-player game: give the opponent with --b");
        };
        let b: PlayerSpec = b.parse().context("--b")?;
        let b = b.with_move_timeout(args.move_timeout_ms);
        check_player_for(&b, &spec)?;
        players.push(b);
    }
    let openings = args.openings.as_deref().map(Openings::load).transpose()?;
    let opening = Opening { plies: opening_plies(&players, &args, openings.is_some()), book: openings.as_ref() };
    with_contest!(spec, contest => with_game!(probe, g => play(contest, g, &spec, &players, opening, seed, &args)))
}

/// How each pair of games opens: random plies, or a book's line.
#[derive(Clone, Copy)]
struct Opening<'a> {
    plies: usize,
    book: Option<&'a Openings>,
}

/// Random plies opening each pair of games between two deterministic players, as gating and
/// tournaments open theirs.
const DETERMINISTIC_OPENING_PLIES: usize = 4;

/// The random plies opening each pair of games: `--opening-plies`, or where both players
/// are deterministic (and there is no book) [`DETERMINISTIC_OPENING_PLIES`]; none where one
/// player plays alone (its random tiles open its games).
fn opening_plies(players: &[PlayerSpec], args: &MatchArgs, book: bool) -> usize {
    let [a, b] = players else { return 0 };
    let plies = args.opening_plies.unwrap_or(if !book && a.is_deterministic() && b.is_deterministic() {
        DETERMINISTIC_OPENING_PLIES
    } else {
        0
    });
    if plies > 0 && args.opening_plies.is_none() {
        eprintln!(
            "both players are deterministic: each pair of games opens with {plies} random plies \
             (--opening-plies 0 to start every game from the beginning)"
        );
    }
    plies
}

/// Plays the match of `players` (one, or A and B) on `spec` from `seed`, with a progress
/// bar, and prints it.
fn play<C: MatchReport, G: BaselinePlayers>(
    contest: C,
    _probe: G,
    spec: &GameSpec,
    players: &[PlayerSpec],
    opening: Opening<'_>,
    seed: u64,
    args: &MatchArgs,
) -> Result<()> {
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let plan =
        MatchPlan { opening_plies: opening.plies, openings: opening.book, ..MatchPlan::new(args.games, threads, seed) };
    let bar = progress(u64::from(args.games), "games");
    bar.set_prefix(players.iter().map(PlayerSpec::to_string).collect::<Vec<_>>().join(" vs "));
    let played = Mutex::new(Vec::<C::Game>::new());
    let on_game = |g: &C::Game| {
        let mut played = played.lock().unwrap();
        played.push(g.clone());
        bar.set_message(C::progress(&played));
        bar.inc(1);
    };
    let start = |rng: &mut Rng| {
        let any = spec.new_game(rng).expect("spec was checked by the probe game");
        G::from_any(any).expect("every game of a spec has the probe's type")
    };
    let makers: Vec<Box<MakePlayer<'_, G>>> =
        players.iter().map(|p| Box::new(move |s| G::baseline(p, s)) as Box<MakePlayer<'_, G>>).collect();
    let makers: Vec<&MakePlayer<'_, G>> = makers.iter().map(|m| m.as_ref()).collect();
    let result = play_match(contest, plan, &makers, start, &on_game)?;
    bar.finish_and_clear();
    let mut played = played.into_inner().unwrap();
    played.sort_by_key(C::index);
    for f in forfeits::<C>(&played) {
        eprintln!("forfeit: {f}");
    }
    print_report::<C>(result, &played, spec, args.json, args.verbose)
}

/// Prints a match's report (and its note on stderr).
pub fn print_report<C: MatchReport>(
    result: C::Result,
    played: &[C::Game],
    spec: &GameSpec,
    json: bool,
    verbose: bool,
) -> Result<()> {
    let Rendered { out, note } = C::render(result, played, spec, json, verbose)?;
    print!("{out}");
    if let Some(note) = note {
        eprintln!("{note}");
    }
    Ok(())
}
