//! Network-guided PUCT search over a graph, for one game.
//!
//! Positions reached by different move orders share one node (looked up by the game's
//! Zobrist hash), following KataGo's GraphSearch.md:
//! - visit counts live on edges as well as nodes; a node's Q is recomputed from its own
//!   network value and its children's Q weighted by edge visits, so a child shared by two
//!   parents contributes to each in proportion to how often each parent chose it;
//! - when a playout picks an edge whose child already has more visits than the edge, it
//!   only "catches up" the edge (one more visit, Q recomputed) instead of descending.
//!
//! One playout either stops at a leaf that needs the network (the caller evaluates it,
//! batched with other games, and hands the result back with [`Search::deliver`]) or at a
//! terminal/proven node or a catch-up, and is backed up at once. Terminal results are
//! propagated as proven wins/losses/draws (MCTS-Solver, seed 001), so solved positions are
//! played perfectly and searched no further. With `tactics` on, every expanded position is
//! also looked at one ply deep ([`Tactics::lookahead`]): a move that wins at once proves the
//! node, a double threat proves it lost, and moves that let the opponent win at once get no
//! edge, so no prior, however wrong, makes the search miss a one-move tactic. With
//! `two_step_kills` too, where the game has a cheap exact version, the look goes two plies
//! deeper ([`Tactics::two_step_lookahead`]): a move that leaves the opponent lost at once is a
//! proven win, and moves that allow the opponent one get no edge. With `vcf_nodes` above 0,
//! a bounded threat-space search follows ([`Tactics::threat_search`], Gomoku's VCF prover): a
//! forced win by fours proves the node won, and where the opponent has one, only the moves
//! that refute it get edges (none: the node is proven lost).
//!
//! With `search.mode = "gumbel"` the same graph is searched the Gumbel AlphaZero way
//! (the maths in [`super::gumbel`]): sequential halving over Gumbel-top-k root moves, the
//! paper's deterministic selection below the root, and the completed-Q improved policy as
//! the target; proofs and the lookahead work as in PUCT mode.
//!
//! Only two-player games with alternating moves are supported here; chance nodes for
//! 2048/2584 are a separate search.

use super::config::{ForcedVisits, SearchConfig, SearchMode};
use super::graph::{graph_storage, keep_reachable, HashIndex, NONE};
use super::gumbel::{self, ChildView, GumbelState};
use super::step::{leaf_search_by_playouts, Playouts};
use dojo_base::rng::{dirichlet, Rng};
use dojo_game::tactics::Lookahead;
use dojo_game::{Action, Game, Outcome, ToMove};
use rand::seq::IndexedRandom;

/// A game-theoretic value proven by the search, from the node's side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proven {
    Unknown,
    Win,
    Loss,
    Draw,
}

