//! `dojo export saiblo`: a network as a saiblo strategy (C++ that the platform builds with
//! plain `g++ -O2`), built and checked against the network here when g++ is at hand.

use anyhow::Result;
use clap::{Args, Subcommand};
use dojo_net::device::set_threads;
use dojo_program::saiblo_export::{self as export, ExportConfig, DEFAULT_MOVE_MS};
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
}

#[derive(Args)]
struct SaibloArgs {
    /// The checkpoint (an any-size Connect Four network: trained on connect4:saiblo).
    #[arg(long)]
    model: PathBuf,
    /// The folder to write the strategy into (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Milliseconds each move searches (the platform allows 3000).
    #[arg(long, default_value_t = DEFAULT_MOVE_MS)]
    move_ms: u64,
    /// Stop each move's search at this many playouts too (default: only the clock).
    #[arg(long)]
    playouts: Option<u32>,
    /// A search setting as a net: player takes it, e.g. `search.c_puct=1.5` (repeatable).
    /// The strategy's defaults are a net: player's but for 4 rollouts a leaf
    /// (`search.rollouts=0` turns them off).
    #[arg(long = "set", value_name = "search.KEY=VALUE")]
    set: Vec<String>,
    /// Only write the source: no build with g++, no check.
    #[arg(long)]
    no_build: bool,
    /// Positions of random saiblo boards the built strategy's network is compared with
    /// dojo's on (0: no check).
    #[arg(long, default_value_t = 1000)]
    check: usize,
}

pub fn run(args: ExportArgs) -> Result<()> {
    match args.format {
        ExportFormat::Saiblo(args) => run_saiblo(args),
    }
}

/// What the strategy searches with. Its playouts: `--playouts`, else a
/// `--set search.simulations=N`, else only the clock (a flag over `--set`, as everywhere).
fn export_config(args: &SaibloArgs) -> Result<ExportConfig> {
    let mut search = ExportConfig::default_search();
    search.apply(&args.set)?;
    let set_playouts = (search.simulations != u32::MAX).then_some(search.simulations);
    Ok(ExportConfig { playouts: args.playouts.or(set_playouts), move_ms: args.move_ms, search })
}

/// Any difference above this between the strategy's network and dojo's is an error.
const AGREEMENT: f32 = 1e-4;

fn run_saiblo(args: SaibloArgs) -> Result<()> {
    let config = export_config(&args)?;
    let loaded = export::load(&args.model)?;
    let exported = export::write_strategy(&args.model, &loaded, &config, &args.out)?;
    println!(
        "wrote {} ({:.1} MB; a {} network; {} ms a move{}; {})",
        exported.source.display(),
        exported.bytes as f64 / 1e6,
        exported.shape,
        config.move_ms,
        config.playouts.map(|n| format!(", at most {n} playouts")).unwrap_or_default(),
        match config.search.rollouts {
            0 => "no rollouts".to_string(),
            n => format!("{n} rollouts a leaf at weight {}", config.search.rollout_weight),
        }
    );
    if args.no_build {
        return Ok(());
    }
    let started = std::time::Instant::now();
    let so = export::build(&args.out)?;
    println!("built {} with g++ -O2 in {:.1} s", so.display(), started.elapsed().as_secs_f64());
    if args.check == 0 {
        return Ok(());
    }
    // One thread: libtorch's pool spins, and this is one position at a time.
    set_threads(1);
    let agreement = export::check_agreement(&so, &loaded.model, args.check, 1)?;
    let kernels: Vec<String> = agreement.kernels.iter().map(|k| k.to_string()).collect();
    let line = format!(
        "{} positions on {} board sizes, with {}: the strategy's network differs from dojo's by at most {:.1e} \
         in a column's probability and {:.1e} in the value",
        agreement.positions,
        agreement.sizes,
        kernels.join(" and "),
        agreement.policy,
        agreement.value
    );
    if agreement.policy > AGREEMENT || agreement.value > AGREEMENT {
        anyhow::bail!("{line}, more than {AGREEMENT:e}");
    }
    // check_agreement has already failed on a position where the lookaheads or rollouts differ.
    println!("checked: {line}; its two-step lookahead and its rollouts are dojo's on every one");
    Ok(())
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
        export_config(&cli.args).unwrap().playouts
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
            export_config(&cli.args).unwrap().search.rollouts
        };
        assert_eq!(rollouts(&[]), 4);
        assert_eq!(rollouts(&["--set", "search.rollouts=0"]), 0);
    }
}
