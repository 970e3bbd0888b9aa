//! 2048 and 2584 against a naive array implementation written from the rules, plus known
//! rows, spawn statistics, symmetries, notation and errors.

use dojo_base::rng::Rng;
use dojo_game::sliding::{Fib2584, Rules, Sliding, SpawnOdds, Twenty48, DOWN, LEFT, RIGHT, UP};
use dojo_game::Chance;
use dojo_game::Symmetries;
use dojo_game::{Action, Game, GameError, GameSpec, Outcome, Player, ToMove};
use rand::{seq::IndexedRandom, RngExt, SeedableRng};
use std::collections::HashMap;

// ---------------------------------------------------------------------------------------
// The naive reference: face values in a 4×4 array, one line at a time.
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    T2048,
    F2584,
}

/// 1, 2, 3, 5, 8, ... (the 2584 tiles) up to the largest a 5-bit cell holds.
fn fibs() -> &'static [u32] {
    static FIBS: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    FIBS.get_or_init(|| {
        let mut f = vec![1u32, 2];
        while f.len() < 31 {
            let n = f[f.len() - 1] + f[f.len() - 2];
            f.push(n);
        }
        f
    })
}

fn naive_merge(kind: Kind, a: u32, b: u32) -> Option<u32> {
    match kind {
        Kind::T2048 => (a == b && a < 32768).then_some(a + b),
        Kind::F2584 => {
            let f = fibs();
            let ia = f.iter().position(|&x| x == a)?;
            let ib = f.iter().position(|&x| x == b)?;
            let consecutive = (a == 1 && b == 1) || ia.abs_diff(ib) == 1;
            (consecutive && f.contains(&(a + b))).then_some(a + b)
        }
    }
}

/// Slides one line towards index 0.
fn naive_line(kind: Kind, line: [u32; 4]) -> ([u32; 4], u32) {
    let tiles: Vec<u32> = line.iter().copied().filter(|&v| v != 0).collect();
    let mut out = Vec::new();
    let mut reward = 0;
    let mut i = 0;
    while i < tiles.len() {
        if i + 1 < tiles.len() {
            if let Some(m) = naive_merge(kind, tiles[i], tiles[i + 1]) {
                out.push(m);
                reward += m;
                i += 2;
                continue;
            }
        }
        out.push(tiles[i]);
        i += 1;
    }
    out.resize(4, 0);
    ([out[0], out[1], out[2], out[3]], reward)
}

/// The cells of line `k` for a move in `dir`, starting at the wall the tiles slide to.
fn line_cells(dir: Action, k: usize) -> [(usize, usize); 4] {
    std::array::from_fn(|j| match dir {
        UP => (j, k),
        DOWN => (3 - j, k),
        LEFT => (k, j),
        RIGHT => (k, 3 - j),
        _ => unreachable!(),
    })
}

fn naive_move(kind: Kind, cells: [[u32; 4]; 4], dir: Action) -> ([[u32; 4]; 4], u32) {
    let mut out = [[0; 4]; 4];
    let mut reward = 0;
    for k in 0..4 {
        let pos = line_cells(dir, k);
        let (line, r) = naive_line(kind, pos.map(|(r, c)| cells[r][c]));
        reward += r;
        for (j, &(r, c)) in pos.iter().enumerate() {
            out[r][c] = line[j];
        }
    }
    (out, reward)
}

fn naive_legal(kind: Kind, cells: [[u32; 4]; 4]) -> Vec<Action> {
    (0..4).filter(|&d| naive_move(kind, cells, d).0 != cells).collect()
}

/// (small value, big value, P(big)).
fn naive_odds(spec: &GameSpec) -> (u32, u32, f64) {
    match spec {
        GameSpec::Twenty48 => (2, 4, 0.1),
        GameSpec::Fib2584 { odds: SpawnOdds::OneTwo } => (1, 2, 0.2),
        GameSpec::Fib2584 { odds: SpawnOdds::OneThree } => (1, 3, 0.25),
        other => panic!("not a sliding game: {other}"),
    }
}

fn naive_chances(spec: &GameSpec, cells: [[u32; 4]; 4]) -> Vec<(Action, f64)> {
    let (_, _, p_big) = naive_odds(spec);
    let empty: Vec<usize> = (0..16).filter(|&i| cells[i / 4][i % 4] == 0).collect();
    let n = empty.len() as f64;
    empty.iter().flat_map(|&i| [(i as Action * 2, (1.0 - p_big) / n), (i as Action * 2 + 1, p_big / n)]).collect()
}

