//! Pure MCTS (UCT) with rollouts: the baseline player every learned model must beat.
//!
//! Generic over any [`Game`]: two-player win/draw/loss games and one-player stochastic
//! games scored by points (2048, 2584). A search grows a tree (or, in graph mode, a graph)
//! in flat arenas; an iteration selects down it, adds one node, plays a rollout from it and
//! backs the result up.
//!
//! Design choices, and why:
//! - **UCB1, not PUCT-uniform.** Seed 001 switched to PUCT because plain UCT explored too
//!   unevenly at *millions* of playouts; a baseline runs thousands to a few hundred thousand,
//!   where UCB1 is the textbook reference opponent. UCB1 also tries every move once before
//!   repeating any, which the solver needs: a node is a proven loss only once every move in
//!   it has been visited and proven lost. `exploration` defaults to √2, UCB1's constant for
//!   rewards in `[0, 1]`.
//! - **Arenas, edges contiguous.** Nodes live in one `Vec`, a node's edges (move, and the
//!   node it leads to once taken) in one block of another (seed 001's layout, and the
//!   network search's, [`super::graph`]), so selection scans its edges linearly. A node's
//!   edges are all created when it is reached for the second time, in shuffled order;
//!   selection takes the first untaken edge before scoring any, so each iteration still
//!   adds exactly one visited node, and the shuffle keeps early exploration from favouring
//!   low actions. Memory: 32 bytes a node, 12 an edge.
//! - **A graph, by choice** ([`MctsConfig::graph`], two-player games): a position reached by
//!   another move order (Connect Four is full of them) is found by its hash and shares the
//!   node, its visits, value and proof, as in seed 001's engine. Each node keeps the plain
//!   mean of every result backed up through it, whichever parent sent it, and a parent's
//!   UCB1 reads its children's counts; a proof found below one parent reaches the others
//!   on their next visit. In a tree the same position is searched once per move order.
//! - **Values are stored for the first player** (two-player: win 1, draw ½, loss 0; one
//!   player: the points scored from the root) and turned into the mover's view on
//!   selection. That is the same as backing up "from each node's mover's view", but stays
//!   right in games where turns do not strictly alternate.
//! - **Shorter wins, longer losses (seed 001).** A win `L` plies after the root is worth
//!   `1 − min(L·length_bonus, ¼)` and the loss `min(L·length_bonus, ¼)`, so the tree prefers
//!   quick wins and, when lost, the longest defence instead of giving up.
//! - **MCTS-Solver.** Terminal wins and draws are *proven*; a node with a child proven won
//!   for its mover is proven won; a node whose children are all proven is proven at the
//!   best of them. Proven nodes stop descending and return their exact value; selection
//!   skips children proven lost for the mover. A proven win is played at once (shortest
//!   first); when every move loses, the longest loss. The search stops as soon as the root
//!   is proven. Chance nodes are never proven.
//! - **One-player scores.** Rewards are the points gained from the root (move rewards along
//!   the tree path and rollout); selection divides means by the largest return seen in
//!   this search, so UCB sees values in `[0, 1]` whatever the score scale. Chance nodes are
//!   descended by sampling an event by its probability.
//! - **Which kind of game.** One-player games (`Scoring::is_one_player`) end in scores;
//!   two-player games in wins, draws and losses.

use super::graph::{graph_storage, keep_reachable, GraphNode, HashIndex, NONE};
use super::player::Agent;
use dojo_base::rng::Rng;
use dojo_game::{Action, Game, Outcome, Player, ToMove};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{RngExt, SeedableRng};
use std::time::{Duration, Instant};

/// Picks the moves of a rollout. `scratch` is a buffer the policy may use for
/// `legal_actions`. The position is not over and a player is to move; the answer must be
/// legal.
pub trait RolloutPolicy<G: Game>: Send {
    fn choose(&mut self, game: &G, rng: &mut Rng, scratch: &mut Vec<Action>) -> Action;
}

