//! The registry of games: every game dojo plays, one line each (`games!`), and what needs
//! them all: [`AnyGame`], a position of any game; [`with_game!`](crate::with_game), which
//! runs generic code on the concrete game inside one; a spec's games
//! ([`GameSpec::new_game`]); and parsing the text users type into a [`GameSpec`].
//!
//! It sits above every game's rules (which know only [`crate::spec`]), so nothing here is
//! imported by a game.

use crate::connect4::Connect4;
use crate::error::SpecProblem;
use crate::gomoku::Gomoku;
use crate::sliding::{Fib2584, Twenty48};
use crate::spec::{
    fits_64, GameSpec, GomokuRule, SpawnOdds, C4_MAX_HEIGHT, C4_MAX_WIDTH, C4_MIN, GOMOKU_MAX, GOMOKU_MIN, SAIBLO_MAX,
    SAIBLO_MIN,
};
use crate::{Game, GameError, NamedGame, ToMove};
use dojo_base::bits::Bits192;
use dojo_base::rng::Rng;
use rand::{RngExt, SeedableRng};
use std::str::FromStr;

/// Every game dojo plays, one line each: the variant of [`AnyGame`] that holds its positions
/// and the type of its rules. From this list come [`AnyGame`], [`with_game!`](crate::with_game)
/// (which makes generic code run on the concrete game), the conversions in and out of an
/// `AnyGame`, and the table of named games.
///
/// The games before the `;` have specs of their own in [`GameSpec`] (board sizes, random
/// boards, spawn odds). The games after it are [`NamedGame`]s, named by their name alone:
/// adding one is its rules' file, its `pub mod` in `lib.rs`, and one line here
/// (`docs/new-game.md`).
macro_rules! games {
    ($($variant:ident($game:ty)),* ; $($named:ident($named_game:ty)),* $(,)?) => {
        /// A position of any game, for code that picks the game at run time (the CLI,
        /// records). Hot loops should be generic over [`Game`] instead: use
        /// [`with_game!`](crate::with_game).
        #[derive(Clone, Debug)]
        pub enum AnyGame {
            $($variant($game),)*
            $($named($named_game),)*
        }

        games!(@with_game ($) $($variant)* $($named)*);

        games!(@from_any $($variant($game))* $($named($named_game))*);

        /// The named games' names and starting positions, in registration order.
        const NAMED_GAMES: &[(&str, fn() -> AnyGame)] =
            &[$((<$named_game as NamedGame>::NAME, || AnyGame::$named(<$named_game>::default())),)*];
    };
    (@from_any $($variant:ident($game:ty))*) => {$(
        impl FromAnyGame for $game {
            fn from_any(any: AnyGame) -> Option<Self> {
                match any {
                    AnyGame::$variant(g) => Some(g),
                    _ => None,
                }
            }
        }

        impl From<$game> for AnyGame {
            fn from(game: $game) -> AnyGame {
                AnyGame::$variant(game)
            }
        }
    )*};
    // `$d` is a `$` passed in, so the macro written here can have metavariables of its own.
    (@with_game ($d:tt) $($variant:ident)*) => {
        /// Runs `$body` with `$g` bound to the concrete game inside an [`AnyGame`], so
        /// generic code is monomorphised per game: `with_game!(any, g => run_match(g, ...))`.
        /// The body sees every trait of a game in scope (the core and its family traits),
        /// as generic code bounded by [`Game`] does.
        #[macro_export]
        macro_rules! with_game {
            ($d any:expr, $d g:ident => $d body:expr) => {{
                #[allow(unused_imports)]
                use $d crate::{tactics::Tactics as _, Chance as _, BoardLayout as _, Scoring as _, Symmetries as _};
                match $d any {
                    $($d crate::AnyGame::$variant($d g) => $d body,)*
                }
            }};
        }
    };
}

games! {
    Connect4(Connect4<u64>),
    Connect4Wide(Connect4<Bits192>),
    Gomoku(Gomoku),
    Twenty48(Twenty48),
    Fib2584(Fib2584);
    Hex(crate::hex::Hex),
    Pig(crate::pig::Pig),
}

impl GameSpec {
    /// A new game at its starting position: a random spec's board drawn, then nature's
    /// opening draws made (2048's two opening tiles), both from `rng`.
    pub fn new_game(&self, rng: &mut Rng) -> Result<AnyGame, GameError> {
        let mut game = self.undrawn(rng)?;
        with_game!(&mut game, g => {
            while g.outcome().is_none() && g.to_move() == ToMove::Chance {
                g.sample_chance(rng);
            }
        });
        Ok(game)
    }

