//! The run's configuration: one TOML file with every knob, documented defaults, and unknown
//! keys refused (a typo must not silently fall back to a default).
//!
//! The search's and self-play's own settings, which it holds, are `dojo_search::config`: one
//! concept (settings) in two layers.

mod error;
pub mod replay;

pub use error::{ConfigError, CoreError, Rule, SettingRefusal};

use dojo_arch::architecture::{Architecture, AuxHeads, PolicyHeadChoice};
use dojo_arch::precision::PrecisionChoice;
use dojo_arch::train::TrainConfig;
use dojo_game::Game;
use dojo_game::GameSpec;
use dojo_search::config::{split_assignment, SearchConfig, SearchMode, SelfPlayConfig};
use replay::ReplayConfig;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The network's shape for a new run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetConfig {
    pub blocks: usize,
    pub channels: usize,
    /// `auto` (convolutional where the moves are the board's cells, as in Gomoku; linear
    /// otherwise, as Connect Four's columns need), `fc` or `conv`.
    pub policy_head: PolicyHeadChoice,
    /// Connect Four and Gomoku: one network for boards of every size up to the run's
    /// largest, fully convolutional with a board mask and a policy head read per column or
    /// point ([`Architecture::any_size`]). Always on for a spec whose boards differ per game
    /// (`connect4:saiblo`, `gomoku:9-15`); on a fixed board it trains a network that can
    /// later play smaller ones.
    pub any_size: bool,
    /// The first this many of the game's input planes (0: all of them): a run that leaves
    /// out planes a newer encoding appended, such as Gomoku's threat planes, to measure
    /// what they are worth. Players feed such a network the planes it was trained on.
    #[serde(skip_serializing_if = "is_zero")]
    pub input_planes: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Default for NetConfig {
    fn default() -> Self {
        // Small, so a 2-core machine plays some 25 Connect Four games a second and a new run
        // is data-rich within minutes (3×32 evaluates ~2.3× faster than 4×48 here); a longer
        // run or a bigger board wants more.
        NetConfig { blocks: 3, channels: 32, policy_head: PolicyHeadChoice::Auto, any_size: false, input_planes: 0 }
    }
}

impl NetConfig {
    /// "3x32", with the policy head where one was chosen: how messages name the net.
    pub fn describe(&self) -> String {
        if self.any_size {
            return format!("{}x{} any-size", self.blocks, self.channels);
        }
        match self.policy_head {
            PolicyHeadChoice::Auto => format!("{}x{}", self.blocks, self.channels),
            PolicyHeadChoice::Fc => format!("{}x{} (fc policy head)", self.blocks, self.channels),
            PolicyHeadChoice::Conv => format!("{}x{} (conv policy head)", self.blocks, self.channels),
        }
    }
}

/// The learner's own knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LearnerConfig {
    /// Publish a new model version every this many training steps.
    pub publish_every: u64,
    /// Write a resumable checkpoint (model + optimizer) every this many steps.
    pub checkpoint_every: u64,
    /// Positions in the buffer before training starts.
    pub min_positions: u64,
    /// libtorch threads of the training loop.
    pub threads: usize,
    /// The newest this many published versions are kept on disk; older ones are deleted
    /// unless `keep_every` keeps them (0 keeps every version).
    pub keep_versions: usize,
    /// A thinned history of the whole run, kept for good beside the newest versions, for
    /// tournaments and the ladder over training: every K-th version up to version 16·K,
    /// then every 2K-th up to 32·K, every 4K-th up to 64·K, and so on (8 more versions each
    /// time the run doubles: about 25 of a 30-minute Connect Four run on 2 cores, 70 of a
    /// day-long one; see `dojo_run::retention`). `dojo tournament --every-nth-version S`
    /// finds them all with S the step reached. 0: keep no history.
    pub keep_every: u64,
    /// Largest game segment file of the log, in bytes.
    pub segment_bytes: u64,
    /// In a run bounded by `--for` or `--steps`, the learning rate falls linearly over this
    /// final fraction of the bound, from `train.learning_rate` to `anneal_factor` times it,
    /// so the last versions settle instead of jittering at full rate (0: never anneal).
    pub anneal_fraction: f64,
    /// Where the annealed learning rate ends, as a fraction of `train.learning_rate`.
    pub anneal_factor: f64,
    /// Publish an exponential moving average of the trained weights over about this many
    /// steps instead of the weights of the last step (KataGo's weight averaging: steadier
    /// play from the same training). 0: publish the trained weights.
    pub weight_average_steps: u64,
}

impl Default for LearnerConfig {
    fn default() -> Self {
        LearnerConfig {
            publish_every: 50,
            checkpoint_every: 500,
            min_positions: 2_000,
            threads: 1,
            keep_versions: 20,
            keep_every: 10,
            segment_bytes: 64 << 20,
            anneal_fraction: 0.3,
            anneal_factor: 0.1,
            weight_average_steps: 0,
        }
    }
}