/// Uniformly random legal moves.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformRollout;

impl<G: Game> RolloutPolicy<G> for UniformRollout {
    #[inline]
    fn choose(&mut self, game: &G, rng: &mut Rng, scratch: &mut Vec<Action>) -> Action {
        game.legal_actions(scratch);
        *scratch.choose(rng).expect("rollout reached a position with no moves")
    }
}

/// A game-specific rollout policy from a closure, e.g.
/// `FnRollout(|g: &Connect4<u64>, rng: &mut Rng| g.heuristic_move(rng))`.
#[derive(Clone, Copy, Debug)]
pub struct FnRollout<F>(pub F);

impl<G: Game, F: FnMut(&G, &mut Rng) -> Action + Send> RolloutPolicy<G> for FnRollout<F> {
    #[inline]
    fn choose(&mut self, game: &G, rng: &mut Rng, _scratch: &mut Vec<Action>) -> Action {
        (self.0)(game, rng)
    }
}

/// Search settings.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Iterations (playouts) per search.
    pub iterations: u32,
    /// UCB1 constant `c` in `q + c·√(ln N / n)`, for `q` in `[0, 1]`.
    pub exploration: f64,
    /// Stop a rollout after this many player moves and score it as a draw (two-player) or
    /// by the points gained so far (one-player). `None`: play to the end.
    pub max_rollout_moves: Option<u32>,
    /// Per-ply discount of a win (and bonus of a loss), capped at ¼; 0 turns it off.
    pub length_bonus: f64,
    /// Prove wins, losses and draws (MCTS-Solver).
    pub solver: bool,
    /// Search by the clock instead: iterations until this much time has passed (or the
    /// root is proven, or the search holds [`CLOCK_MEMORY_LIMIT`] bytes); `iterations` is then
    /// not used. How seed 001's engine plays: everything its seconds allow.
    pub clock: Option<Duration>,
    /// Keep the part of the last search's tree below the position searched now (two-player
    /// games, two plies on: the move played and the reply; in a graph, whatever the position's
    /// node reaches, however many plies on), as seed 001's engine does. On
    /// for a search by the clock, where it adds what the last move learnt to this one's
    /// seconds; off for `mcts:N`, whose measured strength is that of N fresh rollouts.
    pub reuse_tree: bool,
    /// Monte Carlo graph search (two-player games): positions reached by different move
    /// orders share one node, its visits and value, found by the position's hash, as seed
    /// 001's engine searches. Off, every path has nodes of its own (a tree).
    pub graph: bool,
}

/// The most memory (nodes and edges) a search by the clock grows, so that a long clock on a
/// fast machine cannot exhaust its memory.
pub const CLOCK_MEMORY_LIMIT: usize = 512 << 20;

/// Iterations between two looks at the clock (a look costs about as much as a rollout).
const CLOCK_CHECK_EVERY: u32 = 64;

impl Default for MctsConfig {
    fn default() -> MctsConfig {
        MctsConfig {
            iterations: 1000,
            exploration: std::f64::consts::SQRT_2,
            max_rollout_moves: None,
            length_bonus: 1e-3,
            solver: true,
            clock: None,
            reuse_tree: false,
            graph: false,
        }
    }
}

impl MctsConfig {
    /// The defaults with `iterations` playouts per move.
    pub fn with_iterations(iterations: u32) -> MctsConfig {
        MctsConfig { iterations, ..MctsConfig::default() }
    }

    /// The defaults, searching for `clock` a move and keeping the tree between moves.
    pub fn with_clock(clock: Duration) -> MctsConfig {
        MctsConfig { clock: Some(clock), reuse_tree: true, ..MctsConfig::default() }
    }

