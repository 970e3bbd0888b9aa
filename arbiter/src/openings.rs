//! Opening books: fixed move sequences that open pairs of games, instead of random plies.
//! Two deterministic players (two networks, an engine at a node cap) play one game from a
//! position, so a match between them needs many starting positions; random plies give
//! that, but a random Gomoku opening often hands one colour the game, and then a pair of
//! games measures the opening, not the players. A book of balanced openings (see
//! `docs/gomoku-ladder.md` for how dojo's were made) fixes that: pair `k` of every pairing
//! opens with line `k` of the book (cycling), each player moving first after it once.
//!
//! The file: one opening a line, in the game's move notation (Gomoku: `x,y` 0-based, moves
//! separated by spaces), the moves from the game's start; `#` starts a comment, blank
//! lines are skipped. Every line is checked against the game before a game is played.

use crate::players::PlayerSpec;
use dojo_base::rng::Rng;
use dojo_game::{play_random_opening, Action, Game, GameError};
use std::path::{Path, PathBuf};

/// Why an opening book cannot be used. A wrapped error's text is part of the message and
/// not also its `source()`, so that `dojo`'s `{:#}` does not print it twice.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    #[error("cannot read the openings file {path}: {error}")]
    Read { path: PathBuf, error: std::io::Error },
    #[error("the openings file {path} holds no openings (one move sequence a line; '#' comments)")]
    Empty { path: PathBuf },
    #[error("opening {number} ({line:?}) is not a {game} opening: {error}")]
    /// (`error` boxed: a match's and a gate's errors hold this one, and stay small.)
    Illegal { number: usize, line: String, game: String, error: Box<GameError> },
    #[error("opening {number} ({line:?}) is not a {game} opening: the game is over after it")]
    Over { number: usize, line: String, game: String },
    #[error(
        "{a} and {b} are both deterministic (networks search without noise), and {games} games are \
         {pairs} pairs from a book of {book} openings: the pairs after the first {book} would replay \
         earlier ones move for move and count each game twice. Ask for at most {max} games, or use a larger book",
        pairs = games.div_ceil(2),
        max = 2 * book
    )]
    Cycled { a: String, b: String, games: u32, book: usize },
}

/// The openings of a book, each a move sequence as text, in the book's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Openings {
    pub lines: Vec<String>,
}

impl Openings {
    /// Reads a book: one opening a line, `#` comments and blank lines skipped.
    pub fn load(path: &Path) -> Result<Openings, OpeningsError> {
        let text =
            std::fs::read_to_string(path).map_err(|error| OpeningsError::Read { path: path.to_path_buf(), error })?;
        let openings = Openings::parse(&text);
        if openings.lines.is_empty() {
            return Err(OpeningsError::Empty { path: path.to_path_buf() });
        }
        Ok(openings)
    }

    /// The openings in `text` (see [`Openings::load`]), whitespace normalised.
    pub fn parse(text: &str) -> Openings {
        let lines = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty())
            .collect();
        Openings { lines }
    }

    /// Checks that `games` games between two players, in pairs from this book, play no
    /// line twice where both players are deterministic: they would replay a cycled line's
    /// two games move for move, and a report would count each game twice. Each player is
    /// given by the name to report and its spec.
    pub fn check_not_cycled(&self, games: u32, [a, b]: [(&str, &PlayerSpec); 2]) -> Result<(), OpeningsError> {
        let deterministic = a.1.is_deterministic() && b.1.is_deterministic();
        if deterministic && games.div_ceil(2) as usize > self.lines.len() {
            let (a, b) = (a.0.to_string(), b.0.to_string());
            return Err(OpeningsError::Cycled { a, b, games, book: self.lines.len() });
        }
        Ok(())
    }

    /// Checks that every opening can be played from `start` and leaves the game unfinished.
    pub fn check<G: Game>(&self, start: &G) -> Result<(), OpeningsError> {
        for k in 0..self.lines.len() {
            self.play_line(&mut start.clone(), k)?;
        }
        Ok(())
    }

    /// Plays the opening of pair `pair` (line `pair` modulo the book's length) on `game`;
    /// returns its moves.
    pub fn play<G: Game>(&self, game: &mut G, pair: u32) -> Result<Vec<Action>, OpeningsError> {
        self.play_line(game, pair as usize % self.lines.len().max(1))
    }

    fn play_line<G: Game>(&self, game: &mut G, k: usize) -> Result<Vec<Action>, OpeningsError> {
        let line = &self.lines[k];
        let spec = game.spec().to_string();
        let illegal = |error: GameError| OpeningsError::Illegal {
            number: k + 1,
            line: line.clone(),
            game: spec.clone(),
            error: Box::new(error),
        };
        let moves = game.moves_from_text(line).map_err(illegal)?;
        for &m in &moves {
            game.play(m).map_err(illegal)?;
        }
        if game.outcome().is_some() {
            return Err(OpeningsError::Over { number: k + 1, line: line.clone(), game: spec });
        }
        Ok(moves)
    }
}

