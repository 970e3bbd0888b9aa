//! Text a user or a peer types: game specs (`GameSpec::from_str`, which a record's spec
//! field and a HelloReply also go through), move lists and single moves for every game
//! (`Game::moves_from_text`, `action_from_text`: Connect Four columns, Gomoku `x,y`, 2048
//! directions), and player specs (`arbiter/src/players.rs`). The first line is the spec;
//! the rest are moves, and every line is also tried as a player spec.
#![no_main]

use dojo_arbiter::players::PlayerSpec;
use dojo_game::{Game, GameSpec, ToMove};
use dojo_base::rng::Rng;
use dojo_game::with_game;
use libfuzzer_sys::fuzz_target;
use rand::SeedableRng;

fn moves<G: Game>(mut g: G, text: &str) {
    let _ = g.render();
    for line in text.lines().take(64) {
        let _ = g.action_from_text(line);
    }
    let Ok(list) = g.moves_from_text(text) else { return };
    let mut played = Vec::new();
    for &a in list.iter().take(512) {
        let _ = g.action_to_text(a);
        if g.to_move() == ToMove::Chance {
            let mut rng = Rng::seed_from_u64(a.into());
            g.sample_chance(&mut rng);
        }
        if g.play(a).is_ok() {
            played.push(a);
        }
    }
    let _ = g.render();
    // A played move list prints as text that reads back as the same moves.
    let printed = g.moves_to_text(&played);
    assert_eq!(g.moves_from_text(&printed).as_ref(), Ok(&played), "moves {printed:?}");
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for line in text.lines().take(16) {
        if let Ok(p) = line.parse::<PlayerSpec>() {
            let _ = p.to_string();
        }
    }
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let Ok(spec) = first.parse::<GameSpec>() else { return };
    // A spec prints as text that parses back to it (records and configs store the text).
    let printed = spec.to_string();
    assert_eq!(printed.parse::<GameSpec>().as_ref(), Ok(&spec), "spec {printed:?}");
    let _ = spec.family();
    let Ok(start) = spec.new_game(&mut Rng::seed_from_u64(data.len() as u64)) else { return };
    with_game!(start, g => moves(g, rest));
});