    /// A new game before nature's opening draws (for 2048 the empty board, both opening
    /// tiles pending); for a random spec, on a board drawn from `rng`.
    fn undrawn(&self, rng: &mut Rng) -> Result<AnyGame, GameError> {
        Ok(match self {
            GameSpec::Connect4 { width, height, blocked } => {
                let cells: Vec<(usize, usize)> = blocked.iter().map(|&(c, r)| (c as usize, r as usize)).collect();
                if fits_64(*width, *height) {
                    AnyGame::Connect4(Connect4::new(*width as usize, *height as usize, &cells)?)
                } else {
                    AnyGame::Connect4Wide(Connect4::new(*width as usize, *height as usize, &cells)?)
                }
            }
            GameSpec::Connect4Saiblo => {
                // Every saiblo board is at least 9×9, so always a `Connect4<Bits192>`.
                let width = rng.random_range(SAIBLO_MIN..=SAIBLO_MAX);
                let height = rng.random_range(SAIBLO_MIN..=SAIBLO_MAX);
                let blocked = vec![(rng.random_range(..width), rng.random_range(..height))];
                return GameSpec::Connect4 { width, height, blocked }.undrawn(rng);
            }
            GameSpec::Gomoku { size, rule } => AnyGame::Gomoku(Gomoku::with_rule(*size as usize, *rule)?),
            GameSpec::GomokuSizes { min, max, rule } => {
                AnyGame::Gomoku(Gomoku::with_rule(rng.random_range(*min..=*max) as usize, *rule)?)
            }
            GameSpec::Twenty48 => AnyGame::Twenty48(Twenty48::new()),
            GameSpec::Fib2584 { odds } => AnyGame::Fib2584(Fib2584::new(*odds)),
            GameSpec::Named { name } => {
                named_game(name).ok_or_else(|| spec_err(name, SpecProblem::Rule("no such game")))?()
            }
        })
    }

    /// The starting position of a non-random spec, or a clear error for a random one.
    pub fn start(&self) -> Result<AnyGame, GameError> {
        self.refuse_random()?;
        self.new_game(&mut Rng::seed_from_u64(0))
    }

    /// The position records of a non-random spec replay from: its start before nature's
    /// opening draws, so a record holds those draws as its first moves (2048's opening
    /// tiles); the start itself for games without them.
    pub fn record_start(&self) -> Result<AnyGame, GameError> {
        self.refuse_random()?;
        self.undrawn(&mut Rng::seed_from_u64(0))
    }

    fn refuse_random(&self) -> Result<(), GameError> {
        match self.is_random() {
            true => Err(spec_err(
                &self.to_string(),
                SpecProblem::Rule("draws a new board per game; name a concrete board instead"),
            )),
            false => Ok(()),
        }
    }

    /// A position of this spec, for code that picks its concrete game type from one: the
    /// start, or for a random spec the board its seed 0 draws.
    pub fn probe(&self) -> Result<AnyGame, GameError> {
        self.new_game(&mut Rng::seed_from_u64(0))
    }

    /// Whether this spec's games are played by one player alone, for a score (2048, 2584):
    /// the rules' own answer ([`Scoring::is_one_player`]), so a spec and its positions never
    /// disagree. How dojo searches, records, reports and compares players of a game turns
    /// on this one question.
    pub fn is_one_player(&self) -> bool {
        self.probe().is_ok_and(|g| with_game!(&g, g => g.is_one_player()))
    }

    /// The return a one-player game's values are scaled to ([`Scoring::max_return`]); for a
    /// spec no game is made of, the default.
    pub fn max_return(&self) -> f64 {
        self.probe().map_or(crate::returns::DEFAULT_MAX_RETURN, |g| with_game!(&g, g => g.max_return()))
    }
}

/// The starting position of the named game `name`, if one is registered.
fn named_game(name: &str) -> Option<fn() -> AnyGame> {
    NAMED_GAMES.iter().find(|(n, _)| *n == name).map(|&(_, start)| start)
}

fn spec_err(spec: &str, reason: SpecProblem) -> GameError {
    GameError::Spec { spec: spec.to_string(), reason: reason.into() }
}

fn parse_u8(spec: &str, what: &'static str, t: &str) -> Result<u8, GameError> {
    t.parse::<u8>().map_err(|_| spec_err(spec, SpecProblem::NotANumber { what, text: t.to_string() }))
}