    /// How a player of these settings is named: `mcts:1000`, or by its clock, `mcts:3s`
    /// and `mcts:250ms`.
    pub fn budget_name(&self) -> String {
        match self.clock {
            None => self.iterations.to_string(),
            Some(clock) if clock.as_millis() % 1000 == 0 => format!("{}s", clock.as_secs()),
            Some(clock) => format!("{}ms", clock.as_millis()),
        }
    }
}

/// An exact result, from the point of view of the player to move in the position it
/// describes; `plies` is the game length from there under best play (the winner hurrying,
/// the loser delaying).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proven {
    Win { plies: u32 },
    Loss { plies: u32 },
    Draw,
}

/// One root move after a search.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildStats {
    pub action: Action,
    pub visits: u32,
    /// Mean result for the root's mover: in `[0, 1]` for two-player games (1 = win), the
    /// mean points gained from the root for one-player games. 0 when unvisited.
    pub value: f64,
    /// The proven result *for the root's mover* of playing this move; `plies` counts
    /// from the root, this move included.
    pub proven: Option<Proven>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move [`Agent::select_move`] plays; `None` when the root is over.
    pub best: Option<Action>,
    /// Root moves (or, at a chance root, events), sorted by action.
    pub children: Vec<ChildStats>,
    /// Iterations run: `config.iterations`, fewer when the root was proven early, 0 when it
    /// is over. With `reused`, always equal to the sum of `children[..].visits`.
    pub iterations: u32,
    /// Visits of the root's moves kept from the last search's tree
    /// ([`MctsConfig::reuse_tree`]); 0 for a fresh tree.
    pub reused: u32,
    /// Mean result at the root for its mover, on the same scale as [`ChildStats::value`].
    pub value: f64,
    /// The root's proven result for its mover.
    pub proven: Option<Proven>,
    /// Nodes in the tree (or graph).
    pub nodes: usize,
}

/// Proven status in absolute terms (who wins), so it needs no flipping between plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proof {
    Unknown,
    Win(Player),
    Draw,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Not expanded yet (edges not created).
    Leaf,
    Player(Player),
    Chance,
    /// Game over, or (against the contract) no moves or events to expand.
    Terminal,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    /// Sum of backed-up values for the first player.
    value_sum: f64,
    /// The position's hash: its key in the graph's table (0 in a tree, which has none).
    hash: u64,
    visits: u32,
    first_edge: u32,
    num_edges: u32,
    /// Plies to the end under best play, once proven.
    proof_len: u16,
    proof: Proof,
    kind: Kind,
}

// A graph of a 3 s search holds hundreds of thousands of nodes: keep them small.
const _: () = assert!(std::mem::size_of::<Node>() == 32);

/// A move or chance event out of a node.
#[derive(Clone, Copy, Debug)]
struct Edge {
    /// The node it leads to; [`NONE`] until first taken.
    child: u32,
    /// Probability of the chance event (1 for player moves).
    prob: f32,
    action: Action,
}

impl Node {
    fn new(hash: u64) -> Node {
        Node {
            value_sum: 0.0,
            hash,
            visits: 0,
            first_edge: 0,
            num_edges: 0,
            proof_len: 0,
            proof: Proof::Unknown,
            kind: Kind::Leaf,
        }
    }
}

graph_storage!(Node, Edge);

/// Pure MCTS with rollout policy `R`.
pub struct Mcts<G: Game, R: RolloutPolicy<G>> {
    config: MctsConfig,
    rollout: R,
    rng: Rng,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// Graph mode: each position's node, by its hash.
    table: HashIndex<u32>,
    /// Whether positions share nodes ([`MctsConfig::graph`] in a two-player game).
    graph: bool,
    path: Vec<u32>,
    actions: Vec<Action>,
    events: Vec<(Action, f32)>,
    rollout_scratch: Vec<Action>,
    /// Reused position for iterations (saves a fresh allocation when `G` overrides
    /// `clone_from`).
    work: Option<G>,
    /// Whether outcomes are scores (one-player); decided by the first search.
    one_player: Option<bool>,
    root_ply: usize,
    root_mover: Player,
    /// Largest return seen this search (one-player), the normaliser of values.
    max_return: f64,
    /// The position the tree was last searched from, while it may be reused.
    last_root: Option<G>,
}

