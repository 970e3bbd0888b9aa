//! Pascal Pons' benchmark categories for Connect Four positions: the stage (discs played)
//! and the difficulty (moves left to the end of the game under perfect play), e.g. `L2R1`.
//!
//! Moves left come from the solver's exact score (gamesolver.org's convention, see
//! `dojo_search::solver`): a win for the side to move whose winning disc goes onto a
//! board already holding `k` discs scores `(cells + 1 - k) / 2`, so the score and the
//! parity of the winner's turns give `k` back; a loss is the opponent's win; a draw fills
//! the board.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How far into the game: L1 up to 14 discs, L2 15 to 28, L3 more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Stage {
    L1,
    L2,
    L3,
}

/// How far from the end under perfect play: R1 fewer than 14 moves, R2 14 to 28, R3 more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Difficulty {
    R1,
    R2,
    R3,
}

pub const STAGES: [Stage; 3] = [Stage::L1, Stage::L2, Stage::L3];
pub const DIFFICULTIES: [Difficulty; 3] = [Difficulty::R1, Difficulty::R2, Difficulty::R3];

impl Stage {
    pub fn of_discs(discs: usize) -> Stage {
        match discs {
            0..=14 => Stage::L1,
            15..=28 => Stage::L2,
            _ => Stage::L3,
        }
    }

    /// The discs played in this stage's positions, on a board of `cells` playable cells
    /// (a position is never full): empty when the board is too small for the stage.
    pub fn discs(self, cells: usize) -> std::ops::RangeInclusive<usize> {
        let last = cells.saturating_sub(1);
        match self {
            Stage::L1 => 0..=last.min(14),
            Stage::L2 => 15..=last.min(28),
            Stage::L3 => 29..=last,
        }
    }
}

impl Difficulty {
    pub fn of_moves_left(moves_left: usize) -> Difficulty {
        match moves_left {
            0..=13 => Difficulty::R1,
            14..=28 => Difficulty::R2,
            _ => Difficulty::R3,
        }
    }

    /// The fewest moves left in this difficulty.
    fn min_moves_left(self) -> usize {
        match self {
            Difficulty::R1 => 1,
            Difficulty::R2 => 14,
            Difficulty::R3 => 29,
        }
    }
}

/// A stage and a difficulty, written as Pons names his test sets' parts: `L2R1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Category {
    pub stage: Stage,
    pub difficulty: Difficulty,
}

impl Category {
    /// The category of a position with `discs` played, on a board of `cells` playable
    /// cells, whose exact score for the side to move is `score`.
    pub fn of(score: i32, discs: usize, cells: usize) -> Category {
        Category {
            stage: Stage::of_discs(discs),
            difficulty: Difficulty::of_moves_left(moves_left(score, discs, cells)),
        }
    }

    /// The categories that positions of a board with `cells` playable cells can fall in
    /// (7×6: L1R1, L1R2, L1R3, L2R1, L2R2 and L3R1, Pons' six test sets).
    pub fn possible(cells: usize) -> Vec<Category> {
        let mut out = Vec::new();
        for stage in STAGES {
            let discs = stage.discs(cells);
            for difficulty in DIFFICULTIES {
                if !discs.is_empty() && discs.start() + difficulty.min_moves_left() <= cells {
                    out.push(Category { stage, difficulty });
                }
            }
        }
        out
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}{:?}", self.stage, self.difficulty)
    }
}

/// A word that is not a Pons category (`L1R1` .. `L3R3`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("category {text:?} is not one of L1R1 .. L3R3")]
pub struct CategoryError {
    pub text: String,
}

impl FromStr for Category {
    type Err = CategoryError;

    fn from_str(text: &str) -> Result<Category, CategoryError> {
        let not_one = || CategoryError { text: text.to_string() };
        let stage = match text.get(..2) {
            Some("L1") => Stage::L1,
            Some("L2") => Stage::L2,
            Some("L3") => Stage::L3,
            _ => return Err(not_one()),
        };
        let difficulty = match text.get(2..) {
            Some("R1") => Difficulty::R1,
            Some("R2") => Difficulty::R2,
            Some("R3") => Difficulty::R3,
            _ => return Err(not_one()),
        };
        Ok(Category { stage, difficulty })
    }
}

