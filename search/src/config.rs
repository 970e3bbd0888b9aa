//! Settings of the network-guided search and of self-play, with the defaults a user gets
//! when the config file says nothing.
//!
//! A run's whole configuration, which holds these, is `dojo_run::config`: one concept
//! (settings) in two layers.

use dojo_base::util::SettingError;
use dojo_game::returns::{ReturnScale, DEFAULT_MAX_RETURN};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Forced minimum visits per root child in self-play.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum ForcedVisits {
    Off,
    /// Every root child at least N visits (AlphaFive uses 2).
    Min(u32),
    /// KataGo's `sqrt(k · P · N)` forced playouts.
    KataGo(f32),
}

impl FromStr for ForcedVisits {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<Self, SettingError> {
        let bad = || SettingError::not_a_choice("bad forced_visits", s, r#""off", "min:N" or "katago:K""#);
        match s.split_once(':') {
            None if s == "off" => Ok(ForcedVisits::Off),
            Some(("min", n)) => n.parse().map(ForcedVisits::Min).map_err(|_| bad()),
            Some(("katago", k)) => match k.parse::<f32>() {
                Ok(k) if k > 0.0 && k.is_finite() => Ok(ForcedVisits::KataGo(k)),
                _ => Err(bad()),
            },
            _ => Err(bad()),
        }
    }
}

impl TryFrom<String> for ForcedVisits {
    type Error = SettingError;
    fn try_from(s: String) -> Result<Self, SettingError> {
        s.parse()
    }
}

impl fmt::Display for ForcedVisits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ForcedVisits::Off => write!(f, "off"),
            ForcedVisits::Min(n) => write!(f, "min:{n}"),
            ForcedVisits::KataGo(k) => write!(f, "katago:{k}"),
        }
    }
}

impl From<ForcedVisits> for String {
    fn from(v: ForcedVisits) -> String {
        v.to_string()
    }
}

/// Which search the network drives (`search.mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum SearchMode {
    /// AlphaZero's PUCT selection, visit counts as the policy target.
    #[default]
    Puct,
    /// Gumbel AlphaZero (Danihelka et al., 2022): Gumbel-top-k and sequential halving at
    /// the root, the completed-Q improved policy as the target ([`super::gumbel`]).
    Gumbel,
}

impl FromStr for SearchMode {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<Self, SettingError> {
        match s {
            "puct" => Ok(SearchMode::Puct),
            "gumbel" => Ok(SearchMode::Gumbel),
            _ => Err(SettingError::not_a_choice("bad search mode", s, r#""puct" or "gumbel""#)),
        }
    }
}

impl TryFrom<String> for SearchMode {
    type Error = SettingError;
    fn try_from(s: String) -> Result<Self, SettingError> {
        s.parse()
    }
}

impl fmt::Display for SearchMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SearchMode::Puct => "puct",
            SearchMode::Gumbel => "gumbel",
        })
    }
}

impl From<SearchMode> for String {
    fn from(m: SearchMode) -> String {
        m.to_string()
    }
}

