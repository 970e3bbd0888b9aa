//! Labelled positions files (`dojo positions --pons`): JSON lines, one position a line,
//! with its Pons category and the exact score of every column, so grading needs no solver:
//!
//! ```text
//! {"game":"connect4:7x6","moves":"4453","category":"L1R3","score":0,"moves_left":38,"scores":[-2,-1,0,0,0,-1,-2]}
//! ```
//!
//! `moves` is gamesolver's notation (1-based columns); `scores` holds each column's score
//! for the side to move, left to right, `null` for a full column (the solver's convention:
//! see `dojo_search::solver`); `score` is the best of them. A file may also hold plain
//! move strings, one a line, as `dojo positions` wrote before (the grader solves those).
//! The reader checks every labelled line against the board and says which line is wrong.

use super::category::{moves_left, Category};
use dojo_game::connect4::solver::Position;
use dojo_game::connect4::Connect4;
use dojo_game::{Game, GameError, GameSpec};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What is wrong with a labelled position, or with a positions file. A wrapped error's text
/// is part of the message and not also its `source()`, so that `dojo`'s `{:#}` does not print
/// it twice.
#[derive(Debug, thiserror::Error)]
pub enum LabelledError {
    /// The label is for another board than the one asked for.
    #[error("a position of {label}, not {board}")]
    OtherBoard { label: GameSpec, board: GameSpec },
    #[error("moves {moves:?}: {error}")]
    Moves { moves: String, error: GameError },
    #[error("moves {moves:?}: the game is already over")]
    GameOver { moves: String },
    #[error("{scores} scores for a board of {columns} columns")]
    ScoreCount { scores: usize, columns: usize },
    /// Column `column` (from 1) can be played but the label gives it no score.
    #[error("column {column} is playable but has no score")]
    Unscored { column: usize },
    #[error("column {column} is full but has a score")]
    FullScored { column: usize },
    #[error("column {column}'s score {score} is outside {least}..={most}")]
    ScoreOutOfRange { column: usize, score: i32, least: i32, most: i32 },
    /// The score, moves left and category the scores give (`expected`) are not the line's.
    #[error(
        "the scores give score {}, {} moves left, category {}; the line says score {}, {} moves left, category {}",
        .expected.0, .expected.1, .expected.2, .line.0, .line.1, .line.2
    )]
    Inconsistent { expected: (i32, usize, Category), line: (i32, usize, Category) },
    /// Line `line` (from 1) starts with `{` but is not a labelled position.
    #[error("line {line}: not a labelled position ({error})")]
    NotLabelled { line: usize, error: serde_json::Error },
    #[error("cannot read {}: {error}", .path.display())]
    Read { path: PathBuf, error: std::io::Error },
    #[error("cannot write {}: {error}", .path.display())]
    Write { path: PathBuf, error: std::io::Error },
    /// The file at `path` is wrong (`error` names the line).
    #[error("{}: {error}", .path.display())]
    InFile { path: PathBuf, error: Box<LabelledError> },
    #[error("{} line {line}: a move string without labels", .path.display())]
    Unlabelled { path: PathBuf, line: usize },
    /// The label on line `line` of the file does not fit its position.
    #[error("{} line {line}: {error}", .path.display())]
    BadLine { path: PathBuf, line: usize, error: Box<LabelledError> },
}

/// One labelled position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Labelled {
    pub game: dojo_game::GameSpec,
    pub moves: String,
    pub category: Category,
    /// The position's exact score for the side to move (the best of `scores`).
    pub score: i32,
    /// Discs still to be played under perfect play, the last one included.
    pub moves_left: usize,
    /// Each column's exact score for the side to move; None for a full column.
    pub scores: Vec<Option<i32>>,
}

impl Labelled {
    /// The label of `game` (reached by `moves`, gamesolver's notation) from the exact score
    /// of each of its columns.
    pub fn new(game: &Connect4, moves: String, scores: Vec<Option<i32>>) -> Labelled {
        let score = scores.iter().flatten().copied().max().unwrap_or(0);
        let (discs, cells) = (game.discs_played(), Position::from_game(game).cells());
        Labelled {
            game: game.spec(),
            moves,
            category: Category::of(score, discs, cells),
            score,
            moves_left: moves_left(score, discs, cells),
            scores,
        }
    }

