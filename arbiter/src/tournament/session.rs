//! A tournament on a run, as `dojo tournament` plays it: [`plan`] turns what the user asked
//! for (a [`Request`]) into the tournament to open (players from the run's checkpoints and
//! named specs, the format, openings, games and seed carried over from the tournament
//! already in its folder, the anchor), checking everything before a file is written;
//! [`play`] plays the games left, writes the standings (JSON, plot, TensorBoard) and, asked
//! to, makes the best checkpoint the run's best. The command only parses and prints.

use super::plot;
use super::selection;
use super::standings::{Ranking, StandingsError};
use super::{
    tournament_dir, Entrant, Format, Tournament, TournamentContest, TournamentDir, TournamentError, TournamentSpec,
};
use crate::charts::ChartError;
use crate::openings::Openings;
use crate::players::{check_player_for, net_averages_by_default, NetSpec, PlayerSpec};
use crate::promotion::{self, Promoter};
use dojo_game::GameSpec;
use dojo_net::checkpoint;
use dojo_run::config::RunConfig;
use dojo_run::paths::RunPaths;
use dojo_run::retention::Retention;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// How the players meet, as asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatChoice {
    /// Every pairing of players.
    RoundRobin,
    /// Every player against the references only.
    Gauntlet,
}

impl std::str::FromStr for FormatChoice {
    type Err = dojo_base::util::SettingError;
    fn from_str(text: &str) -> Result<FormatChoice, Self::Err> {
        match text {
            "round-robin" => Ok(FormatChoice::RoundRobin),
            "gauntlet" => Ok(FormatChoice::Gauntlet),
            _ => Err(dojo_base::util::SettingError::not_a_choice("tournament mode", text, "round-robin or gauntlet")),
        }
    }
}

/// What the user asked for; `None` keeps the tournament's own setting (or the default).
#[derive(Clone, Debug)]
pub struct Request {
    pub name: String,
    /// Players besides the run's checkpoints, `NAME=SPEC` or a spec.
    pub players: Vec<String>,
    /// The run's versions divisible by K play, and the newest.
    pub every_nth_version: Option<u64>,
    pub newest_version: bool,
    /// Playouts per move of the run's checkpoints.
    pub sims: u32,
    /// The run's checkpoints search each move for this long instead (`net:...:clock=`), a
    /// tournament by the clock.
    pub clock_ms: Option<u64>,
    pub games_per_pair: Option<u32>,
    pub format: Option<FormatChoice>,
    /// The gauntlet's references (specs or names), weakest first.
    pub reference: Vec<String>,
    pub opening_plies: Option<u32>,
    pub openings: Option<PathBuf>,
    pub seed: Option<u64>,
    pub anchor: Option<String>,
    pub anchor_elo: f64,
    /// External players' time per move; None: each kind's own default.
    pub move_timeout_ms: Option<u64>,
    /// The board played: one the run's checkpoints play (a board of an any-size network's
    /// game); None: the tournament's so far, else the run's game.
    pub game: Option<GameSpec>,
}

/// A tournament ready to open: checked, nothing written yet.
pub struct Plan {
    pub name: String,
    pub run: RunPaths,
    pub config: RunConfig,
    /// The game played: the run's, or the board the request named.
    pub game: GameSpec,
    pub dir: TournamentDir,
    /// What this session asks for (the folder's tournament extended by it is what plays).
    pub wanted: TournamentSpec,
    /// The player whose rating is fixed, and its rating (two-player games only).
    pub anchor: Option<(String, f64)>,
    /// What the user should hear before the games: versions asked for that are no longer
    /// on disk, and why ([`selection::shortfall`]).
    pub notes: Vec<String>,
}

