//! `dojo tournament`: rates a run's checkpoints and fixed references together; for a
//! one-player game (2048, 2584), ranks them by mean score on the same games. The
//! tournament itself (schedule, resuming, ratings or scores, plot) is
//! `dojo_arbiter::tournament`, and a session of it on a run `tournament::session`.

use crate::common::progress;
use crate::match_cmd::{player_help, player_long_help};
use anyhow::Result;
use clap::Args;
use dojo_arbiter::tournament::session::{self, FormatChoice, Plan, Request};
use dojo_arbiter::tournament::standings::Ranking;
use dojo_arbiter::tournament::TournamentContest;
use dojo_arbiter::with_contest;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// What `--players` are.
const PLAYERS: &str = "Players besides the run's checkpoints";

/// How a tournament names its players.
const PLAYERS_NAMED: &str = "NAME=SPEC names a player (letters, digits, '.', '_' and '-'), e.g. \
     `rapfi-1000=pbrain:nodes=1000:ENGINE`; unnamed, a player is known by its spec.";

#[derive(Args)]
pub struct TournamentArgs {
    /// The run: its checkpoints can play, its game is the tournament's, and the tournament
    /// is kept in RUN/tournaments/NAME/.
    #[arg(long, default_value = "runs/connect4")]
    run_dir: PathBuf,
    /// The board played, for a run of an any-size network (e.g. gomoku:11 for gomoku:9-15;
    /// default: the tournament's so far, else the run's game).
    #[arg(long)]
    game: Option<dojo_game::GameSpec>,
    /// The tournament's name (its folder). Running a name again resumes it, playing only
    /// the games not finished, and extends it by any new players.
    #[arg(long, default_value = "default")]
    name: String,
    #[arg(
        long,
        num_args = 1..,
        help = player_help(PLAYERS),
        long_help = format!("{}\n{PLAYERS_NAMED}", player_long_help(PLAYERS)),
    )]
    players: Vec<String>,
    /// The run's checkpoints that play: every K-th published version (the versions divisible by K), and the newest.
    /// A run keeps its newest versions and a thinned history (learner.keep_versions, learner.keep_every): the
    /// tournament says which versions asked for are gone, and the K that finds them all.
    #[arg(long, value_name = "K")]
    every_nth_version: Option<u64>,
    /// The run's newest published checkpoint plays (--every-nth-version has it play too).
    #[arg(long)]
    newest_version: bool,
    /// Playouts per move of the run's checkpoints, averaged over the board's symmetries except
    /// in one-player games (2048, 2584: 8 times the network time over thousands of moves; name
    /// `net:CKPT:sims=N:avg` in --players for that).
    #[arg(long, default_value_t = dojo_search::config::PLAY_SIMULATIONS)]
    playouts: u32,
    /// The run's checkpoints search each move for this long instead of --playouts playouts
    /// (e.g. 1s, 250ms): a tournament by the clock, as against `pbrain:clock=1s:ENGINE`.
    /// By the clock they evaluate the board as it stands (averaging would cost them k times
    /// the playouts; `net:CKPT:avg:clock=1s` in --players averages).
    #[arg(long, value_name = "TIME", value_parser = dojo_arbiter::players::parse_clock)]
    clock: Option<u64>,
    /// Games per pairing, in pairs from one random opening, each side moving first once
    /// (default: the tournament's so far, or 10). One-player games (2048, 2584): games per
    /// player (also --games-per-player), game N of every player on the same seed.
    #[arg(long, visible_alias = "games-per-player")]
    games_per_pair: Option<u32>,
    /// round-robin (every pairing) or gauntlet (everyone against --reference). One-player
    /// games have no pairings: every player plays its games alone (no gauntlet).
    #[arg(long, value_name = "round-robin|gauntlet")]
    format: Option<FormatChoice>,
    /// The gauntlet's reference players (specs or names, e.g. mcts:1000), weakest first:
    /// everyone else plays each of them (they do not play each other), and the standings say
    /// each one's score against every rung of this ladder and the highest it beat.
    #[arg(long, num_args = 1..)]
    reference: Vec<String>,
    /// Random plies opening each pair of games (default: the tournament's so far, or 4,
    /// or 0 with --openings; one-player games have none: their random tiles open them).
    #[arg(long)]
    opening_plies: Option<u32>,
    /// A book of openings (one move sequence a line, '#' comments; e.g.
    /// configs/openings/gomoku15.txt): pair K of every pairing opens with line K (cycling)
    /// instead of random plies. The book is kept in tournament.json, so a resumed
    /// tournament plays from the same openings.
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Games played at once (default: the cores).
    #[arg(long)]
    parallel: Option<usize>,
    /// Seed of the openings, or of a one-player game's tiles (default: the tournament's so far, or random).
    #[arg(long)]
    seed: Option<u64>,
    /// The player whose rating is fixed (default: mcts:1000 where it plays, else random, else
    /// the first); one with a real share of wins and losses anchors tighter intervals than
    /// random. Not for one-player games, ranked by mean score.
    #[arg(long)]
    anchor: Option<String>,
    /// The anchor's rating.
    #[arg(long, default_value_t = 0.0)]
    anchor_elo: f64,
    /// An external player's time per move, in milliseconds: an answer later than this (and
    /// a tenth) loses the game. Default: 5000 for a Gomocup brain (pbrain:), 3000 for a
    /// saiblo strategy (saiblo:).
    #[arg(long)]
    move_timeout_ms: Option<u64>,
    /// Then copy the top-rated checkpoint (one-player games: the highest mean score) to
    /// RUN/models/best.* (checked, atomic), as gating does.
    #[arg(long)]
    choose_best: bool,
    /// Print the standings as JSON (what ratings.json holds; one-player games: scores.json) instead of the table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: TournamentArgs, stop: Arc<AtomicBool>) -> Result<()> {
    let request = Request {
        name: args.name.clone(),
        players: args.players.clone(),
        every_nth_version: args.every_nth_version,
        newest_version: args.newest_version,
        sims: args.playouts,
        clock_ms: args.clock,
        games_per_pair: args.games_per_pair,
        format: args.format,
        reference: args.reference.clone(),
        opening_plies: args.opening_plies,
        openings: args.openings.clone(),
        seed: args.seed,
        anchor: args.anchor.clone(),
        anchor_elo: args.anchor_elo,
        move_timeout_ms: args.move_timeout_ms,
        game: args.game.clone(),
    };
    let plan = session::plan(&args.run_dir, &request)?;
    for note in &plan.notes {
        eprintln!("{note}");
    }
    let threads = crate::common::parallel_or_cores(args.parallel);
    with_contest!(plan.game, contest => play(contest, plan, &args, threads, &stop))
}

