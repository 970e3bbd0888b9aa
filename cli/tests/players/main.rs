//! The commands that play, one test binary (each binary links libtorch, so these share one):
//! `dojo match` and `dojo bestmove` (`match_players`), saiblo strategies as players
//! (`saiblo_players`) and their ladder (`saiblo_ladder`), gating (`gating`), tournaments of
//! two players (`tournament`) and of one (`solo_tournament`), the Gomoku ladder
//! (`gomoku_ladder`), `dojo pbrain` (`pbrain`), `dojo play` (`play`), `dojo positions` and
//! `dojo eval` (`analyse`), `dojo bench` (`bench`), n-tuple players (`ntuple`) and the
//! shipped networks (`shipped_networks`).

#[path = "../common/mod.rs"]
mod common;

mod analyse;
mod bench;
mod gating;
mod gomoku_ladder;
mod match_players;
mod ntuple;
mod pbrain;
mod play;
mod saiblo_ladder;
mod saiblo_players;
mod shipped_networks;
mod solo_tournament;
mod tournament;
