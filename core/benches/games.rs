//! Game-rule speed: random playouts per second (the rollout baseline's inner loop).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dojo_core::game::gomoku::Gomoku;
use dojo_core::game::Game;
use dojo_core::rng::Rng;
use std::hint::black_box;

/// Whole random games on 15x15 from the empty board; one element = one playout.
fn gomoku_random_playouts(c: &mut Criterion) {
    let start = Gomoku::new(15).expect("15 is a legal size");
    let mut rng = Rng::seed(1);
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

criterion_group!(gomoku_benches, gomoku_random_playouts);
criterion_main!(gomoku_benches);
