//! `dojo tournament`: rates a run's checkpoints and fixed references together; for a
//! one-player game (2048, 2584), ranks them by mean score on the same games. The
//! tournament itself (schedule, resuming, ratings or scores, plot) is
//! `dojo_arbiter::tournament`.

use crate::common::progress;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use dojo_arbiter::charts::ChartError;
use dojo_arbiter::openings::Openings;
use dojo_arbiter::players::{check_player_for, PlayerSpec};
use dojo_arbiter::promotion::{self, Promoter};
use dojo_arbiter::tournament::standings::{Ranking, StandingsError};
use dojo_arbiter::tournament::{
    plot, tournament_dir, Entrant, Format, Tournament, TournamentContest, TournamentDir, TournamentSpec,
};
use dojo_arbiter::with_contest;
use dojo_core::net::checkpoint;
use dojo_run::config::RunConfig;
use dojo_run::paths::RunPaths;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Mode {
    /// Every pairing of players.
    RoundRobin,
    /// Every player against --reference only.
    Gauntlet,
}

#[derive(Args)]
pub struct TournamentArgs {
    /// The run: its checkpoints can play, its game is the tournament's, and the tournament
    /// is kept in RUN/tournaments/NAME/.
    #[arg(long, default_value = "runs/connect4")]
    run_dir: PathBuf,
    /// The tournament's name (its folder). Running a name again resumes it, playing only
    /// the games not finished, and extends it by any new players.
    #[arg(long, default_value = "default")]
    name: String,
    /// Players besides the run's checkpoints: random, mcts:N, mcts:N:uniform, uct:N, solver,
    /// net:CKPT[:sims=N...], pbrain:COMMAND (an external Gomocup brain; quote it), or for
    /// 2048 and 2584 ntuple:WEIGHTS[:depth=D]. NAME=SPEC names a player (letters, digits,
    /// '.', '_' and '-'), e.g. `rapfi-1000=pbrain:ENGINE 1000`; unnamed, a player is
    /// known by its spec.
    #[arg(long, num_args = 1..)]
    players: Vec<String>,
    /// The run's checkpoints that play: every K-th published version (the versions
    /// divisible by K), and the newest.
    #[arg(long, value_name = "K")]
    every_nth_version: Option<u64>,
    /// The run's newest published checkpoint plays (--every-nth-version has it play too).
    #[arg(long)]
    newest_version: bool,
    /// Playouts per move of the run's checkpoints. They average over the board's symmetries,
    /// except in one-player games (2048, 2584), whose games run to thousands of moves: 8
    /// symmetries would cost 8 times the network time (name a checkpoint as
    /// `net:CKPT:sims=N:avg` in --players for that).
    #[arg(long, default_value_t = 200)]
    sims: u32,
    /// Games per pairing, in pairs from one random opening, each side moving first once
    /// (default: the tournament's so far, or 10). One-player games (2048, 2584): games per
    /// player (also --games-per-player), game N of every player on the same seed.
    #[arg(long, visible_alias = "games-per-player")]
    games_per_pair: Option<u32>,
    /// round-robin (every pairing) or gauntlet (everyone against --reference). One-player
    /// games have no pairings: every player plays its games alone (no gauntlet).
    #[arg(long, value_enum)]
    mode: Option<Mode>,
    /// The gauntlet's reference players (specs or names, e.g. mcts:1000): everyone else
    /// plays each of them, and they do not play each other. Several are listed weakest
    /// first (the rungs of a ladder): the standings then say, for every other player, its
    /// score against each and the highest it beat.
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
    threads: Option<usize>,
    /// Seed of the openings, or of a one-player game's tiles (default: the tournament's so
    /// far, or random).
    #[arg(long)]
    seed: Option<u64>,
    /// The player whose rating is fixed (default: mcts:1000 where it plays, else random
    /// where it plays, else the first). A player with a real share of wins and losses
    /// anchors tighter intervals than random, whom everyone beats. Not for one-player
    /// games, ranked by mean score.
    #[arg(long)]
    anchor: Option<String>,
    /// The anchor's rating.
    #[arg(long, default_value_t = 0.0)]
    anchor_elo: f64,
    /// An external brain's time per move, in milliseconds: an answer later than this (and
    /// a tenth) loses the game.
    #[arg(long, default_value_t = dojo_arbiter::players::DEFAULT_MOVE_TIMEOUT_MS)]
    move_timeout_ms: u64,
    /// Then copy the top-rated checkpoint (one-player games: the highest mean score) to
    /// RUN/models/best.* (checked, atomic), as gating does.
    #[arg(long)]
    choose_best: bool,
    /// Print the standings as JSON (what ratings.json holds; one-player games: scores.json)
    /// instead of the table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: TournamentArgs, stop: Arc<AtomicBool>) -> Result<()> {
    let run = RunPaths::new(&args.run_dir);
    if !run.exists() {
        bail!("{} is not a run directory (no config.toml)", args.run_dir.display());
    }
    let config = RunConfig::load(&run.config())?;
    let dir = tournament_dir(&run.tournaments(), &args.name)?;
    let before = dir.read_spec()?;
    let one_player = config.game.is_one_player();
    if one_player {
        refuse_two_player_options(&args, &config)?;
    }
    let entrants = entrants(&args, &run, &config, one_player)?;
    let known: Vec<&Entrant> = entrants.iter().chain(before.iter().flat_map(|b| &b.entrants)).collect();
    let references = args.reference.iter().map(|r| player_name(r, &known)).collect::<Result<Vec<_>>>()?;
    let format = match (args.mode, references.is_empty(), &before) {
        (Some(Mode::Gauntlet), false, _) => Format::Gauntlet { reference: references },
        (Some(Mode::Gauntlet), true, _) => bail!("--mode gauntlet needs --reference SPEC"),
        (Some(Mode::RoundRobin), false, _) => bail!("--reference is for --mode gauntlet"),
        (Some(Mode::RoundRobin), true, _) => Format::RoundRobin,
        (None, _, Some(old)) => old.format.clone(),
        (None, false, None) => bail!("--reference is for --mode gauntlet"),
        (None, true, None) => Format::RoundRobin,
    };
    let openings = match &args.openings {
        Some(path) => Openings::load(path)?.lines,
        None => before.as_ref().map(|b| b.openings.clone()).unwrap_or_default(),
    };
    let default_plies = if one_player || !openings.is_empty() { 0 } else { 4 };
    let wanted = TournamentSpec {
        game: config.game.to_string(),
        format,
        games_per_pair: args.games_per_pair.or(before.as_ref().map(|b| b.games_per_pair)).unwrap_or(10),
        opening_plies: args.opening_plies.or(before.as_ref().map(|b| b.opening_plies)).unwrap_or(default_plies),
        openings,
        seed: args.seed.or(before.as_ref().map(|b| b.seed)).unwrap_or_else(rand::random),
        move_timeout_ms: args.move_timeout_ms,
        entrants,
    };
    // Checked before anything is written: a checkpoint of another game, a brain that does
    // not start, the solver on Gomoku.
    for e in &wanted.entrants {
        let spec: PlayerSpec = e.spec.parse()?;
        check_player_for(&spec.with_move_timeout(args.move_timeout_ms), &config.game)?;
    }
    // What the tournament will be, checked before anything is written.
    let merged = match &before {
        Some(old) => old.extend(&wanted),
        None => wanted.validate().map(|()| wanted.clone()),
    }?;
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let anchor = if one_player { None } else { Some(anchor(&args, &merged)?) };
    let session = Session { args: &args, run: &run, threads, stop: &stop };
    with_contest!(config.game, contest => play(contest, &session, dir, &wanted, anchor.as_deref()))
}

