//! What can be wrong with a tournament: a spec that cannot be played, one that differs from
//! the tournament already in its folder, the folder's files, and a game that cannot be
//! played. Each message names the setting, player or file, as the user wrote it.
//!
//! A wrapped error's text is part of the message and not also its `source()`, so that
//! `dojo`'s `{:#}` does not print it twice.

use super::standings::StandingsError;
use crate::openings::OpeningsError;
use crate::players::{PlayerError, PlayerSpecError};
use crate::promotion::PromoteError;
use dojo_game::{GameError, GameSpec};
use dojo_net::checkpoint::CheckpointError;
use dojo_run::config::ConfigError;
use dojo_run::dir::RunDirError;
use dojo_run::journal::JournalError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("games per pairing must be even and at least 2 (pairs from one opening), not {games}")]
    GamesPerPair { games: u32 },
    #[error("a tournament needs two players or more, not {players}")]
    TooFewPlayers { players: usize },
    #[error("a gauntlet needs a reference player or more")]
    NoReference,
    #[error("the gauntlet's reference {name} is not one of the players")]
    ReferenceNotPlaying { name: String },
    #[error("{name} is a reference of the gauntlet twice")]
    ReferenceTwice { name: String },
    #[error("every player is a reference of the gauntlet: name a player to play them")]
    OnlyReferences,
    #[error("a tournament opens from a book of openings or with random plies, not both ({plies} plies given)")]
    BookAndPlies { plies: u32 },
    /// The tournament's game (`game`, as written) does not parse.
    #[error("game {game:?}: {error}")]
    Game { game: String, error: GameError },
    /// `--game` names a board the run's checkpoints do not play (`run`: the run's game).
    #[error("the run plays {run}, not {game} (a run of an any-size network plays every board of its game)")]
    NotTheRunsBoard { game: GameSpec, run: GameSpec },
    /// The tournament's game cannot start.
    #[error("{game}: {error}")]
    GameStart { game: GameSpec, error: GameError },
    /// A game of the tournament cannot be drawn.
    #[error(transparent)]
    NewGame(#[from] GameError),
    /// The book does not fit the game, or an opening cannot be played.
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    #[error("a one-player tournament needs at least 1 game per player")]
    NoGames,
    #[error("a tournament needs a player or more")]
    NoPlayers,
    #[error(
        "{game} is a one-player game: every player plays the same games alone, so there is no gauntlet (leave out --format gauntlet)"
    )]
    OnePlayerGauntlet { game: String },
    #[error(
        "{game} is a one-player game: its games start from their own random tiles, with no opening plies (not {plies})"
    )]
    OnePlayerPlies { game: String, plies: u32 },
    #[error("{game} is a one-player game: its games start from their own random tiles, with no book of openings")]
    OnePlayerBook { game: String },
    /// A tournament of one contest asked of the other's game.
    #[error("{game} is a one-player game: its tournament is a Tournament<OnePlayer>, ranked by mean score")]
    NotTwoPlayer { game: String },
    #[error("{game} is a two-player game: its tournament is a Tournament<TwoPlayer>")]
    NotOnePlayer { game: String },
    #[error("{name} is in the tournament twice")]
    Twice { name: String },
    #[error(transparent)]
    PlayerSpec(#[from] PlayerSpecError),
    /// A setting that decides the games played (`what`: game, format, seed...) differs from
    /// the tournament's in its folder.
    #[error("this tournament was started with {what} {was}, not {now}: rerun with the same, or name a new tournament")]
    Differs { what: &'static str, was: String, now: String },
    /// The openings (`was`: as many lines, 0 for random openings) differ from the folder's.
    #[error(
        "this tournament was started with {}, not these {}: rerun with the same, or name a new tournament",
        match .was { 0 => "random openings".to_string(), n => format!("another book of openings ({n})") },
        match .now { 0 => "random openings".to_string(), n => format!("{n} openings") }
    )]
    OtherOpenings { was: usize, now: usize },
    /// A player's name given for another spec than the one it has in the tournament.
    #[error("player {name} was {was} in this tournament, not {now}")]
    Respecified { name: String, was: String, now: String },
    /// `tournament.json` does not parse.
    #[error("{}: {error}", .path.display())]
    Spec { path: PathBuf, error: serde_json::Error },
    /// A file or folder of the tournament cannot be read, created or written (`op`).
    #[error("cannot {op} {}: {error}", .path.display())]
    Io { op: &'static str, path: PathBuf, error: std::io::Error },
    /// The lock is held, or `results.jsonl` cannot be read or appended to.
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error("{name} is not a player")]
    NotAPlayer { name: String },
    /// Player `name` cannot be built (boxed: a player's error is large).
    #[error("{name}: {error}")]
    Player { name: String, error: Box<PlayerError> },
    #[error(transparent)]
    Standings(#[from] StandingsError),
    #[error("tournament name {name:?}: use letters, digits, '.', '_' and '-' only (at most 40)")]
    Name { name: String },
    // What a session on a run (`session::plan`) refuses, in the command's words.
    #[error("{} is not a run directory (no config.toml)", .path.display())]
    NotARun { path: PathBuf },
    #[error(transparent)]
    RunConfig(#[from] ConfigError),
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error("--format gauntlet needs --reference SPEC")]
    GauntletWithoutReference,
    #[error("--reference is for --format gauntlet")]
    ReferenceWithoutGauntlet,
    #[error("--every-nth-version must be at least 1")]
    EveryNthZero,
    #[error("{} has no published versions yet", .models.display())]
    NoVersions { models: PathBuf },
    #[error(
        "no players: name the run's checkpoints with --every-nth-version K and others with --players (e.g. --players random mcts:200 mcts:1000), game {game}"
    )]
    NoEntrants { game: String },
    #[error("--players: {error}")]
    BadPlayer { text: String, error: PlayerSpecError },
    #[error("the anchor {anchor} is not one of the players")]
    AnchorNotPlaying { anchor: String },
    #[error(
        "{game} is a one-player game: every player plays the same games alone, so there is no gauntlet (leave out --format gauntlet and --reference)"
    )]
    OnePlayerReference { game: String },
    #[error(
        "{game} is a one-player game: players are ranked by mean score, with no ratings to anchor (leave out --anchor)"
    )]
    OnePlayerAnchor { game: String },
    /// `--choose-best` where no checkpoint of the run `none` (was rated, scored).
    #[error("--choose-best: no checkpoint of the run {none}")]
    NoBest { none: &'static str },
    #[error(transparent)]
    Promote(#[from] PromoteError),
    #[error("cannot write the standings as JSON: {error}")]
    Json { error: serde_json::Error },
}

impl TournamentError {
    /// [`TournamentError::Io`]: `op` (read, create, write) failed on `path`.
    pub(crate) fn io(op: &'static str, path: PathBuf) -> impl FnOnce(std::io::Error) -> TournamentError {
        move |error| TournamentError::Io { op, path, error }
    }
}
