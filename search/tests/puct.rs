//! Invariants of the network-guided PUCT graph search, on Connect Four.

use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_game::tactics::Lookahead;
use dojo_game::tactics::Tactics;
use dojo_game::{Action, Game};
use dojo_search::config::{ForcedVisits, SearchConfig, SelfPlayConfig};
use dojo_search::evaluator::{Evaluator, UniformEvaluator};
use dojo_search::puct::{Proven, Search};
use dojo_search::selfplay::SelfPlayEngine;
use dojo_search::step::LeafSearch;
use rand::SeedableRng;
use std::collections::HashMap;

fn position(moves: &str) -> Connect4 {
    let mut g = Connect4::<u64>::standard();
    for a in g.moves_from_text(moves).unwrap() {
        g.play(a).unwrap();
    }
    g
}

fn quiet(sims: u32) -> SearchConfig {
    SearchConfig { simulations: sims, ..SearchConfig::default() }
}

/// Without the one-ply lookahead: the MCTS-Solver proofs alone.
fn no_tactics(sims: u32) -> SearchConfig {
    SearchConfig { tactics: false, ..quiet(sims) }
}

/// A network that is sure `action` is the worst move, and calls every position even.
struct Against(Action);

impl Evaluator for Against {
    fn evaluate(&mut self, _planes: &[f32], _batch: usize, policy: &mut [f32], value: &mut [f32]) {
        for row in policy.chunks_mut(7) {
            row.fill(0.0);
            row[self.0 as usize] = -30.0;
        }
        value.fill(0.0);
    }
    fn describe(&self) -> String {
        format!("against {}", self.0)
    }
}

/// Logits that prefer low columns strongly, and counts evaluations per position.
#[derive(Default)]
struct Skewed {
    seen: HashMap<Vec<u32>, u32>,
}

