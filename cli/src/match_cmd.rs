//! `dojo match`: two players, many games, alternating first player; or, for a one-player
//! game (2048, 2584), one player's scores and reach rates over many games.

use crate::common::progress;
use anyhow::{bail, Context, Result};
use clap::Args;
use dojo_arbiter::contest::{OnePlayer, TwoPlayer};
use dojo_arbiter::matches::{play_match, GameResult, MatchPlan, OnePlayerGame, OnePlayerResult, Tally};
use dojo_arbiter::openings::Openings;
use dojo_arbiter::players::{check_player_for, BaselinePlayers, PlayerSpec};
use dojo_core::game::sliding::{Rules, Sliding};
use dojo_core::game::{AnyGame, FromAnyGame, GameSpec};
use dojo_core::rng::Rng;
use dojo_core::with_game;
use rand::SeedableRng;
use std::collections::BTreeMap;
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
    let a: PlayerSpec = args.a.parse().map_err(anyhow::Error::msg).context("--a")?;
    let a = a.with_move_timeout(args.move_timeout_ms);
    check_player_for(&a, &spec).map_err(anyhow::Error::msg)?;
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let seed = args.seed.unwrap_or_else(rand::random);
    let probe = spec.new_game(&mut Rng::seed_from_u64(seed))?;
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
        return match probe {
            AnyGame::Twenty48(g) => run_solo(g, &spec, &a, &args, seed),
            AnyGame::Fib2584(g) => run_solo(g, &spec, &a, &args, seed),
            _ => unreachable!("checked above"),
        };
    }
    let Some(b) = &args.b else {
        bail!("{spec} is a two-player game: give the opponent with --b");
    };
    let b: PlayerSpec = b.parse().map_err(anyhow::Error::msg).context("--b")?;
    let b = b.with_move_timeout(args.move_timeout_ms);
    check_player_for(&b, &spec).map_err(anyhow::Error::msg)?;
    with_game!(probe, g => run_typed(g, &spec, &a, &b, &args, seed))
}

/// A one-player match: `a` plays every game; prints its scores and reach rates.
fn run_solo<R: Rules>(_probe: Sliding<R>, spec: &GameSpec, a: &PlayerSpec, args: &MatchArgs, seed: u64) -> Result<()>
where
    Sliding<R>: BaselinePlayers,
{
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = progress(u64::from(args.games), "games");
    bar.set_prefix(a.to_string());
    let played = Mutex::new(Vec::<OnePlayerGame>::new());
    let on_game = |g: &OnePlayerGame| {
        if let Some(why) = &g.forfeit {
            eprintln!("forfeit: game {}: {why}", g.index + 1);
        }
        bar.set_message(format!("(last score {})", g.score));
        bar.inc(1);
        if args.verbose {
            played.lock().unwrap().push(g.clone());
        }
    };
    let start = |rng: &mut Rng| {
        let any = spec.new_game(rng).expect("spec was checked by the probe game");
        Sliding::<R>::from_any(any).expect("every game of a spec has the probe's type")
    };
    let make = |s| Sliding::<R>::baseline(a, s);
    let result = play_match(OnePlayer, MatchPlan::new(args.games, threads, seed), &[&make], start, &on_game)
        .map_err(anyhow::Error::msg)?;
    let result = OnePlayerResult { game: spec.to_string(), ..result };
    bar.finish_and_clear();
    let mut played = played.into_inner().unwrap();
    played.sort_by_key(|g| g.index);
    print_solo(&result, &played, args.json)
}

/// Prints a one-player match's report (and its games, when given): a summary line and the
/// reach-rate table, or one JSON object; the speed goes to stderr.
pub fn print_solo(result: &OnePlayerResult, played: &[OnePlayerGame], json: bool) -> Result<()> {
    if json {
        let mut value = serde_json::to_value(result)?;
        if !played.is_empty() {
            value["games_played"] = serde_json::to_value(played)?;
        }
        println!("{value}");
    } else {
        for g in played {
            println!(
                "game {:>4}: score {:>7}, max tile {:>6}, {} moves  {}",
                g.index + 1,
                g.score,
                g.max_tile,
                g.plies,
                g.moves
            );
            if let Some(why) = &g.forfeit {
                println!("           {why}");
            }
        }
        print!("{}", result.summary());
    }
    let seconds = result.seconds;
    eprintln!(
        "{} games, {} moves in {seconds:.1} s: {:.3} s a game, {:.0} moves/s (all threads)",
        result.report.games,
        result.total_moves,
        seconds / result.report.games.max(1) as f64,
        result.total_moves as f64 / seconds.max(1e-9)
    );
    Ok(())
}

/// Random plies opening each pair of games between two deterministic players, as gating and
/// tournaments open theirs.
const DETERMINISTIC_OPENING_PLIES: usize = 4;