/// Checks `request` against the run in `run_dir` and the tournament already in its folder.
pub fn plan(run_dir: &std::path::Path, request: &Request) -> Result<Plan, TournamentError> {
    let run = RunPaths::new(run_dir);
    if !run.exists() {
        return Err(TournamentError::NotARun { path: run_dir.to_path_buf() });
    }
    let config = RunConfig::load_stored(&run.config())?;
    let dir = tournament_dir(&run.tournaments(), &request.name)?;
    let before = dir.read_spec()?;
    let game = board(request, &config, before.as_ref())?;
    let one_player = config.game.is_one_player();
    if one_player {
        refuse_two_player_options(request, &config)?;
    }
    let (entrants, notes) = entrants(request, &run, &config, one_player)?;
    let known: Vec<&Entrant> = entrants.iter().chain(before.iter().flat_map(|b| &b.entrants)).collect();
    let references =
        request.reference.iter().map(|r| player_name(r, &known)).collect::<Result<Vec<_>, TournamentError>>()?;
    let format = match (request.format, references.is_empty(), &before) {
        (Some(FormatChoice::Gauntlet), false, _) => Format::Gauntlet { reference: references },
        (Some(FormatChoice::Gauntlet), true, _) => return Err(TournamentError::GauntletWithoutReference),
        (Some(FormatChoice::RoundRobin), false, _) | (None, false, None) => {
            return Err(TournamentError::ReferenceWithoutGauntlet)
        }
        (Some(FormatChoice::RoundRobin), true, _) | (None, true, None) => Format::RoundRobin,
        (None, _, Some(old)) => old.format.clone(),
    };
    let openings = match &request.openings {
        Some(path) => Openings::load(path)?.lines,
        None => before.as_ref().map(|b| b.openings.clone()).unwrap_or_default(),
    };
    let default_plies = if one_player || !openings.is_empty() { 0 } else { 4 };
    let wanted = TournamentSpec {
        game: game.to_string(),
        format,
        games_per_pair: request.games_per_pair.or(before.as_ref().map(|b| b.games_per_pair)).unwrap_or(10),
        opening_plies: request.opening_plies.or(before.as_ref().map(|b| b.opening_plies)).unwrap_or(default_plies),
        openings,
        seed: request.seed.or(before.as_ref().map(|b| b.seed)).unwrap_or_else(rand::random),
        move_timeout_ms: request.move_timeout_ms,
        entrants,
    };
    // A checkpoint of another game, a brain that does not start, the solver on Gomoku.
    for e in &wanted.entrants {
        let spec: PlayerSpec = e.spec.parse()?;
        check_player_for(&spec.with_move_timeout(request.move_timeout_ms), &game)
            .map_err(|error| TournamentError::Player { name: e.name.clone(), error: Box::new(error) })?;
    }
    let merged = match &before {
        Some(old) => old.extend(&wanted)?,
        None => wanted.validate().map(|()| wanted.clone())?,
    };
    let anchor = if one_player { None } else { Some((anchor(request, &merged)?, request.anchor_elo)) };
    Ok(Plan { name: request.name.clone(), run, config, game, dir, wanted, anchor, notes })
}

/// The tournament's game: the board `request` names where the run's checkpoints play it
/// (any board of its game for a run of an any-size network), else the tournament's so far,
/// else the run's.
fn board(request: &Request, config: &RunConfig, before: Option<&TournamentSpec>) -> Result<GameSpec, TournamentError> {
    let game = match (&request.game, before) {
        (Some(game), _) => game.clone(),
        (None, Some(old)) => old.game_spec()?,
        (None, None) => return Ok(config.game.clone()),
    };
    if game == config.game || (config.any_size() && game.family() == config.game.family()) {
        Ok(game)
    } else {
        Err(TournamentError::NotTheRunsBoard { game, run: config.game.clone() })
    }
}

/// What a session did, for the command to print.
pub struct Session<S> {
    pub standings: S,
    /// Games this session played, and finished games in all.
    pub played: usize,
    pub total: usize,
    /// Games still to play (after an interruption).
    pub left: usize,
    /// The standings' JSON file and plot (or why there is no plot).
    pub path: PathBuf,
    pub png: PathBuf,
    pub drew: Result<(), ChartError>,
    pub tensorboard: Result<(), StandingsError>,
}