/// Gating: which published version is the run's best (`models/best.*`). A new version plays
/// the best one and replaces it when it scores at least `promote_score`. Self-play always
/// uses the newest version, as AlphaZero does: gating names the best, it does not hold
/// learning back (it costs the matches' playing time, about 5% of the cores by default).
///
/// One-player games (2048, 2584) have no match: the new version and the best each play
/// `games` games alone on the same seeds, and the new version replaces the best when its
/// mean score is higher (the point estimate, as AlphaZero's 55% threshold is one; the
/// record gives both means and the paired difference with 95% intervals). There
/// `promote_score` and `opening_plies` do not apply, and `mode = "sprt"` plays the fixed
/// `games` (the test is about game results, not scores).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GatingConfig {
    /// Gate a new version once this many have been published since the last gated one
    /// (0: no gating; `dojo gate` can still be run by hand).
    pub every_versions: u64,
    /// How a gate decides. "fixed": play `games` games and promote at `promote_score`.
    /// "sprt": play pairs until the sequential probability ratio test in `[gating.sprt]`
    /// decides (candidate `elo1` stronger, or not more than `elo0`), at most `games` games;
    /// a test still undecided then promotes when its log-likelihood ratio is above zero.
    pub mode: GateMode,
    /// The SPRT's hypotheses and error rates (mode "sprt").
    pub sprt: SprtSettings,
    /// Games per gating match (mode "sprt": at most), in pairs from one random opening
    /// (each side moves first once). One-player games: games each side plays.
    pub games: u32,
    /// Playouts per move for both sides.
    pub simulations: u32,
    /// Random moves that open each pair of games (deterministic players would otherwise
    /// repeat one game).
    pub opening_plies: u32,
    /// The candidate's score (wins + draws/2, per game) that makes it the best.
    pub promote_score: f64,
    /// Both sides average the network over the board's symmetries, as `net:` players do
    /// by default. Off by default: it helps both sides alike, and costs twice the network
    /// work on Connect Four (a 40-game gate took 61 s instead of about 20 s beside
    /// training), 8 times on Gomoku.
    pub average_symmetries: bool,
    /// Grade every gated version on the run's solver-labelled benchmark
    /// (`RUN/benchmark/pons.jsonl`, drawn at the first gate from a fixed seed): this many
    /// positions per Pons category, error rates of the raw policy and of the search in
    /// `gating.jsonl`, TensorBoard (`grade/policy/L2R1`, ...) and the dashboard. Connect
    /// Four boards the solver takes only; other games ignore it. 0: no grading.
    pub grade_positions: u32,
    /// Playouts of the graded search (default: `simulations`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grade_sims: Option<u32>,
    /// Solver nodes per benchmark position when drawing the set; positions it cannot
    /// settle within them are skipped.
    pub grade_budget_nodes: u64,
    /// Solver nodes for drawing the whole set (bounds its time: about 15 s per 100M nodes
    /// here); categories still short then stay short.
    pub grade_total_nodes: u64,
}

/// How a gating match decides (`gating.mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GateMode {
    #[default]
    Fixed,
    Sprt,
}

/// `[gating.sprt]`: the test's hypotheses (Elo of the candidate over the best, logistic)
/// and error rates; the arbiter's `SprtConfig` with `gating.games` as its game limit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SprtSettings {
    /// H0: the candidate is no more than this much stronger.
    pub elo0: f64,
    /// H1: it is this much stronger.
    pub elo1: f64,
    /// The chance of promoting under H0.
    pub alpha: f64,
    /// The chance of not promoting under H1.
    pub beta: f64,
}

impl Default for SprtSettings {
    fn default() -> Self {
        SprtSettings { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.1 }
    }
}

impl Default for GatingConfig {
    fn default() -> Self {
        GatingConfig {
            mode: GateMode::Fixed,
            sprt: SprtSettings::default(),
            every_versions: 20,
            games: 40,
            simulations: 100,
            opening_plies: 4,
            promote_score: 0.55,
            average_symmetries: false,
            grade_positions: 50,
            grade_sims: None,
            grade_budget_nodes: 200_000,
            grade_total_nodes: 100_000_000,
        }
    }
}

impl GatingConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if self.games < 2 || !self.games.is_multiple_of(2) {
            let rule = "be even and at least 2 (games come in pairs)";
            return Err(ConfigError::out_of_range("gating.games", self.games, rule));
        }
        if self.simulations == 0 {
            return Err(ConfigError::Zero { keys: "gating.simulations" });
        }
        if self.grade_sims == Some(0) {
            return Err(ConfigError::Zero { keys: "gating.grade_sims" });
        }
        if !(self.promote_score > 0.0 && self.promote_score <= 1.0) {
            return Err(ConfigError::out_of_range("gating.promote_score", self.promote_score, "be within (0, 1]"));
        }
        let s = &self.sprt;
        if !(s.alpha > 0.0 && s.alpha < 0.5 && s.beta > 0.0 && s.beta < 0.5) {
            return Err(ConfigError::PairOutOfRange {
                key: "gating.sprt.alpha",
                value: s.alpha.to_string(),
                other: "beta",
                other_value: s.beta.to_string(),
                rule: "be within (0, 0.5)",
            });
        }
        if !(s.elo0.is_finite() && s.elo1.is_finite() && s.elo1 > s.elo0) {
            let rule = Rule::Above { key: "elo0", value: s.elo0 };
            return Err(ConfigError::out_of_range("gating.sprt.elo1", s.elo1, rule));
        }
        Ok(())
    }
}