impl<G: Game, R: RolloutPolicy<G>> Mcts<G, R> {
    pub fn new(config: MctsConfig, rollout: R, rng: Rng) -> Mcts<G, R> {
        Mcts {
            config,
            rollout,
            rng,
            nodes: Vec::new(),
            edges: Vec::new(),
            table: HashIndex::default(),
            graph: false,
            path: Vec::new(),
            actions: Vec::new(),
            events: Vec::new(),
            rollout_scratch: Vec::new(),
            work: None,
            one_player: None,
            root_ply: 0,
            root_mover: Player::First,
            max_return: 0.0,
            last_root: None,
        }
    }

    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    pub fn config_mut(&mut self) -> &mut MctsConfig {
        &mut self.config
    }

    /// Runs `config.iterations` iterations from `game` (fewer if the root gets proven)
    /// and reports the root's moves.
    pub fn search(&mut self, game: &G) -> SearchResult {
        let (iterations, reused) = self.run(game);
        let root = self.nodes[0];
        let mover = self.root_mover;
        let mut children: Vec<ChildStats> = root
            .edges()
            .map(|e| {
                let action = self.edges[e].action;
                match self.child_node(e) {
                    Some(c) => ChildStats {
                        action,
                        visits: c.visits,
                        value: self.mean_for(c, mover),
                        proven: self.proven_for(c, mover, 1),
                    },
                    None => ChildStats { action, visits: 0, value: 0.0, proven: None },
                }
            })
            .collect();
        children.sort_by_key(|c| c.action);
        SearchResult {
            best: self.best_child().map(|e| self.edges[e].action),
            children,
            iterations,
            reused,
            value: self.mean_for(&root, mover),
            proven: self.proven_for(&root, mover, 0),
            nodes: self.nodes.len(),
        }
    }

    /// Builds the tree (or grows the one kept from the last search); returns the
    /// iterations run and the root's move visits kept.
    fn run(&mut self, game: &G) -> (u32, u32) {
        self.max_return = 0.0;
        self.root_ply = game.ply();
        self.root_mover = match game.to_move() {
            ToMove::Player(p) => p,
            ToMove::Chance => Player::First,
        };
        if self.one_player.is_none() {
            self.one_player = Some(game.is_one_player());
            self.graph = self.config.graph && !game.is_one_player();
        }
        if !self.keep_subtree(game) {
            self.nodes.clear();
            self.edges.clear();
            self.table.clear();
            self.new_node(game);
        }
        self.last_root = (self.config.reuse_tree && self.one_player == Some(false)).then(|| game.clone());
        if let Some(o) = game.outcome() {
            self.nodes.truncate(1);
            self.nodes[0].kind = Kind::Terminal;
            self.nodes[0].proof = self.terminal_proof(o);
            return (0, 0);
        }
        if self.nodes[0].kind == Kind::Leaf {
            self.expand(0, game);
        }
        if self.nodes[0].num_edges == 0 {
            return (0, 0);
        }
        let reused = self.nodes[0].edges().filter_map(|e| self.child_node(e)).map(|c| c.visits).sum();
        let mut work = match self.work.take() {
            Some(mut w) => {
                w.clone_from(game);
                w
            }
            None => game.clone(),
        };
        let mut done = 0;
        let deadline = self.config.clock.map(|clock| Instant::now() + clock);
        while self.nodes[0].proof == Proof::Unknown && !self.budget_spent(done, deadline) {
            work.clone_from(game);
            self.iterate(&mut work);
            done += 1;
        }
        self.work = Some(work);
        (done, reused)
    }