/// The 2584 options after `2584:`: none (1/2 at 80/20), `1-2` (80/20), `1-3` (75/25), or
/// either with the 1-tile's percent, e.g. `1-2:90`.
fn parse_odds(spec: &str, rest: &[&str]) -> Result<SpawnOdds, GameError> {
    const FORMS: SpecProblem = SpecProblem::Expected(
        "2584, 2584:1-2 (1 at 80%, 2 at 20%), 2584:1-3 (1 at 75%, 3 at 25%), \
                         or either with the 1-tile's percent, e.g. 2584:1-2:90",
    );
    let big = match rest.first() {
        None => return Ok(SpawnOdds::OneTwo),
        Some(&"1-2") => 2,
        Some(&"1-3") => 3,
        Some(_) => return Err(spec_err(spec, FORMS)),
    };
    match rest.get(1..) {
        Some([]) => SpawnOdds::standard(big).map_err(|e| spec_err(spec, SpecProblem::Odds(e))),
        Some([percent]) => {
            let p =
                percent.parse::<u8>().map_err(|_| spec_err(spec, SpecProblem::PercentNotWhole(percent.to_string())))?;
            SpawnOdds::new(big, p).map_err(|e| spec_err(spec, SpecProblem::Odds(e)))
        }
        _ => Err(spec_err(spec, FORMS)),
    }
}

impl FromStr for GameSpec {
    type Err = GameError;

    /// `connect4`, `connect4:WxH`, `connect4:WxH:C.R[,C.R...]` (blocked cells, 1-based column
    /// and row from the bottom), `connect4:saiblo`, `gomoku`, `gomoku:N`, `gomoku:MIN-MAX`
    /// (a size drawn per game), each Gomoku form with `:standard` (exactly five wins) or
    /// `:freestyle` (the default) after it, `2048`, `2584`,
    /// `2584:1-2`, `2584:1-3`, or either with the 1-tile's percent (`2584:1-2:90`).
    fn from_str(s: &str) -> Result<GameSpec, GameError> {
        let text = s.trim();
        let mut parts = text.split(':');
        let family = parts.next().unwrap_or("").to_ascii_lowercase();
        let rest: Vec<&str> = parts.collect();
        let spec = match family.as_str() {
            "connect4" | "c4" => parse_connect4(text, &rest)?,
            "gomoku" => parse_gomoku(text, &rest)?,
            "2048" => match rest.as_slice() {
                [] => GameSpec::Twenty48,
                _ => return Err(spec_err(text, SpecProblem::TakesNoOptions("2048"))),
            },
            "2584" => GameSpec::Fib2584 { odds: parse_odds(text, &rest)? },
            family => match NAMED_GAMES.iter().find(|(name, _)| *name == family) {
                Some((name, _)) if rest.is_empty() => GameSpec::Named { name },
                Some((name, _)) => return Err(spec_err(text, SpecProblem::TakesNoOptions(name))),
                None => {
                    let mut games = vec!["connect4", "gomoku", "2048", "2584"];
                    games.extend(NAMED_GAMES.iter().map(|(name, _)| *name));
                    return Err(spec_err(text, SpecProblem::UnknownGame { games }));
                }
            },
        };
        Ok(spec)
    }
}

/// `connect4[:WxH[:C.R,...]]` or `connect4:saiblo`, from the parts after the family
/// (`text` is the whole spec, for messages).
fn parse_connect4(text: &str, rest: &[&str]) -> Result<GameSpec, GameError> {
    let dims = match rest {
        [] => return Ok(GameSpec::connect4()),
        ["saiblo"] => return Ok(GameSpec::Connect4Saiblo),
        [dims] | [dims, _] => dims,
        _ => return Err(spec_err(text, SpecProblem::Expected("connect4, connect4:WxH[:C.R,...] or connect4:saiblo"))),
    };
    let (w, h) = dims
        .split_once(['x', 'X'])
        .ok_or_else(|| spec_err(text, SpecProblem::Rule("size must look like WxH, e.g. 7x6")))?;
    let width = parse_u8(text, "width", w)?;
    let height = parse_u8(text, "height", h)?;
    for (what, v, max) in [("width", width, C4_MAX_WIDTH), ("height", height, C4_MAX_HEIGHT)] {
        if !(C4_MIN..=max).contains(&v) {
            let (value, min, max) = (v as usize, C4_MIN as usize, max as usize);
            return Err(spec_err(text, SpecProblem::OutOfRange { what, value, min, max }));
        }
    }
    let mut blocked = Vec::new();
    if let [_, cells] = rest {
        for cell in cells.split(',').filter(|c| !c.is_empty()) {
            let (c, r) = cell.split_once('.').ok_or_else(|| spec_err(text, SpecProblem::CellForm(cell.to_string())))?;
            let c = parse_u8(text, "blocked column", c)?;
            let r = parse_u8(text, "blocked row", r)?;
            if c == 0 || c > width || r == 0 || r > height {
                let (column, row, width, height) = (c as usize, r as usize, width as usize, height as usize);
                return Err(spec_err(text, SpecProblem::CellOffBoard { column, row, width, height }));
            }
            blocked.push((c - 1, r - 1));
        }
        blocked.sort_unstable();
        blocked.dedup();
    }
    Ok(GameSpec::Connect4 { width, height, blocked })
}

