//! Gating (AlphaGo Zero's evaluator): a candidate network plays the current best one and
//! takes its place when it scores enough.
//!
//! Both sides play the search without noise and pick the most-visited move, so two games
//! from one position would repeat move for move. Every pair of games starts from its own
//! random opening instead, each side moving first once: the score then measures strength
//! over many positions, not one line's luck.
//!
//! One-player games (2048, 2584) have no games between the two: each side plays the same
//! games alone and the higher mean score wins ([`crate::solo_gate`]).
//!
//! The best network is a copy of the winning checkpoint at a fixed path, so it outlives the
//! pruning of old versions and scripts can always find it.

use crate::contest::TwoPlayer;
use crate::matches::{play_match, Decides, GameResult, MatchPlan, MatchResult, Tally};
use crate::players::{BaselinePlayers, PlayerSpec};
use crate::solo_gate::{gate_solo, ScoreComparison};
use crate::sprt::{Pentanomial, SprtConfig, SprtStatus, Verdict};
use dojo_core::game::sliding::{Rules, Rules2048, Rules2584, Sliding};
use dojo_core::game::{AnyGame, FromAnyGame, GameSpec};
use dojo_core::net::checkpoint::{self, Sidecar};
use dojo_core::rng::Rng;
use dojo_core::search::config::{SearchMode, PLAY_C_PUCT};
use dojo_core::util::{atomic_write, sha256_hex};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// How a gating match is played.
#[derive(Clone, Debug, PartialEq)]
pub struct GateSettings {
    /// Games, in pairs from one opening (even); with `sprt`, at most. One-player games:
    /// games each side plays.
    pub games: u32,
    /// Stop as soon as this test decides (its `max_games` is `games`); None: play them all.
    /// One-player games play them all regardless (the test is about game results).
    pub sprt: Option<SprtConfig>,
    /// Playouts per move for both sides.
    pub simulations: u32,
    /// Random moves opening each pair of games (none in one-player games: their random
    /// tiles open them).
    pub opening_plies: u32,
    /// Both sides average the network over the board's symmetries.
    pub average_symmetries: bool,
    /// Both sides' search: the run's own (`search.mode`), so a Gumbel run's versions are
    /// judged as they play. One-player games always play the chance-node search.
    pub mode: SearchMode,
    /// Both sides' threat-space search: the run's own (`search.vcf_nodes`, 0 = off).
    pub vcf_nodes: u32,
    /// Threads playing games at once (one libtorch thread each).
    pub threads: usize,
}

impl GateSettings {
    /// How many games a gate plays, for progress lines: "40 games", or "SPRT [0, 50], up
    /// to 200 games".
    pub fn describe(&self) -> String {
        match &self.sprt {
            None => format!("{} games", self.games),
            Some(c) => format!("SPRT [{}, {}], up to {} games", c.elo0, c.elo1, self.games),
        }
    }

    /// [`GateSettings::describe`] for a gate of `game`: a one-player game's gate plays its
    /// games on each side, the SPRT set aside ("40 games each on the same seeds").
    pub fn describe_for(&self, game: &GameSpec) -> String {
        match (game.is_one_player(), &self.sprt) {
            (false, _) => self.describe(),
            (true, None) => format!("{} games each on the same seeds", self.games),
            (true, Some(_)) => {
                format!("{} games each on the same seeds (fixed: the SPRT does not apply to scores)", self.games)
            }
        }
    }
}

/// A gating match's games, and the SPRT's state at its end where it ran under one.
#[derive(Clone, Debug)]
pub struct GateResult {
    /// One-player games: the pairs of games as a tally (see [`ScoreComparison::tally`]).
    pub result: MatchResult,
    pub sprt: Option<SprtStatus>,
    /// One-player games: the mean scores compared.
    pub solo: Option<ScoreComparison>,
}

impl GateResult {
    /// Whether the candidate takes the best's place: the SPRT passed it, or (without one)
    /// it scored at least `promote_score`; in a one-player game, its mean score is higher.
    pub fn promotes(&self, promote_score: f64) -> bool {
        match (&self.solo, &self.sprt) {
            (Some(scores), _) => scores.promotes(),
            (None, Some(status)) => status.passed(),
            (None, None) => self.result.score >= promote_score,
        }
    }
}

