//! The Gomocup (Piskvork) protocol, both ways: the manager writes one command a line on the
//! brain's stdin, the brain answers on stdout. Coordinates are `x,y`, 0-based.
//!
//! - [`manager`]: any brain as a player in dojo's matches and tournaments (`pbrain:COMMAND`).
//!
//! The other way, dojo's networks as brains for any manager (`dojo pbrain`), is
//! `dojo_program::brain`: a network is wired to a stream there, not judged.

pub mod manager;