/// The player whose rating is fixed: --anchor, else mcts:1000 or random where one plays,
/// else the first player.
fn anchor(args: &TournamentArgs, merged: &TournamentSpec) -> Result<String> {
    let plays = |name: &str| merged.entrants.iter().any(|e| e.name == name);
    let known: Vec<&Entrant> = merged.entrants.iter().collect();
    let anchor = match &args.anchor {
        Some(a) => player_name(a, &known)?,
        None => ["mcts:1000", "random"]
            .into_iter()
            .find(|n| plays(n))
            .map_or_else(|| merged.entrants[0].name.clone(), str::to_string),
    };
    if !plays(&anchor) {
        bail!("the anchor {anchor} is not one of the players");
    }
    Ok(anchor)
}

/// What a session of a tournament plays with.
struct Session<'a> {
    args: &'a TournamentArgs,
    run: &'a RunPaths,
    threads: usize,
    stop: &'a AtomicBool,
}

/// Opens the tournament `wanted` (extending the one in `dir`), plays its games not played
/// yet, writes and prints its standings (ratings against `anchor`, or mean scores), and
/// with --choose-best promotes the best checkpoint.
fn play<C: TournamentContest>(
    contest: C,
    session: &Session<'_>,
    dir: TournamentDir,
    wanted: &TournamentSpec,
    anchor: Option<&str>,
) -> Result<()> {
    let Session { args, run, threads, stop } = *session;
    let mut tournament = Tournament::open(contest, dir, wanted)?;
    let to_play = tournament.to_play().len();
    let done = tournament.results.len();
    eprintln!(
        "tournament {} in {}: {} players, {}; {done} finished, {to_play} to play on {threads} thread(s)",
        args.name,
        tournament.dir.root.display(),
        tournament.spec.entrants.len(),
        C::describe_games(&tournament.spec),
    );
    let started = std::time::Instant::now();
    let bar = progress(to_play as u64, "games");
    let on_game = |line: &C::Line| {
        bar.set_message(C::describe(line));
        bar.inc(1);
        if let Some(note) = C::forfeit_note(line) {
            bar.suspend(|| eprintln!("{note}"));
        }
    };
    let results = tournament.play(threads, stop, &on_game)?;
    bar.finish_and_clear();

    let standings = tournament.standings(anchor.map(|name| (name, args.anchor_elo)))?;
    let (path, png) = C::standings_files(&tournament.dir);
    let title = format!("{} · {} · {} games", run.root.display(), tournament.spec.game, standings.games());
    let written = Written {
        json: serde_json::to_vec_pretty(&standings)?,
        path,
        drew: plot::draw(&standings, &title, &png),
        png,
        tensorboard: standings.to_tensorboard(&run.tensorboard(&format!("tournament-{}", args.name))),
    };
    let printed = if args.json { serde_json::to_string(&standings)? } else { standings.table() };
    let played = Played { played: results.len() - done, total: results.len(), threads, started };
    finish(&written, &printed, args.json, &played)?;
    let best = standings.best_checkpoint().map(|b| {
        let version = b.player.version.expect("best_checkpoint has a version");
        (version, &b.player.name, C::Standings::merit(b.value.unwrap_or(0.0)))
    });
    conclude(args, run, stop.load(Ordering::Relaxed), tournament.to_play().len(), best, C::Standings::RANKED)
}

