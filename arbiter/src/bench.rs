//! How fast the searches and the game engines run without a network (`dojo bench
//! search`): random playouts/s from the start position (the engines' raw speed: rules, move
//! generation, chance events), the `mcts:N` baseline's rollouts/s (built as matches build
//! it, so with the rollout policy matches use: seed 001's heuristic on Connect Four; seed
//! 004's random rollouts on 2048/2584) as a tree and, for two-player games, as a graph
//! (`mcts:N:graph`, how `mcts:3s` searches), and PUCT simulations/s with a free evaluator (every
//! position even, every move equally likely), so only the search's own work counts: the
//! graph search for two-player games, the chance-node search for one-player games; and the
//! graph search's simulations/s in Gumbel mode (`search.mode = "gumbel"`, two-player games).

use crate::players::{BaselinePlayers, MctsSpec, PlayerError, PlayerSpec};
use dojo_base::rng::Rng;
use dojo_game::with_game;
use dojo_game::{Action, AnyGame, Game, GameSpec, ToMove};
use dojo_search::chance::{ChanceConfig, ChanceSearch};
use dojo_search::config::{SearchConfig, SearchMode};
use dojo_search::evaluator::UniformEvaluator;
use dojo_search::puct::Search;
use dojo_search::step::LeafSearch;
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use serde::Serialize;
use std::fmt;
use std::time::{Duration, Instant};

#[derive(Serialize)]
pub struct SearchRow {
    pub game: String,
    pub random_playouts_per_s: f64,
    /// Player moves per second inside those playouts.
    pub random_moves_per_s: f64,
    /// Rollouts (MCTS iterations) per second of the `mcts:N` baseline.
    pub mcts_rollouts_per_s: Option<f64>,
    /// Rollouts per second of `mcts:N:graph` (two-player games; none for one-player games).
    pub mcts_graph_rollouts_per_s: Option<f64>,
    /// PUCT simulations per second with the free evaluator (chance nodes for one-player games).
    pub puct_sims_per_s: Option<f64>,
    /// Simulations per second in Gumbel mode (the chance-node search for one-player games).
    pub gumbel_sims_per_s: Option<f64>,
}

/// Measures `start` (a position of `spec`) for `budget` each: searches of `sims` playouts
/// and `mcts:sims` moves.
pub fn measure_search(start: &AnyGame, spec: &GameSpec, sims: u32, budget: Duration) -> Result<SearchRow, PlayerError> {
    with_game!(start.clone(), g => measure(g, spec, sims, budget))
}

/// The table's header line for `mcts:sims`.
pub fn search_header(sims: u32) -> String {
    format!(
        "{:<16} {:>16} {:>14} {:>22} {:>22} {:>18} {:>18}",
        "game",
        "random playouts/s",
        "moves/s",
        format!("mcts:{sims} rollouts/s"),
        "  graph rollouts/s",
        "PUCT sims/s",
        "Gumbel sims/s"
    )
}

impl fmt::Display for SearchRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opt = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.0}"));
        write!(
            f,
            "{:<16} {:>16.0} {:>14.0} {:>22} {:>22} {:>18} {:>18}",
            self.game,
            self.random_playouts_per_s,
            self.random_moves_per_s,
            opt(self.mcts_rollouts_per_s),
            opt(self.mcts_graph_rollouts_per_s),
            opt(self.puct_sims_per_s),
            opt(self.gumbel_sims_per_s)
        )
    }
}

fn measure<G: BaselinePlayers>(
    start: G,
    spec: &GameSpec,
    sims: u32,
    budget: Duration,
) -> Result<SearchRow, PlayerError> {
    let (playouts_per_s, moves_per_s) = random_playouts(&start, budget);
    // One-player games start with their tiles still to spawn: search from after them.
    let mut root = start.clone();
    let mut rng = Rng::seed_from_u64(7);
    while root.outcome().is_none() && root.to_move() == ToMove::Chance {
        root.sample_chance(&mut rng);
    }
    let mcts = mcts_rollouts(&root, sims, budget, false)?;
    let mcts_graph = if root.is_one_player() { None } else { Some(mcts_rollouts(&root, sims, budget, true)?) };
    let search_sims = |mode| {
        if root.is_one_player() {
            chance_sims(&root, sims, budget, mode)
        } else {
            graph_sims(&root, sims, budget, mode)
        }
    };
    let (puct, gumbel) = (search_sims(SearchMode::Puct), search_sims(SearchMode::Gumbel));
    Ok(SearchRow {
        game: spec.to_string(),
        random_playouts_per_s: playouts_per_s,
        random_moves_per_s: moves_per_s,
        mcts_rollouts_per_s: Some(mcts),
        mcts_graph_rollouts_per_s: mcts_graph,
        puct_sims_per_s: Some(puct),
        gumbel_sims_per_s: Some(gumbel),
    })
}

