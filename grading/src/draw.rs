//! Drawing a labelled benchmark: positions from uniformly random play, each labelled by the
//! solver with the exact score of every column, kept until every Pons category the board
//! allows has its share. A position the solver cannot settle within the node budget is
//! skipped and counted (by stage: its category is what the solver could not tell).

use super::category::{Category, Stage, STAGES};
use super::labelled::Labelled;
use dojo_base::rng::Rng;
use dojo_game::connect4::solver::{Position, Solver};
use dojo_game::connect4::Connect4;
use dojo_game::Game;
use rand::seq::IndexedRandom;
use rand::SeedableRng;
use std::collections::{BTreeMap, HashSet};

/// What to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawSettings {
    /// Positions in all.
    pub count: usize,
    /// The most per category (None: `count` shared evenly among the board's categories).
    pub per_category: Option<usize>,
    /// Solver nodes per position (all its columns together).
    pub budget_nodes: u64,
    pub seed: u64,
    /// Give up after this many random games per position wanted (categories that random
    /// play rarely reaches stay short, and the report says so).
    pub attempts_per_position: usize,
    /// Give up once the solver has searched this many nodes in all (a bound on the time
    /// drawing takes; the short categories are reported).
    pub total_nodes: Option<u64>,
}

impl DrawSettings {
    pub fn new(count: usize, budget_nodes: u64, seed: u64) -> DrawSettings {
        DrawSettings { count, per_category: None, budget_nodes, seed, attempts_per_position: 200, total_nodes: None }
    }
}

/// The positions drawn, and what was left out on the way.
#[derive(Clone, Debug, Default)]
pub struct Drawn {
    pub positions: Vec<Labelled>,
    /// The categories of the board, and how many each may hold.
    pub categories: Vec<Category>,
    pub quota: usize,
    /// Positions the solver could not settle within the budget, by stage.
    pub unsettled: BTreeMap<Stage, u32>,
    /// Positions settled but left out because their category was full.
    pub surplus: u32,
    /// Random games played (including those ending before the disc count drawn, and
    /// repeats of positions already taken).
    pub attempts: u64,
    pub solver_nodes: u64,
}

impl Drawn {
    pub fn by_category(&self) -> BTreeMap<Category, usize> {
        let mut counts: BTreeMap<Category, usize> = self.categories.iter().map(|&c| (c, 0)).collect();
        for p in &self.positions {
            *counts.entry(p.category).or_default() += 1;
        }
        counts
    }

    pub fn unsettled_total(&self) -> u32 {
        self.unsettled.values().sum()
    }

    /// One line per category: kept of quota, and the stage's unsettled positions.
    pub fn summary(&self) -> String {
        let mut text = format!(
            "{} positions ({} per category at most); skipped {} the solver could not settle within the budget \
             ({}), {} beyond a full category; {} random games, {} solver nodes\n",
            self.positions.len(),
            self.quota,
            self.unsettled_total(),
            STAGES
                .iter()
                .map(|s| format!("{s:?} {}", self.unsettled.get(s).unwrap_or(&0)))
                .collect::<Vec<_>>()
                .join(", "),
            self.surplus,
            self.attempts,
            self.solver_nodes,
        );
        for (category, n) in self.by_category() {
            let short = if n < self.quota { " (short: the solver rarely settles these within the budget)" } else { "" };
            text.push_str(&format!("  {category}: {n}{short}\n"));
        }
        text
    }
}

/// Solver attempts by disc count, to stop drawing counts it never settles.
#[derive(Default)]
struct Tries {
    tried: BTreeMap<usize, (u32, u32)>,
}

impl Tries {
    /// Tries after which a disc count settled less than once in 20 is given up.
    const GIVE_UP: u32 = 6;

    fn record(&mut self, discs: usize, settled: bool) {
        let (tried, ok) = self.tried.entry(discs).or_default();
        *tried += 1;
        *ok += u32::from(settled);
    }

    fn hopeless(&self, discs: usize) -> bool {
        self.tried.get(&discs).is_some_and(|&(tried, ok)| tried >= Self::GIVE_UP && ok * 20 < tried)
    }
}

/// The exact score of each column of `game` within `budget_nodes` solver nodes, as a label;
/// None when the solver cannot settle it. `game` must fit the solver and be in progress.
pub fn label_position(solver: &mut Solver, game: &Connect4, moves: String, budget_nodes: u64) -> Option<Labelled> {
    let pos = Position::from_game(game);
    let scores = solver.analyze_with_budget(&pos, budget_nodes)?;
    Some(Labelled::new(game, moves, scores))
}

