//! 2048 and 2584 (Fibonacci). (stub with the agreed API; being written)
#![allow(unused)]
use super::*;
use crate::rng::Rng;

/// 2584 spawn odds: 1 or 2 at 90/10, or 1 or 3 at 75/25.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpawnOdds {
    OneTwo,
    OneThree,
}

#[derive(Clone, Debug)]
pub struct Twenty48 {}

impl Twenty48 {
    pub fn new() -> Self {
        todo!()
    }
}

impl Game for Twenty48 {
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

#[derive(Clone, Debug)]
pub struct Fib2584 {}

impl Fib2584 {
    pub fn new(odds: SpawnOdds) -> Self {
        todo!()
    }
}

impl Game for Fib2584 {
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
