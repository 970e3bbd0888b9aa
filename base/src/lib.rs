//! What every layer shares and no layer owns: the project's random number generator
//! ([`rng`]), fixed-width bit sets for bitboards ([`bits`]), and small helpers ([`util`]:
//! atomic file writes, content hashes, the clock, the process's memory peak, the error of a
//! setting that cannot be used). Nothing here knows a game, a network or a run: it sits below
//! them all, so the game rules above it stay rules.

pub mod bits;
pub mod rng;
pub mod util;
