//! The one registry of player kinds. A kind ([`PlayerKind`], `kind.rs`) is the word its
//! specs open with (`mcts`, `net`), its forms as the help lists them, and a spec type that
//! parses, prints, checks a game and builds its player; `player_kinds!` below lists every
//! kind once, and from that list come [`PlayerSpec`], the parser, the printer, the help
//! and the parser's "expected ..." error (so a form the parser learns cannot be missing
//! from either: the tests hold every option word the parser knows to a row), the game
//! checks and the builders. A new kind of player is its file (its spec type and
//! `PlayerKind`) and one line in that list, as a new game is one line in `dojo_game`'s
//! `games!`.

use super::error::{PlayerError, PlayerSpecError, PlayerSpecProblem};
use super::kind::{Baseline, PlayerForm, PlayerKind};
use super::mcts_spec::{MctsSpec, UctSpec};
use super::net_spec::NetSpec;
use super::ntuple_spec::NtupleSpec;
use super::pbrain_spec::PbrainSpec;
use super::random_spec::RandomSpec;
use super::saiblo_spec::SaibloSpec;
use super::solver_spec::SolverSpec;
use dojo_game::{AnyGame, FromAnyGame, Game, GameSpec};
use std::fmt;
use std::str::FromStr;

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
        let parsed =
            kind.map_or_else(|| Err(PlayerSpecProblem::Unknown { expected: syntaxes() }), |kind| (kind.parse)(rest));
        parsed.map_err(|why| PlayerSpecError { spec: s.to_string(), why })
    }
}

/// Every form a player spec takes, kind by kind in the registry's order: what the help
/// lists.
pub fn player_forms() -> impl Iterator<Item = &'static PlayerForm> {
    PLAYER_KINDS.iter().flat_map(|kind| kind.forms)
}

/// Every form's syntax, comma-separated: what a spec that is none of them is told.
pub fn syntaxes() -> String {
    player_forms().map(|f| f.syntax).collect::<Vec<_>>().join(", ")
}

/// The forms as the players' help lists them, one a line: `  SYNTAX  what it is`.
/// Options of one kind combine (`net:CKPT:sims=400:vcf=1000:noavg`); NAME=SPEC names a
/// player in a tournament.
pub fn help() -> String {
    let width = player_forms().map(|f| f.syntax.len()).max().unwrap_or(0);
    let mut text = String::new();
    for form in player_forms() {
        text.push_str(&format!("  {:width$}  {}\n", form.syntax, form.about));
    }
    text.push_str("Options of one kind combine, e.g. net:CKPT:sims=400:vcf=1000:noavg.");
    text
}