    /// With tree reuse, makes the node of `game` in the last search's tree (two plies below
    /// its root: a move and a reply) or graph (any node of its position) the root, keeping
    /// only what it reaches; false where the last search does not hold it (and nothing is
    /// kept).
    fn keep_subtree(&mut self, game: &G) -> bool {
        let Some(last) = self.last_root.take() else { return false };
        if !self.config.reuse_tree || self.nodes.is_empty() {
            return false;
        }
        let hash = game.hash();
        let found = if self.graph {
            self.table.get(&hash).copied()
        } else if game.ply() == last.ply() + 2 {
            self.nodes[0].edges().find_map(|mine| {
                let n = self.child_node(mine).filter(|n| matches!(n.kind, Kind::Player(_)))?;
                n.edges().find_map(|reply| {
                    let child = self.edges[reply].child;
                    let mut after = last.clone();
                    after.play_unchecked(self.edges[mine].action);
                    after.play_unchecked(self.edges[reply].action);
                    (child != NONE && after.hash() == hash).then_some(child)
                })
            })
        } else {
            None
        };
        let Some(node) = found else { return false };
        let table = self.graph.then_some(&mut self.table);
        keep_reachable(&mut self.nodes, &mut self.edges, table, node);
        true
    }

    /// Whether a search that has run `done` iterations stops: at `config.iterations`, or
    /// by the clock at `deadline` (or at the node limit).
    fn budget_spent(&self, done: u32, deadline: Option<Instant>) -> bool {
        match deadline {
            None => done >= self.config.iterations,
            Some(deadline) => {
                done == u32::MAX
                    || self.memory() >= CLOCK_MEMORY_LIMIT
                    || (done.is_multiple_of(CLOCK_CHECK_EVERY) && Instant::now() >= deadline)
            }
        }
    }

    /// One selection–expansion–rollout–backup pass; `game` starts at the root.
    fn iterate(&mut self, game: &mut G) {
        self.path.clear();
        self.path.push(0);
        let mut node = 0usize;
        let mut ret = 0.0f64;
        let mut newly_proven = false;
        let value = loop {
            let n = self.nodes[node];
            if n.proof != Proof::Unknown {
                // In a graph, a node may have been proven below another parent: those of
                // this path learn it now.
                newly_proven |= self.graph && self.path.len() > 1;
                let plies = self.plies(game) + n.proof_len as usize;
                break self.proof_value(n.proof, plies, ret);
            }
            match n.kind {
                Kind::Terminal => {
                    break match game.outcome() {
                        Some(o) => self.outcome_value(o, self.plies(game), ret),
                        None => self.cutoff_value(ret),
                    };
                }
                Kind::Leaf => {
                    if let Some(o) = game.outcome() {
                        let proof = self.terminal_proof(o);
                        let nd = &mut self.nodes[node];
                        nd.kind = Kind::Terminal;
                        nd.proof = proof;
                        newly_proven = proof != Proof::Unknown;
                        break self.outcome_value(o, self.plies(game), ret);
                    }
                    if n.visits == 0 {
                        break self.play_out(game, ret);
                    }
                    self.expand(node, game);
                }
                Kind::Player(p) => {
                    let (e, stuck) = self.select(node, p);
                    // Every child proven lost yet this node unproven: can only follow a
                    // missed propagation; re-proving fixes it.
                    newly_proven |= stuck;
                    debug_assert!(game.is_legal(self.edges[e].action), "an edge's move is illegal here");
                    ret += f64::from(game.play_unchecked(self.edges[e].action));
                    node = self.take_edge(e, game);
                    self.path.push(node as u32);
                }
                Kind::Chance => {
                    let e = self.sample_event(node);
                    let r = game.apply_chance(self.edges[e].action);
                    debug_assert!(r.is_ok(), "chance event from chance_outcomes refused");
                    node = self.take_edge(e, game);
                    self.path.push(node as u32);
                }
            }
        };
        if value > self.max_return {
            self.max_return = value;
        }
        for &i in &self.path {
            let nd = &mut self.nodes[i as usize];
            nd.visits += 1;
            nd.value_sum += value;
        }
        if newly_proven {
            for k in (0..self.path.len() - 1).rev() {
                if !self.update_proof(self.path[k] as usize) {
                    break;
                }
            }
        }
    }

