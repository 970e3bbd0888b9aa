//! Connect Four bitboards. (stub with the agreed API; being written)
#![allow(unused)]
use super::*;
use crate::rng::Rng;
use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

/// A fixed-width bit set with the operations the bitboard needs.
pub trait BitWord:
    Copy
    + Eq
    + Default
    + fmt::Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    const BITS: u32;
    fn zero() -> Self;
    fn bit(i: u32) -> Self;
    fn is_zero(self) -> bool;
    fn count_ones(self) -> u32;
    fn trailing_zeros(self) -> u32;
    fn wrapping_add(self, other: Self) -> Self;
}

/// 192 bits, for boards wider/taller than a u64 holds (up to 12 × 12 with sentinels).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bits192(pub [u64; 3]);

#[derive(Clone, Debug)]
pub struct Connect4<B = u64> {
    _b: B,
}

impl<B: Default> Connect4<B> {
    pub fn new(width: usize, height: usize, blocked: &[(usize, usize)]) -> Result<Self, GameError> {
        todo!()
    }
}

impl<B: Clone + fmt::Debug + Send + Sync + 'static> Game for Connect4<B> {
    fn spec(&self) -> GameSpec {
        todo!()
    }
    fn num_actions(&self) -> usize {
        todo!()
    }
    fn to_move(&self) -> ToMove {
        todo!()
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        todo!()
    }
    fn is_legal(&self, action: Action) -> bool {
        todo!()
    }
    fn play_unchecked(&mut self, action: Action) -> u32 {
        todo!()
    }
    fn outcome(&self) -> Option<Outcome> {
        todo!()
    }
    fn hash(&self) -> u64 {
        todo!()
    }
    fn ply(&self) -> usize {
        todo!()
    }
    fn last_action(&self) -> Option<Action> {
        todo!()
    }
    fn plane_shape(&self) -> PlaneShape {
        todo!()
    }
    fn encode_planes(&self, out: &mut [f32]) {
        todo!()
    }
    fn action_to_text(&self, action: Action) -> String {
        todo!()
    }
    fn action_from_text(&self, text: &str) -> Result<Action, GameError> {
        todo!()
    }
    fn render(&self) -> String {
        todo!()
    }
}
