//! The manager's side of the protocol: an external brain as a player in dojo's matches and
//! tournaments (player spec `pbrain:COMMAND`).
//!
//! The brain is a process of its own (`sh -c "exec COMMAND"`), kept for game after game:
//! `START n` and the `INFO` lines once, `RESTART` between games (a brain that refuses it is
//! started afresh). Each of its moves is asked with `BEGIN` (an empty board), `TURN x,y`
//! (the opponent's one move since the brain's last) or a `BOARD` block (any other
//! position: a random opening, a first move as second player after one), and every
//! command waits for its answer before the next is sent. `MESSAGE` and `DEBUG` lines are
//! the brain talking to a human: skipped.
//!
//! A brain that crashes, says nothing for the move's time, answers with something that is
//! not `x,y` or plays an occupied or off-board point loses the game, with the reason; its
//! process is killed, and the next game starts a new one.
//!
//! Clocks, as Gomocup's: `INFO timeout_turn` (every move) and, where the player has a match
//! clock, `INFO timeout_match` and `INFO time_left` before every move request (what is left
//! of it in this game). A brain loses on time where one move passes its turn clock or its
//! thinking in the game passes its match clock (each with [`answer_deadline`]'s
//! tolerance); the reason names the clock. Its thinking is the wall time from sending a
//! move request to reading the answer, as Gomocup's manager counts it; Gomocup's also
//! suspends the brain's process between its moves, and this one does not, so a brain that
//! thinks on the opponent's time is not charged for it here.
//!
//! The game's rule is told once a process (and again if a game's differs), `INFO rule`
//! ([`rule_of`]) followed by `ABOUT` so that an `ERROR` answer to the rule is read before
//! the game: the brain refuses to play it, and the check before a match fails or the game
//! is forfeited with that reason.
//!
//! Commands a brain drops are not held against it. Unpatched Rapfi ignores any command that
//! reaches it while its search thread is still finishing a move it has already printed (a
//! window of microseconds, longer on a loaded machine, where it forfeited games on time):
//! so nothing is sent to a brain until [`QUIET_AFTER_MOVE`] after its last answer, and a
//! request for a move that the brain answers with `ERROR` (it read the dropped command's
//! arguments as commands of their own) is sent once more, its further `ERROR` lines skipped.

use crate::child::{answer_deadline, ChildError, LineChild};
use crate::forfeit::ForfeitKind;
use dojo_game::gomoku::Gomoku;
use dojo_game::{Action, Game, Player, ToMove};
use dojo_search::player::{Agent, ClockUse, MoveError};
use std::process::Command;
use std::time::{Duration, Instant};

/// How long a brain may take to answer `START` (it may be loading a network), beyond the
/// move time.
pub const START_ALLOWANCE: Duration = Duration::from_secs(30);

/// Why a brain lost a game or could not start: each names what it did wrong. A wrapped
/// error's text is part of the message and not also its `source()`.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The brain did not start, stayed silent for the move's time, or crashed.
    #[error(transparent)]
    Child(#[from] ChildError),
    /// The brain answered `START n` (`start`) with something else than `OK`.
    #[error("the brain refused {start}: {answer}")]
    Refused { start: String, answer: String },
    #[error("the brain is not running")]
    NotRunning,
    #[error("unparsable answer {answer:?} (expected x,y)")]
    Unparsable { answer: String },
    #[error("illegal move {x},{y}: off the {size}x{size} board")]
    OffBoard { x: usize, y: usize, size: usize },
    #[error("illegal move {x},{y}: the point is taken")]
    Taken { x: usize, y: usize },
    /// No answer to a move request (`asked`) within `waited_ms`: its turn clock
    /// (`turn_ms`) and the tolerance.
    #[error("no answer to {asked} within {waited_ms} ms: over its turn clock (timeout_turn {turn_ms} ms)")]
    TurnTime { asked: String, waited_ms: u128, turn_ms: u128 },
    /// Its thinking in this game (`thought_ms`) passed its match clock and the tolerance.
    #[error("over its match clock: {thought_ms} ms thought in this game, timeout_match {match_ms} ms")]
    MatchTime { thought_ms: u128, match_ms: u128 },
    /// The brain answered `INFO rule {rule}` with an `ERROR` (`answer`).
    #[error("the brain refused the rule (INFO rule {rule}): {answer}")]
    RefusedRule { rule: u32, answer: String },
}

