//! `pbrain:COMMAND`: an outside Gomoku brain over the Gomocup protocol
//! ([`dojo_external::gomocup`]), with its caps and clocks.

use super::clock::{clock_name, required_clock};
use super::error::{PlayerError, PlayerSpecProblem};
use super::kind::{own_players, Baseline, PlayerForm, PlayerKind};
use dojo_external::gomocup::manager::{BrainLimits, EngineAgent, EngineConfig};
use dojo_game::gomoku::Gomoku;
use dojo_game::{AnyGame, FromAnyGame, Game, GameSpec};
use std::fmt;
use std::time::Duration;

/// A brain's time per move unless told otherwise (`--move-timeout`).
pub const DEFAULT_MOVE_TIMEOUT_MS: u64 = 5_000;

/// The options a `pbrain:` spec takes before its command, `KEY=VALUE:` each.
pub(super) const PBRAIN_OPTIONS: [&str; 4] = ["nodes", "depth", "clock", "match"];

/// An external Gomoku brain over the Gomocup protocol: `pbrain:COMMAND` (the rest of the
/// spec is a shell command, e.g. `pbrain:dojo pbrain --model best.safetensors`), losing a
/// game where it crashes, overruns `move_timeout_ms` or answers nonsense.
/// `pbrain:nodes=N:COMMAND` and `pbrain:depth=D:COMMAND` (or both) cap its search by the
/// protocol (`INFO MAX_NODE`, `INFO MAX_DEPTH`: Rapfi's ladder rungs);
/// `pbrain:clock=1s:COMMAND` gives it its own time a move (`clock_ms`, told as `INFO
/// timeout_turn`), which a match's `--move-timeout-ms` does not change;
/// `pbrain:match=120s:COMMAND` its time for a whole game (`match_ms`, Gomocup's `INFO
/// timeout_match`, with `INFO time_left` before every move), as Gomocup's fast games
/// `pbrain:clock=5s:match=120s:COMMAND`.
#[derive(Clone, Debug, PartialEq)]
pub struct PbrainSpec {
    pub command: String,
    pub move_timeout_ms: u64,
    pub limits: BrainLimits,
    pub clock_ms: Option<u64>,
    pub match_ms: Option<u64>,
}

impl PbrainSpec {
    /// How its brain is run: its own clock a move where it has one, else the match's.
    fn engine_config(&self) -> EngineConfig {
        EngineConfig {
            command: self.command.clone(),
            move_timeout: Duration::from_millis(self.clock_ms.unwrap_or(self.move_timeout_ms)),
            limits: self.limits,
            match_timeout: self.match_ms.map(Duration::from_millis),
        }
    }
}

impl PlayerKind for PbrainSpec {
    const WORD: &'static str = "pbrain";
    const FORMS: &'static [PlayerForm] = &[
        PlayerForm {
            syntax: "pbrain:COMMAND",
            about: "an external Gomocup brain that COMMAND starts (quote it), e.g. \"pbrain:dojo pbrain --model CKPT\"",
            example: "pbrain:dojo pbrain --model best.safetensors",
        },
        PlayerForm {
            syntax: "pbrain:nodes=N:COMMAND",
            about: "the brain capped at N search nodes a move (INFO MAX_NODE)",
            example: "pbrain:nodes=1000:engine",
        },
        PlayerForm {
            syntax: "pbrain:depth=D:COMMAND",
            about: "the brain capped at search depth D (INFO MAX_DEPTH)",
            example: "pbrain:depth=4:engine",
        },
        PlayerForm {
            syntax: "pbrain:clock=1s:COMMAND",
            about: "the brain's own time a move (INFO timeout_turn)",
            example: "pbrain:clock=1s:engine",
        },
        PlayerForm {
            syntax: "pbrain:match=120s:COMMAND",
            about: "the brain's time for a whole game (INFO timeout_match, time_left before each move), e.g. pbrain:clock=5s:match=120s:engine",
            example: "pbrain:clock=5s:match=120s:engine",
        },
    ];

    /// `pbrain:[nodes=N:][depth=D:][clock=T:][match=T:]COMMAND`. Only those four keys are
    /// options, so a command is never mistaken for one; the command is taken whole (it
    /// may hold ':' and spaces).
    fn parse(rest: Option<&str>) -> Result<PbrainSpec, PlayerSpecProblem> {
        let mut rest = rest.unwrap_or_default();
        let mut limits = BrainLimits::default();
        let (mut clock_ms, mut match_ms) = (None, None);
        loop {
            let trimmed = rest.trim_start();
            let Some((key, after)) =
                PBRAIN_OPTIONS.iter().find_map(|k| Some((*k, trimmed.strip_prefix(k)?.strip_prefix('=')?)))
            else {
                break;
            };
            let (value, command) = after.split_once(':').unwrap_or((after, ""));
            rest = command;
            if key == "clock" || key == "match" {
                let (prefix, slot) =
                    if key == "clock" { ("pbrain:clock=", &mut clock_ms) } else { ("pbrain:match=", &mut match_ms) };
                *slot = Some(required_clock(value, prefix, "pbrain")?);
                continue;
            }
            let cap = || PlayerSpecProblem::BrainCap { key, value: value.to_string() };
            if key == "nodes" {
                limits.max_nodes = Some(value.parse().ok().filter(|&n| n > 0).ok_or_else(cap)?);
            } else {
                limits.max_depth = Some(value.parse().ok().filter(|&d| d > 0).ok_or_else(cap)?);
            }
        }
        let command = rest.trim();
        if command.is_empty() {
            return Err(PlayerSpecProblem::Form("pbrain:COMMAND needs the command that starts the brain"));
        }
        Ok(PbrainSpec { command: command.into(), move_timeout_ms: DEFAULT_MOVE_TIMEOUT_MS, limits, clock_ms, match_ms })
    }

    fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, _seed: u64) -> Baseline<G> {
        let brain = || -> Baseline<Gomoku> { Ok(Box::new(EngineAgent::new(self.engine_config(), self.to_string()))) };
        own_players::<G, Gomoku>(brain).unwrap_or(Err(PlayerError::PbrainGame { game: None }))
    }

    /// The brain starts, takes `game`'s largest board (a random spec, gomoku:9-15, starts
    /// it on each) and plays its rule.
    fn check_game(&self, game: &GameSpec) -> Result<(), PlayerError> {
        let (Some(rule), Some((size, _))) = (game.gomoku_rule(), game.largest_board()) else {
            return Err(PlayerError::PbrainGame { game: Some(game.clone()) });
        };
        let mut brain = EngineAgent::new(self.engine_config(), self.to_string());
        let error = |error| PlayerError::Engine { spec: self.to_string(), error };
        brain.about(&Gomoku::with_rule(size, rule)?).map(|_| ()).map_err(error)
    }

    fn with_move_timeout(self, ms: u64) -> PbrainSpec {
        PbrainSpec { move_timeout_ms: ms, ..self }
    }
}

impl fmt::Display for PbrainSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pbrain:")?;
        if let Some(nodes) = self.limits.max_nodes {
            write!(f, "nodes={nodes}:")?;
        }
        if let Some(depth) = self.limits.max_depth {
            write!(f, "depth={depth}:")?;
        }
        if let Some(ms) = self.clock_ms {
            write!(f, "clock={}:", clock_name(ms))?;
        }
        if let Some(ms) = self.match_ms {
            write!(f, "match={}:", clock_name(ms))?;
        }
        write!(f, "{}", self.command)
    }
}
