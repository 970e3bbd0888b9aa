//! `dojo ntuple`: n-tuple network agents for 2048 and 2584 (seeds 000 and 002). `train`
//! learns weights by self-play (TD(0) or TCL) and prints the reach-rate table as it goes;
//! `play` plays games with trained weights, greedy or with expectimax.

use crate::common::progress;
use crate::match_cmd::print_report;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use dojo_arbiter::contest::OnePlayer;
use dojo_arbiter::matches::{play_match, MatchPlan, OnePlayerGame};
use dojo_arbiter::players::{BaselinePlayers, PlayerSpec, MAX_NTUPLE_DEPTH};
use dojo_core::game::sliding::{Rules2048, Rules2584, Sliding};
use dojo_core::game::{FromAnyGame, GameSpec};
use dojo_core::ntuple::file::{load, read_header, save};
use dojo_core::ntuple::{GameScore, Layout, Method, Network, ScoreReport, Trainer, TupleRules};
use dojo_core::rng::Rng;
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

#[derive(Args)]
pub struct NtupleArgs {
    #[command(subcommand)]
    what: NtupleWhat,
}

#[derive(Subcommand)]
enum NtupleWhat {
    /// Learn weights by self-play, printing the reach-rate table every --report-every
    /// episodes (and saving --out then); resumes from --out when it exists.
    Train(TrainArgs),
    /// Play games with trained weights and print the scores and the reach-rate table.
    Play(PlayArgs),
}

