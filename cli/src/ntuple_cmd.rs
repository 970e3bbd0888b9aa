//! `dojo ntuple`: n-tuple network agents for 2048 and 2584 (seeds 000 and 002). `train`
//! learns weights by self-play (TD(0) or TCL) and prints the reach-rate table as it goes;
//! `play` plays games with trained weights, greedy or with expectimax.

use crate::common::{progress, Progress};
use crate::match_cmd::show;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use dojo_arbiter::match_session::{self, MatchRequest};
use dojo_arbiter::players::{NtupleSpec, PlayerSpec, MAX_NTUPLE_DEPTH};
use dojo_game::sliding::{Rules2048, Rules2584};
use dojo_game::GameScore;
use dojo_game::GameSpec;
use dojo_ntuple::training::{self, Block, Observer, Opened, Schedule};
use dojo_ntuple::weight_file::read_header;
use dojo_ntuple::{Method, TupleRules};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

#[derive(Args)]
pub struct NtupleArgs {
    #[command(subcommand)]
    what: NtupleWhat,
}

#[derive(Subcommand)]
enum NtupleWhat {
    /// Learn weights by self-play, printing the reach-rate table (and saving --out) every --report-every episodes.
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
    /// Weight file: training resumes from it when it exists; written at every report and at the end (atomically).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed for the tile spawns (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Args)]
pub struct PlayArgs {
    /// The n-tuple network to play: a weight file written by `dojo ntuple train`.
    #[arg(long)]
    model: PathBuf,
    /// Games to play (each from its own seed, so any --parallel plays the same games).
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
    parallel: Option<usize>,
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
        _ => bail!("n-tuple networks play 2048 and 2584, not {spec}"),
    }
}

fn train_typed<R: TupleRules>(rules: R, spec: &GameSpec, args: &TrainArgs, stop: &AtomicBool) -> Result<()> {
    let out = args.out.as_deref();
    let opened = training::open(rules, spec, out, args.tcl, args.episodes)?;
    eprintln!("{}", opened.describe(spec, out, args.tcl, args.episodes));
    let (Opened::New(mut net) | Opened::Resumed { mut net, .. }) = opened else { return Ok(()) };
    if out.is_none() {
        eprintln!("no --out: the weights will not be saved");
    }
    let schedule = Schedule {
        until: args.episodes,
        report_every: args.report_every,
        method: if args.tcl { Method::Tcl } else { Method::Td },
        alpha: args.alpha,
        seed: args.seed.unwrap_or_else(rand::random),
        out,
    };
    let prefix = format!("{spec} {}", if args.tcl { "TCL" } else { "TD" });
    let mut shown = Shown { spec, prefix, bar: None };
    let stopped = training::train(&mut net, &schedule, stop, &mut shown)?;
    match (stopped, out) {
        (true, Some(path)) => eprintln!("stopped at episode {}; saved {}", net.episodes(), path.display()),
        (true, None) => eprintln!("stopped at episode {}", net.episodes()),
        (false, Some(path)) => eprintln!("saved {} ({} episodes)", path.display(), net.episodes()),
        (false, None) => {}
    }
    Ok(())
}

/// A training session shown: a progress bar per block, a report after it.
struct Shown<'a> {
    spec: &'a GameSpec,
    prefix: String,
    bar: Option<Progress>,
}

impl Observer for Shown<'_> {
    fn block(&mut self, episodes: u64) {
        let bar = progress(episodes, "episodes");
        bar.set_prefix(self.prefix.clone());
        self.bar = Some(bar);
    }

    fn episode(&mut self, _score: &GameScore) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    fn report(&mut self, block: &Block) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        println!("{}", block.report(self.spec));
    }
}

/// A match of the weights alone: `dojo match --a ntuple:WEIGHTS:depth=D` on their game.
fn play(args: PlayArgs) -> Result<()> {
    if !(1..=MAX_NTUPLE_DEPTH).contains(&args.depth) {
        bail!("--depth must be in 1..={MAX_NTUPLE_DEPTH} (1 = greedy)");
    }
    let spec = read_header(&args.model)?.spec;
    let request = MatchRequest {
        spec,
        a: PlayerSpec::Ntuple(NtupleSpec { path: args.model.clone(), depth: args.depth }),
        b: None,
        games: args.games,
        opening_plies: None,
        openings: None,
        threads: crate::common::parallel_or_cores(args.parallel),
        seed: args.seed.unwrap_or_else(rand::random),
        json: args.json,
        verbose: false,
    };
    let players = request.players()?;
    let bar = progress(u64::from(args.games), "games");
    bar.set_prefix(request.a.to_string());
    let played = match_session::play(&request, &players, 0, &|message| {
        bar.set_message(message);
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    show(played.rendered);
    Ok(())
}
