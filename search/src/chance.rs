//! Network-guided PUCT search for one-player games with chance events (2048, 2584, pig).
//!
//! The tree alternates two kinds of node. A *decision* node is a position where the player
//! moves; its edges carry the move's prior and its reward (the merge score) and lead to a
//! *chance* node, the after-state, where nature spawns a tile. A chance node's children are
//! decision nodes, one per spawn outcome (cell × tile) the search has visited.
//!
//! Games need not alternate so strictly, and the tree keeps its shape when they do not. A
//! move that nature does not follow (it ends the game, or the player moves again) has an
//! after-state with one certain outcome, the position itself ([`PASS`] as its event). Where
//! nature moves twice in a row (pig: a 1 ends the turn, and the next turn opens with a
//! roll), the position between is a decision node with one move, [`PASS`], that changes
//! nothing; the network is never asked about it, and its value is its after-state's.
//!
//! **Values are expectations, in score units.** A decision node's value is the expected sum
//! of the rewards still to come; it is recomputed from the network's estimate and its
//! edges (KataGo-style: `(v_nn + Σ N(a)·Q(a)) / (1 + Σ N(a))`), with
//! `Q(a) = reward(a) + value(after-state)`. A chance node's value is the
//! probability-weighted mean of the outcomes visited so far, `Σ p_i·V_i / Σ p_i`, not the
//! mean of the playouts that went through it, so an unlucky run of rare spawns does not
//! skew it. There is no side switching: one player maximises throughout. Selection
//! normalises Q to [0, 1] by the smallest and largest Q in the tree (MuZero's min-max), as
//! scores go from hundreds to hundreds of thousands over a game.
//!
//! **Which outcomes are searched: progressive widening.** A 2048 after-state has up to 30
//! outcomes; expanding them all at each chance node spends a 200-playout budget a level or
//! two deep. A chance node with `n` visits has at most `ceil(c · (n + 1)^α)` children
//! (`α = 0.5` by default); while it may add one, a new outcome is drawn with its
//! probability among those not yet searched, and otherwise the visited outcome with the
//! largest `p / (1 + visits)` is followed again, so visits track probabilities. See
//! [`ChanceConfig`] for the measurement behind the defaults.
//!
//! **Gumbel mode** (`search.mode = "gumbel"`) searches the decision nodes the Gumbel
//! AlphaZero way, with the formulas of [`super::gumbel`] that the graph search uses:
//! sequential halving over Gumbel-top-k moves at the root, `argmax π' − N / (1 + ΣN)` below
//! it, and the improved policy `softmax(logits + σ(completed Q))` as the training target.
//! σ rescales each node's Q by that node's own smallest and largest, where PUCT's
//! normalisation spans the whole tree: in pig, holding and rolling differ by a point or two
//! of a tree whose values span the game's forty, so PUCT's visits (its policy targets)
//! split near half and half, while σ tells the two apart. Chance nodes are searched as
//! above in both modes.
//!
//! **The network's value** is read as a scaled return ([`ReturnScale`]): the network sees
//! `h(G) / h(G_max)` with MuZero's `h(x) = sqrt(x + 1) - 1 + ε·x`, which keeps targets in
//! [0, 1] and compresses a range of 10² to 10⁶ points into one a tanh head can fit.
//!
//! The interface follows [`super::puct::Search`]: [`ChanceSearch::run`] stops at a leaf
//! that needs the network (so self-play can batch many games' leaves), [`ChanceSearch::deliver`]
//! hands its output back.

use super::config::{SearchConfig, SearchMode};
use super::gumbel::{self, ChildView, GumbelState};
use super::puct::{choose_by_visits, exploration, first_play_value, legal_softmax, mix_dirichlet, ChildStats, Proven};
use super::step::{leaf_search_by_playouts, Playouts};
use dojo_base::rng::Rng;
use dojo_game::returns::ReturnScale;
use dojo_game::{Action, Game, ToMove};
use rand::RngExt;

const NONE: u32 = u32::MAX;

/// The move of a decision node where nature moves next, and the event of an after-state
/// nature does not move in: "nothing happens here" (see the module docs).
const PASS: Action = Action::MAX;

/// The chance-node search's own knobs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChanceConfig {
    /// Progressive widening: a chance node with `n` visits has at most
    /// `ceil(widening_c · (n + 1)^widening_alpha)` children. `f32::INFINITY` for `c`
    /// expands every outcome at once.
    pub widening_c: f32,
    pub widening_alpha: f32,
    pub scale: ReturnScale,
}

impl ChanceConfig {
    /// The defaults, reading the network's value with `config`'s return scale.
    pub fn for_search(config: &SearchConfig) -> ChanceConfig {
        ChanceConfig { scale: config.return_scale(), ..ChanceConfig::default() }
    }
}

