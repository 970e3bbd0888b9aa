//! `dojo gate`: gates a run's newest version against its best one, once or as the learner
//! publishes (`--watch`): the arbiter of a cluster run, on the machine with the run dir.
//! `dojo train` does the same on a thread of its own. One-player games (2048, 2584) compare
//! mean scores on the same seeds instead of playing a match (`dojo_gating::gating`).

use anyhow::{bail, Result};
use clap::Args;
use dojo_gating::{Event, Gatekeeper, Newest, Schedule, Watch};
use dojo_run::config::RunConfig;
use dojo_run::dir::RunDir;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
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
    parallel: Option<usize>,
}

pub fn run(args: GateArgs, stop: Arc<AtomicBool>) -> Result<()> {
    let run = RunDir::new(&args.run_dir);
    if args.watch && !run.exists() {
        // Started beside a learner (a container, a service): wait for it to make the run.
        eprintln!("gate: waiting for a run in {}", args.run_dir.display());
        if !run.wait_until_made(&stop) {
            return Ok(());
        }
    }
    if !run.exists() {
        bail!("{} is not a run directory (no config.toml)", args.run_dir.display());
    }
    let config = RunConfig::load_stored(&run.config())?;
    let threads = crate::common::parallel_or_cores(args.parallel);
    let mut keeper = Gatekeeper::open(&run, &config, threads)?;
    // Once: the newest, unless it has been gated already. Watching: every `every`.
    let schedule = if args.watch {
        Schedule::Every(args.every.unwrap_or(config.gating.every_versions).max(1))
    } else {
        Schedule::Once
    };
    let gate = keeper.policy().settings.describe_for(&config.game);
    let mut say = |event: Event<'_>| match event {
        Event::Unreadable(e) => eprintln!("gate: {e}; trying again every second"),
        Event::Gating(version) => eprintln!("gating v{version} ({gate})..."),
        Event::Gated { record, .. } => println!("{}", record.describe()),
        Event::Failed(e) => eprintln!("{e}"),
        Event::AlreadyGated { newest, best } => {
            let best = best.map_or("none".to_string(), |v| format!("v{v}"));
            println!("v{newest} has been gated already; the best is {best}");
        }
    };
    let options = Watch { schedule, poll: Duration::from_secs(1), stop: &stop };
    Ok(keeper.watch(Newest::Published, &options, &mut say)?)
}
