//! Learning by self-play, as seed 002: play a whole episode greedily by `r + V(s')`, then
//! walk it backward updating every after-state toward the reward of the next move plus the
//! next after-state's (already updated) value; the last after-state's target is 0.

use super::network::Network;
use super::search::greedy;
use super::TupleRules;
use dojo_base::rng::Rng;
use dojo_game::sliding::Sliding;
use dojo_game::Chance;
use dojo_game::Game;
use dojo_game::GameScore;

/// How the weights move toward their targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// TD(0) with one learning rate for every weight (seed 002).
    Td,
    /// Temporal coherence learning: each weight's rate scaled by `|E| / A` (seed 000).
    Tcl,
}

/// One move of an episode: the after-state it led to, its reward, and the after-state's
/// value when the move was chosen.
#[derive(Clone, Copy, Debug)]
pub struct Step<B> {
    pub after: B,
    pub reward: u32,
    pub value: f32,
}

/// One finished training episode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Episode {
    pub score: u64,
    pub max_tile: u32,
    pub moves: u32,
}

impl Episode {
    pub fn game_score(&self) -> GameScore {
        GameScore { score: self.score, max_tile: self.max_tile }
    }
}

/// The backward pass over an episode's after-states (seed 002's `update_episode`): from the
/// last, `error = target - value`, where `value` is the after-state's value when it was
/// chosen and `target` is the next move's reward plus the next after-state's value just
/// after its own update (0 for the last: nothing follows the end). `alpha` is the learning
/// rate before it is spread over the features.
pub fn learn_episode<R: TupleRules>(net: &mut Network<R>, path: &[Step<R::Bits>], method: Method, alpha: f32) {
    let mut target = 0.0f32;
    for step in path.iter().rev() {
        let error = target - step.value;
        let updated = match method {
            Method::Td => net.update_td(step.after, alpha * error),
            Method::Tcl => net.update_tcl(step.after, alpha, error),
        };
        target = step.reward as f32 + updated;
    }
}

/// Plays and learns from training episodes. Keeps its episode buffer between episodes, so
/// a move allocates nothing.
pub struct Trainer<R: TupleRules> {
    method: Method,
    alpha: f32,
    rng: Rng,
    path: Vec<Step<R::Bits>>,
}

impl<R: TupleRules> Trainer<R> {
    pub fn new(method: Method, alpha: f32, rng: Rng) -> Trainer<R> {
        Trainer { method, alpha, rng, path: Vec::with_capacity(1 << 14) }
    }

    /// Plays one game of `net`'s rules greedily by `r + V(s')`, learns from it, and counts
    /// it in `net`'s episodes.
    pub fn episode(&mut self, net: &mut Network<R>) -> Episode {
        self.path.clear();
        let mut game = Sliding::new_game(net.rules(), &mut self.rng);
        while let Some(choice) = greedy(net, game.board()) {
            self.path.push(Step { after: choice.after, reward: choice.reward, value: choice.value });
            game.play_unchecked(choice.dir);
            game.sample_chance(&mut self.rng);
        }
        learn_episode(net, &self.path, self.method, self.alpha);
        net.set_episodes(net.episodes() + 1);
        Episode { score: game.score(), max_tile: game.max_tile(), moves: self.path.len() as u32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Layout;
    use dojo_game::sliding::Rules2048;
    use rand::SeedableRng;

    fn uniform(t: u64) -> u64 {
        (0..16).fold(0, |b, i| b | t << (4 * i))
    }

    #[test]
    fn the_backward_pass_bootstraps_from_the_updated_next_value() {
        let mut net = Network::new(Rules2048, Layout::seed002()).unwrap();
        let (a, b) = (uniform(1), uniform(2));
        // Two moves: into A with reward 4, then into B with reward 8; the game then ends.
        let path = [Step { after: a, reward: 4, value: 0.0 }, Step { after: b, reward: 8, value: 0.0 }];
        learn_episode(&mut net, &path, Method::Td, 0.1);
        // B: target 0, error 0, no change. A: target 8 + V(B) = 8, error 8: V(A) = 6.4 (a
        // uniform board reads one weight a tuple 8 times; see network's tests).
        assert_eq!(net.value(b), 0.0);
        assert!((net.value(a) - 6.4).abs() < 1e-5, "{}", net.value(a));
        // A second pass with the values as they are now: B's error is 0 - 0 again, A's is
        // 8 - 6.4 = 1.6. An update by δ = 0.1 × 1.6 moves a uniform board's value by 8δ
        // (32 features add δ/32 each to 4 weights read 8 times each): V(A) = 6.4 + 1.28.
        let path = [Step { after: a, reward: 4, value: net.value(a) }, Step { after: b, reward: 8, value: 0.0 }];
        learn_episode(&mut net, &path, Method::Td, 0.1);
        assert!((net.value(a) - 7.68).abs() < 1e-4, "{}", net.value(a));
    }

    #[test]
    fn training_raises_scores_above_untrained_play() {
        // 300 episodes of TD already beat the untrained (zero, so first-legal-move) network
        // by a wide margin: a learning sign that does not depend on timing.
        let mut net = Network::new(Rules2048, Layout::seed002()).unwrap();
        let mut trainer = Trainer::new(Method::Td, 0.1, Rng::seed_from_u64(9));
        let first: u64 = (0..100).map(|_| trainer.episode(&mut net).score).sum();
        for _ in 0..200 {
            trainer.episode(&mut net);
        }
        let last: u64 = (0..100).map(|_| trainer.episode(&mut net).score).sum();
        assert_eq!(net.episodes(), 400);
        assert!(last > first * 3 / 2, "mean score {} then {}", first / 100, last / 100);
    }
}
