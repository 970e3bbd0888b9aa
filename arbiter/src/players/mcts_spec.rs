//! `mcts:N`, `mcts:3s` and `uct:N`: Monte Carlo search with random rollouts (on Connect
//! Four, `mcts` rolls out by seed 001's rules unless told `:uniform`), the baselines every
//! game has.

use super::clock::clock_in;
use super::error::PlayerSpecProblem;
use super::kind::{own_players, Baseline, PlayerForm, PlayerKind};
use dojo_base::bits::{BitWord, Bits192};
use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_game::{AnyGame, FromAnyGame, Game};
use dojo_search::mcts::{Connect4Rollout, Mcts, MctsConfig, UniformRollout};
use dojo_search::player::{Agent, MoveError};
use rand::SeedableRng;
use std::fmt;
use std::time::Duration;

/// Rollouts per move of `mcts` and `uct` players when the spec names none.
pub const DEFAULT_ROLLOUTS: u32 = 1000;

/// The options an `mcts:` spec takes after its budget.
pub(super) const MCTS_OPTIONS: [&str; 4] = ["uniform", "fresh", "graph", "tree"];

/// Pure MCTS with `iterations` rollouts per move, or as many as `clock_ms` allows
/// (`mcts:3s`, `mcts:250ms`: seed 001's engine plays by the clock); Connect Four uses
/// seed 001's rollout rules unless `uniform` is set (`mcts:N:uniform`). By the clock it
/// keeps the subtree below the moves played from one move to the next unless `fresh`
/// (`mcts:3s:fresh`, a new tree every move, as `mcts:N` always searches). `graph`: a
/// Monte Carlo graph search, positions shared across move orders: by the clock unless
/// told `:tree` (`mcts:3s:tree`; the graph measured stronger at equal time), and for
/// `mcts:N` only when told `:graph` (`mcts:N` is the fixed reference every documented
/// score is measured against, so it stays the tree it always was).
#[derive(Clone, Debug, PartialEq)]
pub struct MctsSpec {
    pub iterations: u32,
    pub clock_ms: Option<u64>,
    pub uniform: bool,
    pub fresh: bool,
    pub graph: bool,
}

impl MctsSpec {
    /// `mcts:N`, seed 001's rollouts on Connect Four, a tree.
    pub fn rollouts(iterations: u32) -> MctsSpec {
        MctsSpec { iterations, clock_ms: None, uniform: false, fresh: false, graph: false }
    }

    /// Its search: `iterations` rollouts a move, or by the clock (keeping its tree between
    /// moves unless `fresh`), over a graph of positions or a tree.
    pub(super) fn config(&self) -> MctsConfig {
        let config = match self.clock_ms {
            Some(ms) => MctsConfig { reuse_tree: !self.fresh, ..MctsConfig::with_clock(Duration::from_millis(ms)) },
            None => MctsConfig::with_iterations(self.iterations),
        };
        MctsConfig { graph: self.graph, ..config }
    }

    /// Whether its spec says more than the name its search gives itself (`mcts:3s:fresh`,
    /// `mcts:3s:tree`, `mcts:1000:graph`), so a match tells them apart.
    fn renamed(&self) -> bool {
        self.fresh || self.graph != graph_by_default(self.clock_ms)
    }

    /// On Connect Four: seed 001's rollouts.
    fn connect4<B: BitWord>(&self, seed: u64) -> Baseline<Connect4<B>> {
        let search = Mcts::new(self.config(), Connect4Rollout, Rng::seed_from_u64(seed));
        Ok(named(search, self.to_string(), self.renamed()))
    }
}

/// Whether an `mcts` player searches a graph when its spec does not say: by the clock, where
/// the graph scored 58% against the tree at equal time (docs/saiblo.md); not for `mcts:N`.
fn graph_by_default(clock_ms: Option<u64>) -> bool {
    clock_ms.is_some()
}

/// The rollouts of `mcts:N` or `uct:N` (`kind`): N, at least 1, or the default.
fn rollouts(text: Option<&str>, kind: &'static str) -> Result<u32, PlayerSpecProblem> {
    let n = match text {
        None => DEFAULT_ROLLOUTS,
        Some(n) => n.parse().map_err(|_| PlayerSpecProblem::RolloutsNotANumber { kind })?,
    };
    if n == 0 {
        return Err(PlayerSpecProblem::NoRollouts { kind });
    }
    Ok(n)
}

