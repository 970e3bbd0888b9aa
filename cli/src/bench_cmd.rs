//! `dojo bench`: what this machine does with dojo. `net` times the network's forward pass
//! against the device's matrix-multiply rate, `selfplay` the whole self-play loop against
//! the bare network, `search` the searches and the game engines, `ingest` the learner's
//! intake, `train` its training steps, and `agree` checks the device's outputs against the
//! CPU's.
//! Each prints a short table, or one JSON object with `--json`.

mod agree;
mod ingest_speed;
mod net;
mod search_speed;
mod selfplay_speed;
mod train_speed;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use dojo_arch::architecture::{Architecture, PolicyHeadChoice};
use dojo_game::GameSpec;
use dojo_net::checkpoint::read_sidecar;
use dojo_net::device::Device;
use dojo_net::model::Model;
use dojo_program::checkpoint::load_checkpoint;
use std::path::PathBuf;

#[derive(Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchWhat,
}

#[derive(Subcommand)]
enum BenchWhat {
    /// The network's forward pass: evals/s per batch size and precision, and its GFLOP/s
    /// as a share of this machine's matrix-multiply rate.
    Net(net::NetBenchArgs),
    /// Self-play as a worker plays it: positions/s, the network's evals/s inside self-play
    /// against the bare network at the same batch, and where the rest of the time goes.
    Selfplay(selfplay_speed::SelfPlayBenchArgs),
    /// The searches with a free evaluator (PUCT simulations/s) and the game engines' random playouts/s.
    Search(search_speed::SearchBenchArgs),
    /// Learner ingest capacity: many clients submitting valid Connect Four games at once.
    Ingest(ingest_speed::IngestArgs),
    /// The learner's training steps/s on this device, for a network and batch size.
    Train(train_speed::TrainBenchArgs),
    /// The network's outputs on this device in each format against the CPU's in f32, on
    /// fixed positions; fails when a format is outside its tolerance.
    Agree(agree::AgreeArgs),
}

pub fn run(args: BenchArgs) -> Result<()> {
    match args.what {
        BenchWhat::Net(a) => net::run(a),
        BenchWhat::Selfplay(a) => selfplay_speed::run(a),
        BenchWhat::Search(a) => search_speed::run(a),
        BenchWhat::Ingest(a) => ingest_speed::run(a),
        BenchWhat::Train(a) => train_speed::run(a),
        BenchWhat::Agree(a) => agree::run(a),
    }
}

/// The network a benchmark runs: a checkpoint, or a freshly initialised one of a given
/// shape (speed does not depend on the weights).
#[derive(Args, Clone, Debug)]
pub struct NetChoice {
    /// Checkpoint to time (instead of a random network of --game, --blocks, --channels).
    #[arg(long, conflicts_with_all = ["game", "blocks", "channels", "policy_head"])]
    model: Option<PathBuf>,
    /// Game of the random network (connect4, connect4:WxH, gomoku:N).
    #[arg(long, default_value = "connect4")]
    game: String,
    /// Residual blocks of the random network (3 × 32 is `dojo train`'s default).
    #[arg(long, default_value_t = 3)]
    blocks: usize,
    /// Filters per convolution of the random network.
    #[arg(long, default_value_t = 32)]
    channels: usize,
    /// Policy head of the random network: auto, fc or conv.
    #[arg(long, default_value = "auto")]
    policy_head: PolicyHeadChoice,
}

impl NetChoice {
    /// The game and the network, on `device`.
    pub fn load(&self, device: Device) -> Result<(GameSpec, Model)> {
        if let Some(path) = &self.model {
            let spec = read_sidecar(path)?.architecture.game;
            return Ok((spec.clone(), load_checkpoint(path, device, Some(&spec))?.model));
        }
        let spec: GameSpec = self.game.parse().context("--game")?;
        let arch = Architecture::new_for(&spec, self.blocks, self.channels, self.policy_head)?;
        Ok((spec, Model::new(arch, device)))
    }
}
