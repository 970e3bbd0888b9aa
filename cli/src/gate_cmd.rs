//! `dojo gate`: gates a run's newest version against its best one, once or as the learner
//! publishes (`--watch`): the arbiter of a cluster run, on the machine with the run dir.
//! `dojo train` does the same on a thread of its own. One-player games (2048, 2584) compare
//! mean scores on the same seeds instead of playing a match (`dojo_arbiter::gating`).

use crate::common::gate_policy;
use anyhow::{bail, Result};
use clap::Args;
use dojo_arbiter::gatekeeper::{newest_version, Gatekeeper};
use dojo_run::config::RunConfig;
use dojo_run::dir::RunDir;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct GateArgs {
    /// The run directory (a learner's, running or not).
    #[arg(long, default_value = "runs/connect4")]
    run_dir: PathBuf,
    /// Keep gating new versions as the learner publishes them, until Ctrl-C.
    #[arg(long)]
    watch: bool,
    /// With --watch: gate once this many versions are new (default: the run's
    /// gating.every_versions, or 1 where that is 0).
    #[arg(long)]
    every: Option<u64>,
    /// Games played at once (default: the cores).
    #[arg(long)]
    threads: Option<usize>,
}

pub fn run(args: GateArgs, stop: Arc<AtomicBool>) -> Result<()> {
    let run = RunDir::new(&args.run_dir);
    if args.watch && !run.exists() {
        // Started beside a learner (a container, a service): wait for it to make the run.
        eprintln!("gate: waiting for a run in {}", args.run_dir.display());
        while !run.exists() {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }
    if !run.exists() {
        bail!("{} is not a run directory (no config.toml)", args.run_dir.display());
    }
    let config = RunConfig::load(&run.config())?;
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut keeper = Gatekeeper::open(&run, &gate_policy(&config, threads)).map_err(anyhow::Error::msg)?;
    let every = args.every.unwrap_or(config.gating.every_versions).max(1);
    let mut last_error = None;
    loop {
        let newest = match newest_version(&run) {
            Ok(v) => {
                last_error = None;
                v
            }
            // Watching, an unreadable models/latest.json (a learner of an older dojo
            // rewriting it in place, a volume hiccup) is tried again, not fatal.
            Err(e) if args.watch => {
                if last_error.as_ref() != Some(&e) {
                    eprintln!("gate: {e}; trying again every second");
                }
                last_error = Some(e);
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                std::thread::sleep(Duration::from_secs(1));
                continue;
            }
            Err(e) => bail!(e),
        };
        // Once: the newest, unless it has been gated already. Watching: every `every`.
        let due = if args.watch { keeper.due(newest, every) } else { newest > keeper.last_gated() };
        if due && keeper.prepare() {
            continue;
        }
        if due {
            eprintln!("gating v{newest} ({})...", keeper.policy().settings.describe_for(&config.game));
            match keeper.gate(newest, Some(&stop)) {
                Ok(record) => println!("{}", record.describe()),
                Err(_) if stop.load(Ordering::Relaxed) => break,
                // Watching, a version pruned before it was read is passed over.
                Err(e) if args.watch => {
                    eprintln!("gating v{newest}: {e}");
                    keeper.skip(newest);
                }
                Err(e) => bail!("gating v{newest}: {e}"),
            }
        } else if !args.watch {
            let best = keeper.best_version().map_or("none".to_string(), |v| format!("v{v}"));
            println!("v{newest} has been gated already; the best is {best}");
        }
        if !args.watch || stop.load(Ordering::Relaxed) {
            break;
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    Ok(())
}
