//! Positions to grade a player on (`dojo positions`): distinct positions reached by random
//! play, or taken from recorded games (positions a trained network's own games reach, in
//! its own style), each written as the move string that reaches it. A filter chooses which
//! positions count: by default those where the side to move has no immediate win, so
//! every one is a real decision.

use dojo_base::rng::Rng;
use dojo_game::{Game, GameError, GameSpec, Outcome, ToMove};
use dojo_record::{read_records, RecordError};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{RngExt, SeedableRng};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// How many positions, how deep, from which seed.
#[derive(Clone, Copy, Debug)]
pub struct PositionRange {
    pub count: usize,
    /// Fewest and most moves played to reach a position.
    pub min_moves: usize,
    pub max_moves: usize,
    pub seed: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum PositionsError {
    #[error("found only {found} distinct positions with {min}..={max} moves")]
    TooFew { found: usize, min: usize, max: usize },
    #[error("{spec}: positions are for two-player games")]
    NotTwoPlayer { spec: GameSpec },
    #[error("reading {}: {source}", path.display())]
    Read { path: PathBuf, source: RecordError },
    #[error("{}: game {game} is a game of {got}, not {want}", path.display())]
    OtherGame { path: PathBuf, game: usize, got: GameSpec, want: GameSpec },
    #[error("{}: game {game}: move {ply}: {source}", path.display())]
    IllegalMove { path: PathBuf, game: usize, ply: usize, source: GameError },
}

/// The side to move cannot win with its next move.
pub fn no_immediate_win<G: Game>(game: &G) -> bool {
    let ToMove::Player(me) = game.to_move() else { return false };
    let mut legal = Vec::new();
    game.legal_actions(&mut legal);
    !legal.iter().any(|&a| {
        let mut g = game.clone();
        g.play_unchecked(a);
        g.outcome() == Some(Outcome::Win(me))
    })
}

/// `range.count` distinct positions that `keep` accepts, each reached from `start` by a
/// random number of uniformly random moves in the range (an error where a thousand tries
/// a position do not find them).
pub fn random_positions<G: Game>(
    start: &G,
    range: PositionRange,
    keep: impl Fn(&G) -> bool,
) -> Result<Vec<String>, PositionsError> {
    let mut rng = Rng::seed_from_u64(range.seed);
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    let mut legal = Vec::new();
    let mut attempts = 0usize;
    while found.len() < range.count {
        attempts += 1;
        if attempts > range.count * 1000 {
            return Err(PositionsError::TooFew { found: found.len(), min: range.min_moves, max: range.max_moves });
        }
        let target = rng.random_range(range.min_moves..=range.max_moves);
        let mut game = start.clone();
        let mut moves = Vec::new();
        while moves.len() < target && game.outcome().is_none() {
            game.legal_actions(&mut legal);
            let a = *legal.choose(&mut rng).expect("a non-empty list");
            game.play_unchecked(a);
            moves.push(a);
        }
        if moves.len() < target || game.outcome().is_some() {
            continue;
        }
        if !matches!(game.to_move(), ToMove::Player(_)) {
            return Err(PositionsError::NotTwoPlayer { spec: game.spec() });
        }
        if keep(&game) && seen.insert(game.hash()) {
            found.push(game.moves_to_text(&moves));
        }
    }
    Ok(found)
}

/// Every distinct position of the games recorded in `files` within the move range that
/// `keep` accepts, `range.count` of them drawn at random (all, if fewer: the caller sees
/// how many).
pub fn positions_from_games<G: Game>(
    start: &G,
    files: &[impl AsRef<Path>],
    range: PositionRange,
    keep: impl Fn(&G) -> bool,
) -> Result<Vec<String>, PositionsError> {
    let spec = start.spec();
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    for path in files {
        let path = path.as_ref();
        let records = read_records(path).map_err(|source| PositionsError::Read { path: path.to_path_buf(), source })?;
        for (i, record) in records.into_iter().enumerate() {
            if record.spec != spec {
                return Err(PositionsError::OtherGame {
                    path: path.to_path_buf(),
                    game: i + 1,
                    got: record.spec,
                    want: spec,
                });
            }
            let mut game = start.clone();
            let mut moves = Vec::new();
            for m in &record.moves {
                let at = moves.len();
                if (range.min_moves..=range.max_moves).contains(&at) && keep(&game) && seen.insert(game.hash()) {
                    found.push(game.moves_to_text(&moves));
                }
                if at >= range.max_moves {
                    break;
                }
                game.play(m.action).map_err(|source| PositionsError::IllegalMove {
                    path: path.to_path_buf(),
                    game: i + 1,
                    ply: at + 1,
                    source,
                })?;
                moves.push(m.action);
            }
        }
    }
    found.shuffle(&mut Rng::seed_from_u64(range.seed));
    found.truncate(range.count);
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::connect4::Connect4;
    use dojo_game::gomoku::Gomoku;

    fn range(count: usize, min_moves: usize, max_moves: usize) -> PositionRange {
        PositionRange { count, min_moves, max_moves, seed: 3 }
    }

    #[test]
    fn random_positions_are_distinct_decisions_within_the_range_and_repeat_by_seed() {
        let start = Connect4::<u64>::standard();
        let lines = random_positions(&start, range(50, 4, 9), no_immediate_win).unwrap();
        assert_eq!(lines.len(), 50);
        let mut hashes = HashSet::new();
        for line in &lines {
            let mut game = start.clone();
            let moves = game.moves_from_text(line).unwrap();
            assert!((4..=9).contains(&moves.len()), "{line}");
            for m in moves {
                game.play(m).unwrap();
            }
            assert!(no_immediate_win(&game), "{line} has a win in one");
            assert!(hashes.insert(game.hash()), "{line} twice");
        }
        assert_eq!(lines, random_positions(&start, range(50, 4, 9), no_immediate_win).unwrap());
    }

    #[test]
    fn too_few_positions_is_an_error_that_says_how_many_were_found() {
        // Connect Four has 7 positions after one move.
        let err = random_positions(&Connect4::<u64>::standard(), range(8, 1, 1), |_| true).unwrap_err();
        assert_eq!(err.to_string(), "found only 7 distinct positions with 1..=1 moves");
    }

    #[test]
    fn a_recorded_game_of_another_game_is_refused_with_its_file_and_number() {
        let dir = std::env::temp_dir().join(format!("dojo-positions-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.bin");
        let mut rng = Rng::seed_from_u64(1);
        let record = dojo_record::random_game_record(&Connect4::<u64>::standard(), 1, &mut rng);
        dojo_record::write_records(&path, &[record]).unwrap();
        let err = positions_from_games(&Gomoku::new(9).unwrap(), &[&path], range(5, 0, 9), |_| true).unwrap_err();
        assert_eq!(err.to_string(), format!("{}: game 1 is a game of connect4:7x6, not gomoku:9", path.display()));
        let start = Connect4::<u64>::standard();
        let lines = positions_from_games(&start, &[&path], range(100, 0, 3), |_| true).unwrap();
        assert_eq!(lines.len(), 4, "the first four positions of the one game: {lines:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
