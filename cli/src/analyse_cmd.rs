//! `dojo bestmove`, `dojo eval` and `dojo positions`: what a network plays in given
//! positions, and how often that is a game-theoretic mistake by the solver's verdict
//! (`dojo_program::analyse`; the judging is `dojo_grading`'s). This module parses
//! arguments and prints.

use crate::common::{progress, DeviceArgs, Progress};
use anyhow::{Context, Result};
use clap::Args;
use dojo_arbiter::players::{NetSpec, PlayerSpec};
use dojo_base::util::{atomic_write, SettingError};
use dojo_game::GameSpec;
use dojo_grading::draw::DrawSettings;
use dojo_grading::grade;
use dojo_grading::positions::PositionRange;
use dojo_grading::{Grade, Mover};
use dojo_net::checkpoint::read_sidecar;
use dojo_net::device::Device;
use dojo_program::analyse::{self, EvalProgress, PositionsKind, PositionsRequest};
use dojo_search::config::{SearchConfig, SearchMode, PLAY_SIMULATIONS};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How a network searches when it plays (not self-play: no noise, no forced visits). A flag
/// wins over `--set` naming the same setting, as in every command (`cli/src/settings.rs`).
#[derive(Args, Clone, Debug)]
pub struct PlayArgs {
    // The defaults in the help are the ones `config` starts from: `SearchConfig::for_play`'s.
    #[arg(long, help = format!("Playouts per move [default: {}]", play_default().simulations))]
    pub playouts: Option<u32>,
    #[arg(long, help = format!(
        "PUCT exploration constant (self-play's `search.c_puct` explores more) [default: {}]",
        play_default().c_puct
    ))]
    pub c_puct: Option<f32>,
    #[arg(long, help = format!(
        "The search: `puct`, or `gumbel` (Gumbel AlphaZero's sequential halving over `--playouts` \
         simulations, without noise; `--c-puct` does not apply) [default: {}]",
        play_default().mode
    ))]
    pub mode: Option<SearchMode>,
    #[arg(long, help = format!(
        "Threat-space search (Gomoku's VCF prover) of at most this many nodes at every \
         expanded position (`search.vcf_nodes`); 0 = off [default: {}]",
        play_default().vcf_nodes
    ))]
    pub vcf_nodes: Option<u32>,
    /// Any search setting by its name in a run config's `[search]` section, e.g.
    /// `--set search.fpu_reduction=0.1` (repeatable; a flag above naming the same setting
    /// wins).
    #[arg(long = "set", value_name = "search.KEY=VALUE")]
    pub set: Vec<String>,
}

/// A player's search before any flag: what `--help` states as the defaults.
fn play_default() -> SearchConfig {
    SearchConfig::for_play(PLAY_SIMULATIONS)
}

impl PlayArgs {
    /// The search the flags describe, checked as a config file's would be: a player's search
    /// ([`SearchConfig::for_play`]), then `--set`, then the flags given.
    pub fn config(&self) -> Result<SearchConfig, SettingError> {
        let mut config = play_default();
        config.apply(&self.set)?;
        let flags = (self.playouts, self.c_puct, self.mode, self.vcf_nodes);
        config.simulations = flags.0.unwrap_or(config.simulations);
        config.c_puct = flags.1.unwrap_or(config.c_puct);
        config.mode = flags.2.unwrap_or(config.mode);
        config.vcf_nodes = flags.3.unwrap_or(config.vcf_nodes);
        config.validate()?;
        Ok(config)
    }

    /// The network player `model` searching as the flags say.
    pub fn player(&self, model: &Path, average_symmetries: bool) -> Result<PlayerSpec> {
        Ok(PlayerSpec::Net(NetSpec {
            path: model.to_path_buf(),
            average_symmetries,
            search: self.config()?,
            clock_ms: None,
        }))
    }
}

