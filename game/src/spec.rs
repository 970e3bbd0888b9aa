//! Game specs: the text users type (`connect4`, `connect4:9x7`, `connect4:saiblo`,
//! `gomoku:15`, `gomoku:9-15`, `2048`, `2584:1-3`, `2584:1-2:90`) as a value, the board
//! limits they are checked against, and how they print.
//!
//! A spec names rules; it holds no game. Every game's rules say which spec they are
//! ([`Game::spec`](crate::Game::spec)), so this file sits below them and names none: turning
//! a spec into a position, and text into a spec, is the registry's
//! ([`crate::registry`]), which knows every game.
//!
//! A spec may be *random* (`connect4:saiblo`, `gomoku:9-15` draw a board per game);
//! [`GameSpec::new_game`] turns it into a concrete position whose own `Game::spec` is the
//! drawn board, so a record replays exactly.

pub use crate::error::SpawnOddsError;
use std::fmt;

/// Which game, with which rules.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameSpec {
    /// Connect Four on `width × height` with optional blocked cells `(column, row)`, both
    /// 0-based, row 0 at the bottom.
    Connect4 { width: u8, height: u8, blocked: Vec<(u8, u8)> },
    /// The saiblo variant (seed 001): width and height drawn uniformly from 9..=12 and one
    /// blocked cell, per game.
    Connect4Saiblo,
    /// Gomoku on `size × size` by `rule` (freestyle: five or more in a row wins).
    Gomoku { size: u8, rule: GomokuRule },
    /// Gomoku on a board drawn per game, `size × size` with `size` uniform in `min..=max`
    /// (`min < max`), by `rule`: what one any-size network trains on to play them all.
    GomokuSizes { min: u8, max: u8, rule: GomokuRule },
    /// 2048 on 4×4: spawns 2 (90%) or 4 (10%).
    Twenty48,
    /// 2584 (Fibonacci) on 4×4 with the given spawn odds (1/2 at 80/20 unless told).
    Fib2584 { odds: SpawnOdds },
    /// A [`NamedGame`](crate::NamedGame): its name is all of its spec (`hex5`).
    Named { name: &'static str },
}

/// Which lines win. Gomocup's `INFO rule` is a bit mask (1 exactly five, 2 continuous
/// game, 4 renju, 8 caro): its 0 is [`GomokuRule::Freestyle`] and 1 is [`GomokuRule::Standard`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum GomokuRule {
    /// Five or more in a row wins.
    #[default]
    Freestyle,
    /// Exactly five in a row wins: six or more (an overline) does not, and a five wins with
    /// any stone of the other colour next to it.
    Standard,
}

impl GomokuRule {
    /// The rule of Gomocup's `INFO rule` mask, if dojo plays it: bit 1 (exactly five) picks
    /// standard, bit 2 (a continuous game) changes nothing for a position (the game still
    /// ends at its first five), and renju (4), caro (8) and any other bit are not played.
    pub fn from_gomocup(mask: u64) -> Option<GomokuRule> {
        match mask & !2 {
            0 => Some(GomokuRule::Freestyle),
            1 => Some(GomokuRule::Standard),
            _ => None,
        }
    }

    /// The rule's `INFO rule` value: 0 freestyle, 1 standard.
    pub fn gomocup(self) -> u64 {
        match self {
            GomokuRule::Freestyle => 0,
            GomokuRule::Standard => 1,
        }
    }

    /// What a spec's text adds for the rule: nothing for freestyle (the default, so the
    /// specs written before rules keep their text), `:standard`.
    pub fn spec_suffix(self) -> &'static str {
        match self {
            GomokuRule::Freestyle => "",
            GomokuRule::Standard => ":standard",
        }
    }

    /// The rule a spec's word names: `freestyle` or `standard`.
    pub fn from_name(word: &str) -> Option<GomokuRule> {
        [GomokuRule::Freestyle, GomokuRule::Standard].into_iter().find(|r| r.name() == word)
    }

    /// "freestyle" or "standard".
    pub fn name(self) -> &'static str {
        match self {
            GomokuRule::Freestyle => "freestyle",
            GomokuRule::Standard => "standard",
        }
    }
}