/// The end of a session: how to go on after an interruption, else with `--choose-best` the
/// best checkpoint (`best`: its version, name and why it is best) copied to
/// RUN/models/best.*; `none` says why there is none ("was rated").
fn conclude(
    args: &TournamentArgs,
    run: &RunPaths,
    interrupted: bool,
    left: usize,
    best: Option<(u64, &String, String)>,
    none: &str,
) -> Result<()> {
    if interrupted {
        eprintln!("interrupted: run the same command again to play the {left} games left");
        return Ok(());
    }
    if args.choose_best {
        let Some((version, name, why)) = best else {
            bail!("--choose-best: no checkpoint of the run {none}");
        };
        choose_best(run, version, name, &why)?;
    }
    Ok(())
}

/// Options that only two-player tournaments have, refused for a one-player game's.
fn refuse_two_player_options(args: &TournamentArgs, config: &RunConfig) -> Result<()> {
    let game = config.game.family();
    if args.mode == Some(Mode::Gauntlet) || !args.reference.is_empty() {
        bail!(
            "{game} is a one-player game: every player plays the same games alone, so there is no gauntlet (leave out --mode gauntlet and --reference)"
        );
    }
    if args.anchor.is_some() {
        bail!("{game} is a one-player game: players are ranked by mean score, with no ratings to anchor (leave out --anchor)");
    }
    Ok(())
}

/// A session's standings as written: the JSON file, the plot, the TensorBoard events.
struct Written {
    json: Vec<u8>,
    path: PathBuf,
    png: PathBuf,
    drew: Result<(), ChartError>,
    tensorboard: Result<(), StandingsError>,
}

/// How much a session played.
struct Played {
    played: usize,
    total: usize,
    threads: usize,
    started: std::time::Instant,
}