impl Proven {
    fn value(self) -> Option<f32> {
        match self {
            Proven::Win => Some(1.0),
            Proven::Loss => Some(-1.0),
            Proven::Draw => Some(0.0),
            Proven::Unknown => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeState {
    /// Created, waiting for the network.
    Unexpanded,
    Expanded,
    Terminal,
}

#[derive(Clone, Debug)]
struct Node {
    hash: u64,
    first_edge: u32,
    num_edges: u32,
    /// 1 for the node's own evaluation plus the sum of its edges' visits (expanded nodes);
    /// the number of arrivals for terminal nodes.
    visits: u32,
    nn_value: f32,
    /// Mean value from this node's side to move.
    q: f32,
    state: NodeState,
    proven: Proven,
}

#[derive(Clone, Copy, Debug)]
struct Edge {
    action: Action,
    prior: f32,
    visits: u32,
    child: u32,
}

graph_storage!(Node, Edge);

/// Per-child statistics at the root.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildStats {
    pub action: Action,
    pub visits: u32,
    pub prior: f32,
    /// Mean value of the move from the root mover's point of view (None if unvisited).
    pub q: Option<f32>,
    pub proven: Proven,
}

/// The search graph of one game.
pub struct Search<G: Game> {
    config: SearchConfig,
    self_play: bool,
    rng: Rng,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    table: HashIndex<u32>,
    root: u32,
    root_game: Option<G>,
    /// Dirichlet noise mixed into the root priors (self-play), one per root edge.
    root_noise: Vec<f32>,
    /// Playouts run since the root was last set.
    playouts: u32,
    path: Vec<(u32, u32)>,
    /// The node waiting for the network, and its position.
    pending: Option<(u32, G)>,
    legal: Vec<Action>,
    scratch: Vec<f32>,
    /// Gumbel mode: the root's noise and sequential-halving counts, and scratch.
    gumbel: GumbelState,
    /// The SplitMix64 stream the rollouts draw from (`search.rollouts`): restarted with the
    /// graph, as the exported saiblo strategy restarts its own, so both play the same
    /// rollouts.
    rollout_state: u64,
}

/// Where a search's rollout stream starts ("roll").
pub const ROLLOUT_SEED: u64 = 0x726f_6c6c;

impl<G: Game> Search<G> {
    /// A search; `self_play` turns on root noise, forced visits and non-root noise as
    /// configured (match and analysis play leave them off).
    pub fn new(config: SearchConfig, self_play: bool, rng: Rng) -> Search<G> {
        Search {
            config,
            self_play,
            rng,
            nodes: Vec::new(),
            edges: Vec::new(),
            table: HashIndex::default(),
            root: NONE,
            root_game: None,
            root_noise: Vec::new(),
            playouts: 0,
            path: Vec::new(),
            pending: None,
            legal: Vec::new(),
            scratch: Vec::new(),
            gumbel: GumbelState::default(),
            rollout_state: ROLLOUT_SEED,
        }
    }

    fn gumbel(&self) -> bool {
        self.config.mode == SearchMode::Gumbel
    }

    /// Turns self-play exploration (root noise, forced visits, non-root noise; Gumbel noise in
    /// Gumbel mode) on or off
    /// from the next `set_root`/`advance` on. Playout cap randomisation runs its fast,
    /// untrained searches without it, as KataGo does.
    pub fn set_exploration(&mut self, on: bool) {
        self.self_play = on;
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Number of nodes in the graph.
    pub fn graph_size(&self) -> usize {
        self.nodes.len()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.edges.clear();
        self.table.clear();
        self.root = NONE;
        self.root_game = None;
        self.pending = None;
        self.rollout_state = ROLLOUT_SEED;
    }

    /// Draws the search's random choices (root noise, tie-breaks, temperature) from `rng`
    /// from now on.
    pub fn reseed(&mut self, rng: Rng) {
        self.rng = rng;
    }

    /// Makes `game` the root. With tree reuse on, the part of the graph below it (if it is
    /// already in the graph) is kept and everything else dropped.
    pub fn set_root(&mut self, game: &G) {
        assert!(matches!(game.to_move(), ToMove::Player(_)), "the network search needs a player to move");
        let existing = if self.config.reuse_tree { self.table.get(&game.hash()).copied() } else { None };
        match existing {
            Some(node) => self.rebuild_from(node),
            None => {
                self.clear();
                self.root = self.new_node(game);
            }
        }
        self.root_game = Some(game.clone());
        self.playouts = 0;
        self.pending = None;
        self.root_noise.clear();
        self.gumbel.schedule.clear();
        if self.nodes[self.root as usize].state == NodeState::Expanded {
            self.start_root();
        }
    }

    /// Keeps the subgraph reachable from `node`, which becomes the root.
    fn rebuild_from(&mut self, node: u32) {
        keep_reachable(&mut self.nodes, &mut self.edges, Some(&mut self.table), node);
        self.root = 0;
    }

    /// Moves the root along `action` (played in the real game), keeping its subgraph.
    pub fn advance(&mut self, game_after: &G) {
        self.set_root(game_after);
    }

    fn new_node(&mut self, game: &G) -> u32 {
        let id = self.nodes.len() as u32;
        let (state, proven, q) = match game.outcome() {
            None => (NodeState::Unexpanded, Proven::Unknown, 0.0),
            // The side to move at a finished two-player game is the one who did not make the
            // last move: it has lost, or drawn.
            Some(Outcome::Win(_)) => (NodeState::Terminal, Proven::Loss, -1.0),
            Some(Outcome::Draw) | Some(Outcome::Score(_)) => (NodeState::Terminal, Proven::Draw, 0.0),
        };
        self.nodes.push(Node {
            hash: game.hash(),
            first_edge: 0,
            num_edges: 0,
            visits: 0,
            nn_value: q,
            q,
            state,
            proven,
        });
        self.table.insert(game.hash(), id);
        id
    }

    /// The node of `game`'s position: the one already in the graph (a transposition), or a
    /// new one.
    fn node_for(&mut self, game: &G) -> u32 {
        match self.table.get(&game.hash()) {
            Some(&c) => c,
            None => self.new_node(game),
        }
    }

    /// Draws the root's exploration noise for self-play: Dirichlet noise in the priors
    /// (PUCT), or the Gumbel noise of sequential halving (Gumbel mode, where play starts
    /// the schedule without noise).
    fn start_root(&mut self) {
        self.root_noise.clear();
        let n = self.nodes[self.root as usize].num_edges as usize;
        if self.gumbel() {
            self.gumbel.schedule.start(n, self.self_play.then_some(&mut self.rng));
            return;
        }
        if !self.self_play || self.config.dirichlet_epsilon <= 0.0 {
            return;
        }
        self.root_noise.resize(n, 0.0);
        let alpha = self.config.dirichlet_alpha(n) as f64;
        let mut noise = std::mem::take(&mut self.root_noise);
        dirichlet(&mut self.rng, alpha, &mut noise);
        self.root_noise = noise;
    }

    /// Adds the finished playout along `path` and recomputes Q (and proofs) bottom-up.
    fn backup(&mut self) {
        self.playouts += 1;
        for i in (0..self.path.len()).rev() {
            let (node, e) = self.path[i];
            self.edges[e as usize].visits += 1;
            self.nodes[node as usize].visits += 1;
            self.recompute(node);
        }
    }

    fn recompute(&mut self, node: u32) {
        let n = &self.nodes[node as usize];
        if n.proven != Proven::Unknown {
            // A proof is a fact about the position: nothing found later changes it (and a
            // node lost by lookahead has no proven children to re-derive it from).
            return;
        }
        let (first, count) = (n.first_edge as usize, n.num_edges as usize);
        let mut sum = n.nn_value as f64;
        let mut weight = 1.0f64;
        let mut all_proven = true;
        let mut best_proven = Proven::Loss;
        for e in &self.edges[first..first + count] {
            if e.child == NONE {
                all_proven = false;
                continue;
            }
            let child = &self.nodes[e.child as usize];
            if e.visits > 0 {
                sum += e.visits as f64 * -(child.q as f64);
                weight += e.visits as f64;
            }
            // A child's loss is our win.
            match child.proven {
                Proven::Loss => best_proven = Proven::Win,
                Proven::Draw if best_proven == Proven::Loss => best_proven = Proven::Draw,
                Proven::Unknown => all_proven = false,
                _ => {}
            }
        }
        let proven = if best_proven == Proven::Win || all_proven { best_proven } else { Proven::Unknown };
        let n = &mut self.nodes[node as usize];
        n.proven = proven;
        n.q = proven.value().unwrap_or((sum / weight) as f32);
    }

    fn forced_visits(&self, prior: f32, total: u32) -> u32 {
        match self.config.forced_visits {
            ForcedVisits::Off => 0,
            ForcedVisits::Min(n) => n,
            ForcedVisits::KataGo(k) => (k * prior * total as f32).sqrt() as u32,
        }
    }

    fn root_prior(&self, index: usize, prior: f32) -> f32 {
        match self.root_noise.get(index) {
            Some(&noise) => (1.0 - self.config.dirichlet_epsilon) * prior + self.config.dirichlet_epsilon * noise,
            None => prior,
        }
    }

    /// The edge a playout takes from `node` (its index in `edges`).
    fn select(&mut self, node: u32) -> u32 {
        if self.gumbel() {
            self.gumbel_select(node)
        } else {
            self.puct_select(node)
        }
    }

    /// `node`'s children as Gumbel's formulas see them, and their σ.
    fn child_views(&self, node: u32, views: &mut Vec<ChildView>, sigma: &mut Vec<f32>) {
        let n = &self.nodes[node as usize];
        let first = n.first_edge as usize;
        views.clear();
        for e in &self.edges[first..first + n.num_edges as usize] {
            let visited = e.visits > 0 && e.child != NONE;
            let q = if visited { -self.nodes[e.child as usize].q } else { 0.0 };
            views.push(ChildView { prior: e.prior, visits: if visited { e.visits } else { 0 }, q });
        }
        gumbel::sigma(n.nn_value, views, self.config.gumbel_c_visit, self.config.gumbel_c_scale, sigma);
    }

    /// Gumbel mode's selection: sequential halving at the root, `argmax π' − N / (1 + ΣN)`
    /// below it (a winning child taken, a losing one last, as in PUCT mode).
    fn gumbel_select(&mut self, node: u32) -> u32 {
        let mut gumbel = std::mem::take(&mut self.gumbel);
        let first = self.nodes[node as usize].first_edge as usize;
        let fill = |views: &mut Vec<ChildView>, sigma: &mut Vec<f32>| self.child_views(node, views, sigma);
        let best = gumbel.select(node == self.root, self.config.gumbel_considered, fill, |i, score| {
            let e = &self.edges[first + i];
            let proven = if e.child != NONE { self.nodes[e.child as usize].proven } else { Proven::Unknown };
            match proven {
                Proven::Loss => f32::INFINITY,
                Proven::Win => score - 3.0,
                _ => score,
            }
        });
        self.gumbel = gumbel;
        (first + best) as u32
    }

    /// PUCT selection among a node's edges (returns the edge index).
    fn puct_select(&self, node: u32) -> u32 {
        let n = &self.nodes[node as usize];
        let is_root = node == self.root;
        let first = n.first_edge as usize;
        let edges = &self.edges[first..first + n.num_edges as usize];
        let total = n.visits.saturating_sub(1);
        let sqrt_total = (total.max(1) as f32).sqrt();
        let mut visited_prior = 0.0;
        for e in edges {
            if e.visits > 0 {
                visited_prior += e.prior;
            }
        }
        let fpu = first_play_value(n.q, self.config.fpu_reduction, visited_prior);
        let forced = is_root && self.self_play && self.config.forced_visits != ForcedVisits::Off;
        let mut best = 0usize;
        let mut best_score = f32::NEG_INFINITY;
        for (i, e) in edges.iter().enumerate() {
            let prior = if is_root { self.root_prior(i, e.prior) } else { e.prior };
            let (q, proven) = if e.child != NONE {
                let c = &self.nodes[e.child as usize];
                (if e.visits > 0 { -c.q } else { fpu }, c.proven)
            } else {
                (fpu, Proven::Unknown)
            };
            let score = match proven {
                Proven::Loss => f32::INFINITY, // a winning move: take it
                Proven::Win => -2.0 + prior,   // a losing move: last resort
                _ if forced && e.visits < self.forced_visits(prior, total) => 1e9 - e.visits as f32,
                _ => q + exploration(self.config.c_puct, prior, sqrt_total, e.visits),
            };
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        (first + best) as u32
    }

    /// Visits, priors and values of the root's moves.
    pub fn root_children(&self) -> Vec<ChildStats> {
        let n = &self.nodes[self.root as usize];
        let first = n.first_edge as usize;
        self.edges[first..first + n.num_edges as usize]
            .iter()
            .map(|e| {
                let child = (e.child != NONE).then(|| &self.nodes[e.child as usize]);
                ChildStats {
                    action: e.action,
                    visits: e.visits,
                    prior: e.prior,
                    q: child.filter(|_| e.visits > 0).map(|c| -c.q),
                    proven: child.map_or(Proven::Unknown, |c| match c.proven {
                        Proven::Win => Proven::Loss,
                        Proven::Loss => Proven::Win,
                        p => p,
                    }),
                }
            })
            .collect()
    }

    /// The root's value from its side to move, and whether it is proven.
    pub fn root_value(&self) -> (f32, Proven) {
        let n = &self.nodes[self.root as usize];
        (n.q, n.proven)
    }

    /// The priors the search uses at `game`'s node (with the root's noise mixed in at the
    /// root), if that position is in the graph and expanded.
    pub fn priors_at(&self, game: &G) -> Option<Vec<(Action, f32)>> {
        let &id = self.table.get(&game.hash())?;
        let n = &self.nodes[id as usize];
        if n.state != NodeState::Expanded {
            return None;
        }
        let first = n.first_edge as usize;
        let edges = &self.edges[first..first + n.num_edges as usize];
        Some(
            edges
                .iter()
                .enumerate()
                .map(|(i, e)| (e.action, if id == self.root { self.root_prior(i, e.prior) } else { e.prior }))
                .collect(),
        )
    }

    /// Nodes with more than one parent edge: positions reached by different move orders
    /// and shared instead of searched twice.
    pub fn shared_nodes(&self) -> usize {
        let mut parents = vec![0u32; self.nodes.len()];
        for e in &self.edges {
            if e.child != NONE {
                parents[e.child as usize] += 1;
            }
        }
        parents.iter().filter(|&&p| p > 1).count()
    }

    /// Playouts since the root was set.
    pub fn playouts(&self) -> u32 {
        self.playouts
    }

    /// The policy training target: root visit shares, with forced visits removed from
    /// moves that only got them for being forced (KataGo's policy target pruning); in
    /// Gumbel mode, the improved policy `softmax(logits + σ(completed Q))` over every legal
    /// root move. A proven win teaches its winning moves in either mode.
    pub fn policy_target(&self) -> Vec<(Action, f32)> {
        let children = self.root_children();
        if self.nodes[self.root as usize].proven == Proven::Win {
            // A solved root teaches its winning moves, not wherever the playouts went first.
            let wins = children.iter().filter(|c| c.proven == Proven::Win).count() as f32;
            return children
                .iter()
                .map(|c| (c.action, if c.proven == Proven::Win { 1.0 / wins } else { 0.0 }))
                .collect();
        }
        if self.gumbel() {
            let (views, sigma) = self.root_views();
            let mut policy = Vec::new();
            gumbel::improved_policy(&views, &sigma, &mut policy);
            return children.iter().zip(policy).map(|(c, p)| (c.action, p)).collect();
        }
        let mut visits: Vec<f32> = children.iter().map(|c| c.visits as f32).collect();
        if self.self_play && self.config.prune_forced && self.config.forced_visits != ForcedVisits::Off {
            let total = self.nodes[self.root as usize].visits.saturating_sub(1);
            let sqrt_total = (total.max(1) as f32).sqrt();
            let c = self.config.c_puct;
            let best = (0..children.len()).max_by_key(|&i| children[i].visits).unwrap_or(0);
            let b = &children[best];
            let best_puct =
                b.q.unwrap_or(0.0) + c * self.root_prior(best, b.prior) * sqrt_total / (1.0 + b.visits as f32);
            for (i, ch) in children.iter().enumerate() {
                if i == best || ch.visits == 0 {
                    continue;
                }
                let prior = self.root_prior(i, ch.prior);
                let q = ch.q.unwrap_or(-1.0);
                let forced = self.forced_visits(prior, total) as f32;
                // Fewest visits that keep this move's PUCT score below the best one's.
                let gap = best_puct - q;
                let needed =
                    if gap > 0.0 { (c * prior * sqrt_total / gap - 1.0).ceil().max(0.0) } else { ch.visits as f32 };
                let kept = needed.max(ch.visits as f32 - forced).min(ch.visits as f32);
                visits[i] = if kept <= 1.0 { 0.0 } else { kept };
            }
        }
        let sum: f32 = visits.iter().sum();
        if sum <= 0.0 {
            // A root proven lost on its own expansion is not searched: its priors are all
            // the search knows (no worse a target than the network's own opinion).
            return children.iter().map(|c| (c.action, c.prior)).collect();
        }
        children.iter().zip(visits).map(|(c, v)| (c.action, v / sum)).collect()
    }

    /// Picks the move to play: a proven win if there is one; otherwise by visit count, at
    /// temperature `temperature` (0 = the most visited, ties to the better Q). In Gumbel
    /// mode, the move sequential halving ends on (the temperature does not apply: the
    /// Gumbel noise already made the choice a sample in self-play).
    pub fn choose_move(&mut self, temperature: f32) -> Action {
        let children = self.root_children();
        assert!(!children.is_empty(), "choose_move needs an expanded root with moves");
        if let Some(win) = children.iter().find(|c| c.proven == Proven::Win) {
            return win.action;
        }
        if self.gumbel() {
            let (views, sigma) = self.root_views();
            let lost = |i: usize| children[i].proven == Proven::Loss;
            return children[self.gumbel.schedule.final_choice(&views, &sigma, lost)].action;
        }
        let playable: Vec<&ChildStats> = {
            let not_lost: Vec<&ChildStats> = children.iter().filter(|c| c.proven != Proven::Loss).collect();
            if not_lost.is_empty() {
                children.iter().collect()
            } else {
                not_lost
            }
        };
        choose_by_visits(&playable, temperature, &mut self.rng)
    }

    /// The root's children and their σ, as Gumbel's formulas see them.
    fn root_views(&self) -> (Vec<ChildView>, Vec<f32>) {
        let (mut views, mut sigma) = (Vec::new(), Vec::new());
        self.child_views(self.root, &mut views, &mut sigma);
        (views, sigma)
    }
}

/// The move a tree search plays from its root's `children` (non-empty): at temperature ~0
/// the most visited (ties to the better Q, then the higher prior), else one drawn with
/// weights visits^(1/T). The graph search and the chance search choose the same way.
pub(crate) fn choose_by_visits(children: &[&ChildStats], temperature: f32, rng: &mut Rng) -> Action {
    if temperature <= 1e-3 {
        let best = children.iter().max_by_key(|c| (c.visits, ordered(c.q.unwrap_or(-2.0)), ordered(c.prior)));
        return best.expect("choose_by_visits needs children").action;
    }
    let most = children.iter().map(|c| c.visits).max().unwrap_or(0);
    if most == 0 {
        return children.choose(rng).expect("choose_by_visits needs children").action;
    }
    // Weights visits^(1/T), taken relative to the most visited move so that they stay
    // finite at low temperatures (the most visited weighs 1).
    let exponent = 1.0 / f64::from(temperature);
    let weight = |c: &&ChildStats| (f64::from(c.visits) / f64::from(most)).powf(exponent);
    children.choose_weighted(rng, weight).expect("the most visited move weighs 1").action
}

/// PUCT's value for an unvisited move: the parent's `value` less `reduction` times the root
/// of the prior already visited (first-play urgency, as Leela and KataGo reduce it).
pub(crate) fn first_play_value(value: f32, reduction: f32, visited_prior: f32) -> f32 {
    value - reduction * visited_prior.sqrt()
}

/// PUCT's exploration term for a move of `prior` and `visits` under a parent whose visits'
/// square root is `sqrt_parent`.
pub(crate) fn exploration(c_puct: f32, prior: f32, sqrt_parent: f32, visits: u32) -> f32 {
    c_puct * prior * sqrt_parent / (1.0 + visits as f32)
}

/// Priors from logits: a softmax over the legal moves only (illegal moves get no prior at
/// all), written to `out`.
pub(crate) fn legal_softmax(logits: &[f32], legal: &[Action], out: &mut Vec<f32>) {
    out.clear();
    let max = legal.iter().map(|&a| logits[a as usize]).fold(f32::NEG_INFINITY, f32::max);
    out.extend(legal.iter().map(|&a| (logits[a as usize] - max).exp()));
    let sum: f32 = out.iter().sum();
    for p in out.iter_mut() {
        *p /= sum;
    }
}

/// Mixes Dirichlet(`alpha`) noise into `priors` with weight `eps`.
pub(crate) fn mix_dirichlet(rng: &mut Rng, alpha: f32, eps: f32, priors: &mut [f32]) {
    let mut noise = vec![0.0; priors.len()];
    dirichlet(rng, f64::from(alpha), &mut noise);
    for (p, n) in priors.iter_mut().zip(noise) {
        *p = (1.0 - eps) * *p + eps * n;
    }
}

/// f32 as a totally ordered integer key (for max_by_key).
fn ordered(x: f32) -> i64 {
    (x * 1e6) as i64
}

impl<G: Game> Search<G> {
    /// The network's `value` of `game` mixed with `search.rollouts` rollouts' mean, in the
    /// exported strategy's order of operations (its f32 sums and the same stream), or the
    /// value alone where the game has no rollout policy.
    fn mix_rollouts(&mut self, game: &G, value: f32) -> f32 {
        let mut sum = 0.0f32;
        for _ in 0..self.config.rollouts {
            match game.rollout_result(&mut self.rollout_state) {
                Some(result) => sum += result,
                None => return value,
            }
        }
        let weight = self.config.rollout_weight;
        (1.0 - weight) * value + weight * sum / self.config.rollouts as f32
    }
}

leaf_search_by_playouts!(Search);

impl<G: Game> Playouts<G> for Search<G> {
    fn pending(&self) -> &Option<(u32, G)> {
        &self.pending
    }

    /// In Gumbel mode the budget counts simulations through the root's moves (mctx's
    /// `num_simulations`); a proven root is done at once.
    fn finished(&mut self, budget: u32) -> bool {
        self.gumbel.budget = budget;
        let spent = if self.gumbel() { self.gumbel.schedule.spent() } else { self.playouts };
        let root = &self.nodes[self.root as usize];
        match root.state {
            NodeState::Expanded => spent >= budget || root.proven != Proven::Unknown,
            NodeState::Terminal => true,
            NodeState::Unexpanded => false,
        }
    }

    fn playout(&mut self) -> bool {
        self.path.clear();
        let mut node = self.root;
        let mut game = self.root_game.clone().expect("set_root first");
        loop {
            let n = &self.nodes[node as usize];
            match n.state {
                NodeState::Unexpanded => {
                    self.pending = Some((node, game));
                    return true;
                }
                NodeState::Terminal => {
                    self.nodes[node as usize].visits += 1;
                    break;
                }
                NodeState::Expanded if n.proven != Proven::Unknown => {
                    self.nodes[node as usize].visits += 1;
                    break;
                }
                NodeState::Expanded => {}
            }
            let e = self.select(node);
            self.path.push((node, e));
            let edge = self.edges[e as usize];
            if edge.child != NONE && edge.visits < self.nodes[edge.child as usize].visits {
                // Catch-up: the child is already better explored than this edge says.
                break;
            }
            game.play_unchecked(edge.action);
            let child = if edge.child != NONE {
                edge.child
            } else {
                let c = self.node_for(&game);
                self.edges[e as usize].child = c;
                c
            };
            node = child;
        }
        self.backup();
        false
    }

    /// Hands back the network's output for [`Search::leaf`]: logits over all actions and the
    /// value from the leaf's side to move.
    fn expand_pending(&mut self, logits: &[f32], value: f32) {
        let (leaf, game) = self.pending.take().expect("no leaf is pending");
        let lookahead = self.moves_to_search(&game);
        legal_softmax(logits, &self.legal, &mut self.scratch);
        if self.self_play && leaf != self.root && self.config.nonroot_noise_epsilon > 0.0 && !self.gumbel() {
            let alpha = self.config.dirichlet_alpha(self.legal.len());
            mix_dirichlet(&mut self.rng, alpha, self.config.nonroot_noise_epsilon, &mut self.scratch);
        }
        let first = self.edges.len() as u32;
        for (i, &a) in self.legal.iter().enumerate() {
            self.edges.push(Edge { action: a, prior: self.scratch[i], visits: 0, child: NONE });
        }
        let mut value = if value.is_finite() { value.clamp(-1.0, 1.0) } else { 0.0 };
        if lookahead == Lookahead::Moves && self.config.rollouts > 0 {
            value = self.mix_rollouts(&game, value);
        }
        let n = &mut self.nodes[leaf as usize];
        n.first_edge = first;
        n.num_edges = self.legal.len() as u32;
        n.state = NodeState::Expanded;
        n.nn_value = value;
        n.q = value;
        n.visits = 1;
        self.record_proof(leaf, first, lookahead, game);
        if leaf == self.root {
            self.start_root();
        }
        self.backup();
    }
}

impl<G: Game> Search<G> {
    /// Fills `legal` with the moves a new node at `game` gets as edges, as the configured
    /// tactics see them: a move that wins at once is the only edge worth having; a lost node
    /// keeps the moves that do not lose at once, or every move when all do (something must
    /// be played), but is searched no further.
    fn moves_to_search(&mut self, game: &G) -> Lookahead {
        let mut lookahead = if self.config.tactics && self.config.two_step_kills {
            game.two_step_lookahead(&mut self.legal)
        } else if self.config.tactics {
            game.lookahead(&mut self.legal)
        } else {
            game.legal_actions(&mut self.legal);
            Lookahead::Moves
        };
        if lookahead == Lookahead::Moves && self.config.vcf_nodes > 0 {
            lookahead = game.threat_search(self.config.vcf_nodes, &mut self.legal);
        }
        match lookahead {
            Lookahead::Win(action) => {
                self.legal.clear();
                self.legal.push(action);
            }
            Lookahead::Lost if self.legal.is_empty() => game.legal_actions(&mut self.legal),
            Lookahead::Lost | Lookahead::Moves => {}
        }
        lookahead
    }

    /// Marks the just-expanded `leaf` (its edges from `first`, at `game`) proven as its
    /// `lookahead` found it.
    fn record_proof(&mut self, leaf: u32, first: u32, lookahead: Lookahead, game: G) {
        let n = &mut self.nodes[leaf as usize];
        match lookahead {
            Lookahead::Win(action) => {
                n.proven = Proven::Win;
                n.q = 1.0;
                // The winning edge's child is proven lost for the opponent (finished, lost
                // at once after a two-step kill, or lost to the rest of a VCF), so every
                // reader of the graph (move choice, policy target, analysis) sees a proven
                // win there.
                let mut won = game;
                won.play_unchecked(action);
                let child = self.node_for(&won);
                let c = &mut self.nodes[child as usize];
                c.proven = Proven::Loss;
                c.q = -1.0;
                self.edges[first as usize].child = child;
            }
            Lookahead::Lost => {
                n.proven = Proven::Loss;
                n.q = -1.0;
            }
            Lookahead::Moves => {}
        }
    }
}