/// `gomoku`, `gomoku:N` or `gomoku:MIN-MAX`, from the parts after the family, each
/// optionally followed by its rule (`:freestyle`, the default, or `:standard`).
fn parse_gomoku(text: &str, rest: &[&str]) -> Result<GameSpec, GameError> {
    let (rule, rest) = match rest.split_last() {
        Some((word, sizes)) => match GomokuRule::from_name(&word.to_ascii_lowercase()) {
            Some(rule) => (rule, sizes),
            // A word after the size is a rule dojo does not play (renju, caro).
            None if !sizes.is_empty() && word.chars().all(|c| c.is_ascii_alphabetic()) => {
                return Err(spec_err(text, SpecProblem::Expected("a rule dojo plays: freestyle or standard")));
            }
            None => (GomokuRule::Freestyle, rest),
        },
        None => (GomokuRule::Freestyle, rest),
    };
    let is_range = rest.first().is_some_and(|r| r.contains('-'));
    let sizes = match rest {
        [] => (15, 15),
        [sizes] if is_range => {
            let (min, max) = sizes.split_once('-').unwrap_or_default();
            (parse_u8(text, "smallest size", min)?, parse_u8(text, "largest size", max)?)
        }
        [n] => (parse_u8(text, "size", n)?, parse_u8(text, "size", n)?),
        _ => {
            let forms = "gomoku, gomoku:N or gomoku:MIN-MAX, with :standard for the exactly-five rule";
            return Err(spec_err(text, SpecProblem::Expected(forms)));
        }
    };
    for size in [sizes.0, sizes.1] {
        if !(GOMOKU_MIN..=GOMOKU_MAX).contains(&size) {
            let (value, min, max) = (size as usize, GOMOKU_MIN as usize, GOMOKU_MAX as usize);
            return Err(spec_err(text, SpecProblem::OutOfRange { what: "size", value, min, max }));
        }
    }
    match sizes {
        (size, _) if !is_range => Ok(GameSpec::Gomoku { size, rule }),
        (min, max) if min < max => Ok(GameSpec::GomokuSizes { min, max, rule }),
        (min, max) => Err(spec_err(text, SpecProblem::NotARange { min, max })),
    }
}

impl<'de> serde::Deserialize<'de> for GameSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<GameSpec, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl AnyGame {
    pub fn spec(&self) -> GameSpec {
        with_game!(self, g => g.spec())
    }

    /// The position in a `width × height` frame ([`BoardLayout::in_frame`]); only Connect Four and
    /// Gomoku boards have one.
    pub fn framed(self, width: usize, height: usize) -> Result<AnyGame, GameError> {
        with_game!(&self, g => g.in_frame(width, height).map(AnyGame::from))
    }
}

/// Takes the concrete game back out of an [`AnyGame`] (generic code that starts many games
/// of one spec needs its concrete type). Every such game also goes back in
/// (`From<G> for AnyGame`), for code generic over games that asks what only some have (a
/// one-player game's score).
pub trait FromAnyGame: Sized {
    fn from_any(any: AnyGame) -> Option<Self>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Chance;

