//! The Gomocup protocol (`external/src/gomocup/`). Brain side: the input's lines are fed to a
//! `Brain` (the state machine `dojo pbrain` drives with the manager's stdin), with a move
//! chooser that plays the first empty point, until `END`. Manager side: every line is also
//! read as a brain's answer to a move request (`parse_move`) in the brain's position.
#![no_main]

use dojo_external::gomocup::manager::parse_move;
use dojo_program::brain::{Brain, MoveChooser, Reply};
use dojo_game::gomoku::Gomoku;
use dojo_game::{Action, Game};
use libfuzzer_sys::fuzz_target;
use std::time::Instant;

struct FirstEmpty;

impl MoveChooser for FirstEmpty {
    fn choose(&mut self, game: &Gomoku, _deadline: Option<Instant>) -> Action {
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        // An over game is never passed; answering 0 anyway lets the brain say so.
        legal.first().copied().unwrap_or(0)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&size, rest)) = data.split_first() else { return };
    let size = if size & 1 == 0 { 15 } else { 9 };
    let text = String::from_utf8_lossy(rest);
    let mut brain = Brain::new(size..=size, FirstEmpty, "name=\"fuzz\"");
    let empty = Gomoku::new(size).expect("a board size");
    for line in text.split(['\n', '\r']).take(512) {
        let position = brain.game().unwrap_or(&empty).clone();
        if let (Ok(action), None) = (parse_move(&position, line), position.outcome()) {
            let mut after = position.clone();
            after.play(action).expect("parse_move returns an empty point");
        }
        if brain.handle(line) == Reply::End {
            break;
        }
    }
});
