//! `dojo export saiblo` and `dojo export gomocup`: a network as a plain C++ engine another
//! platform builds (a saiblo.net strategy; a Gomocup brain for Linux and Windows), built and
//! checked against the network here when the compilers are at hand. Both formats take the
//! same engine flags ([`EngineArgs`]); only their defaults differ.

use anyhow::Result;
use clap::{Args, Subcommand};
use dojo_arch::precision::Precision;
use dojo_net::device::set_threads;
use dojo_net::folded::FoldedNetwork;
use dojo_program::cpp_export::SearchSettings;
use dojo_program::gomocup_export::{self as gomocup, Target};
use dojo_program::saiblo_export as saiblo;
use dojo_search::config::SearchConfig;
use std::path::PathBuf;

#[derive(Args)]
pub struct ExportArgs {
    #[command(subcommand)]
    format: ExportFormat,
}

#[derive(Subcommand)]
enum ExportFormat {
    /// A Connect Four network as a saiblo.net strategy: DIR/Strategy.cpp (the weights, the
    /// network's inference and dojo's search, PUCT or Gumbel, by the clock), Strategy.h, Point.h.
    Saiblo(SaibloArgs),
    /// A Gomoku network as a Gomocup brain: DIR/pbrain-NAME.cpp (the weights, the network's
    /// inference, dojo's search by the clock with the threat-space prover, the Gomocup
    /// protocol), built as DIR/pbrain-NAME (Linux) and DIR/pbrain-NAME.exe (Windows x86-64,
    /// static: what Gomocup's manager runs).
    Gomocup(GomocupArgs),
}

/// What every exported engine takes.
#[derive(Args)]
struct EngineArgs {
    /// The checkpoint (an any-size network: Connect Four trained on connect4:saiblo for
    /// saiblo, Gomoku for gomocup).
    #[arg(long)]
    model: PathBuf,
    /// The folder to write into (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Milliseconds each move searches (saiblo: 2500 of the platform's 3000; gomocup: 5000,
    /// used when the manager gives no clock).
    #[arg(long)]
    move_ms: Option<u64>,
    /// Stop each move's search at this many playouts too (default: only the clock).
    #[arg(long)]
    playouts: Option<u32>,
    /// A search setting as a net: player takes it, e.g. `search.c_puct=1.5` (repeatable).
    /// The defaults are a net: player's but for 4 rollouts a leaf in a saiblo strategy
    /// (`search.rollouts=0` turns them off) and a 1000-node threat search in a Gomocup brain
    /// (`search.vcf_nodes=0`).
    #[arg(long = "set", value_name = "search.KEY=VALUE")]
    set: Vec<String>,
    /// Only write the source: no build, no check.
    #[arg(long)]
    no_build: bool,
    /// Positions the built engine's network is compared with dojo's on, spread over the
    /// board sizes it plays (0: no check; default 1000 for saiblo, 1000 a size for gomocup).
    #[arg(long)]
    check: Option<usize>,
}

#[derive(Args)]
struct SaibloArgs {
    #[command(flatten)]
    engine: EngineArgs,
}