/// The network-guided search's knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Playouts per move. In Gumbel mode, the simulations sequential halving spreads over
    /// the root's moves (the root's own evaluation, when it has none yet, comes on top).
    pub simulations: u32,
    /// `"puct"` (AlphaZero) or `"gumbel"` (Gumbel AlphaZero, meant for 16-64 simulations).
    /// Gumbel mode has no Dirichlet noise, forced visits or pruning (its Gumbel noise is the
    /// exploration, on in self-play's full searches) and no move temperature: self-play
    /// plays the move sequential halving ends on, which the noise makes a sample.
    pub mode: SearchMode,
    /// Gumbel mode: how many root moves Gumbel-top-k samples (mctx's
    /// `max_num_considered_actions`, 16).
    pub gumbel_considered: u32,
    /// Gumbel mode: `c_visit` of `σ(q̂) = (c_visit + max_b N(b)) · c_scale · q̂` (50).
    pub gumbel_c_visit: f32,
    /// Gumbel mode: `c_scale` of σ (mctx's `value_scale`, 0.1).
    pub gumbel_c_scale: f32,
    /// Exploration constant of PUCT.
    pub c_puct: f32,
    /// First-play urgency: unvisited moves are valued at the parent's Q minus this times
    /// sqrt(policy mass already visited) (Leela/KataGo).
    pub fpu_reduction: f32,
    /// Weight of Dirichlet noise in the root priors during self-play (AlphaZero: 0.25).
    pub dirichlet_epsilon: f32,
    /// Dirichlet α; 0 means "scale with the number of legal moves" (10 / legal, as KataGo).
    pub dirichlet_alpha: f32,
    /// AlphaFive's weaker noise at every non-root node in self-play (0.1 there); 0 = off.
    pub nonroot_noise_epsilon: f32,
    /// Forced visits per root child in self-play.
    pub forced_visits: ForcedVisits,
    /// Remove forced visits from the policy target (KataGo's pruning).
    pub prune_forced: bool,
    /// Keep the searched subgraph below the move played for the next search.
    pub reuse_tree: bool,
    /// Look one ply ahead at every expanded position (seed 001's rollout rules in the tree):
    /// a move that wins at once is proven and taken, and moves that hand the opponent an
    /// immediate win are not searched, so a few hundred playouts never miss a one-move
    /// tactic however the network rates it.
    pub tactics: bool,
    /// With `tactics`, look two plies deeper ([`dojo_game::tactics::Tactics::two_step_lookahead`]):
    /// seed 001's two-step kills. A move after which the opponent is lost at once (a double
    /// threat) proves the node won, and moves that hand the opponent such a kill are not
    /// searched. Games without a cheap exact version (Gomoku) keep the one-ply lookahead.
    pub two_step_kills: bool,
    /// Threat-space search at every expanded position, at most this many nodes per search
    /// ([`dojo_game::tactics::Tactics::threat_search`]; Gomoku's VCF prover, victory by continuous
    /// fours): a forced win of the side to move is proven and taken, and where the opponent
    /// would have one, only the moves that refute it are searched (none: proven lost).
    /// 0 = off (the default: docs/gomoku-vcf.md has its cost and what it does in play).
    pub vcf_nodes: u32,
    /// Rollouts at every expanded position that the lookahead leaves undecided, played by
    /// the game's rollout policy ([`dojo_game::tactics::Tactics::rollout_result`]; Connect Four's is
    /// seed 001's) and mixed into the network's value: `(1 - rollout_weight) · v +
    /// rollout_weight · mean`, AlphaGo's mixed leaf evaluation. 0 = off (the default); games
    /// without a rollout policy keep the network's value. `dojo export saiblo` turns it on
    /// (docs/saiblo.md has what it does by the clock).
    pub rollouts: u32,
    /// The rollouts' share of a leaf's value (AlphaGo's λ), within 0..=1.
    pub rollout_weight: f32,
    /// One-player games (2048, 2584): the return (points still to come) that the network's
    /// value output 1 stands for; values and value targets are `h(G) / h(max_return)`
    /// with MuZero's `h` ([`dojo_game::returns::ReturnScale`]). Returns above it are clipped by
    /// the tanh head, so set it above the best scores the run will see.
    pub max_return: f64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            simulations: 200,
            mode: SearchMode::Puct,
            gumbel_considered: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 0.1,
            c_puct: 1.5,
            fpu_reduction: 0.2,
            dirichlet_epsilon: 0.25,
            dirichlet_alpha: 0.0,
            nonroot_noise_epsilon: 0.0,
            forced_visits: ForcedVisits::KataGo(2.0),
            prune_forced: true,
            reuse_tree: true,
            tactics: true,
            two_step_kills: true,
            vcf_nodes: 0,
            rollouts: 0,
            rollout_weight: 0.5,
            max_return: DEFAULT_MAX_RETURN,
        }
    }
}

/// One search setting as text: its name (the `[search]` section's key, a `net:PATH:KEY=VALUE`
/// option, `--set search.KEY=VALUE`), the short name a `net:` spec may use instead
/// (`sims` for `simulations`), how it is read from text and printed, and a line of help.
/// Every front end reads [`SearchConfig::KEYS`], so a new setting is a field of
/// [`SearchConfig`] and a row of the table below, and nothing else.
pub struct SearchKey {
    pub name: &'static str,
    /// The short name, where the setting has one: `net:PATH:sims=400` (a `net:` spec prints
    /// it by this name), and wherever a setting is named (`--set search.sims=400`).
    pub short: Option<&'static str>,
    pub help: &'static str,
    get: fn(&SearchConfig) -> String,
    set: fn(&mut SearchConfig, &str) -> Result<(), SettingError>,
}