    #[test]
    fn specs_round_trip_through_text() {
        for text in [
            "connect4:7x6",
            "connect4:12x12",
            "connect4:9x10:3.1,5.4",
            "connect4:saiblo",
            "gomoku:15",
            "gomoku:7",
            "gomoku:9-15",
            "2048",
            "2584:1-2",
            "2584:1-3",
        ] {
            let spec: GameSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!("connect4".parse::<GameSpec>().unwrap(), GameSpec::connect4());
        assert_eq!("gomoku".parse::<GameSpec>().unwrap(), GameSpec::Gomoku { size: 15, rule: GomokuRule::Freestyle });
    }

    #[test]
    fn a_gomoku_spec_carries_its_rule_into_its_games() {
        let standard = GomokuRule::Standard;
        for (text, spec, printed) in [
            ("gomoku:15:standard", GameSpec::Gomoku { size: 15, rule: standard }, "gomoku:15:standard"),
            ("gomoku:standard", GameSpec::Gomoku { size: 15, rule: standard }, "gomoku:15:standard"),
            ("Gomoku:20:Standard", GameSpec::Gomoku { size: 20, rule: standard }, "gomoku:20:standard"),
            ("gomoku:9-15:standard", GameSpec::GomokuSizes { min: 9, max: 15, rule: standard }, "gomoku:9-15:standard"),
            // Freestyle is the default, so its specs print as they did before rules.
            ("gomoku:15:freestyle", GameSpec::Gomoku { size: 15, rule: GomokuRule::Freestyle }, "gomoku:15"),
        ] {
            let parsed: GameSpec = text.parse().unwrap();
            assert_eq!(parsed, spec, "{text}");
            assert_eq!(parsed.to_string(), printed, "{text}");
            assert_eq!(printed.parse::<GameSpec>().unwrap(), spec, "{printed}");
            let AnyGame::Gomoku(game) = parsed.new_game(&mut Rng::seed_from_u64(5)).unwrap() else {
                panic!("{text} is not Gomoku");
            };
            assert_eq!(Some(game.rule()), spec.gomoku_rule(), "{text}");
            assert!(parsed.admits(&game.spec()), "{text} admits its own game {}", game.spec());
        }
        // A standard range draws standard boards only; a freestyle board is not one of them.
        let range: GameSpec = "gomoku:9-15:standard".parse().unwrap();
        assert!(range.admits(&"gomoku:11:standard".parse().unwrap()));
        assert!(!range.admits(&"gomoku:11".parse().unwrap()));
        assert_ne!("gomoku:15".parse::<GameSpec>().unwrap(), "gomoku:15:standard".parse().unwrap());
        for (text, want) in [
            ("gomoku:15:renju", "expected a rule dojo plays: freestyle or standard"),
            ("gomoku:15:standard:9", "gomoku:N or gomoku:MIN-MAX, with :standard for the exactly-five rule"),
        ] {
            let err = text.parse::<GameSpec>().unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }

    #[test]
    fn only_2048_and_2584_are_one_player_games_by_spec_and_by_position() {
        for text in ["connect4", "connect4:9x7", "connect4:12x12", "connect4:saiblo", "gomoku:15", "2048", "2584:1-3"] {
            let spec: GameSpec = text.parse().unwrap();
            let one_player = matches!(spec, GameSpec::Twenty48 | GameSpec::Fib2584 { .. });
            assert_eq!(spec.is_one_player(), one_player, "{text}");
            let game = spec.new_game(&mut Rng::seed_from_u64(3)).unwrap();
            assert_eq!(with_game!(&game, g => g.is_one_player()), one_player, "{text}");
        }
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let cases = [
            ("connect4:3x6", "width 3 is outside 4..=12"),
            ("connect4:7x13", "height 13 is outside 4..=12"),
            ("connect4:7by6", "size must look like WxH"),
            ("connect4:7x6:8.1", "blocked cell 8.1 is off the 7x6 board"),
            ("gomoku:21", "size 21 is outside 7..=20"),
            ("gomoku:15-9", "sizes 15-9 are not a range from smaller to larger"),
            ("gomoku:9-9", "sizes 9-9 are not a range"),
            ("gomoku:9-21", "size 21 is outside 7..=20"),
            ("gomoku:9-x", "largest size \"x\" is not a number"),
            ("gomoku:x", "size \"x\" is not a number"),
            ("gomoku:9:x", "expected a rule dojo plays"),
            ("chess", "unknown game"),
            ("2584:1-4", "expected 2584"),
        ];
        for (text, want) in cases {
            let err = text.parse::<GameSpec>().unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
    }

    #[test]
    fn spawn_odds_parse_display_and_round_trip() {
        let odds = |text: &str| match text.parse::<GameSpec>().unwrap() {
            GameSpec::Fib2584 { odds } => (odds.big(), odds.small_percent()),
            other => panic!("{text} parsed as {other}"),
        };
        // The plain forms keep their standard odds: 80/20 for 1-2 (the original 2584
        // environment), 75/25 for 1-3 (seed 000's project); a bare 2584 is 1-2.
        assert_eq!(odds("2584"), (2, 80));
        assert_eq!(odds("2584:1-2"), (2, 80));
        assert_eq!(odds("2584:1-3"), (3, 75));
        assert_eq!(odds("2584:1-2:90"), (2, 90));
        assert_eq!(odds("2584:1-3:50"), (3, 50));
        for text in ["2584:1-2:90", "2584:1-2:1", "2584:1-2:99", "2584:1-3:50", "2584:1-3:80"] {
            let spec: GameSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(spec.to_string().parse::<GameSpec>().unwrap(), spec);
        }
        // Naming the standard percent is the plain form.
        assert_eq!("2584:1-2:80".parse::<GameSpec>().unwrap().to_string(), "2584:1-2");
        assert_eq!("2584:1-3:75".parse::<GameSpec>().unwrap().to_string(), "2584:1-3");
        assert_eq!("2584".parse::<GameSpec>().unwrap().to_string(), "2584:1-2");
    }

    #[test]
    fn bad_spawn_odds_say_what_is_wrong() {
        let cases = [
            ("2584:1-2:0", "1-tile's share is a percent in 1..=99, not 0"),
            ("2584:1-3:100", "1-tile's share is a percent in 1..=99, not 100"),
            ("2584:1-2:x", "the 1-tile's percent \"x\" is not a whole number in 1..=99"),
            ("2584:1-2:-5", "is not a whole number in 1..=99"),
            ("2584:1-2:90.5", "is not a whole number in 1..=99"),
            ("2584:1-2:90:1", "or either with the 1-tile's percent, e.g. 2584:1-2:90"),
            ("2584:2-3", "expected 2584, 2584:1-2"),
            ("2584:90", "expected 2584, 2584:1-2"),
        ];
        for (text, want) in cases {
            let err = text.parse::<GameSpec>().unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
            assert!(err.contains(text), "the error names the spec: {err}");
        }
        assert!(crate::sliding::SpawnOdds::new(4, 50).unwrap_err().to_string().contains("2 or 3, not 4"));
    }

    #[test]
    fn a_new_game_is_the_record_start_with_natures_opening_draws_made() {
        // 2048: the record starts on the empty board with both opening tiles pending; a new
        // game draws them from its rng in the order a game made by hand does.
        let Ok(AnyGame::Twenty48(start)) = GameSpec::Twenty48.record_start() else { panic!("a 2048 game") };
        assert_eq!((start.pending_spawns(), start.tile_values()), (2, [[0; 4]; 4]));
        let mut by_hand = Twenty48::new();
        let mut rng = Rng::seed_from_u64(5);
        by_hand.sample_chance(&mut rng);
        by_hand.sample_chance(&mut rng);
        let Ok(AnyGame::Twenty48(drawn)) = GameSpec::Twenty48.new_game(&mut Rng::seed_from_u64(5)) else { panic!() };
        assert_eq!((drawn.pending_spawns(), drawn.tile_values()), (0, by_hand.tile_values()));
        assert_eq!(drawn.tile_values().into_iter().flatten().filter(|&t| t > 0).count(), 2);
        // A board game has no draws: its record starts where its games do.
        let spec: GameSpec = "connect4:9x7:3.1".parse().unwrap();
        assert_eq!(spec.record_start().unwrap().spec(), spec.start().unwrap().spec());
        let err = GameSpec::Connect4Saiblo.record_start().unwrap_err().to_string();
        assert!(err.contains("draws a new board per game"), "{err}");
    }

    #[test]
    fn saiblo_draws_boards_in_range_with_one_blocked_cell() {
        let mut rng = Rng::seed_from_u64(3);
        let mut sizes = std::collections::HashSet::new();
        for _ in 0..200 {
            let g = GameSpec::Connect4Saiblo.new_game(&mut rng).unwrap();
            match g.spec() {
                GameSpec::Connect4 { width, height, blocked } => {
                    assert!((9..=12).contains(&width) && (9..=12).contains(&height));
                    assert_eq!(blocked.len(), 1);
                    sizes.insert((width, height));
                }
                other => panic!("saiblo made {other}"),
            }
        }
        assert_eq!(sizes.len(), 16);
        assert!(GameSpec::Connect4Saiblo.start().is_err());
    }
}