impl Evaluator for Skewed {
    fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
        let len = planes.len() / batch;
        for b in 0..batch {
            let key: Vec<u32> = planes[b * len..(b + 1) * len].iter().map(|x| x.to_bits()).collect();
            *self.seen.entry(key).or_default() += 1;
        }
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

fn softmax_legal(game: &Connect4) -> Vec<(Action, f32)> {
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    let z: f32 = legal.iter().map(|&a| (-(a as f32)).exp()).sum();
    legal.iter().map(|&a| (a, (-(a as f32)).exp() / z)).collect()
}

#[test]
fn root_edge_visits_sum_to_playouts_minus_the_root_expansion() {
    let game = position("4453");
    let mut s = Search::new(quiet(500), false, Rng::seed_from_u64(1));
    s.set_root(&game);
    s.search_with(&mut UniformEvaluator, 500);
    let total: u32 = s.root_children().iter().map(|c| c.visits).sum();
    assert_eq!(s.playouts(), 500);
    assert_eq!(total, 499);
}

#[test]
fn finds_and_proves_a_win_in_one() {
    // First player has three on the bottom row (columns 1-3); column 4 wins.
    let game = position("172737");
    let mut s = Search::new(no_tactics(100), false, Rng::seed_from_u64(2));
    s.set_root(&game);
    s.search_with(&mut UniformEvaluator, 100);
    assert_eq!(s.root_value().1, Proven::Win);
    assert_eq!(s.choose_move(0.0), 3);
    // The proof ends the search early.
    assert!(s.playouts() < 100, "{}", s.playouts());
}

#[test]
fn proves_a_win_in_two_and_blocks_a_loss_in_one() {
    // X on columns 3 and 4 of the bottom row, O stacked on them: X plays 5 (or 2) for an
    // open three, which wins next move whatever O does.
    let game = position("3344");
    let mut s = Search::new(no_tactics(3000), false, Rng::seed_from_u64(3));
    s.set_root(&game);
    s.search_with(&mut UniformEvaluator, 3000);
    assert_eq!(s.root_value().1, Proven::Win, "{:?}", s.root_children());
    let mv = s.choose_move(0.0);
    assert!(mv == 1 || mv == 4, "played column {}", mv + 1);

    // O to move must block X's immediate threat on column 4 (X has 1, 2, 3 on the bottom).
    let game = position("11223");
    let mut s = Search::new(no_tactics(400), false, Rng::seed_from_u64(4));
    s.set_root(&game);
    s.search_with(&mut UniformEvaluator, 400);
    assert_eq!(s.choose_move(0.0), 3);
}

#[test]
fn lookahead_takes_a_win_the_network_rates_worst_in_one_playout() {
    let game = position("172737");
    let mut s = Search::new(quiet(200), true, Rng::seed_from_u64(2));
    s.set_root(&game);
    s.search_with(&mut Against(3), 200);
    assert_eq!(s.root_value(), (1.0, Proven::Win));
    assert_eq!(s.playouts(), 1, "the root's own expansion proves it");
    assert_eq!(s.policy_target(), vec![(3, 1.0)]);
    assert_eq!(s.choose_move(1.0), 3);

    // Without the lookahead the first playout proves nothing.
    let mut s = Search::new(no_tactics(1), false, Rng::seed_from_u64(2));
    s.set_root(&game);
    s.search_with(&mut Against(3), 1);
    assert_eq!(s.root_value().1, Proven::Unknown);
}

#[test]
fn lookahead_searches_only_the_block_and_never_a_move_that_allows_a_win() {
    // O to move must block X's 1 2 3 at column 4, which the network rates worst.
    let game = position("11223");
    let mut s = Search::new(quiet(50), false, Rng::seed_from_u64(4));
    s.set_root(&game);
    s.search_with(&mut Against(3), 50);
    let children = s.root_children();
    assert_eq!(children.iter().map(|c| c.action).collect::<Vec<_>>(), vec![3]);
    assert_eq!(s.choose_move(0.0), 3);

    // O has 2 3 4 on the second row: X's moves in columns 1 and 5 would let O win there.
    // The network likes column 1 best; the search never plays or even expands it.
    let game = position("23427374");
    let mut eval = Skewed::default();
    let mut s = Search::new(quiet(300), false, Rng::seed_from_u64(4));
    s.set_root(&game);
    s.search_with(&mut eval, 300);
    let children = s.root_children();
    assert_eq!(children.iter().map(|c| c.action).collect::<Vec<_>>(), vec![1, 2, 3, 5, 6]);
    assert!((children.iter().map(|c| c.prior).sum::<f32>() - 1.0).abs() < 1e-5, "{children:?}");
    assert_ne!(s.choose_move(0.0), 0);
}

#[test]
fn two_step_kill_is_proven_and_its_defences_are_all_that_is_searched() {
    // X has 2 3 on the bottom row: 4 leaves O two threats to block. The network rates 4
    // worst; the root's own expansion proves it a win all the same.
    let game = position("2737");
    let mut s = Search::new(quiet(200), true, Rng::seed_from_u64(6));
    s.set_root(&game);
    s.search_with(&mut Against(3), 200);
    assert_eq!(s.root_value(), (1.0, Proven::Win));
    assert_eq!(s.playouts(), 1);
    assert_eq!(s.policy_target(), vec![(3, 1.0)]);
    assert_eq!(s.root_children()[0].proven, Proven::Win);
    assert_eq!(s.choose_move(1.0), 3);
    // One ply of lookahead does not prove it on the root's own expansion.
    let mut s = Search::new(SearchConfig { two_step_kills: false, ..quiet(1) }, false, Rng::seed_from_u64(6));
    s.set_root(&game);
    s.search_with(&mut Against(3), 1);
    assert_eq!(s.root_value().1, Proven::Unknown);

    // O to move against it: only columns 1, 4 and 5 stop the open three.
    let game = position("273");
    let mut s = Search::new(quiet(300), false, Rng::seed_from_u64(6));
    s.set_root(&game);
    s.search_with(&mut Skewed::default(), 300);
    assert_eq!(s.root_children().iter().map(|c| c.action).collect::<Vec<_>>(), vec![0, 3, 4]);
    assert!([0, 3, 4].contains(&s.choose_move(0.0)));
}

/// The first position of seeded random games where every move that does not lose at once
/// allows a two-step kill.
fn lost_in_two_steps() -> Connect4 {
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for seed in 0.. {
        let mut rng = Rng::seed_from_u64(seed);
        let mut g = Connect4::<u64>::standard();
        while g.outcome().is_none() {
            if g.lookahead(&mut one) == Lookahead::Moves && g.two_step_lookahead(&mut two) == Lookahead::Lost {
                assert_eq!(one, two, "a position lost in two steps lists its one-ply safe moves");
                return g;
            }
            g.play(g.random_move(&mut rng)).unwrap();
        }
    }
    unreachable!()
}

#[test]
fn a_root_lost_in_two_steps_still_plays_and_teaches_only_moves_that_do_not_lose_at_once() {
    let game = lost_in_two_steps();
    let mut one_ply = Vec::new();
    assert_eq!(game.lookahead(&mut one_ply), Lookahead::Moves);
    let mut s = Search::new(quiet(100), true, Rng::seed_from_u64(7));
    s.set_root(&game);
    s.search_with(&mut Skewed::default(), 100);
    assert_eq!(s.root_value(), (-1.0, Proven::Loss));
    let actions: Vec<Action> = s.root_children().iter().map(|c| c.action).collect();
    assert_eq!(actions, one_ply, "the moves that do not lose at once, and only those");
    let target = s.policy_target();
    assert!((target.iter().map(|t| t.1).sum::<f32>() - 1.0).abs() < 1e-5, "{target:?}");
    // The target is the network's prior over them: Skewed likes low columns best.
    assert!(target.windows(2).all(|w| w[0].1 >= w[1].1), "{target:?}");
    assert!(one_ply.contains(&s.choose_move(0.0)));
}

#[test]
fn lookahead_proves_a_double_threat_lost_at_once() {
    // X has 2 3 4 on the bottom row with both ends open: O is lost.
    let game = position("27374");
    let mut s = Search::new(quiet(200), true, Rng::seed_from_u64(5));
    s.set_root(&game);
    s.search_with(&mut UniformEvaluator, 200);
    assert_eq!(s.root_value(), (-1.0, Proven::Loss));
    assert_eq!(s.playouts(), 1);
    // Something must still be played, and the target is a distribution over legal moves.
    assert_eq!(s.root_children().len(), 7);
    let target = s.policy_target();
    assert!((target.iter().map(|t| t.1).sum::<f32>() - 1.0).abs() < 1e-5, "{target:?}");
    assert!(game.is_legal(s.choose_move(0.0)));
}

#[test]
fn transpositions_share_one_node_and_one_evaluation() {
    let game = position("44");
    let mut eval = Skewed::default();
    let mut s = Search::new(quiet(3000), false, Rng::seed_from_u64(5));
    s.set_root(&game);
    s.search_with(&mut eval, 3000);
    assert!(s.shared_nodes() > 10, "only {} shared nodes", s.shared_nodes());
    let repeated = eval.seen.values().filter(|&&n| n > 1).count();
    assert_eq!(repeated, 0, "a position was evaluated twice");
}

#[test]
fn noise_is_only_at_the_root_and_only_in_self_play() {
    let game = position("");
    let config = SearchConfig { simulations: 200, dirichlet_epsilon: 0.25, ..SearchConfig::default() };
    let mut s = Search::new(config.clone(), true, Rng::seed_from_u64(6));
    s.set_root(&game);
    s.search_with(&mut Skewed::default(), 200);
    let clean = softmax_legal(&game);
    let root = s.priors_at(&game).unwrap();
    let diff: f32 = root.iter().zip(&clean).map(|(a, b)| (a.1 - b.1).abs()).sum();
    assert!(diff > 0.01, "root priors carry no noise: {root:?}");
    assert!((root.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-4);
    // A child node keeps the network's priors exactly.
    let child = position("1");
    let priors = s.priors_at(&child).expect("column 1 was searched");
    for (a, b) in priors.iter().zip(softmax_legal(&child)) {
        assert_eq!(a.0, b.0);
        assert!((a.1 - b.1).abs() < 1e-6, "{priors:?}");
    }
    // Outside self-play the root is clean too.
    let mut s = Search::new(config, false, Rng::seed_from_u64(6));
    s.set_root(&game);
    s.search_with(&mut Skewed::default(), 50);
    for (a, b) in s.priors_at(&game).unwrap().iter().zip(&clean) {
        assert!((a.1 - b.1).abs() < 1e-6);
    }
}

#[test]
fn forced_visits_are_honoured_and_pruned_from_the_target() {
    let game = position("");
    let config = SearchConfig {
        simulations: 300,
        dirichlet_epsilon: 0.0,
        forced_visits: ForcedVisits::Min(2),
        prune_forced: true,
        ..SearchConfig::default()
    };
    let mut s = Search::new(config, true, Rng::seed_from_u64(7));
    s.set_root(&game);
    s.search_with(&mut Skewed::default(), 300);
    let children = s.root_children();
    assert!(children.iter().all(|c| c.visits >= 2), "{children:?}");
    let total: u32 = children.iter().map(|c| c.visits).sum();
    let target = s.policy_target();
    assert!((target.iter().map(|t| t.1).sum::<f32>() - 1.0).abs() < 1e-5);
    // Column 7 has the lowest prior: its forced visits are removed from the target.
    let last = children.iter().find(|c| c.action == 6).unwrap();
    let share = target.iter().find(|t| t.0 == 6).unwrap().1;
    assert!(share < last.visits as f32 / total as f32, "{share} vs {}/{total}", last.visits);
}

#[test]
fn tree_reuse_keeps_the_subtree_below_the_played_move() {
    let mut game = position("");
    let mut s = Search::new(quiet(400), false, Rng::seed_from_u64(8));
    s.set_root(&game);
    s.search_with(&mut UniformEvaluator, 400);
    let mv = s.choose_move(0.0);
    let child_visits = s.root_children().iter().find(|c| c.action == mv).unwrap().visits;
    game.play(mv).unwrap();
    s.advance(&game);
    let kept: u32 = s.root_children().iter().map(|c| c.visits).sum();
    assert!(kept + 1 >= child_visits, "kept {kept} of {child_visits}");
    assert!(kept > 0);
    assert_eq!(s.playouts(), 0);
}

/// A self-play engine of standard Connect Four games.
fn c4_engine(search: SearchConfig, play: SelfPlayConfig, seed: u64, games: u64) -> SelfPlayEngine<Connect4> {
    SelfPlayEngine::new(
        search,
        play,
        Box::new(|_: &mut Rng| Connect4::<u64>::standard()),
        Rng::seed_from_u64(seed),
        Some(games),
    )
    .unwrap()
}

#[test]
fn self_play_engine_writes_valid_records() {
    let search = SearchConfig { simulations: 30, ..SearchConfig::default() };
    let play = SelfPlayConfig {
        parallel_games: 3,
        temperature_moves: 4,
        full_search_fraction: 1.0,
        random_opening_plies: 0,
        ..SelfPlayConfig::default()
    };
    let mut engine = c4_engine(search, play, 9, 5);
    let records = engine.play_games(&mut UniformEvaluator, |_| {});
    assert_eq!(records.len(), 5);
    assert_eq!(engine.stats.games, 5);
    let mut ids = std::collections::HashSet::new();
    for r in &records {
        r.validate().unwrap();
        assert!(ids.insert(r.game_id));
        assert!(r.moves.iter().all(|m| (m.policy.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-4));
    }
    assert_eq!(engine.stats.moves as usize, records.iter().map(|r| r.moves.len()).sum::<usize>());
    // Batches were shared between games.
    assert!(engine.stats.evals > engine.stats.batches, "{:?}", engine.stats);
}

#[test]
fn playout_cap_randomisation_trains_only_the_full_searches() {
    let search = SearchConfig { simulations: 40, ..SearchConfig::default() };
    let play = SelfPlayConfig {
        parallel_games: 4,
        full_search_fraction: 0.3,
        fast_simulations: 10,
        ..SelfPlayConfig::default()
    };
    let mut engine = c4_engine(search, play, 4, 12);
    let records = engine.play_games(&mut UniformEvaluator, |_| {});
    let (mut trained, mut total, mut spread) = (0, 0, 0);
    for r in &records {
        r.validate().unwrap();
        for m in &r.moves {
            total += 1;
            if m.train {
                trained += 1;
                assert!((m.policy.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-4);
                // A full search spreads 40 playouts over several moves, unless it proved a
                // win (or pruned every forced visit) and put them all on one.
                if m.policy.iter().all(|p| p.1 < 1.0) {
                    spread += 1;
                }
            } else {
                assert!(m.policy.is_empty());
            }
        }
        assert_eq!(r.training_moves(), r.moves.iter().filter(|m| m.train).count());
    }
    // 30% of some 250 moves: far from none and from all.
    assert!(total > 100, "{total}");
    let share = trained as f64 / total as f64;
    assert!((0.15..0.45).contains(&share), "{trained} of {total}");
    assert!(spread * 2 > trained, "only {spread} of {trained} full searches spread their playouts");
    // Every move searched 40 would make more playouts than fast ones allow.
    let full_only = SelfPlayConfig {
        parallel_games: 4,
        full_search_fraction: 1.0,
        random_opening_plies: 0,
        ..SelfPlayConfig::default()
    };
    let search = SearchConfig { simulations: 40, ..SearchConfig::default() };
    let mut engine = c4_engine(search, full_only, 4, 12);
    let records = engine.play_games(&mut UniformEvaluator, |_| {});
    assert!(records.iter().all(|r| r.moves.iter().all(|m| m.train)));
}

#[test]
fn games_open_with_up_to_n_random_untrained_moves() {
    let search = SearchConfig { simulations: 8, ..SearchConfig::default() };
    let play = SelfPlayConfig {
        parallel_games: 8,
        full_search_fraction: 1.0,
        random_opening_plies: 3,
        ..SelfPlayConfig::default()
    };
    let mut engine = c4_engine(search, play.clone(), 21, 80);
    let records = engine.play_games(&mut UniformEvaluator, |_| {});
    let mut seen = [0usize; 4];
    let mut openings = std::collections::HashSet::new();
    for r in &records {
        r.validate().unwrap();
        // Every searched move is a full search here, so the untrained prefix is the random
        // opening.
        let random = r.moves.iter().take_while(|m| !m.train).count();
        assert!(random <= 3, "{random} random plies");
        assert!(r.moves[random..].iter().all(|m| m.train));
        seen[random] += 1;
        openings.insert(r.moves[..random].iter().map(|m| m.action).collect::<Vec<_>>());
    }
    assert!(seen.iter().all(|&n| n >= 8), "opening lengths 0..=3 drawn {seen:?} times of 80");
    assert!(openings.len() > 30, "only {} different openings", openings.len());
    assert_eq!(engine.stats.moves as usize, records.iter().map(|r| r.moves.len()).sum::<usize>());

    let off = SelfPlayConfig { random_opening_plies: 0, ..play };
    let mut engine = c4_engine(SearchConfig { simulations: 8, ..SearchConfig::default() }, off, 21, 10);
    let records = engine.play_games(&mut UniformEvaluator, |_| {});
    assert!(records.iter().all(|r| r.moves.iter().all(|m| m.train)));
}

/// How often `net` evaluated the empty Connect Four board.
fn empty_board_evals(net: &Skewed) -> u32 {
    let g = Connect4::<u64>::standard();
    let mut planes = vec![0.0; g.plane_shape().len()];
    g.encode_planes(&mut planes);
    net.seen.get(&planes.iter().map(|x| x.to_bits()).collect::<Vec<u32>>()).copied().unwrap_or(0)
}

#[test]
fn the_engine_sends_each_position_to_the_network_once_per_model() {
    // Sixteen games from the same start, eight at a time, explore the same openings: each
    // position goes to the network once, however many games reach it, in one batch or in
    // different ones.
    let search = SearchConfig { simulations: 30, ..SearchConfig::default() };
    // Every game starts from the empty board.
    let play = SelfPlayConfig { parallel_games: 8, random_opening_plies: 0, ..SelfPlayConfig::default() };
    let mut engine = c4_engine(search.clone(), play.clone(), 2, 16);
    let mut net = Skewed::default();
    let mut finished = Vec::new();
    // All eight games start by asking for the empty board: one row of the first batch.
    assert!(engine.step(&mut net, &mut finished));
    assert_eq!((net.seen.len(), empty_board_evals(&net), engine.stats.evals), (1, 1, 1));
    while engine.step(&mut net, &mut finished) {}
    assert_eq!(finished.len(), 16);
    assert!(engine.stats.cache_hits > 0);
    assert!(net.seen.values().all(|&n| n == 1), "a position was evaluated twice");
    assert_eq!(engine.stats.evals, net.seen.len() as u64);

    // One game at a time: the second game's empty board comes from the cache, unless a new
    // model arrived in between.
    let one = SelfPlayConfig { parallel_games: 1, ..play };
    for (switch, want) in [(false, 1), (true, 2)] {
        let mut engine = c4_engine(search.clone(), one.clone(), 3, 2);
        let mut net = Skewed::default();
        engine.step(&mut net, &mut finished);
        if switch {
            engine.set_model_version(7);
        }
        while engine.step(&mut net, &mut finished) {}
        assert_eq!(empty_board_evals(&net), want, "new model: {switch}");
    }
}

/// `search.rollouts`: an expanded position's value is the network's mixed with that many
/// rollouts from the search's own stream (restarted with the graph), in the weight asked
/// for; positions the lookahead decides, and searches without rollouts, keep their value.
#[test]
fn rollouts_mix_into_the_value_of_each_expanded_position() {
    let game = position("4453");
    let expanded_value = |rollouts: u32, weight: f32| {
        let config = SearchConfig { rollouts, rollout_weight: weight, ..SearchConfig::for_play(1) };
        let mut search: Search<Connect4> = Search::new(config, false, Rng::seed_from_u64(1));
        search.set_root(&game);
        assert!(search.run(1) == dojo_search::step::Step::NeedsEval);
        search.deliver(&[0.0; 7], 0.25);
        search.root_value().0
    };
    // The same rollouts, drawn here from the stream's start.
    let mut state = dojo_search::puct::ROLLOUT_SEED;
    let results: Vec<f32> = (0..4).map(|_| game.rollout(&mut state)).collect();
    assert_ne!(state, dojo_search::puct::ROLLOUT_SEED, "the rollouts drew random moves");
    let mean = results.iter().sum::<f32>() / 4.0;
    assert_eq!(expanded_value(4, 0.5), 0.5 * 0.25 + 0.5 * results.iter().sum::<f32>() / 4.0);
    assert_eq!(expanded_value(4, 1.0), mean);
    assert_eq!(expanded_value(0, 0.5), 0.25, "no rollouts: the network's value");
    assert_eq!(expanded_value(4, 0.0), 0.25, "weight 0: the network's value");

    // A position the lookahead wins outright is proven, not rolled out.
    let config = SearchConfig { rollouts: 4, rollout_weight: 1.0, ..SearchConfig::for_play(1) };
    let mut search: Search<Connect4> = Search::new(config, false, Rng::seed_from_u64(1));
    search.set_root(&position("112233"));
    assert!(search.run(1) == dojo_search::step::Step::NeedsEval);
    search.deliver(&[0.0; 7], 0.25);
    assert_eq!(search.root_value(), (1.0, Proven::Win));
}
