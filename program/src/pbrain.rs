//! A Gomoku network as a Gomocup (Piskvork) brain (`dojo pbrain`): the protocol is the
//! arbiter's `gomocup::Brain`; this gives it a network player and a stream to answer on.
//! The network plays whichever rule `INFO rule` sets (freestyle or standard, see
//! [`crate::brain`]): the search follows the position's rule, the network is the same.

use crate::brain::{Brain, MoveChooser, Reply};
use dojo_arbiter::players::{net_player, PlayerError, PlayerSpec};
use dojo_arch::architecture::Architecture;
use dojo_game::gomoku::Gomoku;
use dojo_game::spec::{GOMOKU_MAX, GOMOKU_MIN};
use dojo_game::{Action, GameSpec};
use dojo_net::agent::NetAgent;
use dojo_net::device::Device;
use dojo_search::config::MAX_TIMED_PLAYOUTS;
use dojo_search::player::Agent;
use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum PbrainError {
    #[error("{}: a network for {spec}; the Gomocup protocol plays Gomoku", .model.display())]
    NotGomoku { model: std::path::PathBuf, spec: GameSpec },
    #[error(transparent)]
    Player(#[from] PlayerError),
    #[error("talking to the manager")]
    Io(#[from] std::io::Error),
}

struct NetChooser {
    /// Searches a number of playouts: no time limit.
    by_playouts: NetAgent<Gomoku>,
    /// Searches by the clock, under the manager's time limit.
    timed: NetAgent<Gomoku>,
    /// The most playouts of a timed search.
    max_timed: u32,
}

impl MoveChooser for NetChooser {
    fn choose(&mut self, game: &Gomoku, deadline: Option<Instant>) -> Action {
        match deadline {
            Some(deadline) => self.timed.select_move_until(game, deadline, self.max_timed),
            None => self.by_playouts.select_move(game),
        }
    }
}

/// The network players a brain plays as: `by_playouts` where the manager sets no time
/// limit, `timed` under one (two `net:` specs of one checkpoint, which may differ in
/// symmetry averaging: by the clock it costs playouts,
/// [`dojo_arbiter::players::net_averages_by_default`]).
pub struct BrainPlayers {
    pub by_playouts: PlayerSpec,
    pub timed: PlayerSpec,
}

/// Answers the manager's commands on `input` as `players` (`net:` specs of a network of
/// architecture `arch`) until `END` or the end of input: a Gomoku network plays its board,
/// an any-size one every board up to 20×20. A search under a time limit stops at
/// `max_sims` playouts even with time left (None: when the time is spent).
pub fn serve(
    arch: &Architecture,
    players: &BrainPlayers,
    max_sims: Option<u32>,
    device: Device,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<(), PbrainError> {
    let model = match &players.by_playouts {
        PlayerSpec::Net(net) => net.path.as_path(),
        _ => Path::new(""),
    };
    let sizes = match (&arch.game, arch.any_size) {
        (spec, true) if spec.family() == "gomoku" => GOMOKU_MIN as usize..=GOMOKU_MAX as usize,
        (GameSpec::Gomoku { size, .. }, false) => *size as usize..=*size as usize,
        (spec, _) => return Err(PbrainError::NotGomoku { model: model.to_path_buf(), spec: spec.clone() }),
    };
    // An any-size network frames each board itself ([`NetAgent::any_size`]); the board
    // checked here is its own frame's.
    let board = GameSpec::gomoku(arch.width as u8);
    let start = Gomoku::new(arch.width).map_err(PlayerError::from)?;
    let mut by_playouts = net_player(&players.by_playouts, 0, device, Some((&board, &start)))?;
    let mut timed = net_player(&players.timed, 0, device, Some((&board, &start)))?;
    by_playouts.new_game(0);
    timed.new_game(0);
    let about = format!(
        "name=\"dojo\", version=\"{}\", author=\"dojo developers\", country=\"-\", model=\"{}\"",
        env!("CARGO_PKG_VERSION"),
        model.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned())
    );
    let max_timed = max_sims.unwrap_or(MAX_TIMED_PLAYOUTS).max(1);
    let chooser = NetChooser { by_playouts, timed, max_timed };
    let mut brain = Brain::new(sizes, chooser, about);
    for line in input.lines() {
        match brain.handle(&line?) {
            Reply::Lines(lines) => {
                for l in lines {
                    writeln!(output, "{l}")?;
                }
                output.flush()?;
            }
            Reply::End => break,
        }
    }
    Ok(())
}
