//! The graph search in Gumbel mode (`search.mode = "gumbel"`), on Connect Four.

use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_game::{Action, Game};
use dojo_search::config::{SearchConfig, SearchMode, SelfPlayConfig};
use dojo_search::evaluator::{Evaluator, UniformEvaluator};
use dojo_search::gumbel::{improved_policy, sigma, ChildView};
use dojo_search::puct::{Proven, Search};
use dojo_search::selfplay::SelfPlayEngine;
use dojo_search::step::LeafSearch;
use rand::SeedableRng;

fn position(moves: &str) -> Connect4 {
    let mut g = Connect4::<u64>::standard();
    for a in g.moves_from_text(moves).unwrap() {
        g.play(a).unwrap();
    }
    g
}

fn gumbel(sims: u32, considered: u32) -> SearchConfig {
    SearchConfig {
        simulations: sims,
        mode: SearchMode::Gumbel,
        gumbel_considered: considered,
        ..SearchConfig::default()
    }
}

/// Logits that prefer low columns strongly; every position even.
struct Skewed;

impl Evaluator for Skewed {
    fn evaluate(&mut self, _planes: &[f32], _batch: usize, policy: &mut [f32], value: &mut [f32]) {
        for row in policy.chunks_mut(7) {
            for (a, p) in row.iter_mut().enumerate() {
                *p = -(a as f32);
            }
        }
        value.fill(0.0);
    }
    fn describe(&self) -> String {
        "skewed".into()
    }
}

fn searched(
    config: SearchConfig,
    self_play: bool,
    seed: u64,
    game: &Connect4,
    eval: &mut dyn Evaluator,
) -> Search<Connect4> {
    let sims = config.simulations;
    let mut s = Search::new(config, self_play, Rng::seed_from_u64(seed));
    s.set_root(game);
    s.search_with(eval, sims);
    s
}

#[test]
fn sequential_halving_spends_exactly_the_budget_as_scheduled() {
    // (m, budget, root visits from most to least): 7 legal moves, so m = 16 considers 7;
    // budgets below m, equal to it, not a power of two, and large.
    let cases: [(u32, u32, [u32; 7]); 10] = [
        (16, 1, [1, 0, 0, 0, 0, 0, 0]),
        (16, 5, [1, 1, 1, 1, 1, 0, 0]),
        (16, 7, [1, 1, 1, 1, 1, 1, 1]),
        (16, 16, [5, 5, 2, 1, 1, 1, 1]),
        (16, 50, [18, 17, 7, 2, 2, 2, 2]),
        (16, 200, [67, 66, 31, 9, 9, 9, 9]),
        (4, 16, [6, 6, 2, 2, 0, 0, 0]),
        (4, 31, [13, 12, 3, 3, 0, 0, 0]),
        (2, 10, [5, 5, 0, 0, 0, 0, 0]),
        (1, 6, [6, 0, 0, 0, 0, 0, 0]),
    ];
    let game = position("");
    for (self_play, seed) in [(false, 1), (true, 2)] {
        for (m, budget, spread) in cases {
            let s = searched(gumbel(budget, m), self_play, seed, &game, &mut Skewed);
            let mut visits: Vec<u32> = s.root_children().iter().map(|c| c.visits).collect();
            visits.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(visits, spread, "m={m} budget={budget} self_play={self_play}");
            // The budget is simulations through the root's moves; the root's own evaluation
            // comes on top.
            assert_eq!(s.playouts(), budget + 1, "m={m} budget={budget}");
        }
    }
}

#[test]
fn play_without_noise_takes_the_top_logits_and_is_deterministic() {
    // g = 0 outside self-play: with an even evaluator the halving keeps the network's
    // favourites (columns 1, 2, ...), whatever the seed.
    let game = position("");
    let a = searched(gumbel(16, 16), false, 1, &game, &mut Skewed);
    let b = searched(gumbel(16, 16), false, 99, &game, &mut Skewed);
    let visits = |s: &Search<Connect4>| s.root_children().iter().map(|c| c.visits).collect::<Vec<_>>();
    assert_eq!(visits(&a), vec![5, 5, 2, 1, 1, 1, 1]);
    assert_eq!(visits(&a), visits(&b));
    // Self-play's Gumbel noise samples other moves for some seeds.
    let moves: std::collections::HashSet<Action> =
        (0..20).map(|seed| searched(gumbel(16, 16), true, seed, &game, &mut Skewed).choose_move(0.0)).collect();
    assert!(moves.len() > 1, "{moves:?}");
}

