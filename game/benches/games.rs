//! Game-rule throughput: `cargo bench -p dojo-game --bench games -- <filter>`.
//! Each game's benches live in functions named after the game (`connect4_*`, ...).
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dojo_base::bits::{BitWord, Bits192};
use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_game::gomoku::Gomoku;
use dojo_game::sliding::{Fib2584, Rules, Sliding, SpawnOdds, Twenty48};
use dojo_game::tactics::Tactics;
use dojo_game::Chance;
use dojo_game::{Action, ToMove};
use dojo_game::{Game, Outcome};
use rand::{seq::IndexedRandom, SeedableRng};
use std::hint::black_box;
use std::time::Duration;

/// One playout from `start` to the end; the policy is uniform or the seed-001 heuristic.
#[inline]
fn connect4_playout<B: BitWord>(start: &Connect4<B>, rng: &mut Rng, heuristic: bool) -> Option<Outcome> {
    let mut g = start.clone();
    while g.outcome().is_none() {
        let a = if heuristic { g.heuristic_move(rng) } else { g.random_move(rng) };
        g.play_unchecked(a);
    }
    g.outcome()
}

/// Full playouts per second (criterion's `elem/s`) from the empty board.
fn connect4_random_playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("connect4_playouts");
    group
        .throughput(Throughput::Elements(1))
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let standard = Connect4::<u64>::new(7, 6, &[]).unwrap();
    let saiblo = Connect4::<Bits192>::new(12, 12, &[(5, 3)]).unwrap();
    for (name, heuristic) in [("random", false), ("heuristic", true)] {
        group.bench_function(format!("7x6_{name}"), |b| {
            let mut rng = Rng::seed_from_u64(1);
            b.iter(|| black_box(connect4_playout(&standard, &mut rng, heuristic)))
        });
        group.bench_function(format!("12x12_blocked_{name}"), |b| {
            let mut rng = Rng::seed_from_u64(2);
            b.iter(|| black_box(connect4_playout(&saiblo, &mut rng, heuristic)))
        });
    }
    group.finish();
}

// ---- 2048 / 2584 ----

const SLIDING_MOVES: u64 = 10_000;

/// `SLIDING_MOVES` random player moves, each with its spawn and the next legal-move list,
/// starting a new game whenever one ends.
fn sliding_random_play<R: Rules>(start: Sliding<R>, rng: &mut Rng, legal: &mut Vec<Action>) -> u64 {
    let mut g = start;
    let mut score = 0;
    for _ in 0..SLIDING_MOVES {
        while g.to_move() == ToMove::Chance {
            g.sample_chance(rng);
        }
        g.legal_actions(legal);
        if legal.is_empty() {
            score += g.score();
            g = start;
            continue;
        }
        g.play_unchecked(*legal.choose(rng).unwrap());
    }
    score + g.score()
}

/// Player-to-move positions from random games, with their legal moves.
fn sliding_positions<R: Rules>(start: Sliding<R>, n: usize) -> Vec<(Sliding<R>, Vec<Action>)> {
    let mut rng = Rng::seed_from_u64(11);
    let mut out = Vec::with_capacity(n);
    let mut g = start;
    let mut legal = Vec::new();
    while out.len() < n {
        if g.to_move() == ToMove::Chance {
            g.sample_chance(&mut rng);
            continue;
        }
        g.legal_actions(&mut legal);
        if legal.is_empty() {
            g = start;
            continue;
        }
        out.push((g, legal.clone()));
        g.play_unchecked(*legal.choose(&mut rng).unwrap());
    }
    out
}

fn sliding_bench<R: Rules>(c: &mut Criterion, name: &str, start: Sliding<R>) {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(SLIDING_MOVES));
    let mut rng = Rng::seed_from_u64(1);
    let mut legal = Vec::with_capacity(4);
    group.bench_function("random_play", |b| b.iter(|| black_box(sliding_random_play(start, &mut rng, &mut legal))));
    // The slide alone: every legal move of a fixed set of positions.
    let positions = sliding_positions(start, 4096);
    let moves: u64 = positions.iter().map(|(_, l)| l.len() as u64).sum();
    group.throughput(Throughput::Elements(moves));
    group.bench_function("move_only", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for (g, legal) in &positions {
                for &a in legal {
                    let mut h = *g;
                    acc = acc.wrapping_add(h.play_unchecked(a));
                    black_box(&h);
                }
            }
            acc
        })
    });
    group.finish();
}

fn sliding_2048_moves(c: &mut Criterion) {
    sliding_bench(c, "sliding_2048_moves", Twenty48::new());
}

fn sliding_2584_moves(c: &mut Criterion) {
    sliding_bench(c, "sliding_2584_moves", Fib2584::new(SpawnOdds::OneTwo));
}

// ---- Gomoku ----
/// Whole random games on 15x15 from the empty board; one element = one playout.
fn gomoku_random_playouts(c: &mut Criterion) {
    let start = Gomoku::new(15).expect("15 is a legal size");
    let mut rng = Rng::seed_from_u64(1);
    let mut group = c.benchmark_group("gomoku");
    group.throughput(Throughput::Elements(1));
    group.bench_function("random_playout_15x15", |b| {
        b.iter(|| {
            let mut g = start.clone();
            while g.outcome().is_none() {
                let a = g.random_move(&mut rng);
                g.play_unchecked(a);
            }
            black_box((g.outcome(), g.ply()))
        })
    });
    group.finish();
}

/// Random middle-game positions (a third of the board filled) of a `size × size` board.
fn gomoku_middle_games(size: usize) -> Vec<Gomoku> {
    let mut rng = Rng::seed_from_u64(2);
    (0..64)
        .map(|_| {
            let mut g = Gomoku::new(size).expect("a legal size");
            for _ in 0..size * size / 3 {
                if g.outcome().is_some() {
                    break;
                }
                let a = g.random_move(&mut rng);
                g.play_unchecked(a);
            }
            g
        })
        .collect()
}

/// The network's input planes (stones, last move, ones, and the threat planes) of random
/// middle-game positions: what every leaf evaluation pays before the network runs.
fn gomoku_encode_planes(c: &mut Criterion) {
    let mut group = c.benchmark_group("gomoku_encode");
    group.throughput(Throughput::Elements(1));
    for size in [9usize, 15] {
        let positions = gomoku_middle_games(size);
        let mut planes = vec![0.0; positions[0].plane_shape().len()];
        let mut i = 0;
        group.bench_function(format!("{size}x{size}"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                positions[i].encode_planes(&mut planes);
                black_box(planes[0])
            })
        });
    }
    group.finish();
}

/// The one-ply lookahead (make five, else block the opponent's) that the search runs at
/// every position it expands, on random middle-game positions.
fn gomoku_lookahead(c: &mut Criterion) {
    let mut group = c.benchmark_group("gomoku_lookahead");
    group.throughput(Throughput::Elements(1));
    for size in [9usize, 15] {
        let positions: Vec<Gomoku> = gomoku_middle_games(size).into_iter().filter(|g| g.outcome().is_none()).collect();
        let mut moves = Vec::new();
        let mut i = 0;
        group.bench_function(format!("{size}x{size}"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                black_box(positions[i].lookahead(&mut moves))
            })
        });
    }
    group.finish();
}

criterion_group!(connect4, connect4_random_playouts);
criterion_group!(gomoku, gomoku_random_playouts, gomoku_encode_planes, gomoku_lookahead);
criterion_group!(sliding, sliding_2048_moves, sliding_2584_moves);
criterion_main!(connect4, gomoku, sliding);