    /// Creates `node`'s edges (moves shuffled, or chance events).
    fn expand(&mut self, node: usize, game: &G) {
        let first = self.edges.len();
        let edge = |action, prob| Edge { child: NONE, prob, action };
        let kind = match game.to_move() {
            ToMove::Player(p) => {
                game.legal_actions(&mut self.actions);
                self.actions.shuffle(&mut self.rng);
                self.edges.extend(self.actions.iter().map(|&a| edge(a, 1.0)));
                Kind::Player(p)
            }
            ToMove::Chance => {
                game.chance_outcomes(&mut self.events);
                self.edges.extend(self.events.iter().map(|&(a, p)| edge(a, p)));
                Kind::Chance
            }
        };
        let count = self.edges.len() - first;
        let nd = &mut self.nodes[node];
        nd.first_edge = first as u32;
        nd.num_edges = count as u32;
        nd.kind = if count == 0 { Kind::Terminal } else { kind };
    }

    /// Adds the node of `game`'s position (the root, or a position first reached).
    fn new_node(&mut self, game: &G) -> u32 {
        let id = self.nodes.len() as u32;
        let hash = if self.graph { game.hash() } else { 0 };
        self.nodes.push(Node::new(hash));
        if self.graph {
            self.table.insert(hash, id);
        }
        id
    }

    /// The node edge `e` leads to, `game` being the position after it: made when the edge is
    /// first taken; in a graph, the node its position already has, where it has one (a
    /// transposition), so that what was learnt of it by another move order is shared.
    #[inline]
    fn take_edge(&mut self, e: usize, game: &G) -> usize {
        let child = self.edges[e].child;
        if child != NONE {
            return child as usize;
        }
        let known = if self.graph { self.table.get(&game.hash()).copied() } else { None };
        let child = known.unwrap_or_else(|| self.new_node(game));
        self.edges[e].child = child;
        child as usize
    }

    /// The node edge `e` leads to, once taken.
    #[inline]
    fn child_node(&self, e: usize) -> Option<&Node> {
        let child = self.edges[e].child;
        (child != NONE).then(|| &self.nodes[child as usize])
    }

    /// Bytes the search's nodes and edges take.
    fn memory(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Node>() + self.edges.len() * std::mem::size_of::<Edge>()
    }

    /// UCB1 over the edges, first untaken (or unvisited) edge first, skipping proven losses.
    /// Returns the edge and whether every child was a proven loss.
    #[inline]
    fn select(&self, node: usize, mover: Player) -> (usize, bool) {
        let n = &self.nodes[node];
        let k = self.config.exploration * f64::from(n.visits.max(1)).ln().sqrt();
        let inv_scale = self.inv_scale();
        let flip = mover == Player::Second && self.one_player != Some(true);
        let lost = Proof::Win(mover.other());
        let mut best = usize::MAX;
        let mut best_score = f64::NEG_INFINITY;
        for i in n.edges() {
            let Some(c) = self.child_node(i).filter(|c| c.visits > 0) else { return (i, false) };
            if c.proof == lost {
                continue;
            }
            let mean = c.value_sum / f64::from(c.visits) * inv_scale;
            let q = if flip { 1.0 - mean } else { mean };
            let score = q + k / f64::from(c.visits).sqrt();
            if score > best_score {
                best_score = score;
                best = i;
            }
        }
        if best == usize::MAX {
            (n.first_edge as usize, true)
        } else {
            (best, false)
        }
    }

