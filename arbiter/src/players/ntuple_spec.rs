//! `ntuple:WEIGHTS[:depth=D]`: an n-tuple network for 2048 or 2584 (`dojo ntuple train`),
//! greedy or with an expectimax search, its weights loaded once however many players use
//! them ([`shared_network`]).

use super::error::{PlayerError, PlayerSpecProblem};
use super::kind::{own_players, Baseline, PlayerForm, PlayerKind};
use dojo_game::sliding::{Fib2584, Sliding, Twenty48};
use dojo_game::{AnyGame, FromAnyGame, Game, GameSpec};
use dojo_ntuple::{self as ntuple, Network, NtupleAgent, TupleRules};
use std::any::Any;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::SystemTime;

/// The deepest n-tuple search a spec may ask for. Each level multiplies the work by about
/// 4 × 2 × the empty cells: on 2048, one core plays about 500 000 moves/s greedy, 15 000 at
/// depth 2 and 900 at depth 3, so depths past 4 are for a few positions, not for games.
pub const MAX_NTUPLE_DEPTH: u32 = 6;

/// An n-tuple network for 2048 or 2584: `ntuple:PATH`, greedy by after-state value, or
/// `ntuple:PATH:depth=D` for an expectimax search `D` player moves deep (1 = greedy, 2 =
/// seed 000's search).
#[derive(Clone, Debug, PartialEq)]
pub struct NtupleSpec {
    pub path: PathBuf,
    pub depth: u32,
}

impl NtupleSpec {
    fn agent<R: TupleRules>(&self) -> Baseline<Sliding<R>>
    where
        Sliding<R>: Game,
    {
        Ok(Box::new(NtupleAgent::new(shared_network::<R>(&self.path)?, self.depth, self.to_string())))
    }
}

impl PlayerKind for NtupleSpec {
    const WORD: &'static str = "ntuple";
    const FORMS: &'static [PlayerForm] = &[
        PlayerForm {
            syntax: "ntuple:WEIGHTS",
            about: "2048 and 2584: an n-tuple network (`dojo ntuple train`), greedy",
            example: "ntuple:w.bin",
        },
        PlayerForm {
            syntax: "ntuple:WEIGHTS:depth=D",
            about: "2048 and 2584: the n-tuple network with expectimax D player moves deep",
            example: "ntuple:w.bin:depth=2",
        },
    ];

    /// The path may itself hold ':'; only a trailing `depth=D` is an option.
    fn parse(rest: Option<&str>) -> Result<NtupleSpec, PlayerSpecProblem> {
        let needs_weights = PlayerSpecProblem::Form("ntuple:WEIGHTS needs the weight file, e.g. ntuple:w.bin");
        let parts: Vec<&str> = rest.ok_or(needs_weights.clone())?.split(':').collect();
        let (path, depth) = match parts.split_last() {
            Some((last, before)) if !before.is_empty() && last.starts_with("depth=") => {
                let d = last["depth=".len()..]
                    .parse::<u32>()
                    .map_err(|_| PlayerSpecProblem::Form("depth=D needs a whole number of moves, e.g. depth=2"))?;
                (before, d)
            }
            _ => (parts.as_slice(), 1),
        };
        if !(1..=MAX_NTUPLE_DEPTH).contains(&depth) {
            return Err(PlayerSpecProblem::NtupleDepth { max: MAX_NTUPLE_DEPTH });
        }
        if path.join(":").is_empty() {
            return Err(needs_weights);
        }
        Ok(NtupleSpec { path: PathBuf::from(path.join(":")), depth })
    }

    fn build<G: Game + FromAnyGame + Into<AnyGame>>(&self, _seed: u64) -> Baseline<G> {
        own_players::<G, Twenty48>(|| self.agent())
            .or_else(|| own_players::<G, Fib2584>(|| self.agent()))
            .unwrap_or(Err(PlayerError::NtupleGame))
    }

    fn check_game(&self, game: &GameSpec) -> Result<(), PlayerError> {
        let header = ntuple::read_header(&self.path)?;
        if header.spec.family() == game.family() {
            Ok(())
        } else {
            Err(PlayerError::NtupleWeights { path: self.path.clone(), weights: header.spec, game: game.clone() })
        }
    }

    fn own_game(&self) -> Result<Option<GameSpec>, PlayerError> {
        Ok(Some(ntuple::read_header(&self.path)?.spec))
    }
}

impl fmt::Display for NtupleSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ntuple:{}", self.path.display())?;
        if self.depth != 1 {
            write!(f, ":depth={}", self.depth)?;
        }
        Ok(())
    }
}

/// Networks loaded and still in use, by file (with its size and time, so a rewritten file
/// is loaded afresh): a match builds one player per thread, and a 2584 network is 700 MiB.
type NetworkCache = Vec<(PathBuf, u64, Option<SystemTime>, Weak<dyn Any + Send + Sync>)>;
static NETWORKS: Mutex<NetworkCache> = Mutex::new(Vec::new());

/// The network in `path`, shared with every other player using it now.
pub fn shared_network<R: TupleRules>(path: &Path) -> Result<Arc<Network<R>>, PlayerError> {
    let meta = std::fs::metadata(path).map_err(|error| PlayerError::NtupleFile { path: path.to_path_buf(), error })?;
    let key = (path.to_path_buf(), meta.len(), meta.modified().ok());
    // Held while loading, so threads asking at once load the file once.
    let mut cache = NETWORKS.lock().unwrap_or_else(|p| p.into_inner());
    cache.retain(|(.., w)| w.strong_count() > 0);
    for (p, len, time, weak) in cache.iter() {
        if (p, *len, *time) == (&key.0, key.1, key.2) {
            if let Some(net) = weak.upgrade().and_then(|a| a.downcast::<Network<R>>().ok()) {
                return Ok(net);
            }
        }
    }
    let net = Arc::new(ntuple::weight_file::load::<R>(path, false)?);
    let erased: Arc<dyn Any + Send + Sync> = net.clone();
    cache.push((key.0, key.1, key.2, Arc::downgrade(&erased)));
    Ok(net)
}