impl EngineError {
    /// What kind of failure it is, as a match counts forfeits.
    pub fn kind(&self) -> ForfeitKind {
        match self {
            EngineError::Child(child) => child.kind(),
            EngineError::NotRunning => ForfeitKind::Crash,
            EngineError::Refused { .. } | EngineError::RefusedRule { .. } => ForfeitKind::Refused,
            EngineError::Unparsable { .. } => ForfeitKind::Unparsable,
            EngineError::OffBoard { .. } | EngineError::Taken { .. } => ForfeitKind::Illegal,
            EngineError::TurnTime { .. } | EngineError::MatchTime { .. } => ForfeitKind::Time,
        }
    }
}

/// The rule `game` is played under, as `INFO rule` tells it (Gomocup's bitmask: 0 five or
/// more in a row wins, 1 exactly five, 4 renju): the one place the manager reads a game's
/// rule.
pub fn rule_of(game: &Gomoku) -> u32 {
    game.rule().gomocup() as u32
}

/// How long a brain is left alone after it answers before it is sent anything (see the
/// module's notes on dropped commands). Against a player that answers at once it adds this
/// to each of the brain's moves; against a searching one, nothing.
pub const QUIET_AFTER_MOVE: Duration = Duration::from_millis(30);

/// The memory a brain is told it may use (`INFO max_memory`, bytes). Gomocup allows 350 MB,
/// but a brain sizes its hash table by it and fills it on its first move: Rapfi told 350 MB
/// took 685 ms for a first move of a 500 ms turn on a 2-core EPYC (and lost it on time), 458
/// ms told 32 MB. 64 MiB holds millions of positions, more than one thread searches in a
/// turn of seconds.
pub const BRAIN_MEMORY: u64 = 64 << 20;

/// How an external brain is run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// The shell command that starts the brain.
    pub command: String,
    /// The time a move may take (told to the brain as `INFO timeout_turn`); the brain has a
    /// tenth more (at least 50 ms, at most 1 s) before it loses on time, for the pipe and a
    /// busy machine.
    pub move_timeout: Duration,
    /// Caps on the brain's search, told to it after `START`.
    pub limits: BrainLimits,
    /// The time all its moves of a game may take together (told as `INFO timeout_match`,
    /// and what is left of it as `INFO time_left` before each move), with the same
    /// tolerance as a move's; None: no match clock (`INFO timeout_match 0`).
    pub match_timeout: Option<Duration>,
}

/// Caps on a brain's search by the protocol's Yixin extension, which Rapfi and Yixin read
/// (`INFO MAX_NODE n`, `INFO MAX_DEPTH d`) and other brains ignore as unknown `INFO` keys:
/// Rapfi capped at n nodes a move plays the same move every time, the ladder's rungs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BrainLimits {
    pub max_nodes: Option<u64>,
    pub max_depth: Option<u32>,
}

impl BrainLimits {
    /// The `INFO` lines that tell a brain these caps.
    fn info_lines(&self) -> impl Iterator<Item = String> {
        let nodes = self.max_nodes.map(|n| format!("INFO MAX_NODE {n}"));
        let depth = self.max_depth.map(|d| format!("INFO MAX_DEPTH {d}"));
        nodes.into_iter().chain(depth)
    }
}

/// What a brain is called in its errors.
const WHO: &str = "the brain";

/// Starts the brain: `sh -c "exec COMMAND"`.
fn spawn(command: &str) -> Result<LineChild, ChildError> {
    let mut shell = Command::new("sh");
    shell.arg("-c").arg(format!("exec {command}"));
    LineChild::spawn(WHO, shell, command, false)
}

/// The brain's next line that is not a `MESSAGE` or `DEBUG`, within `timeout`.
fn reply(process: &mut LineChild, timeout: Duration, asked: &str) -> Result<String, ChildError> {
    reply_skipping(process, timeout, asked, &["MESSAGE", "DEBUG"])
}

/// The brain's next line whose first word is none of `skipped`, within `timeout`.
fn reply_skipping(
    process: &mut LineChild,
    timeout: Duration,
    asked: &str,
    skipped: &[&str],
) -> Result<String, ChildError> {
    process.reply(timeout, asked, |line| {
        let word = line.split_whitespace().next().unwrap_or("");
        skipped.iter().any(|skip| word.eq_ignore_ascii_case(skip))
    })
}

/// Whether a brain's line is its protocol's `ERROR` answer.
fn is_error(line: &str) -> bool {
    line.split_whitespace().next().is_some_and(|word| word.eq_ignore_ascii_case("ERROR"))
}