/// Plays the session with a progress bar, prints the standings and what it did, and with
/// --choose-best promotes the best checkpoint.
fn play<C: TournamentContest>(
    contest: C,
    plan: Plan,
    args: &TournamentArgs,
    threads: usize,
    stop: &AtomicBool,
) -> Result<()> {
    let started = std::time::Instant::now();
    let bar = progress(0, "games");
    let on_open = |opened: String, to_play: usize| {
        bar.suspend(|| eprintln!("{opened}"));
        bar.set_length(to_play as u64);
    };
    let on_game = |line: &C::Line| {
        bar.set_message(C::describe(line));
        bar.inc(1);
        if let Some(note) = C::forfeit_note(line) {
            bar.suspend(|| eprintln!("{note}"));
        }
    };
    let session = session::play(contest, plan, threads, stop, on_open, &on_game)?;
    bar.finish_and_clear();
    match args.json {
        true => println!("{}", serde_json::to_string(&session.standings)?),
        false => print!("{}", session.standings.table()),
    }
    eprintln!("{}", session.summary(threads, started.elapsed().as_secs_f64()));
    if stop.load(Ordering::Relaxed) {
        eprintln!("interrupted: run the same command again to play the {} games left", session.left);
    } else if args.choose_best {
        println!("{}", session::choose_best(&args.run_dir, &session)?);
    }
    Ok(())
}