    /// Samples a chance edge by its probability (a roulette over the stored probabilities:
    /// `choose_weighted` would build a cumulative table, an allocation, on every visit).
    #[inline]
    fn sample_event(&mut self, node: usize) -> usize {
        let range = self.nodes[node].edges();
        let last = range.end - 1;
        let mut u = self.rng.random::<f32>();
        for i in range {
            u -= self.edges[i].prob;
            if u < 0.0 {
                return i;
            }
        }
        last
    }

    /// Rollout from `game` (not over); returns the first player's value.
    fn play_out(&mut self, game: &mut G, mut ret: f64) -> f64 {
        let limit = self.config.max_rollout_moves.unwrap_or(u32::MAX);
        let mut moves = 0u32;
        loop {
            if let Some(o) = game.outcome() {
                return self.outcome_value(o, self.plies(game), ret);
            }
            match game.to_move() {
                ToMove::Chance => game.sample_chance(&mut self.rng),
                ToMove::Player(_) => {
                    if moves >= limit {
                        return self.cutoff_value(ret);
                    }
                    let a = self.rollout.choose(game, &mut self.rng, &mut self.rollout_scratch);
                    debug_assert!(game.is_legal(a), "rollout policy chose illegal {a}");
                    ret += f64::from(game.play_unchecked(a));
                    moves += 1;
                }
            }
        }
    }

    /// Re-derives `node`'s proof from its children; true if it became proven.
    fn update_proof(&mut self, node: usize) -> bool {
        let n = self.nodes[node];
        let mover = match n.kind {
            Kind::Player(p) if n.proof == Proof::Unknown => p,
            _ => return false,
        };
        let mut win_len: Option<u16> = None;
        let mut all_proven = true;
        let mut draw_len: Option<u16> = None;
        let mut loss_len = 0u16;
        for i in n.edges() {
            let Some(c) = self.child_node(i) else {
                all_proven = false;
                continue;
            };
            match c.proof {
                Proof::Unknown => all_proven = false,
                Proof::Win(p) if p == mover => {
                    win_len = Some(win_len.map_or(c.proof_len, |l| l.min(c.proof_len)));
                }
                Proof::Win(_) => loss_len = loss_len.max(c.proof_len),
                Proof::Draw => draw_len = Some(draw_len.map_or(c.proof_len, |l| l.max(c.proof_len))),
            }
        }
        let (proof, len) = if let Some(l) = win_len {
            (Proof::Win(mover), l)
        } else if !all_proven {
            return false;
        } else if let Some(l) = draw_len {
            (Proof::Draw, l)
        } else {
            (Proof::Win(mover.other()), loss_len)
        };
        let nd = &mut self.nodes[node];
        nd.proof = proof;
        nd.proof_len = len.saturating_add(1);
        true
    }

    /// The root edge to play: the shortest proven win, else the most visited move not
    /// proven lost (ties to the better mean), else the longest proven loss.
    fn best_child(&self) -> Option<usize> {
        let root = &self.nodes[0];
        if root.num_edges == 0 {
            return None;
        }
        let mover = self.root_mover;
        let won = Proof::Win(mover);
        let lost = Proof::Win(mover.other());
        let taken = || root.edges().filter_map(|e| self.child_node(e).map(|c| (e, c)));
        if let Some((e, _)) = taken().filter(|(_, c)| c.proof == won).min_by_key(|(_, c)| c.proof_len) {
            return Some(e);
        }
        let mut best: Option<(usize, u32, f64)> = None;
        for (e, c) in taken() {
            if c.proof == lost {
                continue;
            }
            let q = self.mean_for(c, mover);
            if best.is_none_or(|(_, v, bq)| c.visits > v || (c.visits == v && q > bq)) {
                best = Some((e, c.visits, q));
            }
        }
        if let Some((e, _, _)) = best {
            return Some(e);
        }
        // Every move taken is proven lost: an untaken one is not (yet), else the longest loss.
        root.edges()
            .find(|&e| self.child_node(e).is_none())
            .or_else(|| taken().max_by_key(|(_, c)| (c.proof_len, c.visits)).map(|(e, _)| e))
    }

