//! The brain's side of the protocol: a network answering a manager.
//!
//! - `START n` / `RECTSTART w,h`: a new `n × n` game (`OK`, or `ERROR` with the reason: a
//!   size the network does not play, a rectangle); `RESTART`: the same size again. A
//!   board-specific network plays its own size; an any-size one every size up to 20.
//! - `BEGIN`: the brain moves first; `TURN x,y`: the opponent's move, then the brain's.
//! - `BOARD`, then `x,y,field` lines and `DONE`: a whole position (field 1: the brain's
//!   stone, 2: the opponent's; 3 marks stones of a continuous game's finished fives, which
//!   dojo's games, ended at their first five, never hold: refused), then the brain's move.
//!   The side to move follows from the counts.
//! - `INFO key value`: `timeout_turn`, `timeout_match`, `time_left` (milliseconds),
//!   `max_memory` (bytes), `rule`, `game_type`; other keys are ignored. No answer, but:
//! - `INFO rule` is Gomocup's bit mask (1 exactly five, 2 continuous game, 4 renju, 8 caro).
//!   0 plays freestyle and 1 standard Gomoku ([`GomokuRule`]): the position the brain keeps and
//!   searches is of that rule, from then on and for the game in progress (its moves replayed),
//!   with the same network. Bit 2 is accepted and changes nothing: a position ends at its
//!   first five under either rule, and BOARD's field 3 stays refused. Renju, caro or any other
//!   bit is answered with one `ERROR` line naming it and what is played; the mask is kept,
//!   and while it is in force `BEGIN`, `TURN` and `BOARD` are answered with that `ERROR` too
//!   (nothing played), so a manager that goes on sees the refusal at every move instead of
//!   a game by other rules. A later `INFO rule 0` or `1` lifts it.
//! - `INFO max_memory` under the brain's resident memory peak so far gets a `MESSAGE` saying
//!   so (0 means no limit): the brain does not shrink itself to a limit. `dojo pbrain` writes
//!   its peak to stderr when it exits.
//! - `TAKEBACK x,y`: the last move undone (`OK`); `ABOUT`: the brain's name and version;
//!   `END`: the brain exits. Anything else: `UNKNOWN`.
//!
//! With a time limit the brain searches until its share of the time is spent, never past
//! `timeout_turn` (a margin covers the answer's way out); without one, a fixed playout count.

use dojo_game::gomoku::Gomoku;
use dojo_game::spec::GomokuRule;
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
    #[error("field 3 (stones of a continuous game) is not supported: dojo's games end at their first five")]
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
    /// The rule of `INFO rule` (freestyle until told), which every new position is played by.
    rule: GomokuRule,
    /// An `INFO rule` mask the brain does not play, while it is in force.
    refused: Option<u64>,
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
        let (rule, refused) = (GomokuRule::Freestyle, None);
        Brain { sizes, chooser, about: about.into(), info, rule, refused, game, moves, board }
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
        if let Some(mask) = self.refused {
            if let Some(command) = line.split_whitespace().next() {
                if ["BEGIN", "TURN"].iter().any(|c| c.eq_ignore_ascii_case(command)) {
                    return Reply::error(RuleRefused(mask));
                }
            }
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
            "INFO" => self.info_line(rest),
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
        match Gomoku::with_rule(n, self.rule) {
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

    /// Notes an `INFO` value; answers only a rule it does not play and a memory limit
    /// under its peak.
    fn info_line(&mut self, rest: &str) -> Reply {
        let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let value = value.trim().parse::<u64>().ok();
        let i = &mut self.info;
        match key.to_ascii_lowercase().as_str() {
            "timeout_turn" => i.timeout_turn = value,
            "timeout_match" => i.timeout_match = value,
            "time_left" => i.time_left = value,
            "max_memory" => {
                i.max_memory = value;
                return memory_note(value);
            }
            "rule" => {
                i.rule = value;
                return value.map_or(Reply::Lines(Vec::new()), |mask| self.set_rule(mask));
            }
            "game_type" => i.game_type = value,
            _ => {}
        }
        Reply::Lines(Vec::new())
    }

    /// Obeys `INFO rule mask`, or refuses it (see the module's notes).
    fn set_rule(&mut self, mask: u64) -> Reply {
        let Some(rule) = GomokuRule::from_gomocup(mask) else {
            self.refused = Some(mask);
            return Reply::error(RuleRefused(mask));
        };
        self.refused = None;
        self.rule = rule;
        if let Some(game) = self.game.as_ref().filter(|g| g.rule() != rule) {
            // The same moves by the new rule, as far as they go: an overline a standard game
            // went on past ends a freestyle one, and the moves after it are dropped.
            let mut replay = Gomoku::with_rule(game.size(), rule).expect("the game's own size");
            let played = self.moves.iter().take_while(|&&a| replay.play(a).is_ok()).count();
            self.moves.truncate(played);
            self.game = Some(replay);
        }
        Reply::Lines(Vec::new())
    }

    /// A line inside `BOARD`: a stone, or `DONE` (then the brain moves).
    fn board_line(&mut self, line: &str, received: Instant) -> Reply {
        if line.eq_ignore_ascii_case("DONE") {
            let stones = self.board.take().unwrap_or_default();
            if let Some(mask) = self.refused {
                return Reply::error(RuleRefused(mask));
            }
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
        let mut game = Gomoku::with_rule(size, self.rule)?;
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
        let mut replay = Gomoku::with_rule(game.size(), game.rule()).expect("the game's own size");
        for &a in &self.moves {
            replay.play(a).expect("the moves of the game replay");
        }
        self.game = Some(replay);
        Reply::line("OK")
    }
}

/// The answer to an `INFO rule` mask the brain does not play.
struct RuleRefused(u64);

impl std::fmt::Display for RuleRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = [(4, "renju"), (8, "caro")];
        let mut named: Vec<String> =
            names.iter().filter(|&&(bit, _)| self.0 & bit != 0).map(|&(_, n)| n.to_string()).collect();
        let other = self.0 & !(1 | 2 | 4 | 8);
        if other != 0 {
            named.push(format!("unknown bits {other}"));
        }
        write!(
            f,
            "rule {} ({}) is not supported: this brain plays rule 0 (freestyle) and 1 (exactly five), \
             with or without 2 (continuous)",
            self.0,
            named.join(", ")
        )
    }
}