impl PlayerKind for MctsSpec {
    const WORD: &'static str = "mcts";
    const FORMS: &'static [PlayerForm] = &[
        PlayerForm {
            syntax: "mcts:N",
            about: "pure MCTS, N rollouts a move (default 1000; Connect Four: seed 001's rollout rules)",
            example: "mcts:1000",
        },
        PlayerForm {
            syntax: "mcts:N:uniform",
            about: "the same with uniformly random rollouts",
            example: "mcts:50:uniform",
        },
        PlayerForm {
            syntax: "mcts:N:graph",
            about: "a Monte Carlo graph search (positions shared across move orders; :tree, a tree, is mcts:N's own)",
            example: "mcts:50:graph",
        },
        PlayerForm {
            syntax: "mcts:3s",
            about: "MCTS by the clock (3s, 1.5s, 250ms a move): a graph that keeps its tree between moves",
            example: "mcts:250ms",
        },
        PlayerForm {
            syntax: "mcts:3s:tree, mcts:3s:fresh",
            about: "by the clock over a tree; with a new search every move",
            example: "mcts:250ms:fresh:tree",
        },
    ];

    /// `mcts`, `mcts:N`, `mcts:3s` (by the clock), each with an optional `:uniform` and
    /// `:graph` or `:tree` (the default spelt out is accepted too), and by the clock `:fresh`.
    fn parse(rest: Option<&str>) -> Result<MctsSpec, PlayerSpecProblem> {
        let parts: Vec<&str> = rest.map(|r| r.split(':').collect()).unwrap_or_default();
        let clock_ms = match parts.first() {
            Some(text) => clock_in(text, "mcts:", "mcts")?,
            None => None,
        };
        let iterations = if clock_ms.is_some() { DEFAULT_ROLLOUTS } else { rollouts(parts.first().copied(), "mcts")? };
        let (mut uniform, mut fresh, mut shape) = (false, false, None);
        let wrong = || {
            PlayerSpecProblem::Form(
                "expected mcts:N, mcts:N:uniform, mcts:N:graph or mcts:3s (by the clock, a graph), mcts:3s:tree, mcts:3s:fresh for a new search every move",
            )
        };
        for option in parts.get(1..).unwrap_or_default() {
            // Only the registered options (the help lists every one: the registry's tests).
            if !MCTS_OPTIONS.contains(option) {
                return Err(wrong());
            }
            match *option {
                "uniform" if !uniform => uniform = true,
                "fresh" if !fresh && clock_ms.is_some() => fresh = true,
                "graph" | "tree" if shape.is_none() => shape = Some(*option == "graph"),
                _ => return Err(wrong()),
            }
        }
        let graph = shape.unwrap_or(graph_by_default(clock_ms));
        Ok(MctsSpec { iterations, clock_ms, uniform, fresh, graph })
    }

    fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, seed: u64) -> Baseline<G> {
        if !self.uniform {
            let connect4 = own_players::<G, Connect4<u64>>(|| self.connect4(seed))
                .or_else(|| own_players::<G, Connect4<Bits192>>(|| self.connect4(seed)));
            if let Some(player) = connect4 {
                return player;
            }
        }
        let search = Mcts::new(self.config(), UniformRollout, Rng::seed_from_u64(seed));
        Ok(named(search, self.to_string(), self.renamed()))
    }
}

impl fmt::Display for MctsSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mcts:{}", MctsSpec { fresh: false, graph: false, ..self.clone() }.config().budget_name())?;
        if self.uniform {
            write!(f, ":uniform")?;
        }
        if self.fresh {
            write!(f, ":fresh")?;
        }
        if self.graph != graph_by_default(self.clock_ms) {
            write!(f, "{}", if self.graph { ":graph" } else { ":tree" })?;
        }
        Ok(())
    }
}

/// Seed 004's UCT baseline, as issue 22 names it (`uct:N`): UCT with uniformly random
/// rollouts, `iterations` per move, on every game. The same player as `mcts:N:uniform`
/// (and, on 2048 and 2584, as `mcts:N`), under the name the tables use.
#[derive(Clone, Debug, PartialEq)]
pub struct UctSpec {
    pub iterations: u32,
}

impl PlayerKind for UctSpec {
    const WORD: &'static str = "uct";
    const FORMS: &'static [PlayerForm] = &[PlayerForm {
        syntax: "uct:N",
        about: "seed 004's UCT baseline: uniformly random rollouts, N a move (mcts:N:uniform by its own name)",
        example: "uct:1000",
    }];

    fn parse(rest: Option<&str>) -> Result<UctSpec, PlayerSpecProblem> {
        if rest.is_some_and(|r| r.contains(':')) {
            return Err(PlayerSpecProblem::Form("uct:N takes no options (mcts:N has them)"));
        }
        Ok(UctSpec { iterations: rollouts(rest, "uct")? })
    }

    fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, seed: u64) -> Baseline<G> {
        // The search names itself mcts:N; the player keeps the name it was asked for.
        let search = Mcts::new(MctsConfig::with_iterations(self.iterations), UniformRollout, Rng::seed_from_u64(seed));
        Ok(named(search, self.to_string(), true))
    }
}

impl fmt::Display for UctSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "uct:{}", self.iterations)
    }
}

/// A search that names itself by its budget (`mcts:3s`), under its spec's name where that
/// says more (`mcts:3s:fresh`), so a match tells the two apart.
fn named<G: Game, A: Agent<G> + 'static>(agent: A, name: String, rename: bool) -> Box<dyn Agent<G>> {
    if rename {
        Box::new(Named { agent, name })
    } else {
        Box::new(agent)
    }
}

/// An agent under another name (the name its spec was written with).
struct Named<A> {
    agent: A,
    name: String,
}

impl<G: Game, A: Agent<G>> Agent<G> for Named<A> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn new_game(&mut self, seed: u64) {
        self.agent.new_game(seed)
    }
    fn select_move(&mut self, game: &G) -> dojo_game::Action {
        self.agent.select_move(game)
    }
    fn try_select_move(&mut self, game: &G) -> Result<dojo_game::Action, MoveError> {
        self.agent.try_select_move(game)
    }
    fn clock_use(&self) -> Option<dojo_search::player::ClockUse> {
        self.agent.clock_use()
    }
}