/// Uniformly random games from `start` to their end (chance events drawn by the game):
/// playouts/s and player moves/s.
fn random_playouts<G: Game>(start: &G, budget: Duration) -> (f64, f64) {
    let mut rng = Rng::seed_from_u64(1);
    let mut legal: Vec<Action> = Vec::new();
    let (mut playouts, mut moves) = (0u64, 0u64);
    let t0 = Instant::now();
    while playouts < 3 || t0.elapsed() < budget {
        let mut g = start.clone();
        while g.outcome().is_none() {
            if g.to_move() == ToMove::Chance {
                g.sample_chance(&mut rng);
                continue;
            }
            g.legal_actions(&mut legal);
            if legal.is_empty() {
                break;
            }
            g.play_unchecked(*legal.choose(&mut rng).expect("a legal move"));
            moves += 1;
        }
        playouts += 1;
    }
    let secs = t0.elapsed().as_secs_f64();
    (playouts as f64 / secs, moves as f64 / secs)
}

/// The `mcts:sims` baseline (`mcts:sims:graph` with `graph`) choosing its first move, again
/// and again: rollouts/s.
fn mcts_rollouts<G: BaselinePlayers>(start: &G, sims: u32, budget: Duration, graph: bool) -> Result<f64, PlayerError> {
    let spec = PlayerSpec::Mcts(MctsSpec { graph, ..MctsSpec::rollouts(sims) });
    let mut agent = G::baseline(&spec, 1)?;
    let (mut searches, t0) = (0u64, Instant::now());
    while searches < 2 || t0.elapsed() < budget {
        agent.new_game(searches);
        std::hint::black_box(agent.select_move(start));
        searches += 1;
    }
    Ok(searches as f64 * f64::from(sims) / t0.elapsed().as_secs_f64())
}

/// Graph searches (`mode`: PUCT or Gumbel) of `sims` playouts from `start` with the free
/// evaluator, each from a cleared graph: simulations/s (tactics lookahead included, as
/// self-play runs it).
fn graph_sims<G: Game>(start: &G, sims: u32, budget: Duration, mode: SearchMode) -> f64 {
    let config = SearchConfig { simulations: sims, mode, ..SearchConfig::default() };
    let mut search = Search::new(config, false, Rng::seed_from_u64(1));
    let (mut playouts, mut searches, t0) = (0u64, 0u64, Instant::now());
    while searches < 2 || t0.elapsed() < budget {
        search.clear();
        search.set_root(start);
        search.search_with(&mut UniformEvaluator, sims);
        playouts += u64::from(search.playouts());
        searches += 1;
    }
    playouts as f64 / t0.elapsed().as_secs_f64()
}

/// Chance-node searches of `sims` playouts from `start` in `mode` with the free evaluator:
/// simulations/s (input planes encoded, as for a network).
fn chance_sims<G: Game>(start: &G, sims: u32, budget: Duration, mode: SearchMode) -> f64 {
    let config = SearchConfig { simulations: sims, mode, ..SearchConfig::default() };
    let mut search = ChanceSearch::new(config, ChanceConfig::default(), false, Rng::seed_from_u64(1));
    let (mut playouts, mut searches, t0) = (0u64, 0u64, Instant::now());
    while searches < 2 || t0.elapsed() < budget {
        search.set_root(start);
        search.search_with(&mut UniformEvaluator, sims);
        playouts += u64::from(search.playouts());
        searches += 1;
    }
    playouts as f64 / t0.elapsed().as_secs_f64()
}
