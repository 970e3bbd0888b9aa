//! A saiblo strategy as a player in dojo's matches (`saiblo:PATH.so`): a fresh host process
//! per game ([`super::host`]), the SDK's view of each position, a clock on each move, and
//! every failure a loss with its cause.

use super::view::{BoardError, SaibloView};
use crate::child::{answer_deadline, ChildError, LineChild};
use dojo_base::bits::BitWord;
use dojo_game::connect4::Connect4;
use dojo_game::{Action, Game};
use dojo_search::player::{Agent, MoveError};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// saiblo's time for a move.
pub const DEFAULT_CLOCK_MS: u64 = 3_000;

/// How long a host may take to load its strategy (the library's initialisers run then),
/// beyond the move's clock.
pub const LOAD_ALLOWANCE: Duration = Duration::from_secs(10);

/// What a strategy is called in its errors.
const WHO: &str = "the strategy";

/// The command-line word that runs the host (`dojo saiblo-host PATH.so`).
pub const HOST_COMMAND: &str = "saiblo-host";

/// How a strategy is hosted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyConfig {
    /// The shared object.
    pub path: PathBuf,
    /// The time a move may take. The host has a tenth more (at least 50 ms, at most 1 s)
    /// for the pipe and a busy machine before the strategy loses on time.
    pub clock: Duration,
    /// The executable whose `saiblo-host` command hosts it: this one (`dojo`).
    pub host: PathBuf,
}

impl StrategyConfig {
    /// The strategy in `path`, hosted by this executable.
    pub fn new(path: &Path, clock: Duration) -> StrategyConfig {
        let host = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("dojo"));
        StrategyConfig { path: path.to_path_buf(), clock, host }
    }
}

/// Why a strategy lost a game, or cannot play: the crash, the hang, the illegal or
/// unreadable answer, or a load that failed.
#[derive(Debug, thiserror::Error)]
pub enum StrategyError {
    /// The host did not start, the strategy stayed silent past its clock (a hang), or its
    /// process died (a crash: its signal or exit status, and its last words on stderr).
    #[error(transparent)]
    Child(#[from] ChildError),
    /// The shared object does not load (the host's words).
    #[error("{why}")]
    Load { why: String },
    #[error("getPoint returned no point (a null pointer)")]
    NullPoint,
    /// The host answered with something that is not a point.
    #[error("unreadable answer {answer:?}")]
    Unreadable { answer: String },
    /// An illegal point, or a board that saiblo strategies do not play.
    #[error(transparent)]
    Board(#[from] BoardError),
}

impl StrategyError {
    /// What kind of failure it is, as a match counts forfeits.
    pub fn kind(&self) -> crate::forfeit::ForfeitKind {
        use crate::forfeit::ForfeitKind;
        match self {
            StrategyError::Child(child) => child.kind(),
            StrategyError::Load { .. } => ForfeitKind::Crash,
            StrategyError::NullPoint | StrategyError::Unreadable { .. } => ForfeitKind::Unparsable,
            StrategyError::Board(_) => ForfeitKind::Illegal,
        }
    }
}

/// A saiblo strategy playing Connect Four.
pub struct StrategyAgent {
    config: StrategyConfig,
    name: String,
    /// This game's host; none before its first move.
    process: Option<LineChild>,
    /// Moves asked of this game's host, for the messages.
    asked: u32,
}

impl StrategyAgent {
    pub fn new(config: StrategyConfig, name: impl Into<String>) -> StrategyAgent {
        StrategyAgent { config, name: name.into(), process: None, asked: 0 }
    }

    /// Starts a host and checks that it loads the strategy: done before a long match.
    pub fn check(config: &StrategyConfig) -> Result<(), StrategyError> {
        start(config)?.end(None);
        Ok(())
    }

    fn move_in<B: BitWord>(&mut self, game: &Connect4<B>) -> Result<Action, StrategyError> {
        let view = SaibloView::of(game)?;
        let process = match &mut self.process {
            Some(process) => process,
            none => none.insert(start(&self.config)?),
        };
        self.asked += 1;
        process.send(&[view.request_line()])?;
        let answer =
            process.reply(answer_deadline(self.config.clock), &format!("its move {}", self.asked), |_| false)?;
        if answer == "null" {
            return Err(StrategyError::NullPoint);
        }
        let unreadable = || StrategyError::Unreadable { answer: answer.clone() };
        let (x, y) = answer.split_once(' ').ok_or_else(unreadable)?;
        let (x, y) = (x.parse().map_err(|_| unreadable())?, y.parse().map_err(|_| unreadable())?);
        Ok(view.action(x, y)?)
    }

    fn stop(&mut self) {
        if let Some(process) = self.process.take() {
            process.kill();
        }
    }
}

/// A host with the strategy loaded.
fn start(config: &StrategyConfig) -> Result<LineChild, StrategyError> {
    // dlopen looks a bare file name up in the library path, not here.
    let path = std::path::absolute(&config.path).unwrap_or_else(|_| config.path.clone());
    let mut command = Command::new(&config.host);
    command.arg(HOST_COMMAND).arg(&path).env("RUST_LOG", "off");
    let shown = format!("{} {HOST_COMMAND} {}", config.host.display(), path.display());
    let mut process = LineChild::spawn(WHO, command, &shown, true)?;
    match process.reply(LOAD_ALLOWANCE + config.clock, "loading it", |_| false) {
        Ok(ready) if ready == "ready" => Ok(process),
        Ok(said) => {
            process.kill();
            match said.strip_prefix("error ") {
                Some(why) => Err(StrategyError::Load { why: why.to_string() }),
                None => Err(StrategyError::Unreadable { answer: said }),
            }
        }
        Err(error) => {
            process.kill();
            Err(error.into())
        }
    }
}

impl<B: BitWord> Agent<Connect4<B>> for StrategyAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// Each game gets a process of its own, as on the platform (the strategy's static state
    /// starts afresh); its randomness is its own, and the seed is not used.
    fn new_game(&mut self, _seed: u64) {
        self.stop();
        self.asked = 0;
    }

    fn select_move(&mut self, game: &Connect4<B>) -> Action {
        // Outside a match (where a failure forfeits), a failed strategy's move is the first
        // legal one, so the game can go on; the reason is logged.
        self.try_select_move(game).unwrap_or_else(|why| {
            tracing::warn!("{}: {why}; playing the first legal move instead", self.name);
            let mut legal = Vec::new();
            game.legal_actions(&mut legal);
            legal[0]
        })
    }

    fn try_select_move(&mut self, game: &Connect4<B>) -> Result<Action, MoveError> {
        let played = self.move_in(game).map_err(MoveError::engine);
        if played.is_err() {
            // A strategy that failed once is not asked again this game.
            self.stop();
        }
        played
    }
}

impl Drop for StrategyAgent {
    fn drop(&mut self) {
        if let Some(process) = self.process.take() {
            // Its input closes: the host exits.
            process.end(None);
        }
    }
}
