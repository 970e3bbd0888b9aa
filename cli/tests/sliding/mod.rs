//! One-player (2048) runs for the learner's tests, without self-play: records of games that
//! reach a chosen tile, a `dojo learner` for 2048, and the gRPC upload that feeds it.
//! Declared by `runs/main.rs` beside `common`; its test files `use crate::sliding`.

// Each test file uses only some of these.
#![allow(dead_code)]

use crate::common::{path, tiny_config, Proc};
use dojo_game::sliding::Twenty48;
use dojo_game::Chance;
use dojo_game::GameScore;
use dojo_game::{Action, Game, GameSpec};
use dojo_record::{GameRecord, MoveRecord};
use dojo_worker::client::{self, Delivery};
use std::path::Path;

/// The cells of a corner snake, most valuable first: row 0 left to right, row 1 right to
/// left, and so on.
const SNAKE: [usize; 16] = [0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12];

/// How well the tiles lie along [`SNAKE`]: each cell weighs four times the next.
fn snake_value(game: &Twenty48) -> f64 {
    let tiles: Vec<u32> = game.tile_values().into_iter().flatten().collect();
    SNAKE.iter().enumerate().map(|(rank, &cell)| f64::from(tiles[cell]) * 4f64.powi(15 - rank as i32)).sum()
}

/// A finished 2048 game whose largest tile is at least `target`, and how it ended (read off
/// its last position, not from the record). A record's spawns may be any legal spawn, so
/// this one chooses them: the turns that grow a corner snake best (looking one move
/// further) until the target is there, then the ones that leave the fewest moves, so the
/// board locks within a few moves. Deterministic; `id` names the game.
pub fn game_reaching(target: u32, id: u8) -> (GameRecord, GameScore) {
    let mut game = Twenty48::new();
    let mut record = GameRecord::new([id; 16], GameSpec::Twenty48, 1);
    // The opening: a 4 in each of the first two cells (a spawn event is cell × 2, plus 1
    // for the big tile).
    for event in [1, 3] {
        game.apply_chance(event).unwrap();
        record.moves.push(MoveRecord::chance(event));
    }
    while game.outcome().is_none() {
        let (action, event) = best_turn(&game, game.max_tile() < target);
        game.play(action).unwrap();
        record.moves.push(MoveRecord::player(action, vec![(action, 1.0)], 0.0));
        game.apply_chance(event).unwrap();
        record.moves.push(MoveRecord::chance(event));
    }
    record.outcome = game.outcome().unwrap().into();
    (record, GameScore { score: game.score(), max_tile: game.max_tile() })
}

/// The move, and the spawn after it, that grow the snake most or (once not `growing`)
/// leave the fewest legal moves and empty cells. Ties go to the first found, big spawns
/// before small ones.
fn best_turn(game: &Twenty48, growing: bool) -> (Action, Action) {
    let (mut legal, mut events, mut next) = (Vec::new(), Vec::new(), Vec::new());
    game.legal_actions(&mut legal);
    let mut best: Option<(f64, Action, Action)> = None;
    for &action in &legal {
        let mut moved = *game;
        moved.play(action).unwrap();
        moved.chance_outcomes(&mut events);
        // Events come as (cell × 2 small, cell × 2 + 1 big) pairs.
        for pair in events.chunks(2) {
            for &(event, _) in pair.iter().rev() {
                let mut spawned = moved;
                spawned.apply_chance(event).unwrap();
                spawned.legal_actions(&mut next);
                let value = if growing {
                    let after = |&a: &Action| {
                        let mut g = spawned;
                        g.play(a).unwrap();
                        snake_value(&g)
                    };
                    next.iter().map(after).fold(f64::NEG_INFINITY, f64::max)
                } else {
                    let empty = spawned.tile_values().into_iter().flatten().filter(|&v| v == 0).count();
                    -((next.len() * 16 + empty) as f64)
                };
                if best.is_none_or(|(b, _, _)| value > b) {
                    best = Some((value, action, event));
                }
            }
        }
    }
    let (_, action, event) = best.expect("a game that is not over has a move and a spawn after it");
    (action, event)
}

/// A `dojo learner` for 2048 with `tiny_config`'s network on loopback, serving HTTP, that
/// trains once it holds `min_positions` positions (so games sent together land in one
/// metrics window): the process, its gRPC and its HTTP address.
pub fn learner_2048(dir: &Path, min_positions: u64) -> (Proc, String, String) {
    let mut config = tiny_config();
    config.game = GameSpec::Twenty48;
    config.learner.min_positions = min_positions;
    let file = dir.join("2048.toml");
    std::fs::write(&file, config.to_toml()).unwrap();
    let run = dir.join("run");
    let mut learner = Proc::spawn(&[
        "learner",
        "--run-dir",
        path(&run),
        "--config",
        path(&file),
        "--listen",
        "127.0.0.1:0",
        "--http",
        "127.0.0.1:0",
    ]);
    let grpc = learner.learner_addr();
    let http = learner.after("metrics: http://").trim_end_matches("/metrics").to_string();
    (learner, grpc, http)
}

/// Uploads `records` to the learner at `addr` as a worker does; all must be stored.
pub fn submit(addr: &str, records: &[GameRecord]) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let acks = rt.block_on(async {
        let mut c = client::connect(&format!("http://{addr}"), None, "test-2048").await.unwrap();
        client::submit(&mut c, records).await.unwrap()
    });
    assert!(acks.iter().all(|(_, d)| *d == Delivery::Delivered), "{acks:?}");
}

/// Two games sent together, so one window holds both: one that reaches 2048 (but not
/// 4096) and one that stops short of it. The positions they hold, for `learner_2048`.
pub fn two_games() -> ([(GameRecord, GameScore); 2], u64) {
    let games = [game_reaching(2048, 1), game_reaching(512, 2)];
    assert!((2048..4096).contains(&games[0].1.max_tile), "{:?}", games[0].1);
    assert!(games[1].1.max_tile < 2048, "{:?}", games[1].1);
    let positions = games.iter().map(|(r, _)| r.training_moves() as u64).sum();
    (games, positions)
}