/// An external brain playing Gomoku.
pub struct EngineAgent {
    config: EngineConfig,
    name: String,
    /// The board size the running brain was started for.
    size: Option<usize>,
    process: Option<LineChild>,
    /// Whether a new game began since the brain's last move (it is restarted first).
    new_game: bool,
    /// The position the brain holds after its last move in this game; none before its
    /// first move.
    known: Option<Gomoku>,
    /// When the brain last answered a move (it is left alone for [`QUIET_AFTER_MOVE`]).
    answered: Option<Instant>,
    /// The rule the running brain was told (`INFO rule`), if any yet.
    told_rule: Option<u32>,
    /// The running brain's answer to `ABOUT`, read when it was told the rule.
    about: Option<String>,
    /// Its thinking in this game: the time from each move request to its answer, summed.
    thought: Duration,
}

/// Which of a brain's clocks ends a wait for its move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Clock {
    Turn,
    Match,
}

impl EngineAgent {
    /// A player named `name`; the brain starts with the first game (on that game's board),
    /// or now for `size × size` boards.
    pub fn new(config: EngineConfig, name: impl Into<String>) -> EngineAgent {
        EngineAgent {
            config,
            name: name.into(),
            size: None,
            process: None,
            new_game: true,
            known: None,
            answered: None,
            told_rule: None,
            about: None,
            thought: Duration::ZERO,
        }
    }

    /// Starts the brain for `game`'s board and rule and asks its `ABOUT`: checks that it
    /// runs, takes the board and plays the rule before a long match starts.
    pub fn about(&mut self, game: &Gomoku) -> Result<String, EngineError> {
        self.start_game(game)?;
        if let Some(about) = self.about.clone() {
            return Ok(about);
        }
        let timeout = answer_deadline(self.config.move_timeout);
        let process = self.process.as_mut().expect("started");
        process.send(&["ABOUT".into()])?;
        Ok(reply(process, timeout, "ABOUT")?)
    }

    /// Waits out what is left of [`QUIET_AFTER_MOVE`] since the brain's last answer.
    fn wait_until_quiet(&self) {
        if let Some(answered) = self.answered {
            std::thread::sleep((answered + QUIET_AFTER_MOVE).saturating_duration_since(Instant::now()));
        }
    }

    /// A brain at the start of `game` (its board, told its rule): the running one after
    /// `RESTART`, or a new one.
    fn start_game(&mut self, game: &Gomoku) -> Result<(), EngineError> {
        self.start_process(game.size())?;
        let rule = rule_of(game);
        if self.told_rule != Some(rule) {
            let told = self.tell_rule(rule);
            if told.is_err() {
                if let Some(process) = self.process.take() {
                    process.kill();
                }
            }
            told?;
        }
        Ok(())
    }

    /// Tells the running brain the rule, then asks `ABOUT`: an `ERROR` before its answer is
    /// the brain refusing the rule (`INFO` has no answer of its own to wait for).
    fn tell_rule(&mut self, rule: u32) -> Result<(), EngineError> {
        let timeout = answer_deadline(self.config.move_timeout);
        let process = self.process.as_mut().ok_or(EngineError::NotRunning)?;
        process.send(&[format!("INFO rule {rule}"), "ABOUT".into()])?;
        let answer = reply(process, timeout, "ABOUT")?;
        if is_error(&answer) {
            return Err(EngineError::RefusedRule { rule, answer });
        }
        self.told_rule = Some(rule);
        self.about = Some(answer);
        Ok(())
    }

    /// A brain at the start of a `size × size` game: the running one after `RESTART`, or a
    /// new one.
    fn start_process(&mut self, size: usize) -> Result<(), EngineError> {
        let timeout = answer_deadline(self.config.move_timeout);
        if let Some(mut process) = self.process.take() {
            if self.size == Some(size) {
                self.wait_until_quiet();
                let restarted =
                    process.send(&["RESTART".into()]).and_then(|()| reply(&mut process, timeout, "RESTART"));
                if matches!(restarted.as_deref(), Ok(answer) if answer.eq_ignore_ascii_case("OK")) {
                    self.process = Some(process);
                    return Ok(());
                }
            }
            // Another board, or no RESTART (an old brain, or a broken one): a new process.
            process.kill();
        }
        self.answered = None;
        self.told_rule = None;
        self.about = None;
        let mut process = spawn(&self.config.command)?;
        let start = format!("START {size}");
        process.send(std::slice::from_ref(&start))?;
        let answer = reply(&mut process, START_ALLOWANCE + timeout, &start)?;
        if !answer.eq_ignore_ascii_case("OK") {
            process.kill();
            return Err(EngineError::Refused { start, answer });
        }
        let match_ms = self.config.match_timeout.map_or(0, |m| m.as_millis());
        let info = [
            format!("INFO timeout_turn {}", self.config.move_timeout.as_millis()),
            format!("INFO timeout_match {match_ms}"),
            format!("INFO max_memory {BRAIN_MEMORY}"),
            "INFO game_type 1".into(),
        ];
        let info: Vec<String> = info.into_iter().chain(self.config.limits.info_lines()).collect();
        process.send(&info)?;
        self.process = Some(process);
        self.size = Some(size);
        Ok(())
    }

