//! The search's one entry point: the network-guided search of a game, whichever algorithm
//! that game needs. Two-player games run the PUCT graph search ([`Search`], in Gumbel mode
//! too); one-player games with chance events (2048, 2584, pig) run the chance-node search
//! ([`ChanceSearch`], in Gumbel mode too). The choice is made once, from the first position searched, and every
//! caller (self-play's engine, the network player) asks this type and never the algorithms:
//! a new search setting or a change of algorithm is made here and in the search itself.

use super::chance::{ChanceConfig, ChanceSearch};
use super::config::SearchConfig;
use super::puct::{ChildStats, Proven, Search};
use super::step::{LeafSearch, Step};
use dojo_base::rng::Rng;
use dojo_game::{Action, Game};

/// The search of one game (or of one player's positions, one after another).
pub struct Searcher<G: Game> {
    state: State<G>,
}

/// Before the first root the algorithm is not chosen yet: what it will be built with.
enum State<G: Game> {
    Unrooted { config: SearchConfig, explore: bool, rng: Rng },
    Graph(Search<G>),
    Chance(ChanceSearch<G>),
}

impl<G: Game> Searcher<G> {
    /// A search with `config`; `explore` turns self-play's exploration on (root noise,
    /// forced visits, non-root noise; Gumbel noise in Gumbel mode). Matches and analysis
    /// search without it.
    pub fn new(config: SearchConfig, explore: bool, rng: Rng) -> Searcher<G> {
        Searcher { state: State::Unrooted { config, explore, rng } }
    }

    /// The algorithm for `game`, built from the settings given to [`Searcher::new`].
    fn choose(config: SearchConfig, explore: bool, rng: Rng, game: &G) -> State<G> {
        if game.is_one_player() {
            let chance = ChanceConfig::for_search(&config);
            State::Chance(ChanceSearch::new(config, chance, explore, rng))
        } else {
            State::Graph(Search::new(config, explore, rng))
        }
    }

    /// The search's settings.
    pub fn config(&self) -> &SearchConfig {
        match &self.state {
            State::Unrooted { config, .. } => config,
            State::Graph(s) => s.config(),
            State::Chance(s) => s.config(),
        }
    }

    /// Makes `game` the root, choosing the algorithm at the first root. The graph search
    /// keeps the part of its graph below `game` (with `search.reuse_tree`); the chance
    /// search starts afresh.
    pub fn set_root(&mut self, game: &G) {
        if let State::Unrooted { config, explore, rng } = &self.state {
            self.state = Self::choose(config.clone(), *explore, rng.clone(), game);
        }
        match &mut self.state {
            State::Unrooted { .. } => unreachable!("the algorithm was chosen above"),
            State::Graph(s) => s.set_root(game),
            State::Chance(s) => s.set_root(game),
        }
    }

    /// Moves the root on to `game`, the position after the move played (and its spawns),
    /// with exploration turned on or off for the searches from there (playout cap
    /// randomisation's full and fast searches). The graph search keeps what it can reuse.
    pub fn advance(&mut self, game: &G, explore: bool) {
        match &mut self.state {
            State::Unrooted { .. } => panic!("advance needs a root: set_root first"),
            State::Graph(s) => {
                s.set_exploration(explore);
                s.advance(game);
            }
            State::Chance(s) => {
                s.set_exploration(explore);
                s.set_root(game);
            }
        }
    }

    /// Draws the search's random choices from `rng` from now on.
    pub fn reseed(&mut self, rng: Rng) {
        match &mut self.state {
            State::Unrooted { rng: own, .. } => *own = rng,
            State::Graph(s) => s.reseed(rng),
            State::Chance(s) => s.reseed(rng),
        }
    }

    /// Forgets the graph (a new game begins). The chance search forgets at every root.
    pub fn clear(&mut self) {
        if let State::Graph(s) = &mut self.state {
            s.clear();
        }
    }

    /// Playouts since the root was set (0 before the first).
    pub fn playouts(&self) -> u32 {
        match &self.state {
            State::Unrooted { .. } => 0,
            State::Graph(s) => s.playouts(),
            State::Chance(s) => s.playouts(),
        }
    }

    /// The root's value as the network states it: the mover's expected result, or a
    /// one-player game's scaled return still to come (what a record stores).
    pub fn root_value(&self) -> f32 {
        match &self.state {
            State::Unrooted { .. } => panic!("no value before a root"),
            State::Graph(s) => s.root_value().0,
            State::Chance(s) => s.root_value(),
        }
    }

    /// Whether the root is proven won, lost or drawn (the graph search's tactics and
    /// solver; the chance search proves nothing).
    pub fn proven(&self) -> Proven {
        match &self.state {
            State::Graph(s) => s.root_value().1,
            State::Unrooted { .. } | State::Chance(_) => Proven::Unknown,
        }
    }

    /// Visits, priors and values of the root's moves.
    pub fn root_children(&self) -> Vec<ChildStats> {
        match &self.state {
            State::Unrooted { .. } => Vec::new(),
            State::Graph(s) => s.root_children(),
            State::Chance(s) => s.root_children(),
        }
    }

    /// The move to play: at temperature ~0 the search's choice (the most visited; in
    /// Gumbel mode, sequential halving's), else drawn by visits^(1/T).
    pub fn choose_move(&mut self, temperature: f32) -> Action {
        match &mut self.state {
            State::Unrooted { .. } => panic!("choose_move needs a search: set_root first"),
            State::Graph(s) => s.choose_move(temperature),
            State::Chance(s) => s.choose_move(temperature),
        }
    }

    /// The policy training target of the last search.
    pub fn policy_target(&self) -> Vec<(Action, f32)> {
        match &self.state {
            State::Unrooted { .. } => Vec::new(),
            State::Graph(s) => s.policy_target(),
            State::Chance(s) => s.policy_target(),
        }
    }
}

impl<G: Game> LeafSearch<G> for Searcher<G> {
    /// Runs playouts until one needs the network ([`Searcher::leaf`], then
    /// [`Searcher::deliver`]) or `budget` playouts are done: the form self-play batches.
    fn run(&mut self, budget: u32) -> Step {
        match &mut self.state {
            State::Unrooted { .. } => panic!("run needs a root: set_root first"),
            State::Graph(s) => s.run(budget),
            State::Chance(s) => s.run(budget),
        }
    }

    /// The position waiting for the network.
    fn leaf(&self) -> &G {
        match &self.state {
            State::Unrooted { .. } => panic!("no leaf before a root"),
            State::Graph(s) => s.leaf(),
            State::Chance(s) => s.leaf(),
        }
    }

    /// The network's logits and value for [`Searcher::leaf`].
    fn deliver(&mut self, logits: &[f32], value: f32) {
        match &mut self.state {
            State::Unrooted { .. } => panic!("nothing to deliver before a root"),
            State::Graph(s) => s.deliver(logits, value),
            State::Chance(s) => s.deliver(logits, value),
        }
    }
}