/// A network that plays: its checkpoint, how it searches, and where it runs.
#[derive(Args, Debug)]
pub struct NetPlayerArgs {
    /// Checkpoint to play with.
    #[arg(long)]
    model: PathBuf,
    /// Evaluate the board as it stands instead of averaging every network evaluation over
    /// its symmetries (averaging costs k times the network: 2 for Connect Four, 8 for
    /// Gomoku; it is the default everywhere a network plays by playouts).
    #[arg(long)]
    no_average: bool,
    #[command(flatten)]
    search: PlayArgs,
    #[command(flatten)]
    device: DeviceArgs,
}

impl NetPlayerArgs {
    /// The player and its device (libtorch's threads set).
    fn player(&self) -> Result<(PlayerSpec, Device)> {
        Ok((self.search.player(&self.model, !self.no_average)?, self.device.init()?))
    }

    /// The game played: `--game`, else the checkpoint's.
    fn game(&self, given: Option<&str>) -> Result<GameSpec> {
        match given {
            Some(game) => game.parse().context("--game"),
            None => Ok(read_sidecar(&self.model)?.architecture.game),
        }
    }
}

#[derive(Args)]
pub struct BestMoveArgs {
    /// Game (default: the checkpoint's; any board of its game for an any-size network).
    #[arg(long)]
    game: Option<String>,
    #[command(flatten)]
    net: NetPlayerArgs,
}

pub fn run_bestmove(args: BestMoveArgs) -> Result<()> {
    let spec = args.net.game(args.game.as_deref())?;
    let (player, device) = args.net.player()?;
    let (input, output) = (std::io::stdin().lock(), std::io::stdout().lock());
    Ok(analyse::bestmove(&spec, &player, device, input, output, std::io::stderr())?)
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// Connect Four (judged by the solver: width × (height + 1) <= 64) or Gomoku (judged on
    /// one-move tactics: make five, or block the opponent's only five) (default: the
    /// checkpoint's game).
    #[arg(long)]
    game: Option<String>,
    /// Positions file: one move string per line (e.g. from `dojo positions`), or labelled
    /// positions from `dojo positions --pons` (graded per Pons category from their stored
    /// scores, no solver needed).
    #[arg(long)]
    positions: PathBuf,
    /// What plays the graded move: the raw network policy (its highest-rated legal move, no
    /// search), the search, or both in one run.
    #[arg(long, value_enum, default_value_t = MoverArg::Search)]
    mover: MoverArg,
    /// Same as `--mover policy`.
    #[arg(long, conflicts_with = "mover")]
    policy: bool,
    /// Print one JSON object per mover (one a line) instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    net: NetPlayerArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum MoverArg {
    Policy,
    Search,
    Both,
}

impl EvalArgs {
    fn movers(&self) -> Vec<Mover> {
        match (self.policy, self.mover) {
            (true, _) | (_, MoverArg::Policy) => vec![Mover::Policy],
            (_, MoverArg::Search) => vec![Mover::Search],
            (_, MoverArg::Both) => vec![Mover::Policy, Mover::Search],
        }
    }
}

/// One mover's grade as `dojo eval --json` prints it.
#[derive(Serialize)]
struct EvalReport<'a> {
    model: String,
    #[serde(flatten)]
    grade: &'a Grade,
}

pub fn run_eval(args: EvalArgs) -> Result<()> {
    let spec = args.net.game(args.game.as_deref())?;
    let (player, device) = args.net.player()?;
    let text =
        std::fs::read_to_string(&args.positions).with_context(|| format!("reading {}", args.positions.display()))?;
    let file = args.positions.display().to_string();
    let bar = progress(text.lines().filter(|l| !l.trim().is_empty()).count() as u64, "positions");
    bar.set_prefix("judging");
    let mut shown = Shown(bar);
    let grades = analyse::eval(&spec, &player, device, (&text, &file), &args.movers(), &mut shown)?;
    shown.0.finish_and_clear();
    let model = args.net.model.display().to_string();
    if args.json {
        for grade in &grades {
            println!("{}", serde_json::to_string(&EvalReport { model: model.clone(), grade })?);
        }
        return Ok(());
    }
    print!("{}", grade::table(&model, &grades));
    Ok(())
}