    /// What to send for the brain's move in `game`.
    fn ask(&self, game: &Gomoku) -> Vec<String> {
        let ToMove::Player(mover) = game.to_move() else { unreachable!("Gomoku has no chance events") };
        if game.ply() == 0 {
            return vec!["BEGIN".into()];
        }
        // The brain's board: after its last move, or empty after START/RESTART.
        let empty;
        let base = match &self.known {
            Some(known) => known,
            None => {
                empty = Gomoku::with_rule(game.size(), game.rule()).expect("the game's own size");
                &empty
            }
        };
        if base.ply() + 1 == game.ply() {
            if let Some((x, y)) = new_stone(base, game, mover.other()) {
                return vec![format!("TURN {x},{y}")];
            }
        }
        // Any other position: the whole board, from the mover's side (1: its own stones),
        // the colours alternating from the first player's, as moves are played. Brains may
        // replay a BOARD as a move sequence whatever its fields say (Rapfi does: sent row
        // by row, an opening's stones changed colour in its eyes and it played the wrong
        // side's game), and with the colours alternating, every such reading is right.
        let mut stones: [Vec<(usize, usize)>; 2] = [Vec::new(), Vec::new()];
        for y in 0..game.size() {
            for x in 0..game.size() {
                if let Some(p) = game.stone(x, y) {
                    stones[usize::from(p != Player::First)].push((x, y));
                }
            }
        }
        let mut lines = vec!["BOARD".to_string()];
        for i in 0..stones[0].len().max(stones[1].len()) {
            for (colour, player) in [(0, Player::First), (1, Player::Second)] {
                if let Some((x, y)) = stones[colour].get(i) {
                    lines.push(format!("{x},{y},{}", if player == mover { 1 } else { 2 }));
                }
            }
        }
        lines.push("DONE".into());
        lines
    }

    /// What is left of the match clock with its tolerance after `thought`, and how long to
    /// wait for the next answer: the turn clock's deadline or, where sooner, that.
    fn window(&self, thought: Duration) -> (Duration, Clock) {
        let turn = answer_deadline(self.config.move_timeout);
        match self.config.match_timeout {
            Some(game) if answer_deadline(game).saturating_sub(thought) < turn => {
                (answer_deadline(game).saturating_sub(thought), Clock::Match)
            }
            _ => (turn, Clock::Turn),
        }
    }

    /// The brain's answer to `ask`, sent at `sent` (its thinking so far in this game before
    /// it: `self.thought`), within the clock that ends first; `skipped`: lines read past.
    fn answer(&mut self, ask: &[String], sent: Instant, skipped: &[&str]) -> Result<String, EngineError> {
        let (wait, clock) = self.window(self.thought + sent.elapsed());
        let process = self.process.as_mut().ok_or(EngineError::NotRunning)?;
        match reply_skipping(process, wait, &ask[0], skipped) {
            Err(ChildError::Timeout { .. }) => Err(self.out_of_time(clock, &ask[0], wait, sent.elapsed())),
            other => Ok(other?),
        }
    }

    /// The time-out of `clock` on a request (`asked`) waited for `waited`, `spent` since.
    fn out_of_time(&self, clock: Clock, asked: &str, waited: Duration, spent: Duration) -> EngineError {
        match (clock, self.config.match_timeout) {
            (Clock::Match, Some(game)) => {
                EngineError::MatchTime { thought_ms: (self.thought + spent).as_millis(), match_ms: game.as_millis() }
            }
            _ => EngineError::TurnTime {
                asked: asked.to_string(),
                waited_ms: waited.as_millis(),
                turn_ms: self.config.move_timeout.as_millis(),
            },
        }
    }

    /// `INFO time_left` before a move request, where the brain has a match clock.
    fn time_left(&self) -> Option<String> {
        let game = self.config.match_timeout?;
        Some(format!("INFO time_left {}", game.saturating_sub(self.thought).as_millis()))
    }

