//! `net:CKPT[:OPTION...]`: a network checkpoint with dojo's search, on the game it was
//! trained for, and the one place a network player is built ([`NetSpec::agent`]).

use super::clock::{clock_name, required_clock};
use super::error::{PlayerError, PlayerSpecProblem};
use super::kind::{Baseline, PlayerForm, PlayerKind};
use dojo_base::rng::Rng;
use dojo_game::{AnyGame, FromAnyGame, Game, GameSpec};
use dojo_net::agent::NetAgent;
use dojo_net::checkpoint;
use dojo_net::device::{set_threads, Device};
use dojo_search::config::SearchConfig;
use rand::SeedableRng;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// A network's playouts a move when its spec names none.
pub const DEFAULT_NET_SIMS: u32 = dojo_search::config::PLAY_SIMULATIONS;

/// A `net:` spec's options besides its search settings: averaging and the clock.
pub(super) const NET_OPTIONS: [&str; 3] = ["avg", "noavg", "clock"];

/// The order a `net:` spec prints the settings that differ from its default: these first,
/// then `:noavg`, then these, then every other by the table's order. It is the order specs
/// have always been printed in, and tournament and gating journals name players by that
/// text. (What a setting is called, short or not, is its row's: [`SearchConfig::KEYS`].)
pub(super) const PRINTED_BEFORE_NOAVG: [&str; 2] = ["simulations", "c_puct"];
pub(super) const PRINTED_AFTER_NOAVG: [&str; 2] = ["mode", "vcf_nodes"];

/// A network checkpoint with the PUCT search: `net:PATH`, then the options `:sims=N`,
/// `:cpuct=X`, `:noavg`, `:mode=gumbel` (Gumbel AlphaZero's search, without noise:
/// sequential halving over `sims` simulations) and `:vcf=N` (threat-space search of N
/// nodes at every expanded position, `search.vcf_nodes`; 0, the default, is off), e.g.
/// `net:PATH:sims=400:cpuct=1.5`; and any other search setting by its name in the
/// config's `[search]` section, `:KEY=VALUE` ([`SearchConfig::KEYS`], e.g.
/// `:fpu_reduction=0.1`). The search starts from [`SearchConfig::for_play`] with
/// [`DEFAULT_NET_SIMS`] playouts. `:clock=1s` (or `:clock=250ms`) searches each move for
/// that long instead, as many playouts as fit (`clock_ms`): a match by the clock.
///
/// By default every evaluation is averaged over the board's symmetries (KataGo's
/// symmetry averaging, at k times the network cost: 2 for Connect Four, 8 for Gomoku):
/// one network's judgement of a position and of its mirror image differ, and their
/// mean plays stronger at the same playouts (Connect Four, 30-minute networks, 200
/// playouts against `mcts:1000`: 84.8% → 88.7% of 600 games, and 88.5% → 92.2% with
/// `cpuct=1.0`). `:noavg` evaluates the board as it stands. By the clock the default
/// is the other way round ([`net_averages_by_default`]): `:clock=1s` alone evaluates
/// the board as it stands, `:clock=1s:avg` averages.
#[derive(Clone, Debug, PartialEq)]
pub struct NetSpec {
    pub path: PathBuf,
    pub average_symmetries: bool,
    pub search: SearchConfig,
    pub clock_ms: Option<u64>,
}

impl NetSpec {
    /// A network player with the default options and `sims` playouts.
    pub fn new(path: impl Into<PathBuf>, sims: u32) -> NetSpec {
        NetSpec { path: path.into(), average_symmetries: true, search: SearchConfig::for_play(sims), clock_ms: None }
    }