/// `dojo eval`'s progress: a bar for judging the file, then one for grading.
struct Shown(Progress);

impl EvalProgress for Shown {
    fn judged(&mut self) {
        self.0.inc(1);
    }
    fn grading(&mut self, cases: usize) {
        self.0.finish_and_clear();
        self.0 = progress(cases as u64, "positions");
        self.0.set_prefix("eval");
    }
    fn graded(&mut self) {
        self.0.inc(1);
    }
}

#[derive(Args)]
pub struct PositionsArgs {
    /// Game to generate positions for.
    #[arg(long, default_value = "connect4")]
    game: String,
    /// How many positions.
    #[arg(long, default_value_t = 200)]
    count: usize,
    /// Fewest moves played.
    #[arg(long, default_value_t = 8)]
    min_moves: usize,
    /// Most moves played.
    #[arg(long, default_value_t = 20)]
    max_moves: usize,
    /// Gomoku only: keep just positions with a one-move tactic (the side to move can make
    /// five, or must block the opponent's only five), for `dojo eval`.
    #[arg(long)]
    tactics: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Take the positions from these records files (e.g. `dojo selfplay --out`) instead of
    /// random play: positions a trained network's own games reach, in its own style.
    #[arg(long, value_name = "FILES", num_args = 1..)]
    records: Vec<PathBuf>,
    /// Connect Four: labelled positions in Pons' categories (L1..L3 by discs played, R1..R3
    /// by moves left under perfect play), each line JSON with the exact score of every
    /// column by the solver, `--count` in all, categories balanced where random play
    /// allows. `dojo eval` grades on them without a solver.
    #[arg(long, conflicts_with_all = ["tactics", "records"])]
    pons: bool,
    /// With --pons: the most positions per category (default: --count shared evenly).
    #[arg(long, requires = "pons")]
    per_category: Option<usize>,
    /// With --pons: solver nodes per position (all its columns together); positions the
    /// solver cannot settle within them are skipped and counted.
    #[arg(long, default_value_t = 2_000_000, requires = "pons")]
    budget_nodes: u64,
    /// With --pons: stop once the solver has searched this many nodes in all (categories
    /// still short stay short, and the summary says so).
    #[arg(long, requires = "pons")]
    total_nodes: Option<u64>,
    /// Write the positions to this file (atomically) instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// `dojo positions`: distinct random-play positions, one move string per line. Without
/// `--tactics` the side to move has no immediate win, so every one is a real decision.
pub fn run_positions(args: PositionsArgs) -> Result<()> {
    let spec: GameSpec = args.game.parse().context("--game")?;
    let range =
        PositionRange { count: args.count, min_moves: args.min_moves, max_moves: args.max_moves, seed: args.seed };
    let from_games = args.records.clone();
    let kind = match (args.pons, args.tactics) {
        (true, _) => PositionsKind::Pons(DrawSettings {
            per_category: args.per_category,
            total_nodes: args.total_nodes,
            ..DrawSettings::new(args.count, args.budget_nodes, args.seed)
        }),
        (false, true) => PositionsKind::Tactics { from_games },
        (false, false) => PositionsKind::Decisions { from_games },
    };
    let started = std::time::Instant::now();
    // Only the solver's labelling takes long enough for a bar.
    let bar = args.pons.then(|| progress(args.count as u64, "positions"));
    bar.iter().for_each(|b| b.set_prefix("labelling"));
    let drawn = analyse::positions(&spec, PositionsRequest { range, kind }, || bar.iter().for_each(|b| b.inc(1)))?;
    bar.iter().for_each(|b| b.finish_and_clear());
    match &args.out {
        Some(path) => {
            atomic_write(path, drawn.text.as_bytes()).with_context(|| format!("writing {}", path.display()))?
        }
        None => std::io::stdout().lock().write_all(drawn.text.as_bytes())?,
    }
    if let Some(note) = drawn.note {
        eprint!("{note}");
    }
    if args.pons {
        eprintln!("in {:.1} s", started.elapsed().as_secs_f64());
    }
    Ok(())
}