/// Opens the planned tournament, tells `on_open` what it holds (a line to show, and the
/// games left to play), plays them on `threads` threads (each to `on_game`), stops between
/// games once `stop` is set, and writes the standings.
pub fn play<C: TournamentContest>(
    contest: C,
    plan: Plan,
    threads: usize,
    stop: &AtomicBool,
    on_open: impl FnOnce(String, usize),
    on_game: &(dyn Fn(&C::Line) + Sync),
) -> Result<Session<C::Standings>, TournamentError> {
    let Plan { name, run, dir, wanted, anchor, .. } = plan;
    let mut tournament = Tournament::open(contest, dir, &wanted)?;
    let done = tournament.results.len();
    let to_play = tournament.to_play().len();
    let mut opened = format!(
        "tournament {name} in {}: {} players, {}; {done} finished, {to_play} to play on {threads} thread(s)",
        tournament.dir.root.display(),
        tournament.spec.entrants.len(),
        C::describe_games(&tournament.spec),
    );
    if !tournament.gone.is_empty() {
        let mut gone: Vec<&String> = tournament.gone.iter().collect();
        gone.sort_by_key(|name| name.trim_start_matches('v').parse::<u64>().unwrap_or(u64::MAX));
        let names = gone.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", ");
        opened += &format!("\n{names}: no longer on disk (pruned by the run); their games stand, they play no more");
    }
    on_open(opened, to_play);
    let results = tournament.play(threads, stop, on_game)?;
    let standings = tournament.standings(anchor.as_ref().map(|(name, elo)| (name.as_str(), *elo)))?;
    let (path, png) = C::standings_files(&tournament.dir);
    let title = format!("{} · {} · {} games", run.root.display(), tournament.spec.game, standings.games());
    let json = serde_json::to_vec_pretty(&standings).map_err(|error| TournamentError::Json { error })?;
    dojo_base::util::atomic_write(&path, &json).map_err(TournamentError::io("write", path.clone()))?;
    let drew = plot::draw(&standings, &title, &png);
    let tensorboard = standings.to_tensorboard(&run.tensorboard(&format!("tournament-{name}")));
    let left = tournament.to_play().len();
    Ok(Session { played: results.len() - done, total: results.len(), left, standings, path, png, drew, tensorboard })
}

impl<S> Session<S> {
    /// What the session did, for stderr after the standings: games played and how long
    /// they took on `threads` threads in `seconds`, and the files written.
    pub fn summary(&self, threads: usize, seconds: f64) -> String {
        let mut said = format!(
            "{} games played in {:.1} min ({:.1} s a game on {threads} thread(s)); {} in all; wrote {}{}",
            self.played,
            seconds / 60.0,
            if self.played > 0 { seconds * threads.min(self.played) as f64 / self.played as f64 } else { 0.0 },
            self.total,
            self.path.display(),
            match &self.drew {
                Ok(()) => format!(" and {}", self.png.display()),
                Err(e) => format!(" (no plot: {e})"),
            }
        );
        if let Err(e) = &self.tensorboard {
            said = format!("no TensorBoard events: {e}\n{said}");
        }
        said
    }
}

/// `--choose-best`: makes the session's best checkpoint still on disk the run's best (as gating promotes,
/// under the run's gating lock), unless the session was interrupted. Returns what to say:
/// "v12 (+35 Elo) is now RUN/models/best.safetensors (step 600)".
pub fn choose_best<S: Ranking>(run_dir: &std::path::Path, session: &Session<S>) -> Result<String, TournamentError> {
    let run = RunPaths::new(run_dir);
    let on_disk = |v: u64| run.model_version(v).exists();
    let best = session.standings.best_checkpoint(&on_disk).ok_or(TournamentError::NoBest { none: S::RANKED })?;
    let version = best.player.version.expect("best_checkpoint has a version");
    let sidecar = promotion::promote(&run, Promoter::Tournament, version)?;
    let how = S::merit(best.value.unwrap_or(0.0));
    Ok(format!("{} ({how}) is now {} (step {})", best.player.name, run.best().display(), sidecar.step))
}

/// The player whose rating is fixed: the request's anchor, else mcts:1000 or random where
/// one plays, else the first player.
fn anchor(request: &Request, merged: &TournamentSpec) -> Result<String, TournamentError> {
    let plays = |name: &str| merged.entrants.iter().any(|e| e.name == name);
    let known: Vec<&Entrant> = merged.entrants.iter().collect();
    let anchor = match &request.anchor {
        Some(a) => player_name(a, &known)?,
        None => ["mcts:1000", "random"]
            .into_iter()
            .find(|n| plays(n))
            .map_or_else(|| merged.entrants[0].name.clone(), str::to_string),
    };
    if !plays(&anchor) {
        return Err(TournamentError::AnchorNotPlaying { anchor });
    }
    Ok(anchor)
}

/// Options that only two-player tournaments have, refused for a one-player game's.
fn refuse_two_player_options(request: &Request, config: &RunConfig) -> Result<(), TournamentError> {
    let game = config.game.family().to_string();
    if request.format == Some(FormatChoice::Gauntlet) || !request.reference.is_empty() {
        return Err(TournamentError::OnePlayerReference { game });
    }
    if request.anchor.is_some() {
        return Err(TournamentError::OnePlayerAnchor { game });
    }
    Ok(())
}