/// Local workers started by `dojo train`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorkersConfig {
    /// Worker processes (0 = fitted to the cores: one per core).
    pub count: usize,
    /// libtorch threads per worker.
    pub threads: usize,
    /// The format self-play evaluates the network in: auto (the fastest, timed on this
    /// machine when a worker starts), f32, bf16, or f16 (CUDA only).
    pub precision: PrecisionChoice,
}

impl Default for WorkersConfig {
    fn default() -> Self {
        WorkersConfig { count: 0, threads: 1, precision: PrecisionChoice::Auto }
    }
}

/// Everything a run is configured by.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    pub game: GameSpec,
    pub net: NetConfig,
    pub search: SearchConfig,
    pub selfplay: SelfPlayConfig,
    pub train: TrainConfig,
    pub replay: ReplayConfig,
    pub learner: LearnerConfig,
    pub gating: GatingConfig,
    pub workers: WorkersConfig,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            game: GameSpec::connect4(),
            net: NetConfig::default(),
            search: SearchConfig::default(),
            selfplay: SelfPlayConfig::default(),
            train: TrainConfig::default(),
            replay: ReplayConfig::default(),
            learner: LearnerConfig::default(),
            gating: GatingConfig::default(),
            workers: WorkersConfig::default(),
        }
    }
}

impl RunConfig {
    /// The defaults for a new run of `game`: [`RunConfig::default`]'s, with a one-player
    /// game's (2048, 2584, pig) gate made to fit its games, its values scaled to its scores
    /// (`search.max_return` from [`dojo_game::Scoring::max_return`]) and its self-play playing
    /// every move as well as it can (no random openings, no temperature). Those games last
    /// hundreds to thousands of moves where a Connect Four game lasts 20 to 40, so the
    /// two-player gate (40 games at 100 playouts) would hold a core for most of an hour; 8
    /// games each at 50 playouts on the same seeds keep it to minutes, and the arbiter's
    /// pairing of the games by seed keeps the comparison sharp with few games.
    ///
    /// Connect Four self-plays by Gumbel AlphaZero at 64 simulations, every move a full
    /// search and a training target (`configs/connect4-gumbel.toml` before it was the
    /// default). At equal CPU time it trains the better network, and on a machine half as
    /// fast it is what keeps the 30-minute promise: from one core for 30 minutes, 95.7%
    /// against `mcts:1000` and no game lost moving first, where PUCT's 200/50 playouts with
    /// a quarter of the moves trained lost 8–10% of its first-player games (issue 35,
    /// docs/strength-connect4.md). Other games keep PUCT until measured.
    pub fn for_game(game: GameSpec) -> RunConfig {
        let mut config = RunConfig { game, ..RunConfig::default() };
        if config.game.is_one_player() {
            config.gating.games = 8;
            config.gating.simulations = 50;
            config.search.max_return = config.game.max_return();
            // Nature varies a one-player game's self-play; random opening moves and early
            // moves drawn from the visits only make its games worse. In 2048 they are a dozen
            // moves of thousands; in pig's dozen they were most of the game, and self-play
            // scored about what random play does (issue 47: 23.5-25.7 a game over 400 steps
            // with them, random 23.5; 26.5-31.8 over 200 steps without).
            config.selfplay.random_opening_plies = 0;
            config.selfplay.temperature_moves = 0;
        }
        if matches!(config.game, GameSpec::Connect4 { .. } | GameSpec::Connect4Saiblo) {
            config.search.mode = SearchMode::Gumbel;
            config.search.simulations = 64;
            config.selfplay.full_search_fraction = 1.0;
        }
        config
    }

    /// Parses TOML, naming the bad key or value.
    pub fn from_toml(text: &str) -> Result<RunConfig, ConfigError> {
        let config: RunConfig = toml::from_str(text).map_err(|error| ConfigError::Parse { error })?;
        config.validate()?;
        Ok(config)
    }

    /// A config file a user wrote (`dojo train --config`, the offline commands' `--config`):
    /// the keys it names over the defaults of a new run of its game ([`RunConfig::for_game`],
    /// what `dojo config --game G` prints), so that a file naming one key changes that key and
    /// nothing else. Before, its missing keys took the plain defaults, and a Connect Four file
    /// that named only `train.precision` self-played by PUCT instead of the game's Gumbel.
    /// `game`, where given, replaces the file's game, and its defaults are the ones beneath.
    /// Unknown keys and bad values are refused as [`RunConfig::from_toml`] refuses them.
    pub fn from_user_toml(text: &str, game: Option<&GameSpec>) -> Result<RunConfig, ConfigError> {
        // Parsed alone first, so that a typo is reported with the file's line and column.
        let named: RunConfig = toml::from_str(text).map_err(|error| ConfigError::Parse { error })?;
        let file: toml::Table = toml::from_str(text).map_err(|error| ConfigError::Parse { error })?;
        let game = game.cloned().unwrap_or(named.game);
        let mut layered = toml::Table::try_from(RunConfig::for_game(game.clone())).expect("the config serialises");
        overlay(&mut layered, file);
        layered.insert("game".into(), toml::Value::String(game.to_string()));
        let config: RunConfig = layered.try_into().map_err(|error| ConfigError::Parse { error })?;
        config.validate()?;
        Ok(config)
    }

    /// Reads a run directory's own `config.toml`, exactly as written (every key, as the
    /// release that made the run wrote them; a key added since takes its plain default).
    pub fn load_stored(path: &Path) -> Result<RunConfig, ConfigError> {
        RunConfig::read_file(path, RunConfig::from_toml)
    }