/// How pairs of games open: random plies, or a book's lines.
#[derive(Clone, Copy, Debug)]
pub enum Opening<'a> {
    /// This many random plies (none: the game's start), drawn from the pair's stream.
    Random(usize),
    /// Pair `k` opens with the book's line `k` (cycling).
    Book(&'a Openings),
}

impl Opening<'_> {
    /// Opens pair `pair` on `game`; returns the moves played. `rng` is the pair's stream
    /// (both games of a pair get the same one, so the same opening).
    pub fn open<G: Game>(&self, game: &mut G, pair: u32, rng: &mut Rng) -> Result<Vec<Action>, OpeningsError> {
        match self {
            Opening::Random(plies) => Ok(play_random_opening(game, *plies, rng)),
            Opening::Book(book) => book.play(game, pair),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::GameSpec;
    use rand::SeedableRng;

    #[test]
    fn two_networks_may_not_cycle_through_a_book() {
        let book = Openings { lines: (0..15).map(|k| format!("{k},0")).collect() };
        let (a, b) = (PlayerSpec::net("a.safetensors", 200), PlayerSpec::net("b.safetensors", 200));
        let nets = [("a", &a), ("b", &b)];
        // 15 openings: 30 games are 15 pairs, each opening once; 31 would replay the first.
        book.check_not_cycled(30, nets).unwrap();
        let err = book.check_not_cycled(31, nets).unwrap_err().to_string();
        assert!(err.starts_with("a and b are both deterministic"), "{err}");
        assert!(err.contains("31 games are 16 pairs from a book of 15 openings"), "{err}");
        assert!(err.ends_with("Ask for at most 30 games, or use a larger book"), "{err}");
        assert!(book.check_not_cycled(60, nets).is_err());
        // Against a player that is not known to be deterministic, a cycled book is not a copy.
        let mcts: PlayerSpec = "mcts:100".parse().unwrap();
        book.check_not_cycled(60, [("a", &a), ("mcts", &mcts)]).unwrap();
    }

    fn gomoku(size: &str) -> dojo_game::gomoku::Gomoku {
        let spec: GameSpec = size.parse().unwrap();
        match spec.new_game(&mut Rng::seed_from_u64(0)).unwrap() {
            dojo_game::AnyGame::Gomoku(g) => g,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_book_is_read_line_by_line_and_cycles_over_pairs() {
        let book = Openings::parse("# made by hand\n7,7  8,8 # two stones\n\n7,7 6,6 7,6\n");
        assert_eq!(book.lines, ["7,7 8,8", "7,7 6,6 7,6"]);
        let start = gomoku("gomoku:15");
        book.check(&start).unwrap();
        let mut rng = Rng::seed_from_u64(1);
        for (pair, stones) in [(0, 2), (1, 3), (2, 2), (3, 3)] {
            let mut g = start.clone();
            let moves = Opening::Book(&book).open(&mut g, pair, &mut rng).unwrap();
            assert_eq!(moves.len(), stones, "pair {pair}");
            assert_eq!(g.moves_to_text(&moves), book.lines[pair as usize % 2]);
        }
        let mut g = start.clone();
        assert_eq!(Opening::Random(3).open(&mut g, 0, &mut rng).unwrap().len(), 3);
    }

    #[test]
    fn bad_openings_are_refused_naming_the_line() {
        let small = gomoku("gomoku:9");
        let err = Openings::parse("4,4\n12,3 4,5\n").check(&small).unwrap_err().to_string();
        assert!(err.starts_with("opening 2 (\"12,3 4,5\") is not a gomoku:9 opening: "), "{err}");
        let err = Openings::parse("4,4 5,5 4,4").check(&small).unwrap_err().to_string();
        assert!(err.starts_with("opening 1 "), "{err}");
        // Five in a row: the game is over, nothing is left to play.
        let five = "0,0 0,8 1,0 1,8 2,0 2,8 3,0 3,8 4,0";
        let err = Openings::parse(five).check(&small).unwrap_err().to_string();
        assert!(err.ends_with("the game is over after it"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("none.txt");
        std::fs::write(&empty, "# nothing\n\n").unwrap();
        let err = Openings::load(&empty).unwrap_err().to_string();
        assert!(err.contains("holds no openings"), "{err}");
        let err = Openings::load(&dir.path().join("missing.txt")).unwrap_err().to_string();
        assert!(err.starts_with("cannot read the openings file"), "{err}");
    }
}