/// The players: the run's chosen checkpoints, then the request's players; and the notes on
/// the checkpoints asked for that are gone.
fn entrants(
    request: &Request,
    run: &RunPaths,
    config: &RunConfig,
    one_player: bool,
) -> Result<(Vec<Entrant>, Vec<String>), TournamentError> {
    let mut entrants = Vec::new();
    let mut notes = Vec::new();
    if request.every_nth_version.is_some() || request.newest_version {
        if request.every_nth_version == Some(0) {
            return Err(TournamentError::EveryNthZero);
        }
        let versions = run.versions()?;
        let retention = Retention::of(&config.learner);
        notes.extend(request.every_nth_version.and_then(|k| selection::shortfall(&versions, k, retention)));
        entrants = checkpoints(request, run, &selection::chosen(&versions, request.every_nth_version), one_player)?;
    }
    for text in &request.players {
        let (name, spec) = split_name(text);
        let spec: PlayerSpec =
            spec.parse().map_err(|error| TournamentError::BadPlayer { text: text.clone(), error })?;
        // A network from elsewhere is placed on the curve by its training step, and so is a
        // strategy exported from one that has the network's sidecar beside it.
        let step = match &spec {
            PlayerSpec::Net(net) => Some(checkpoint::read_sidecar(&net.path)?.step),
            PlayerSpec::Saiblo(strategy) => exported_step(&strategy.path)?,
            _ => None,
        };
        let name = name.map_or_else(|| spec.to_string(), str::to_string);
        entrants.push(Entrant { name, spec: spec.to_string(), version: None, step });
    }
    if entrants.is_empty() {
        return Err(TournamentError::NoEntrants { game: config.game.to_string() });
    }
    Ok((entrants, notes))
}

/// The training step of the network a saiblo strategy was exported from, where that
/// network's sidecar is beside the shared object with its stem (`DIR/Strategy.json` for
/// `DIR/Strategy.so`, as scripts/saiblo-ladder keeps each version's export): the strategies
/// of a run's versions then make a curve over training, as the versions themselves do. A
/// strategy without one (a hand-written one, a reference) is not on the curve.
fn exported_step(strategy: &std::path::Path) -> Result<Option<u64>, TournamentError> {
    let sidecar = strategy.with_extension("json");
    if !sidecar.is_file() {
        return Ok(None);
    }
    Ok(Some(checkpoint::read_sidecar(&sidecar)?.step))
}

/// The run's checkpoints that play, `versions`, named by absolute path so the tournament
/// plays from anywhere.
fn checkpoints(
    request: &Request,
    run: &RunPaths,
    versions: &[u64],
    one_player: bool,
) -> Result<Vec<Entrant>, TournamentError> {
    let root = std::fs::canonicalize(&run.root).map_err(TournamentError::io("read", run.root.clone()))?;
    let run_abs = RunPaths::new(root);
    let mut entrants = Vec::new();
    for &v in versions {
        let path = run_abs.model_version(v);
        let sidecar = checkpoint::read_sidecar(&path)?;
        let mut spec = PlayerSpec::net(&path, request.sims);
        if let PlayerSpec::Net(NetSpec { average_symmetries, clock_ms, .. }) = &mut spec {
            *average_symmetries = !one_player && net_averages_by_default(request.clock_ms);
            *clock_ms = request.clock_ms;
        }
        entrants.push(Entrant {
            name: format!("v{v}"),
            spec: spec.to_string(),
            version: Some(v),
            step: Some(sidecar.step),
        });
    }
    if entrants.is_empty() {
        return Err(TournamentError::NoVersions { models: run.models() });
    }
    Ok(entrants)
}

/// `NAME=SPEC` split into its name and spec; anything else is a spec alone. A name is
/// letters, digits, '.', '_' and '-', so a spec's own '=' (`net:CKPT:sims=200`, an
/// engine's `env X=1`) follows a ':' or a space and never reads as a name.
fn split_name(text: &str) -> (Option<&str>, &str) {
    match text.split_once('=') {
        Some((name, spec))
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) =>
        {
            (Some(name), spec)
        }
        _ => (None, text),
    }
}

/// A player's name as the tournament knows it, from what was typed: a version (`v12`), a
/// player's name (`rapfi-1000`), `NAME=SPEC`, or a spec.
fn player_name(text: &str, known: &[&Entrant]) -> Result<String, TournamentError> {
    if let Some(v) = text.strip_prefix('v').and_then(|v| v.parse::<u64>().ok()) {
        return Ok(format!("v{v}"));
    }
    if let (Some(name), _) = split_name(text) {
        return Ok(name.to_string());
    }
    if known.iter().any(|e| e.name == text) {
        return Ok(text.to_string());
    }
    Ok(text.parse::<PlayerSpec>()?.to_string())
}