impl fmt::Display for GomokuRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

pub const C4_MIN: u8 = 4;
pub const C4_MAX_WIDTH: u8 = 12;
pub const C4_MAX_HEIGHT: u8 = 12;
/// The saiblo variant's boards: width and height in `SAIBLO_MIN..=SAIBLO_MAX`.
pub const SAIBLO_MIN: u8 = 9;
pub const SAIBLO_MAX: u8 = 12;
/// The smallest Gomoku board, 7×7.
pub const GOMOKU_MIN: u8 = 7;
/// The largest Gomoku board: Gomocup's freestyle board is 20×20.
pub const GOMOKU_MAX: u8 = 20;

/// 2584 spawn odds: the small tile 1 with `small_percent` % probability, otherwise the big
/// tile (2 or 3). The original 2584 environment spawns 1 or 2 at 80/20 and seed 000's
/// project 1 or 3 at 75/25: those are [`SpawnOdds::OneTwo`] and [`SpawnOdds::OneThree`],
/// the odds `2584:1-2` and `2584:1-3` name; `2584:1-2:90` names 1 at 90 %, 2 at 10 %.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpawnOdds {
    big: u8,
    small_percent: u8,
}

// The two standard rules keep the names they had as enum variants, so they read as the
// rules they are (`SpawnOdds::OneTwo`) and still work as patterns.
#[allow(non_upper_case_globals)]
impl SpawnOdds {
    /// 1 at 80 %, 2 at 20 % (the original 2584 environment).
    pub const OneTwo: SpawnOdds = SpawnOdds { big: 2, small_percent: 80 };
    /// 1 at 75 %, 3 at 25 % (seed 000's project).
    pub const OneThree: SpawnOdds = SpawnOdds { big: 3, small_percent: 75 };
}

impl SpawnOdds {
    /// Odds with the big tile `big` (2 or 3) and the 1-tile at `small_percent` % (1..=99).
    pub fn new(big: u8, small_percent: u8) -> Result<SpawnOdds, SpawnOddsError> {
        if big != 2 && big != 3 {
            return Err(SpawnOddsError::BigTile(big));
        }
        if !(1..=99).contains(&small_percent) {
            return Err(SpawnOddsError::SmallPercent(small_percent));
        }
        Ok(SpawnOdds { big, small_percent })
    }

    /// The standard odds for a big tile (2 or 3): 80/20 for 2, 75/25 for 3.
    pub fn standard(big: u8) -> Result<SpawnOdds, SpawnOddsError> {
        match big {
            2 => Ok(SpawnOdds::OneTwo),
            3 => Ok(SpawnOdds::OneThree),
            _ => Err(SpawnOddsError::BigTile(big)),
        }
    }

    /// The big tile: 2 or 3.
    pub fn big(self) -> u8 {
        self.big
    }

    /// The 1-tile's chance in percent (1..=99); the big tile has the rest.
    pub fn small_percent(self) -> u8 {
        self.small_percent
    }

    /// Whether these are the standard odds for their big tile.
    pub fn is_standard(self) -> bool {
        SpawnOdds::standard(self.big) == Ok(self)
    }
}

impl GameSpec {
    /// Standard Connect Four, 7 wide and 6 high.
    pub fn connect4() -> GameSpec {
        GameSpec::Connect4 { width: 7, height: 6, blocked: Vec::new() }
    }

    /// Freestyle Gomoku on `size × size`.
    pub fn gomoku(size: u8) -> GameSpec {
        GameSpec::Gomoku { size, rule: GomokuRule::Freestyle }
    }

    /// The rule of a Gomoku spec (None for other games).
    pub fn gomoku_rule(&self) -> Option<GomokuRule> {
        match self {
            GameSpec::Gomoku { rule, .. } | GameSpec::GomokuSizes { rule, .. } => Some(*rule),
            _ => None,
        }
    }

