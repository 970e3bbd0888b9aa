//! `saiblo:PATH.so`: a saiblo.net Connect Four strategy, hosted by
//! [`dojo_external::saiblo`].

use super::error::{PlayerError, PlayerSpecProblem};
use super::kind::{own_players, Baseline, PlayerForm, PlayerKind};
use dojo_base::bits::Bits192;
use dojo_external::saiblo::{StrategyAgent, StrategyConfig, DEFAULT_CLOCK_MS};
use dojo_game::connect4::Connect4;
use dojo_game::{AnyGame, FromAnyGame, Game, GameSpec};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// A saiblo.net Connect Four strategy (seed 001), a shared object built from the
/// platform's C++ interface: `saiblo:PATH.so` (the rest of the spec is the path). It plays
/// boards with one blocked cell, in a fresh process each game, and loses a game where it
/// crashes, hangs past `clock_ms`, or answers an illegal or unreadable point.
#[derive(Clone, Debug, PartialEq)]
pub struct SaibloSpec {
    pub path: PathBuf,
    pub clock_ms: u64,
}

impl SaibloSpec {
    fn config(&self) -> StrategyConfig {
        StrategyConfig::new(&self.path, Duration::from_millis(self.clock_ms))
    }

    fn agent<G: Game>(&self) -> Baseline<G>
    where
        StrategyAgent: dojo_search::player::Agent<G>,
    {
        Ok(Box::new(StrategyAgent::new(self.config(), self.to_string())))
    }
}

impl PlayerKind for SaibloSpec {
    const WORD: &'static str = "saiblo";
    const FORMS: &'static [PlayerForm] = &[PlayerForm {
        syntax: "saiblo:PATH.so",
        about: "a saiblo.net Connect Four strategy (a shared object), on boards with one blocked cell",
        example: "saiblo:Strategy.so",
    }];

    /// The path is taken whole (it may hold ':').
    fn parse(rest: Option<&str>) -> Result<SaibloSpec, PlayerSpecProblem> {
        match rest.map(str::trim).filter(|path| !path.is_empty()) {
            Some(path) => Ok(SaibloSpec { path: path.into(), clock_ms: DEFAULT_CLOCK_MS }),
            None => {
                Err(PlayerSpecProblem::Form("saiblo:PATH needs the strategy's shared object, e.g. saiblo:Strategy.so"))
            }
        }
    }

    fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, _seed: u64) -> Baseline<G> {
        own_players::<G, Connect4<u64>>(|| self.agent())
            .or_else(|| own_players::<G, Connect4<Bits192>>(|| self.agent()))
            .unwrap_or(Err(PlayerError::SaibloGame { game: None }))
    }

    /// Connect Four on a board with its one blocked cell (connect4:saiblo's boards have
    /// it), and a strategy that loads.
    fn check_game(&self, game: &GameSpec) -> Result<(), PlayerError> {
        if game.family() != "connect4" {
            return Err(PlayerError::SaibloGame { game: Some(game.clone()) });
        }
        if matches!(game, GameSpec::Connect4 { blocked, .. } if blocked.len() != 1) {
            return Err(PlayerError::SaibloBoard { game: game.clone() });
        }
        StrategyAgent::check(&self.config()).map_err(|error| PlayerError::Strategy { spec: self.to_string(), error })
    }

    fn with_move_timeout(self, ms: u64) -> SaibloSpec {
        SaibloSpec { clock_ms: ms, ..self }
    }
}

impl fmt::Display for SaibloSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "saiblo:{}", self.path.display())
    }
}