#[derive(Args)]
pub struct TrainArgs {
    /// 2048, or 2584 (1 or 2 at 80/20), 2584:1-3 (1 or 3 at 75/25), 2584:1-2:P (1 at P %).
    #[arg(long)]
    game: String,
    /// Train until the weights have seen this many episodes (a resumed file counts its own).
    #[arg(long)]
    episodes: u64,
    /// Temporal coherence learning (seed 000: each weight's rate adapts) instead of TD(0).
    #[arg(long)]
    tcl: bool,
    /// Learning rate, spread evenly over the 32 features (seed 002 uses 0.1).
    #[arg(long, default_value_t = 0.1)]
    alpha: f32,
    /// Episodes between reports (and saves).
    #[arg(long, default_value_t = 1000)]
    report_every: u64,
    /// Weight file: training resumes from it when it exists; written at every report and
    /// at the end (atomically).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed for the tile spawns (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Args)]
pub struct PlayArgs {
    /// Weight file written by `dojo ntuple train`.
    #[arg(long)]
    weights: PathBuf,
    /// Games to play (each from its own seed, so any thread count plays the same games).
    #[arg(long, default_value_t = 1000)]
    games: u32,
    /// Player moves searched: 1 = greedy by after-state value, 2 = expectimax over the next
    /// tile spawn and reply (seed 000), and so on (each level costs about 4 × 2 × empty
    /// cells times more).
    #[arg(long, default_value_t = 1)]
    depth: u32,
    /// Seed for the tile spawns (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Games played at once (the weights are shared); default: the cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object (player, games, mean, median, max, interval, reach).
    #[arg(long)]
    json: bool,
}

pub fn run(args: NtupleArgs, stop: Arc<AtomicBool>) -> Result<()> {
    match args.what {
        NtupleWhat::Train(a) => train(a, &stop),
        NtupleWhat::Play(a) => play(a),
    }
}

fn not_sliding(spec: &GameSpec) -> anyhow::Error {
    anyhow::anyhow!("n-tuple networks play 2048 and 2584, not {spec}")
}

fn train(args: TrainArgs, stop: &AtomicBool) -> Result<()> {
    let spec: GameSpec = args.game.parse().context("--game")?;
    if !(args.alpha.is_finite() && args.alpha > 0.0) {
        bail!("--alpha must be a positive number, not {}", args.alpha);
    }
    if args.report_every == 0 {
        bail!("--report-every must be at least 1");
    }
    match spec {
        GameSpec::Twenty48 => train_typed(Rules2048, &spec, &args, stop),
        GameSpec::Fib2584 { odds } => train_typed(Rules2584 { odds }, &spec, &args, stop),
        _ => Err(not_sliding(&spec)),
    }
}

/// The network to train: the one in `out` when it exists (and is for this game), else a
/// new one; None when the file has seen `episodes` already. Says on stderr what it did.
fn start_network<R: TupleRules>(
    rules: R,
    spec: &GameSpec,
    out: Option<&Path>,
    tcl: bool,
    episodes: u64,
) -> Result<Option<Network<R>>> {
    let method = if tcl { "TCL" } else { "TD(0)" };
    let Some(path) = out.filter(|p| p.exists()) else {
        let mut net = Network::new(rules, Layout::seed002())?;
        if tcl {
            net.start_coherence();
        }
        eprintln!("new {spec} network: 4 6-tuples × 8 isomorphisms, {} weights, {method}", net.len());
        return Ok(Some(net));
    };
    // The header alone says whether the file fits, before hundreds of MiB are read.
    let header = read_header(path)?;
    if header.spec != *spec {
        bail!(
            "{} holds n-tuple weights for {}, not {spec}: train it with --game {} or choose another --out",
            path.display(),
            header.spec,
            header.spec
        );
    }
    if header.episodes >= episodes {
        eprintln!(
            "{} has seen {} episodes already (--episodes {episodes}): nothing to do",
            path.display(),
            header.episodes
        );
        return Ok(None);
    }
    let net = load::<R>(path, tcl)?;
    eprintln!("resuming from {}: {} episodes trained, going on with {method}", path.display(), net.episodes());
    match (tcl, header.coherence) {
        (true, false) => eprintln!("the file has no TCL accumulators: every weight starts again at rate 1"),
        (false, true) => eprintln!("dropping the file's TCL accumulators: plain TD(0) needs none"),
        _ => {}
    }
    Ok(Some(net))
}

fn train_typed<R: TupleRules>(rules: R, spec: &GameSpec, args: &TrainArgs, stop: &AtomicBool) -> Result<()> {
    let out = args.out.as_deref();
    let Some(mut net) = start_network(rules, spec, out, args.tcl, args.episodes)? else {
        return Ok(());
    };
    if out.is_none() {
        eprintln!("no --out: the weights will not be saved");
    }
    let seed = args.seed.unwrap_or_else(rand::random);
    // A resumed run draws other spawns than the run it continues, from the same --seed.
    let rng = Rng::seed_from_u64(seed ^ net.episodes().wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let method = if args.tcl { Method::Tcl } else { Method::Td };
    let mut trainer = Trainer::new(method, args.alpha, rng);
    let k = args.report_every;
    while net.episodes() < args.episodes {
        // Reports fall on multiples of --report-every, counted over the file's whole life.
        let end = ((net.episodes() / k + 1) * k).min(args.episodes);
        let bar = progress(end - net.episodes(), "episodes");
        bar.set_prefix(format!("{spec} {}", if args.tcl { "TCL" } else { "TD" }));
        let (mut games, mut moves, clock) = (Vec::new(), 0u64, Instant::now());
        while net.episodes() < end && !stop.load(Ordering::Relaxed) {
            let e = trainer.episode(&mut net);
            games.push(e.game_score());
            moves += u64::from(e.moves);
            bar.inc(1);
        }
        bar.finish_and_clear();
        let seconds = clock.elapsed().as_secs_f64();
        print_training_report(spec, net.episodes(), &games, moves, seconds);
        if let Some(w) = net.non_finite_weight() {
            // Saving would overwrite the last good weights with useless ones.
            bail!(
                "training diverged at episode {}: weight {w} is not a finite number; lower --alpha{}",
                net.episodes(),
                match out {
                    Some(path) if path.exists() => " (the weight file keeps its last saved weights)",
                    _ => " (nothing was saved)",
                }
            );
        }
        if let Some(path) = out {
            save(&net, path)?;
        }
        if stop.load(Ordering::Relaxed) {
            match out {
                Some(path) => eprintln!("stopped at episode {}; saved {}", net.episodes(), path.display()),
                None => eprintln!("stopped at episode {}", net.episodes()),
            }
            return Ok(());
        }
    }
    if let Some(path) = out {
        eprintln!("saved {} ({} episodes)", path.display(), net.episodes());
    }
    Ok(())
}

/// One training report: the episode, the speed, and the reach-rate table of `games`.
fn print_training_report(spec: &GameSpec, episode: u64, games: &[GameScore], moves: u64, seconds: f64) {
    let report = ScoreReport::new(spec, games);
    println!(
        "episode {episode}: {} ({:.0} moves/s, {:.1} s)\n{}",
        report.summary(),
        moves as f64 / seconds.max(1e-9),
        seconds,
        report.table()
    );
}

fn play(args: PlayArgs) -> Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if !(1..=MAX_NTUPLE_DEPTH).contains(&args.depth) {
        bail!("--depth must be in 1..={MAX_NTUPLE_DEPTH} (1 = greedy)");
    }
    let spec = read_header(&args.weights)?.spec;
    match spec {
        GameSpec::Twenty48 => play_typed::<Rules2048>(&spec, &args),
        GameSpec::Fib2584 { .. } => play_typed::<Rules2584>(&spec, &args),
        _ => Err(not_sliding(&spec)),
    }
}

fn play_typed<R: TupleRules>(spec: &GameSpec, args: &PlayArgs) -> Result<()>
where
    Sliding<R>: BaselinePlayers + FromAnyGame,
{
    let player = PlayerSpec::Ntuple { path: args.weights.clone(), depth: args.depth };
    let rules = R::from_spec(spec).ok_or_else(|| not_sliding(spec))?;
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let seed = args.seed.unwrap_or_else(rand::random);
    let bar = progress(u64::from(args.games), "games");
    bar.set_prefix(player.to_string());
    let on_game = |g: &OnePlayerGame| {
        bar.set_message(format!("(last score {})", g.score));
        bar.inc(1);
    };
    let make = |s| Sliding::<R>::baseline(&player, s);
    let result = play_match(
        OnePlayer,
        MatchPlan::new(args.games, threads, seed),
        &[&make],
        |rng: &mut Rng| Sliding::new_game(rules, rng),
        &on_game,
    )?;
    bar.finish_and_clear();
    print_report::<OnePlayer>(result, &[], spec, args.json, false)
}
