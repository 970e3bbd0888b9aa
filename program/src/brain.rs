//! The brain's side of the protocol: a network answering a manager.
//!
//! - `START n` / `RECTSTART w,h`: a new `n × n` game (`OK`, or `ERROR` with the reason: a
//!   size the network does not play, a rectangle); `RESTART`: the same size again. A
//!   board-specific network plays its own size; an any-size one every size up to 20.
//! - `BEGIN`: the brain moves first; `TURN x,y`: the opponent's move, then the brain's.
//! - `BOARD`, then `x,y,field` lines and `DONE`: a whole position (field 1: the brain's
//!   stone, 2: the opponent's; 3 marks stones of continuous games, which freestyle Gomoku
//!   does not have: refused), then the brain's move. The side to move follows from the counts.
//! - `INFO key value`: `timeout_turn`, `timeout_match`, `time_left` (milliseconds),
//!   `max_memory`, `rule`, `game_type`; other keys are ignored. No answer.
//! - `TAKEBACK x,y`: the last move undone (`OK`); `ABOUT`: the brain's name and version;
//!   `END`: the brain exits. Anything else: `UNKNOWN`.
//!
//! With a time limit the brain searches until its share of the time is spent, never past
//! `timeout_turn` (a margin covers the answer's way out); without one, a fixed playout count.

use dojo_game::gomoku::Gomoku;
use dojo_game::{Action, Game, GameError};
use std::ops::RangeInclusive;
use std::time::{Duration, Instant};

/// Picks the brain's moves.
pub trait MoveChooser {
    /// A legal move for the side to move in `game` (not over), by `deadline` when given.
    fn choose(&mut self, game: &Gomoku, deadline: Option<Instant>) -> Action;
}

/// What the manager said with `INFO` (times in milliseconds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    pub timeout_turn: Option<u64>,
    pub timeout_match: Option<u64>,
    pub time_left: Option<u64>,
    pub max_memory: Option<u64>,
    pub rule: Option<u64>,
    pub game_type: Option<u64>,
}

/// What the brain does after a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Write these lines (none for `INFO` and inside `BOARD`).
    Lines(Vec<String>),
    /// `END`: exit.
    End,
}

impl Reply {
    fn line(text: impl Into<String>) -> Reply {
        Reply::Lines(vec![text.into()])
    }

    fn error(why: impl std::fmt::Display) -> Reply {
        Reply::line(format!("ERROR {why}"))
    }
}

/// Why a BOARD block gives no position to play from.
#[derive(Debug, thiserror::Error)]
enum BoardError {
    #[error("field 3 (stones of a continuous game) is not supported: freestyle games end at five")]
    Continuous,
    #[error(transparent)]
    Game(#[from] GameError),
    #[error("{own} own and {theirs} opponent stones: not a position with the brain to move")]
    NotToMove { own: usize, theirs: usize },
    #[error("the position is already over")]
    Over,
}

/// The brain's state between lines.
pub struct Brain<C: MoveChooser> {
    /// The board sizes the network plays.
    sizes: RangeInclusive<usize>,
    chooser: C,
    about: String,
    pub info: Info,
    game: Option<Gomoku>,
    /// The moves of the game so far (for `TAKEBACK`).
    moves: Vec<Action>,
    /// Inside `BOARD`: the stones read so far (x, y, field).
    board: Option<Vec<(usize, usize, u8)>>,
}

impl<C: MoveChooser> Brain<C> {
    /// A brain for `n × n` boards, `n` in `sizes`; `about` is the `ABOUT` answer.
    pub fn new(sizes: RangeInclusive<usize>, chooser: C, about: impl Into<String>) -> Brain<C> {
        let (info, game, moves, board) = (Info::default(), None, Vec::new(), None);
        Brain { sizes, chooser, about: about.into(), info, game, moves, board }
    }

    /// The position now, once a game has started.
    pub fn game(&self) -> Option<&Gomoku> {
        self.game.as_ref()
    }