#[test]
fn finds_a_forced_win_and_teaches_a_distribution_over_legal_moves() {
    // X on columns 3 and 4 of the bottom row, O stacked on them: X plays 2 or 5 for an open
    // three, which wins next move whatever O does. Without the lookahead the search must
    // prove it by itself.
    let game = position("3344");
    let config = SearchConfig { tactics: false, ..gumbel(400, 16) };
    for self_play in [false, true] {
        let mut s = searched(config.clone(), self_play, 3, &game, &mut UniformEvaluator);
        assert_eq!(s.root_value().1, Proven::Win, "{:?}", s.root_children());
        let target = s.policy_target();
        assert!((target.iter().map(|t| t.1).sum::<f32>() - 1.0).abs() < 1e-5, "{target:?}");
        // A proven root teaches the moves proven to win (2 and 5 are the only ones).
        for (action, p) in &target {
            assert!(game.is_legal(*action));
            assert!(*p == 0.0 || *action == 1 || *action == 4, "{target:?}");
        }
        let mv = s.choose_move(1.0);
        assert!(mv == 1 || mv == 4, "played column {}", mv + 1);
    }
    // With the default lookahead the root's own expansion proves it.
    let mut s = searched(gumbel(32, 16), true, 3, &game, &mut Skewed);
    assert_eq!(s.root_value(), (1.0, Proven::Win));
    assert!([1, 4].contains(&s.choose_move(0.0)));
}

#[test]
fn policy_target_is_the_improved_policy_over_every_legal_move() {
    let game = position("44");
    let s = searched(gumbel(24, 4), true, 5, &game, &mut Skewed);
    let children = s.root_children();
    assert_eq!(children.len(), 7);
    // Rebuild π' = softmax(logits + σ(completed Q)) from the root's statistics (the
    // evaluator values every position 0, the root's raw value).
    let views: Vec<ChildView> =
        children.iter().map(|c| ChildView { prior: c.prior, visits: c.visits, q: c.q.unwrap_or(0.0) }).collect();
    let (mut s_, mut pi) = (Vec::new(), Vec::new());
    sigma(0.0, &views, 50.0, 0.1, &mut s_);
    improved_policy(&views, &s_, &mut pi);
    let target = s.policy_target();
    assert!((target.iter().map(|t| t.1).sum::<f32>() - 1.0).abs() < 1e-5);
    for ((action, p), (c, want)) in target.iter().zip(children.iter().zip(&pi)) {
        assert_eq!(*action, c.action);
        assert!((p - want).abs() < 1e-6, "{target:?} vs {pi:?}");
        assert!(*p > 0.0, "every legal move keeps some mass: {target:?}");
    }
    // Not the visit shares: unvisited moves are taught too.
    assert!(children.iter().any(|c| c.visits == 0));
}

#[test]
fn gumbel_mode_has_no_dirichlet_noise() {
    let game = position("");
    let config = SearchConfig { dirichlet_epsilon: 0.25, ..gumbel(32, 16) };
    let s = searched(config, true, 6, &game, &mut Skewed);
    let z: f32 = (0..7).map(|a| (-(a as f32)).exp()).sum();
    for (a, p) in s.priors_at(&game).unwrap() {
        assert!((p - (-(a as f32)).exp() / z).abs() < 1e-6);
    }
}

#[test]
fn self_play_engine_runs_gumbel_games_with_improved_policy_targets() {
    let search = gumbel(16, 8);
    let play = SelfPlayConfig { parallel_games: 2, full_search_fraction: 1.0, ..SelfPlayConfig::default() };
    let mut engine = SelfPlayEngine::new(
        search,
        play,
        Box::new(|_: &mut Rng| Connect4::<u64>::standard()),
        Rng::seed_from_u64(4),
        Some(2),
    )
    .unwrap();
    let records = engine.play_games(&mut Skewed, |_| {});
    assert_eq!(records.len(), 2);
    let mut trained = 0;
    for r in &records {
        for m in r.moves.iter().filter(|m| !m.policy.is_empty()) {
            trained += 1;
            let sum: f32 = m.policy.iter().map(|t| t.1).sum();
            assert!((sum - 1.0).abs() < 1e-4, "{:?}", m.policy);
        }
    }
    assert!(trained > 10, "{trained} trained moves");
}