fn run_typed<G: BaselinePlayers + FromAnyGame>(
    _probe: G,
    spec: &GameSpec,
    a: &PlayerSpec,
    b: &PlayerSpec,
    args: &MatchArgs,
    seed: u64,
) -> Result<()> {
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = progress(u64::from(args.games), "games");
    bar.set_prefix(format!("{a} vs {b}"));
    let tally = Mutex::new((0u32, 0u32, 0u32));
    let played = Mutex::new(Vec::<GameResult>::new());
    let forfeits = Mutex::new(Vec::<String>::new());
    // A random spec (connect4:saiblo) is also reported board size by board size.
    let by_size = Mutex::new(BTreeMap::<(usize, usize), Tally>::new());
    let on_game = |r: &GameResult| {
        if spec.is_random() {
            if let Some(size) = r.board.parse::<GameSpec>().ok().and_then(|b| b.largest_board()) {
                by_size.lock().unwrap().entry(size).or_default().add(r.result);
            }
        }
        if let Some(why) = &r.forfeit {
            forfeits.lock().unwrap().push(format!("game {}: {why}", r.index + 1));
        }
        let mut t = tally.lock().unwrap();
        match r.result {
            1 => t.0 += 1,
            0 => t.1 += 1,
            _ => t.2 += 1,
        }
        bar.set_message(format!("(A: {}-{}-{})", t.0, t.1, t.2));
        bar.inc(1);
        if args.verbose {
            played.lock().unwrap().push(r.clone());
        }
    };
    let start = |rng: &mut Rng| {
        let any = spec.new_game(rng).expect("spec was checked by the probe game");
        G::from_any(any).expect("every game of a spec has the probe's type")
    };
    let openings = args.openings.as_deref().map(Openings::load).transpose()?;
    let opening_plies =
        args.opening_plies.unwrap_or(if openings.is_none() && a.is_deterministic() && b.is_deterministic() {
            DETERMINISTIC_OPENING_PLIES
        } else {
            0
        });
    if opening_plies > 0 && args.opening_plies.is_none() {
        eprintln!(
            "both players are deterministic: each pair of games opens with {opening_plies} random plies \
             (--opening-plies 0 to start every game from the beginning)"
        );
    }
    let (make_a, make_b) = (|s| G::baseline(a, s), |s| G::baseline(b, s));
    let result = play_match(
        TwoPlayer,
        MatchPlan { opening_plies, openings: openings.as_ref(), ..MatchPlan::new(args.games, threads, seed) },
        &[&make_a, &make_b],
        start,
        &on_game,
    )
    .map_err(anyhow::Error::msg)?;
    // Name the spec the user asked for (a random one like connect4:saiblo, not the first board).
    let result = dojo_arbiter::matches::MatchResult { game: spec.to_string(), ..result };
    bar.finish_and_clear();
    let mut forfeits = forfeits.into_inner().unwrap();
    forfeits.sort();
    for f in &forfeits {
        eprintln!("forfeit: {f}");
    }
    let mut played = played.into_inner().unwrap();
    played.sort_by_key(|r| r.index);
    let by_size = by_size.into_inner().unwrap();
    let size_name = |(w, h): (usize, usize)| format!("{w}x{h}");
    if args.json {
        let mut value = serde_json::to_value(&result)?;
        if args.verbose {
            value["games_played"] = serde_json::to_value(&played)?;
        }
        if !by_size.is_empty() {
            let sizes: serde_json::Map<String, serde_json::Value> = by_size
                .iter()
                .map(|(&size, t)| {
                    let mut v = serde_json::to_value(t).expect("a tally serialises");
                    v["score"] = serde_json::json!(t.score());
                    (size_name(size), v)
                })
                .collect();
            value["by_board_size"] = serde_json::Value::Object(sizes);
        }
        println!("{value}");
    } else {
        for r in &played {
            let first = if r.a_first { "A" } else { "B" };
            // The opening's moves, in brackets, then the players'.
            let opening = if r.opening.is_empty() { String::new() } else { format!("[{}] ", r.opening) };
            println!("game {:>4}: {first} first, A {:>2}  {opening}{}", r.index + 1, r.result, r.moves);
            if let Some(why) = &r.forfeit {
                println!("           {why}");
            }
        }
        println!("{}", result.summary());
        if !by_size.is_empty() {
            println!("by board size (width x height; A's wins-draws-losses):");
            for (&size, t) in &by_size {
                println!(
                    "  {:>5}: {:>4} games, {}-{}-{}, score {:.1}%",
                    size_name(size),
                    t.games,
                    t.wins,
                    t.draws,
                    t.losses,
                    100.0 * t.score()
                );
            }
        }
    }
    Ok(())
}
