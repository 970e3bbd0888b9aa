//! The Gomocup (Piskvork) protocol, both ways: the manager writes one command a line on the
//! brain's stdin, the brain answers on stdout. Coordinates are `x,y`, 0-based.
//!
//! - [`brain`]: dojo's networks as brains (`dojo pbrain`), for any manager.
//! - [`manager`]: any brain as a player in dojo's matches and tournaments (`pbrain:COMMAND`).

pub mod brain;
pub mod manager;

pub use brain::{Brain, Info, MoveChooser, Reply};