// ---------------------------------------------------------------------------------------
// Differential test
// ---------------------------------------------------------------------------------------

fn kind_of(spec: &GameSpec) -> Kind {
    match spec {
        GameSpec::Twenty48 => Kind::T2048,
        _ => Kind::F2584,
    }
}

/// Plays `games` random games from `start`, checking every position against the naive rules.
/// Returns the number of player moves checked.
fn differential<R: Rules>(start: Sliding<R>, games: usize, seed: u64) -> usize {
    let spec = start.spec();
    let kind = kind_of(&spec);
    let (small, big, _) = naive_odds(&spec);
    let mut rng = Rng::seed_from_u64(seed);
    let mut legal = Vec::new();
    let mut chances = Vec::new();
    let mut moves = 0;
    for game in 0..games {
        let mut g = start;
        let mut cells = [[0u32; 4]; 4];
        let mut score = 0u64;
        let mut plies = 0;
        loop {
            assert_eq!(g.tile_values(), cells, "game {game}");
            assert_eq!(g.score(), score);
            assert_eq!(g.ply(), plies);
            if g.to_move() == ToMove::Chance {
                assert_eq!(g.outcome(), None);
                g.legal_actions(&mut legal);
                assert!(legal.is_empty());
                g.chance_outcomes(&mut chances);
                let want = naive_chances(&spec, cells);
                assert_eq!(chances.len(), want.len());
                for (&(e, p), &(we, wp)) in chances.iter().zip(&want) {
                    assert_eq!(e, we);
                    assert!((f64::from(p) - wp).abs() < 1e-6, "{p} vs {wp}");
                }
                if rng.random_bool(0.5) {
                    let before = cells;
                    g.sample_chance(&mut rng);
                    let after = g.tile_values();
                    let changed: Vec<usize> =
                        (0..16).filter(|&i| before[i / 4][i % 4] != after[i / 4][i % 4]).collect();
                    assert_eq!(changed.len(), 1, "one spawn");
                    let i = changed[0];
                    assert_eq!(before[i / 4][i % 4], 0, "spawned on an empty cell");
                    let v = after[i / 4][i % 4];
                    assert!(v == small || v == big, "spawned {v}");
                    cells[i / 4][i % 4] = v;
                } else {
                    let (e, _) = *want.choose(&mut rng).unwrap();
                    g.apply_chance(e).unwrap();
                    let i = e as usize / 2;
                    cells[i / 4][i % 4] = if e % 2 == 0 { small } else { big };
                }
                continue;
            }
            assert_eq!(g.to_move(), ToMove::Player(Player::First));
            g.legal_actions(&mut legal);
            let want = naive_legal(kind, cells);
            assert_eq!(legal, want, "legal moves of {cells:?}");
            for d in 0..4 {
                assert_eq!(g.is_legal(d), want.contains(&d));
                let (after, reward) = naive_move(kind, cells, d);
                let mut h = g;
                match h.play(d) {
                    Ok(r) => {
                        assert_eq!(r, reward, "reward of {d} on {cells:?}");
                        assert_eq!(h.tile_values(), after, "move {d} on {cells:?}");
                        assert_eq!(h.to_move(), ToMove::Chance);
                        assert_eq!(h.last_action(), Some(d));
                    }
                    Err(e) if want.is_empty() => assert_eq!(e, GameError::GameOver),
                    Err(e) => {
                        assert!(!want.contains(&d), "{e}");
                        assert!(matches!(e, GameError::IllegalMove { .. }), "{e}");
                    }
                }
            }
            if want.is_empty() {
                assert_eq!(g.outcome(), Some(Outcome::Score(score)));
                assert_eq!(g.play(UP), Err(GameError::GameOver));
                break;
            }
            assert_eq!(g.outcome(), None);
            let d = *want.choose(&mut rng).unwrap();
            let (after, reward) = naive_move(kind, cells, d);
            assert_eq!(g.play(d).unwrap(), reward);
            cells = after;
            score += u64::from(reward);
            plies += 1;
            moves += 1;
        }
    }
    moves
}

#[test]
fn twenty48_matches_naive_rules_over_random_games() {
    let moves = differential(Twenty48::new(), 1500, 1);
    assert!(moves > 100_000, "{moves}");
}

#[test]
fn fib2584_matches_naive_rules_over_random_games() {
    // 1/3 spawns do not merge with each other, so those games are short.
    let a = differential(Fib2584::new(SpawnOdds::OneTwo), 500, 2);
    let b = differential(Fib2584::new(SpawnOdds::OneThree), 1500, 3);
    assert!(a > 50_000 && b > 30_000, "{a}, {b}");
}

