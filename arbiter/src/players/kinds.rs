//! The one registry of player kinds. A kind is the word its specs open with (`mcts`,
//! `net`), its forms as the help lists them, and a spec type that parses, prints, checks
//! a game and builds its player ([`PlayerKind`]); `player_kinds!` below lists every kind
//! once, and from that list come [`PlayerSpec`], the parser, the printer, the help
//! ([`super::forms`]), the game checks and the builders. A new kind of player is its file
//! (its spec type and `PlayerKind`) and one line in that list, as a new game is one line in
//! `dojo_game`'s `games!`.

use super::error::{PlayerError, PlayerSpecError, PlayerSpecProblem};
use super::forms::PlayerForm;
use super::mcts_spec::{MctsSpec, UctSpec};
use super::net_spec::NetSpec;
use super::ntuple_spec::NtupleSpec;
use super::pbrain_spec::PbrainSpec;
use super::random_spec::RandomSpec;
use super::saiblo_spec::SaibloSpec;
use super::solver_spec::SolverSpec;
use dojo_game::{AnyGame, FromAnyGame, Game, GameSpec};
use dojo_search::player::Agent;
use std::any::{Any, TypeId};
use std::fmt;
use std::str::FromStr;

/// A player of the game `G`, or why it cannot be built.
pub type Baseline<G> = Result<Box<dyn Agent<G>>, PlayerError>;

/// One kind of player: everything about it but its line in `player_kinds!`.
pub trait PlayerKind: Sized + fmt::Display {
    /// The word its specs open with: `WORD` or `WORD:...`.
    const WORD: &'static str;
    /// How its specs are written, a form a row, in the order the help lists them.
    const FORMS: &'static [PlayerForm];
    /// A spec from what follows `WORD:` (None: the bare word), or why it is none. The rest
    /// is given whole, so a kind whose spec ends in a command or a path takes it as it is.
    fn parse(rest: Option<&str>) -> Result<Self, PlayerSpecProblem>;
    /// Its player on the game `G`; a game it does not play is an error naming the kind.
    fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, seed: u64) -> Baseline<G>;
    /// Whether it can play `game`, checked before a long run starts (a file it reads is
    /// read, a program it starts is started). Every game by default.
    fn check_game(&self, _game: &GameSpec) -> Result<(), PlayerError> {
        Ok(())
    }
    /// The game its own file is for (a checkpoint's, n-tuple weights'); None without one.
    fn own_game(&self) -> Result<Option<GameSpec>, PlayerError> {
        Ok(None)
    }
    /// Whether it answers a position with the same move every time.
    fn is_deterministic(&self) -> bool {
        false
    }
    /// The spec with an outside program's time a move set to `ms` (dojo's own players have
    /// no such clock and stay as they are).
    fn with_move_timeout(self, _ms: u64) -> Self {
        self
    }
}

/// A kind as a row of the registry: its word, its forms and its parser.
pub struct KindRow {
    pub word: &'static str,
    pub forms: &'static [PlayerForm],
    parse: fn(Option<&str>) -> Result<PlayerSpec, PlayerSpecProblem>,
}

