//! Where a run's games start: its one board, or, for a spec that draws a board per game
//! (`connect4:saiblo`, `gomoku:9-15`), each game's own, framed for the run's any-size network
//! (`dojo_arch::architecture::Architecture::any_size`) so that every position has the shape the
//! network's batches take.

use super::{record_start, GameRecord, InvalidRecord, RecordError};
use dojo_base::rng::Rng;
use dojo_game::{AnyGame, FromAnyGame, Game, GameError, GameSpec, SpecProblem};

/// The position that gives a run's games their type: the record start of a fixed board
/// ([`record_start`]: for 2048 and 2584 the empty board, its opening tiles still to draw),
/// or any board of a random spec (each game then has its own).
pub fn typing_start(spec: &GameSpec) -> Result<AnyGame, RecordError> {
    match spec.is_random() {
        true => spec.probe().map_err(RecordError::BadSpec),
        false => record_start(spec),
    }
}

#[derive(Clone, Debug)]
pub struct Boards<G> {
    spec: GameSpec,
    /// The start of a fixed board (framed already); None for a random spec.
    fixed: Option<G>,
    /// The network's frame, where it has one.
    frame: Option<(usize, usize)>,
}

impl<G: Game + FromAnyGame> Boards<G> {
    /// The boards of `spec` for a network with `frame` (None: the board's own size).
    /// `start` is its record start ([`super::record_start`]) for a fixed board; for a
    /// random spec any of its boards (it gives the type).
    pub fn new(spec: &GameSpec, start: G, frame: Option<(usize, usize)>) -> Result<Boards<G>, GameError> {
        let fixed = match (spec.is_random(), frame) {
            (true, _) => None,
            (false, Some((w, h))) => Some(start.in_frame(w, h)?),
            (false, None) => Some(start),
        };
        if spec.is_random() {
            let fits = match (frame, spec.largest_board()) {
                (Some((w, h)), Some((max_w, max_h))) => w >= max_w && h >= max_h,
                _ => false,
            };
            if !fits {
                return Err(GameError::Spec {
                    spec: spec.to_string(),
                    reason: SpecProblem::Rule(
                        "boards of several sizes need an any-size network whose frame holds the largest",
                    )
                    .into(),
                });
            }
        }
        Ok(Boards { spec: spec.clone(), fixed, frame })
    }

    /// The position `record` replays from, framed as the network takes it; an error for a
    /// board that is not one of the run's.
    pub fn of_record(&self, record: &GameRecord) -> Result<G, RecordError> {
        if let Some(start) = &self.fixed {
            return Ok(start.clone());
        }
        let other = || InvalidRecord::NotABoardOf { board: record.spec.clone(), spec: self.spec.clone() };
        if !self.spec.admits(&record.spec) {
            return Err(other().into());
        }
        let start = G::from_any(record.start()?).ok_or_else(other)?;
        self.framed(start).map_err(RecordError::BadSpec)
    }

    /// A new game's start: the board, or a board drawn from `rng`.
    pub fn draw(&self, rng: &mut Rng) -> G {
        if let Some(start) = &self.fixed {
            return start.clone();
        }
        let any = self.spec.new_game(rng).expect("a random spec draws valid boards");
        let start = G::from_any(any).expect("every board of a random spec has one type");
        self.framed(start).expect("the frame holds every board of the spec (checked with the network)")
    }

    fn framed(&self, g: G) -> Result<G, GameError> {
        match self.frame {
            Some((w, h)) => g.in_frame(w, h),
            None => Ok(g),
        }
    }
}