impl SearchKey {
    /// The setting's value in `config`, as text that [`SearchKey::set`] reads back.
    pub fn value(&self, config: &SearchConfig) -> String {
        (self.get)(config)
    }

    /// Sets the setting in `config` from `text`; text of the wrong type names the setting
    /// and the text. Ranges are [`SearchConfig::validate`]'s to check.
    pub fn set(&self, config: &mut SearchConfig, text: &str) -> Result<(), SettingError> {
        (self.set)(config, text)
    }

    /// Whether `name` names this setting: its name or its short name.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name || self.short == Some(name)
    }

    /// The name a spec prints it by: the short one where it has one.
    pub fn spec_name(&self) -> &'static str {
        self.short.unwrap_or(self.name)
    }
}

/// A setting's type as text: what [`SearchKey`] parses and prints, and the words for what
/// it takes when a text is none of it.
trait SettingText: FromStr + fmt::Display {
    const EXPECTED: &'static str;
}

impl SettingText for u32 {
    const EXPECTED: &'static str = "a whole number";
}

impl SettingText for f32 {
    const EXPECTED: &'static str = "a number";
}

impl SettingText for f64 {
    const EXPECTED: &'static str = "a number";
}

impl SettingText for bool {
    const EXPECTED: &'static str = "true or false";
}

impl SettingText for SearchMode {
    const EXPECTED: &'static str = r#""puct" or "gumbel""#;
}

impl SettingText for ForcedVisits {
    const EXPECTED: &'static str = r#""off", "min:N" or "katago:K""#;
}

fn parse_setting<T: SettingText>(key: &'static str, text: &str) -> Result<T, SettingError> {
    text.trim().parse().map_err(|_| SettingError::BadValue { key, text: text.to_string(), expected: T::EXPECTED })
}

/// The table's rows: each field's name (`field / short` where it has a short name), read and
/// printed through its type's `FromStr` and `Display` (which serde's text of the enums uses
/// too), and its help line.
macro_rules! search_keys {
    (@short) => { None };
    (@short $short:ident) => { Some(stringify!($short)) };
    ($($field:ident $(/ $short:ident)?: $help:literal,)*) => {
        const SEARCH_KEYS: &[SearchKey] = &[$(SearchKey {
            name: stringify!($field),
            short: search_keys!(@short $($short)?),
            help: $help,
            get: |config| config.$field.to_string(),
            set: |config, text| {
                config.$field = parse_setting(concat!("search.", stringify!($field)), text)?;
                Ok(())
            },
        },)*];
    };
}

search_keys! {
    simulations / sims: "playouts per move (Gumbel mode: simulations spread by sequential halving)",
    mode: "the search: puct (AlphaZero) or gumbel (Gumbel AlphaZero, for 16-64 simulations)",
    gumbel_considered: "Gumbel mode: root moves Gumbel-top-k samples",
    gumbel_c_visit: "Gumbel mode: c_visit of sigma",
    gumbel_c_scale: "Gumbel mode: c_scale of sigma",
    c_puct / cpuct: "PUCT's exploration constant",
    fpu_reduction: "first-play urgency: unvisited moves valued at the parent's Q minus this",
    dirichlet_epsilon: "self-play: weight of Dirichlet noise in the root priors",
    dirichlet_alpha: "self-play: Dirichlet alpha (0: 10 / legal moves)",
    nonroot_noise_epsilon / nonroot_noise: "self-play: AlphaFive's noise at non-root nodes (0 = off)",
    forced_visits: "self-play: forced root visits: off, min:N or katago:K",
    prune_forced: "self-play: remove forced visits from the policy target",
    reuse_tree: "keep the searched subgraph below the move played",
    tactics: "one-ply lookahead at every expanded position",
    two_step_kills: "with tactics: two plies deeper (double threats)",
    vcf_nodes / vcf: "threat-space search (Gomoku's VCF) of at most this many nodes per position (0 = off)",
    rollouts: "rollouts mixed into the network's value at each expanded position (Connect Four; 0 = off)",
    rollout_weight: "the rollouts' share of a leaf's value (0..=1)",
    max_return: "one-player games: the return the network's value 1 stands for",
}