impl Default for ChanceConfig {
    fn default() -> Self {
        ChanceConfig {
            widening_c: 1.0,
            widening_alpha: 0.5,
            scale: ReturnScale::new(dojo_game::returns::DEFAULT_MAX_RETURN),
        }
    }
}

#[derive(Clone, Debug)]
struct Decision {
    first_edge: u32,
    num_edges: u32,
    /// 1 for the node's own evaluation plus its edges' visits, once evaluated.
    visits: u32,
    /// The network's estimate of the points to come, in points.
    nn_points: f64,
    /// Whether `nn_points` counts in the node's value: false where nature moves next (a
    /// [`PASS`] node, never shown to the network).
    evaluated: bool,
    /// Expected points to come (see the module docs).
    points: f64,
    state: State,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Unexpanded,
    Expanded,
    Terminal,
}

#[derive(Clone, Copy, Debug)]
struct Edge {
    action: Action,
    prior: f32,
    reward: u32,
    visits: u32,
    /// The after-state (a chance node), once visited.
    chance: u32,
}

/// One searched outcome of a chance node.
#[derive(Clone, Copy, Debug)]
struct Outcome {
    event: Action,
    prob: f32,
    /// The decision node after it.
    child: u32,
    /// The child's value as last counted in the chance node's weighted mean.
    counted: Option<f64>,
}

#[derive(Clone, Debug, Default)]
struct Chance {
    visits: u32,
    /// The outcomes searched so far.
    children: Vec<Outcome>,
    /// Σ p·V and Σ p over `children` that have a value.
    weighted_points: f64,
    weight: f64,
}

impl Chance {
    fn points(&self) -> f64 {
        if self.weight > 0.0 {
            self.weighted_points / self.weight
        } else {
            0.0
        }
    }
}

/// One step down the tree: decision node, edge, chance node, index of the outcome taken.
#[derive(Clone, Copy, Debug)]
struct Hop {
    node: u32,
    edge: u32,
    chance: u32,
    outcome: u32,
}

/// The search tree of one game of a one-player game with chance events.
pub struct ChanceSearch<G: Game> {
    config: SearchConfig,
    chance_config: ChanceConfig,
    self_play: bool,
    rng: Rng,
    decisions: Vec<Decision>,
    edges: Vec<Edge>,
    chances: Vec<Chance>,
    root_game: Option<G>,
    playouts: u32,
    path: Vec<Hop>,
    /// The node waiting for the network, and its position.
    pending: Option<(u32, G)>,
    /// Smallest and largest Q seen (points), for normalising.
    q_min: f64,
    q_max: f64,
    legal: Vec<Action>,
    outcomes: Vec<(Action, f32)>,
    /// Gumbel mode: the root's noise and sequential-halving counts, and scratch.
    gumbel: GumbelState,
}

impl<G: Game> ChanceSearch<G> {
    /// A search; `self_play` mixes Dirichlet noise into the root priors as configured.
    pub fn new(config: SearchConfig, chance_config: ChanceConfig, self_play: bool, rng: Rng) -> ChanceSearch<G> {
        ChanceSearch {
            config,
            chance_config,
            self_play,
            rng,
            decisions: Vec::new(),
            edges: Vec::new(),
            chances: Vec::new(),
            root_game: None,
            playouts: 0,
            path: Vec::new(),
            pending: None,
            q_min: f64::INFINITY,
            q_max: f64::NEG_INFINITY,
            legal: Vec::new(),
            outcomes: Vec::new(),
            gumbel: GumbelState::default(),
        }
    }

