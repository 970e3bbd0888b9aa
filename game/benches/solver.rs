//! Exact solver timings on 7x6 positions after 8, 12 and 16 random discs.
//!
//! First a plain timing pass: every position of every bucket solved once from an empty
//! table, printing its time, node count and score and each bucket's median (the 8-disc
//! bucket is too slow for criterion's repeated samples). Then criterion measures each
//! position of the 12- and 16-disc buckets, again from an empty table each time.
//!
//! `SOLVER_BENCH_BUCKETS=12,16` picks the buckets of the timing pass (default 16,12,8);
//! `SOLVER_BENCH_TT_BITS=24` sets the table size (default `DEFAULT_TT_BITS`).

use criterion::{BenchmarkId, Criterion};
use dojo_base::rng::Rng;
use dojo_game::connect4::solver::{Position, Solver};
use rand::{seq::IndexedRandom, SeedableRng};
use std::hint::black_box;
use std::time::{Duration, Instant};

const POSITIONS_PER_BUCKET: usize = 10;

/// `count` positions after `discs` uniformly random moves, from a fixed seed. Games that
/// end early are discarded, and so are positions where the side to move wins at once
/// (those take no search).
fn positions(discs: usize, count: usize) -> Vec<(String, Position)> {
    let mut rng = Rng::seed_from_u64(0x5eed_0000 + discs as u64);
    let mut out = Vec::new();
    'game: while out.len() < count {
        let mut pos = Position::new(7, 6, &[]).expect("7x6 fits");
        let mut text = String::new();
        for _ in 0..discs {
            let legal: Vec<usize> = (0..7).filter(|&c| pos.can_play(c)).collect();
            let col = *legal.choose(&mut rng).unwrap();
            if pos.play(col).is_err() {
                continue 'game; // the move won: the game is over
            }
            text.push(char::from(b'1' + col as u8));
        }
        if !pos.can_win_next() {
            out.push((text, pos));
        }
    }
    out
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn timing_pass(solver: &mut Solver, buckets: &[usize]) {
    for &discs in buckets {
        println!("-- 7x6, {discs} discs (gamesolver notation, time, nodes, score):");
        let mut times = Vec::new();
        let mut nodes = Vec::new();
        for (text, pos) in positions(discs, POSITIONS_PER_BUCKET) {
            solver.reset();
            let t = Instant::now();
            let score = solver.solve(&pos);
            let secs = t.elapsed().as_secs_f64();
            println!("   {text:<16} {:>10.3} ms {:>12} nodes  score {score:>3}", secs * 1e3, solver.node_count());
            times.push(secs);
            nodes.push(solver.node_count() as f64);
        }
        println!(
            "   median: {:.3} ms, {:.0} nodes (max {:.3} ms)",
            median(&mut times) * 1e3,
            median(&mut nodes),
            times.last().copied().unwrap_or(0.0) * 1e3
        );
    }
}

fn criterion_pass(c: &mut Criterion, solver: &mut Solver) {
    let mut group = c.benchmark_group("solver_7x6");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    for discs in [16, 12] {
        for (i, (_, pos)) in positions(discs, POSITIONS_PER_BUCKET).iter().enumerate() {
            group.bench_with_input(BenchmarkId::new(format!("{discs}_discs"), i), pos, |b, pos| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        solver.reset(); // not timed: clearing the table is no search
                        let t = Instant::now();
                        black_box(solver.solve(black_box(pos)));
                        total += t.elapsed();
                    }
                    total
                })
            });
        }
    }
    group.finish();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // `cargo test --benches` runs benches with `--test`: only check that they work.
    let quick = args.iter().any(|a| a == "--test" || a == "--list");
    let mut solver = match std::env::var("SOLVER_BENCH_TT_BITS") {
        Ok(bits) => Solver::with_tt_bits(bits.parse().expect("SOLVER_BENCH_TT_BITS: a number")),
        Err(_) => Solver::new(),
    };
    // Fault the table's pages in once (it is allocated lazily), so the first timed solve
    // does not pay for them.
    solver.solve(&positions(16, 1)[0].1);
    solver.reset();
    if !quick {
        let buckets: Vec<usize> = std::env::var("SOLVER_BENCH_BUCKETS")
            .ok()
            .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
            .unwrap_or_else(|| vec![16, 12, 8]);
        timing_pass(&mut solver, &buckets);
    }
    let mut c = Criterion::default().configure_from_args();
    criterion_pass(&mut c, &mut solver);
    c.final_summary();
}