    /// Reads a config file a user wrote ([`RunConfig::from_user_toml`]); what is wrong in it
    /// names the file.
    pub fn load(path: &Path, game: Option<&GameSpec>) -> Result<RunConfig, ConfigError> {
        RunConfig::read_file(path, |text| RunConfig::from_user_toml(text, game))
    }

    fn read_file(
        path: &Path,
        parse: impl FnOnce(&str) -> Result<RunConfig, ConfigError>,
    ) -> Result<RunConfig, ConfigError> {
        let text =
            std::fs::read_to_string(path).map_err(|error| ConfigError::Read { path: path.to_path_buf(), error })?;
        parse(&text).map_err(|error| ConfigError::InFile { path: path.to_path_buf(), error: Box::new(error) })
    }

    /// The config file in `path` ([`RunConfig::load`]), or where there is none a new run's of
    /// `game` (Connect Four where not given): what an offline command (`dojo init`,
    /// `selfplay`, `learn`) takes its defaults from.
    pub fn load_or_default(path: Option<&Path>, game: Option<&GameSpec>) -> Result<RunConfig, ConfigError> {
        match path {
            Some(path) => RunConfig::load(path, game),
            None => Ok(RunConfig::for_game(game.cloned().unwrap_or_else(GameSpec::connect4))),
        }
    }

    /// Applies `--set` assignments, `SECTION.KEY=VALUE` each (`game=VALUE` for the game), in
    /// order, then checks the whole config as a file's is checked. A search setting is read
    /// through [`SearchConfig::KEYS`]; any other as the TOML value a config file would hold
    /// there (a word that is no TOML value is a string), so a key no section has is refused
    /// as a file's would be.
    pub fn apply<S: AsRef<str>>(&mut self, assignments: &[S]) -> Result<(), ConfigError> {
        for assignment in assignments {
            self.set(assignment.as_ref())?;
        }
        self.validate()
    }

    /// One assignment of [`RunConfig::apply`], not yet checked against the others.
    fn set(&mut self, assignment: &str) -> Result<(), ConfigError> {
        let (key, text) = split_assignment(assignment).map_err(ConfigError::core)?;
        if let Some(name) = key.strip_prefix("search.") {
            return self.search.set(name, text).map_err(ConfigError::core);
        }
        let value = toml::from_str::<toml::Table>(&format!("value = {text}"))
            .ok()
            .and_then(|mut t| t.remove("value"))
            .unwrap_or_else(|| toml::Value::String(text.to_string()));
        let mut config = toml::Table::try_from(&*self).expect("the config serialises");
        let refused = |error: SettingRefusal| ConfigError::Setting { assignment: assignment.to_string(), error };
        match key.split_once('.') {
            None => {
                config.insert(key.to_string(), value);
            }
            Some((section, name)) => match config.entry(section).or_insert_with(|| toml::Table::new().into()) {
                toml::Value::Table(table) => {
                    table.insert(name.to_string(), value);
                }
                _ => return Err(refused(SettingRefusal::NotASection(section.to_string()))),
            },
        }
        *self = toml::Value::Table(config)
            .try_into()
            .map_err(|e: toml::de::Error| refused(SettingRefusal::Toml(e.message().to_string())))?;
        Ok(())
    }

    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("the config serialises")
    }

    /// The network a new run starts with (random weights of this shape), for positions like
    /// `start` (the record start of its board, or one of its boards).
    pub fn architecture<G: Game>(&self, start: &G) -> Result<Architecture, ConfigError> {
        let mut arch = self.full_architecture(start)?.with_aux_heads(AuxHeads::for_training(&self.train));
        match self.net.input_planes {
            0 => {}
            n if n <= arch.input_channels => {
                arch.input_channels = n;
                arch.validate()
                    .map_err(|e| ConfigError::Net { setting: format!("net.input_planes = {n}"), error: e.into() })?;
            }
            planes => {
                return Err(ConfigError::TooManyPlanes { planes, game: self.game.clone(), max: arch.input_channels })
            }
        }
        Ok(arch)
    }

    /// [`RunConfig::architecture`] for one of the game's boards: the network `dojo init`
    /// writes and a new run of this config starts from.
    pub fn first_architecture(&self) -> Result<Architecture, ConfigError> {
        let probe = self.game.probe().map_err(ConfigError::core)?;
        dojo_game::with_game!(&probe, g => self.architecture(g))
    }

    /// [`RunConfig::architecture`] with every input plane the game encodes.
    fn full_architecture<G: Game>(&self, start: &G) -> Result<Architecture, ConfigError> {
        if self.any_size() {
            let (width, height) =
                self.game.largest_board().ok_or_else(|| ConfigError::AnySizeGame { game: self.game.clone() })?;
            if self.net.policy_head != PolicyHeadChoice::Auto {
                return Err(ConfigError::AnySizePolicyHead);
            }
            let arch = Architecture::any_size(self.game.clone(), width, height, self.net.blocks, self.net.channels);
            arch.validate().map_err(ConfigError::core)?;
            return Ok(arch);
        }
        // A one-player game's network names the scale of its values.
        let max_return = self.search.max_return as u64;
        Architecture::new_for_game(start, self.net.blocks, self.net.channels, self.net.policy_head, max_return)
            .map_err(|e| ConfigError::Net { setting: "net.policy_head".into(), error: e.into() })
    }

    /// Whether the run trains an any-size network: asked for, or needed by a game whose
    /// boards differ per game.
    pub fn any_size(&self) -> bool {
        self.net.any_size || self.game.is_random()
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=64).contains(&self.net.blocks) || !(1..=1024).contains(&self.net.channels) {
            return Err(ConfigError::PairOutOfRange {
                key: "net.blocks",
                value: self.net.blocks.to_string(),
                other: "net.channels",
                other_value: self.net.channels.to_string(),
                rule: "be within 1..=64 and 1..=1024",
            });
        }
        self.first_architecture()?;
        self.search.validate().map_err(ConfigError::core)?;
        self.selfplay.validate().map_err(ConfigError::core)?;
        self.train.validate().map_err(ConfigError::core)?;
        self.replay.validate()?;
        let l = &self.learner;
        if l.publish_every == 0 || l.checkpoint_every == 0 {
            return Err(ConfigError::Zero { keys: "learner.publish_every and learner.checkpoint_every" });
        }
        if !(0.0..=1.0).contains(&l.anneal_fraction) {
            return Err(ConfigError::out_of_range("learner.anneal_fraction", l.anneal_fraction, "be within 0..=1"));
        }
        if !(l.anneal_factor > 0.0 && l.anneal_factor <= 1.0) {
            return Err(ConfigError::out_of_range("learner.anneal_factor", l.anneal_factor, "be within (0, 1]"));
        }
        if l.threads == 0 || self.workers.threads == 0 {
            return Err(ConfigError::Zero { keys: "learner.threads and workers.threads" });
        }
        if l.segment_bytes < 4096 {
            return Err(ConfigError::out_of_range("learner.segment_bytes", l.segment_bytes, "be at least 4096"));
        }
        self.gating.validate()
    }

    /// Worker processes for this machine: the configured count, or one per core. The
    /// learner is not given a core of its own: the sample cap keeps it idle most of the time
    /// (measured on 2 cores: about a third of one core), and every process runs single-threaded
    /// libtorch pools, so sharing cores costs time slices, not spinning.
    pub fn worker_count(&self, cores: usize) -> usize {
        if self.workers.count > 0 {
            self.workers.count
        } else {
            (cores / self.workers.threads).max(1)
        }
    }
}

