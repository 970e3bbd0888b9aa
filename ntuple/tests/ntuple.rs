//! N-tuple agents: expectimax against hand analysis and against an independent search
//! through the game API, and the weight file (round trip, and every way a file can be bad).

use dojo_base::rng::Rng;
use dojo_game::sliding::{Fib2584, Rules, Rules2048, Rules2584, Sliding, SpawnOdds, Twenty48, RIGHT, UP};
use dojo_game::Chance;
use dojo_game::{Game, ToMove};
use dojo_ntuple::search::{after_value, best_move, greedy};
use dojo_ntuple::weight_file::{load, read_header, save};
use dojo_ntuple::{Layout, Method, Network, NtupleAgent, Trainer, TupleRules};
use dojo_search::player::Agent;
use rand::{RngExt, SeedableRng};
use std::path::Path;
use std::sync::Arc;

/// A small layout (two short tuples), so tests train and save in milliseconds.
fn small() -> Layout {
    Layout::new(vec![vec![0, 1, 2], vec![4, 5, 9]]).unwrap()
}

/// A small network for `rules` after a few TD episodes (non-trivial weights).
fn trained<R: TupleRules>(rules: R, episodes: usize, seed: u64) -> Network<R> {
    let mut net = Network::new(rules, small()).unwrap();
    // A small layout shares weights between many boards: at seed 002's rate 0.1 TD
    // diverges on it (the weights run off to infinity); 0.01 learns.
    let mut t = Trainer::new(Method::Td, 0.01, Rng::seed_from_u64(seed));
    for _ in 0..episodes {
        t.episode(&mut net);
    }
    assert_eq!(net.non_finite_weight(), None);
    net
}

#[test]
fn expectimax_sees_the_move_that_fills_the_board_dead() {
    //  4  2  4  .      Only up and right move anything, and neither merges.
    // 16  4  8  2      Up fills column 3 to [2, 16, 8, _]: whatever spawns in the corner,
    //  2 16  2 16      no two neighbours are equal and the game is over (worth 0).
    //  4  2 16  8      Right leaves the 4s of column 1 touching: a merge worth 8 is there
    //                  whatever spawns in the top-left corner.
    let g = Twenty48::from_tiles([[4, 2, 4, 0], [16, 4, 8, 2], [2, 16, 2, 16], [4, 2, 16, 8]]).unwrap();
    let net = Network::new(Rules2048, small()).unwrap();
    let spawn = Rules2048.spawn();
    let (up, _) = g.after(UP).unwrap();
    let (right, _) = g.after(RIGHT).unwrap();
    assert_eq!(after_value(&net, up, spawn, 1), 0.0);
    assert_eq!(after_value(&net, right, spawn, 1), 8.0);
    // Greedy with an untrained network sees two moves worth 0 and takes the first, up.
    assert_eq!(best_move(&net, g.board(), spawn, 1), Some(UP));
    assert_eq!(best_move(&net, g.board(), spawn, 2), Some(RIGHT));
    // The agent plays the same through the Agent interface.
    let mut agent = NtupleAgent::new(Arc::new(net), 2, "ntuple:test:depth=2");
    assert_eq!(agent.select_move(&g), RIGHT);
    assert_eq!(agent.name(), "ntuple:test:depth=2");
}