    fn move_in(&mut self, game: &Gomoku) -> Result<Action, EngineError> {
        if std::mem::take(&mut self.new_game) {
            self.start_game(game)?;
        }
        let ask = self.ask(game);
        let request: Vec<String> = self.time_left().into_iter().chain(ask.iter().cloned()).collect();
        self.wait_until_quiet();
        self.process.as_mut().ok_or(EngineError::NotRunning)?.send(&request)?;
        let sent = Instant::now();
        let answered = self.answer(&ask, sent, &["MESSAGE", "DEBUG"]).and_then(|answer| {
            if !is_error(&answer) {
                return Ok(answer);
            }
            if answer.contains("time_left") {
                // The dropped line was the INFO before the request (its argument read as a
                // command), not the request: its answer is still to come.
                return self.answer(&ask, sent, &["MESSAGE", "DEBUG", "ERROR"]);
            }
            // The request was dropped (see the module's notes): once more, past the errors
            // its remaining lines caused.
            tracing::debug!("{}: the brain answered {answer:?} to {}; asking again", self.name, ask[0]);
            self.process.as_mut().ok_or(EngineError::NotRunning)?.send(&ask)?;
            self.answer(&ask, sent, &["MESSAGE", "DEBUG", "ERROR"])
        });
        let spent = sent.elapsed();
        self.thought += spent;
        let answer = answered?;
        if let Some(limit) = self.config.match_timeout.filter(|&m| self.thought > answer_deadline(m)) {
            // It answered, but past the match clock (by less than the reading's delay).
            return Err(EngineError::MatchTime { thought_ms: self.thought.as_millis(), match_ms: limit.as_millis() });
        }
        self.answered = Some(Instant::now());
        let action = parse_move(game, &answer)?;
        let mut known = game.clone();
        known.play(action).expect("parse_move checked the point is empty");
        self.known = Some(known);
        Ok(action)
    }
}

/// The one point where `after` has a stone of `player` that `before` has not, if it is
/// the only difference.
fn new_stone(before: &Gomoku, after: &Gomoku, player: Player) -> Option<(usize, usize)> {
    let mut found = None;
    for y in 0..after.size() {
        for x in 0..after.size() {
            match (before.stone(x, y), after.stone(x, y)) {
                (a, b) if a == b => {}
                (None, Some(p)) if p == player && found.is_none() => found = Some((x, y)),
                _ => return None,
            }
        }
    }
    found
}

/// The brain's answer as a legal move: `x,y` on an empty point (public for the fuzz
/// targets in `fuzz/`).
pub fn parse_move(game: &Gomoku, answer: &str) -> Result<Action, EngineError> {
    let unparsable = || EngineError::Unparsable { answer: answer.to_string() };
    let (x, y) = answer.split_once(',').ok_or_else(unparsable)?;
    let (x, y) =
        (x.trim().parse::<usize>().map_err(|_| unparsable())?, y.trim().parse::<usize>().map_err(|_| unparsable())?);
    let n = game.size();
    if x >= n || y >= n {
        return Err(EngineError::OffBoard { x, y, size: n });
    }
    if game.stone(x, y).is_some() {
        return Err(EngineError::Taken { x, y });
    }
    Ok(game.action_at(x, y))
}

impl Agent<Gomoku> for EngineAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The brain is external: its randomness is its own, and the seed is not used.
    fn new_game(&mut self, _seed: u64) {
        self.known = None;
        self.new_game = true;
        self.thought = Duration::ZERO;
    }

    fn clock_use(&self) -> Option<ClockUse> {
        Some(ClockUse {
            thought_ms: self.thought.as_millis() as u64,
            match_ms: self.config.match_timeout.map(|m| m.as_millis() as u64),
        })
    }

    fn select_move(&mut self, game: &Gomoku) -> Action {
        // Outside a match (where a failure forfeits), a failed brain's move is the first
        // empty point, so the game can go on; the reason is logged.
        self.try_select_move(game).unwrap_or_else(|why| {
            tracing::warn!("{}: {why}; playing the first empty point instead", self.name);
            let mut legal = Vec::new();
            game.legal_actions(&mut legal);
            legal[0]
        })
    }

    fn try_select_move(&mut self, game: &Gomoku) -> Result<Action, MoveError> {
        let played = self.move_in(game).map_err(MoveError::engine);
        if played.is_err() {
            // A brain that failed once is not trusted with the rest of the game, nor with
            // the next one: a fresh process starts then.
            if let Some(process) = self.process.take() {
                process.kill();
            }
            self.known = None;
        }
        played
    }
}

impl Drop for EngineAgent {
    fn drop(&mut self) {
        if let Some(process) = self.process.take() {
            process.end(Some("END"));
        }
    }
}
