//! `dojo match`: two players, many games, alternating first player; or, for a one-player
//! game (2048, 2584), one player's scores and reach rates over many games
//! (`dojo_arbiter::match_session`).

use crate::common::progress;
use anyhow::{Context, Result};
use clap::Args;
use dojo_arbiter::match_report::Rendered;
use dojo_arbiter::match_session::{self, MatchRequest};
use dojo_arbiter::players::PlayerSpec;
use dojo_game::GameSpec;

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
    /// instead of random plies. Two networks, which search without noise, get no more pairs
    /// than the book has lines: a cycled line would replay its games move for move.
    #[arg(long, value_name = "FILE", conflicts_with = "opening_plies")]
    openings: Option<std::path::PathBuf>,
    /// Games played at once (each thread has its own pair of players); default: the cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Seed for reproducible matches (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// An external player's time per move, in milliseconds: an answer later than this (and
    /// a tenth) loses the game. Default: 5000 for a Gomocup brain (pbrain:), 3000 for a
    /// saiblo strategy (saiblo:), the platform's clock.
    #[arg(long)]
    move_timeout_ms: Option<u64>,
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
    let parse = |text: &str, flag: &str| -> Result<PlayerSpec> {
        Ok(text.parse::<PlayerSpec>().context(flag.to_string())?.with_move_timeout(args.move_timeout_ms))
    };
    let request = MatchRequest {
        a: parse(&args.a, "--a")?,
        b: args.b.as_deref().map(|b| parse(b, "--b")).transpose()?,
        spec,
        games: args.games,
        opening_plies: args.opening_plies,
        openings: args.openings.as_deref(),
        threads: crate::common::threads_or_cores(args.threads),
        seed: args.seed.unwrap_or_else(rand::random),
        json: args.json,
        verbose: args.verbose,
    };
    let players = request.players()?;
    let (plies, chosen) = request.opening_plies(&players);
    if chosen {
        eprintln!(
            "both players are deterministic: each pair of games opens with {plies} random plies \
             (--opening-plies 0 to start every game from the beginning)"
        );
    }
    let bar = progress(u64::from(args.games), "games");
    bar.set_prefix(players.iter().map(PlayerSpec::to_string).collect::<Vec<_>>().join(" vs "));
    let played = match_session::play(&request, &players, plies, &|message| {
        bar.set_message(message);
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    for f in played.forfeits {
        eprintln!("forfeit: {f}");
    }
    show(played.rendered);
    Ok(())
}

/// Prints a match's report (and its note on stderr).
pub fn show(Rendered { out, note }: Rendered) {
    print!("{out}");
    if let Some(note) = note {
        eprintln!("{note}");
    }
}