#[test]
fn greedy_takes_reward_plus_after_state_value() {
    // Right and left merge the two 2s (reward 4), down does not. A network of one 1-cell
    // tuple reads the four corners, each twice (8 isomorphisms): V = 2 × (w[corner 0] +
    // w[corner 3] + w[corner 12] + w[corner 15]), w indexed by the corner's tile index.
    let g = Twenty48::from_tiles([[2, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]).unwrap();
    let mut net = Network::new(Rules2048, Layout::new(vec![vec![12]]).unwrap()).unwrap();
    // Untrained: the two merges tie and the first (right, before left) wins.
    assert_eq!(greedy(&net, g.board()).map(|c| (c.dir, c.reward)), Some((RIGHT, 4)));
    // Down puts a 2 (index 1) in corner 12 and leaves three corners empty. An update by 20
    // spread over 8 features: the 2 features reading corner 12 add 2.5 each to w[1], the 6
    // reading empty corners 2.5 each to w[0]: w[1] = 5, w[0] = 15. V(down) = 2×5 + 6×15 =
    // 100; right's after-state has a 4 (index 2) in corner 3: V = 2×w[2] + 6×w[0] = 90,
    // plus its reward 4 is 94 < 100.
    let (down, _) = g.after(2).unwrap();
    assert!((net.update_td(down, 20.0) - 100.0).abs() < 1e-4);
    let (right, _) = g.after(RIGHT).unwrap();
    assert!((net.value(right) - 90.0).abs() < 1e-4);
    let c = greedy(&net, g.board()).unwrap();
    assert_eq!((c.dir, c.reward, c.after), (2, 0, down));
    assert!((c.value - 100.0).abs() < 1e-4, "{c:?}");
    // No move changes the board: no choice.
    let full = Twenty48::from_tiles([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]).unwrap();
    assert_eq!(greedy(&net, full.board()), None);
    assert_eq!(best_move(&net, full.board(), Rules2048.spawn(), 3), None);
}

/// Expectimax written plainly over the game API (play, chance_outcomes, apply_chance): the
/// best `reward + value` of a position with `moves` player moves to search.
fn naive_before<R: TupleRules>(net: &Network<R>, g: &Sliding<R>, moves: u32) -> f64 {
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    legal
        .iter()
        .map(|&a| {
            let mut h = *g;
            let reward = h.play(a).unwrap() as f64;
            reward + naive_after(net, &h, moves - 1)
        })
        .fold(0.0f64, |best, v| if best == 0.0 { v } else { best.max(v) })
}

fn naive_after<R: TupleRules>(net: &Network<R>, g: &Sliding<R>, moves: u32) -> f64 {
    if moves == 0 {
        return net.value(g.board()) as f64;
    }
    assert_eq!(g.to_move(), ToMove::Chance);
    let mut events = Vec::new();
    g.chance_outcomes(&mut events);
    events
        .iter()
        .map(|&(e, p)| {
            let mut h = *g;
            h.apply_chance(e).unwrap();
            p as f64 * naive_before(net, &h, moves)
        })
        .sum()
}

/// Positions from a game played by `net`, every few moves, with their value searched
/// `moves` deep both ways.
fn compare_with_naive<R: TupleRules>(net: &Network<R>, start: Sliding<R>, moves: u32, seed: u64) {
    let mut rng = Rng::seed_from_u64(seed);
    let mut g = start;
    let mut checked = 0;
    while g.outcome().is_none() && checked < 12 {
        if g.to_move() == ToMove::Chance {
            g.sample_chance(&mut rng);
            continue;
        }
        if rng.random_range(0..4) == 0 {
            for d in 0..4 {
                if let Some((after, reward)) = g.after(d) {
                    let mut h = g;
                    h.play(d).unwrap();
                    assert_eq!(h.board(), after);
                    let fast = reward as f64 + after_value(net, after, g.rules().spawn(), moves) as f64;
                    let slow = reward as f64 + naive_after(net, &h, moves);
                    assert!((fast - slow).abs() <= 1e-3 * slow.abs().max(1.0), "{fast} vs {slow}\n{}", g.render());
                }
            }
            checked += 1;
        }
        let d = best_move(net, g.board(), g.rules().spawn(), 1).unwrap();
        g.play(d).unwrap();
    }
    assert!(checked >= 6, "only {checked} positions checked");
}

#[test]
fn expectimax_matches_a_plain_search_through_the_game_api() {
    let net = trained(Rules2048, 20, 1);
    compare_with_naive(&net, Twenty48::new_game(Rules2048, &mut Rng::seed_from_u64(2)), 1, 3);
    compare_with_naive(&net, Twenty48::new_game(Rules2048, &mut Rng::seed_from_u64(4)), 2, 5);
    // 2584 under both spawn rules and a named one: the search weighs the rule's own tiles.
    for (i, odds) in [SpawnOdds::OneTwo, SpawnOdds::OneThree, SpawnOdds::new(2, 90).unwrap()].into_iter().enumerate() {
        let rules = Rules2584 { odds };
        let net = trained(rules, 20, 6 + i as u64);
        compare_with_naive(&net, Fib2584::new_game(rules, &mut Rng::seed_from_u64(7)), 1, 8 + i as u64);
    }
}

#[test]
fn expectimax_weighs_the_spawn_odds() {
    // 2584 with one empty cell (top left) and an untrained network, so a position is worth
    // what its best next move earns. No two tiles on the board merge (tile indices of
    // neighbours differ by 2 or more), so the spawn decides: a 1 merges with the 1 beside
    // it (1 + 1 = 2), a 2 merges with it too (1 + 2 = 3), a 3 merges with nothing and the
    // full board is dead (worth 0).
    //   .    1    8   55
    //   8   55  377 2584
    //  55  377 2584    8
    // 377 2584    8   55
    let tiles = [[0, 1, 8, 55], [8, 55, 377, 2584], [55, 377, 2584, 8], [377, 2584, 8, 55]];
    for (odds, want) in [
        (SpawnOdds::OneTwo, 0.8 * 2.0 + 0.2 * 3.0),
        (SpawnOdds::OneThree, 0.75 * 2.0 + 0.25 * 0.0),
        (SpawnOdds::new(2, 90).unwrap(), 0.9 * 2.0 + 0.1 * 3.0),
    ] {
        let g = Fib2584::from_tiles_with_odds(odds, tiles).unwrap();
        let net = Network::new(Rules2584 { odds }, small()).unwrap();
        let v = after_value(&net, g.board(), g.rules().spawn(), 1);
        assert!((v - want).abs() < 1e-5, "{odds:?}: {v}, want {want}");
    }
}

fn temp(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    (dir, p)
}

fn same_weights<R: TupleRules>(a: &Network<R>, b: &Network<R>) {
    assert_eq!(a.len(), b.len());
    assert!((0..a.len()).all(|i| a.weight(i).to_bits() == b.weight(i).to_bits()));
    assert_eq!(a.episodes(), b.episodes());
    assert_eq!(a.layout(), b.layout());
}

#[test]
fn weights_survive_a_save_and_load() {
    let (_dir, p) = temp("w.bin");
    let mut net = trained(Rules2048, 30, 11);
    // TCL on top, so the accumulators are stored too.
    let mut t = Trainer::new(Method::Tcl, 0.1, Rng::seed_from_u64(12));
    t.episode(&mut net);
    assert!(net.has_coherence());
    save(&net, &p).unwrap();
    let header = read_header(&p).unwrap();
    assert_eq!(header.spec.to_string(), "2048");
    assert_eq!((header.radix, header.coherence, header.episodes), (16, true, 31));
    assert_eq!(header.layout, small());
    let back: Network<Rules2048> = load(&p, true).unwrap();
    same_weights(&net, &back);
    assert!(back.has_coherence());
    // Training the loaded copy goes on exactly as the original (accumulators included).
    let (mut a, mut b) = (net, back);
    let mut ta = Trainer::new(Method::Tcl, 0.1, Rng::seed_from_u64(13));
    let mut tb = Trainer::new(Method::Tcl, 0.1, Rng::seed_from_u64(13));
    assert_eq!(ta.episode(&mut a), tb.episode(&mut b));
    same_weights(&a, &b);
    // For play the accumulators are checked but dropped.
    let play: Network<Rules2048> = load(&p, false).unwrap();
    assert!(!play.has_coherence());

    // 2584 keeps its spawn odds in the header.
    let (_dir2, q) = temp("f.bin");
    let rules = Rules2584 { odds: SpawnOdds::new(3, 60).unwrap() };
    let net = trained(rules, 10, 14);
    save(&net, &q).unwrap();
    assert_eq!(read_header(&q).unwrap().spec.to_string(), "2584:1-3:60");
    let back: Network<Rules2584> = load(&q, true).unwrap();
    same_weights(&net, &back);
    assert_eq!(back.rules(), rules);
}

fn load_err<R: TupleRules>(p: &Path) -> String {
    match load::<R>(p, true) {
        Ok(_) => panic!("{} loaded", p.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_weight_files_are_clear_errors() {
    let (_dir, p) = temp("w.bin");
    let net = trained(Rules2048, 5, 21);
    save(&net, &p).unwrap();
    let good = std::fs::read(&p).unwrap();
    let write = |bytes: &[u8]| std::fs::write(&p, bytes).unwrap();
    let header_len = good.len() - 4 * net.len() - 4;

    // Another game's weights.
    let err = load_err::<Rules2584>(&p);
    assert!(err.contains("holds n-tuple weights for 2048, not 2584"), "{err}");
    assert!(err.contains("w.bin"), "the error names the file: {err}");

    let cases: Vec<(Vec<u8>, &str)> = vec![
        (Vec::new(), "too short to hold a header"),
        (b"PK\x03\x04 a zip file, not weights".to_vec(), "does not start with DJNTUPLE"),
        ([&good[..8], &9u32.to_le_bytes(), &good[12..]].concat(), "version 9; this dojo reads version 1"),
        (good[..header_len - 3].to_vec(), "ends inside the header"),
        (good[..good.len() - 100].to_vec(), "header describes"),
        ([&good[..], b"x"].concat(), "header describes"),
        (
            {
                let mut b = good.clone();
                b[header_len + 17] ^= 0x40;
                b
            },
            "checksum mismatch",
        ),
        (
            {
                let mut b = good.clone();
                b[good.len() - 1] ^= 1;
                b
            },
            "checksum mismatch",
        ),
        ([&good[..12], &1000u32.to_le_bytes(), &good[16..]].concat(), "1000 bytes long"),
        ([&good[..12], &4u32.to_le_bytes(), b"chess", &good[20..]].concat(), "bad game spec"),
    ];
    for (bytes, want) in &cases {
        write(bytes);
        let err = load_err::<Rules2048>(&p);
        assert!(err.contains(want), "want {want:?}: {err}");
    }
    // A non-finite weight under a valid checksum is refused too.
    let mut b = good.clone();
    b[header_len..header_len + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let n = b.len() - 4;
    let crc = crc32fast::hash(&b[..n]);
    b[n..].copy_from_slice(&crc.to_le_bytes());
    write(&b);
    assert!(load_err::<Rules2048>(&p).contains("weight 0 is not a finite number"));

    // Whatever byte of the header is damaged, loading fails with an error, never a panic
    // or a huge allocation; so does every truncation.
    for i in 0..header_len {
        for x in [0x01, 0x80, 0xff] {
            let mut b = good.clone();
            b[i] ^= x;
            write(&b);
            assert!(load::<Rules2048>(&p, true).is_err(), "byte {i} ^ {x:#x} loaded");
        }
    }
    for len in (0..good.len()).step_by(97) {
        write(&good[..len]);
        assert!(load::<Rules2048>(&p, true).is_err(), "{len} bytes loaded");
    }
    // A missing file names itself.
    let err = load_err::<Rules2048>(&p.with_file_name("missing.bin"));
    assert!(err.contains("missing.bin") && err.contains("No such file"), "{err}");
}