#[derive(Args)]
struct GomocupArgs {
    #[command(flatten)]
    engine: EngineArgs,
    /// The brain's name: its files are pbrain-NAME.cpp, pbrain-NAME and pbrain-NAME.exe.
    #[arg(long, default_value = gomocup::DEFAULT_NAME)]
    name: String,
    /// What to build for: linux, windows or both (comma-separated). Windows needs a
    /// mingw-w64 compiler (Debian: g++-mingw-w64-x86-64-win32).
    #[arg(long, value_delimiter = ',', default_value = "linux,windows")]
    targets: Vec<TargetArg>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum TargetArg {
    Linux,
    Windows,
}

pub fn run(args: ExportArgs) -> Result<()> {
    match args.format {
        ExportFormat::Saiblo(args) => run_saiblo(args),
        ExportFormat::Gomocup(args) => run_gomocup(args),
    }
}

/// What the engine searches with, from `defaults` and the flags. Its playouts:
/// `--playouts`, else a `--set search.simulations=N`, else only the clock (a flag over
/// `--set`, as everywhere).
fn settings(args: &EngineArgs, mut search: SearchConfig, default_move_ms: u64) -> Result<SearchSettings> {
    search.apply(&args.set)?;
    let set_playouts = (search.simulations != u32::MAX).then_some(search.simulations);
    let move_ms = args.move_ms.unwrap_or(default_move_ms);
    Ok(SearchSettings { playouts: args.playouts.or(set_playouts), move_ms, search })
}

/// Any difference above this between an engine's network and dojo's is an error.
const AGREEMENT: f32 = 1e-4;

/// A line saying how the engine searches.
fn describe_search(settings: &SearchSettings) -> String {
    let mut parts = vec![format!("{} ms a move", settings.move_ms)];
    if let Some(n) = settings.playouts {
        parts.push(format!("at most {n} playouts"));
    }
    let s = &settings.search;
    if s.rollouts > 0 {
        parts.push(format!("{} rollouts a leaf at weight {}", s.rollouts, s.rollout_weight));
    }
    if s.vcf_nodes > 0 {
        parts.push(format!("a {}-node threat search", s.vcf_nodes));
    }
    parts.join(", ")
}

fn kernels(kernels: &[dojo_program::cpp_export::Kernel]) -> String {
    kernels.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(" and ")
}

fn run_saiblo(args: SaibloArgs) -> Result<()> {
    let args = args.engine;
    let config = settings(&args, saiblo::default_search(), saiblo::DEFAULT_MOVE_MS)?;
    let loaded = saiblo::load(&args.model)?;
    let exported = saiblo::write_strategy(&args.model, &loaded, &config, &args.out)?;
    let rollouts = if config.search.rollouts == 0 { ", no rollouts" } else { "" };
    println!(
        "wrote {} ({:.1} MB; a {} network; {}{rollouts})",
        exported.source.display(),
        exported.bytes as f64 / 1e6,
        exported.shape,
        describe_search(&config)
    );
    if args.no_build {
        return Ok(());
    }
    let started = std::time::Instant::now();
    let so = saiblo::build(&args.out)?;
    println!("built {} with g++ -O2 in {:.1} s", so.display(), started.elapsed().as_secs_f64());
    let check = args.check.unwrap_or(1000);
    if check == 0 {
        return Ok(());
    }
    // One thread: libtorch's pool spins, and this is one position at a time.
    set_threads(1);
    let agreement = saiblo::check_agreement(&so, &loaded.model, check, 1)?;
    let line = format!(
        "{} positions on {} board sizes, with {}: the strategy's network differs from dojo's by at most {:.1e} \
         in a column's probability and {:.1e} in the value",
        agreement.positions,
        agreement.sizes,
        kernels(&agreement.kernels),
        agreement.policy,
        agreement.value
    );
    // check_agreement has already failed on a position where the lookaheads or rollouts differ.
    report_check(&line, agreement.policy, agreement.value, "its two-step lookahead and its rollouts")
}

/// Fails the export where the engine's network is further than [`AGREEMENT`] from dojo's
/// (`line` says by how much); else prints it, with `tactics`, which the check also compared.
fn report_check(line: &str, policy: f32, value: f32, tactics: &str) -> Result<()> {
    if policy > AGREEMENT || value > AGREEMENT {
        anyhow::bail!("{line}, more than {AGREEMENT:e}");
    }
    println!("checked: {line}; {tactics} are dojo's on every one");
    Ok(())
}

fn run_gomocup(args: GomocupArgs) -> Result<()> {
    let engine = &args.engine;
    let config = settings(engine, gomocup::default_search(), gomocup::DEFAULT_MOVE_MS)?;
    let loaded = gomocup::load(&engine.model)?;
    let exported = gomocup::write_brain(&engine.model, &loaded, &config, &args.name, &engine.out)?;
    let (small, large) = (exported.sizes.start(), exported.sizes.end());
    println!(
        "wrote {} ({:.1} MB; a {} network for boards {small}x{small} to {large}x{large}; {} without a clock \
         from the manager)",
        exported.source.display(),
        exported.bytes as f64 / 1e6,
        exported.shape,
        describe_search(&config)
    );
    if engine.no_build {
        return Ok(());
    }
    for (arg, target) in [(TargetArg::Linux, Target::Linux), (TargetArg::Windows, Target::Windows)] {
        if args.targets.contains(&arg) {
            let started = std::time::Instant::now();
            let built = gomocup::build(&exported.source, target)?;
            println!("built {} in {:.1} s", built.display(), started.elapsed().as_secs_f64());
        }
    }
    let sizes = exported.sizes.clone().count();
    let check = engine.check.unwrap_or(1000 * sizes);
    if check == 0 {
        return Ok(());
    }
    let scratch = tempfile::tempdir()?;
    let so = gomocup::build_check(&exported.source, &scratch.path().join("check.so"))?;
    set_threads(1);
    let mut network = FoldedNetwork::new(&loaded.model, Precision::F32);
    let per_size = check.div_ceil(sizes);
    let agreement = gomocup::check_agreement(&so, &mut network, per_size, config.search.vcf_nodes, 1)?;
    let line = format!(
        "{per_size} positions on each of the {sizes} board sizes, with {}: the brain's network differs from \
         dojo's by at most {:.1e} in a point's probability and {:.1e} in the value",
        kernels(&agreement.kernels),
        agreement.policy,
        agreement.value
    );
    report_check(&line, agreement.policy, agreement.value, "its lookahead and threat search")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: SaibloArgs,
    }

    fn playouts(words: &[&str]) -> Option<u32> {
        let cli = Cli::try_parse_from(["export", "--model", "m", "--out", "o"].iter().chain(words)).unwrap();
        settings(&cli.args.engine, saiblo::default_search(), saiblo::DEFAULT_MOVE_MS).unwrap().playouts
    }

    #[test]
    fn playouts_come_from_the_flag_over_set_over_the_clock_alone() {
        assert_eq!(playouts(&[]), None);
        assert_eq!(playouts(&["--set", "search.simulations=800"]), Some(800));
        assert_eq!(playouts(&["--set", "search.sims=800"]), Some(800));
        assert_eq!(playouts(&["--playouts", "300", "--set", "search.simulations=800"]), Some(300));
    }

    #[test]
    fn a_strategy_mixes_four_rollouts_unless_told_otherwise() {
        let rollouts = |words: &[&str]| {
            let cli = Cli::try_parse_from(["export", "--model", "m", "--out", "o"].iter().chain(words)).unwrap();
            settings(&cli.args.engine, saiblo::default_search(), saiblo::DEFAULT_MOVE_MS).unwrap().search.rollouts
        };
        assert_eq!(rollouts(&[]), 4);
        assert_eq!(rollouts(&["--set", "search.rollouts=0"]), 0);
    }
}
