//! `dojo play`: a game against a network in the terminal. The board is drawn after every
//! move; the model says its move, how it rates the position and which moves it weighed.

use crate::analyse_cmd::{net_agent, PlayArgs};
use crate::common::DeviceArgs;
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use dojo_core::game::{FromAnyGame, Game, Outcome, Player, ToMove};
use dojo_core::net::checkpoint::read_sidecar;
use dojo_core::rng::Rng;
use dojo_core::search::puct::Proven;
use dojo_core::with_game;
use rand::SeedableRng;
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum First {
    Human,
    Model,
}

#[derive(Args)]
pub struct PlayCmdArgs {
    /// The network to play against (its game is the game played).
    #[arg(long)]
    model: PathBuf,
    #[command(flatten)]
    search: PlayArgs,
    /// Who moves first.
    #[arg(long, value_enum, default_value = "human")]
    first: First,
    /// Evaluate the board as it stands instead of averaging over its symmetries.
    #[arg(long)]
    no_average: bool,
    /// Seed of a random board (connect4:saiblo) and of the model's tie-breaks.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    device: DeviceArgs,
}

/// Root moves shown with the model's reply (at most; those with half a percent of the
/// visits or more).
const CANDIDATES: usize = 5;

pub fn run(args: PlayCmdArgs) -> Result<()> {
    let device = args.device.init()?;
    let spec = read_sidecar(&args.model)?.architecture.game;
    let start = spec.new_game(&mut Rng::seed_from_u64(args.seed))?;
    with_game!(start, g => play(g, &spec, &args, device))
}

fn play<G: Game + FromAnyGame>(
    mut game: G,
    spec: &dojo_core::game::GameSpec,
    args: &PlayCmdArgs,
    device: tch::Device,
) -> Result<()> {
    if game.is_one_player() {
        bail!("{spec} is a one-player game: there is no side for you to play");
    }
    let mut model = net_agent(&args.model, spec, &game, &args.search, !args.no_average, device)?;
    dojo_core::search::player::Agent::new_game(&mut model, args.seed);
    let human = if args.first == First::Human { Player::First } else { Player::Second };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "dojo play: {spec}, you are {} ({}); the model searches {} playouts a move. Moves in the game's notation (e.g. {}); 'quit' ends.",
        side_name(human),
        if human == Player::First { "moving first" } else { "moving second" },
        args.search.config()?.simulations,
        example_move(&game),
    )?;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut redraw = true;
    loop {
        if std::mem::take(&mut redraw) {
            writeln!(out, "\n{}", game.render())?;
        }
        if let Some(outcome) = game.outcome() {
            let said = match outcome {
                Outcome::Win(p) if p == human => "you win".to_string(),
                Outcome::Win(_) => "the model wins".to_string(),
                Outcome::Draw => "a draw".to_string(),
                Outcome::Score(s) => format!("score {s}"),
            };
            writeln!(out, "game over: {said} after {} moves", game.ply())?;
            return Ok(());
        }
        let ToMove::Player(mover) = game.to_move() else { bail!("{spec} has chance events: not a board game to play") };
        if mover != human {
            let search = model.analyse(&game);
            let (value, proven) = (search.root_value(), search.proven());
            let mut children = search.root_children();
            children.sort_by_key(|c| std::cmp::Reverse(c.visits));
            let total: u32 = children.iter().map(|c| c.visits).sum::<u32>().max(1);
            let action = model.analysed_move();
            let top: Vec<String> = children
                .iter()
                .filter(|c| c.visits * 200 >= total)
                .take(CANDIDATES)
                .map(|c| format!("{} {:.0}%", game.action_to_text(c.action), 100.0 * c.visits as f64 / total as f64))
                .collect();
            let proof = match proven {
                Proven::Win => " (a proven win)",
                Proven::Loss => " (a proven loss)",
                Proven::Draw => " (a proven draw)",
                Proven::Unknown => "",
            };
            writeln!(
                out,
                "model plays {}; it rates its position {:+.2}{proof} (-1 lost .. +1 won); it weighed {}",
                game.action_to_text(action),
                value,
                top.join(", ")
            )?;
            game.play(action).context("the model's move")?;
            redraw = true;
            continue;
        }
        write!(out, "your move: ")?;
        out.flush()?;
        let Some(line) = lines.next() else {
            writeln!(out, "\n(end of input: the game stops here)")?;
            return Ok(());
        };
        let line = line.context("reading your move")?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if text.eq_ignore_ascii_case("quit") || text.eq_ignore_ascii_case("q") {
            writeln!(out, "you left the game after {} moves", game.ply())?;
            return Ok(());
        }
        let played = game.action_from_text(text).map_err(|e| e.to_string()).and_then(|action| {
            let mut legal = Vec::new();
            game.legal_actions(&mut legal);
            if legal.contains(&action) {
                game.play(action).map_err(|e| e.to_string())
            } else {
                let moves: Vec<String> = legal.iter().map(|&a| game.action_to_text(a)).collect();
                Err(format!("{text} is not a legal move here; legal: {}", shorten(&moves)))
            }
        });
        match played {
            Ok(_) => redraw = true,
            Err(why) => writeln!(out, "cannot play {text:?}: {why}")?,
        }
    }
}

fn side_name(p: Player) -> &'static str {
    match p {
        Player::First => "X",
        Player::Second => "O",
    }
}

/// A legal move of the start, as the notation writes it, for the help line.
fn example_move<G: Game>(game: &G) -> String {
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    legal.get(legal.len() / 2).map_or_else(String::new, |&a| game.action_to_text(a))
}

/// A list of moves, cut after 20.
fn shorten(moves: &[String]) -> String {
    if moves.len() <= 20 {
        return moves.join(" ");
    }
    format!("{} ... ({} in all)", moves[..20].join(" "), moves.len())
}
