//! Pure MCTS (UCT) with rollouts: the baseline player every learned model must beat.
//!
//! Generic over any [`Game`]: two-player win/draw/loss games and one-player stochastic
//! games scored by points (2048, 2584). One search builds a fresh tree (no reuse between
//! moves) in a flat arena; an iteration selects down the tree, adds one node, plays a rollout
//! from it and backs the result up.
//!
//! Design choices, and why:
//! - **UCB1, not PUCT-uniform.** Seed 001 switched to PUCT because plain UCT explored too
//!   unevenly at *millions* of playouts; a baseline runs thousands to a few hundred thousand,
//!   where UCB1 is the textbook reference opponent. UCB1 also tries every move once before
//!   repeating any, which the solver needs: a node is a proven loss only once every move in
//!   it has been visited and proven lost. `exploration` defaults to √2, UCB1's constant for
//!   rewards in `[0, 1]`.
//! - **Arena, children contiguous.** Nodes live in one `Vec`, a node's children in one
//!   block (seed 001's layout), so selection scans memory linearly. A node's children are all
//!   created when it is reached for the second time, in shuffled order; selection takes
//!   the first unvisited child before scoring any, so each iteration still adds exactly one
//!   visited node, and the shuffle keeps early exploration from favouring low actions.
//!   Memory: at most `iterations × branching × 32` bytes.
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
//! - **Which kind of game.** One-player games (`Game::is_one_player`) end in scores;
//!   two-player games in wins, draws and losses.

use super::player::Agent;
use dojo_game::rng::Rng;
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
    /// root is proven, or the tree holds [`CLOCK_NODE_LIMIT`] nodes); `iterations` is then
    /// not used. How seed 001's engine plays: everything its seconds allow.
    pub clock: Option<Duration>,
    /// Keep the part of the last search's tree below the position searched now (two-player
    /// games, two plies on: the move played and the reply), as seed 001's engine does. On
    /// for a search by the clock, where it adds what the last move learnt to this one's
    /// seconds; off for `mcts:N`, whose measured strength is that of N fresh rollouts.
    pub reuse_tree: bool,
}

/// The most nodes a search by the clock grows (32 bytes each: 512 MiB), so that a long
/// clock on a fast machine cannot exhaust its memory.
pub const CLOCK_NODE_LIMIT: usize = 1 << 24;

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
    /// Nodes in the tree.
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
    /// Not expanded yet (children not created).
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
    visits: u32,
    first_child: u32,
    num_children: u32,
    /// The move or chance event leading here.
    action: Action,
    /// Plies to the end under best play, once proven.
    proof_len: u16,
    /// Probability of the chance event leading here (1 for player moves).
    prob: f32,
    proof: Proof,
    kind: Kind,
}

// Selection scans children linearly; keep two nodes per cache line.
const _: () = assert!(std::mem::size_of::<Node>() == 32);

impl Node {
    fn new(action: Action, prob: f32) -> Node {
        Node {
            value_sum: 0.0,
            visits: 0,
            first_child: 0,
            num_children: 0,
            action,
            proof_len: 0,
            prob,
            proof: Proof::Unknown,
            kind: Kind::Leaf,
        }
    }

    #[inline]
    fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + self.num_children as usize
    }
}