    fn gumbel(&self) -> bool {
        self.config.mode == SearchMode::Gumbel
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Whether the next searches mix root noise in (self-play's full searches) or not (its
    /// fast searches, and play).
    pub fn set_exploration(&mut self, on: bool) {
        self.self_play = on;
    }

    /// Replaces the random source (noise, widening draws, temperature).
    pub fn reseed(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// Starts a new search at `game`, where the player is to move (or the game is over).
    pub fn set_root(&mut self, game: &G) {
        assert!(game.is_one_player(), "the chance search is for one-player games");
        assert!(
            game.outcome().is_some() || game.to_move() != ToMove::Chance,
            "the root must be a decision (apply pending chance events first)"
        );
        self.decisions.clear();
        self.edges.clear();
        self.chances.clear();
        self.playouts = 0;
        self.pending = None;
        self.q_min = f64::INFINITY;
        self.q_max = f64::NEG_INFINITY;
        self.gumbel.schedule.clear();
        self.root_game = Some(game.clone());
        self.new_decision(game);
    }

    fn new_decision(&mut self, game: &G) -> u32 {
        let state = if game.outcome().is_some() { State::Terminal } else { State::Unexpanded };
        let decision =
            Decision { first_edge: 0, num_edges: 0, visits: 0, nn_points: 0.0, evaluated: true, points: 0.0, state };
        self.decisions.push(decision);
        (self.decisions.len() - 1) as u32
    }

    /// Playouts run since [`ChanceSearch::set_root`].
    pub fn playouts(&self) -> u32 {
        self.playouts
    }

    /// Nodes (decision and chance) in the tree.
    pub fn tree_size(&self) -> usize {
        self.decisions.len() + self.chances.len()
    }

    /// The move to follow at `node`: PUCT over its moves, with Q normalised by the tree's
    /// range, or Gumbel's selection in Gumbel mode.
    fn select(&mut self, node: u32) -> u32 {
        if self.gumbel() {
            return self.gumbel_select(node);
        }
        let d = &self.decisions[node as usize];
        let sqrt_n = (d.visits.max(1) as f32).sqrt();
        let range = self.q_max - self.q_min;
        let normalise = |q: f64| if range > 0.0 { ((q - self.q_min) / range) as f32 } else { 0.5 };
        // Unvisited moves are valued at the node's own value (normalised), less FPU.
        let visited_prior: f32 = (d.first_edge..d.first_edge + d.num_edges)
            .map(|e| &self.edges[e as usize])
            .filter(|e| e.visits > 0)
            .map(|e| e.prior)
            .sum();
        let fpu = first_play_value(normalise(d.points), self.config.fpu_reduction, visited_prior);
        let mut best = (f32::NEG_INFINITY, d.first_edge);
        for e in d.first_edge..d.first_edge + d.num_edges {
            let edge = &self.edges[e as usize];
            let q = if edge.visits == 0 { fpu } else { normalise(self.edge_q(edge)) };
            let u = exploration(self.config.c_puct, edge.prior, sqrt_n, edge.visits);
            if q + u > best.0 {
                best = (q + u, e);
            }
        }
        best.1
    }

    /// Gumbel mode's selection: sequential halving at the root, `argmax π' − N / (1 + ΣN)`
    /// below it.
    fn gumbel_select(&mut self, node: u32) -> u32 {
        let mut gumbel = std::mem::take(&mut self.gumbel);
        let fill = |views: &mut Vec<ChildView>, sigma: &mut Vec<f32>| self.gumbel_views(node, views, sigma);
        let index = gumbel.select(node == 0, self.config.gumbel_considered, fill, |_, score| score);
        self.gumbel = gumbel;
        self.decisions[node as usize].first_edge + index as u32
    }

    /// `node`'s moves as Gumbel's formulas see them (Q in points: σ rescales them by the
    /// node's own range), and their σ.
    fn gumbel_views(&self, node: u32, views: &mut Vec<ChildView>, sigma: &mut Vec<f32>) {
        let d = &self.decisions[node as usize];
        views.clear();
        views.extend((d.first_edge..d.first_edge + d.num_edges).map(|e| {
            let edge = &self.edges[e as usize];
            let q = if edge.visits > 0 { self.edge_q(edge) as f32 } else { 0.0 };
            ChildView { prior: edge.prior, visits: edge.visits, q }
        }));
        gumbel::sigma(d.nn_points as f32, views, self.config.gumbel_c_visit, self.config.gumbel_c_scale, sigma);
    }

    fn edge_q(&self, edge: &Edge) -> f64 {
        let after = if edge.chance == NONE { 0.0 } else { self.chances[edge.chance as usize].points() };
        f64::from(edge.reward) + after
    }

    /// The outcome to follow at `chance` (adding a child when widening allows).
    fn pick_outcome(&mut self, chance: u32, game: &G) -> u32 {
        if game.to_move() != ToMove::Chance {
            // Nature does not move here: the one outcome is the position itself.
            if self.chances[chance as usize].children.is_empty() {
                let child = self.new_decision(game);
                let certain = Outcome { event: PASS, prob: 1.0, child, counted: None };
                self.chances[chance as usize].children.push(certain);
            }
            return 0;
        }
        let c = &self.chances[chance as usize];
        let cfg = self.chance_config;
        let allowed = (cfg.widening_c * ((c.visits + 1) as f32).powf(cfg.widening_alpha)).ceil();
        game.chance_outcomes(&mut self.outcomes);
        if (c.children.len() as f32) < allowed && c.children.len() < self.outcomes.len() {
            // Draw a new outcome with its probability among those not searched yet.
            let fresh: f32 =
                self.outcomes.iter().filter(|(ev, _)| !c.children.iter().any(|o| o.event == *ev)).map(|(_, p)| p).sum();
            let mut x = self.rng.random::<f32>() * fresh;
            let mut pick = None;
            for &(ev, p) in &self.outcomes {
                if c.children.iter().any(|o| o.event == ev) {
                    continue;
                }
                pick = Some((ev, p));
                x -= p;
                if x <= 0.0 {
                    break;
                }
            }
            if let Some((ev, p)) = pick {
                let mut child_game = game.clone();
                child_game.apply_chance(ev).expect("an outcome the game listed");
                let child = self.new_decision(&child_game);
                let c = &mut self.chances[chance as usize];
                c.children.push(Outcome { event: ev, prob: p, child, counted: None });
                return (c.children.len() - 1) as u32;
            }
        }
        // Follow the visited outcome most under-visited for its probability.
        let mut best = (f32::NEG_INFINITY, 0u32);
        for (i, o) in c.children.iter().enumerate() {
            let score = o.prob / (1.0 + self.decisions[o.child as usize].visits as f32);
            if score > best.0 {
                best = (score, i as u32);
            }
        }
        best.1
    }

    /// Updates the values along the last playout's path, from the bottom up.
    fn backup(&mut self) {
        self.playouts += 1;
        for i in (0..self.path.len()).rev() {
            let hop = self.path[i];
            if hop.outcome != NONE {
                // Replace this outcome's term in the weighted mean with its new value.
                let o = self.chances[hop.chance as usize].children[hop.outcome as usize];
                let now = self.decisions[o.child as usize].points;
                let p = f64::from(o.prob);
                let c = &mut self.chances[hop.chance as usize];
                match o.counted {
                    Some(before) => c.weighted_points += p * (now - before),
                    None => {
                        c.weighted_points += p * now;
                        c.weight += p;
                    }
                }
                c.children[hop.outcome as usize].counted = Some(now);
            }
            self.chances[hop.chance as usize].visits += 1;
            self.edges[hop.edge as usize].visits += 1;
            let q = self.edge_q(&self.edges[hop.edge as usize]);
            self.q_min = self.q_min.min(q);
            self.q_max = self.q_max.max(q);
            self.recompute(hop.node);
        }
    }

    /// Expands a decision node where nature moves next: its one move, [`PASS`], leads to
    /// the chance node of the position as it stands. Not evaluated by the network.
    fn expand_pass(&mut self, node: u32) {
        let first_edge = self.edges.len() as u32;
        self.edges.push(Edge { action: PASS, prior: 1.0, reward: 0, visits: 0, chance: NONE });
        let d = &mut self.decisions[node as usize];
        (d.first_edge, d.num_edges, d.state, d.evaluated) = (first_edge, 1, State::Expanded, false);
    }

    /// A decision node's value from its network estimate and its visited moves.
    fn recompute(&mut self, node: u32) {
        let d = &self.decisions[node as usize];
        let (mut sum, mut n) = if d.evaluated { (d.nn_points, 1u32) } else { (0.0, 0) };
        for e in d.first_edge..d.first_edge + d.num_edges {
            let edge = &self.edges[e as usize];
            if edge.visits > 0 {
                sum += f64::from(edge.visits) * self.edge_q(edge);
                n += edge.visits;
            }
        }
        let d = &mut self.decisions[node as usize];
        d.visits = n;
        d.points = if n > 0 { sum / f64::from(n) } else { 0.0 };
    }

    /// Per-move statistics at the root; `q` is the move's expected points (its reward
    /// included), None while unvisited.
    pub fn root_children(&self) -> Vec<ChildStats> {
        let root = &self.decisions[0];
        (root.first_edge..root.first_edge + root.num_edges)
            .map(|e| {
                let edge = &self.edges[e as usize];
                ChildStats {
                    action: edge.action,
                    visits: edge.visits,
                    prior: edge.prior,
                    q: (edge.visits > 0).then(|| self.edge_q(edge) as f32),
                    proven: Proven::Unknown,
                }
            })
            .collect()
    }

    /// The root's expected points to come.
    pub fn root_points(&self) -> f64 {
        self.decisions[0].points
    }

    /// The root's expected points to come as the network's value (scaled, see
    /// [`ReturnScale`]): what a record stores as the root value.
    pub fn root_value(&self) -> f32 {
        self.chance_config.scale.to_value(self.root_points())
    }

    /// The policy target: the visit distribution over the root's moves, or in Gumbel mode
    /// the improved policy `softmax(logits + σ(completed Q))`.
    pub fn policy_target(&self) -> Vec<(Action, f32)> {
        let children = self.root_children();
        if self.gumbel() {
            let (mut views, mut sigma, mut policy) = (Vec::new(), Vec::new(), Vec::new());
            self.gumbel_views(0, &mut views, &mut sigma);
            gumbel::improved_policy(&views, &sigma, &mut policy);
            return children.iter().zip(policy).map(|(c, p)| (c.action, p)).collect();
        }
        let total: u32 = children.iter().map(|c| c.visits).sum();
        if total == 0 {
            return children.iter().map(|c| (c.action, c.prior)).collect();
        }
        children.iter().map(|c| (c.action, c.visits as f32 / total as f32)).collect()
    }

    /// The move to play: the most visited (ties to the better Q) at temperature ~0, else
    /// drawn with weights visits^(1/T). In Gumbel mode, the move sequential halving ended
    /// on, whatever the temperature (self-play's Gumbel noise made it a sample).
    pub fn choose_move(&mut self, temperature: f32) -> Action {
        let children = self.root_children();
        assert!(!children.is_empty(), "choose_move needs an expanded root with moves");
        if self.gumbel() {
            let (mut views, mut sigma) = (Vec::new(), Vec::new());
            self.gumbel_views(0, &mut views, &mut sigma);
            return children[self.gumbel.schedule.final_choice(&views, &sigma, |_| false)].action;
        }
        choose_by_visits(&children.iter().collect::<Vec<_>>(), temperature, &mut self.rng)
    }
}

leaf_search_by_playouts!(ChanceSearch);

impl<G: Game> Playouts<G> for ChanceSearch<G> {
    fn pending(&self) -> &Option<(u32, G)> {
        &self.pending
    }

    /// In Gumbel mode, `budget` counts simulations after the root's evaluation, as the graph
    /// search counts.
    fn finished(&mut self, budget: u32) -> bool {
        self.gumbel.budget = budget;
        let spent = if self.gumbel() { self.gumbel.schedule.spent() } else { self.playouts };
        let root = &self.decisions[0];
        root.state == State::Terminal || (root.state == State::Expanded && spent >= budget)
    }

    fn playout(&mut self) -> bool {
        self.path.clear();
        let mut node = 0u32;
        let mut game = self.root_game.clone().expect("set_root first");
        loop {
            match self.decisions[node as usize].state {
                State::Unexpanded if game.to_move() == ToMove::Chance => self.expand_pass(node),
                State::Unexpanded => {
                    self.pending = Some((node, game));
                    return true;
                }
                State::Terminal => {
                    self.decisions[node as usize].visits += 1;
                    break;
                }
                State::Expanded => {}
            }
            let e = self.select(node);
            let edge = self.edges[e as usize];
            if edge.action != PASS {
                game.play_unchecked(edge.action);
            }
            let chance = if edge.chance == NONE {
                self.chances.push(Chance::default());
                let c = (self.chances.len() - 1) as u32;
                self.edges[e as usize].chance = c;
                c
            } else {
                edge.chance
            };
            // A move can end the game without a spawn pending (a full board): then the
            // after-state is the end, worth nothing more.
            if game.outcome().is_some() && game.to_move() != ToMove::Chance {
                self.path.push(Hop { node, edge: e, chance, outcome: NONE });
                break;
            }
            let outcome = self.pick_outcome(chance, &game);
            let o = self.chances[chance as usize].children[outcome as usize];
            if o.event != PASS {
                game.apply_chance(o.event).expect("an outcome the game listed");
            }
            self.path.push(Hop { node, edge: e, chance, outcome });
            node = o.child;
        }
        self.backup();
        false
    }

    /// Hands back the network's output for [`ChanceSearch::leaf`]: logits over all actions
    /// and the value (a scaled return, see [`ReturnScale`]).
    fn expand_pending(&mut self, logits: &[f32], value: f32) {
        let (leaf, game) = self.pending.take().expect("no leaf is pending");
        game.legal_actions(&mut self.legal);
        let mut priors = Vec::with_capacity(self.legal.len());
        legal_softmax(logits, &self.legal, &mut priors);
        if leaf == 0 && self.gumbel() {
            self.gumbel.schedule.start(priors.len(), self.self_play.then_some(&mut self.rng));
        } else if leaf == 0 && self.self_play && self.config.dirichlet_epsilon > 0.0 && priors.len() > 1 {
            let alpha = self.config.dirichlet_alpha(priors.len());
            mix_dirichlet(&mut self.rng, alpha, self.config.dirichlet_epsilon, &mut priors);
        }
        let first = self.edges.len() as u32;
        for (&action, &prior) in self.legal.iter().zip(&priors) {
            let mut after = game.clone();
            let reward = after.play_unchecked(action);
            self.edges.push(Edge { action, prior, reward, visits: 0, chance: NONE });
        }
        let points = self.chance_config.scale.to_points(value);
        let d = &mut self.decisions[leaf as usize];
        d.first_edge = first;
        d.num_edges = self.legal.len() as u32;
        d.state = State::Expanded;
        d.visits = 1;
        d.nn_points = points;
        d.points = points;
        self.backup();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::step::{LeafSearch, Step};
    use dojo_game::pig::{Pig, HOLD, ROLL};
    use dojo_game::sliding::{Twenty48, DOWN, LEFT, RIGHT, UP};
    use dojo_game::tactics::Tactics;
    use dojo_game::{BoardLayout, Chance, Scoring, Symmetries};
    use rand::SeedableRng;

    /// A network that knows nothing: uniform policy, nothing more to come.
    fn know_nothing<G>(_: &G, logits: &mut [f32]) -> f32 {
        logits.fill(0.0);
        0.0
    }

    fn search(widening_c: f32) -> ChanceSearch<Twenty48> {
        let config = SearchConfig { c_puct: 1.5, fpu_reduction: 0.0, ..SearchConfig::default() };
        let chance = ChanceConfig { widening_c, ..ChanceConfig::default() };
        ChanceSearch::new(config, chance, false, Rng::seed_from_u64(1))
    }

    #[test]
    fn the_search_takes_the_merge_that_scores_and_spends_its_budget() {
        // Two 1024s side by side on the bottom row: sliding left or right merges them into
        // 2048 (2048 points); up and down score nothing.
        let g = Twenty48::from_tiles([[0, 0, 0, 0], [0, 0, 0, 0], [2, 0, 0, 0], [1024, 1024, 0, 0]]).unwrap();
        let mut s = search(1.0);
        s.set_root(&g);
        s.search_by(200, know_nothing, |_| true);
        assert_eq!(s.playouts(), 200);
        let children = s.root_children();
        assert_eq!(
            children.iter().map(|c| c.visits).sum::<u32>(),
            199,
            "every playout but the root's evaluation went through a move"
        );
        let best = s.choose_move(0.0);
        assert!(best == LEFT || best == RIGHT, "the merge is found: {best}");
        // Moves that change nothing (down, here) are not legal and have no child.
        let q = |a| children.iter().find(|c| c.action == a).map_or(f32::NEG_INFINITY, |c| c.q.unwrap_or(0.0));
        let merge = q(LEFT).max(q(RIGHT));
        assert!(merge >= 2048.0 && merge > q(UP) && merge > q(DOWN), "{children:?}");
    }

    #[test]
    fn a_chance_node_is_the_probability_weighted_mean_of_its_outcomes() {
        // One empty cell: the spawn is a 2 (90%) or a 4 (10%). Value a position by its
        // largest tile: after the 4, one more merge is possible.
        let g = Twenty48::from_tiles([[2, 4, 8, 16], [32, 64, 128, 256], [512, 1024, 2, 4], [8, 16, 32, 0]]).unwrap();
        let mut s = search(f32::INFINITY);
        s.set_root(&g);
        let scale = s.chance_config.scale;
        s.search_by(
            400,
            |game, logits| {
                logits.fill(0.0);
                scale.to_value(if game.tiles().contains(&2) && game.tiles()[15] == 2 { 1000.0 } else { 0.0 })
            },
            |_| true,
        );
        // Whatever move is taken, each after-state's value must be a probability-weighted mean
        // of its visited outcomes, not a visit-weighted one.
        for c in &s.chances {
            if c.children.len() < 2 {
                continue;
            }
            let want: f64 =
                c.children.iter().map(|o| f64::from(o.prob) * s.decisions[o.child as usize].points).sum::<f64>()
                    / c.children.iter().map(|o| f64::from(o.prob)).sum::<f64>();
            assert!((c.points() - want).abs() < 1e-6 * want.abs().max(1.0), "{} vs {want}", c.points());
        }
    }

    #[test]
    fn widening_limits_the_outcomes_a_chance_node_searches() {
        let g = Twenty48::from_tiles([[0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 2, 0]]).unwrap();
        for (c, most) in [(1.0f32, 20usize), (f32::INFINITY, 28)] {
            let mut s = search(c);
            s.set_root(&g);
            s.search_by(400, know_nothing, |_| true);
            let widest = s.chances.iter().map(|c| c.children.len()).max().unwrap();
            let visits = s.chances.iter().map(|c| c.visits).max().unwrap();
            if c.is_finite() {
                assert!(
                    widest as f32 <= (visits as f32 + 1.0).sqrt().ceil(),
                    "{widest} children after {visits} visits"
                );
                assert!(widest <= most);
            } else {
                // 14 empty cells after any move, two tiles each: all 28 outcomes.
                assert_eq!(widest, most);
            }
        }
    }

    /// Pig with `turns_left` turns to go (the earlier ones lost to a 1) and the die showing
    /// `face` on the turn's opening roll.
    fn pig_at(turns_left: u8, face: Action) -> Pig {
        let mut game = Pig::default();
        while game.turns_left() > turns_left {
            game.apply_chance(0).unwrap();
        }
        game.apply_chance(face - 1).unwrap();
        game
    }

    impl<G: Game> ChanceSearch<G> {
        /// The most visited move.
        fn best_move(&self) -> Action {
            self.root_children().iter().max_by_key(|c| c.visits).expect("an expanded root").action
        }
    }

    fn search_pig(game: &Pig, playouts: u32) -> ChanceSearch<Pig> {
        let config = SearchConfig { c_puct: 1.5, fpu_reduction: 0.0, ..SearchConfig::default() };
        let chance = ChanceConfig { widening_c: f32::INFINITY, ..ChanceConfig::default() };
        let mut s = ChanceSearch::new(config, chance, false, Rng::seed_from_u64(2));
        s.set_root(game);
        s.search_by(playouts, know_nothing, |_| true);
        s
    }

    #[test]
    fn in_pig_the_search_rolls_on_a_small_stake_and_holds_a_large_one() {
        // The last turn: holding 5 is worth 5, rolling on and holding is worth 7.5 at least.
        let s = search_pig(&pig_at(1, 5), 2000);
        assert_eq!(s.best_move(), ROLL, "{:?}", s.root_children());
        // Two turns left, a stake of 2: rolling again is right, and a 1 leads to the next
        // turn's opening roll, nature moving twice with no move between.
        let s = search_pig(&pig_at(2, 2), 2000);
        assert_eq!(s.best_move(), ROLL, "{:?}", s.root_children());
        let passes: Vec<&Decision> = s.decisions.iter().filter(|d| !d.evaluated).collect();
        assert!(!passes.is_empty(), "a 1 on the roll leads to a node where nature moves again");
        for d in passes {
            let edge = s.edges[d.first_edge as usize];
            assert_eq!((d.num_edges, edge.action, edge.reward), (1, PASS, 0));
            if edge.visits > 0 {
                let after = s.chances[edge.chance as usize].points();
                assert!(
                    (d.points - after).abs() < 1e-9,
                    "a pass node is worth its after-state: {} vs {after}",
                    d.points
                );
            }
        }
        let q = |a| s.root_children().iter().find(|c| c.action == a).and_then(|c| c.q).unwrap();
        assert!(q(ROLL) > q(HOLD), "{:?}", s.root_children());
    }

    #[test]
    fn in_pig_a_large_stake_is_held() {
        // 4 rolls of 6 on the last turn: holding 24 beats rolling (on average 23.3 at best).
        let mut game = pig_at(1, 6);
        for _ in 0..3 {
            game.play(ROLL).unwrap();
            game.apply_chance(5).unwrap();
        }
        assert_eq!(game.stake(), 24);
        let s = search_pig(&game, 2000);
        assert_eq!(s.best_move(), HOLD, "{:?}", s.root_children());
        let q = |a| s.root_children().iter().find(|c| c.action == a).and_then(|c| c.q).unwrap();
        assert_eq!(q(HOLD), 24.0, "holding ends the game with the stake");
        assert!(q(ROLL) < 24.0, "{}", q(ROLL));
    }

    /// The policy target's weight on `action`.
    fn target_of(s: &ChanceSearch<Pig>, action: Action) -> f32 {
        s.policy_target().iter().find(|(a, _)| *a == action).expect("a root move").1
    }

    /// Pig's values read on its own scale (its `max_return`, 120 points).
    fn pig_chance_config() -> ChanceConfig {
        ChanceConfig { widening_c: f32::INFINITY, scale: ReturnScale::new(120.0), ..ChanceConfig::default() }
    }

    /// A network with some sense: a uniform policy, and as the points to come the stake
    /// held now and 8 points a turn after this one (the best turn averages 8.14).
    fn hold_now(game: &Pig, logits: &mut [f32]) -> f32 {
        logits.fill(0.0);
        let points = game.stake() as f64 + 8.0 * f64::from(game.turns_left().saturating_sub(1));
        pig_chance_config().scale.to_value(points)
    }

    fn search_pig_with(mode: SearchMode, game: &Pig, simulations: u32) -> ChanceSearch<Pig> {
        let config = SearchConfig { mode, c_puct: 1.5, fpu_reduction: 0.0, ..SearchConfig::default() };
        let mut s = ChanceSearch::new(config, pig_chance_config(), false, Rng::seed_from_u64(2));
        s.set_root(game);
        s.search_by(simulations, hold_now, |_| true);
        s
    }

    #[test]
    fn in_gumbel_mode_the_target_tells_apart_moves_a_few_points_apart() {
        // The last turn on a stake of 5: rolling is worth a few points more than holding.
        // PUCT's visits, normalised by the whole tree's range, hardly tell them apart;
        // Gumbel's improved policy, by the root's own, does.
        let game = pig_at(1, 5);
        let puct = search_pig_with(SearchMode::Puct, &game, 64);
        let mut gumbel = search_pig_with(SearchMode::Gumbel, &game, 64);
        assert!(target_of(&puct, ROLL) < 0.8, "PUCT's visits: {:?}", puct.root_children());
        assert!(target_of(&gumbel, ROLL) > 0.95, "{:?} from {:?}", gumbel.policy_target(), gumbel.root_children());
        assert_eq!(gumbel.choose_move(0.0), ROLL);
        // 64 simulations after the root's evaluation, as the graph search counts them.
        assert_eq!((gumbel.gumbel.schedule.spent(), gumbel.playouts()), (64, 65));
        // A stake of 42 is held (rolling is worth 38.3 at best: a few simulations of a
        // chance node that has not yet drawn its 1 overrate it by a few points).
        let mut game = pig_at(1, 6);
        for _ in 0..6 {
            game.play(ROLL).unwrap();
            game.apply_chance(5).unwrap();
        }
        let mut gumbel = search_pig_with(SearchMode::Gumbel, &game, 64);
        assert!(target_of(&gumbel, HOLD) > 0.95, "{:?} from {:?}", gumbel.policy_target(), gumbel.root_children());
        assert_eq!(gumbel.choose_move(0.0), HOLD);
    }

    #[test]
    fn gumbel_self_play_samples_its_moves_and_targets_the_better_one() {
        // Self-play's Gumbel noise makes the root's first choice a sample; with two moves
        // and 64 simulations, both are searched and the target still says which is better.
        let game = pig_at(1, 5);
        let config = SearchConfig { mode: SearchMode::Gumbel, ..SearchConfig::default() };
        for seed in 0..8 {
            let mut s = ChanceSearch::new(config.clone(), pig_chance_config(), true, Rng::seed_from_u64(seed));
            s.set_root(&game);
            s.search_by(64, hold_now, |_| true);
            assert!(s.root_children().iter().all(|c| c.visits >= 16), "{:?}", s.root_children());
            assert!(target_of(&s, ROLL) > 0.95, "seed {seed}: {:?}", s.policy_target());
        }
    }

    /// A one-player game without chance: `MOVES` moves of 1 or 2 points each, so the player
    /// moves again after every move and nature never does.
    #[derive(Clone, Debug, Default)]
    struct Steps {
        moves: Vec<Action>,
    }

    const MOVES: usize = 5;

    impl Game for Steps {
        fn spec(&self) -> dojo_game::GameSpec {
            dojo_game::GameSpec::Named { name: "steps" }
        }
        fn num_actions(&self) -> usize {
            2
        }
        fn to_move(&self) -> ToMove {
            ToMove::Player(dojo_game::Player::First)
        }
        fn legal_actions(&self, out: &mut Vec<Action>) {
            out.clear();
            if self.moves.len() < MOVES {
                out.extend([0, 1]);
            }
        }
        fn is_legal(&self, action: Action) -> bool {
            action < 2 && self.moves.len() < MOVES
        }
        fn play_unchecked(&mut self, action: Action) -> u32 {
            self.moves.push(action);
            u32::from(action) + 1
        }
        fn outcome(&self) -> Option<dojo_game::Outcome> {
            let score = self.moves.iter().map(|&a| u64::from(a) + 1).sum();
            (self.moves.len() == MOVES).then_some(dojo_game::Outcome::Score(score))
        }
        fn hash(&self) -> u64 {
            self.moves.iter().fold(1, |h, &a| h * 3 + u64::from(a))
        }
        fn ply(&self) -> usize {
            self.moves.len()
        }
        fn last_action(&self) -> Option<Action> {
            self.moves.last().copied()
        }
        fn plane_shape(&self) -> dojo_game::PlaneShape {
            dojo_game::PlaneShape { channels: 1, height: 1, width: 1 }
        }
        fn encode_planes(&self, out: &mut [f32]) {
            out[0] = self.moves.len() as f32;
        }
        fn action_to_text(&self, action: Action) -> String {
            action.to_string()
        }
        fn action_from_text(&self, text: &str) -> Result<Action, dojo_game::GameError> {
            Ok(text.parse().unwrap_or(0))
        }
        fn render(&self) -> String {
            format!("{:?}", self.moves)
        }
    }

    impl Scoring for Steps {
        fn is_one_player(&self) -> bool {
            true
        }
    }

    impl Tactics for Steps {}

    impl Chance for Steps {}

    impl Symmetries for Steps {}

    impl BoardLayout for Steps {}

    #[test]
    fn a_game_without_chance_is_searched_to_its_best_score() {
        let config = SearchConfig { c_puct: 1.5, fpu_reduction: 0.0, ..SearchConfig::default() };
        let mut s = ChanceSearch::new(config, ChanceConfig::default(), false, Rng::seed_from_u64(3));
        s.set_root(&Steps::default());
        s.search_by(400, know_nothing, |_| true);
        assert_eq!(s.choose_move(0.0), 1, "{:?}", s.root_children());
        // Every after-state has one certain outcome, the position itself.
        assert!(s.chances.iter().all(|c| c.children.len() <= 1 && c.children.iter().all(|o| o.event == PASS)));
        // Q is a mean over playouts, the network's zeros at the leaves included: the line of
        // 2s (10 points) is worth more than any with a 1 in it, and shows it.
        let q = |a| s.root_children().iter().find(|c| c.action == a).and_then(|c| c.q).unwrap();
        assert!(q(1) > q(0) + 1.0 && q(1) > 8.0, "{:?}", s.root_children());
    }

    #[test]
    fn a_finished_game_is_done_at_once() {
        let g = Twenty48::from_tiles([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]]).unwrap();
        assert!(g.outcome().is_some());
        let mut s = search(1.0);
        s.set_root(&g);
        assert_eq!(s.run(100), Step::Done);
    }
}
