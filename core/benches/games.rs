//! Game-rule throughput: `cargo bench -p dojo-core --bench games -- <filter>`.
//! Each game's benches live in functions named after the game (`connect4_*`, ...).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dojo_core::game::connect4::{BitWord, Bits192, Connect4};
use dojo_core::game::{Game, Outcome};
use dojo_core::rng::Rng;
use std::hint::black_box;
use std::time::Duration;

/// One playout from `start` to the end; the policy is uniform or the seed-001 heuristic.
#[inline]
fn connect4_playout<B: BitWord>(
    start: &Connect4<B>,
    rng: &mut Rng,
    heuristic: bool,
) -> Option<Outcome> {
    let mut g = start.clone();
    while g.outcome().is_none() {
        let a = if heuristic {
            g.heuristic_move(rng)
        } else {
            g.random_move(rng)
        };
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
            let mut rng = Rng::seed(1);
            b.iter(|| black_box(connect4_playout(&standard, &mut rng, heuristic)))
        });
        group.bench_function(format!("12x12_blocked_{name}"), |b| {
            let mut rng = Rng::seed(2);
            b.iter(|| black_box(connect4_playout(&saiblo, &mut rng, heuristic)))
        });
    }
    group.finish();
}

criterion_group!(benches, connect4_random_playouts);
criterion_main!(benches);