    /// The position, after checking that the label fits it: the same board, legal moves to
    /// a game in progress, a score for exactly the playable columns, each within what the
    /// board allows, and the category, score and moves left that those scores give.
    pub fn position(&self, start: &Connect4) -> Result<Connect4, LabelledError> {
        if self.game != start.spec() {
            return Err(LabelledError::OtherBoard { label: self.game.clone(), board: start.spec() });
        }
        let mut game = start.clone();
        let bad_moves = |error| LabelledError::Moves { moves: self.moves.clone(), error };
        let actions = game.moves_from_text(&self.moves).map_err(bad_moves)?;
        for a in actions {
            game.play(a).map_err(bad_moves)?;
        }
        if game.outcome().is_some() {
            return Err(LabelledError::GameOver { moves: self.moves.clone() });
        }
        if self.scores.len() != game.width() {
            return Err(LabelledError::ScoreCount { scores: self.scores.len(), columns: game.width() });
        }
        let pos = Position::from_game(&game);
        // A win now scores the most; nothing loses faster than the opponent's next disc.
        let (most, least) = (pos.win_now_score(), -((pos.cells() - pos.moves_played()) as i32) / 2);
        for (col, score) in self.scores.iter().enumerate() {
            match (pos.can_play(col), score) {
                (true, None) => return Err(LabelledError::Unscored { column: col + 1 }),
                (false, Some(_)) => return Err(LabelledError::FullScored { column: col + 1 }),
                (true, Some(score)) if !(least..=most).contains(score) => {
                    return Err(LabelledError::ScoreOutOfRange { column: col + 1, score: *score, least, most })
                }
                _ => {}
            }
        }
        let expected = Labelled::new(&game, self.moves.clone(), self.scores.clone());
        if (expected.score, expected.moves_left, expected.category) != (self.score, self.moves_left, self.category) {
            return Err(LabelledError::Inconsistent {
                expected: (expected.score, expected.moves_left, expected.category),
                line: (self.score, self.moves_left, self.category),
            });
        }
        Ok(game)
    }
}

/// A line of a positions file.
#[derive(Clone, Debug, PartialEq)]
pub enum PositionLine {
    /// A move string alone: the judge works out the answer.
    Plain(String),
    Labelled(Labelled),
}

/// The positions of a file's text, with their 1-based line numbers; blank lines are
/// skipped. A line that starts with `{` must be a whole labelled position.
pub fn parse_lines(text: &str) -> Result<Vec<(usize, PositionLine)>, LabelledError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let parsed = if line.starts_with('{') {
            let labelled =
                serde_json::from_str(line).map_err(|error| LabelledError::NotLabelled { line: i + 1, error })?;
            PositionLine::Labelled(labelled)
        } else {
            PositionLine::Plain(line.to_string())
        };
        out.push((i + 1, parsed));
    }
    Ok(out)
}

/// A labelled positions file's positions, each checked against `start`'s board; errors
/// name the file and the line.
pub fn read_labelled(path: &Path, start: &Connect4) -> Result<Vec<(Connect4, Labelled)>, LabelledError> {
    let path_buf = || path.to_path_buf();
    let text = std::fs::read_to_string(path).map_err(|error| LabelledError::Read { path: path_buf(), error })?;
    let mut out = Vec::new();
    let lines = parse_lines(&text).map_err(|e| LabelledError::InFile { path: path_buf(), error: Box::new(e) })?;
    for (line, parsed) in lines {
        let PositionLine::Labelled(labelled) = parsed else {
            return Err(LabelledError::Unlabelled { path: path_buf(), line });
        };
        let game = labelled.position(start).map_err(|e| LabelledError::BadLine {
            path: path_buf(),
            line,
            error: Box::new(e),
        })?;
        out.push((game, labelled));
    }
    Ok(out)
}

/// The file's text: one JSON line per position.
pub fn to_text(positions: &[Labelled]) -> String {
    let mut text = String::new();
    for p in positions {
        text.push_str(&serde_json::to_string(p).expect("a label always serialises"));
        text.push('\n');
    }
    text
}