    /// A node's mean value for `mover` on the reported scale.
    fn mean_for(&self, n: &Node, mover: Player) -> f64 {
        if n.visits == 0 {
            return 0.0;
        }
        let mean = n.value_sum / f64::from(n.visits);
        if mover == Player::Second && self.one_player != Some(true) {
            1.0 - mean
        } else {
            mean
        }
    }

    /// `n`'s proof for `mover`, `extra` plies away from `n`.
    fn proven_for(&self, n: &Node, mover: Player, extra: u32) -> Option<Proven> {
        let plies = u32::from(n.proof_len) + extra;
        match n.proof {
            Proof::Unknown => None,
            Proof::Draw => Some(Proven::Draw),
            Proof::Win(p) if p == mover => Some(Proven::Win { plies }),
            Proof::Win(_) => Some(Proven::Loss { plies }),
        }
    }

    #[inline]
    fn inv_scale(&self) -> f64 {
        if self.one_player == Some(true) {
            1.0 / self.max_return.max(1.0)
        } else {
            1.0
        }
    }

    #[inline]
    fn plies(&self, game: &G) -> usize {
        game.ply().saturating_sub(self.root_ply)
    }

    fn terminal_proof(&self, o: Outcome) -> Proof {
        match o {
            _ if !self.config.solver => Proof::Unknown,
            Outcome::Win(p) => Proof::Win(p),
            Outcome::Draw => Proof::Draw,
            Outcome::Score(_) => Proof::Unknown,
        }
    }

    #[inline]
    fn win_value(&self, winner: Player, plies: usize) -> f64 {
        let d = (plies as f64 * self.config.length_bonus).min(0.25);
        if winner == Player::First {
            1.0 - d
        } else {
            d
        }
    }

    #[inline]
    fn outcome_value(&self, o: Outcome, plies: usize, ret: f64) -> f64 {
        match o {
            Outcome::Win(p) => self.win_value(p, plies),
            Outcome::Draw => 0.5,
            Outcome::Score(_) => ret,
        }
    }

    #[inline]
    fn proof_value(&self, proof: Proof, plies: usize, ret: f64) -> f64 {
        match proof {
            Proof::Win(p) => self.win_value(p, plies),
            Proof::Draw => 0.5,
            Proof::Unknown => self.cutoff_value(ret),
        }
    }

    #[inline]
    fn cutoff_value(&self, ret: f64) -> f64 {
        if self.one_player == Some(true) {
            ret
        } else {
            0.5
        }
    }
}

impl<G: Game, R: RolloutPolicy<G>> Agent<G> for Mcts<G, R> {
    fn name(&self) -> String {
        format!("mcts:{}", self.config.budget_name())
    }

    fn new_game(&mut self, seed: u64) {
        self.rng = Rng::seed_from_u64(seed);
        self.last_root = None;
    }

    fn select_move(&mut self, game: &G) -> Action {
        game.legal_actions(&mut self.actions);
        if self.actions.len() == 1 {
            return self.actions[0];
        }
        let fallback = self.actions.first().copied().unwrap_or(0);
        self.run(game);
        self.best_child().map_or(fallback, |e| self.edges[e].action)
    }
}

/// Seed 001's Connect Four playout rules (take a win, block a loss, never play under an
/// opponent threat, keep the opponent's forbidden columns for later) as a rollout policy.
#[derive(Clone, Copy, Debug, Default)]
pub struct Connect4Rollout;

impl<B: dojo_base::bits::BitWord> RolloutPolicy<dojo_game::connect4::Connect4<B>> for Connect4Rollout {
    #[inline]
    fn choose(&mut self, game: &dojo_game::connect4::Connect4<B>, rng: &mut Rng, _scratch: &mut Vec<Action>) -> Action {
        game.heuristic_move(rng)
    }
}