/// Every kind of player, one line each: the variant of [`PlayerSpec`] and its spec type.
/// The order is the help's.
macro_rules! player_kinds {
    ($($variant:ident($spec:ty)),* $(,)?) => {
        /// What a player is, as typed on the command line (`random`, `mcts:1000`,
        /// `net:best.safetensors:sims=400`): one variant a kind, holding that kind's spec.
        #[derive(Clone, Debug, PartialEq)]
        pub enum PlayerSpec {
            $($variant($spec),)*
        }

        $(impl From<$spec> for PlayerSpec {
            fn from(spec: $spec) -> PlayerSpec {
                PlayerSpec::$variant(spec)
            }
        })*

        /// Every kind of player, in the order the help lists them.
        pub const PLAYER_KINDS: &[KindRow] = &[$(KindRow {
            word: <$spec as PlayerKind>::WORD,
            forms: <$spec as PlayerKind>::FORMS,
            parse: |rest| <$spec as PlayerKind>::parse(rest).map(PlayerSpec::$variant),
        },)*];

        impl PlayerSpec {
            /// The word its kind's specs open with.
            pub fn word(&self) -> &'static str {
                match self {
                    $(PlayerSpec::$variant(_) => <$spec as PlayerKind>::WORD,)*
                }
            }

            /// Its player on the game `G`.
            pub(super) fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, seed: u64) -> Baseline<G> {
                match self {
                    $(PlayerSpec::$variant(spec) => spec.build::<G>(seed),)*
                }
            }

            /// Checks the player can play `game` before a long run starts (e.g. the solver
            /// on Gomoku, a network of another game, a brain that does not start).
            pub fn check_game(&self, game: &GameSpec) -> Result<(), PlayerError> {
                match self {
                    $(PlayerSpec::$variant(spec) => spec.check_game(game),)*
                }
            }

            /// The game the player's own file is for (a network checkpoint's, n-tuple
            /// weights'), or None for a player without one; a file that cannot be read is
            /// an error naming it.
            pub fn own_game(&self) -> Result<Option<GameSpec>, PlayerError> {
                match self {
                    $(PlayerSpec::$variant(spec) => spec.own_game(),)*
                }
            }

            /// Whether the player answers a position with the same move every time: a
            /// network's search plays without noise, so two networks from one position
            /// play one game.
            pub fn is_deterministic(&self) -> bool {
                match self {
                    $(PlayerSpec::$variant(spec) => spec.is_deterministic(),)*
                }
            }

            /// The spec with an outside player's time per move set, where `ms` is given
            /// (each kind has its own default; dojo's own players have no clock).
            pub fn with_move_timeout(self, ms: Option<u64>) -> PlayerSpec {
                let Some(ms) = ms else { return self };
                match self {
                    $(PlayerSpec::$variant(spec) => PlayerSpec::$variant(spec.with_move_timeout(ms)),)*
                }
            }
        }

        impl fmt::Display for PlayerSpec {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(PlayerSpec::$variant(spec) => fmt::Display::fmt(spec, f),)*
                }
            }
        }
    };
}

player_kinds! {
    Random(RandomSpec),
    Mcts(MctsSpec),
    Uct(UctSpec),
    Solver(SolverSpec),
    Net(NetSpec),
    Pbrain(PbrainSpec),
    Saiblo(SaibloSpec),
    Ntuple(NtupleSpec),
}

impl FromStr for PlayerSpec {
    type Err = PlayerSpecError;
    /// The kind named by the word before the first `:`, which parses the rest.
    fn from_str(s: &str) -> Result<PlayerSpec, PlayerSpecError> {
        let text = s.trim();
        let (word, rest) = match text.split_once(':') {
            Some((word, rest)) => (word, Some(rest)),
            None => (text, None),
        };
        let kind = PLAYER_KINDS.iter().find(|kind| kind.word == word);
        let parsed = kind.map_or(Err(PlayerSpecProblem::Unknown), |kind| (kind.parse)(rest));
        parsed.map_err(|why| PlayerSpecError { spec: s.to_string(), why })
    }
}

/// The player `build` makes for the game `H`, when the game `G` is `H`; None for any other
/// game. A kind's builder, generic over every game, reaches one game's own players through
/// this (Connect Four's rollouts and solver, a Gomocup brain), so the games need no trait
/// of the arbiter's (the type check makes the downcast sure).
pub(super) fn own_players<G: Game, H: Game>(build: impl FnOnce() -> Baseline<H>) -> Option<Baseline<G>> {
    if TypeId::of::<G>() != TypeId::of::<H>() {
        return None;
    }
    let agent = match build() {
        Ok(agent) => agent,
        Err(error) => return Some(Err(error)),
    };
    let erased: Box<dyn Any> = Box::new(agent);
    Some(Ok(*erased.downcast::<Box<dyn Agent<G>>>().expect("G and H are the same type")))
}