    /// The same spec under the default rule (freestyle for Gomoku; other games have one
    /// rule): a network of one rule plays the other's games on its boards, as a Gomocup
    /// brain told `INFO rule` does.
    pub fn with_default_rule(&self) -> GameSpec {
        match self.clone() {
            GameSpec::Gomoku { size, .. } => GameSpec::Gomoku { size, rule: GomokuRule::Freestyle },
            GameSpec::GomokuSizes { min, max, .. } => GameSpec::GomokuSizes { min, max, rule: GomokuRule::Freestyle },
            other => other,
        }
    }

    /// Whether every game of this spec is played on the same board.
    pub fn is_random(&self) -> bool {
        matches!(self, GameSpec::Connect4Saiblo | GameSpec::GomokuSizes { .. })
    }

    /// Whether a game on the concrete board `board` is one of this spec's: the same spec, or
    /// for a random spec a board it could have drawn (`connect4:saiblo`: 9–12 × 9–12, one
    /// blocked cell; `gomoku:9-15`: 9×9 to 15×15).
    pub fn admits(&self, board: &GameSpec) -> bool {
        match (self, board) {
            (GameSpec::Connect4Saiblo, GameSpec::Connect4 { width, height, blocked }) => {
                let sizes = SAIBLO_MIN..=SAIBLO_MAX;
                sizes.contains(width) && sizes.contains(height) && blocked.len() == 1
            }
            (GameSpec::GomokuSizes { min, max, rule }, GameSpec::Gomoku { size, rule: played }) => {
                (min..=max).contains(&size) && rule == played
            }
            _ => self == board,
        }
    }

    /// The largest board (width, height) of a game an any-size network can play
    /// (`dojo_arch::architecture::Architecture::any_size`): the board, or the largest a random
    /// spec draws (12×12 for `connect4:saiblo`, 15×15 for `gomoku:9-15`); None for games
    /// without frames (2048, 2584).
    pub fn largest_board(&self) -> Option<(usize, usize)> {
        match self {
            GameSpec::Connect4 { width, height, .. } => Some((*width as usize, *height as usize)),
            GameSpec::Connect4Saiblo => Some((SAIBLO_MAX as usize, SAIBLO_MAX as usize)),
            GameSpec::Gomoku { size, .. } | GameSpec::GomokuSizes { max: size, .. } => {
                Some((*size as usize, *size as usize))
            }
            _ => None,
        }
    }

    /// A position of this spec, for code that picks its concrete game type from one: the
    /// The short family name: `connect4`, `gomoku`, `2048`, `2584`.
    pub fn family(&self) -> &'static str {
        match self {
            GameSpec::Connect4 { .. } | GameSpec::Connect4Saiblo => "connect4",
            GameSpec::Gomoku { .. } | GameSpec::GomokuSizes { .. } => "gomoku",
            GameSpec::Twenty48 => "2048",
            GameSpec::Fib2584 { .. } => "2584",
            GameSpec::Named { name } => name,
        }
    }
}

/// Connect Four bitboards use `height + 1` bits per column (a sentinel row).
pub fn fits_64(width: u8, height: u8) -> bool {
    (width as u32) * (height as u32 + 1) <= 64
}

impl fmt::Display for GameSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameSpec::Connect4 { width, height, blocked } => {
                write!(f, "connect4:{width}x{height}")?;
                if !blocked.is_empty() {
                    let cells: Vec<String> = blocked.iter().map(|(c, r)| format!("{}.{}", c + 1, r + 1)).collect();
                    write!(f, ":{}", cells.join(","))?;
                }
                Ok(())
            }
            GameSpec::Connect4Saiblo => write!(f, "connect4:saiblo"),
            GameSpec::Gomoku { size, rule } => write!(f, "gomoku:{size}{}", rule.spec_suffix()),
            GameSpec::GomokuSizes { min, max, rule } => write!(f, "gomoku:{min}-{max}{}", rule.spec_suffix()),
            GameSpec::Twenty48 => write!(f, "2048"),
            GameSpec::Named { name } => write!(f, "{name}"),
            GameSpec::Fib2584 { odds } => {
                write!(f, "2584:1-{}", odds.big())?;
                if !odds.is_standard() {
                    write!(f, ":{}", odds.small_percent())?;
                }
                Ok(())
            }
        }
    }
}

impl serde::Serialize for GameSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}
