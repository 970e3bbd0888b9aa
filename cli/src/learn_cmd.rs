//! `dojo learn`: trains a checkpoint on self-play records offline, through the learner's
//! replay buffer and training step (`dojo_learner::offline`).

use crate::common::{progress, DeviceArgs, Progress};
use crate::settings::RunConfigArgs;
use anyhow::{bail, Result};
use clap::Args;
use dojo_arch::train::OptimizerKind;
use dojo_game::with_game;
use dojo_game::{FromAnyGame, Game};
use dojo_learner::offline::{self, Loaded, Observer, Offline};
use dojo_net::checkpoint::{self, read_sidecar};
use dojo_net::device::Device;
use dojo_net::train::Losses;
use dojo_run::config::RunConfig;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct LearnArgs {
    /// Checkpoint to start from.
    #[arg(long)]
    model: PathBuf,
    /// Records files (from `dojo selfplay`).
    #[arg(long, value_name = "FILES", num_args = 1.., required = true)]
    records: Vec<PathBuf>,
    /// Training steps (batches), drawn as a run's learner draws them from its replay buffer
    /// (`[replay]`: the window, outcome balancing, late-position weights, augmentation).
    #[arg(long)]
    steps: u64,
    /// Checkpoint to write.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    run_config: RunConfigArgs,
    /// Positions per batch (default: train.batch_size).
    #[arg(long)]
    batch: Option<usize>,
    /// The update rule: sgd or adam (default: train.optimizer).
    #[arg(long, value_name = "sgd|adam")]
    optimizer: Option<OptimizerKind>,
    /// Learning rate (default: train.learning_rate; with an --optimizer other than the
    /// config's, 1e-3 for Adam and 0.02 for SGD).
    #[arg(long)]
    lr: Option<f64>,
    /// L2 regularisation, weight decay (default: train.weight_decay).
    #[arg(long)]
    weight_decay: Option<f64>,
    /// AlphaFive's late-position weighting factor (e.g. 0.94); 0 = off (default: replay.late_position_factor).
    #[arg(long)]
    late_factor: Option<f32>,
    /// Train without random symmetries (default: replay.augment).
    #[arg(long)]
    no_augment: bool,
    /// Weight of the search's root value in the value target, (1 - w)·result + w·root
    /// value; 0 trains on game results alone (default: replay.search_value_weight).
    #[arg(long)]
    search_value_weight: Option<f32>,
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    device: DeviceArgs,
}

pub fn run(args: LearnArgs) -> Result<()> {
    let device = args.device.init()?;
    let spec = read_sidecar(&args.model)?.architecture.game;
    let start = dojo_record::record_start(&spec)?;
    let config = config(&args)?;
    with_game!(start, g => learn_typed(g, &args, &config, device))
}

/// The run config with the flags' settings in it.
fn config(args: &LearnArgs) -> Result<RunConfig> {
    let mut run = args.run_config.load()?;
    let train = &mut run.train;
    if let Some(optimizer) = args.optimizer {
        // The config's learning rate is for the config's optimizer.
        if optimizer != train.optimizer {
            train.learning_rate = optimizer.default_learning_rate();
        }
        train.optimizer = optimizer;
    }
    train.learning_rate = args.lr.unwrap_or(train.learning_rate);
    train.weight_decay = args.weight_decay.unwrap_or(train.weight_decay);
    train.batch_size = args.batch.unwrap_or(train.batch_size);
    let replay = &mut run.replay;
    replay.search_value_weight = args.search_value_weight.unwrap_or(replay.search_value_weight);
    if !(0.0..=1.0).contains(&replay.search_value_weight) {
        bail!("--search-value-weight {} must be within 0..=1", replay.search_value_weight);
    }
    replay.late_position_factor = args.late_factor.unwrap_or(replay.late_position_factor);
    replay.augment &= !args.no_augment;
    Ok(run)
}

fn learn_typed<G: Game + FromAnyGame>(start: G, args: &LearnArgs, config: &RunConfig, device: Device) -> Result<()> {
    let job = Offline {
        init: &args.model,
        out: &args.out,
        games: &args.records,
        steps: args.steps,
        config,
        seed: args.seed.unwrap_or_else(rand::random),
        device,
    };
    let bar = progress(args.steps, "steps");
    bar.set_prefix("learn");
    let mut shown = Shown(bar);
    let sidecar = offline::learn(start, &job, &mut shown)?;
    shown.0.finish_and_clear();
    println!("wrote {} (step {})", checkpoint::paths(&args.out).0.display(), sidecar.step);
    Ok(())
}

/// Offline training shown: a progress bar, and the mean losses of each report.
struct Shown(Progress);

impl Observer for Shown {
    fn loaded(&mut self, loaded: &Loaded) {
        let window = if loaded.in_window < loaded.positions {
            format!(" (the replay window holds the newest {})", loaded.in_window)
        } else {
            String::new()
        };
        eprintln!("training on {} positions from {} games{window}", loaded.positions, loaded.games);
    }

    fn step(&mut self, _step: u64, _losses: &Losses) {
        self.0.inc(1);
    }

    fn report(&mut self, step: u64, mean: &Losses) {
        let (policy, value, entropy) = (mean.policy, mean.value, mean.entropy);
        let line = format!("step {step:>6}: policy {policy:.4}  value {value:.4}  entropy {entropy:.3}");
        match self.0.is_hidden() {
            true => eprintln!("{line}"),
            false => self.0.println(line),
        }
    }
}