/// Draws labelled positions of `start`'s board (which must fit the solver) from random
/// play, reproducibly from the seed. `kept` sees each position as it is taken (progress).
pub fn draw_positions(start: &Connect4, settings: &DrawSettings, mut kept: impl FnMut(&Labelled)) -> Drawn {
    let cells = Position::from_game(start).cells();
    let categories = Category::possible(cells);
    let quota = settings.per_category.unwrap_or(settings.count.div_ceil(categories.len()));
    let wanted = settings.count.min(quota * categories.len());
    let mut drawn = Drawn { categories: categories.clone(), quota, ..Drawn::default() };
    let mut counts: BTreeMap<Category, usize> = categories.iter().map(|&c| (c, 0)).collect();
    let mut rng = Rng::seed_from_u64(settings.seed);
    let mut solver = Solver::new();
    let mut seen = HashSet::new();
    let mut legal = Vec::new();
    let max_attempts = (wanted as u64).saturating_mul(settings.attempts_per_position as u64);
    let mut stage_nodes: BTreeMap<Stage, u64> = BTreeMap::new();
    let mut tries = Tries::default();
    let mut exhausted = HashSet::new();
    let total_nodes = settings.total_nodes.unwrap_or(u64::MAX);
    while drawn.positions.len() < wanted && drawn.attempts < max_attempts && drawn.solver_nodes < total_nodes {
        // The stage still wanting positions that has cost the solver least so far goes next:
        // the early stage, whose positions take the most search, cannot starve the others
        // when the total budget runs out.
        let open = STAGES
            .into_iter()
            .filter(|s| !exhausted.contains(s) && categories.iter().any(|c| c.stage == *s && counts[c] < quota));
        let Some(stage) = open.min_by_key(|s| stage_nodes.get(s).copied().unwrap_or(0)) else { break };
        drawn.attempts += 1;
        // Disc counts the solver (almost) never settles within the budget, the first ones of
        // a 7x6 board, are dropped after a few tries: they would only burn the budget again.
        let targets: Vec<usize> = stage.discs(cells).filter(|&d| !tries.hopeless(d)).collect();
        let Some(&target) = targets.choose(&mut rng) else {
            exhausted.insert(stage);
            continue;
        };
        let mut game = start.clone();
        let mut moves = Vec::with_capacity(target);
        while moves.len() < target && game.outcome().is_none() {
            game.legal_actions(&mut legal);
            let a = *legal.choose(&mut rng).expect("a game in progress has a legal move");
            game.play_unchecked(a);
            moves.push(a);
        }
        if game.outcome().is_some() || !seen.insert(game.hash()) {
            continue;
        }
        let before = solver.node_count();
        let label = label_position(&mut solver, &game, game.moves_to_text(&moves), settings.budget_nodes);
        drawn.solver_nodes += solver.node_count() - before;
        *stage_nodes.entry(stage).or_default() += solver.node_count() - before;
        tries.record(target, label.is_some());
        let Some(label) = label else {
            *drawn.unsettled.entry(stage).or_default() += 1;
            continue;
        };
        let count = counts.entry(label.category).or_default();
        if *count >= quota {
            drawn.surplus += 1;
            continue;
        }
        *count += 1;
        kept(&label);
        drawn.positions.push(label);
    }
    // Grouped by category, in the order drawn within each: files read in a stable order.
    drawn.positions.sort_by_key(|p| p.category);
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn draws_balanced_positions_whose_labels_the_solver_confirms() {
        let start = Connect4::standard();
        let settings =
            DrawSettings { per_category: Some(2), attempts_per_position: 20, ..DrawSettings::new(12, 400_000, 7) };
        let drawn = draw_positions(&start, &settings, |_| {});
        let counts = drawn.by_category();
        assert_eq!(
            counts.keys().map(|c| c.to_string()).collect::<Vec<_>>(),
            ["L1R1", "L1R2", "L1R3", "L2R1", "L2R2", "L3R1"]
        );
        assert!(counts.values().all(|&n| n <= 2), "{counts:?}");
        // Late positions settle at once: those categories are always full.
        for c in ["L2R1", "L3R1"] {
            assert_eq!(counts[&c.parse().unwrap()], 2, "{}", drawn.summary());
        }
        let mut solver = Solver::new();
        for label in &drawn.positions {
            let game = label.position(&start).unwrap();
            let pos = Position::from_game(&game);
            assert_eq!(solver.analyze(&pos), label.scores, "{}", label.moves);
            assert_eq!(solver.solve(&pos), label.score);
        }
        // The same seed draws the same positions.
        let again = draw_positions(&start, &settings, |_| {});
        assert_eq!(again.positions, drawn.positions);
        assert_eq!((again.unsettled.clone(), again.surplus), (drawn.unsettled.clone(), drawn.surplus));
    }

    #[test]
    fn moves_left_is_the_length_of_perfect_play() {
        // Both sides play the solver's best move (fastest win, slowest loss) to the end: the
        // game lasts exactly the moves the label promises.
        let start = Connect4::standard();
        let mut rng = Rng::seed_from_u64(3);
        let mut solver = Solver::new();
        let (mut legal, mut checked) = (Vec::new(), 0);
        while checked < 12 {
            let mut game = start.clone();
            let mut moves = Vec::new();
            let target = rng.random_range(18..=34);
            while moves.len() < target && game.outcome().is_none() {
                game.legal_actions(&mut legal);
                let a = *legal.choose(&mut rng).unwrap();
                game.play_unchecked(a);
                moves.push(a);
            }
            if game.outcome().is_some() {
                continue;
            }
            let label = label_position(&mut solver, &game, game.moves_to_text(&moves), u64::MAX).unwrap();
            let mut played = 0;
            while game.outcome().is_none() {
                let col = solver.best_move(&Position::from_game(&game));
                game.play(col as dojo_game::Action).unwrap();
                played += 1;
            }
            assert_eq!(played, label.moves_left, "{} (score {})", label.moves, label.score);
            checked += 1;
        }
    }
}