    /// Its player on `device`: the one place a network player is built. With `game` (its
    /// spec and a position), the checkpoint is checked against it: an any-size network plays
    /// every board of its game (in a frame grown for a board larger than it trained on:
    /// [`NetAgent::any_size`]), any other network only its own board.
    pub fn agent<G: Game + FromAnyGame>(
        &self,
        seed: u64,
        device: Device,
        game: Option<(&GameSpec, &G)>,
    ) -> Result<NetAgent<G>, PlayerError> {
        // (An unreadable sidecar is reported by the load below.)
        let any_size = checkpoint::read_sidecar(&self.path).is_ok_and(|s| s.architecture.any_size);
        let expect = game.map(|g| g.0).filter(|_| !any_size);
        let loaded = checkpoint::load(&self.path, device, expect)?;
        let rng = Rng::seed_from_u64(seed);
        let name = self.to_string();
        let agent =
            NetAgent::from_checkpoint(&self.path, loaded, self.search.clone(), self.average_symmetries, name, rng)?;
        let mut agent = agent.with_clock(self.clock_ms.map(Duration::from_millis));
        if let Some((_, position)) = game {
            agent.check_board(position)?;
        }
        Ok(agent)
    }
}

/// Whether a `net` player averages its evaluations over the board's symmetries when its
/// spec does not say: when it searches a number of playouts, where averaging plays
/// stronger at the same playouts; not by the clock, where the k evaluations a playout cost
/// k times fewer playouts (on 15×15 Gomoku 5.3 times: 1,988 evaluations a second at a
/// batch of one, 2,990 at a batch of eight, 374 averaged playouts; the shipped network at
/// 1 s a move without averaging scored 62.5% of 48 games against itself with it, and 5 of
/// 16 against Rapfi at 1 s where averaging won 3; docs/gomoku-ladder.md).
pub fn net_averages_by_default(clock_ms: Option<u64>) -> bool {
    clock_ms.is_none()
}

