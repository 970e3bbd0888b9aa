//! Player specs (`random`, `mcts:1000`, `uct:1000`, `solver`, `ntuple:w.bin`) and building
//! the agent a spec names for a given game.

use dojo_external::gomocup::manager::{BrainLimits, EngineAgent, EngineConfig, EngineError};
use dojo_external::saiblo::{StrategyAgent, StrategyConfig, StrategyError, DEFAULT_CLOCK_MS};
use dojo_game::connect4::{BitWord, Bits192, Connect4};
use dojo_game::gomoku::Gomoku;
use dojo_game::rng::Rng;
use dojo_game::sliding::{Fib2584, Sliding, Twenty48};
use dojo_game::util::SettingError;
use dojo_game::{AnyGame, FromAnyGame, Game, GameError, GameSpec};
use dojo_net::agent::{NetAgent, NetPlayerError};
use dojo_net::checkpoint::{self, CheckpointError};
use dojo_net::device::{set_threads, Device};
use dojo_ntuple::weight_file::NtupleError;
use dojo_ntuple::{self as ntuple, Network, NtupleAgent, TupleRules};
use dojo_search::config::SearchConfig;
use dojo_search::mcts::{Connect4Rollout, Mcts, MctsConfig, UniformRollout};
use dojo_search::player::{Agent, MoveError, RandomAgent};
use dojo_search::solver_agent::SolverAgent;
use rand::SeedableRng;
use std::any::{Any, TypeId};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime};

mod forms;
pub use forms::{PlayerForm, PLAYER_FORMS};

/// The players' help, one form a line, from the one registry ([`PLAYER_FORMS`]).
pub fn players_help() -> String {
    forms::help()
}

/// Every form's syntax, comma-separated, from the one registry.
pub fn player_syntaxes() -> String {
    forms::syntaxes()
}

/// What a player is, as typed on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// Uniformly random legal moves.
    Random,
    /// Pure MCTS with `iterations` rollouts per move, or as many as `clock_ms` allows
    /// (`mcts:3s`, `mcts:250ms`: seed 001's engine plays by the clock); Connect Four uses
    /// seed 001's rollout rules unless `uniform` is set (`mcts:N:uniform`). By the clock it
    /// keeps the subtree below the moves played from one move to the next unless `fresh`
    /// (`mcts:3s:fresh`, a new tree every move, as `mcts:N` always searches). `graph`: a
    /// Monte Carlo graph search, positions shared across move orders: by the clock unless
    /// told `:tree` (`mcts:3s:tree`; the graph measured stronger at equal time), and for
    /// `mcts:N` only when told `:graph` (`mcts:N` is the fixed reference every documented
    /// score is measured against, so it stays the tree it always was).
    Mcts { iterations: u32, clock_ms: Option<u64>, uniform: bool, fresh: bool, graph: bool },
    /// Seed 004's UCT baseline, as issue 22 names it (`uct:N`): UCT with uniformly random
    /// rollouts, `iterations` per move, on every game. The same player as `mcts:N:uniform`
    /// (and, on 2048 and 2584, as `mcts:N`), under the name the issue's tables use.
    Uct { iterations: u32 },
    /// The exact Connect Four solver (`solver` or `solver:NODES` for its per-move budget).
    Solver { max_nodes: u64 },
    /// A network checkpoint with the PUCT search: `net:PATH`, then the options `:sims=N`,
    /// `:cpuct=X`, `:noavg`, `:mode=gumbel` (Gumbel AlphaZero's search, without noise:
    /// sequential halving over `sims` simulations) and `:vcf=N` (threat-space search of N
    /// nodes at every expanded position, `search.vcf_nodes`; 0, the default, is off), e.g.
    /// `net:PATH:sims=400:cpuct=1.5`; and any other search setting by its name in the
    /// config's `[search]` section, `:KEY=VALUE` ([`SearchConfig::KEYS`], e.g.
    /// `:fpu_reduction=0.1`). The search starts from [`SearchConfig::for_play`] with
    /// [`DEFAULT_NET_SIMS`] playouts. `:clock=1s` (or `:clock=250ms`) searches each move for
    /// that long instead, as many playouts as fit (`clock_ms`): a match by the clock.
    ///
    /// By default every evaluation is averaged over the board's symmetries (KataGo's
    /// symmetry averaging, at k times the network cost: 2 for Connect Four, 8 for Gomoku):
    /// one network's judgement of a position and of its mirror image differ, and their
    /// mean plays stronger at the same playouts (Connect Four, 30-minute networks, 200
    /// playouts against `mcts:1000`: 84.8% → 88.7% of 600 games, and 88.5% → 92.2% with
    /// `cpuct=1.0`). `:noavg` evaluates the board as it stands. By the clock the default
    /// is the other way round ([`net_averages_by_default`]): `:clock=1s` alone evaluates
    /// the board as it stands, `:clock=1s:avg` averages.
    Net { path: PathBuf, average_symmetries: bool, search: SearchConfig, clock_ms: Option<u64> },
    /// An external Gomoku brain over the Gomocup protocol: `pbrain:COMMAND` (the rest of
    /// the spec is a shell command, e.g. `pbrain:dojo pbrain --model best.safetensors`),
    /// losing a game where it crashes, overruns `move_timeout_ms` or answers nonsense.
    /// `pbrain:nodes=N:COMMAND` and `pbrain:depth=D:COMMAND` (or both) cap its search by
    /// the protocol (`INFO MAX_NODE`, `INFO MAX_DEPTH`: Rapfi's ladder rungs);
    /// `pbrain:clock=1s:COMMAND` gives it its own time a move (`clock_ms`, told as `INFO
    /// timeout_turn`), which a match's `--move-timeout-ms` does not change;
    /// `pbrain:match=120s:COMMAND` its time for a whole game (`match_ms`, Gomocup's
    /// `INFO timeout_match`, with `INFO time_left` before every move), as Gomocup's fast
    /// games `pbrain:clock=5s:match=120s:COMMAND`.
    Pbrain { command: String, move_timeout_ms: u64, limits: BrainLimits, clock_ms: Option<u64>, match_ms: Option<u64> },
    /// A saiblo.net Connect Four strategy (seed 001), a shared object built from the
    /// platform's C++ interface: `saiblo:PATH.so` (the rest of the spec is the path). It
    /// plays boards with one blocked cell, in a fresh process each game, and loses a game
    /// where it crashes, hangs past `clock_ms`, or answers an illegal or unreadable point
    /// ([`dojo_external::saiblo`]).
    Saiblo { path: PathBuf, clock_ms: u64 },
    /// An n-tuple network for 2048 or 2584 (`dojo ntuple train`): `ntuple:PATH`, greedy by
    /// after-state value, or `ntuple:PATH:depth=D` for an expectimax search `D` player moves
    /// deep (1 = greedy, 2 = seed 000's search).
    Ntuple { path: PathBuf, depth: u32 },
}

/// A player spec that does not parse: the spec as given, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad player spec {spec:?}: {why}")]
pub struct PlayerSpecError {
    pub spec: String,
    pub why: PlayerSpecProblem,
}

