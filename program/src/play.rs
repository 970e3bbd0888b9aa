//! A game against a network in a terminal (`dojo play`): the board drawn after every move;
//! the network says its move, how it rates its position and which moves it weighed.

use dojo_arbiter::players::{net_player, PlayerError, PlayerSpec};
use dojo_base::rng::Rng;
use dojo_game::with_game;
use dojo_game::{FromAnyGame, Game, GameError, GameSpec, Outcome, Player, ToMove};
use dojo_net::device::Device;
use dojo_search::player::Agent;
use dojo_search::puct::Proven;
use rand::SeedableRng;
use std::io::{BufRead, Write};

#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Player(#[from] PlayerError),
    #[error("{spec} is a one-player game: there is no side for you to play")]
    OnePlayer { spec: GameSpec },
    #[error("{spec} has chance events: not a board game to play")]
    Chance { spec: GameSpec },
    #[error("the model's move: {0}")]
    ModelMove(GameError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Root moves shown with the model's reply (at most; those with half a percent of the
/// visits or more).
const CANDIDATES: usize = 5;

/// Plays one game of `spec` (a random spec's board drawn from `seed`) between a person,
/// who types moves on `input` and moves first where `human_first`, and `player` (a `net:`
/// spec), drawing it on `output`. Ends at the game's end, `quit`, or the end of input.
pub fn play(
    spec: &GameSpec,
    player: &PlayerSpec,
    human_first: bool,
    seed: u64,
    device: Device,
    input: impl BufRead,
    output: impl Write,
) -> Result<(), PlayError> {
    let start = spec.new_game(&mut Rng::seed_from_u64(seed))?;
    let human = if human_first { Player::First } else { Player::Second };
    with_game!(start, g => play_typed(g, spec, player, human, seed, device, input, output))
}

#[allow(clippy::too_many_arguments)]
fn play_typed<G: Game + FromAnyGame>(
    mut game: G,
    spec: &GameSpec,
    player: &PlayerSpec,
    human: Player,
    seed: u64,
    device: Device,
    input: impl BufRead,
    mut out: impl Write,
) -> Result<(), PlayError> {
    if game.is_one_player() {
        return Err(PlayError::OnePlayer { spec: spec.clone() });
    }
    let mut model = net_player(player, seed, device, Some((spec, &game)))?;
    model.new_game(seed);
    greet(&mut out, &game, player, human)?;
    let mut lines = input.lines();
    let mut redraw = true;
    loop {
        if std::mem::take(&mut redraw) {
            writeln!(out, "\n{}", game.render())?;
        }
        if let Some(outcome) = game.outcome() {
            writeln!(out, "game over: {} after {} moves", outcome_said(outcome, human), game.ply())?;
            return Ok(());
        }
        let ToMove::Player(mover) = game.to_move() else { return Err(PlayError::Chance { spec: spec.clone() }) };
        if mover != human {
            let action = model_move(&mut model, &game, &mut out)?;
            game.play(action).map_err(PlayError::ModelMove)?;
            redraw = true;
            continue;
        }
        write!(out, "your move: ")?;
        out.flush()?;
        let Some(line) = lines.next() else {
            writeln!(out, "\n(end of input: the game stops here)")?;
            return Ok(());
        };
        let line = line?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if text.eq_ignore_ascii_case("quit") || text.eq_ignore_ascii_case("q") {
            writeln!(out, "you left the game after {} moves", game.ply())?;
            return Ok(());
        }
        match human_move(&mut game, text) {
            Ok(()) => redraw = true,
            Err(why) => writeln!(out, "cannot play {text:?}: {why}")?,
        }
    }
}

/// The first lines: the game, the human's side, the model's playouts, how to move.
fn greet<G: Game>(out: &mut impl Write, game: &G, player: &PlayerSpec, human: Player) -> std::io::Result<()> {
    let sims = match player {
        PlayerSpec::Net(net) => net.search.simulations,
        _ => 0,
    };
    writeln!(
        out,
        "dojo play: {}, you are {} ({}); the model searches {sims} playouts a move. Moves in the game's notation (e.g. {}); 'quit' ends.",
        game.spec(), // the board drawn, for a spec of several
        side_name(human),
        if human == Player::First { "moving first" } else { "moving second" },
        example_move(game),
    )
}

/// How a finished game ended, said to the `human`.
fn outcome_said(outcome: Outcome, human: Player) -> String {
    match outcome {
        Outcome::Win(p) if p == human => "you win".to_string(),
        Outcome::Win(_) => "the model wins".to_string(),
        Outcome::Draw => "a draw".to_string(),
        Outcome::Score(s) => format!("score {s}"),
    }
}

/// The model's move in `game`, said with its rating and the moves it weighed.
fn model_move<G: Game>(
    model: &mut dojo_net::agent::NetAgent<G>,
    game: &G,
    out: &mut impl Write,
) -> std::io::Result<dojo_game::Action> {
    let search = model.analyse(game);
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
    Ok(action)
}

/// Why the person's move cannot be played.
#[derive(Debug, thiserror::Error)]
enum HumanMoveError {
    #[error(transparent)]
    Game(#[from] GameError),
    /// `legal`: the legal moves as [`shorten`] lists them.
    #[error("{text} is not a legal move here; legal: {legal}")]
    NotLegal { text: String, legal: String },
}

/// Plays the person's move `text`, or says why it cannot be played.
fn human_move<G: Game>(game: &mut G, text: &str) -> Result<(), HumanMoveError> {
    let action = game.action_from_text(text)?;
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    if !legal.contains(&action) {
        let moves: Vec<String> = legal.iter().map(|&a| game.action_to_text(a)).collect();
        return Err(HumanMoveError::NotLegal { text: text.to_string(), legal: shorten(&moves) });
    }
    game.play(action)?;
    Ok(())
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
