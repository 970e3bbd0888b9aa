//! Gomoku. (stub with the agreed API; being written)
#![allow(unused)]
use super::*;
use crate::rng::Rng;

#[derive(Clone, Debug)]
pub struct Gomoku {}

impl Gomoku {
    pub fn new(size: usize) -> Result<Self, GameError> {
        todo!()
    }
}

impl Game for Gomoku {
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