impl SearchConfig {
    /// Every search setting, in the order the struct declares them.
    pub const KEYS: &'static [SearchKey] = SEARCH_KEYS;

    /// The setting called `name` (without `search.`), by its name or its short name; an
    /// unknown name's error lists them all.
    pub fn key(name: &str) -> Result<&'static SearchKey, SettingError> {
        Self::KEYS.iter().find(|k| k.is_named(name)).ok_or_else(|| SettingError::UnknownKey {
            key: name.to_string(),
            known: Self::KEYS.iter().map(|k| k.name).collect::<Vec<_>>().join(", "),
        })
    }

    /// Sets the setting `name` from `text` (see [`SearchKey::set`]).
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), SettingError> {
        Self::key(name)?.set(self, text)
    }

    /// `--set` assignments, `search.KEY=VALUE` each, applied in order and then checked as a
    /// config file is ([`SearchConfig::validate`]).
    pub fn apply<S: AsRef<str>>(&mut self, assignments: &[S]) -> Result<(), SettingError> {
        for assignment in assignments {
            let (key, value) = split_assignment(assignment.as_ref())?;
            match key.strip_prefix("search.") {
                Some(name) => self.set(name, value)?,
                None => {
                    let known = Self::KEYS.iter().map(|k| format!("search.{}", k.name)).collect::<Vec<_>>();
                    return Err(SettingError::UnknownKey { key: key.to_string(), known: known.join(", ") });
                }
            }
        }
        self.validate()
    }
}

/// `KEY=VALUE` as its key and value, each trimmed.
pub fn split_assignment(text: &str) -> Result<(&str, &str), SettingError> {
    match text.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => Ok((key.trim(), value.trim())),
        _ => Err(SettingError::NotAnAssignment { text: text.to_string() }),
    }
}

/// PUCT's exploration constant when a network plays rather than trains (matches, gating,
/// `dojo eval`): self-play explores through its noise and forced visits as well and keeps
/// `search.c_puct`, but a player after the best move does better exploring less. Measured
/// on three 30-minute Connect Four networks, 200 playouts against `mcts:1000`, 600 games
/// each: 84.8% won at 1.5, 88.5% at 1.0, 87-88% at 0.5-0.7.
pub const PLAY_C_PUCT: f32 = 1.0;

/// The playouts a move a network plays with unless told otherwise: `net:` players, `dojo
/// play`, `bestmove`, `eval`, `tournament`'s checkpoints and the dashboard's play board.
pub const PLAY_SIMULATIONS: u32 = 200;

/// The most playouts a search by the clock may run (`net:PATH:clock=1s`, `dojo pbrain`
/// under a Gomocup time control): the clock stops it long before on any board.
pub const MAX_TIMED_PLAYOUTS: u32 = 10_000_000;

impl SearchConfig {
    /// The search of a network playing to win: `simulations` playouts, [`PLAY_C_PUCT`], and
    /// the self-play exploration settings unused (a player's search runs without them).
    pub fn for_play(simulations: u32) -> SearchConfig {
        SearchConfig { simulations, c_puct: PLAY_C_PUCT, ..SearchConfig::default() }
    }

    /// The search a network plays with when this is its run's search (gating's players):
    /// `simulations` playouts, [`PLAY_C_PUCT`], self-play's exploration (noise, forced
    /// visits) as [`SearchConfig::for_play`] has it, and every other setting this one's, so
    /// a new search setting reaches the run's gate without a line here.
    pub fn as_player(&self, simulations: u32) -> SearchConfig {
        let play = SearchConfig::for_play(simulations);
        SearchConfig {
            simulations,
            c_puct: play.c_puct,
            dirichlet_epsilon: play.dirichlet_epsilon,
            dirichlet_alpha: play.dirichlet_alpha,
            nonroot_noise_epsilon: play.nonroot_noise_epsilon,
            forced_visits: play.forced_visits,
            prune_forced: play.prune_forced,
            ..self.clone()
        }
    }

