//! Self-play of one-player games (2048, 2584): the chance-node search, spawns drawn and
//! recorded by the engine, and value targets scaled from the return still to come.

use dojo_base::rng::Rng;
use dojo_game::returns::ReturnScale;
use dojo_game::sliding::{Fib2584, SpawnOdds, Twenty48};
use dojo_game::Chance;
use dojo_game::{Game, ToMove};
use dojo_record::{GameRecord, RecordOutcome, SampleOptions, TrainingGame};
use dojo_search::config::{SearchConfig, SelfPlayConfig};
use dojo_search::evaluator::UniformEvaluator;
use dojo_search::selfplay::SelfPlayEngine;
use rand::SeedableRng;

fn play_config(parallel_games: usize) -> SelfPlayConfig {
    SelfPlayConfig { parallel_games, full_search_fraction: 0.5, fast_simulations: 4, ..SelfPlayConfig::default() }
}

fn engine<G: Game>(start: G, sims: u32, seed: u64, games: u64) -> SelfPlayEngine<G> {
    let search = SearchConfig { simulations: sims, ..SearchConfig::default() };
    SelfPlayEngine::new(
        search,
        play_config(3),
        Box::new(move |_: &mut Rng| start.clone()),
        Rng::seed_from_u64(seed),
        Some(games),
    )
    .unwrap()
}

/// Replays `r` from the empty board and returns the final position and the rewards of
/// its player moves, in order.
fn replay<G: Game>(r: &GameRecord, empty: G) -> (G, Vec<u64>) {
    let mut game = empty;
    let mut rewards = Vec::new();
    for m in &r.moves {
        if m.chance {
            assert_eq!(game.to_move(), ToMove::Chance);
            game.apply_chance(m.action).unwrap();
        } else {
            rewards.push(u64::from(game.play(m.action).unwrap()));
        }
    }
    (game, rewards)
}

#[test]
fn one_player_self_play_records_whole_games_with_their_spawns() {
    let mut e = engine(Twenty48::new(), 16, 3, 4);
    let records = e.play_games(&mut UniformEvaluator, |_| {});
    assert_eq!(records.len(), 4);
    let scale = SearchConfig::default().return_scale();
    for r in &records {
        r.validate().unwrap();
        // The two opening spawns come first, then a spawn after every move but a last one
        // that left no room.
        assert!(r.moves[0].chance && r.moves[1].chance && !r.moves[2].chance, "{:?}", &r.moves[..3]);
        let (end, rewards) = replay(r, Twenty48::new());
        let score = end.score();
        assert_eq!(r.outcome, RecordOutcome::Score(score));
        assert_eq!(rewards.iter().sum::<u64>(), score);
        assert!(end.outcome().is_some());
        for m in r.moves.iter().filter(|m| !m.chance && m.train) {
            assert!((m.policy.iter().map(|p| p.1).sum::<f32>() - 1.0).abs() < 1e-4);
            // A root value is a scaled return: within the head's range, below a game's worth.
            assert!((0.0..=scale.to_value(1e5)).contains(&m.root_value), "{}", m.root_value);
        }
        assert!(r.training_moves() > 0 && r.training_moves() < r.player_moves(), "playout caps: some moves fast");
    }
    assert_eq!(e.stats.games, 4);
    assert_eq!(e.stats.moves as usize, records.iter().map(|r| r.player_moves()).sum::<usize>());
}

#[test]
fn value_targets_are_the_scaled_return_still_to_come() {
    let mut e = engine(Twenty48::new(), 8, 11, 1);
    let record = e.play_games(&mut UniformEvaluator, |_| {}).remove(0);
    let (_, rewards) = replay(&record, Twenty48::new());
    // The return from each player move on, for the moves that are training targets.
    let trained: Vec<usize> =
        record.moves.iter().filter(|m| !m.chance).enumerate().filter(|(_, m)| m.train).map(|(i, _)| i).collect();
    let to_come = |i: usize| rewards[i..].iter().sum::<u64>() as f64;
    let scale = ReturnScale::new(50_000.0);
    let opts = SampleOptions { augment: false, return_scale: scale, ..SampleOptions::default() };
    let game = TrainingGame::new(record, Twenty48::new()).unwrap();
    assert_eq!(game.len(), trained.len());
    let mut rng = Rng::seed_from_u64(0);
    let values: Vec<f32> = game.samples(&mut rng, &opts).unwrap().iter().map(|s| s.value).collect();
    let expected: Vec<f32> = trained.iter().map(|&i| scale.to_value(to_come(i))).collect();
    assert_eq!(values, expected);
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "returns to come only shrink: {values:?}");
    assert!(values[0] > 0.0 && values[0] < 1.0);
}

#[test]
fn self_play_is_reproducible_from_its_seed_and_plays_2584() {
    let odds = SpawnOdds::new(2, 80).unwrap();
    let play = |seed| engine(Fib2584::new(odds), 8, seed, 2).play_games(&mut UniformEvaluator, |_| {});
    let (a, b) = (play(5), play(5));
    let strip = |rs: &[GameRecord]| rs.iter().map(|r| (r.moves.clone(), r.outcome)).collect::<Vec<_>>();
    assert_eq!(strip(&a), strip(&b));
    assert_ne!(strip(&a), strip(&play(6)));
    for r in &a {
        r.validate().unwrap();
        assert_eq!(r.spec.to_string(), "2584:1-2");
    }
}

#[test]
fn a_one_player_start_must_be_the_empty_board() {
    let mut dealt = Twenty48::new();
    dealt.sample_chance(&mut Rng::seed_from_u64(1));
    dealt.sample_chance(&mut Rng::seed_from_u64(2));
    let search = SearchConfig::default();
    let err =
        SelfPlayEngine::new(search, play_config(1), Box::new(move |_: &mut Rng| dealt), Rng::seed_from_u64(1), None)
            .err()
            .unwrap();
    assert_eq!(
        err.to_string(),
        "2048: one-player self-play starts from the empty board (the record's start), so that it records the opening spawns"
    );
}