#[test]
fn differential_covers_big_tiles_from_random_positions() {
    // Random play rarely builds large tiles; seed dense boards of big tiles instead.
    let mut rng = Rng::seed_from_u64(9);
    let mut rng2 = Rng::seed_from_u64(10);
    let mut rng_below = |n: usize| rng2.random_range(..n);
    let f = fibs();
    let mut checked = 0;
    for _ in 0..3000 {
        // Three cells in four hold a tile.
        let mut cell = |value: u32| if rng.random_ratio(1, 4) { 0 } else { value };
        let v2048: [[u32; 4]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| cell(1 << (1 + rng_below(15)))));
        let v2584: [[u32; 4]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| cell(f[rng_below(31)])));
        let a = Twenty48::from_tiles(v2048).unwrap();
        let b = Fib2584::from_tiles(v2584).unwrap();
        for d in 0..4 {
            let (after, reward) = naive_move(Kind::T2048, v2048, d);
            let mut h = a;
            match h.play(d) {
                Ok(r) => {
                    assert_eq!((h.tile_values(), r), (after, reward), "{v2048:?} {d}");
                    checked += 1;
                }
                Err(_) => assert_eq!(after, v2048),
            }
            let (after, reward) = naive_move(Kind::F2584, v2584, d);
            let mut h = b;
            match h.play(d) {
                Ok(r) => {
                    assert_eq!((h.tile_values(), r), (after, reward), "{v2584:?} {d}");
                    checked += 1;
                }
                Err(_) => assert_eq!(after, v2584),
            }
        }
    }
    assert!(checked > 15_000, "{checked}");
}

// ---------------------------------------------------------------------------------------
// Known rows
// ---------------------------------------------------------------------------------------

type Line = [u32; 4];

/// Checks sliding `line` (index 0 at the wall) in all four directions, placed in row or
/// column 2 of an otherwise empty board: `want` is the slid line and reward, `None` when the
/// move must be illegal.
fn check_line<G: Game>(
    make: impl Fn([[u32; 4]; 4]) -> Result<G, GameError>,
    tiles: impl Fn(&G) -> [[u32; 4]; 4],
    line: [u32; 4],
    want: Option<([u32; 4], u32)>,
) {
    for dir in 0..4 {
        let pos = line_cells(dir, 2);
        let mut board = [[0; 4]; 4];
        for (j, &(r, c)) in pos.iter().enumerate() {
            board[r][c] = line[j];
        }
        let mut g = make(board).unwrap();
        match want {
            Some((slid, reward)) => {
                assert_eq!(g.play(dir), Ok(reward), "{line:?} dir {dir}");
                let mut expect = [[0; 4]; 4];
                for (j, &(r, c)) in pos.iter().enumerate() {
                    expect[r][c] = slid[j];
                }
                assert_eq!(tiles(&g), expect, "{line:?} dir {dir}");
            }
            None => {
                assert!(!g.is_legal(dir), "{line:?} dir {dir}");
                let err = g.play(dir).unwrap_err().to_string();
                assert!(err.contains("changes nothing"), "{err}");
            }
        }
    }
}