    /// α for a node with `legal` moves.
    pub fn dirichlet_alpha(&self, legal: usize) -> f32 {
        if self.dirichlet_alpha > 0.0 {
            self.dirichlet_alpha
        } else {
            (10.0 / legal.max(1) as f32).min(2.0)
        }
    }

    /// Checks the values make sense, naming the first that does not.
    pub fn validate(&self) -> Result<(), SettingError> {
        let unit = |key: &'static str, v: f32| SettingError::check((0.0..=1.0).contains(&v), key, v, "within 0..=1");
        if self.simulations == 0 {
            return Err(SettingError::Zero { key: "search.simulations" });
        }
        SettingError::check(self.c_puct > 0.0 && self.c_puct.is_finite(), "search.c_puct", self.c_puct, "positive")?;
        let fpu = self.fpu_reduction;
        SettingError::check(fpu >= 0.0 && fpu.is_finite(), "search.fpu_reduction", fpu, ">= 0")?;
        let alpha = self.dirichlet_alpha;
        SettingError::check(alpha >= 0.0 && alpha.is_finite(), "search.dirichlet_alpha", alpha, ">= 0")?;
        if self.gumbel_considered == 0 {
            return Err(SettingError::Zero { key: "search.gumbel_considered" });
        }
        let visit = self.gumbel_c_visit;
        SettingError::check(visit >= 0.0 && visit.is_finite(), "search.gumbel_c_visit", visit, ">= 0")?;
        let scale = self.gumbel_c_scale;
        SettingError::check(scale > 0.0 && scale.is_finite(), "search.gumbel_c_scale", scale, "positive")?;
        let points = self.max_return;
        let expected = "a finite number of points, at least 1";
        SettingError::check(points >= 1.0 && points.is_finite(), "search.max_return", points, expected)?;
        unit("search.dirichlet_epsilon", self.dirichlet_epsilon)?;
        unit("search.rollout_weight", self.rollout_weight)?;
        unit("search.nonroot_noise_epsilon", self.nonroot_noise_epsilon)
    }

    /// How one-player games' returns map to the network's value ([`SearchConfig::max_return`]).
    pub fn return_scale(&self) -> ReturnScale {
        ReturnScale::new(self.max_return)
    }
}

/// How self-play picks moves and when it gives up.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Games played at once by one engine (their leaves are evaluated in one batch).
    pub parallel_games: usize,
    /// Moves (plies) played at temperature 1 (proportional to visits) at the start of a game.
    pub temperature_moves: u32,
    /// Temperature after that (0 = always the most visited move).
    pub final_temperature: f32,
    /// Resign when the root value stays below -threshold for `resign_consecutive` moves of
    /// the same player; 0 = never resign.
    pub resign_threshold: f32,
    pub resign_consecutive: u32,
    /// Fraction of games that never resign, to measure how often resigning was wrong.
    pub no_resign_fraction: f32,
    /// Playout cap randomisation (KataGo): the share of moves searched with the full
    /// `search.simulations`, with exploration, and recorded as training targets. The other
    /// moves get a fast search of `fast_simulations` playouts without noise or forced
    /// visits and are not trained on, so a game costs fewer playouts and more games (more
    /// value targets) come from the same compute. 1 = every move is a full search.
    pub full_search_fraction: f32,
    /// Playouts of a fast search (never more than `search.simulations`).
    pub fast_simulations: u32,
    /// Each game of a two-player game opens with a number of uniformly random moves, drawn
    /// from `0..=random_opening_plies` (moves that would end the game are not drawn). They
    /// are not training targets. Self-play between copies of one network otherwise keeps
    /// to the few openings it likes and never sees the odd moves an outside opponent
    /// plays; 0 = off.
    pub random_opening_plies: u32,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            parallel_games: 64,
            temperature_moves: 8,
            final_temperature: 0.0,
            resign_threshold: 0.0,
            resign_consecutive: 3,
            no_resign_fraction: 0.1,
            full_search_fraction: 0.25,
            fast_simulations: 50,
            random_opening_plies: 4,
        }
    }
}

