//! The search's one entry point keeps every move and record the same: self-play (two-player
//! PUCT and Gumbel, one-player chance nodes) and the network player (`NetAgent`) play, from
//! a fixed seed, exactly the games they played before the entry point existed. The digests
//! below were computed on main before the change (commit 376a86e); a change to the search
//! that means to change play updates them, and says so.

use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_game::sliding::Twenty48;
use dojo_game::{draw_chance_event, Game, ToMove};
use dojo_net::agent::NetAgent;
use dojo_search::config::{SearchConfig, SearchMode, SelfPlayConfig};
use dojo_search::evaluator::Evaluator;
use dojo_search::player::Agent;
use dojo_search::selfplay::SelfPlayEngine;
use rand::SeedableRng;

/// FNV-1a, 64 bits: a digest that does not depend on the standard library's hasher.
fn fnv(bytes: &[u8], mut h: u64) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

/// A network stand-in whose policy and value depend on the position (every position a
/// different, repeatable opinion), so the searches' choices depend on what they explore.
struct Hashed;

impl Evaluator for Hashed {
    fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
        let per_position = planes.len() / batch;
        let actions = policy.len() / batch;
        for i in 0..batch {
            let bits: Vec<u8> =
                planes[i * per_position..(i + 1) * per_position].iter().flat_map(|p| p.to_le_bytes()).collect();
            let h = fnv(&bits, FNV_START);
            for a in 0..actions {
                let x = fnv(&(a as u64).to_le_bytes(), h);
                policy[i * actions + a] = (x % 1000) as f32 / 250.0 - 2.0;
            }
            value[i] = ((h >> 20) % 2001) as f32 / 1000.0 - 1.0;
        }
    }

    fn describe(&self) -> String {
        "hashed".into()
    }
}

/// The digest of self-play's records from `start` (their creation times left out).
fn self_play_digest<G: Game + Send + 'static>(start: G, search: SearchConfig, seed: u64, games: u64) -> u64 {
    let play = SelfPlayConfig { parallel_games: 3, fast_simulations: 8, ..SelfPlayConfig::default() };
    let mut engine = SelfPlayEngine::new(
        search,
        play,
        Box::new(move |_: &mut Rng| start.clone()),
        Rng::seed_from_u64(seed),
        Some(games),
    )
    .unwrap();
    let records = engine.play_games(&mut Hashed, |_| {});
    assert_eq!(records.len() as u64, games);
    records.into_iter().fold(FNV_START, |h, mut r| {
        r.created_unix_ms = 0;
        fnv(&r.encode(), h)
    })
}

fn config(mode: SearchMode, simulations: u32) -> SearchConfig {
    SearchConfig { mode, simulations, ..SearchConfig::default() }
}

#[test]
fn self_play_records_are_the_same_through_the_one_entry_point() {
    let connect4 = self_play_digest(Connect4::<u64>::standard(), config(SearchMode::Puct, 24), 11, 4);
    let gumbel = self_play_digest(Connect4::<u64>::standard(), config(SearchMode::Gumbel, 16), 12, 3);
    let twenty48 = self_play_digest(Twenty48::new(), config(SearchMode::Puct, 12), 13, 2);
    assert_eq!([connect4, gumbel, twenty48], [3345656685677127730, 1890659274258470916, 11597715359761867352]);
}

/// The digest of `moves` Connect Four moves a network player makes against itself, a new
/// game (and seed) every 12 moves.
fn net_agent_connect4_digest(search: SearchConfig, moves: usize) -> u64 {
    let mut agent: NetAgent<Connect4<u64>> = NetAgent::new(Hashed, search, "net".into(), Rng::seed_from_u64(5));
    let mut h = FNV_START;
    let mut game = Connect4::<u64>::standard();
    for i in 0..moves {
        if i % 12 == 0 {
            agent.new_game(i as u64);
            game = Connect4::<u64>::standard();
        }
        let action = agent.select_move(&game);
        h = fnv(&action.to_le_bytes(), h);
        game.play(action).unwrap();
        if game.outcome().is_some() {
            game = Connect4::<u64>::standard();
        }
    }
    h
}

/// The same for 2048: moves of the chance-node search, spawns drawn from a fixed seed.
fn net_agent_twenty48_digest(search: SearchConfig, moves: usize) -> u64 {
    let mut agent: NetAgent<Twenty48> = NetAgent::new(Hashed, search, "net".into(), Rng::seed_from_u64(6));
    agent.new_game(3);
    let (mut rng, mut scratch) = (Rng::seed_from_u64(7), Vec::new());
    let mut game = Twenty48::new();
    let mut h = FNV_START;
    for _ in 0..moves {
        while game.outcome().is_none() && game.to_move() == ToMove::Chance {
            draw_chance_event(&mut game, &mut rng, &mut scratch);
        }
        if game.outcome().is_some() {
            break;
        }
        let action = agent.select_move(&game);
        h = fnv(&action.to_le_bytes(), h);
        game.play(action).unwrap();
    }
    h
}

#[test]
fn network_players_move_the_same_through_the_one_entry_point() {
    let puct = net_agent_connect4_digest(SearchConfig::for_play(40), 30);
    let gumbel = net_agent_connect4_digest(SearchConfig { mode: SearchMode::Gumbel, ..SearchConfig::for_play(16) }, 30);
    let twenty48 = net_agent_twenty48_digest(SearchConfig::for_play(24), 40);
    // Under a clock that never runs out: `max_playouts` playouts, as `dojo pbrain` plays.
    let mut agent: NetAgent<Connect4<u64>> =
        NetAgent::new(Hashed, SearchConfig::for_play(500), "net".into(), Rng::seed_from_u64(8));
    let (mut game, mut timed) = (Connect4::<u64>::standard(), FNV_START);
    let far = std::time::Instant::now() + std::time::Duration::from_secs(3600);
    for _ in 0..8 {
        let action = agent.select_move_until(&game, far, 30);
        timed = fnv(&action.to_le_bytes(), timed);
        game.play(action).unwrap();
    }
    assert_eq!(
        [puct, gumbel, twenty48, timed],
        [15812360207346840188, 9687815152341170117, 3766309668006826901, 6141915407758812561]
    );
}