impl PlayerKind for NetSpec {
    const WORD: &'static str = "net";
    const FORMS: &'static [PlayerForm] = &[
        PlayerForm {
            syntax: "net:CKPT",
            about: "a network checkpoint with dojo's search, 200 playouts a move, averaged over the board's symmetries",
            example: "net:best.safetensors",
        },
        PlayerForm { syntax: "net:CKPT:sims=N", about: "N playouts a move", example: "net:best.safetensors:sims=800" },
        PlayerForm {
            syntax: "net:CKPT:cpuct=X",
            about: "PUCT's exploration constant",
            example: "net:best.safetensors:cpuct=1.5",
        },
        PlayerForm {
            syntax: "net:CKPT:mode=gumbel",
            about: "Gumbel AlphaZero's sequential halving instead of PUCT",
            example: "net:best.safetensors:sims=32:mode=gumbel",
        },
        PlayerForm {
            syntax: "net:CKPT:vcf=N",
            about: "threat-space search (Gomoku's VCF) of N nodes at every expanded position",
            example: "net:best.safetensors:vcf=1000",
        },
        PlayerForm {
            syntax: "net:CKPT:rollouts=N",
            about: "N rollouts mixed into each expanded position's value (Connect Four)",
            example: "net:best.safetensors:rollouts=4",
        },
        PlayerForm {
            syntax: "net:CKPT:noavg, net:CKPT:avg",
            about: "evaluate the board as it stands; average over its symmetries (the default but by the clock)",
            example: "net:best.safetensors:noavg",
        },
        PlayerForm {
            syntax: "net:CKPT:clock=1s",
            about: "search each move for this long instead (the board as it stands unless :avg)",
            example: "net:best.safetensors:clock=1s",
        },
        PlayerForm {
            syntax: "net:CKPT:KEY=VALUE",
            about: "any [search] setting by its name (`dojo config` lists them), e.g. :fpu_reduction=0.1",
            example: "net:best.safetensors:fpu_reduction=0.1",
        },
    ];

    /// `net:PATH[:OPTION...]`: the path may itself hold ':'; only trailing options are
    /// options.
    fn parse(rest: Option<&str>) -> Result<NetSpec, PlayerSpecProblem> {
        let needs_path = PlayerSpecProblem::Form("net:CKPT needs the network's checkpoint, e.g. net:best.safetensors");
        let Some(rest) = rest.filter(|r| !r.trim().is_empty()) else { return Err(needs_path) };
        let parts: Vec<&str> = rest.split(':').collect();
        let mut path = parts.as_slice();
        let mut search = SearchConfig::for_play(DEFAULT_NET_SIMS);
        let mut averaging = None;
        let mut clock_ms = None;
        while let Some((last, before)) = path.split_last() {
            if before.is_empty() {
                break;
            } else if *last == NET_OPTIONS[0] || *last == NET_OPTIONS[1] {
                averaging = Some(*last == NET_OPTIONS[0]);
            } else if let Some(value) = last.strip_prefix(NET_OPTIONS[2]).and_then(|v| v.strip_prefix('=')) {
                clock_ms = Some(required_clock(value, "clock=", "a net: player")?);
            } else if let Some((key, value)) = last.split_once('=') {
                // A name no setting has is part of the path, as it always was.
                let Ok(setting) = SearchConfig::key(key) else { break };
                setting.set(&mut search, value).map_err(PlayerSpecProblem::Search)?;
            } else {
                break;
            }
            path = before;
        }
        // Refused in the table's words, as `--set search.KEY=VALUE` is.
        search.validate().map_err(PlayerSpecProblem::Search)?;
        let average_symmetries = averaging.unwrap_or_else(|| net_averages_by_default(clock_ms));
        Ok(NetSpec { path: PathBuf::from(path.join(":")), average_symmetries, search, clock_ms })
    }

    fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, seed: u64) -> Baseline<G> {
        // Matches run players on several threads: one libtorch thread each.
        set_threads(1);
        Ok(Box::new(self.agent::<G>(seed, Device::Cpu, None)?))
    }

    fn check_game(&self, game: &GameSpec) -> Result<(), PlayerError> {
        let side = checkpoint::read_sidecar(&self.path)?;
        let arch = side.architecture;
        // An any-size network plays every board of its game ([`NetAgent::any_size`]);
        // another network only its own (not the boards a random spec draws), by either
        // Gomoku rule.
        let same_board = arch.game.with_default_rule() == game.with_default_rule();
        if same_board || (arch.any_size && arch.game.family() == game.family()) {
            Ok(())
        } else {
            Err(PlayerError::NetworkGame { path: self.path.clone(), network: arch.game, game: game.clone() })
        }
    }

    fn own_game(&self) -> Result<Option<GameSpec>, PlayerError> {
        Ok(Some(checkpoint::read_sidecar(&self.path)?.architecture.game))
    }

    /// A network's search plays without noise.
    fn is_deterministic(&self) -> bool {
        true
    }
}

impl fmt::Display for NetSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "net:{}", self.path.display())?;
        // Settings that differ from a spec's default, by the names specs use, in the
        // order specs have always been printed (tournaments and gating journals name
        // players by this text).
        let base = SearchConfig::for_play(DEFAULT_NET_SIMS);
        let option = |name: &str| {
            let key = SearchConfig::key(name).expect("a setting of the table");
            let value = key.value(&self.search);
            (value != key.value(&base)).then(|| format!(":{}={value}", key.spec_name()))
        };
        let listed = |name: &&str| PRINTED_BEFORE_NOAVG.contains(name) || PRINTED_AFTER_NOAVG.contains(name);
        let others = SearchConfig::KEYS.iter().map(|k| k.name).filter(|name| !listed(name));
        let mut options: String = PRINTED_BEFORE_NOAVG.into_iter().filter_map(option).collect();
        if self.average_symmetries != net_averages_by_default(self.clock_ms) {
            options.push_str(if self.average_symmetries { ":avg" } else { ":noavg" });
        }
        options.extend(PRINTED_AFTER_NOAVG.into_iter().chain(others).filter_map(option));
        write!(f, "{options}")?;
        if let Some(ms) = self.clock_ms {
            write!(f, ":clock={}", clock_name(ms))?;
        }
        Ok(())
    }
}