impl SelfPlayConfig {
    pub fn validate(&self) -> Result<(), SettingError> {
        if self.parallel_games == 0 {
            return Err(SettingError::Zero { key: "selfplay.parallel_games" });
        }
        let resign = self.resign_threshold;
        SettingError::check((0.0..1.0).contains(&resign), "selfplay.resign_threshold", resign, "within 0..1")?;
        let no_resign = self.no_resign_fraction;
        SettingError::check(
            (0.0..=1.0).contains(&no_resign),
            "selfplay.no_resign_fraction",
            no_resign,
            "within 0..=1",
        )?;
        let t = self.final_temperature;
        SettingError::check(t >= 0.0 && t.is_finite(), "selfplay.final_temperature", t, ">= 0")?;
        let full = self.full_search_fraction;
        let within = "within 0 (exclusive) and 1";
        SettingError::check(full > 0.0 && full <= 1.0, "selfplay.full_search_fraction", full, within)?;
        if self.fast_simulations == 0 {
            return Err(SettingError::Zero { key: "selfplay.fast_simulations" });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/training.md's `[search]` row names every setting of the table, and names no
    /// setting (`name` (default)) that the table does not have.
    #[test]
    fn the_docs_search_table_is_the_settings_table() {
        let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/training.md");
        let text = std::fs::read_to_string(&docs).unwrap();
        let row = text.lines().find(|l| l.starts_with("| `[search]` |")).expect("docs/training.md has a [search] row");
        let missing: Vec<&str> =
            SearchConfig::KEYS.iter().map(|k| k.name).filter(|name| !row.contains(&format!("`{name}` ("))).collect();
        assert!(missing.is_empty(), "docs/training.md's [search] row misses {missing:?}");
        let shorts: Vec<&str> = SearchConfig::KEYS.iter().filter_map(|k| k.short).collect();
        assert_eq!(shorts, ["sims", "cpuct", "nonroot_noise", "vcf"]);
        for short in shorts {
            assert!(row.contains(&format!("short name `{short}`")), "docs/training.md's [search] row misses {short}");
        }
        let named: Vec<&str> =
            row.split('`').skip(1).step_by(2).filter(|w| row.contains(&format!("`{w}` ("))).collect();
        let unknown: Vec<&&str> =
            named.iter().filter(|w| !w.starts_with('[') && SearchConfig::key(w).is_err()).collect();
        assert!(unknown.is_empty(), "docs/training.md's [search] row names settings the table lacks: {unknown:?}");
        // Each setting's parenthesis opens with its default as a config file writes it.
        let defaults = serde_json::to_value(SearchConfig::default()).unwrap();
        for key in SearchConfig::KEYS {
            let default = match &defaults[key.name] {
                serde_json::Value::String(text) => format!("`\"{text}\"`"),
                // Whole numbers without a point, and the `f32` settings as they are written
                // (JSON widens them: 0.1 would read 0.10000000149011612).
                serde_json::Value::Number(n) => match n.as_f64().unwrap() {
                    x if x.fract() == 0.0 => format!("{}", x as i64),
                    x => format!("{}", x as f32),
                },
                other => other.to_string(),
            };
            let opening = format!("`{}` ({default}", key.name);
            let at = row.find(&opening).map(|i| i + opening.len());
            let next = at.and_then(|i| row[i..].chars().next());
            assert!(
                matches!(next, Some(';' | ':' | ')' | ' ' | ',')),
                "docs/training.md's [search] row does not give {} its default {default}",
                key.name
            );
        }
    }

    #[test]
    fn a_setting_is_named_by_its_name_or_its_short_name() {
        let mut config = SearchConfig::default();
        config.apply(&["search.sims=7", "search.c_puct=2.5", "search.vcf=100"]).unwrap();
        assert_eq!((config.simulations, config.c_puct, config.vcf_nodes), (7, 2.5, 100));
        assert_eq!(SearchConfig::key("cpuct").unwrap().name, "c_puct");
        assert_eq!(SearchConfig::key("c_puct").unwrap().spec_name(), "cpuct");
        assert_eq!(SearchConfig::key("mode").unwrap().spec_name(), "mode");
        let err = config.set("sims", "many").unwrap_err().to_string();
        assert_eq!(err, r#"search.simulations = "many": expected a whole number"#);
    }

    #[test]
    fn forced_visits_parse() {
        assert_eq!("off".parse::<ForcedVisits>(), Ok(ForcedVisits::Off));
        assert_eq!("min:2".parse::<ForcedVisits>(), Ok(ForcedVisits::Min(2)));
        assert_eq!("katago:2".parse::<ForcedVisits>(), Ok(ForcedVisits::KataGo(2.0)));
        assert!("katago:-1".parse::<ForcedVisits>().unwrap_err().to_string().contains("expected"));
        let json = serde_json::to_string(&SearchConfig::default()).unwrap();
        assert!(json.contains("\"forced_visits\":\"katago:2\""), "{json}");
        let back: SearchConfig = serde_json::from_str(&json).unwrap();
        assert_eq!(back, SearchConfig::default());
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors() {
        let err = serde_json::from_str::<SearchConfig>(r#"{"c_puc": 1.0}"#).unwrap_err().to_string();
        assert!(err.contains("unknown field `c_puc`"), "{err}");
        let c = SearchConfig { dirichlet_epsilon: 1.5, ..SearchConfig::default() };
        assert_eq!(c.validate().unwrap_err().to_string(), "search.dirichlet_epsilon = 1.5 must be within 0..=1");
    }

    #[test]
    fn search_mode_parses_round_trips_and_defaults_to_puct() {
        // A config written before the mode existed still reads, as PUCT.
        let old: SearchConfig = serde_json::from_str(r#"{"simulations": 32, "c_puct": 1.0}"#).unwrap();
        assert_eq!(old.mode, SearchMode::Puct);
        assert_eq!((old.gumbel_considered, old.gumbel_c_visit, old.gumbel_c_scale), (16, 50.0, 0.1));
        let text = r#"{"mode": "gumbel", "simulations": 32, "gumbel_considered": 8, "gumbel_c_scale": 1.0}"#;
        let gumbel: SearchConfig = serde_json::from_str(text).unwrap();
        assert_eq!(gumbel.mode, SearchMode::Gumbel);
        assert_eq!((gumbel.gumbel_considered, gumbel.gumbel_c_scale), (8, 1.0));
        let json = serde_json::to_string(&gumbel).unwrap();
        assert!(json.contains(r#""mode":"gumbel""#), "{json}");
        assert_eq!(serde_json::from_str::<SearchConfig>(&json).unwrap(), gumbel);
        let err = serde_json::from_str::<SearchConfig>(r#"{"mode": "alphabeta"}"#).unwrap_err().to_string();
        assert!(err.contains(r#"bad search mode "alphabeta": expected "puct" or "gumbel""#), "{err}");
        assert_eq!("gumbel".parse::<SearchMode>(), Ok(SearchMode::Gumbel));
        assert_eq!(SearchMode::Gumbel.to_string(), "gumbel");
        let c = SearchConfig { gumbel_considered: 0, ..SearchConfig::default() };
        assert_eq!(c.validate().unwrap_err().to_string(), "search.gumbel_considered must be at least 1");
        let c = SearchConfig { gumbel_c_scale: -1.0, ..SearchConfig::default() };
        assert_eq!(c.validate().unwrap_err().to_string(), "search.gumbel_c_scale = -1 must be positive");
    }

    #[test]
    fn every_search_setting_has_one_row_that_round_trips_its_text() {
        // The table and the struct name the same settings, in the same order.
        let json = serde_json::to_value(SearchConfig::default()).unwrap();
        let fields: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        let mut names: Vec<&str> = SearchConfig::KEYS.iter().map(|k| k.name).collect();
        names.sort_unstable();
        let mut sorted = fields.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        // Text to value to text, for a value other than the default.
        let texts = [
            ("simulations", "37"),
            ("mode", "gumbel"),
            ("gumbel_considered", "4"),
            ("gumbel_c_visit", "25.5"),
            ("gumbel_c_scale", "0.3"),
            ("c_puct", "2.25"),
            ("fpu_reduction", "0"),
            ("dirichlet_epsilon", "0.1"),
            ("dirichlet_alpha", "0.3"),
            ("nonroot_noise_epsilon", "0.05"),
            ("forced_visits", "min:2"),
            ("prune_forced", "false"),
            ("reuse_tree", "false"),
            ("tactics", "false"),
            ("two_step_kills", "false"),
            ("vcf_nodes", "1000"),
            ("rollouts", "4"),
            ("rollout_weight", "0.25"),
            ("max_return", "123456"),
        ];
        assert_eq!(texts.len(), SearchConfig::KEYS.len());
        let mut config = SearchConfig::default();
        for (name, text) in texts {
            let key = SearchConfig::key(name).unwrap();
            assert_ne!(key.value(&config), text, "{name}: pick a value that is not the default");
            key.set(&mut config, text).unwrap();
            assert_eq!(key.value(&config), text, "{name}");
            assert!(!key.help.is_empty());
        }
        config.validate().unwrap();
        // Every field changed: the table reaches them all.
        let changed = serde_json::to_value(&config).unwrap();
        for field in fields {
            assert_ne!(changed[field], json[field], "{field}");
        }
    }

    #[test]
    fn a_setting_in_text_names_the_key_and_the_bad_value() {
        let mut c = SearchConfig::default();
        let err = c.set("c_puct", "fast").unwrap_err();
        assert_eq!(err.to_string(), r#"search.c_puct = "fast": expected a number"#);
        let err = c.set("mode", "alphabeta").unwrap_err();
        assert_eq!(err.to_string(), r#"search.mode = "alphabeta": expected "puct" or "gumbel""#);
        let err = c.set("simulations", "-3").unwrap_err();
        assert_eq!(err.to_string(), r#"search.simulations = "-3": expected a whole number"#);
        let err = c.set("c_puc", "1").unwrap_err().to_string();
        assert!(err.starts_with(r#"unknown setting "c_puc": expected one of simulations, mode, "#), "{err}");
        assert!(err.ends_with("vcf_nodes, rollouts, rollout_weight, max_return"), "{err}");
        assert_eq!(c, SearchConfig::default(), "a refused setting changes nothing");
        // --set's assignments: the section named, then checked as a config file is.
        c.apply(&["search.simulations=64", "search.mode = gumbel"]).unwrap();
        assert_eq!((c.simulations, c.mode), (64, SearchMode::Gumbel));
        let err = c.apply(&["selfplay.parallel_games=3"]).unwrap_err().to_string();
        assert!(err.starts_with(r#"unknown setting "selfplay.parallel_games": expected one of search.simulations, "#));
        assert_eq!(
            c.apply(&["search.simulations"]).unwrap_err().to_string(),
            r#""search.simulations": expected KEY=VALUE"#
        );
        let err = c.apply(&["search.simulations=0"]).unwrap_err().to_string();
        assert_eq!(err, "search.simulations must be at least 1");
    }

    #[test]
    fn the_threat_search_is_off_unless_a_config_names_its_budget() {
        assert_eq!(SearchConfig::default().vcf_nodes, 0);
        assert_eq!(SearchConfig::for_play(100).vcf_nodes, 0);
        let on: SearchConfig = serde_json::from_str(r#"{"vcf_nodes": 1000}"#).unwrap();
        assert_eq!(on, SearchConfig { vcf_nodes: 1000, ..SearchConfig::default() });
        let err = serde_json::from_str::<SearchConfig>(r#"{"vcf_nodes": -1}"#).unwrap_err().to_string();
        assert!(err.contains("invalid value"), "{err}");
    }

    #[test]
    fn rollouts_are_off_unless_asked_for_and_their_weight_is_a_share() {
        assert_eq!((SearchConfig::default().rollouts, SearchConfig::for_play(100).rollouts), (0, 0));
        let mut c = SearchConfig::for_play(100);
        c.apply(&["search.rollouts=4", "search.rollout_weight=0.25"]).unwrap();
        assert_eq!((c.rollouts, c.rollout_weight), (4, 0.25));
        let err = c.apply(&["search.rollout_weight=1.5"]).unwrap_err().to_string();
        assert_eq!(err, "search.rollout_weight = 1.5 must be within 0..=1");
    }
}
