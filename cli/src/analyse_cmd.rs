//! `dojo bestmove`, `dojo eval` and `dojo positions`: what a network plays in given
//! positions, and how often that is a game-theoretic mistake by the solver's verdict. The
//! judging (verdicts, Pons categories, drawing labelled sets, error rates) lives in
//! `dojo_arbiter::grading`; this module parses arguments and prints.

use crate::common::{load_checkpoint, progress, DeviceArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use dojo_arbiter::grading::draw::{draw_positions, DrawSettings};
use dojo_arbiter::grading::grade::{self, grade};
use dojo_arbiter::grading::judge::{judge_file, position_after, Judged};
use dojo_arbiter::grading::labelled::to_text as labelled_text;
use dojo_arbiter::grading::positions::{no_immediate_win, positions_from_games, random_positions, PositionRange};
use dojo_arbiter::grading::{Case, Grade, Mover};
use dojo_arbiter::players::PlayerSpec;
use dojo_core::game::connect4::Connect4;
use dojo_core::game::{AnyGame, FromAnyGame, Game, GameSpec};
use dojo_core::net::agent::NetAgent;
use dojo_core::rng::Rng;
use dojo_core::search::config::{SearchConfig, SearchMode, PLAY_C_PUCT};
use dojo_core::search::player::Agent;
use dojo_core::util::{atomic_write, SettingError};
use dojo_core::with_game;
use rand::SeedableRng;
use serde::Serialize;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// How a network searches when it plays (not self-play: no noise, no forced visits).
#[derive(Args, Clone, Debug)]
pub struct PlayArgs {
    /// Playouts per move.
    #[arg(long, default_value_t = 200)]
    pub sims: u32,
    /// PUCT exploration constant (self-play's `search.c_puct` explores more).
    #[arg(long, default_value_t = PLAY_C_PUCT)]
    pub c_puct: f32,
    /// The search: `puct`, or `gumbel` (Gumbel AlphaZero's sequential halving over `--sims`
    /// simulations, without noise; `--c-puct` does not apply).
    #[arg(long, default_value_t = SearchMode::Puct)]
    pub mode: SearchMode,
    /// Threat-space search (Gomoku's VCF prover) of at most this many nodes at every
    /// expanded position (`search.vcf_nodes`); 0 = off.
    #[arg(long, default_value_t = 0)]
    pub vcf_nodes: u32,
    /// Any search setting by its name in a run config's `[search]` section, e.g.
    /// `--set search.fpu_reduction=0.1` (repeatable; after the flags above, so it wins).
    #[arg(long = "set", value_name = "search.KEY=VALUE")]
    pub set: Vec<String>,
}

impl PlayArgs {
    /// The search the flags describe, checked as a config file's would be.
    pub fn config(&self) -> Result<SearchConfig, SettingError> {
        let mut config = SearchConfig {
            c_puct: self.c_puct,
            mode: self.mode,
            vcf_nodes: self.vcf_nodes,
            ..SearchConfig::for_play(self.sims)
        };
        config.apply(&self.set)?;
        Ok(config)
    }
}

#[derive(Args)]
pub struct BestMoveArgs {
    /// Game (must match the checkpoint's).
    #[arg(long, default_value = "connect4")]
    game: String,
    /// Checkpoint to play with.
    #[arg(long)]
    model: PathBuf,
    /// Average every network evaluation over the board's symmetries (k times the network
    /// cost: 2 for Connect Four, 8 for Gomoku).
    #[arg(long)]
    average_symmetries: bool,
    #[command(flatten)]
    search: PlayArgs,
    #[command(flatten)]
    device: DeviceArgs,
}

/// A network player for `game` from a checkpoint (no noise, temperature 0).
pub fn net_agent<G: Game + FromAnyGame>(
    model: &Path,
    spec: &GameSpec,
    start: &G,
    search: &PlayArgs,
    average_symmetries: bool,
    device: tch::Device,
) -> Result<NetAgent<G>> {
    // An any-size network plays every Connect Four board its frame holds; any other network
    // only its own game.
    // (An unreadable sidecar is reported by the load below.)
    let any_size = dojo_core::net::checkpoint::read_sidecar(model).is_ok_and(|s| s.architecture.any_size);
    let loaded = load_checkpoint(model, device, (!any_size).then_some(spec))?;
    let config = search.config()?;
    let name = PlayerSpec::Net { path: model.to_path_buf(), average_symmetries, search: config.clone() }.to_string();
    let agent = NetAgent::from_checkpoint(model, loaded, config, average_symmetries, name, Rng::seed_from_u64(0))?;
    agent.check_board(start)?;
    Ok(agent)
}

pub fn run_bestmove(args: BestMoveArgs) -> Result<()> {
    let device = args.device.init()?;
    let spec: GameSpec = args.game.parse().context("--game")?;
    let start = spec.start()?;
    with_game!(start, g => bestmove_typed(g, &spec, &args, device))
}

fn bestmove_typed<G: Game + FromAnyGame>(
    start: G,
    spec: &GameSpec,
    args: &BestMoveArgs,
    device: tch::Device,
) -> Result<()> {
    let mut agent: NetAgent<G> = net_agent(&args.model, spec, &start, &args.search, args.average_symmetries, device)?;
    let mut out = std::io::stdout().lock();
    let mut failures = 0;
    for (number, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        match position_after(&start, line.trim()) {
            Ok(game) => {
                let action = agent.select_move(&game);
                writeln!(out, "{}", game.action_to_text(action))?;
            }
            Err(e) => {
                failures += 1;
                eprintln!("dojo bestmove: line {}: {e:#}", number + 1);
                writeln!(out, "error: {e:#}")?;
            }
        }
        out.flush()?;
    }
    if failures > 0 {
        bail!("{failures} position(s) could not be read (see the errors above)");
    }
    Ok(())
}

#[derive(Args)]
pub struct EvalArgs {
    /// Connect Four (judged by the solver: width × (height + 1) <= 64) or Gomoku (judged on
    /// one-move tactics: make five, or block the opponent's only five).
    #[arg(long, default_value = "connect4")]
    game: String,
    /// Checkpoint to evaluate.
    #[arg(long)]
    model: PathBuf,
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
    /// Average every network evaluation over the board's symmetries (k times the network
    /// cost: 2 for Connect Four, 8 for Gomoku).
    #[arg(long)]
    average_symmetries: bool,
    #[command(flatten)]
    search: PlayArgs,
    #[command(flatten)]
    device: DeviceArgs,
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
    let device = args.device.init()?;
    let spec: GameSpec = args.game.parse().context("--game")?;
    let text =
        std::fs::read_to_string(&args.positions).with_context(|| format!("reading {}", args.positions.display()))?;
    let file = args.positions.display().to_string();
    let bar = progress(text.lines().filter(|l| !l.trim().is_empty()).count() as u64, "positions");
    bar.set_prefix("judging");
    let judged = judge_file(&spec, &text, &file, || bar.inc(1))?;
    bar.finish_and_clear();
    let grades = match judged {
        Judged::Connect4(start, cases) => eval_typed(start, &spec, &args, &cases, device)?,
        Judged::Gomoku(start, cases) => eval_typed(start, &spec, &args, &cases, device)?,
    };
    let model = args.model.display().to_string();
    if args.json {
        for grade in &grades {
            println!("{}", serde_json::to_string(&EvalReport { model: model.clone(), grade })?);
        }
        return Ok(());
    }
    print!("{}", grade::table(&model, &grades));
    Ok(())
}

fn eval_typed<G: Game + FromAnyGame>(
    start: G,
    spec: &GameSpec,
    args: &EvalArgs,
    cases: &[Case<G>],
    device: tch::Device,
) -> Result<Vec<Grade>> {
    let mut agent: NetAgent<G> = net_agent(&args.model, spec, &start, &args.search, args.average_symmetries, device)?;
    let bar = progress(cases.len() as u64, "positions");
    bar.set_prefix("eval");
    let sims = args.search.config()?.simulations;
    let grades = grade(cases, &mut agent, &args.movers(), sims, || bar.inc(1));
    bar.finish_and_clear();
    Ok(grades)
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
    /// Take the positions from these recorded games (e.g. `dojo selfplay --out`) instead of
    /// random play: positions a trained network's own games reach, in its own style.
    #[arg(long = "from-games", num_args = 1..)]
    from_games: Vec<PathBuf>,
    /// Connect Four: labelled positions in Pons' categories (L1..L3 by discs played, R1..R3
    /// by moves left under perfect play), each line JSON with the exact score of every
    /// column by the solver, `--count` in all, categories balanced where random play
    /// allows. `dojo eval` grades on them without a solver.
    #[arg(long, conflicts_with_all = ["tactics", "from_games"])]
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
    if args.min_moves > args.max_moves {
        bail!("--min-moves {} is above --max-moves {}", args.min_moves, args.max_moves);
    }
    let start = spec.start()?;
    if args.pons {
        let AnyGame::Connect4(start) = start else {
            bail!("--pons labels Connect Four positions with the solver (width × (height + 1) <= 64), not {spec}")
        };
        return pons_positions(&start, &args);
    }
    if args.tactics {
        let AnyGame::Gomoku(start) = start else { bail!("--tactics is for Gomoku, not {spec}") };
        return positions_typed(start, &args, |g| g.tactic().is_some());
    }
    with_game!(start, g => positions_typed(g, &args, no_immediate_win))
}

fn positions_typed<G: Game>(start: G, args: &PositionsArgs, keep: impl Fn(&G) -> bool) -> Result<()> {
    let range =
        PositionRange { count: args.count, min_moves: args.min_moves, max_moves: args.max_moves, seed: args.seed };
    let lines = if args.from_games.is_empty() {
        random_positions(&start, range, keep)?
    } else {
        let lines = positions_from_games(&start, &args.from_games, range, keep)?;
        if lines.len() < args.count {
            eprintln!(
                "found only {} distinct positions with {}..={} moves",
                lines.len(),
                args.min_moves,
                args.max_moves
            );
        }
        lines
    };
    let out: String = lines.iter().map(|line| format!("{line}\n")).collect();
    emit(args, &out)
}

/// Writes the positions to `--out` (atomically) or stdout.
fn emit(args: &PositionsArgs, text: &str) -> Result<()> {
    match &args.out {
        Some(path) => atomic_write(path, text.as_bytes()).with_context(|| format!("writing {}", path.display())),
        None => Ok(std::io::stdout().lock().write_all(text.as_bytes())?),
    }
}

/// `dojo positions --pons`: a labelled, category-balanced set, with what was skipped.
fn pons_positions(start: &Connect4, args: &PositionsArgs) -> Result<()> {
    if args.count == 0 || args.per_category == Some(0) {
        bail!("--count and --per-category must be at least 1");
    }
    let settings = DrawSettings {
        per_category: args.per_category,
        total_nodes: args.total_nodes,
        ..DrawSettings::new(args.count, args.budget_nodes, args.seed)
    };
    let started = std::time::Instant::now();
    let bar = progress(args.count as u64, "positions");
    bar.set_prefix("labelling");
    let drawn = draw_positions(start, &settings, |_| bar.inc(1));
    bar.finish_and_clear();
    emit(args, &labelled_text(&drawn.positions))?;
    eprint!("{}", drawn.summary());
    eprintln!("in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