/// The answer to `INFO max_memory`: a `MESSAGE` when the limit (bytes, 0 for none) is
/// under the resident memory the brain has already used.
fn memory_note(limit: Option<u64>) -> Reply {
    match (limit, dojo_base::util::peak_rss_bytes()) {
        (Some(limit), Some(peak)) if limit > 0 && peak > limit => Reply::line(format!(
            "MESSAGE max_memory {limit} bytes is below this brain's resident memory peak so far, {peak} bytes; \
             it does not shrink to a limit"
        )),
        _ => Reply::Lines(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::tactics::Tactics;

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

    fn say<C: MoveChooser>(b: &mut Brain<C>, line: &str) -> Vec<String> {
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
        // (Answered with a MESSAGE when the process has used more: see below.)
        say(&mut b, "INFO max_memory 83886080");
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

    #[test]
    fn info_rule_plays_freestyle_and_standard_and_refuses_renju_and_caro() {
        let mut b = brain();
        assert_eq!(say(&mut b, "START 9"), ["OK"]);
        assert_eq!(b.game().unwrap().rule(), GomokuRule::Freestyle, "freestyle until told");
        assert_eq!(say(&mut b, "TURN 4,4"), ["0,0"]);
        // GomokuRule 1 turns the game in progress standard, its moves kept.
        assert!(say(&mut b, "INFO rule 1").is_empty());
        let g = b.game().unwrap();
        assert_eq!((g.rule(), g.ply()), (GomokuRule::Standard, 2));
        assert_eq!(say(&mut b, "TAKEBACK 0,0"), ["OK"]);
        assert_eq!(b.game().unwrap().rule(), GomokuRule::Standard, "TAKEBACK keeps the rule");
        assert_eq!(say(&mut b, "RESTART"), ["OK"]);
        assert_eq!(b.game().unwrap().rule(), GomokuRule::Standard, "and so does a new game");
        // Bit 2 (a continuous game) changes nothing: 3 is standard, 2 freestyle.
        assert!(say(&mut b, "INFO rule 3").is_empty());
        assert_eq!(b.game().unwrap().rule(), GomokuRule::Standard);
        assert!(say(&mut b, "INFO rule 2").is_empty());
        assert_eq!(b.game().unwrap().rule(), GomokuRule::Freestyle);
        assert!(say(&mut b, "INFO rule 0").is_empty());
        assert_eq!(b.info.rule, Some(0));
        // Renju: refused at INFO, then at every move, until a rule it plays.
        let renju = "ERROR rule 4 (renju) is not supported: this brain plays rule 0 (freestyle) and 1 (exactly five), \
                     with or without 2 (continuous)";
        assert_eq!(say(&mut b, "INFO rule 4"), [renju]);
        assert_eq!(say(&mut b, "BEGIN"), [renju]);
        assert_eq!(say(&mut b, "turn 4,4"), [renju]);
        assert_eq!(b.game().unwrap().ply(), 0, "nothing played");
        for line in ["BOARD", "4,4,2"] {
            assert!(say(&mut b, line).is_empty());
        }
        assert_eq!(say(&mut b, "DONE"), [renju]);
        assert_eq!(say(&mut b, "START 9"), ["OK"], "a size is still a size");
        assert_eq!(say(&mut b, "ABOUT"), ["name=\"test\""]);
        let caro = say(&mut b, "INFO rule 9");
        assert!(caro[0].starts_with("ERROR rule 9 (caro) is not supported"), "{caro:?}");
        assert!(say(&mut b, "INFO rule 13")[0].starts_with("ERROR rule 13 (renju, caro) is not supported"));
        assert!(say(&mut b, "INFO rule 16")[0].starts_with("ERROR rule 16 (unknown bits 16) is not supported"));
        assert!(say(&mut b, "INFO rule 1").is_empty());
        assert_eq!(say(&mut b, "BEGIN"), ["0,0"]);
        assert_eq!(b.game().unwrap().rule(), GomokuRule::Standard);
    }

    /// Takes a win when the lookahead sees one, else the first empty point.
    struct TakesWins;

    impl MoveChooser for TakesWins {
        fn choose(&mut self, game: &Gomoku, _: Option<Instant>) -> Action {
            let mut moves = Vec::new();
            match game.lookahead(&mut moves) {
                dojo_game::tactics::Lookahead::Win(a) => a,
                _ => {
                    game.legal_actions(&mut moves);
                    moves[0]
                }
            }
        }
    }

    #[test]
    fn a_standard_brain_does_not_take_an_overline_for_a_win() {
        // The brain's stones 0,1,2 and 4,5 on row 4: 3,4 makes six.
        let position = ["BOARD", "0,4,1", "1,4,1", "2,4,1", "4,4,1", "5,4,1"];
        let theirs = ["0,8,2", "2,8,2", "4,8,2", "6,8,2", "8,8,2"];
        for (rule, answer, over) in [("0", "3,4", true), ("1", "0,0", false)] {
            let mut b = Brain::new(9..=9, TakesWins, "name=\"test\"");
            say(&mut b, "START 9");
            say(&mut b, &format!("INFO rule {rule}"));
            for line in position.iter().chain(&theirs) {
                assert!(say(&mut b, line).is_empty(), "{line}");
            }
            assert_eq!(say(&mut b, "DONE"), [answer], "rule {rule}");
            assert_eq!(b.game().unwrap().outcome().is_some(), over, "rule {rule}");
        }
        // The opponent plays into the six: freestyle ends there, standard goes on.
        let mine: Vec<String> = position[1..].iter().map(|l| l.replace(",1", ",2")).collect();
        let into_six = |rule: &str| {
            let mut b = Brain::new(9..=9, TakesWins, "name=\"test\"");
            say(&mut b, "START 9");
            say(&mut b, &format!("INFO rule {rule}"));
            say(&mut b, "BOARD");
            for line in mine.iter().map(String::as_str).chain(["0,8,1", "2,8,1", "4,8,1", "6,8,1"]) {
                say(&mut b, line);
            }
            assert_eq!(say(&mut b, "DONE"), ["0,0"], "the brain to move (this chooser never blocks)");
            let answer = say(&mut b, "TURN 3,4");
            (b, answer)
        };
        assert_eq!(into_six("0").1, ["ERROR the game is over after that move"]);
        let (mut b, answer) = into_six("1");
        assert_eq!(answer, ["1,0"]);
        // Back to freestyle mid-game, the six ends the game and the brain's later move goes.
        assert!(say(&mut b, "INFO rule 0").is_empty());
        let g = b.game().unwrap();
        assert_eq!((g.rule(), g.ply(), g.outcome().is_some()), (GomokuRule::Freestyle, 11, true));
        assert_eq!(say(&mut b, "TAKEBACK 1,0"), ["ERROR 1,0 is not the last move"]);
        assert_eq!(say(&mut b, "TAKEBACK 3,4"), ["OK"]);
        assert_eq!((b.game().unwrap().ply(), b.game().unwrap().outcome()), (10, None));
    }

    #[test]
    fn max_memory_under_the_peak_gets_a_message() {
        let mut b = brain();
        assert!(say(&mut b, "INFO max_memory 0").is_empty(), "0: no limit");
        assert!(say(&mut b, "INFO max_memory 1000000000000").is_empty());
        let Some(peak) = dojo_base::util::peak_rss_bytes() else { return };
        let note = say(&mut b, "INFO max_memory 1");
        assert_eq!(note.len(), 1);
        assert!(note[0].starts_with("MESSAGE max_memory 1 bytes is below this brain's resident memory peak so far, "));
        let said: u64 = note[0].split(", ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert!(said >= peak, "{said} < {peak}");
        assert_eq!(b.info.max_memory, Some(1));
    }
}
