//! `dojo bestmove`, `dojo eval` and `dojo positions`: what a network plays in given
//! positions, and how often that is a game-theoretic mistake by the solver's verdict.

use crate::common::{load_checkpoint, progress, DeviceArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use dojo_arbiter::players::PlayerSpec;
use dojo_core::game::connect4::Connect4;
use dojo_core::game::gomoku::{Gomoku, Tactic};
use dojo_core::game::{Action, AnyGame, Game, GameSpec, Outcome, ToMove};
use dojo_core::net::agent::NetAgent;
use dojo_core::net::infer::NetEvaluator;
use dojo_core::record::read_records;
use dojo_core::rng::Rng;
use dojo_core::search::config::{SearchConfig, SearchMode, PLAY_C_PUCT};
use dojo_core::search::evaluator::SymmetryAveraged;
use dojo_core::search::player::Agent;
use dojo_core::search::solver::{Position, Solver};
use dojo_core::with_game;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::collections::BTreeMap;
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
}

impl PlayArgs {
    pub fn config(&self) -> SearchConfig {
        SearchConfig { c_puct: self.c_puct, mode: self.mode, ..SearchConfig::for_play(self.sims) }
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
pub fn net_agent<G: Game>(
    model: &Path,
    spec: &GameSpec,
    start: &G,
    search: &PlayArgs,
    average_symmetries: bool,
    device: tch::Device,
) -> Result<NetAgent<G>> {
    let loaded = load_checkpoint(model, device, Some(spec))?;
    let network = NetEvaluator::new(loaded.model);
    let (config, rng) = (search.config(), Rng::seed_from_u64(0));
    let (path, sims, c_puct, mode) = (model.to_path_buf(), search.sims, search.c_puct, search.mode);
    let name = PlayerSpec::Net { path, sims, c_puct, average_symmetries, mode }.to_string();
    Ok(if average_symmetries {
        NetAgent::new(SymmetryAveraged::new(network, start.clone()), config, name, rng)
    } else {
        NetAgent::new(network, config, name, rng)
    })
}

/// Plays `moves` (text) from `start`; the position must not be over.
fn position_from_text<G: Game>(start: &G, moves: &str) -> Result<G> {
    let mut game = start.clone();
    for action in game.moves_from_text(moves)? {
        game.play(action)?;
    }
    if game.outcome().is_some() {
        bail!("position {moves:?} is already over");
    }
    Ok(game)
}

pub fn run_bestmove(args: BestMoveArgs) -> Result<()> {
    let device = args.device.init()?;
    let spec: GameSpec = args.game.parse().context("--game")?;
    let start = spec.start()?;
    with_game!(start, g => bestmove_typed(g, &spec, &args, device))
}

fn bestmove_typed<G: Game>(start: G, spec: &GameSpec, args: &BestMoveArgs, device: tch::Device) -> Result<()> {
    let mut agent: NetAgent<G> = net_agent(&args.model, spec, &start, &args.search, args.average_symmetries, device)?;
    let mut out = std::io::stdout().lock();
    let mut failures = 0;
    for (number, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading stdin")?;
        match position_from_text(&start, line.trim()) {
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
    /// Positions file: one move string per line (e.g. from `dojo positions`).
    #[arg(long)]
    positions: PathBuf,
    /// Judge the raw network policy (its highest-rated legal move, no search) instead of
    /// the move the search plays.
    #[arg(long)]
    policy: bool,
    /// Print one JSON object instead of a table.
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

/// Error counts for one group of positions.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ErrorRate {
    pub positions: u32,
    pub errors: u32,
    pub rate: f64,
}

#[derive(Serialize)]
struct EvalReport {
    model: String,
    /// "search" or "policy".
    mover: &'static str,
    sims: u32,
    overall: ErrorRate,
    /// By pieces on the board.
    by_discs: BTreeMap<usize, ErrorRate>,
    /// By kind of position (Gomoku: "win" or "block").
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    by_kind: BTreeMap<&'static str, ErrorRate>,
    /// Positions with nothing to judge (Gomoku: no five to make or to stop).
    skipped: u32,
}

/// The correct moves of a position, and the kind of position it is (if the judge groups
/// them); None when there is nothing to judge.
type Verdict = Option<(Vec<Action>, Option<&'static str>)>;

/// The solver's verdict: every move whose game-theoretic class (win/draw/loss) is the best
/// available.
fn solver_verdict(solver: &mut Solver, game: &Connect4) -> Verdict {
    let pos = Position::from_game(game);
    let classes = move_classes(solver, &pos);
    let best = classes.iter().flatten().max().copied()?;
    let correct = (0..classes.len()).filter(|&c| classes[c] == Some(best)).map(|c| c as Action).collect();
    Some((correct, None))
}

/// The one-move tactic of a Gomoku position: make five, else block the only five.
fn tactic_verdict(game: &Gomoku) -> Verdict {
    let kind = game.tactic()?;
    let correct = match &kind {
        Tactic::Win(points) => points.clone(),
        Tactic::Block(point) => vec![*point],
    };
    Some((correct, Some(kind.kind())))
}

/// -1, 0 or 1: the game-theoretic class of each legal column for the side to move.
fn move_classes(solver: &mut Solver, pos: &Position) -> Vec<Option<i32>> {
    (0..pos.width())
        .map(|col| {
            if !pos.can_play(col) {
                None
            } else if pos.is_winning_move(col) {
                Some(1)
            } else {
                let mut child = *pos;
                child.play(col).expect("playable column");
                Some(-solver.solve_weak(&child))
            }
        })
        .collect()
}

pub fn run_eval(args: EvalArgs) -> Result<()> {
    let device = args.device.init()?;
    let spec: GameSpec = args.game.parse().context("--game")?;
    let text =
        std::fs::read_to_string(&args.positions).with_context(|| format!("reading {}", args.positions.display()))?;
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let report = match spec.start()? {
        AnyGame::Connect4(start) => {
            let mut solver = Solver::new();
            eval_typed(start, &spec, &args, &lines, device, |g| solver_verdict(&mut solver, g))?
        }
        AnyGame::Gomoku(start) => eval_typed(start, &spec, &args, &lines, device, tactic_verdict)?,
        _ => bail!(
            "dojo eval judges Connect Four (width × (height + 1) <= 64, by the solver) and Gomoku (by one-move tactics), not {spec}"
        ),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    println!(
        "{} ({} at {} sims): {:.1}% of {} positions not optimal{}",
        report.model,
        report.mover,
        report.sims,
        100.0 * report.overall.rate,
        report.overall.positions,
        if report.skipped > 0 { format!(" ({} without a tactic skipped)", report.skipped) } else { String::new() }
    );
    for (kind, r) in &report.by_kind {
        println!("  {kind:>5}: {:.1}% of {} ({} errors)", 100.0 * r.rate, r.positions, r.errors);
    }
    println!("discs  positions  errors  rate");
    for (discs, r) in &report.by_discs {
        println!("{discs:>5}  {:>9}  {:>6}  {:>5.1}%", r.positions, r.errors, 100.0 * r.rate);
    }
    Ok(())
}

fn eval_typed<G: Game>(
    start: G,
    spec: &GameSpec,
    args: &EvalArgs,
    lines: &[&str],
    device: tch::Device,
    mut judge: impl FnMut(&G) -> Verdict,
) -> Result<EvalReport> {
    let mut agent: NetAgent<G> = net_agent(&args.model, spec, &start, &args.search, args.average_symmetries, device)?;
    let mut report = EvalReport {
        model: args.model.display().to_string(),
        mover: if args.policy { "policy" } else { "search" },
        sims: if args.policy { 0 } else { args.search.sims },
        overall: ErrorRate::default(),
        by_discs: BTreeMap::new(),
        by_kind: BTreeMap::new(),
        skipped: 0,
    };
    let bar = progress(lines.len() as u64, "positions");
    bar.set_prefix("eval");
    for (i, line) in lines.iter().enumerate() {
        bar.inc(1);
        let game =
            position_from_text(&start, line).with_context(|| format!("{} line {}", args.positions.display(), i + 1))?;
        let Some((correct, kind)) = judge(&game) else {
            report.skipped += 1;
            continue;
        };
        let chosen = if args.policy { agent.policy_move(&game) } else { agent.select_move(&game) };
        let error = !correct.contains(&chosen);
        let groups = [Some(&mut report.overall), Some(report.by_discs.entry(game.ply()).or_default())];
        let kind_group = kind.map(|k| report.by_kind.entry(k).or_default());
        for rate in groups.into_iter().chain([kind_group]).flatten() {
            rate.positions += 1;
            rate.errors += u32::from(error);
        }
    }
    bar.finish_and_clear();
    let rates = std::iter::once(&mut report.overall).chain(report.by_discs.values_mut());
    for rate in rates.chain(report.by_kind.values_mut()) {
        rate.rate = f64::from(rate.errors) / f64::from(rate.positions.max(1));
    }
    Ok(report)
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
}

/// `dojo positions`: distinct random-play positions, one move string per line. Without
/// `--tactics` the side to move has no immediate win, so every one is a real decision.
pub fn run_positions(args: PositionsArgs) -> Result<()> {
    let spec: GameSpec = args.game.parse().context("--game")?;
    if args.min_moves > args.max_moves {
        bail!("--min-moves {} is above --max-moves {}", args.min_moves, args.max_moves);
    }
    let start = spec.start()?;
    if args.tactics {
        let AnyGame::Gomoku(start) = start else { bail!("--tactics is for Gomoku, not {spec}") };
        return positions_typed(start, &args, |g| g.tactic().is_some());
    }
    with_game!(start, g => positions_typed(g, &args, no_immediate_win))
}

/// The side to move cannot win with its next move.
fn no_immediate_win<G: Game>(game: &G) -> bool {
    let ToMove::Player(me) = game.to_move() else { return false };
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    !legal.iter().any(|&a| {
        let mut g = game.clone();
        g.play_unchecked(a);
        g.outcome() == Some(Outcome::Win(me))
    })
}

fn positions_typed<G: Game>(start: G, args: &PositionsArgs, keep: impl Fn(&G) -> bool) -> Result<()> {
    if !args.from_games.is_empty() {
        return positions_from_games(start, args, keep);
    }
    let mut rng = Rng::seed_from_u64(args.seed);
    let mut seen = std::collections::HashSet::new();
    let mut out = std::io::stdout().lock();
    let mut legal = Vec::new();
    let mut attempts = 0usize;
    while seen.len() < args.count {
        attempts += 1;
        if attempts > args.count * 1000 {
            bail!("found only {} distinct positions with {}..={} moves", seen.len(), args.min_moves, args.max_moves);
        }
        let target = rng.random_range(args.min_moves..=args.max_moves);
        let mut game = start.clone();
        let mut moves = Vec::new();
        while moves.len() < target && game.outcome().is_none() {
            game.legal_actions(&mut legal);
            let a = *legal.choose(&mut rng).expect("a non-empty list");
            game.play_unchecked(a);
            moves.push(a);
        }
        if moves.len() < target || game.outcome().is_some() {
            continue;
        }
        if !matches!(game.to_move(), ToMove::Player(_)) {
            bail!("{}: positions are for two-player games", game.spec());
        }
        if !keep(&game) || !seen.insert(game.hash()) {
            continue;
        }
        writeln!(out, "{}", game.moves_to_text(&moves))?;
    }
    Ok(())
}

/// `dojo positions --from-games`: every distinct position of the recorded games within the
/// move range that `keep` accepts, `count` of them drawn at random (all, if fewer).
fn positions_from_games<G: Game>(start: G, args: &PositionsArgs, keep: impl Fn(&G) -> bool) -> Result<()> {
    let spec = start.spec();
    let mut seen = std::collections::HashSet::new();
    let mut found = Vec::new();
    for path in &args.from_games {
        let records = read_records(path).with_context(|| format!("reading {}", path.display()))?;
        for (i, record) in records.into_iter().enumerate() {
            if record.spec != spec {
                bail!("{}: game {} is a game of {}, not {spec}", path.display(), i + 1, record.spec);
            }
            let mut game = start.clone();
            let mut moves = Vec::new();
            for m in &record.moves {
                let at = moves.len();
                if (args.min_moves..=args.max_moves).contains(&at) && keep(&game) && seen.insert(game.hash()) {
                    found.push(game.moves_to_text(&moves));
                }
                if at >= args.max_moves {
                    break;
                }
                game.play(m.action)
                    .map_err(|e| anyhow::anyhow!("{}: game {}: move {}: {e}", path.display(), i + 1, at + 1))?;
                moves.push(m.action);
            }
        }
    }
    let mut rng = Rng::seed_from_u64(args.seed);
    found.shuffle(&mut rng);
    if found.len() < args.count {
        eprintln!("found only {} distinct positions with {}..={} moves", found.len(), args.min_moves, args.max_moves);
    }
    let mut out = std::io::stdout().lock();
    for line in found.iter().take(args.count) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