impl Serialize for Category {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Category {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Category, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// Discs still to be played until the game ends under perfect play (the winning disc
/// included), from a position with `discs` played on a board of `cells` playable cells
/// whose exact score for the side to move is `score`.
pub fn moves_left(score: i32, discs: usize, cells: usize) -> usize {
    if score == 0 {
        return cells - discs;
    }
    // The winner plays onto boards holding `discs` discs plus an even number (the side to
    // move wins) or an odd number (the opponent wins); of the two board sizes that give
    // the score, (cells + 1 - k) / 2 rounding down, take the one of that parity.
    let winner_parity = if score > 0 { discs % 2 } else { (discs + 1) % 2 };
    let k = (cells + 1).saturating_sub(2 * score.unsigned_abs() as usize);
    let k = if k % 2 == winner_parity { k } else { k.saturating_sub(1) };
    (k + 1).saturating_sub(discs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_left_of_gamesolvers_examples() {
        // "4455": the side to move wins with its 4th disc (score 18), three discs from now.
        assert_eq!(moves_left(18, 4, 42), 3);
        // "44455554221": the opponent wins next move with its 7th disc (score -15).
        assert_eq!(moves_left(-15, 11, 42), 2);
        // A win available now scores (43 - discs) / 2 and takes one move.
        assert_eq!(moves_left(16, 10, 42), 1);
        assert_eq!(moves_left(16, 11, 42), 1);
        // Winning with the very last disc of a 7x6 board (the first player's 21st).
        assert_eq!(moves_left(1, 40, 42), 1);
        assert_eq!(moves_left(-1, 39, 42), 2);
        assert_eq!(moves_left(0, 30, 42), 12);
    }

    #[test]
    fn categories_of_hand_labelled_positions() {
        let of = |score, discs| Category::of(score, discs, 42).to_string();
        // A win in three at 10 discs is L1R1; a draw at 10 discs has 32 moves left: L1R3.
        assert_eq!(of(moves_score(10, 3), 10), "L1R1");
        assert_eq!(of(0, 10), "L1R3");
        // A draw at 20 discs: 22 moves left.
        assert_eq!(of(0, 20), "L2R2");
        // A deep win: the side to move at 14 discs wins with its 21st disc, 27 moves away.
        assert_eq!(moves_left(1, 14, 42), 27);
        assert_eq!(of(1, 14), "L1R2");
        // The same score one disc later is the opponent's last-disc loss, 28 moves away.
        assert_eq!(of(-1, 15), "L2R2");
        assert_eq!(of(-1, 13), "L1R2");
        // The first player winning with its 21st disc, from 12 discs: 29 moves away.
        assert_eq!(of(1, 12), "L1R3");
        assert_eq!(of(2, 30), "L3R1");
    }

    /// The score of a win by the side to move `moves` discs from now (odd), 7x6.
    fn moves_score(discs: usize, moves: usize) -> i32 {
        ((43 - (discs + moves - 1)) / 2) as i32
    }

    #[test]
    fn categories_of_boards_and_their_names() {
        let names = |cells| Category::possible(cells).iter().map(|c| c.to_string()).collect::<Vec<_>>();
        assert_eq!(names(42), ["L1R1", "L1R2", "L1R3", "L2R1", "L2R2", "L3R1"]);
        assert_eq!(names(20), ["L1R1", "L1R2", "L2R1"]);
        assert_eq!("L2R3".parse::<Category>().unwrap().to_string(), "L2R3");
        assert_eq!("L4R1".parse::<Category>().unwrap_err().to_string(), "category \"L4R1\" is not one of L1R1 .. L3R3");
        assert_eq!("L1R".parse::<Category>().unwrap_err().to_string(), "category \"L1R\" is not one of L1R1 .. L3R3");
    }
}