/// Writes `positions` to `path` atomically (a crash leaves the old file or the new one).
pub fn write_labelled(path: &Path, positions: &[Labelled]) -> Result<(), LabelledError> {
    dojo_base::util::atomic_write(path, to_text(positions).as_bytes())
        .map_err(|error| LabelledError::Write { path: path.to_path_buf(), error })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "4455": the side to move wins with its 4th disc (gamesolver's example, score 18).
    fn example() -> Labelled {
        let game = position("4455");
        // Columns 3 and 6 win in three (score 18). The other scores are made up: the reader
        // checks only their range and what they add up to.
        Labelled::new(&game, "4455".into(), vec![Some(-1), Some(-2), Some(18), Some(-3), Some(-4), Some(18), Some(0)])
    }

    fn position(moves: &str) -> Connect4 {
        let mut game = Connect4::standard();
        for a in game.moves_from_text(moves).unwrap() {
            game.play(a).unwrap();
        }
        game
    }

    #[test]
    fn labelled_lines_round_trip_and_plain_lines_still_read() {
        let label = example();
        assert_eq!((label.category.to_string(), label.moves_left, label.score), ("L1R1".into(), 3, 18));
        let text = format!("{}\n4453\n\n", to_text(std::slice::from_ref(&label)).trim_end());
        assert!(text.starts_with(r#"{"game":"connect4:7x6","moves":"4455","category":"L1R1","score":18,"moves_left":3,"scores":[-1,-2,18,-3,-4,18,0]}"#), "{text}");
        let lines = parse_lines(&text).unwrap();
        assert_eq!(lines, vec![(1, PositionLine::Labelled(label.clone())), (2, PositionLine::Plain("4453".into()))]);
        assert_eq!(label.position(&Connect4::standard()).unwrap(), position("4455"));

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pons.jsonl");
        write_labelled(&file, &[label.clone(), label.clone()]).unwrap();
        let read = read_labelled(&file, &Connect4::standard()).unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!((read[1].0.clone(), read[1].1.clone()), (position("4455"), label));
    }

    #[test]
    fn bad_lines_are_named_with_what_is_wrong() {
        let start = Connect4::standard();
        let wrong = |edit: &dyn Fn(&mut Labelled)| {
            let mut l = example();
            edit(&mut l);
            l.position(&start).unwrap_err().to_string()
        };
        assert_eq!(
            wrong(&|l| {
                l.scores.pop();
            }),
            "6 scores for a board of 7 columns"
        );
        assert_eq!(wrong(&|l| l.scores[0] = None), "column 1 is playable but has no score");
        assert_eq!(wrong(&|l| l.scores[1] = Some(30)), "column 2's score 30 is outside -19..=19");
        assert_eq!(
            wrong(&|l| l.category = "L2R1".parse().unwrap()),
            "the scores give score 18, 3 moves left, category L1R1; the line says score 18, 3 moves left, category L2R1"
        );
        assert!(wrong(&|l| l.moves = "4458".into()).starts_with("moves \"4458\": "));
        assert_eq!(wrong(&|l| l.moves = "1212121".into()), "moves \"1212121\": the game is already over");
        assert_eq!(
            wrong(&|l| l.game = "connect4:6x5".parse().unwrap()),
            "a position of connect4:6x5, not connect4:7x6"
        );
        let full = position("111111");
        let mut l = Labelled::new(&full, "111111".into(), vec![Some(0); 7]);
        assert_eq!(l.position(&start).unwrap_err().to_string(), "column 1 is full but has a score");
        l.scores[0] = None;
        l.position(&start).unwrap();

        let err = parse_lines("4453\n{\"moves\":\"4\"}\n").unwrap_err().to_string();
        assert!(err.starts_with("line 2: not a labelled position (missing field"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.jsonl");
        std::fs::write(&file, format!("{}\n44\n", to_text(&[example()]).trim_end())).unwrap();
        let err = read_labelled(&file, &start).unwrap_err().to_string();
        assert_eq!(err, format!("{} line 2: a move string without labels", file.display()));
        let err = read_labelled(&dir.path().join("none.jsonl"), &start).unwrap_err().to_string();
        assert!(err.starts_with("cannot read "), "{err}");
    }
}