#[test]
fn twenty48_known_rows() {
    let cases: &[(Line, Option<(Line, u32)>)] = &[
        ([2, 2, 2, 2], Some(([4, 4, 0, 0], 8))),
        ([2, 2, 4, 0], Some(([4, 4, 0, 0], 4))),
        ([2, 2, 2, 0], Some(([4, 2, 0, 0], 4))),
        ([4, 0, 0, 4], Some(([8, 0, 0, 0], 8))),
        ([0, 0, 0, 2], Some(([2, 0, 0, 0], 0))),
        ([4, 4, 8, 8], Some(([8, 16, 0, 0], 24))),
        ([8, 8, 0, 8], Some(([16, 8, 0, 0], 16))),
        ([2, 4, 4, 2], Some(([2, 8, 2, 0], 8))),
        ([1024, 1024, 0, 0], Some(([2048, 0, 0, 0], 2048))),
        ([2, 4, 8, 16], None),
        ([2, 0, 0, 0], None),
        ([4, 2, 0, 0], None),
        // 4-bit cells cannot hold 65536.
        ([32768, 32768, 0, 0], None),
    ];
    for &(line, want) in cases {
        check_line(Twenty48::from_tiles, |g| g.tile_values(), line, want);
    }
    // Rightwards the rightmost pair merges first.
    let mut g = Twenty48::from_tiles([[2, 2, 2, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
    assert_eq!(g.play(RIGHT), Ok(4));
    assert_eq!(g.tile_values()[0], [0, 0, 2, 4]);
}

#[test]
fn fib2584_known_rows() {
    let cases: &[(Line, Option<(Line, u32)>)] = &[
        // 1+1 → 2, then 2+3 → 5.
        ([1, 1, 2, 3], Some(([2, 5, 0, 0], 7))),
        ([1, 2, 0, 0], Some(([3, 0, 0, 0], 3))),
        ([2, 1, 0, 0], Some(([3, 0, 0, 0], 3))),
        ([2, 3, 0, 0], Some(([5, 0, 0, 0], 5))),
        ([3, 5, 0, 0], Some(([8, 0, 0, 0], 8))),
        ([1, 0, 1, 0], Some(([2, 0, 0, 0], 2))),
        ([1, 1, 1, 0], Some(([2, 1, 0, 0], 2))),
        // The merged 2 does not merge again with the next 2 (and 2+2 never merges).
        ([1, 1, 2, 0], Some(([2, 2, 0, 0], 2))),
        // 1+2 → 3; the lone 3 then stays: 3+3 does not merge.
        ([1, 2, 3, 0], Some(([3, 3, 0, 0], 3))),
        ([3, 2, 1, 0], Some(([5, 1, 0, 0], 5))),
        ([8, 13, 21, 34], Some(([21, 55, 0, 0], 76))),
        ([0, 987, 0, 1597], Some(([2584, 0, 0, 0], 2584))),
        ([5, 5, 0, 0], None),
        ([2, 2, 0, 0], None),
        ([1, 3, 0, 0], None),
        ([1, 3, 1, 3], None),
        ([3, 3, 3, 3], None),
        ([2, 5, 13, 34], None),
        // 5-bit cells stop at 2178309.
        ([832040, 1346269, 0, 0], Some(([2178309, 0, 0, 0], 2178309))),
        ([1346269, 2178309, 0, 0], None),
    ];
    for &(line, want) in cases {
        check_line(Fib2584::from_tiles, |g| g.tile_values(), line, want);
        check_line(|v| Fib2584::from_tiles_with_odds(SpawnOdds::OneThree, v), |g| g.tile_values(), line, want);
    }
    let mut g = Fib2584::from_tiles([[1, 1, 2, 3], [1, 2, 3, 0], [0; 4], [0; 4]]).unwrap();
    assert_eq!(g.play(RIGHT), Ok(7 + 5));
    assert_eq!(g.tile_values()[0], [0, 0, 2, 5]);
    assert_eq!(g.tile_values()[1], [0, 0, 1, 5]);
}

// ---------------------------------------------------------------------------------------
// Chance
// ---------------------------------------------------------------------------------------

#[test]
fn new_games_start_empty_with_two_spawns_pending() {
    let mut g = Twenty48::new();
    assert_eq!(g.tile_values(), [[0; 4]; 4]);
    assert_eq!(g.to_move(), ToMove::Chance);
    assert_eq!(g.pending_spawns(), 2);
    assert_eq!(g.outcome(), None);
    let mut ch = Vec::new();
    g.chance_outcomes(&mut ch);
    assert_eq!(ch.len(), 32);
    g.apply_chance(5 * 2 + 1).unwrap();
    assert_eq!(g.to_move(), ToMove::Chance);
    g.chance_outcomes(&mut ch);
    assert_eq!(ch.len(), 30);
    assert!(ch.iter().all(|&(e, _)| e / 2 != 5));
    g.apply_chance(0).unwrap();
    assert_eq!(g.to_move(), ToMove::Player(Player::First));
    assert_eq!(g.tile_values()[0], [2, 0, 0, 0]);
    assert_eq!(g.tile_values()[1], [0, 4, 0, 0]);
    assert_eq!((g.ply(), g.score(), g.last_action()), (0, 0, None));

    for (spec, values) in [
        (GameSpec::Twenty48, [2, 4]),
        (GameSpec::Fib2584 { odds: SpawnOdds::OneTwo }, [1, 2]),
        (GameSpec::Fib2584 { odds: SpawnOdds::OneThree }, [1, 3]),
    ] {
        let mut rng = Rng::seed_from_u64(4);
        for _ in 0..50 {
            let g = spec.new_game(&mut rng).unwrap();
            assert_eq!(g.spec(), spec);
            let tiles: Vec<u32> = match &g {
                dojo_game::AnyGame::Twenty48(g) => {
                    assert_eq!(g.to_move(), ToMove::Player(Player::First));
                    g.tile_values().into_iter().flatten().collect()
                }
                dojo_game::AnyGame::Fib2584(g) => {
                    assert_eq!(g.to_move(), ToMove::Player(Player::First));
                    g.tile_values().into_iter().flatten().collect()
                }
                other => panic!("{other:?}"),
            };
            let placed: Vec<u32> = tiles.into_iter().filter(|&v| v != 0).collect();
            assert_eq!(placed.len(), 2);
            assert!(placed.iter().all(|v| values.contains(v)), "{placed:?}");
        }
    }
}

fn check_chance_sums<R: Rules>(start: Sliding<R>, big_share: f32) {
    let mut rng = Rng::seed_from_u64(5);
    let mut g = start;
    let mut ch = Vec::new();
    let mut checked = 0;
    while g.outcome().is_none() {
        if g.to_move() == ToMove::Chance {
            g.chance_outcomes(&mut ch);
            let empty = g.tile_values().iter().flatten().filter(|&&v| v == 0).count();
            assert_eq!(ch.len(), 2 * empty);
            let sum: f32 = ch.iter().map(|&(_, p)| p).sum();
            assert!((sum - 1.0).abs() < 1e-5, "{sum}");
            let big: f32 = ch.iter().filter(|&&(e, _)| e % 2 == 1).map(|&(_, p)| p).sum();
            assert!((big - big_share).abs() < 1e-5, "{big}");
            checked += 1;
            g.sample_chance(&mut rng);
        } else {
            let mut legal = Vec::new();
            g.legal_actions(&mut legal);
            g.play(*legal.choose(&mut rng).unwrap()).unwrap();
        }
    }
    g.chance_outcomes(&mut ch);
    assert!(ch.is_empty());
    assert!(checked > 20);
}

#[test]
fn chance_probabilities_sum_to_one() {
    check_chance_sums(Twenty48::new(), 0.1);
    check_chance_sums(Fib2584::new(SpawnOdds::OneTwo), 0.2);
    check_chance_sums(Fib2584::new(SpawnOdds::OneThree), 0.25);
}

/// Samples `n` spawns on a board with the given empty cells; returns (big count, per cell).
fn spawn_counts<R: Rules>(start: Sliding<R>, n: usize, big: u32) -> (usize, [usize; 16]) {
    let mut rng = Rng::seed_from_u64(6);
    let mut bigs = 0;
    let mut cells = [0; 16];
    let mut g = start;
    g.play(LEFT).unwrap();
    let before = g.tile_values();
    for _ in 0..n {
        let mut h = g;
        h.sample_chance(&mut rng);
        assert_eq!(h.to_move(), ToMove::Player(Player::First));
        let after = h.tile_values();
        let i = (0..16).find(|&i| before[i / 4][i % 4] != after[i / 4][i % 4]).expect("a spawn");
        cells[i] += 1;
        if after[i / 4][i % 4] == big {
            bigs += 1;
        }
    }
    (bigs, cells)
}

#[test]
fn spawn_frequencies_match_the_odds() {
    // After sliding left, the left column holds the tiles and the other 12 cells are empty.
    let t = [[0, 0, 0, 8], [0, 0, 16, 0], [0, 32, 0, 0], [64, 0, 0, 0]];
    let n = 24_000;
    let f = [[0, 0, 0, 8], [0, 0, 13, 0], [0, 21, 0, 0], [34, 0, 0, 0]];
    for (bigs, cells, share) in [
        {
            let (b, c) = spawn_counts(Twenty48::from_tiles(t).unwrap(), n, 4);
            (b, c, 0.10)
        },
        {
            let (b, c) = spawn_counts(Fib2584::from_tiles(f).unwrap(), n, 2);
            (b, c, 0.20)
        },
        {
            let g = Fib2584::from_tiles_with_odds(SpawnOdds::OneThree, f).unwrap();
            let (b, c) = spawn_counts(g, n, 3);
            (b, c, 0.25)
        },
    ] {
        let expect = n as f64 * share;
        // ±6 standard deviations or more: a wrong rule fails, luck does not.
        assert!((bigs as f64 - expect).abs() < 600.0, "big tiles {bigs}, expected about {expect}");
        for (i, &c) in cells.iter().enumerate() {
            if i % 4 == 0 {
                assert_eq!(c, 0, "cell {i} is occupied");
            } else {
                assert!((1700..2300).contains(&c), "cell {i}: {c} of {n}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Symmetries
// ---------------------------------------------------------------------------------------

fn check_symmetries<R: Rules>(start: Sliding<R>, seed: u64) {
    let mut rng = Rng::seed_from_u64(seed);
    let mut positions = Vec::new();
    let mut g = start;
    while positions.len() < 200 {
        if g.outcome().is_some() {
            g = start;
        }
        if g.to_move() == ToMove::Chance {
            g.sample_chance(&mut rng);
            continue;
        }
        positions.push(g);
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        g.play(*legal.choose(&mut rng).unwrap()).unwrap();
    }
    let shape = start.plane_shape();
    let mut planes = vec![0.0; shape.len()];
    let mut sym_planes = vec![0.0; shape.len()];
    let mut mapped = vec![0.0; 16];
    for p in &positions {
        p.encode_planes(&mut planes);
        for s in 0..8 {
            let q = p.symmetric(s);
            // The board maps like a plane.
            let flat: Vec<f32> = p.tile_values().iter().flatten().map(|&v| v as f32).collect();
            p.map_plane(s, &flat, &mut mapped);
            let q_flat: Vec<f32> = q.tile_values().iter().flatten().map(|&v| v as f32).collect();
            assert_eq!(q_flat, mapped, "sym {s}");
            q.encode_planes(&mut sym_planes);
            for c in 0..shape.channels {
                p.map_plane(s, &planes[c * 16..c * 16 + 16], &mut mapped);
                assert_eq!(&sym_planes[c * 16..c * 16 + 16], &mapped[..], "sym {s} ch {c}");
            }
            // A move and its mapped move give mapped results.
            for d in 0..4 {
                let md = p.map_action(s, d);
                assert_eq!(p.is_legal(d), q.is_legal(md), "sym {s} dir {d}");
                if p.is_legal(d) {
                    let (mut a, mut b) = (*p, q);
                    let ra = a.play(d).unwrap();
                    let rb = b.play(md).unwrap();
                    assert_eq!(ra, rb);
                    assert_eq!(a.symmetric(s).tile_values(), b.tile_values(), "sym {s} dir {d}");
                    assert_eq!(a.symmetric(s).last_action(), b.last_action());
                    // Spawns map cell by cell.
                    let mut ca = Vec::new();
                    let mut cb = Vec::new();
                    a.chance_outcomes(&mut ca);
                    b.chance_outcomes(&mut cb);
                    let mut ca: Vec<(Action, f32)> = ca
                        .into_iter()
                        .map(|(e, pr)| {
                            let mut one = [0.0f32; 16];
                            one[e as usize / 2] = 1.0;
                            p.map_plane(s, &one, &mut mapped);
                            let cell = mapped.iter().position(|&x| x == 1.0).unwrap();
                            (cell as Action * 2 + e % 2, pr)
                        })
                        .collect();
                    ca.sort_by_key(|&(e, _)| e);
                    assert_eq!(ca, cb);
                }
            }
        }
    }
}

#[test]
fn symmetries_map_moves_boards_and_planes_consistently() {
    check_symmetries(Twenty48::new(), 7);
    check_symmetries(Fib2584::new(SpawnOdds::OneThree), 8);

    let g = Twenty48::from_tiles([[2, 4, 8, 16], [0, 0, 0, 32], [0; 4], [0, 0, 0, 64]]).unwrap();
    assert_eq!(g.num_symmetries(), 8);
    let boards: std::collections::HashSet<_> = (0..8).map(|s| g.symmetric(s).tile_values()).collect();
    assert_eq!(boards.len(), 8, "the 8 symmetries are distinct");
    assert_eq!(g.symmetric(0), g);
    for s in 0..8 {
        let mut dirs: Vec<Action> = (0..4).map(|d| g.map_action(s, d)).collect();
        dirs.sort();
        assert_eq!(dirs, [0, 1, 2, 3], "sym {s} permutes the directions");
    }
    // The mirror that swaps the left and right columns swaps L and R and keeps U and D.
    let mirror = (0..8).find(|&s| g.symmetric(s).tile_values()[0] == [16, 8, 4, 2]).unwrap();
    assert_eq!((0..4).map(|d| g.map_action(mirror, d)).collect::<Vec<_>>(), [UP, LEFT, DOWN, RIGHT]);
}

// ---------------------------------------------------------------------------------------
// Hash, planes, notation, errors
// ---------------------------------------------------------------------------------------

#[test]
fn hash_is_the_board_and_pending_spawn() {
    let a = Twenty48::from_tiles([[2, 2, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
    let b = Twenty48::from_tiles([[4, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
    let mut c = a;
    c.play(LEFT).unwrap();
    // Same board, but c still waits for its spawn.
    assert_eq!(c.tile_values(), b.tile_values());
    assert_ne!(c.hash(), b.hash());
    let mut rng = Rng::seed_from_u64(1);
    let mut d = c;
    d.sample_chance(&mut rng);
    assert_ne!(d.hash(), c.hash());

    // No collisions among the distinct boards of some random games.
    for start in [Twenty48::new()] {
        let mut seen: HashMap<u64, ([[u32; 4]; 4], usize)> = HashMap::new();
        let mut g = start;
        let mut legal = Vec::new();
        for _ in 0..20_000 {
            if g.outcome().is_some() {
                g = start;
            }
            let key = (g.tile_values(), g.pending_spawns());
            if let Some(prev) = seen.insert(g.hash(), key) {
                assert_eq!(prev, key, "hash collision");
            }
            if g.to_move() == ToMove::Chance {
                g.sample_chance(&mut rng);
            } else {
                g.legal_actions(&mut legal);
                g.play(*legal.choose(&mut rng).unwrap()).unwrap();
            }
        }
    }
    let mut seen = HashMap::new();
    let mut g = Fib2584::new(SpawnOdds::OneTwo);
    let mut legal = Vec::new();
    for _ in 0..20_000 {
        if g.outcome().is_some() {
            g = Fib2584::new(SpawnOdds::OneTwo);
        }
        let key = (g.tile_values(), g.pending_spawns());
        if let Some(prev) = seen.insert(g.hash(), key) {
            assert_eq!(prev, key, "hash collision");
        }
        if g.to_move() == ToMove::Chance {
            g.sample_chance(&mut rng);
        } else {
            g.legal_actions(&mut legal);
            g.play(*legal.choose(&mut rng).unwrap()).unwrap();
        }
    }
    // Equal boards hash equally whatever the score.
    let e = Twenty48::from_tiles(d.tile_values()).unwrap();
    assert_eq!(e.hash(), d.hash());
    assert_ne!(e.score(), d.score());
}

#[test]
fn planes_are_one_hot_tile_indices() {
    let g = Twenty48::from_tiles([[0, 2, 4, 32768], [0; 4], [0; 4], [0, 0, 0, 1024]]).unwrap();
    let shape = g.plane_shape();
    assert_eq!((shape.channels, shape.height, shape.width), (16, 4, 4));
    let mut p = vec![9.0; shape.len()];
    g.encode_planes(&mut p);
    let hot = |ch: usize, cell: usize| p[ch * 16 + cell];
    assert_eq!((hot(0, 0), hot(1, 1), hot(2, 2), hot(15, 3), hot(10, 15)), (1.0, 1.0, 1.0, 1.0, 1.0));
    assert_eq!(p.iter().sum::<f32>(), 16.0);
    for cell in 0..16 {
        assert_eq!((0..16).map(|c| hot(c, cell)).sum::<f32>(), 1.0);
    }

    let f = fibs();
    // Indices 23 and above share the last of the 24 channels.
    let g = Fib2584::from_tiles([[1, 2, 3, 5], [f[22], f[23], f[24], f[30]], [0; 4], [0; 4]]).unwrap();
    let shape = g.plane_shape();
    assert_eq!((shape.channels, shape.height, shape.width), (24, 4, 4));
    let mut p = vec![9.0; shape.len()];
    g.encode_planes(&mut p);
    let hot = |ch: usize, cell: usize| p[ch * 16 + cell];
    for (cell, ch) in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 23), (5, 23), (6, 23), (7, 23), (8, 0)] {
        assert_eq!(hot(ch, cell), 1.0, "cell {cell}");
    }
    assert_eq!(p.iter().sum::<f32>(), 16.0);
}

#[test]
fn notation_round_trips_and_render_shows_values() {
    let g = Twenty48::from_tiles([[2, 0, 0, 0], [0, 1024, 0, 0], [0; 4], [0, 0, 0, 32768]]).unwrap();
    for (text, a) in [
        ("U", UP),
        ("u", UP),
        ("up", UP),
        ("Up", UP),
        ("R", RIGHT),
        ("right", RIGHT),
        ("d", DOWN),
        ("DOWN", DOWN),
        ("l", LEFT),
        (" left ", LEFT),
    ] {
        assert_eq!(g.action_from_text(text), Ok(a), "{text}");
    }
    assert_eq!((0..4).map(|a| g.action_to_text(a)).collect::<Vec<_>>(), ["U", "R", "D", "L"]);
    let moves = g.moves_from_text("U r down;L").unwrap();
    assert_eq!(moves, [UP, RIGHT, DOWN, LEFT]);
    assert_eq!(g.moves_to_text(&moves), "U R D L");
    let err = g.action_from_text("north").unwrap_err();
    assert!(matches!(err, GameError::Parse { .. }));
    assert!(err.to_string().contains("expected U, R, D or L"), "{err}");

    let r = g.render();
    assert!(r.contains("2048"), "{r}");
    assert!(r.contains("32768") && r.contains("1024"), "{r}");
    let rows: Vec<&str> = r.lines().skip(1).collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0].split_whitespace().collect::<Vec<_>>(), ["2", ".", ".", "."]);
    assert_eq!(rows[3].split_whitespace().collect::<Vec<_>>(), [".", ".", ".", "32768"]);

    let f = Fib2584::from_tiles([[2584, 1, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap();
    assert!(f.render().contains("2584"));
    assert_eq!(f.render().lines().nth(1).unwrap().split_whitespace().collect::<Vec<_>>(), ["2584", "1", ".", "."]);
}

#[test]
fn bad_input_gives_clear_errors() {
    for v in [3, 1, 6, 65536, 1 << 20] {
        let err = Twenty48::from_tiles([[0, 0, 0, 0], [0, 0, v, 0], [0; 4], [0; 4]]).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(&v.to_string()) && msg.contains("power of two"), "{msg}");
        assert!(msg.contains("row 2, column 3"), "{msg}");
    }
    for v in [4, 6, 7, 2584 + 1, 3524578] {
        let msg = Fib2584::from_tiles([[v, 0, 0, 0], [0; 4], [0; 4], [0; 4]]).unwrap_err().to_string();
        assert!(msg.contains("Fibonacci"), "{msg}");
    }

    // A spawn is pending: no player move.
    let mut g = Twenty48::new();
    assert_eq!(g.play(UP), Err(GameError::ChancePending));
    let mut legal = vec![1];
    g.legal_actions(&mut legal);
    assert!(legal.is_empty());
    // Bad and occupied spawn events.
    let err = g.apply_chance(32).unwrap_err().to_string();
    assert!(err.contains("spawn events are 0..32"), "{err}");
    g.apply_chance(6).unwrap();
    let err = g.apply_chance(7).unwrap_err().to_string();
    assert!(err.contains("cell 3 (row 1, column 4) is occupied"), "{err}");
    g.apply_chance(0).unwrap();
    // No spawn is pending.
    assert_eq!(g.apply_chance(2), Err(GameError::NoChancePending));
    let before = g.tile_values();
    g.sample_chance(&mut Rng::seed_from_u64(1));
    assert_eq!(g.tile_values(), before, "sample_chance without a pending spawn does nothing");
    // Illegal directions.
    let err = g.play(7).unwrap_err();
    assert!(matches!(err, GameError::IllegalMove { .. }));
    assert!(err.to_string().contains("moves are 0..4"), "{err}");
    let err = g.play(UP).unwrap_err().to_string();
    assert!(err.contains("illegal move U: sliding up changes nothing"), "{err}");
    assert!(!g.is_legal(4));

    // A full board with no merges is over.
    let mut over = Twenty48::from_tiles([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]).unwrap();
    assert_eq!(over.outcome(), Some(Outcome::Score(0)));
    assert_eq!(over.play(LEFT), Err(GameError::GameOver));
    over.legal_actions(&mut legal);
    assert!(legal.is_empty());
    let over = Fib2584::from_tiles([[1, 3, 1, 3], [3, 1, 3, 1], [1, 3, 1, 3], [3, 1, 3, 1]]).unwrap();
    assert_eq!(over.outcome(), Some(Outcome::Score(0)));
    assert!(over.render().contains("game over"));
}

#[test]
fn ply_score_and_last_action_track_player_moves() {
    let mut g = Twenty48::from_tiles([[2, 2, 0, 0], [4, 4, 0, 0], [0; 4], [0; 4]]).unwrap();
    assert_eq!(g.num_actions(), 4);
    assert_eq!(g.play(LEFT), Ok(4 + 8));
    assert_eq!((g.ply(), g.score(), g.last_action()), (1, 12, Some(LEFT)));
    g.apply_chance(15 * 2).unwrap();
    assert_eq!((g.ply(), g.last_action()), (1, Some(LEFT)));
    let r = g.play(DOWN).unwrap();
    assert_eq!((g.ply(), g.score(), g.last_action()), (2, 12 + u64::from(r), Some(DOWN)));
    assert_eq!(g.spec().to_string(), "2048");
    assert_eq!(Fib2584::new(SpawnOdds::OneThree).spec().to_string(), "2584:1-3");
}