/// Why a player spec does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerSpecProblem {
    /// What the spec should look like, or what it lacks (`ntuple:PATH needs the weight file`).
    #[error("{0}")]
    Form(&'static str),
    /// A spec of no form the registry knows: the forms it knows.
    #[error("expected {}", forms::syntaxes())]
    Unknown,
    #[error("{kind}:N needs a number of rollouts, e.g. {kind}:1000")]
    RolloutsNotANumber { kind: &'static str },
    #[error("{kind} needs at least 1 rollout")]
    NoRollouts { kind: &'static str },
    /// A clock of 0 for `who` (`mcts`, `pbrain`, `a net: player`).
    #[error("{who} needs a clock of at least 1 ms")]
    ZeroClock { who: &'static str },
    /// `text` after `prefix` (`mcts:`, `clock=`) is not a time.
    #[error("{prefix}{text} is not a time: {prefix}3s, {prefix}1.5s or {prefix}250ms")]
    NotATime { prefix: &'static str, text: String },
    /// A brain's cap (`key`: nodes or depth) that is not a whole number above 0.
    #[error("pbrain:{key}={}:COMMAND needs a whole number above 0, not {key}={value}", if *key == "nodes" { "N" } else { "D" })]
    BrainCap { key: &'static str, value: String },
    #[error("depth must be in 1..={MAX_NTUPLE_DEPTH} (1 = greedy)")]
    NtupleDepth,
    /// A `net:` search setting refused in the settings table's words.
    #[error("{0}")]
    Search(SettingError),
}

/// Why a player cannot be built, or cannot play a game. A wrapped error's text is part of
/// the message and not also its `source()`, so that `dojo`'s `{:#}` does not print it twice.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// The solver asked to play a game that is not Connect Four (`game`, where known).
    #[error("the solver player only plays Connect Four{}", not_game(.game))]
    SolverGame { game: Option<GameSpec> },
    #[error("this board is too big for the solver: it needs width × (height + 1) <= 64")]
    SolverBoard,
    /// A Gomocup brain asked to play a game that is not Gomoku (`game`, where known).
    #[error("pbrain: players (Gomocup brains) only play Gomoku{}", not_game(.game))]
    PbrainGame { game: Option<GameSpec> },
    #[error("ntuple: players only play 2048 and 2584")]
    NtupleGame,
    /// The game to play cannot start.
    #[error(transparent)]
    Game(#[from] GameError),
    /// A network player's checkpoint cannot be read (boxed: a checkpoint's error is large,
    /// and building a player returns this often).
    #[error(transparent)]
    Checkpoint(Box<CheckpointError>),
    /// An n-tuple player's weights cannot be read.
    #[error(transparent)]
    Ntuple(#[from] NtupleError),
    /// An n-tuple weights file that cannot be looked at.
    #[error("{}: {error}", .path.display())]
    NtupleFile { path: PathBuf, error: std::io::Error },
    #[error("{} holds n-tuple weights for {weights}, not {game}", .path.display())]
    NtupleWeights { path: PathBuf, weights: GameSpec, game: GameSpec },
    /// A network player that cannot be built from its checkpoint.
    #[error(transparent)]
    NetPlayer(#[from] NetPlayerError),
    #[error("{} is a network for {network}, not {game}", .path.display())]
    NetworkGame { path: PathBuf, network: GameSpec, game: GameSpec },
    /// A board a network cannot play (another game's).
    #[error(transparent)]
    Board(#[from] MoveError),
    #[error("{spec} is not a network player (net:CHECKPOINT)")]
    NotNet { spec: String },
    /// A saiblo strategy asked to play a game that is not Connect Four (`game`, where known).
    #[error("saiblo: players (saiblo strategies) only play Connect Four{}", not_game(.game))]
    SaibloGame { game: Option<GameSpec> },
    /// A saiblo strategy asked to play a board without exactly one blocked cell.
    #[error("saiblo: players (saiblo strategies) play boards with one blocked cell (connect4:saiblo, connect4:WxH:C.R), not {game}")]
    SaibloBoard { game: GameSpec },
    /// A saiblo strategy that does not load.
    #[error("{spec}: {error}")]
    Strategy { spec: String, error: StrategyError },
    /// A brain (`spec`) that does not start, or does not answer `ABOUT`.
    #[error("{spec}: {error}")]
    Engine { spec: String, error: EngineError },
}

impl From<CheckpointError> for PlayerError {
    fn from(error: CheckpointError) -> PlayerError {
        PlayerError::Checkpoint(Box::new(error))
    }
}

/// ", not GAME" where the game is known.
fn not_game(game: &Option<GameSpec>) -> String {
    game.as_ref().map(|g| format!(", not {g}")).unwrap_or_default()
}

/// A brain's time per move unless told otherwise (`--move-timeout`).
pub const DEFAULT_MOVE_TIMEOUT_MS: u64 = 5_000;

pub const DEFAULT_NET_SIMS: u32 = dojo_search::config::PLAY_SIMULATIONS;

/// The deepest n-tuple search a spec may ask for. Each level multiplies the work by about
/// 4 × 2 × the empty cells: on 2048, one core plays about 500 000 moves/s greedy, 15 000 at
/// depth 2 and 900 at depth 3, so depths past 4 are for a few positions, not for games.
pub const MAX_NTUPLE_DEPTH: u32 = 6;

impl PlayerSpec {
    /// A network player with the default options and `sims` playouts.
    pub fn net(path: impl Into<PathBuf>, sims: u32) -> PlayerSpec {
        PlayerSpec::Net {
            path: path.into(),
            average_symmetries: true,
            search: SearchConfig::for_play(sims),
            clock_ms: None,
        }
    }

    /// Whether the player answers a position with the same move every time: a network's
    /// search plays without noise, so two networks from one position play one game.
    pub fn is_deterministic(&self) -> bool {
        matches!(self, PlayerSpec::Net { .. })
    }
}

impl PlayerSpec {
    /// The game the player's own file is for (a network checkpoint's, n-tuple weights'),
    /// or None for a player without one; a file that cannot be read is an error naming it.
    pub fn own_game(&self) -> Result<Option<GameSpec>, PlayerError> {
        match self {
            PlayerSpec::Net { path, .. } => Ok(Some(checkpoint::read_sidecar(path)?.architecture.game)),
            PlayerSpec::Ntuple { path, .. } => Ok(Some(ntuple::read_header(path)?.spec)),
            _ => Ok(None),
        }
    }
}

/// The game a command plays: `given` (its `--game`), else the game of the first player
/// with a file of its own (a checkpoint, n-tuple weights), else `fallback`. Every command
/// given a checkpoint plays its game unless told otherwise.
pub fn game_of<'a>(
    given: Option<GameSpec>,
    players: impl IntoIterator<Item = &'a PlayerSpec>,
    fallback: GameSpec,
) -> Result<GameSpec, PlayerError> {
    if let Some(game) = given {
        return Ok(game);
    }
    for player in players {
        if let Some(game) = player.own_game()? {
            return Ok(game);
        }
    }
    Ok(fallback)
}

impl PlayerSpec {
    /// The spec with an external player's time per move set, where `ms` is given (each
    /// kind has its own default; dojo's own players have no clock).
    pub fn with_move_timeout(self, ms: Option<u64>) -> PlayerSpec {
        match (self, ms) {
            (PlayerSpec::Pbrain { command, limits, clock_ms, match_ms, .. }, Some(ms)) => {
                PlayerSpec::Pbrain { command, move_timeout_ms: ms, limits, clock_ms, match_ms }
            }
            (PlayerSpec::Saiblo { path, .. }, Some(ms)) => PlayerSpec::Saiblo { path, clock_ms: ms },
            (other, _) => other,
        }
    }
}

pub const DEFAULT_SOLVER_NODES: u64 = 20_000_000;

/// Rollouts per move of `mcts` and `uct` players when the spec names none.
pub const DEFAULT_ROLLOUTS: u32 = 1000;

/// The rollouts of `mcts:N` or `uct:N` (`kind`): N, at least 1, or the default.
fn rollouts(text: Option<&&str>, kind: &'static str) -> Result<u32, PlayerSpecProblem> {
    let n = match text {
        None => DEFAULT_ROLLOUTS,
        Some(n) => n.parse().map_err(|_| PlayerSpecProblem::RolloutsNotANumber { kind })?,
    };
    if n == 0 {
        return Err(PlayerSpecProblem::NoRollouts { kind });
    }
    Ok(n)
}

/// The clock of `mcts:3s` or `mcts:250ms` in milliseconds (at least 1); None for text
/// that is not a time (a number of rollouts).
fn clock(text: &str) -> Result<Option<u64>, PlayerSpecProblem> {
    clock_in(text, "mcts:", "mcts")
}

/// A time that is not one, as a command's `--clock` was given it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    #[error("{text} is not a time: 3s, 1.5s or 250ms")]
    NotATime { text: String },
    #[error("a clock needs at least 1 ms")]
    Zero,
}

/// A clock given on its own (`1s`, `1.5s`, `250ms`: a command's `--clock`) in milliseconds.
pub fn parse_clock(text: &str) -> Result<u64, ClockError> {
    millis(text).unwrap_or_else(|| Err(ClockError::NotATime { text: text.to_string() }))
}

/// `text` (`3s`, `1.5s`, `250ms`) in milliseconds, at least 1; None for text without a
/// unit (a number of rollouts, say).
fn millis(text: &str) -> Option<Result<u64, ClockError>> {
    let ms = if let Some(ms) = text.strip_suffix("ms") {
        ms.parse::<u64>().ok()
    } else if let Some(secs) = text.strip_suffix('s') {
        secs.parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e9).map(|s| (s * 1000.0).round() as u64)
    } else {
        return None;
    };
    Some(match ms {
        None => Err(ClockError::NotATime { text: text.to_string() }),
        Some(0) => Err(ClockError::Zero),
        Some(ms) => Ok(ms),
    })
}

/// [`clock_in`] where only a time will do.
fn required_clock(text: &str, prefix: &'static str, who: &'static str) -> Result<u64, PlayerSpecProblem> {
    clock_in(text, prefix, who)?.ok_or_else(|| PlayerSpecProblem::NotATime { prefix, text: text.to_string() })
}

/// The clock of the option written `{prefix}TIME` of `who` (a spec's words for its errors);
/// None for text that is not a time.
fn clock_in(text: &str, prefix: &'static str, who: &'static str) -> Result<Option<u64>, PlayerSpecProblem> {
    match millis(text) {
        None => Ok(None),
        Some(Ok(ms)) => Ok(Some(ms)),
        Some(Err(ClockError::Zero)) => Err(PlayerSpecProblem::ZeroClock { who }),
        Some(Err(ClockError::NotATime { .. })) => Err(PlayerSpecProblem::NotATime { prefix, text: text.to_string() }),
    }
}

/// The short names `net:` specs have for search settings, and the settings they name.
/// The order a `net:` spec prints the settings that differ from its default: these first,
/// then `:noavg`, then these, then every other by the table's order. It is the order specs
/// have always been printed in, and tournament and gating journals name players by that
/// text. (What a setting is called, short or not, is its row's: [`SearchConfig::KEYS`].)
const PRINTED_BEFORE_NOAVG: [&str; 2] = ["simulations", "c_puct"];
const PRINTED_AFTER_NOAVG: [&str; 2] = ["mode", "vcf_nodes"];

impl FromStr for PlayerSpec {
    type Err = PlayerSpecError;
    fn from_str(s: &str) -> Result<PlayerSpec, PlayerSpecError> {
        let bad = |why: PlayerSpecProblem| PlayerSpecError { spec: s.to_string(), why };
        // A brain's command is taken whole: it may hold ':' and spaces.
        if let Some(rest) = s.trim().strip_prefix("pbrain:") {
            return parse_pbrain(rest).map_err(bad);
        }
        // So is a strategy's path.
        if let Some(path) = s.trim().strip_prefix("saiblo:") {
            if path.trim().is_empty() {
                return Err(bad(PlayerSpecProblem::Form(
                    "saiblo:PATH needs the strategy's shared object, e.g. saiblo:Strategy.so",
                )));
            }
            return Ok(PlayerSpec::Saiblo { path: path.trim().into(), clock_ms: DEFAULT_CLOCK_MS });
        }
        let parts: Vec<&str> = s.trim().split(':').collect();
        match parts.as_slice() {
            ["random"] => Ok(PlayerSpec::Random),
            ["mcts", rest @ ..] => parse_mcts(rest).map_err(bad),
            ["uct"] | ["uct", _] => Ok(PlayerSpec::Uct { iterations: rollouts(parts.get(1), "uct").map_err(bad)? }),
            ["net", rest @ ..] if !rest.is_empty() => parse_net(rest).map_err(bad),
            ["ntuple", rest @ ..] if !rest.is_empty() => parse_ntuple(rest).map_err(bad),
            ["solver"] => Ok(PlayerSpec::Solver { max_nodes: DEFAULT_SOLVER_NODES }),
            ["solver", n] => Ok(PlayerSpec::Solver {
                max_nodes: n.parse().map_err(|_| {
                    bad(PlayerSpecProblem::Form("solver:NODES needs a node budget, e.g. solver:20000000"))
                })?,
            }),
            _ => Err(bad(PlayerSpecProblem::Unknown)),
        }
    }
}

/// The options a `pbrain:` spec takes before its command, `KEY=VALUE:` each.
const PBRAIN_OPTIONS: [&str; 4] = ["nodes", "depth", "clock", "match"];

/// The options an `mcts:` spec takes after its budget.
const MCTS_OPTIONS: [&str; 4] = ["uniform", "fresh", "graph", "tree"];

/// A `net:` spec's options besides its search settings: averaging and the clock.
const NET_OPTIONS: [&str; 3] = ["avg", "noavg", "clock"];

/// `pbrain:[nodes=N:][depth=D:][clock=T:][match=T:]COMMAND`: the text after `pbrain:`, or
/// why it is not a player. Only those four keys are options, so a command is never
/// mistaken for one.
fn parse_pbrain(mut rest: &str) -> Result<PlayerSpec, PlayerSpecProblem> {
    let mut limits = BrainLimits::default();
    let (mut clock_ms, mut match_ms) = (None, None);
    loop {
        let trimmed = rest.trim_start();
        let Some((key, after)) =
            PBRAIN_OPTIONS.iter().find_map(|k| Some((*k, trimmed.strip_prefix(k)?.strip_prefix('=')?)))
        else {
            break;
        };
        let (value, command) = after.split_once(':').unwrap_or((after, ""));
        if key == "clock" || key == "match" {
            let (prefix, slot) =
                if key == "clock" { ("pbrain:clock=", &mut clock_ms) } else { ("pbrain:match=", &mut match_ms) };
            *slot = Some(required_clock(value, prefix, "pbrain")?);
            rest = command;
            continue;
        }
        let cap = || PlayerSpecProblem::BrainCap { key, value: value.to_string() };
        if key == "nodes" {
            limits.max_nodes = Some(value.parse().ok().filter(|&n| n > 0).ok_or_else(cap)?);
        } else {
            limits.max_depth = Some(value.parse().ok().filter(|&d| d > 0).ok_or_else(cap)?);
        }
        rest = command;
    }
    let command = rest.trim();
    if command.is_empty() {
        return Err(PlayerSpecProblem::Form("pbrain:COMMAND needs the command that starts the brain"));
    }
    Ok(PlayerSpec::Pbrain {
        command: command.into(),
        move_timeout_ms: DEFAULT_MOVE_TIMEOUT_MS,
        limits,
        clock_ms,
        match_ms,
    })
}

/// `mcts:N`, `mcts:3s` (by the clock), each with an optional `:uniform` and `:graph` or
/// `:tree` (the default spelt out is accepted too), and by the clock `:fresh`: the parts
/// after `mcts`, or why they are not a player.
fn parse_mcts(rest: &[&str]) -> Result<PlayerSpec, PlayerSpecProblem> {
    let clock_ms = rest.first().map(|text| clock(text)).transpose()?.flatten();
    let iterations = if clock_ms.is_some() { DEFAULT_ROLLOUTS } else { rollouts(rest.first(), "mcts")? };
    let (mut uniform, mut fresh, mut shape) = (false, false, None);
    let wrong = || {
        PlayerSpecProblem::Form(
            "expected mcts:N, mcts:N:uniform, mcts:N:graph or mcts:3s (by the clock, a graph), mcts:3s:tree, mcts:3s:fresh for a new search every move",
        )
    };
    for option in rest.get(1..).unwrap_or_default() {
        // Only the registered options (the help lists every one: forms.rs's tests).
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
    let graph = shape.unwrap_or(mcts_graph_by_default(clock_ms));
    Ok(PlayerSpec::Mcts { iterations, clock_ms, uniform, fresh, graph })
}

/// Whether an `mcts` player searches a graph when its spec does not say: by the clock, where
/// the graph scored 58% against the tree at equal time (docs/saiblo.md); not for `mcts:N`.
fn mcts_graph_by_default(clock_ms: Option<u64>) -> bool {
    clock_ms.is_some()
}

/// Whether a `net` player averages its evaluations over the board's symmetries when its
/// spec does not say: when it searches a number of playouts, where averaging plays
/// stronger at the same playouts; not by the clock, where the k evaluations a playout cost
/// k times fewer playouts (on 15×15 Gomoku 5.3 times: 1,988 evaluations a second at a
/// batch of one, 2,990 at a batch of eight, 374 averaged playouts; the shipped network at
/// 1 s a move without averaging scored 62.5% of 48 games against itself with it, and 5 of
/// 16 against Rapfi at 1 s where averaging won 3; docs/gomoku-ladder.md).
pub fn net_averages_by_default(clock_ms: Option<u64>) -> bool {
    clock_ms.is_none()
}

/// `net:PATH[:OPTION...]`: the parts after `net`, or why they are not a player.
fn parse_net(rest: &[&str]) -> Result<PlayerSpec, PlayerSpecProblem> {
    // The path may itself contain ':'; only trailing options are options.
    let mut path = rest;
    let mut search = SearchConfig::for_play(DEFAULT_NET_SIMS);
    let mut averaging = None;
    let mut clock_ms = None;
    while let Some((last, before)) = path.split_last() {
        if before.is_empty() {
            break;
        } else if *last == NET_OPTIONS[0] || *last == NET_OPTIONS[1] {
            averaging = Some(*last == NET_OPTIONS[0]);
        } else if let Some(value) = last.strip_prefix(NET_OPTIONS[2]).and_then(|v| v.strip_prefix('=')) {
            clock_ms = Some(required_clock(value, "clock=", "a net: player")?);
        } else if let Some((key, value)) = last.split_once('=') {
            // A name no setting has is part of the path, as it always was.
            let Ok(setting) = SearchConfig::key(key) else { break };
            setting.set(&mut search, value).map_err(PlayerSpecProblem::Search)?;
        } else {
            break;
        }
        path = before;
    }
    // Refused in the table's words, as `--set search.KEY=VALUE` is.
    search.validate().map_err(PlayerSpecProblem::Search)?;
    let average_symmetries = averaging.unwrap_or_else(|| net_averages_by_default(clock_ms));
    Ok(PlayerSpec::Net { path: PathBuf::from(path.join(":")), average_symmetries, search, clock_ms })
}

/// `ntuple:PATH[:depth=D]`: the parts after `ntuple`, or why they are not a player.
fn parse_ntuple(rest: &[&str]) -> Result<PlayerSpec, PlayerSpecProblem> {
    // The path may itself contain ':'; only a trailing depth=D is an option.
    let (path, depth) = match rest.split_last() {
        Some((last, before)) if !before.is_empty() && last.starts_with("depth=") => {
            let d = last["depth=".len()..]
                .parse::<u32>()
                .map_err(|_| PlayerSpecProblem::Form("depth=D needs a whole number of moves, e.g. depth=2"))?;
            (before, d)
        }
        _ => (rest, 1),
    };
    if !(1..=MAX_NTUPLE_DEPTH).contains(&depth) {
        return Err(PlayerSpecProblem::NtupleDepth);
    }
    if path.join(":").is_empty() {
        return Err(PlayerSpecProblem::Form("ntuple:PATH needs the weight file"));
    }
    Ok(PlayerSpec::Ntuple { path: PathBuf::from(path.join(":")), depth })
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Random => write!(f, "random"),
            PlayerSpec::Mcts { iterations, clock_ms, uniform, fresh, graph } => {
                write!(f, "mcts:{}", mcts_config(*iterations, *clock_ms, false, false).budget_name())?;
                if *uniform {
                    write!(f, ":uniform")?;
                }
                if *fresh {
                    write!(f, ":fresh")?;
                }
                if *graph != mcts_graph_by_default(*clock_ms) {
                    write!(f, "{}", if *graph { ":graph" } else { ":tree" })?;
                }
                Ok(())
            }
            PlayerSpec::Uct { iterations } => write!(f, "uct:{iterations}"),
            PlayerSpec::Solver { max_nodes } if *max_nodes == DEFAULT_SOLVER_NODES => write!(f, "solver"),
            PlayerSpec::Solver { max_nodes } => write!(f, "solver:{max_nodes}"),
            PlayerSpec::Net { path, average_symmetries, search, clock_ms } => {
                write!(f, "net:{}", path.display())?;
                // Settings that differ from a spec's default, by the names specs use, in the
                // order specs have always been printed (tournaments and gating journals name
                // players by this text).
                let base = SearchConfig::for_play(DEFAULT_NET_SIMS);
                let option = |name: &str| {
                    let key = SearchConfig::key(name).expect("a setting of the table");
                    let value = key.value(search);
                    (value != key.value(&base)).then(|| format!(":{}={value}", key.spec_name()))
                };
                let listed = |name: &&str| PRINTED_BEFORE_NOAVG.contains(name) || PRINTED_AFTER_NOAVG.contains(name);
                let others = SearchConfig::KEYS.iter().map(|k| k.name).filter(|name| !listed(name));
                let mut options: String = PRINTED_BEFORE_NOAVG.into_iter().filter_map(option).collect();
                if *average_symmetries != net_averages_by_default(*clock_ms) {
                    options.push_str(if *average_symmetries { ":avg" } else { ":noavg" });
                }
                options.extend(PRINTED_AFTER_NOAVG.into_iter().chain(others).filter_map(option));
                write!(f, "{options}")?;
                if let Some(ms) = clock_ms {
                    write!(f, ":clock={}", clock_name(*ms))?;
                }
                Ok(())
            }
            PlayerSpec::Pbrain { command, limits, clock_ms, match_ms, .. } => {
                write!(f, "pbrain:")?;
                if let Some(nodes) = limits.max_nodes {
                    write!(f, "nodes={nodes}:")?;
                }
                if let Some(depth) = limits.max_depth {
                    write!(f, "depth={depth}:")?;
                }
                if let Some(ms) = clock_ms {
                    write!(f, "clock={}:", clock_name(*ms))?;
                }
                if let Some(ms) = match_ms {
                    write!(f, "match={}:", clock_name(*ms))?;
                }
                write!(f, "{command}")
            }
            PlayerSpec::Saiblo { path, .. } => write!(f, "saiblo:{}", path.display()),
            PlayerSpec::Ntuple { path, depth } => {
                write!(f, "ntuple:{}", path.display())?;
                if *depth != 1 {
                    write!(f, ":depth={depth}")?;
                }
                Ok(())
            }
        }
    }
}

/// A clock as specs write it: `1s`, `1.5s`, `250ms`.
fn clock_name(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else if ms > 1000 && ms.is_multiple_of(100) {
        format!("{}s", ms as f64 / 1000.0)
    } else {
        format!("{ms}ms")
    }
}

/// A search of `iterations` rollouts a move, or by the clock (keeping its tree between
/// moves unless `fresh`), over a graph of positions or a tree.
fn mcts_config(iterations: u32, clock_ms: Option<u64>, fresh: bool, graph: bool) -> MctsConfig {
    let config = match clock_ms {
        Some(ms) => MctsConfig { reuse_tree: !fresh, ..MctsConfig::with_clock(Duration::from_millis(ms)) },
        None => MctsConfig::with_iterations(iterations),
    };
    MctsConfig { graph, ..config }
}

/// Whether an `mcts` player's spec says more than the name its search gives itself
/// (`mcts:3s:fresh`, `mcts:3s:tree`, `mcts:1000:graph`), so a match tells them apart.
fn mcts_renamed(clock_ms: Option<u64>, fresh: bool, graph: bool) -> bool {
    fresh || graph != mcts_graph_by_default(clock_ms)
}

/// A baseline player of the game `G`, or why it cannot be built.
type Baseline<G> = Result<Box<dyn Agent<G>>, PlayerError>;

/// The baseline players of a game: those every game has ([`generic_baseline`]) and, for
/// the games that have them, their own (seed 001's rollouts, the solver, a saiblo strategy,
/// a Gomocup brain, an n-tuple network). Every game has them, so a game added to
/// `dojo_game` needs nothing here.
pub trait BaselinePlayers: Game + FromAnyGame + Into<AnyGame> + Sized {
    fn baseline(spec: &PlayerSpec, seed: u64) -> Result<Box<dyn Agent<Self>>, PlayerError>;
}

impl<G: Game + FromAnyGame + Into<AnyGame>> BaselinePlayers for G {
    fn baseline(spec: &PlayerSpec, seed: u64) -> Baseline<G> {
        own_players::<G, Connect4<u64>>(spec, seed, connect4_baseline)
            .or_else(|| own_players::<G, Connect4<Bits192>>(spec, seed, connect4_wide_baseline))
            .or_else(|| own_players::<G, Gomoku>(spec, seed, gomoku_baseline))
            .or_else(|| own_players::<G, Twenty48>(spec, seed, sliding_baseline))
            .or_else(|| own_players::<G, Fib2584>(spec, seed, sliding_baseline))
            .unwrap_or_else(|| generic_baseline(spec, seed))
    }
}

/// The players `build` makes for the game `H`, when the game `G` is `H`; None for any other
/// game. Code generic over every game reaches one game's own players through this, so the
/// games need no trait of the arbiter's (the type check makes the downcast sure).
fn own_players<G: Game, H: Game>(
    spec: &PlayerSpec,
    seed: u64,
    build: fn(&PlayerSpec, u64) -> Baseline<H>,
) -> Option<Baseline<G>> {
    if TypeId::of::<G>() != TypeId::of::<H>() {
        return None;
    }
    let agent = match build(spec, seed) {
        Ok(agent) => agent,
        Err(error) => return Some(Err(error)),
    };
    let erased: Box<dyn Any> = Box::new(agent);
    Some(Ok(*erased.downcast::<Box<dyn Agent<G>>>().expect("G and H are the same type")))
}

/// The players every game has: random and MCTS with uniform rollouts.
fn generic_baseline<G: Game + FromAnyGame>(spec: &PlayerSpec, seed: u64) -> Baseline<G> {
    let rng = Rng::seed_from_u64(seed);
    match *spec {
        PlayerSpec::Random => Ok(Box::new(RandomAgent::new(rng))),
        PlayerSpec::Mcts { iterations, clock_ms, fresh, graph, .. } => {
            let search = Mcts::new(mcts_config(iterations, clock_ms, fresh, graph), UniformRollout, rng);
            Ok(named(search, spec, mcts_renamed(clock_ms, fresh, graph)))
        }
        // The search names itself mcts:N; the player keeps the name it was asked for.
        PlayerSpec::Uct { iterations } => Ok(Box::new(Named {
            agent: Mcts::new(mcts_config(iterations, None, false, false), UniformRollout, rng),
            name: spec.to_string(),
        })),
        PlayerSpec::Solver { .. } => Err(PlayerError::SolverGame { game: None }),
        PlayerSpec::Pbrain { .. } => Err(PlayerError::PbrainGame { game: None }),
        PlayerSpec::Saiblo { .. } => Err(PlayerError::SaibloGame { game: None }),
        PlayerSpec::Ntuple { .. } => Err(PlayerError::NtupleGame),
        PlayerSpec::Net { .. } => {
            // Matches run players on several threads: one libtorch thread each.
            set_threads(1);
            Ok(Box::new(net_player(spec, seed, Device::Cpu, None)?))
        }
    }
}

/// The network player a `net:` spec names, on `device`: the one place a network player is
/// built. With `game` (its spec and a position), the checkpoint is checked against it: an
/// any-size network plays every board of its game (in a frame grown for a board larger
/// than it trained on: [`NetAgent::any_size`]), any other network only its own board.
pub fn net_player<G: Game + FromAnyGame>(
    spec: &PlayerSpec,
    seed: u64,
    device: Device,
    game: Option<(&GameSpec, &G)>,
) -> Result<NetAgent<G>, PlayerError> {
    let PlayerSpec::Net { path, average_symmetries, search, clock_ms } = spec else {
        return Err(PlayerError::NotNet { spec: spec.to_string() });
    };
    // (An unreadable sidecar is reported by the load below.)
    let any_size = checkpoint::read_sidecar(path).is_ok_and(|s| s.architecture.any_size);
    let expect = game.map(|g| g.0).filter(|_| !any_size);
    let loaded = checkpoint::load(path, device, expect)?;
    let name = spec.to_string();
    let rng = Rng::seed_from_u64(seed);
    let mut agent = NetAgent::from_checkpoint(path, loaded, search.clone(), *average_symmetries, name, rng)?
        .with_clock(clock_ms.map(Duration::from_millis));
    if let Some((_, position)) = game {
        agent.check_board(position)?;
    }
    Ok(agent)
}

/// A search that names itself by its budget (`mcts:3s`), under its spec's name where that
/// says more (`mcts:3s:fresh`), so a match tells the two apart.
fn named<G: Game, A: Agent<G> + 'static>(agent: A, spec: &PlayerSpec, rename: bool) -> Box<dyn Agent<G>> {
    if rename {
        Box::new(Named { agent, name: spec.to_string() })
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

/// Connect Four players on any board: MCTS with seed 001's rollouts, a saiblo strategy.
fn connect4_players<B: BitWord>(spec: &PlayerSpec, seed: u64) -> Baseline<Connect4<B>>
where
    Connect4<B>: FromAnyGame,
{
    match *spec {
        PlayerSpec::Mcts { iterations, clock_ms, uniform: false, fresh, graph } => {
            let config = mcts_config(iterations, clock_ms, fresh, graph);
            let search = Mcts::new(config, Connect4Rollout, Rng::seed_from_u64(seed));
            Ok(named(search, spec, mcts_renamed(clock_ms, fresh, graph)))
        }
        PlayerSpec::Saiblo { ref path, clock_ms } => {
            Ok(Box::new(StrategyAgent::new(strategy_config(path, clock_ms), spec.to_string())))
        }
        _ => generic_baseline(spec, seed),
    }
}

/// Connect Four on a board that fits 64 bits: its players and the solver.
fn connect4_baseline(spec: &PlayerSpec, seed: u64) -> Baseline<Connect4<u64>> {
    match *spec {
        PlayerSpec::Solver { max_nodes } => Ok(Box::new(SolverAgent::new(max_nodes, Rng::seed_from_u64(seed)))),
        _ => connect4_players(spec, seed),
    }
}

/// Connect Four on a larger board: its players, but no solver.
fn connect4_wide_baseline(spec: &PlayerSpec, seed: u64) -> Baseline<Connect4<Bits192>> {
    match *spec {
        PlayerSpec::Solver { .. } => Err(PlayerError::SolverBoard),
        _ => connect4_players(spec, seed),
    }
}

/// 2048 and 2584: the generic players and n-tuple networks.
fn sliding_baseline<R: TupleRules>(spec: &PlayerSpec, seed: u64) -> Baseline<Sliding<R>>
where
    Sliding<R>: FromAnyGame,
{
    match spec {
        PlayerSpec::Ntuple { path, depth } => {
            Ok(Box::new(NtupleAgent::new(shared_network::<R>(path)?, *depth, spec.to_string())))
        }
        _ => generic_baseline(spec, seed),
    }
}

/// Networks loaded and still in use, by file (with its size and time, so a rewritten file
/// is loaded afresh): a match builds one player per thread, and a 2584 network is 700 MiB.
type NetworkCache = Vec<(PathBuf, u64, Option<SystemTime>, Weak<dyn Any + Send + Sync>)>;
static NETWORKS: Mutex<NetworkCache> = Mutex::new(Vec::new());

/// The network in `path`, shared with every other player using it now.
pub fn shared_network<R: TupleRules>(path: &Path) -> Result<Arc<Network<R>>, PlayerError> {
    let meta = std::fs::metadata(path).map_err(|error| PlayerError::NtupleFile { path: path.to_path_buf(), error })?;
    let key = (path.to_path_buf(), meta.len(), meta.modified().ok());
    // Held while loading, so threads asking at once load the file once.
    let mut cache = NETWORKS.lock().unwrap_or_else(|p| p.into_inner());
    cache.retain(|(.., w)| w.strong_count() > 0);
    for (p, len, time, weak) in cache.iter() {
        if (p, *len, *time) == (&key.0, key.1, key.2) {
            if let Some(net) = weak.upgrade().and_then(|a| a.downcast::<Network<R>>().ok()) {
                return Ok(net);
            }
        }
    }
    let net = Arc::new(ntuple::weight_file::load::<R>(path, false)?);
    let erased: Arc<dyn Any + Send + Sync> = net.clone();
    cache.push((key.0, key.1, key.2, Arc::downgrade(&erased)));
    Ok(net)
}

/// Gomoku: the generic players and Gomocup brains.
fn gomoku_baseline(spec: &PlayerSpec, seed: u64) -> Baseline<Gomoku> {
    match engine_config(spec) {
        Some(config) => Ok(Box::new(EngineAgent::new(config, spec.to_string()))),
        None => generic_baseline(spec, seed),
    }
}

/// How the brain of a `pbrain:` spec is run (None for another spec): its own clock a move
/// where it has one, else the match's.
fn engine_config(spec: &PlayerSpec) -> Option<EngineConfig> {
    let PlayerSpec::Pbrain { command, move_timeout_ms, limits, clock_ms, match_ms } = spec else { return None };
    Some(EngineConfig {
        command: command.to_string(),
        move_timeout: Duration::from_millis(clock_ms.unwrap_or(*move_timeout_ms)),
        limits: *limits,
        match_timeout: match_ms.map(Duration::from_millis),
    })
}

fn strategy_config(path: &Path, clock_ms: u64) -> StrategyConfig {
    StrategyConfig::new(path, Duration::from_millis(clock_ms))
}

/// Checks a brain starts, takes `game`'s largest board (a random spec, gomoku:9-15, starts
/// it on each) and plays its rule.
fn check_brain(spec: &PlayerSpec, game: &GameSpec) -> Result<(), PlayerError> {
    let (Some(config), ("gomoku", Some((size, _)))) = (engine_config(spec), (game.family(), game.largest_board()))
    else {
        return Err(PlayerError::PbrainGame { game: Some(game.clone()) });
    };
    let mut brain = EngineAgent::new(config, spec.to_string());
    let error = |error| PlayerError::Engine { spec: spec.to_string(), error };
    brain.about(&Gomoku::new(size)?).map(|_| ()).map_err(error)
}

/// Checks a spec can play `game` before a long run starts (e.g. the solver on Gomoku).
pub fn check_player_for(spec: &PlayerSpec, game: &GameSpec) -> Result<(), PlayerError> {
    match spec {
        PlayerSpec::Solver { .. } if game.family() != "connect4" => {
            Err(PlayerError::SolverGame { game: Some(game.clone()) })
        }
        PlayerSpec::Pbrain { .. } => check_brain(spec, game),
        PlayerSpec::Saiblo { path, clock_ms } => {
            if game.family() != "connect4" {
                return Err(PlayerError::SaibloGame { game: Some(game.clone()) });
            }
            // A concrete board must have its one blocked cell; connect4:saiblo's boards do.
            if matches!(game, GameSpec::Connect4 { blocked, .. } if blocked.len() != 1) {
                return Err(PlayerError::SaibloBoard { game: game.clone() });
            }
            StrategyAgent::check(&strategy_config(path, *clock_ms))
                .map_err(|error| PlayerError::Strategy { spec: spec.to_string(), error })
        }
        PlayerSpec::Ntuple { path, .. } => {
            let header = ntuple::read_header(path)?;
            if header.spec.family() == game.family() {
                Ok(())
            } else {
                Err(PlayerError::NtupleWeights { path: path.clone(), weights: header.spec, game: game.clone() })
            }
        }
        PlayerSpec::Net { path, .. } => {
            let side = checkpoint::read_sidecar(path)?;
            let arch = &side.architecture;
            // An any-size network plays every board of its game ([`NetAgent::any_size`]);
            // another network only its own (not the boards a random spec draws).
            let ok = arch.game == *game || (arch.any_size && arch.game.family() == game.family());
            if ok {
                Ok(())
            } else {
                Err(PlayerError::NetworkGame {
                    path: path.clone(),
                    network: side.architecture.game,
                    game: game.clone(),
                })
            }
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_search::config::SearchMode;

    /// A spec's kind, by the word that opens it (exhaustive: a new kind of player is a
    /// compile error here until the registry test below knows it).
    fn kind(spec: &PlayerSpec) -> &'static str {
        match spec {
            PlayerSpec::Random => "random",
            PlayerSpec::Mcts { .. } => "mcts",
            PlayerSpec::Uct { .. } => "uct",
            PlayerSpec::Solver { .. } => "solver",
            PlayerSpec::Net { .. } => "net",
            PlayerSpec::Pbrain { .. } => "pbrain",
            PlayerSpec::Saiblo { .. } => "saiblo",
            PlayerSpec::Ntuple { .. } => "ntuple",
        }
    }

    #[test]
    fn every_form_and_option_the_parser_takes_is_in_the_help_and_the_error() {
        let help = players_help();
        let unknown = "alphago".parse::<PlayerSpec>().unwrap_err().to_string();
        let mut kinds = std::collections::BTreeSet::new();
        for form in PLAYER_FORMS {
            assert!(help.contains(form.syntax), "the help lacks {}", form.syntax);
            assert!(unknown.contains(form.syntax), "the error lacks {}: {unknown}", form.syntax);
            let spec = form.example.parse::<PlayerSpec>().unwrap_or_else(|e| panic!("{}: {e}", form.example));
            kinds.insert(kind(&spec));
        }
        let all = ["mcts", "net", "ntuple", "pbrain", "random", "saiblo", "solver", "uct"];
        assert_eq!(kinds.into_iter().collect::<Vec<_>>(), all, "a kind of player has no form in the registry");
        // Every option word the parser takes, each in a form of its kind.
        let shown = |kind: &str, word: String| {
            let found = PLAYER_FORMS.iter().any(|f| f.syntax.starts_with(kind) && f.syntax.contains(&word));
            assert!(found, "no {kind} form shows {word}");
        };
        MCTS_OPTIONS.iter().for_each(|o| shown("mcts:", format!(":{o}")));
        PBRAIN_OPTIONS.iter().for_each(|o| shown("pbrain:", format!(":{o}=")));
        NET_OPTIONS.iter().for_each(|o| shown("net:", format!(":{o}")));
        for name in PRINTED_BEFORE_NOAVG.into_iter().chain(PRINTED_AFTER_NOAVG).chain(["rollouts"]) {
            shown("net:", format!(":{}=", SearchConfig::key(name).unwrap().spec_name()));
        }
        for issue_74 in ["saiblo:PATH.so", "mcts:3s", "uct:N", ":clock=", ":vcf=", ":rollouts=", "pbrain:nodes="] {
            assert!(help.contains(issue_74), "{issue_74}");
        }
    }

    #[test]
    fn player_specs_parse_and_print() {
        for text in [
            "random",
            "mcts:1000",
            "mcts:50:uniform",
            "mcts:3s",
            "mcts:250ms:uniform",
            "uct:20",
            "solver",
            "solver:1000",
            "net:a/b.safetensors",
            "net:c:d.json:sims=50",
            "net:c:d.json:sims=50:cpuct=1.5:noavg",
            "net:e.json:noavg",
            "net:e.json:sims=32:mode=gumbel",
            "net:c:d.json:sims=16:noavg:mode=gumbel",
            "net:g.json:sims=800:vcf=2000",
            "ntuple:w.bin",
            "ntuple:a:b.bin:depth=3",
            "pbrain:clock=5s:match=120s:engine --flag",
        ] {
            assert_eq!(text.parse::<PlayerSpec>().unwrap().to_string(), text);
        }
        assert_eq!(
            "mcts".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Mcts { iterations: 1000, clock_ms: None, uniform: false, fresh: false, graph: false }
        );
        // uct:N is seed 004's baseline under its own name; uct alone has mcts's default.
        assert_eq!("uct:20".parse::<PlayerSpec>().unwrap(), PlayerSpec::Uct { iterations: 20 });
        assert_eq!("uct".parse::<PlayerSpec>().unwrap().to_string(), "uct:1000");
        // Network players average over symmetries and explore at PLAY_C_PUCT unless told.
        assert_eq!("net:x.json:sims=7".parse::<PlayerSpec>().unwrap(), PlayerSpec::net("x.json", 7));
        assert_eq!(
            "net:x.json".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Net {
                path: PathBuf::from("x.json"),
                average_symmetries: true,
                search: SearchConfig {
                    simulations: 200,
                    c_puct: 1.0,
                    mode: SearchMode::Puct,
                    ..SearchConfig::for_play(200)
                },
                clock_ms: None,
            }
        );
        // `:avg` (the default) is still accepted and prints as nothing.
        assert_eq!("net:x.json:avg".parse::<PlayerSpec>().unwrap().to_string(), "net:x.json");
        // Options come in any order; a path may hold ':' but not end in an option.
        assert_eq!(
            "net:a:b:noavg:cpuct=2.5:sims=9".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Net {
                path: PathBuf::from("a:b"),
                average_symmetries: false,
                search: SearchConfig { c_puct: 2.5, ..SearchConfig::for_play(9) },
                clock_ms: None,
            }
        );
        // The search mode: Gumbel in any position among the options; puct prints as nothing.
        assert_eq!(
            "net:a:mode=gumbel:sims=32".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Net {
                path: PathBuf::from("a"),
                average_symmetries: true,
                search: SearchConfig { mode: SearchMode::Gumbel, ..SearchConfig::for_play(32) },
                clock_ms: None,
            }
        );
        assert_eq!("net:x.json:mode=puct".parse::<PlayerSpec>().unwrap().to_string(), "net:x.json");
        assert_eq!("net:noavg".parse::<PlayerSpec>().unwrap(), PlayerSpec::net("noavg", DEFAULT_NET_SIMS));
        // An n-tuple player is greedy unless told; a path may hold ':'.
        assert_eq!(
            "ntuple:x:y.bin".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::Ntuple { path: PathBuf::from("x:y.bin"), depth: 1 }
        );
        assert_eq!("ntuple:w.bin:depth=1".parse::<PlayerSpec>().unwrap().to_string(), "ntuple:w.bin");
        for (bad, why) in [
            ("net:x:sims=0", "at least 1"),
            ("net:x:cpuct=0", "search.c_puct = 0 must be positive"),
            ("net:x:cpuct=fast", r#"search.c_puct = "fast": expected a number"#),
            ("net:x:mode=alphabeta", r#"search.mode = "alphabeta": expected "puct" or "gumbel""#),
            ("net:x:vcf=lots", r#"search.vcf_nodes = "lots": expected a whole number"#),
            ("net:x:sims=many", r#"search.simulations = "many": expected a whole number"#),
            ("net", "expected random"),
            ("mcts:x", "needs a number"),
            ("mcts:0", "at least 1"),
            ("mcts:0s", "mcts needs a clock of at least 1 ms"),
            ("mcts:fasts", "mcts:fasts is not a time: mcts:3s, mcts:1.5s or mcts:250ms"),
            ("mcts:3s:gumbel", "expected mcts:N, mcts:N:uniform, mcts:N:graph or mcts:3s (by the clock, a graph)"),
            ("uct:0", "uct needs at least 1 rollout"),
            ("uct:many", "uct:N needs a number of rollouts, e.g. uct:1000"),
            ("uct:20:uniform", "expected random, mcts:N, mcts:N:uniform, mcts:N:graph, mcts:3s,"),
            ("alphago", "expected random"),
            ("ntuple", "expected random"),
            ("ntuple:w.bin:depth=0", "depth must be in 1..=6"),
            ("ntuple:w.bin:depth=x", "depth=D needs a whole number"),
            ("ntuple:w.bin:depth=7", "depth must be in 1..=6"),
        ] {
            let err = bad.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn net_specs_set_any_search_setting_by_its_config_name() {
        let spec: PlayerSpec = "net:a:b.json:fpu_reduction=0.1:sims=64:tactics=false:c_puct=2".parse().unwrap();
        let search = SearchConfig { fpu_reduction: 0.1, tactics: false, c_puct: 2.0, ..SearchConfig::for_play(64) };
        assert_eq!(
            spec,
            PlayerSpec::Net { path: PathBuf::from("a:b.json"), average_symmetries: true, search, clock_ms: None }
        );
        // Printed with the short names first, then the others in the table's order.
        assert_eq!(spec.to_string(), "net:a:b.json:sims=64:cpuct=2:fpu_reduction=0.1:tactics=false");
        assert_eq!(spec.to_string().parse::<PlayerSpec>().unwrap(), spec);
        // A setting's own name and its short name are one setting.
        assert_eq!("net:x:simulations=7:vcf_nodes=9".parse::<PlayerSpec>().unwrap().to_string(), "net:x:sims=7:vcf=9");
        for (bad, why) in [
            ("net:x:fpu_reduction=lots", r#"search.fpu_reduction = "lots": expected a number"#),
            ("net:x:forced_visits=some", r#"search.forced_visits = "some": expected "off", "min:N" or "katago:K""#),
            ("net:x:dirichlet_epsilon=2", "search.dirichlet_epsilon = 2 must be within 0..=1"),
            ("net:x:simulations=0", "search.simulations must be at least 1"),
        ] {
            let err = bad.parse::<PlayerSpec>().unwrap_err();
            assert!(err.to_string().contains(why), "{bad}: {err}");
        }
        // A name that no setting has stays part of the path.
        let PlayerSpec::Net { path, .. } = "net:runs/x=1:sims=5".parse::<PlayerSpec>().unwrap() else { panic!() };
        assert_eq!(path, PathBuf::from("runs/x=1"));
    }

    #[test]
    fn clocks_are_part_of_net_and_pbrain_specs() {
        let spec = |text: &str| text.parse::<PlayerSpec>().unwrap();
        // A network by the clock: its other options as before, the clock printed last.
        let net = spec("net:a:b.json:clock=1s:sims=50");
        assert!(matches!(&net, PlayerSpec::Net { clock_ms: Some(1000), search, .. } if search.simulations == 50));
        assert_eq!(net.to_string(), "net:a:b.json:sims=50:clock=1s");
        assert_eq!(spec("net:x:clock=250ms").to_string(), "net:x:clock=250ms");
        assert_eq!(spec("net:x:clock=1.5s").to_string(), "net:x:clock=1.5s");
        assert_eq!(spec(&net.to_string()), net);
        // By the clock a network evaluates the board as it stands unless told `avg`; by
        // playouts it averages unless told `noavg`: each prints only what differs.
        let averages = |text: &str| matches!(spec(text), PlayerSpec::Net { average_symmetries: true, .. });
        assert!(!averages("net:x:clock=1s") && averages("net:x:avg:clock=1s") && !averages("net:x:noavg:clock=1s"));
        assert!(averages("net:x") && averages("net:x:avg") && !averages("net:x:noavg"));
        for (text, printed) in [
            ("net:x:clock=1s", "net:x:clock=1s"),
            ("net:x:noavg:clock=1s", "net:x:clock=1s"),
            ("net:x:clock=1s:avg", "net:x:avg:clock=1s"),
            ("net:x:avg", "net:x"),
            ("net:x:noavg", "net:x:noavg"),
        ] {
            assert_eq!(spec(text).to_string(), printed, "{text}");
            assert_eq!(spec(printed), spec(text), "{printed}");
        }
        // A brain with its own time a move, which a match's --move-timeout-ms leaves alone.
        let brain = spec("pbrain:nodes=10:clock=1.5s:engine --flag");
        assert!(
            matches!(&brain, PlayerSpec::Pbrain { clock_ms: Some(1500), command, .. } if command == "engine --flag")
        );
        assert_eq!(brain.to_string(), "pbrain:nodes=10:clock=1.5s:engine --flag");
        let timed = brain.clone().with_move_timeout(Some(60_000));
        assert!(matches!(timed, PlayerSpec::Pbrain { clock_ms: Some(1500), move_timeout_ms: 60_000, .. }));
        // Rollout MCTS by the clock keeps its tree between moves unless told `fresh`.
        let fresh = spec("mcts:250ms:fresh:uniform");
        assert_eq!(
            fresh,
            PlayerSpec::Mcts {
                iterations: DEFAULT_ROLLOUTS,
                clock_ms: Some(250),
                uniform: true,
                fresh: true,
                graph: true
            }
        );
        assert_eq!(fresh.to_string(), "mcts:250ms:uniform:fresh");
        assert_eq!(spec(&fresh.to_string()), fresh);
        assert!(mcts_config(0, Some(250), false, true).reuse_tree && !mcts_config(0, Some(250), true, true).reuse_tree);
        let agent = Connect4::<u64>::baseline(&spec("mcts:250ms:fresh"), 1).unwrap();
        assert_eq!(agent.name(), "mcts:250ms:fresh", "a match tells it from mcts:250ms");
        let err = "mcts:1000:fresh".parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(err.contains("mcts:3s:tree, mcts:3s:fresh for a new search every move"), "{err}");
        // By the clock a graph unless told `tree`; by rollouts a tree unless told `graph`.
        // The name is the shortest spec that says which (a match tells them apart by it).
        for (text, graph, name) in [
            ("mcts:3s", true, "mcts:3s"),
            ("mcts:3s:graph", true, "mcts:3s"),
            ("mcts:3s:tree", false, "mcts:3s:tree"),
            ("mcts:250ms:fresh:tree", false, "mcts:250ms:fresh:tree"),
            ("mcts:1000", false, "mcts:1000"),
            ("mcts:1000:tree", false, "mcts:1000"),
            ("mcts:1000:graph", true, "mcts:1000:graph"),
        ] {
            let parsed = spec(text);
            assert!(matches!(parsed, PlayerSpec::Mcts { graph: g, .. } if g == graph), "{text}");
            assert_eq!(parsed.to_string(), name);
            assert_eq!(spec(name), parsed, "{name} reads back");
            assert_eq!(Connect4::<u64>::baseline(&parsed, 1).unwrap().name(), name);
        }
        for wrong in ["mcts:3s:graph:graph", "mcts:3s:tree:graph", "mcts:1000:graph:tree"] {
            let err = wrong.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(err.contains("mcts:N:graph or mcts:3s (by the clock, a graph), mcts:3s:tree"), "{wrong}: {err}");
        }
        assert_eq!(parse_clock("2s"), Ok(2000));
        assert_eq!(parse_clock("2").unwrap_err().to_string(), "2 is not a time: 3s, 1.5s or 250ms");
        assert_eq!(parse_clock("0ms"), Err(ClockError::Zero));
        for (bad, why) in [
            ("net:x:clock=fast", "clock=fast is not a time: clock=3s, clock=1.5s or clock=250ms"),
            ("net:x:clock=5s5", "clock=5s5 is not a time: clock=3s"),
            ("net:x:clock=0ms", "a net: player needs a clock of at least 1 ms"),
            ("pbrain:clock=soon:engine", "pbrain:clock=soon is not a time: pbrain:clock=3s"),
            ("pbrain:clock=0s:engine", "pbrain needs a clock of at least 1 ms"),
            ("mcts:0ms", "mcts needs a clock of at least 1 ms"),
        ] {
            let err = bad.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn uct_is_mcts_with_uniform_rollouts_under_its_own_name() {
        use dojo_game::sliding::Twenty48;
        let spec = |text: &str| text.parse::<PlayerSpec>().unwrap();
        // Connect Four's mcts:N uses seed 001's rollouts; uct:N is mcts:N:uniform.
        let board = Connect4::<u64>::standard();
        let mut uct = Connect4::<u64>::baseline(&spec("uct:30"), 1).unwrap();
        let mut uniform = Connect4::<u64>::baseline(&spec("mcts:30:uniform"), 2).unwrap();
        assert_eq!(uct.name(), "uct:30");
        for seed in 0..4 {
            uct.new_game(seed);
            uniform.new_game(seed);
            assert_eq!(uct.select_move(&board), uniform.select_move(&board), "seed {seed}");
        }
        // 2048's mcts:N is the same player.
        let mut rng = Rng::seed_from_u64(5);
        let game = Sliding::new_game(dojo_game::sliding::Rules2048, &mut rng);
        let mut uct = Twenty48::baseline(&spec("uct:10"), 1).unwrap();
        let mut mcts = Twenty48::baseline(&spec("mcts:10"), 2).unwrap();
        for seed in 0..4 {
            uct.new_game(seed);
            mcts.new_game(seed);
            assert_eq!(uct.select_move(&game), mcts.select_move(&game), "seed {seed}");
        }
    }
}