/// Pure MCTS with rollout policy `R`.
pub struct Mcts<G: Game, R: RolloutPolicy<G>> {
    config: MctsConfig,
    rollout: R,
    rng: Rng,
    nodes: Vec<Node>,
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
            .children()
            .map(|i| {
                let c = &self.nodes[i];
                ChildStats {
                    action: c.action,
                    visits: c.visits,
                    value: self.mean_for(c, mover),
                    proven: self.proven_for(c, mover, 1),
                }
            })
            .collect();
        children.sort_by_key(|c| c.action);
        SearchResult {
            best: self.best_child().map(|i| self.nodes[i].action),
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
        }
        if !self.keep_subtree(game) {
            self.nodes.clear();
            self.nodes.push(Node::new(0, 1.0));
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
        if self.nodes[0].num_children == 0 {
            return (0, 0);
        }
        let reused = self.nodes[0].children().map(|i| self.nodes[i].visits).sum();
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
    /// its root: a move and a reply) the root, keeping only what lies below it; false where
    /// the tree does not hold it (and nothing is kept).
    fn keep_subtree(&mut self, game: &G) -> bool {
        let Some(last) = self.last_root.take() else { return false };
        if !self.config.reuse_tree || self.nodes.is_empty() || game.ply() != last.ply() + 2 {
            return false;
        }
        let hash = game.hash();
        let found = self.nodes[0].children().find_map(|mine| {
            let n = &self.nodes[mine];
            if !matches!(n.kind, Kind::Player(_)) {
                return None;
            }
            n.children().find(|&reply| {
                let mut after = last.clone();
                after.play_unchecked(n.action);
                after.play_unchecked(self.nodes[reply].action);
                after.hash() == hash
            })
        });
        let Some(node) = found else { return false };
        // Copied breadth first, each node's children kept together as `expand` made them.
        let old = std::mem::take(&mut self.nodes);
        self.nodes.push(old[node]);
        let mut queue = std::collections::VecDeque::from([(node, 0usize)]);
        while let Some((from, to)) = queue.pop_front() {
            let first = self.nodes.len();
            for (k, child) in old[from].children().enumerate() {
                self.nodes.push(old[child]);
                queue.push_back((child, first + k));
            }
            self.nodes[to].first_child = first as u32;
        }
        true
    }

    /// Whether a search that has run `done` iterations stops: at `config.iterations`, or
    /// by the clock at `deadline` (or at the node limit).
    fn budget_spent(&self, done: u32, deadline: Option<Instant>) -> bool {
        match deadline {
            None => done >= self.config.iterations,
            Some(deadline) => {
                done == u32::MAX
                    || self.nodes.len() >= CLOCK_NODE_LIMIT
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
                    let (c, stuck) = self.select(node, p);
                    // Every child proven lost yet this node unproven: can only follow a
                    // missed propagation; re-proving fixes it.
                    newly_proven |= stuck;
                    ret += f64::from(game.play_unchecked(self.nodes[c].action));
                    node = c;
                    self.path.push(c as u32);
                }
                Kind::Chance => {
                    let c = self.sample_event(node);
                    let r = game.apply_chance(self.nodes[c].action);
                    debug_assert!(r.is_ok(), "chance event from chance_outcomes refused");
                    node = c;
                    self.path.push(c as u32);
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

    /// Creates `node`'s children (moves shuffled, or chance events).
    fn expand(&mut self, node: usize, game: &G) {
        let first = self.nodes.len();
        let kind = match game.to_move() {
            ToMove::Player(p) => {
                game.legal_actions(&mut self.actions);
                self.actions.shuffle(&mut self.rng);
                self.nodes.extend(self.actions.iter().map(|&a| Node::new(a, 1.0)));
                Kind::Player(p)
            }
            ToMove::Chance => {
                game.chance_outcomes(&mut self.events);
                self.nodes.extend(self.events.iter().map(|&(a, p)| Node::new(a, p)));
                Kind::Chance
            }
        };
        let count = self.nodes.len() - first;
        let nd = &mut self.nodes[node];
        nd.first_child = first as u32;
        nd.num_children = count as u32;
        nd.kind = if count == 0 { Kind::Terminal } else { kind };
    }

    /// UCB1 over the children, first unvisited child first, skipping proven losses.
    /// Returns the child and whether every child was a proven loss.
    #[inline]
    fn select(&self, node: usize, mover: Player) -> (usize, bool) {
        let n = &self.nodes[node];
        let k = self.config.exploration * f64::from(n.visits.max(1)).ln().sqrt();
        let inv_scale = self.inv_scale();
        let flip = mover == Player::Second && self.one_player != Some(true);
        let lost = Proof::Win(mover.other());
        let mut best = usize::MAX;
        let mut best_score = f64::NEG_INFINITY;
        for i in n.children() {
            let c = &self.nodes[i];
            if c.visits == 0 {
                return (i, false);
            }
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
            (n.first_child as usize, true)
        } else {
            (best, false)
        }
    }

    /// Samples a chance child by its probability (a roulette over the stored probabilities:
    /// `choose_weighted` would build a cumulative table, an allocation, on every visit).
    #[inline]
    fn sample_event(&mut self, node: usize) -> usize {
        let range = self.nodes[node].children();
        let last = range.end - 1;
        let mut u = self.rng.random::<f32>();
        for i in range {
            u -= self.nodes[i].prob;
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
        for i in n.children() {
            let c = &self.nodes[i];
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

    /// The move to play: the shortest proven win, else the most visited move not proven
    /// lost (ties to the better mean), else the longest proven loss.
    fn best_child(&self) -> Option<usize> {
        let root = &self.nodes[0];
        if root.num_children == 0 {
            return None;
        }
        let mover = self.root_mover;
        let won = Proof::Win(mover);
        let lost = Proof::Win(mover.other());
        let range = root.children();
        if let Some(i) = range.clone().filter(|&i| self.nodes[i].proof == won).min_by_key(|&i| self.nodes[i].proof_len)
        {
            return Some(i);
        }
        let mut best: Option<(usize, u32, f64)> = None;
        for i in range.clone() {
            let c = &self.nodes[i];
            if c.proof == lost {
                continue;
            }
            let q = self.mean_for(c, mover);
            if best.is_none_or(|(_, v, bq)| c.visits > v || (c.visits == v && q > bq)) {
                best = Some((i, c.visits, q));
            }
        }
        if let Some((i, _, _)) = best {
            return Some(i);
        }
        range.max_by_key(|&i| (self.nodes[i].proof_len, self.nodes[i].visits))
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
        self.best_child().map_or(fallback, |i| self.nodes[i].action)
    }
}

/// Seed 001's Connect Four playout rules (take a win, block a loss, never play under an
/// opponent threat, keep the opponent's forbidden columns for later) as a rollout policy.
#[derive(Clone, Copy, Debug, Default)]
pub struct Connect4Rollout;

impl<B: dojo_game::connect4::BitWord> RolloutPolicy<dojo_game::connect4::Connect4<B>> for Connect4Rollout {
    #[inline]
    fn choose(&mut self, game: &dojo_game::connect4::Connect4<B>, rng: &mut Rng, _scratch: &mut Vec<Action>) -> Action {
        game.heuristic_move(rng)
    }
}