    /// Handles one line from the manager.
    pub fn handle(&mut self, line: &str) -> Reply {
        let received = Instant::now();
        let line = line.trim();
        if self.board.is_some() {
            return self.board_line(line, received);
        }
        let (command, rest) = match line.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim()),
            None => (line, ""),
        };
        match command.to_ascii_uppercase().as_str() {
            "START" => match rest.parse::<usize>() {
                Ok(n) => self.start(n),
                Err(_) => Reply::error(format!("START needs a board size, e.g. START {}", self.sizes.end())),
            },
            "RECTSTART" => {
                match rest.split_once(',').map(|(w, h)| (w.trim().parse::<usize>(), h.trim().parse::<usize>())) {
                    Some((Ok(w), Ok(h))) if w == h => self.start(w),
                    Some((Ok(w), Ok(h))) => Reply::error(format!("rectangular boards ({w}x{h}) are not supported")),
                    _ => Reply::error("RECTSTART needs width,height"),
                }
            }
            "RESTART" => match &self.game {
                Some(g) => self.start(g.size()),
                None => Reply::error("no game to restart: START first"),
            },
            "BEGIN" => match &self.game {
                Some(g) if g.ply() == 0 => self.own_move(received),
                Some(_) => Reply::error("BEGIN after moves were played"),
                None => Reply::error("no game: START first"),
            },
            "TURN" => self.turn(rest, received),
            "BOARD" => match &self.game {
                Some(_) => {
                    self.board = Some(Vec::new());
                    Reply::Lines(Vec::new())
                }
                None => Reply::error("no game: START first"),
            },
            "INFO" => {
                self.info_line(rest);
                Reply::Lines(Vec::new())
            }
            "TAKEBACK" => self.takeback(rest),
            "ABOUT" => Reply::line(self.about.clone()),
            "END" => Reply::End,
            _ => Reply::line(format!("UNKNOWN command {command:?}")),
        }
    }

    fn start(&mut self, n: usize) -> Reply {
        let (&least, &most) = (self.sizes.start(), self.sizes.end());
        if !self.sizes.contains(&n) {
            return Reply::error(if least == most {
                format!("this network plays {least}x{least} boards only, not {n}x{n}")
            } else {
                format!("this network plays boards from {least}x{least} to {most}x{most}, not {n}x{n}")
            });
        }
        match Gomoku::new(n) {
            Ok(g) => {
                self.game = Some(g);
                self.moves.clear();
                Reply::line("OK")
            }
            Err(e) => Reply::error(e),
        }
    }

    /// Plays the opponent's `x,y`, then answers with the brain's move.
    fn turn(&mut self, text: &str, received: Instant) -> Reply {
        let Some(game) = &mut self.game else { return Reply::error("no game: START first") };
        if game.outcome().is_some() {
            return Reply::error("the game is over");
        }
        let action = match game.action_from_text(text) {
            Ok(a) => a,
            Err(e) => return Reply::error(e),
        };
        if let Err(e) = game.play(action) {
            return Reply::error(e);
        }
        self.moves.push(action);
        if game.outcome().is_some() {
            return Reply::error("the game is over after that move");
        }
        self.own_move(received)
    }

    /// The brain's move, played and written.
    fn own_move(&mut self, received: Instant) -> Reply {
        let deadline = self.deadline(received);
        let game = self.game.as_mut().expect("a game");
        let action = self.chooser.choose(game, deadline);
        if let Err(e) = game.play(action) {
            return Reply::error(format!("the brain chose an illegal move: {e}"));
        }
        self.moves.push(action);
        Reply::line(game.action_to_text(action))
    }

    /// When the brain must answer by: its share of the match time and the turn limit, less
    /// a margin for the answer's way out; None without a time limit (fixed playouts).
    fn deadline(&self, received: Instant) -> Option<Instant> {
        let turn = self.info.timeout_turn;
        // The match clock: spread over the moves likely left, at least 10.
        let share = self.info.time_left.filter(|_| self.info.timeout_match.is_some_and(|m| m > 0)).map(|left| {
            let empty = self.game.as_ref().map_or(0, |g| g.empty_count()) as u64;
            left / (empty / 2).max(10)
        });
        let ms = match (turn, share) {
            (Some(t), Some(s)) => t.min(s),
            (Some(t), None) => t,
            (None, Some(s)) => s,
            (None, None) => return None,
        };
        let margin = (ms / 5).clamp(5, 150);
        Some(received + Duration::from_millis(ms.saturating_sub(margin)))
    }

    fn info_line(&mut self, rest: &str) {
        let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let value = value.trim().parse::<u64>().ok();
        let i = &mut self.info;
        match key.to_ascii_lowercase().as_str() {
            "timeout_turn" => i.timeout_turn = value,
            "timeout_match" => i.timeout_match = value,
            "time_left" => i.time_left = value,
            "max_memory" => i.max_memory = value,
            "rule" => i.rule = value,
            "game_type" => i.game_type = value,
            _ => {}
        }
    }

    /// A line inside `BOARD`: a stone, or `DONE` (then the brain moves).
    fn board_line(&mut self, line: &str, received: Instant) -> Reply {
        if line.eq_ignore_ascii_case("DONE") {
            let stones = self.board.take().unwrap_or_default();
            return match self.set_board(&stones) {
                Ok(()) => self.own_move(received),
                Err(e) => Reply::error(e),
            };
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed = match fields[..] {
            [x, y, f] => match (x.parse::<usize>(), y.parse::<usize>(), f.parse::<u8>()) {
                (Ok(x), Ok(y), Ok(f @ 1..=3)) => Ok((x, y, f)),
                _ => Err(format!("bad BOARD line {line:?}: expected x,y,field with field 1, 2 or 3")),
            },
            _ => Err(format!("bad BOARD line {line:?}: expected x,y,field")),
        };
        match parsed {
            Ok(stone) => {
                self.board.as_mut().expect("inside BOARD").push(stone);
                Reply::Lines(Vec::new())
            }
            Err(e) => {
                // The rest of the block is skipped; the position stays as it was.
                self.board = None;
                Reply::error(e)
            }
        }
    }

    /// Sets up the position of `stones`: the brain's and the opponent's alternately, the
    /// side with more stones first (the brain first on equal counts: it is to move).
    fn set_board(&mut self, stones: &[(usize, usize, u8)]) -> Result<(), BoardError> {
        if stones.iter().any(|s| s.2 == 3) {
            return Err(BoardError::Continuous);
        }
        let size = self.game.as_ref().expect("BOARD is refused before START").size();
        let mut game = Gomoku::new(size)?;
        let point = |&(x, y, _): &(usize, usize, u8)| game.action_from_text(&format!("{x},{y}"));
        let own: Vec<Action> = stones.iter().filter(|s| s.2 == 1).map(point).collect::<Result<_, _>>()?;
        let theirs: Vec<Action> = stones.iter().filter(|s| s.2 == 2).map(point).collect::<Result<_, _>>()?;
        let (first, second) = match own.len() as i64 - theirs.len() as i64 {
            0 => (&own, &theirs),
            -1 => (&theirs, &own),
            _ => return Err(BoardError::NotToMove { own: own.len(), theirs: theirs.len() }),
        };
        let mut moves = Vec::new();
        for i in 0..first.len().max(second.len()) {
            for side in [first, second] {
                if let Some(&a) = side.get(i) {
                    game.play(a)?;
                    moves.push(a);
                }
            }
        }
        if game.outcome().is_some() {
            return Err(BoardError::Over);
        }
        self.game = Some(game);
        self.moves = moves;
        Ok(())
    }

    /// Undoes the last move if it was at `x,y`.
    fn takeback(&mut self, text: &str) -> Reply {
        let Some(game) = &self.game else { return Reply::error("no game: START first") };
        let action = match game.action_from_text(text) {
            Ok(a) => a,
            Err(e) => return Reply::error(e),
        };
        if self.moves.last() != Some(&action) {
            return Reply::error(format!("{} is not the last move", text.trim()));
        }
        self.moves.pop();
        let mut replay = Gomoku::new(game.size()).expect("the game's own size");
        for &a in &self.moves {
            replay.play(a).expect("the moves of the game replay");
        }
        self.game = Some(replay);
        Reply::line("OK")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays the first empty point in reading order, and notes the deadlines it was given.
    #[derive(Default)]
    struct FirstEmpty {
        deadlines: Vec<Option<Instant>>,
    }

    impl MoveChooser for FirstEmpty {
        fn choose(&mut self, game: &Gomoku, deadline: Option<Instant>) -> Action {
            self.deadlines.push(deadline);
            let mut legal = Vec::new();
            game.legal_actions(&mut legal);
            legal[0]
        }
    }

    fn brain() -> Brain<FirstEmpty> {
        Brain::new(9..=9, FirstEmpty::default(), "name=\"test\"")
    }

    fn say(b: &mut Brain<FirstEmpty>, line: &str) -> Vec<String> {
        match b.handle(line) {
            Reply::Lines(l) => l,
            Reply::End => vec!["<end>".into()],
        }
    }

    #[test]
    fn a_game_from_start_to_takeback_and_end() {
        let mut b = brain();
        assert_eq!(say(&mut b, "TURN 1,1"), ["ERROR no game: START first"]);
        assert_eq!(say(&mut b, "START 15"), ["ERROR this network plays 9x9 boards only, not 15x15"]);
        assert_eq!(say(&mut b, "START nine"), ["ERROR START needs a board size, e.g. START 9"]);
        assert_eq!(say(&mut b, "RECTSTART 9,7"), ["ERROR rectangular boards (9x7) are not supported"]);
        assert_eq!(say(&mut b, "RECTSTART 9,9"), ["OK"]);
        assert_eq!(say(&mut b, "START 9"), ["OK"]);
        assert_eq!(say(&mut b, "BEGIN"), ["0,0"]);
        assert_eq!(say(&mut b, "TURN 4,4"), ["1,0"]);
        let taken = say(&mut b, "TURN 4,4");
        assert!(taken[0].starts_with("ERROR ") && taken[0].contains("4,4"), "{taken:?}");
        let off = say(&mut b, "TURN 9,0");
        assert!(off[0].starts_with("ERROR ") && off[0].contains("9,0"), "{off:?}");
        assert_eq!(say(&mut b, "BEGIN"), ["ERROR BEGIN after moves were played"]);
        assert_eq!(b.game().unwrap().ply(), 3);
        assert_eq!(say(&mut b, "TAKEBACK 4,4"), ["ERROR 4,4 is not the last move"]);
        assert_eq!(say(&mut b, "TAKEBACK 1,0"), ["OK"]);
        assert_eq!(say(&mut b, "TAKEBACK 4,4"), ["OK"]);
        assert_eq!(b.game().unwrap().ply(), 1);
        assert_eq!(say(&mut b, "TURN 2,2"), ["1,0"]);
        assert_eq!(say(&mut b, "RESTART"), ["OK"]);
        assert_eq!(b.game().unwrap().ply(), 0);
        assert_eq!(say(&mut b, "ABOUT"), ["name=\"test\""]);
        assert_eq!(say(&mut b, "SWAP2BOARD"), ["UNKNOWN command \"SWAP2BOARD\""]);
        assert_eq!(say(&mut b, "end"), ["<end>"]);
    }

    #[test]
    fn an_any_size_brain_starts_on_every_size_it_plays_and_restarts_on_the_same() {
        let mut b = Brain::new(7..=20, FirstEmpty::default(), "name=\"test\"");
        assert_eq!(say(&mut b, "START 6"), ["ERROR this network plays boards from 7x7 to 20x20, not 6x6"]);
        assert_eq!(say(&mut b, "START 21"), ["ERROR this network plays boards from 7x7 to 20x20, not 21x21"]);
        assert_eq!(say(&mut b, "START x"), ["ERROR START needs a board size, e.g. START 20"]);
        for size in [7, 13, 20] {
            assert_eq!(say(&mut b, &format!("START {size}")), ["OK"]);
            assert_eq!(say(&mut b, &format!("TURN {0},{0}", size - 1)), ["0,0"]);
            assert_eq!(say(&mut b, "RESTART"), ["OK"]);
            assert_eq!(b.game().unwrap().size(), size, "RESTART keeps the board");
            for line in ["BOARD", &format!("{0},{0},2", size - 1), "DONE"] {
                say(&mut b, line);
            }
            assert_eq!((b.game().unwrap().size(), b.game().unwrap().ply()), (size, 2), "BOARD on the started board");
        }
    }

    #[test]
    fn board_sets_up_either_side_to_move() {
        let mut b = brain();
        say(&mut b, "START 9");
        // Equal counts: the brain moved first and is to move again.
        for line in ["BOARD", "4,4,1", "5,5,2", "3,3,1", "6,6,2"] {
            assert!(say(&mut b, line).is_empty(), "{line}");
        }
        assert_eq!(say(&mut b, "DONE"), ["0,0"]);
        let g = b.game().unwrap();
        assert_eq!(g.ply(), 5);
        assert_eq!(g.stone(4, 4), g.stone(0, 0));
        assert_ne!(g.stone(4, 4), g.stone(5, 5));
        // One more opponent stone: the opponent moved first.
        for line in ["BOARD", "4,4,2", "5,5,1", "3,3,2"] {
            say(&mut b, line);
        }
        assert_eq!(say(&mut b, "DONE"), ["0,0"]);
        let g = b.game().unwrap();
        assert_eq!(g.ply(), 4);
        assert_eq!(g.stone(5, 5), g.stone(0, 0));
        assert_eq!(g.stone(4, 4), Some(dojo_game::Player::First));
        // Counts no side to move fits, field 3, and bad lines.
        for line in ["BOARD", "4,4,1", "5,5,1"] {
            say(&mut b, line);
        }
        assert_eq!(say(&mut b, "DONE"), ["ERROR 2 own and 0 opponent stones: not a position with the brain to move"]);
        for line in ["BOARD", "4,4,3"] {
            say(&mut b, line);
        }
        assert!(say(&mut b, "DONE")[0].starts_with("ERROR field 3 (stones of a continuous game) is not supported"));
        say(&mut b, "BOARD");
        assert_eq!(say(&mut b, "4,4"), ["ERROR bad BOARD line \"4,4\": expected x,y,field"]);
        assert_eq!(say(&mut b, "ABOUT"), ["name=\"test\""], "out of BOARD after the error");
    }

    #[test]
    fn info_sets_the_time_budget_and_unknown_keys_are_ignored() {
        let mut b = brain();
        say(&mut b, "START 9");
        assert!(say(&mut b, "INFO timeout_turn 1000").is_empty());
        assert!(say(&mut b, "INFO timeout_match 0").is_empty());
        assert!(say(&mut b, "INFO max_memory 83886080").is_empty());
        assert!(say(&mut b, "INFO rule 0").is_empty());
        assert!(say(&mut b, "INFO folder /tmp").is_empty());
        assert_eq!(
            b.info,
            Info {
                timeout_turn: Some(1000),
                timeout_match: Some(0),
                max_memory: Some(83886080),
                rule: Some(0),
                ..Info::default()
            }
        );
        let before = Instant::now();
        say(&mut b, "BEGIN");
        let deadline = b.chooser.deadlines[0].expect("a deadline under a time limit");
        // 1000 ms less a margin of 150 ms, counted from when the line came.
        let ms = deadline.duration_since(before).as_millis();
        assert!((840..=850).contains(&ms), "{ms}");
        // A match clock with little left shrinks the share: 2000 ms over at least 10 moves.
        say(&mut b, "INFO timeout_match 100000");
        say(&mut b, "INFO time_left 2000");
        let before = Instant::now();
        say(&mut b, "TURN 4,4");
        let ms = b.chooser.deadlines[1].unwrap().duration_since(before).as_millis();
        // 79 empty points after the opponent's move: 39 moves left; 2000 / 39 = 51 ms,
        // less a margin of 10.
        assert!((40..=41).contains(&ms), "{ms}");
        // No limits at all: no deadline (fixed playouts).
        let mut free = brain();
        say(&mut free, "START 9");
        say(&mut free, "BEGIN");
        assert_eq!(free.chooser.deadlines, [None]);
    }
}
