//! N-tuple network agents for 2048 and 2584 (seeds 002 and 000): a value function over
//! after-states learned by TD(0) or temporal coherence learning, played greedily or with an
//! expectimax search on top.
//!
//! - [`layout`]: which cells each tuple reads (seed 002's four 6-tuples) and their positions
//!   under the board's 8 isomorphisms, precomputed.
//! - [`network`]: the weight tables, the value of a board and the two update rules.
//! - [`learn`]: self-play episodes and the backward TD(0) / TCL pass over them.
//! - [`search`]: greedy and expectimax move choice.
//! - [`weight_file`]: the weight file (header, tables, checksum).
//! - [`agent`]: the network as an [`Agent`](dojo_search::player::Agent) for matches.
//! - score statistics and seed 002's reach-rate table, for any player of a sliding game,
//!   are `dojo_record::score`'s.
//! - [`training`]: a training session (resume from a weight file, report and save in
//!   blocks, stop cleanly), as `dojo ntuple train` runs it.
//!
//! Everything is generic over the sliding engine's [`Rules`]: one code path serves 2048
//! (4-bit cells in a `u64`) and 2584 (5-bit cells in a `u128`).

pub mod agent;
pub mod layout;
pub mod learn;
pub mod network;
pub mod search;
pub mod training;
pub mod weight_file;

pub use agent::NtupleAgent;
pub use layout::Layout;
pub use learn::{Method, Trainer};
pub use network::Network;
pub use search::{best_move, greedy, Choice};
pub use weight_file::{read_header, Header, NtupleError};

use dojo_game::sliding::{Rules, Rules2048, Rules2584};
use dojo_game::GameSpec;

/// The sliding games an n-tuple network can learn: the rules plus the size of a table entry's
/// alphabet.
pub trait TupleRules: Rules {
    /// Tile indices a table tells apart: a tile index `t` reads slot `min(t, RADIX - 1)`, so
    /// a tuple of `n` cells has `RADIX^n` weights.
    ///
    /// 2048: 16, every 4-bit tile index (up to 32768) has its own slot, as in seed 002.
    /// 2584: 19, seed 000's `MAX_INDEX`: indices 0..=17 (empty up to 2584) have their own
    /// slot and 4181 and above share the last one. 5-bit cells would need 32^6 weights a
    /// tuple (4 GiB); 19^6 is 47 million (180 MiB), and tiles past 4181 are rare enough that
    /// seed 000 traded them for memory.
    const RADIX: usize;

    /// These rules, if `spec` names this game.
    fn from_spec(spec: &GameSpec) -> Option<Self>;
}

impl TupleRules for Rules2048 {
    const RADIX: usize = 16;

    fn from_spec(spec: &GameSpec) -> Option<Self> {
        matches!(spec, GameSpec::Twenty48).then_some(Rules2048)
    }
}

impl TupleRules for Rules2584 {
    const RADIX: usize = 19;

    fn from_spec(spec: &GameSpec) -> Option<Self> {
        match spec {
            GameSpec::Fib2584 { odds } => Some(Rules2584 { odds: *odds }),
            _ => None,
        }
    }
}