/// The game pairs of a match's results (in order, whole pairs), by A's score in each.
pub fn pentanomial(results: &[GameResult]) -> Pentanomial {
    let mut counts = Pentanomial::default();
    let score = |r: &GameResult| (f64::from(r.result) + 1.0) / 2.0;
    for pair in results.chunks_exact(2) {
        counts.add_pair(score(&pair[0]), score(&pair[1]));
    }
    counts
}

/// Plays `candidate` (A) against `best` (B), both checkpoints of one game. Reproducible
/// from `seed` (the games an SPRT stops at too); `cancel` stops it between games (an error).
pub fn gate_match(
    candidate: &Path,
    best: &Path,
    settings: &GateSettings,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> Result<GateResult, String> {
    // The test's game limit is the match's.
    let settings = &GateSettings {
        sprt: settings.sprt.map(|c| SprtConfig { max_games: settings.games, ..c }),
        ..settings.clone()
    };
    if let Some(sprt) = &settings.sprt {
        sprt.validate()?;
    }
    let a = checkpoint::read_sidecar(candidate).map_err(|e| e.to_string())?;
    let b = checkpoint::read_sidecar(best).map_err(|e| e.to_string())?;
    let game = a.architecture.game.clone();
    if b.architecture.game != game {
        return Err(format!(
            "{} is a network for {game} but {} is one for {}",
            candidate.display(),
            best.display(),
            b.architecture.game
        ));
    }
    let probe = game.probe().map_err(|e| e.to_string())?;
    match probe {
        AnyGame::Twenty48(_) => gate_one_player::<Rules2048>(&game, candidate, best, settings, seed, cancel),
        AnyGame::Fib2584(_) => gate_one_player::<Rules2584>(&game, candidate, best, settings, seed, cancel),
        probe => dojo_core::with_game!(probe, g => gate_typed(g, &game, candidate, best, settings, seed, cancel)),
    }
}

/// The network player of a gate (both sides play alike).
fn gate_player(path: &Path, settings: &GateSettings) -> PlayerSpec {
    PlayerSpec::Net {
        path: path.to_path_buf(),
        sims: settings.simulations,
        c_puct: PLAY_C_PUCT,
        average_symmetries: settings.average_symmetries,
        mode: settings.mode,
        vcf_nodes: settings.vcf_nodes,
    }
}

/// A one-player game's gate: mean scores on the same seeds, and their pairs as the match.
fn gate_one_player<R: Rules>(
    game: &GameSpec,
    candidate: &Path,
    best: &Path,
    settings: &GateSettings,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> Result<GateResult, String>
where
    Sliding<R>: BaselinePlayers,
{
    let (a, b) = (gate_player(candidate, settings), gate_player(best, settings));
    let scores = gate_solo::<R>(game, &a, &b, settings, seed, cancel)?;
    let tally = scores.tally();
    let (low, high) = tally.interval();
    let result = MatchResult {
        game: game.to_string(),
        a: a.to_string(),
        b: b.to_string(),
        score: tally.score(),
        interval: [low, high],
        elo: tally.elo(),
        tally,
        // No one moves first in a one-player game.
        a_first: Tally::default(),
        b_first: Tally::default(),
    };
    Ok(GateResult { result, sprt: None, solo: Some(scores) })
}

fn gate_typed<G: BaselinePlayers + FromAnyGame>(
    _probe: G,
    game: &GameSpec,
    candidate: &Path,
    best: &Path,
    settings: &GateSettings,
    seed: u64,
    cancel: Option<&AtomicBool>,
) -> Result<GateResult, String> {
    let (a, b) = (gate_player(candidate, settings), gate_player(best, settings));
    let start = |rng: &mut Rng| {
        let any = game.new_game(rng).expect("the probe game started");
        G::from_any(any).expect("every game of a spec has the probe's type")
    };
    let sprt = settings.sprt;
    let decided = |results: &[GameResult]| {
        sprt.as_ref().is_some_and(|c| c.status(&pentanomial(results)).verdict != Verdict::Continue)
    };
    let enough: &Decides<'_> = &decided;
    let plan = MatchPlan {
        games: settings.games,
        threads: settings.threads,
        seed,
        cancel,
        enough: sprt.is_some().then_some(enough),
        opening_plies: settings.opening_plies as usize,
        openings: None,
    };
    let played = std::sync::Mutex::new(Vec::new());
    let (make_a, make_b) = (|s| G::baseline(&a, s), |s| G::baseline(&b, s));
    let result = play_match(TwoPlayer, plan, &[&make_a, &make_b], start, &|r: &GameResult| {
        played.lock().unwrap().push(r.clone())
    })?;
    let mut results = played.into_inner().unwrap();
    results.sort_by_key(|r| r.index);
    results.truncate(result.tally.games as usize);
    let sprt = sprt.map(|c| c.status(&pentanomial(&results)));
    Ok(GateResult { result, sprt, solo: None })
}

/// The best network of a run: a checkpoint at a fixed path (`DIR/best.safetensors` and
/// `DIR/best.json`), where `DIR` also holds the versions it is copied from.
pub struct BestStore {
    path: PathBuf,
}

impl BestStore {
    pub fn new(path: impl Into<PathBuf>) -> BestStore {
        BestStore { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The best network's sidecar, or `None` before the first promotion. A copy cut short
    /// (new weights under the old sidecar: the weights are written first) is repaired from
    /// the version whose sidecar matches the weights; a best that cannot be repaired is
    /// removed, so the next gate starts afresh, and the versions themselves are untouched.
    pub fn current(&self) -> Result<Option<Sidecar>, String> {
        let (weights_path, sidecar_path) = checkpoint::paths(&self.path);
        if !weights_path.exists() && !sidecar_path.exists() {
            return Ok(None);
        }
        let err = match checkpoint::read_verified(&self.path) {
            Ok((sidecar, _)) => return Ok(Some(sidecar)),
            Err(e) => e,
        };
        if let Some(sidecar) = self.matching_version()? {
            let json = serde_json::to_vec_pretty(&sidecar).expect("sidecar serialises");
            atomic_write(&sidecar_path, &json).map_err(|e| format!("cannot repair {}: {e}", sidecar_path.display()))?;
            tracing::warn!("{err}; repaired from version {}", sidecar.version);
            return Ok(Some(sidecar));
        }
        tracing::warn!("{err}; no version matches its weights, so the best is gated afresh");
        for path in [&sidecar_path, &weights_path] {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("cannot remove {}: {e}", path.display())),
            }
        }
        Ok(None)
    }

    /// The sidecar, among the other checkpoints beside the best, of the weights the best
    /// holds now.
    fn matching_version(&self) -> Result<Option<Sidecar>, String> {
        let (weights_path, sidecar_path) = checkpoint::paths(&self.path);
        let Ok(weights) = std::fs::read(&weights_path) else { return Ok(None) };
        let sha = sha256_hex(&weights);
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path == sidecar_path || path.extension().and_then(|e| e.to_str()) != Some("json") {
                continue;
            }
            if let Ok(sidecar) = checkpoint::read_sidecar(&path) {
                if sidecar.sha256 == sha {
                    return Ok(Some(sidecar));
                }
            }
        }
        Ok(None)
    }

    /// Makes the checkpoint at `candidate` the best (checked, then copied atomically).
    pub fn promote(&self, candidate: &Path) -> Result<Sidecar, String> {
        checkpoint::copy(candidate, &self.path).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_sides_of_a_gate_search_as_the_run_does() {
        let settings = GateSettings {
            games: 2,
            sprt: None,
            simulations: 32,
            opening_plies: 4,
            average_symmetries: false,
            mode: SearchMode::Gumbel,
            vcf_nodes: 0,
            threads: 1,
        };
        let player = gate_player(Path::new("v2.safetensors"), &settings);
        assert_eq!(player.to_string(), "net:v2.safetensors:sims=32:noavg:mode=gumbel");
        let puct = GateSettings { mode: SearchMode::Puct, average_symmetries: true, ..settings };
        assert_eq!(gate_player(Path::new("v2.safetensors"), &puct).to_string(), "net:v2.safetensors:sims=32");
        // The run's threat-space search too.
        let vcf = GateSettings { vcf_nodes: 500, ..puct };
        assert_eq!(gate_player(Path::new("v2.safetensors"), &vcf).to_string(), "net:v2.safetensors:sims=32:vcf=500");
    }
}
