//! What Gomoku's threat-space search (`search.vcf_nodes`) costs per expanded position:
//! `cargo bench -p dojo-search --bench vcf`.
//!
//! `gomoku_threat_search/SIZE_NODES`: one [`Tactics::threat_search`] call (the side to move's
//! VCF, then the opponent's and its defences) per element, over the positions of 40 games
//! of clustered random moves (every move next to a stone already down, so fours and threes
//! are common, as in play; uniform moves on an open board would make none and flatter it).
//! `gomoku_search_uniform/SIZE_vcfNODES`: graph-search playouts with the free evaluator from
//! those positions, each playout expanding one position: the whole per-expansion cost with
//! the lookahead, next to the same search with the threat search off.
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dojo_base::rng::Rng;
use dojo_game::gomoku::Gomoku;
use dojo_game::tactics::Tactics;
use dojo_game::{Action, Game};
use dojo_search::config::SearchConfig;
use dojo_search::evaluator::UniformEvaluator;
use dojo_search::puct::Search;
use dojo_search::step::LeafSearch;
use rand::{RngExt, SeedableRng};
use std::hint::black_box;
use std::time::Duration;

/// The positions (not over) of `games` games whose every move lands within two points of a
/// stone already played (the first in the centre).
fn clustered_positions(size: usize, games: usize, seed: u64) -> Vec<Gomoku> {
    let mut rng = Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut g = Gomoku::new(size).unwrap();
        g.play(g.action_at(size / 2, size / 2)).unwrap();
        let mut played = vec![(size / 2, size / 2)];
        while g.outcome().is_none() && g.empty_count() > 0 {
            out.push(g.clone());
            let (mut x, mut y) = played[rng.random_range(..played.len())];
            loop {
                let nx = (x as i64 + rng.random_range(-2..=2i64)).clamp(0, size as i64 - 1) as usize;
                let ny = (y as i64 + rng.random_range(-2..=2i64)).clamp(0, size as i64 - 1) as usize;
                if g.is_legal(g.action_at(nx, ny)) {
                    (x, y) = (nx, ny);
                    break;
                }
                (x, y) = played[rng.random_range(..played.len())];
            }
            g.play(g.action_at(x, y)).unwrap();
            played.push((x, y));
        }
    }
    out
}

fn threat_search(c: &mut Criterion) {
    let mut group = c.benchmark_group("gomoku_threat_search");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3)).sample_size(10);
    let mut moves: Vec<Action> = Vec::new();
    for size in [9, 11, 15] {
        let positions = clustered_positions(size, 40, size as u64);
        group.throughput(Throughput::Elements(positions.len() as u64));
        for nodes in [200, 1000, 5000] {
            group.bench_function(format!("{size}x{size}_{nodes}"), |b| {
                b.iter(|| {
                    for g in &positions {
                        g.lookahead(&mut moves);
                        black_box(g.threat_search(nodes, &mut moves));
                    }
                })
            });
        }
    }
    group.finish();
}

fn search_with_threats(c: &mut Criterion) {
    let mut group = c.benchmark_group("gomoku_search_uniform");
    group.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3)).sample_size(10);
    let sims = 100;
    for size in [9, 11, 15] {
        // Every 8th position of the clustered games: a spread of openings and middle games.
        let positions: Vec<Gomoku> = clustered_positions(size, 10, size as u64).into_iter().step_by(8).collect();
        for nodes in [0, 200, 1000] {
            let config = SearchConfig { simulations: sims, vcf_nodes: nodes, ..SearchConfig::for_play(sims) };
            let mut search = Search::new(config, false, Rng::seed_from_u64(1));
            // Throughput in playouts: a proven root stops early, so count what was done.
            let mut playouts = 0u64;
            for g in &positions {
                search.clear();
                search.set_root(g);
                search.search_with(&mut UniformEvaluator, sims);
                playouts += u64::from(search.playouts());
            }
            group.throughput(Throughput::Elements(playouts));
            group.bench_function(format!("{size}x{size}_vcf{nodes}"), |b| {
                b.iter(|| {
                    for g in &positions {
                        search.clear();
                        search.set_root(g);
                        search.search_with(&mut UniformEvaluator, sims);
                    }
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, threat_search, search_with_threats);
criterion_main!(benches);
