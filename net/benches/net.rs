//! Network and search throughput: raw forward passes per batch size, and PUCT playouts per
//! second with a free evaluator. `cargo bench -p dojo-net --bench net`.
//!
//! One libtorch thread, as every worker process runs. The pipeline's efficiency is the
//! self-play NN evals/s (printed by `dojo selfplay`) over the raw rate at the same batch.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dojo_arch::architecture::Architecture;
use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_net::device::set_threads;
use dojo_net::model::Model;
use dojo_search::config::SearchConfig;
use dojo_search::evaluator::UniformEvaluator;
use dojo_search::puct::Search;
use dojo_search::step::LeafSearch;
use rand::{RngExt, SeedableRng};
use std::time::Duration;

fn net_forward(c: &mut Criterion) {
    set_threads(1);
    let game = Connect4::<u64>::standard();
    for (blocks, channels) in [(5, 64), (4, 48), (3, 32)] {
        let model = Model::new(Architecture::for_game(&game, blocks, channels), dojo_net::device::Device::Cpu);
        let mut group = c.benchmark_group(format!("net_forward_{blocks}x{channels}"));
        group.measurement_time(Duration::from_secs(4)).sample_size(10);
        for batch in [1usize, 16, 64, 256] {
            let mut planes = vec![0.0; batch * model.arch().input_len()];
            let mut rng = Rng::seed_from_u64(1);
            planes.iter_mut().for_each(|x| *x = if rng.random_ratio(1, 3) { 1.0 } else { 0.0 });
            let mut policy = vec![0.0; batch * 7];
            let mut value = vec![0.0; batch];
            group.throughput(Throughput::Elements(batch as u64));
            group.bench_with_input(BenchmarkId::from_parameter(batch), &batch, |b, &batch| {
                b.iter(|| model.infer(&planes, batch, &mut policy, &mut value))
            });
        }
        group.finish();
    }
}

fn puct_playouts(c: &mut Criterion) {
    let game = Connect4::<u64>::standard();
    let sims = 20_000;
    let mut group = c.benchmark_group("puct_uniform_connect4");
    group.throughput(Throughput::Elements(sims as u64)).sample_size(10);
    // With the two-step lookahead (the default), one ply only, and none at each expansion,
    // to show what each costs.
    for (name, tactics, two_step_kills) in [
        ("20k_playouts_from_empty", true, true),
        ("20k_playouts_from_empty_one_ply_tactics", true, false),
        ("20k_playouts_from_empty_no_tactics", false, false),
    ] {
        group.bench_function(name, |b| {
            let config = SearchConfig { simulations: sims, tactics, two_step_kills, ..SearchConfig::default() };
            let mut search = Search::new(config, false, Rng::seed_from_u64(1));
            b.iter(|| {
                search.clear();
                search.set_root(&game);
                search.search_with(&mut UniformEvaluator, sims);
                search.playouts()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, net_forward, puct_playouts);
criterion_main!(benches);
