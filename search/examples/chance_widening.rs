//! Which outcomes should the chance-node search expand? Plays 2048 games with the
//! chance-node search at a fixed budget, its leaves valued by one random rollout each (a
//! free, noisy evaluator with real signal), under several widening settings, and prints
//! the mean score of each with a 95% interval.
//!
//! `cargo run --release -p dojo-search --example chance_widening -- [GAMES] [SIMS]`

use dojo_base::rng::Rng;
use dojo_game::sliding::Twenty48;
use dojo_game::Chance;
use dojo_game::{Action, Game, ToMove};
use dojo_search::chance::{ChanceConfig, ChanceSearch};
use dojo_search::config::SearchConfig;
use dojo_search::step::LeafSearch;
use rand::seq::IndexedRandom;
use rand::SeedableRng;

/// The points a uniformly random playout from `game` scores.
fn rollout(game: &Twenty48, rng: &mut Rng, legal: &mut Vec<Action>) -> f64 {
    let mut g = *game;
    let mut points = 0u64;
    while g.outcome().is_none() {
        if g.to_move() == ToMove::Chance {
            g.sample_chance(rng);
            continue;
        }
        g.legal_actions(legal);
        let Some(&a) = legal.choose(rng) else { break };
        points += u64::from(g.play_unchecked(a));
    }
    points as f64
}

fn play(widening: (f32, f32), sims: u32, seed: u64) -> u64 {
    let chance = ChanceConfig { widening_c: widening.0, widening_alpha: widening.1, ..ChanceConfig::default() };
    let config = SearchConfig { c_puct: 1.25, fpu_reduction: 0.0, ..SearchConfig::default() };
    let mut search = ChanceSearch::new(config, chance, false, Rng::seed_from_u64(seed));
    let mut rng = Rng::seed_from_u64(seed ^ 0x5eed);
    let mut legal = Vec::new();
    let mut g = Twenty48::new();
    let mut score = 0u64;
    while g.outcome().is_none() {
        if g.to_move() == ToMove::Chance {
            g.sample_chance(&mut rng);
            continue;
        }
        search.set_root(&g);
        let scale = chance.scale;
        let evaluate = |leaf: &Twenty48, logits: &mut [f32]| {
            logits.fill(0.0);
            scale.to_value(rollout(leaf, &mut rng, &mut legal))
        };
        search.search_by(sims, evaluate, |_| true);
        let a = search.choose_move(0.0);
        score += u64::from(g.play_unchecked(a));
    }
    score
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(40);
    let sims: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100);
    println!("2048, {games} games a setting, {sims} playouts a move, leaves valued by one random rollout");
    for (name, w) in [
        ("every outcome at once (c = inf)", (f32::INFINITY, 0.5)),
        ("widening c = 1, alpha = 0.5", (1.0, 0.5)),
        ("widening c = 2, alpha = 0.5", (2.0, 0.5)),
        ("one outcome per after-state (c = 1, alpha = 0)", (1.0, 0.0)),
    ] {
        let t = std::time::Instant::now();
        let scores: Vec<f64> = (0..games).map(|i| play(w, sims, 1000 + i) as f64).collect();
        let n = scores.len() as f64;
        let mean = scores.iter().sum::<f64>() / n;
        let sd = (scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        println!(
            "{name:<48} mean {mean:>8.0} ± {:>6.0} (95%), max {:>6.0}, {:.1} s",
            1.96 * sd / n.sqrt(),
            scores.iter().cloned().fold(0.0, f64::max),
            t.elapsed().as_secs_f64()
        );
    }
}