/// Writes the standings' file, prints them (`printed`: the table, or JSON) and what the
/// session did.
fn finish(written: &Written, printed: &str, json: bool, session: &Played) -> Result<()> {
    let Played { played, total, threads, started } = *session;
    dojo_core::util::atomic_write(&written.path, &written.json)
        .with_context(|| format!("writing {}", written.path.display()))?;
    if let Err(e) = &written.tensorboard {
        eprintln!("no TensorBoard events: {e}");
    }
    if json {
        println!("{printed}");
    } else {
        print!("{printed}");
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{played} games played in {:.1} min ({:.1} s a game on {threads} thread(s)); {total} in all; wrote {}{}",
        seconds / 60.0,
        if played > 0 { seconds * threads.min(played) as f64 / played as f64 } else { 0.0 },
        written.path.display(),
        match &written.drew {
            Ok(()) => format!(" and {}", written.png.display()),
            Err(e) => format!(" (no plot: {e})"),
        }
    );
    Ok(())
}

/// The players: the run's chosen checkpoints, then `--players`.
fn entrants(args: &TournamentArgs, run: &RunPaths, config: &RunConfig, one_player: bool) -> Result<Vec<Entrant>> {
    let mut entrants = Vec::new();
    if args.every_nth_version.is_some() || args.newest_version {
        if args.every_nth_version == Some(0) {
            bail!("--every-nth-version must be at least 1");
        }
        let every = |v: u64| args.every_nth_version.is_some_and(|k| v.is_multiple_of(k));
        let versions = run.versions()?;
        let newest = versions.last().copied();
        // Checkpoints are named by absolute path, so the tournament plays from anywhere.
        let root = std::fs::canonicalize(&run.root).with_context(|| format!("{}", run.root.display()))?;
        let run_abs = RunPaths::new(root);
        for v in versions.into_iter().filter(|&v| every(v) || Some(v) == newest) {
            let path = run_abs.model_version(v);
            let sidecar = checkpoint::read_sidecar(&path)?;
            let mut spec = PlayerSpec::net(&path, args.sims);
            if let PlayerSpec::Net { average_symmetries, .. } = &mut spec {
                *average_symmetries = !one_player;
            }
            entrants.push(Entrant {
                name: format!("v{v}"),
                spec: spec.to_string(),
                version: Some(v),
                step: Some(sidecar.step),
            });
        }
        if entrants.is_empty() {
            bail!("{} has no published versions yet", run.models().display());
        }
    }
    for text in &args.players {
        let (name, spec) = split_name(text);
        let spec: PlayerSpec = spec.parse().context("--players")?;
        // A network from elsewhere is placed on the curve by its training step.
        let step = match &spec {
            PlayerSpec::Net { path, .. } => Some(checkpoint::read_sidecar(path)?.step),
            _ => None,
        };
        let name = name.map_or_else(|| spec.to_string(), str::to_string);
        entrants.push(Entrant { name, spec: spec.to_string(), version: None, step });
    }
    if entrants.is_empty() {
        bail!(
            "no players: name the run's checkpoints with --every-nth-version K and others with --players (e.g. --players random mcts:200 mcts:1000), game {}",
            config.game
        );
    }
    Ok(entrants)
}

/// `NAME=SPEC` split into its name and spec; anything else is a spec alone. A name is
/// letters, digits, '.', '_' and '-', so a spec's own '=' (`net:CKPT:sims=200`, an
/// engine's `env X=1`) follows a ':' or a space and never reads as a name.
fn split_name(text: &str) -> (Option<&str>, &str) {
    match text.split_once('=') {
        Some((name, spec))
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) =>
        {
            (Some(name), spec)
        }
        _ => (None, text),
    }
}

/// A player's name as the tournament knows it, from what was typed: a version (`v12`), a
/// player's name (`rapfi-1000`), `NAME=SPEC`, or a spec.
fn player_name(text: &str, known: &[&Entrant]) -> Result<String> {
    if let Some(v) = text.strip_prefix('v').and_then(|v| v.parse::<u64>().ok()) {
        return Ok(format!("v{v}"));
    }
    if let (Some(name), _) = split_name(text) {
        return Ok(name.to_string());
    }
    if known.iter().any(|e| e.name == text) {
        return Ok(text.to_string());
    }
    Ok(text.parse::<PlayerSpec>()?.to_string())
}

/// Makes checkpoint `version` (the tournament's top one, `name`, `how` good) the run's
/// best, as gating promotes (under the run's gating lock, so no gatekeeper writes it at the
/// same time).
fn choose_best(run: &RunPaths, version: u64, name: &str, how: &str) -> Result<()> {
    let sidecar = promotion::promote(run, Promoter::Tournament, version)?;
    println!("{name} ({how}) is now {} (step {})", run.best().display(), sidecar.step);
    Ok(())
}