/// Puts every key of `over` into `base`, table into table, so that `over`'s keys win and
/// `base` keeps the rest.
fn overlay(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(inner)), toml::Value::Table(value)) => overlay(inner, value),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A config file shipped in configs/, read as a user's file is.
    fn shipped(name: &str) -> Result<RunConfig, ConfigError> {
        RunConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs").join(name), None)
    }

    #[test]
    fn set_assignments_reach_every_section_and_are_checked_as_a_file_is() {
        let mut c = RunConfig::default();
        c.apply(&["search.c_puct=2", "selfplay.parallel_games=8", "net.blocks=5", "train.learning_rate=0.01"]).unwrap();
        c.apply(&["game=gomoku:9", "selfplay.final_temperature=1", "search.forced_visits=min:2"]).unwrap();
        assert_eq!((c.search.c_puct, c.selfplay.parallel_games, c.net.blocks), (2.0, 8, 5));
        assert_eq!((c.train.learning_rate, c.selfplay.final_temperature), (0.01, 1.0));
        assert_eq!(c.game, "gomoku:9".parse().unwrap());
        assert_eq!(c.search.forced_visits.to_string(), "min:2");
        // A key left out of the file when it holds its default can be set too.
        c.apply(&["net.input_planes=1"]).unwrap();
        assert_eq!(c.net.input_planes, 1);
        let err = |text: &str| RunConfig::default().apply(&[text]).unwrap_err().to_string();
        assert!(
            err("selfplay.parallel_gams=1").contains("unknown field `parallel_gams`"),
            "{}",
            err("selfplay.parallel_gams=1")
        );
        assert!(err("selfplay.parallel_games=many").starts_with("--set selfplay.parallel_games=many: "));
        assert!(err("nets.blocks=1").contains("unknown field `nets`"), "{}", err("nets.blocks=1"));
        assert_eq!(err("search.c_puct=fast"), r#"search.c_puct = "fast": expected a number"#);
        assert!(err("search.c_puc=1").starts_with(r#"unknown setting "c_puc": expected one of simulations"#));
        assert_eq!(err("selfplay.parallel_games=0"), "selfplay.parallel_games must be at least 1");
        assert_eq!(err("net.blocks"), r#""net.blocks": expected KEY=VALUE"#);
    }

    #[test]
    fn the_auxiliary_targets_switched_on_give_a_new_run_their_heads() {
        for game in ["gomoku:9", "connect4:saiblo"] {
            let mut c = RunConfig::for_game(game.parse().unwrap());
            assert_eq!(c.first_architecture().unwrap().aux_heads, AuxHeads::default(), "{game}: off by default");
            c.apply(&["train.soft_policy_weight=8"]).unwrap();
            let heads = c.first_architecture().unwrap().aux_heads;
            assert_eq!(heads, AuxHeads { opponent_policy: false, soft_policy: true }, "{game}");
            c.apply(&["train.opponent_policy_weight=0.15"]).unwrap();
            let heads = c.first_architecture().unwrap().aux_heads;
            assert_eq!(heads, AuxHeads { opponent_policy: true, soft_policy: true }, "{game}");
        }
        let err = RunConfig::default().apply(&["train.soft_policy_weight=-1"]).unwrap_err().to_string();
        assert_eq!(err, "train.soft_policy_weight = -1 must be within 0..=100");
    }

    #[test]
    fn one_player_games_get_a_gate_that_fits_their_long_games() {
        let c = RunConfig::for_game(GameSpec::Twenty48);
        assert_eq!((c.game.clone(), c.gating.games, c.gating.simulations), (GameSpec::Twenty48, 8, 50));
        assert_eq!((c.search.clone(), c.net.clone()), (SearchConfig::default(), NetConfig::default()));
        assert_eq!((c.selfplay.random_opening_plies, c.selfplay.temperature_moves), (0, 0));
        c.validate().unwrap();
        // A one-player game's values are scaled to its own scores.
        let pig = RunConfig::for_game("pig".parse().unwrap());
        assert_eq!((pig.search.max_return, pig.gating.games), (120.0, 8));
        let fib = GameSpec::Fib2584 { odds: dojo_game::sliding::SpawnOdds::OneThree };
        assert_eq!(RunConfig::for_game(fib).gating.games, 8);
        let gomoku = GameSpec::gomoku(9);
        assert_eq!(RunConfig::for_game(gomoku.clone()), RunConfig { game: gomoku, ..RunConfig::default() });
    }

    #[test]
    fn the_shipped_gomoku_config_loads_with_what_it_promises() {
        let c = shipped("gomoku9.toml").unwrap();
        assert_eq!(c.game.to_string(), "gomoku:9");
        assert_eq!(c.search.simulations, 100);
        assert_eq!(c.selfplay.full_search_fraction, 1.0);
        assert_eq!(c.selfplay.random_opening_plies, 6);
        // Everything it does not name keeps its default.
        assert_eq!(c.net, RunConfig::default().net);
        assert_eq!(c.replay, RunConfig::default().replay);
    }

    #[test]
    fn the_shipped_alphafive_and_15x15_configs_are_the_11x11_config_but_for_what_they_switch() {
        use dojo_search::config::ForcedVisits;
        let load = shipped;
        let base = load("gomoku11.toml").unwrap();
        assert_eq!((base.game.to_string(), base.learner.keep_versions), ("gomoku:11".into(), 0));
        let mut buffer = base.clone();
        (buffer.replay.balance_outcomes, buffer.replay.late_position_factor) = (true, 0.94);
        assert_eq!(load("gomoku11-buffer.toml").unwrap(), buffer);
        let mut on = buffer;
        (on.search.nonroot_noise_epsilon, on.search.forced_visits) = (0.1, ForcedVisits::KataGo(2.0));
        assert_eq!(load("gomoku11-alphafive.toml").unwrap(), on);
        let mut no_forced = base.clone();
        no_forced.search.forced_visits = ForcedVisits::Off;
        assert_eq!(load("gomoku11-noforced.toml").unwrap(), no_forced);
        assert_ne!(base.search.forced_visits, ForcedVisits::Off, "forced visits are on by default");
        // Gomocup's board gets the same recipe.
        let g15 = load("gomoku15.toml").unwrap();
        assert_eq!(g15.game.to_string(), "gomoku:15");
        assert_eq!(g15, RunConfig { game: g15.game.clone(), ..base });
    }

    #[test]
    fn the_shipped_any_size_gomoku_config_trains_one_network_framed_to_its_largest_board() {
        let c = shipped("gomoku-any.toml").unwrap();
        assert_eq!(c.game.to_string(), "gomoku:9-15");
        assert!(c.any_size() && !c.net.any_size, "a spec of several sizes needs no switch");
        let probe = c.game.probe().unwrap();
        let arch = dojo_game::with_game!(&probe, g => c.architecture(g)).unwrap();
        assert_eq!((arch.frame(), arch.actions, arch.input_channels), (Some((15, 15)), 225, 8));
        assert_eq!(arch.policy_head, dojo_arch::architecture::PolicyHead::Point);
        let fc = RunConfig::from_toml("game = \"gomoku:9-15\"\n[net]\npolicy_head = \"fc\"\n").unwrap_err();
        assert!(fc.to_string().contains("leave policy_head auto"), "{fc}");
    }

    #[test]
    fn the_shipped_gumbel_config_loads_with_what_it_promises() {
        use dojo_search::config::SearchMode;
        let c = shipped("connect4-gumbel.toml").unwrap();
        assert_eq!(c.game.to_string(), "connect4:7x6");
        assert_eq!((c.search.mode, c.search.simulations), (SearchMode::Gumbel, 64));
        assert_eq!(c.selfplay.full_search_fraction, 1.0);
        assert_eq!(c.net, RunConfig::default().net);
        assert_eq!(c.gating, RunConfig::default().gating);
        // It is what a new Connect Four run gets without a config (issue 35).
        assert_eq!(c, RunConfig::for_game(GameSpec::connect4()));
        assert_eq!(RunConfig::for_game("connect4:saiblo".parse().unwrap()).search.mode, SearchMode::Gumbel);
        assert_eq!(RunConfig::default().search.mode, SearchMode::Puct);
    }

    #[test]
    fn a_users_file_changes_the_keys_it_names_over_its_games_defaults() {
        use dojo_arch::precision::Precision;
        // What the f32 runs of 2026-12-07 were started with: before, the keys it did not name
        // took the plain defaults, and Connect Four self-played by PUCT.
        let text = "game = \"connect4\"\n\n[train]\nprecision = \"f32\"\n";
        let mut expected = RunConfig::for_game(GameSpec::connect4());
        expected.train.precision = PrecisionChoice::Fixed(Precision::F32);
        assert_eq!(RunConfig::from_user_toml(text, None).unwrap(), expected);
        assert_eq!(RunConfig::from_user_toml(text, None).unwrap().search.mode, SearchMode::Gumbel);
        // A run directory's own config.toml (every key written) reads exactly as written.
        assert_eq!(RunConfig::from_toml(text).unwrap().search.mode, SearchMode::Puct);
        // No game named: Connect Four's; a game given replaces the file's, with its defaults.
        assert_eq!(RunConfig::from_user_toml("", None).unwrap(), RunConfig::for_game(GameSpec::connect4()));
        let twenty48 = GameSpec::Twenty48;
        let c = RunConfig::from_user_toml(text, Some(&twenty48)).unwrap();
        let mut expected = RunConfig::for_game(twenty48);
        expected.train.precision = PrecisionChoice::Fixed(Precision::F32);
        assert_eq!((c.gating.games, c.selfplay.temperature_moves), (8, 0), "a one-player game's gate and self-play");
        assert_eq!(c, expected);
        // A section's other keys stay the game's: naming one search key keeps Gumbel.
        let c = RunConfig::from_user_toml("[search]\nc_puct = 2.0\n", None).unwrap();
        assert_eq!((c.search.mode, c.search.simulations, c.search.c_puct), (SearchMode::Gumbel, 64, 2.0));
        // A typo is still refused, with its line; a bad value after layering too.
        let typo = RunConfig::from_user_toml("game = \"connect4\"\n[search]\nsimulatons = 5\n", None).unwrap_err();
        assert!(typo.to_string().contains("line 3") && typo.to_string().contains("simulatons"), "{typo}");
        let zero = RunConfig::from_user_toml("[gating]\ngames = 7\n", None).unwrap_err();
        assert!(matches!(&zero, ConfigError::OutOfRange { key: "gating.games", .. }), "{zero:?}");
    }

    #[test]
    fn the_shipped_saiblo_continuation_config_is_a_new_saiblo_run_but_for_the_cap_and_the_gate() {
        let c = shipped("saiblo-continue.toml").unwrap();
        let mut expected = RunConfig::for_game("connect4:saiblo".parse().unwrap());
        assert_ne!((expected.replay.max_samples_per_position, expected.gating.every_versions), (2.0, 0));
        expected.replay.max_samples_per_position = 2.0;
        expected.gating.every_versions = 0;
        assert_eq!(c, expected);
    }

    #[test]
    fn the_shipped_puct_config_is_the_connect_four_defaults_before_issue_35() {
        let c = shipped("connect4-puct.toml").unwrap();
        assert_eq!(c, RunConfig::default(), "PUCT at 200/50 playouts, a quarter of the moves trained");
        assert_eq!((c.search.mode, c.search.simulations), (SearchMode::Puct, 200));
        assert_eq!((c.selfplay.full_search_fraction, c.selfplay.fast_simulations), (0.25, 50));
    }

    #[test]
    fn a_config_that_cannot_be_read_names_its_file_and_the_reason_once() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.toml");
        let err = RunConfig::load(&missing, None).unwrap_err();
        assert!(matches!(&err, ConfigError::Read { path, .. } if *path == missing), "{err:?}");
        let reason = std::fs::read(&missing).unwrap_err();
        assert_eq!(err.to_string(), format!("cannot read {}: {reason}", missing.display()));
        // The reason is in the message, so `dojo`'s `{:#}` must not find it again as a source.
        assert!(std::error::Error::source(&err).is_none());
        let err = RunConfig::from_toml("[gating]\ngames = 7\n").unwrap_err();
        assert!(matches!(&err, ConfigError::OutOfRange { key: "gating.games", value, .. } if value == "7"), "{err:?}");
    }

    #[test]
    fn defaults_round_trip_through_toml() {
        let c = RunConfig::default();
        let text = c.to_toml();
        assert_eq!(RunConfig::from_toml(&text).unwrap(), c);
        assert_eq!(RunConfig::from_toml("").unwrap(), c);
    }

    #[test]
    fn overrides_and_unknown_keys() {
        let c = RunConfig::from_toml(
            "game = \"gomoku:9\"\n[search]\nsimulations = 64\nvcf_nodes = 1000\n[net]\nblocks = 2\n",
        )
        .unwrap();
        assert_eq!(c.game, GameSpec::gomoku(9));
        assert_eq!((c.search.simulations, c.net.blocks, c.net.channels), (64, 2, 32));
        assert_eq!(c.search.vcf_nodes, 1000);
        let err = RunConfig::from_toml("[search]\nsimulatons = 64\n").unwrap_err().to_string();
        assert!(err.contains("unknown field `simulatons`"), "{err}");
        let err = RunConfig::from_toml("game = \"chess\"\n").unwrap_err().to_string();
        assert!(err.contains("unknown game"), "{err}");
        let err = RunConfig::from_toml("[learner]\npublish_every = 0\n").unwrap_err().to_string();
        assert_eq!(err, "learner.publish_every and learner.checkpoint_every must be at least 1");
        let err = RunConfig::from_toml("[learner]\nanneal_fraction = 1.5\n").unwrap_err().to_string();
        assert_eq!(err, "learner.anneal_fraction = 1.5 must be within 0..=1");
        let err = RunConfig::from_toml("[learner]\nanneal_factor = 0\n").unwrap_err().to_string();
        assert_eq!(err, "learner.anneal_factor = 0 must be within (0, 1]");
        // Boards that differ per game get an any-size network; other games cannot have one.
        let c = RunConfig::from_toml("game = \"connect4:saiblo\"\n").unwrap();
        assert!(c.any_size() && !c.net.any_size);
        let probe = c.game.probe().unwrap();
        let arch = dojo_game::with_game!(&probe, g => c.architecture(g)).unwrap();
        assert_eq!((arch.any_size, arch.width, arch.height, arch.actions), (true, 12, 12, 12));
        let err = RunConfig::from_toml("game = \"2048\"\n[net]\nany_size = true\n").unwrap_err().to_string();
        assert_eq!(err, "net.any_size: an any-size network plays Connect Four or Gomoku boards, not 2048");
        let err =
            RunConfig::from_toml("game = \"connect4:saiblo\"\n[net]\npolicy_head = \"fc\"\n").unwrap_err().to_string();
        assert!(err.contains("leave policy_head auto"), "{err}");
        let err = RunConfig::from_toml("[net]\npolicy_head = \"conv\"\n").unwrap_err().to_string();
        assert!(
            err.starts_with("net.policy_head: policy head conv needs a game whose moves are its board's cells"),
            "{err}"
        );
        let c = RunConfig::from_toml("game = \"gomoku:9\"\n[net]\npolicy_head = \"conv\"\n").unwrap();
        assert_eq!(c.net.policy_head, PolicyHeadChoice::Conv);
        // A run without Gomoku's threat planes: the network takes the first four.
        let c = RunConfig::from_toml("game = \"gomoku:9\"\n[net]\ninput_planes = 4\n").unwrap();
        let arch = c.architecture(&dojo_game::gomoku::Gomoku::new(9).unwrap()).unwrap();
        assert_eq!(arch.input_channels, 4);
        assert!(c.to_toml().contains("input_planes = 4"));
        assert!(!RunConfig::default().to_toml().contains("input_planes"), "0 (all planes) is not written");
        let err = RunConfig::from_toml("game = \"gomoku:9\"\n[net]\ninput_planes = 9\n").unwrap_err().to_string();
        assert_eq!(err, "net.input_planes = 9: gomoku:9 networks take at most 8 planes");
        let err =
            RunConfig::from_toml("game = \"connect4:saiblo\"\n[net]\ninput_planes = 3\n").unwrap_err().to_string();
        assert!(err.starts_with("net.input_planes = 3: an any-size network takes"), "{err}");
        let err = RunConfig::from_toml("[gating]\ngames = 7\n").unwrap_err().to_string();
        assert_eq!(err, "gating.games = 7 must be even and at least 2 (games come in pairs)");
        let err = RunConfig::from_toml("[gating]\npromote_score = 0\n").unwrap_err().to_string();
        assert_eq!(err, "gating.promote_score = 0 must be within (0, 1]");
        let c = RunConfig::from_toml("[gating]\nmode = \"sprt\"\ngames = 200\n[gating.sprt]\nelo1 = 30\n").unwrap();
        assert_eq!((c.gating.mode, c.gating.sprt.elo1, c.gating.sprt.alpha), (GateMode::Sprt, 30.0, 0.05));
        let err = RunConfig::from_toml("[gating.sprt]\nbeta = 0.7\n").unwrap_err().to_string();
        assert_eq!(err, "gating.sprt.alpha = 0.05 and beta = 0.7 must be within (0, 0.5)");
        let err = RunConfig::from_toml("[gating.sprt]\nelo0 = 10\nelo1 = 5\n").unwrap_err().to_string();
        assert_eq!(err, "gating.sprt.elo1 = 5 must be above elo0 = 10");
        let err = RunConfig::from_toml("[gating]\nmode = \"bayes\"\n").unwrap_err().to_string();
        assert!(err.contains("unknown variant `bayes`, expected `fixed` or `sprt`"), "{err}");
        let err = RunConfig::from_toml("[net]\npolicy_head = \"cnn\"\n").unwrap_err().to_string();
        assert!(err.contains("unknown variant `cnn`"), "{err}");
    }

    #[test]
    fn workers_fit_the_cores() {
        let c = RunConfig::default();
        assert_eq!(c.worker_count(2), 2);
        assert_eq!(c.worker_count(8), 8);
        assert_eq!(c.worker_count(1), 1);
        let c = RunConfig {
            workers: WorkersConfig { count: 0, threads: 3, ..WorkersConfig::default() },
            ..RunConfig::default()
        };
        assert_eq!(c.worker_count(8), 2);
        assert_eq!(c.worker_count(2), 1);
        let c = RunConfig {
            workers: WorkersConfig { count: 3, threads: 1, ..WorkersConfig::default() },
            ..RunConfig::default()
        };
        assert_eq!(c.worker_count(2), 3);
    }
}
