//! `dojo learn`: trains a checkpoint on self-play records offline.

use crate::common::{load_checkpoint, progress, record_start_of, DeviceArgs};
use crate::settings::RunConfigArgs;
use anyhow::{bail, Context, Result};
use clap::Args;
use dojo_core::game::{FromAnyGame, Game};
use dojo_core::net::checkpoint::{self, read_sidecar};
use dojo_core::net::train::{Batch, OptimizerKind, Trainer};
use dojo_core::record::{read_records, SampleOptions, TrainingGame};
use dojo_core::rng::Rng;
use dojo_core::with_game;
use rand::{seq::IndexedRandom, SeedableRng};
use std::path::PathBuf;

#[derive(Args)]
pub struct LearnArgs {
    /// Checkpoint to start from.
    #[arg(long)]
    init: PathBuf,
    /// Records files (from `dojo selfplay`).
    #[arg(long, num_args = 1.., required = true)]
    games: Vec<PathBuf>,
    /// Training steps (batches).
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
    /// The update rule (default: train.optimizer).
    #[arg(long, value_enum)]
    optimizer: Option<OptimizerArg>,
    /// Learning rate (default: train.learning_rate; with an --optimizer other than the
    /// config's, 1e-3 for Adam and 0.02 for SGD).
    #[arg(long)]
    lr: Option<f64>,
    /// L2 regularisation, weight decay (default: train.weight_decay).
    #[arg(long)]
    weight_decay: Option<f64>,
    /// AlphaFive's late-position weighting factor (e.g. 0.94); 0 = off (default:
    /// replay.late_position_factor).
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

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum OptimizerArg {
    Sgd,
    Adam,
}

pub fn run(args: LearnArgs) -> Result<()> {
    let device = args.device.init()?;
    let spec = read_sidecar(&args.init)?.architecture.game;
    let start = record_start_of(&spec)?;
    with_game!(start, g => run_typed(g, &args, device))
}

fn run_typed<G: Game + FromAnyGame>(start: G, args: &LearnArgs, device: tch::Device) -> Result<()> {
    let spec = start.spec();
    let loaded = load_checkpoint(&args.init, device, Some(&spec))?;
    let mut games: Vec<TrainingGame<G>> = Vec::new();
    for path in &args.games {
        for (i, record) in read_records(path)?.into_iter().enumerate() {
            if record.spec != spec {
                bail!("{} game {}: played on {}, but the network is for {}", path.display(), i + 1, record.spec, spec);
            }
            let game = TrainingGame::new(record, start.clone())
                .with_context(|| format!("{} game {}", path.display(), i + 1))?;
            games.push(game);
        }
    }
    let index: Vec<(u32, u32)> =
        games.iter().enumerate().flat_map(|(g, t)| (0..t.len() as u32).map(move |p| (g as u32, p))).collect();
    if index.is_empty() {
        bail!("the records hold no trainable positions");
    }
    let run = args.run_config.load()?;
    let mut config = run.train;
    if let Some(choice) = args.optimizer {
        let (optimizer, default_lr) = match choice {
            OptimizerArg::Sgd => (OptimizerKind::Sgd, 0.02),
            OptimizerArg::Adam => (OptimizerKind::Adam, 1e-3),
        };
        // The config's learning rate is for the config's optimizer.
        if optimizer != config.optimizer {
            config.learning_rate = default_lr;
        }
        config.optimizer = optimizer;
    }
    config.learning_rate = args.lr.unwrap_or(config.learning_rate);
    config.weight_decay = args.weight_decay.unwrap_or(config.weight_decay);
    config.batch_size = args.batch.unwrap_or(config.batch_size);
    let search_value_weight = args.search_value_weight.unwrap_or(run.replay.search_value_weight);
    if !(0.0..=1.0).contains(&search_value_weight) {
        bail!("--search-value-weight {search_value_weight} must be within 0..=1");
    }
    let late_factor = args.late_factor.unwrap_or(run.replay.late_position_factor);
    let opts = SampleOptions {
        late_weight: (late_factor > 0.0).then_some(late_factor),
        augment: run.replay.augment && !args.no_augment,
        search_value_weight,
        // A checkpoint of a one-player game names the scale it was trained with.
        return_scale: loaded.sidecar.architecture.return_scale(),
    };
    let batch_size = config.batch_size;
    let start_step = loaded.sidecar.step;
    let version = loaded.sidecar.version;
    let mut trainer = Trainer::new(loaded.model, config)?;
    let mut rng = Rng::seed_from_u64(args.seed.unwrap_or_else(rand::random));
    eprintln!("training on {} positions from {} games", index.len(), games.len());
    let bar = progress(args.steps, "steps");
    bar.set_prefix("learn");
    let mut batch = Batch::default();
    let mut window = (0.0, 0.0, 0.0, 0u32);
    for step in 0..args.steps {
        batch.clear();
        for _ in 0..batch_size {
            let (g, p) = *index.choose(&mut rng).expect("a non-empty list");
            let game = &games[g as usize];
            let sym = game.pick_symmetry(&mut rng, &opts);
            batch.push(game, p as usize, sym, &opts)?;
        }
        let l = trainer.train_step(&batch);
        window = (window.0 + l.policy, window.1 + l.value, window.2 + l.entropy, window.3 + 1);
        if (step + 1) % 50 == 0 || step + 1 == args.steps {
            let n = f64::from(window.3);
            let line = format!(
                "step {:>6}: policy {:.4}  value {:.4}  entropy {:.3}",
                start_step + step + 1,
                window.0 / n,
                window.1 / n,
                window.2 / n
            );
            if bar.is_hidden() {
                eprintln!("{line}");
            } else {
                bar.println(line);
            }
            window = (0.0, 0.0, 0.0, 0);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let side = checkpoint::save(&trainer.model, &args.out, start_step + args.steps, version, Some(&args.init))?;
    println!("wrote {} (step {})", checkpoint::paths(&args.out).0.display(), side.step);
    Ok(())
}
