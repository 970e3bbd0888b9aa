//! `dojo`: the one command users run. Each subcommand lives in its own module and only
//! parses arguments, wires the library crates together and prints.

mod analyse_cmd;
mod bench_cmd;
mod common;
mod config_cmd;
mod duration;
mod export_cmd;
mod flags;
mod gate_cmd;
mod health_cmd;
mod init_cmd;
mod learn_cmd;
mod learner_cmd;
mod match_cmd;
mod ntuple_cmd;
mod pbrain_cmd;
mod play_cmd;
mod plot_cmd;
mod saiblo_cmd;
mod selfplay_cmd;
mod settings;
mod solve_cmd;
mod tournament_cmd;
mod train_cmd;
mod worker_cmd;

use clap::{Parser, Subcommand};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Parser)]
#[command(name = "dojo", version, about = "AlphaZero-style self-play training for board games")]
struct Cli {
    /// Log lines on stderr as text (no colours unless stderr is a terminal) or as one JSON
    /// object a line, for log collectors.
    #[arg(long, value_enum, default_value = "text", global = true)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Train on this machine: a learner plus local self-play workers (the main job).
    Train(train_cmd::TrainArgs),
    /// Run the learner of a cluster run (workers connect to it over gRPC).
    Learner(learner_cmd::LearnerArgs),
    /// Run a self-play worker for a learner.
    Worker(worker_cmd::WorkerArgs),
    /// Print a run configuration with every key and its default (TOML).
    Config(config_cmd::ConfigArgs),
    /// Measure this machine: `dojo bench net`, `selfplay`, `search` or `ingest`.
    Bench(bench_cmd::BenchArgs),
    /// Gate a run's newest version against its best one (once, or --watch as it trains).
    Gate(gate_cmd::GateArgs),
    /// Play two players against each other and report wins, draws and losses (2048 and
    /// 2584: one player's scores and reach rates).
    Match(match_cmd::MatchArgs),
    /// N-tuple network agents for 2048 and 2584: `dojo ntuple train` and `dojo ntuple play`.
    Ntuple(ntuple_cmd::NtupleArgs),
    /// Rate a run's checkpoints and reference players in a round-robin or gauntlet
    /// tournament (resumable; ratings.json and a plot in RUN/tournaments/NAME/).
    Tournament(tournament_cmd::TournamentArgs),
    /// Print the exact score of every move for Connect Four positions read from stdin.
    Solve(solve_cmd::SolveArgs),
    /// Write a randomly initialised network checkpoint for a game.
    Init(init_cmd::InitArgs),
    /// Play self-play games with a checkpoint and write their records.
    Selfplay(selfplay_cmd::SelfPlayArgs),
    /// Train a checkpoint on self-play records.
    Learn(learn_cmd::LearnArgs),
    /// Print the network's move for each position read from stdin.
    Bestmove(analyse_cmd::BestMoveArgs),
    /// Measure how often the network's moves are not game-theoretically optimal (Connect Four).
    Eval(analyse_cmd::EvalArgs),
    /// Print random-play positions (move strings) for `dojo eval`.
    Positions(analyse_cmd::PositionsArgs),
    /// Draw a run's curves (losses, throughput, games, gating, Elo) as PNG files.
    Plot(plot_cmd::PlotArgs),
    /// Play a game against a network in the terminal (its move, value and candidates shown).
    Play(play_cmd::PlayCmdArgs),
    /// Ask a learner or worker whether it is serving (gRPC health; exit 0 when it is).
    Health(health_cmd::HealthArgs),
    /// Play a Gomoku network as a Gomocup (Piskvork) brain on stdin/stdout (under an INFO
    /// time limit it searches by the clock, otherwise --playouts a move).
    Pbrain(pbrain_cmd::PbrainArgs),
    /// Write a network in another program's form: `dojo export saiblo` (a saiblo.net
    /// Connect Four strategy in C++).
    Export(export_cmd::ExportArgs),
    /// Host a saiblo strategy (a shared object) for one game, on a line protocol: what dojo
    /// starts for each game of a saiblo: player.
    #[command(hide = true)]
    SaibloHost(saiblo_cmd::SaibloHostArgs),
}

fn main() {
    // Parsed with the old spellings of renamed flags, each warned about (flags.rs).
    let cli = flags::parse();
    let logs = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        // A log file (a worker's under dojo train) gets no colour codes.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    match cli.log_format {
        LogFormat::Text => logs.init(),
        LogFormat::Json => logs.json().init(),
    }
    // Ctrl-C and SIGTERM ask long-running commands to stop cleanly; a second Ctrl-C kills.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
    let result = match cli.command {
        Command::Train(args) => train_cmd::run(args, stop),
        Command::Learner(args) => learner_cmd::run(args, stop),
        Command::Worker(args) => worker_cmd::run(args, stop),
        Command::Config(args) => config_cmd::run(args),
        Command::Bench(args) => bench_cmd::run(args),
        Command::Gate(args) => gate_cmd::run(args, stop),
        Command::Match(args) => match_cmd::run(args),
        Command::Ntuple(args) => ntuple_cmd::run(args, stop),
        Command::Tournament(args) => tournament_cmd::run(args, stop),
        Command::Solve(args) => solve_cmd::run(args),
        Command::Init(args) => init_cmd::run(args),
        Command::Selfplay(args) => selfplay_cmd::run(args),
        Command::Learn(args) => learn_cmd::run(args),
        Command::Bestmove(args) => analyse_cmd::run_bestmove(args),
        Command::Eval(args) => analyse_cmd::run_eval(args),
        Command::Positions(args) => analyse_cmd::run_positions(args),
        Command::Pbrain(args) => pbrain_cmd::run(args),
        Command::Play(args) => play_cmd::run(args),
        Command::Plot(args) => plot_cmd::run(args),
        Command::Health(args) => health_cmd::run(args),
        Command::Export(args) => export_cmd::run(args),
        Command::SaibloHost(args) => saiblo_cmd::run_host(args),
    };
    if let Err(e) = result {
        eprintln!("dojo: error: {e:#}");
        std::process::exit(1);
    }
}
