//! Programs dojo did not build, as players: each speaks its own protocol over a child
//! process, and this crate is where a new protocol goes.
//!
//! - [`gomocup`]: the Gomocup (Piskvork) protocol's manager side, any brain as a player
//!   (`pbrain:COMMAND`).
//! - [`saiblo`]: saiblo.net's Connect Four strategies (`saiblo:PATH.so`): the SDK's view of
//!   a position, the host process that loads a strategy (`dojo saiblo-host`), the player.
//! - [`child`]: the process under both, spoken to a line at a time (deadlines, crashes with
//!   their stderr, kills).
//! - [`forfeit`]: how a game against such a program is lost without a move (time, crash,
//!   an illegal move), which the matches above count.
//!
//! Each is a [`dojo_search::player::Agent`], so the arbiter's matches and tournaments play
//! them as they play dojo's own players; building one from a player spec is the arbiter's.

pub mod child;
pub mod forfeit;
pub mod gomocup;
pub mod saiblo;
