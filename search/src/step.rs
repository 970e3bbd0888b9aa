//! A search driven one leaf at a time: [`LeafSearch::run`] until a position needs the
//! network, [`LeafSearch::leaf`] to see it, [`LeafSearch::deliver`] its output. Self-play
//! batches many searches' leaves that way; a lone search (a match's player, analysis, tests)
//! uses the one loop here, whichever algorithm it runs.

use super::evaluator::Evaluator;
use dojo_game::Game;

/// What the caller must do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Evaluate [`LeafSearch::leaf`] and call [`LeafSearch::deliver`].
    NeedsEval,
    /// The playout budget is spent (or the root is proven): pick a move.
    Done,
}

/// A search that stops at each position needing the network.
pub trait LeafSearch<G: Game> {
    /// Runs playouts until one needs the network or `budget` playouts are done.
    fn run(&mut self, budget: u32) -> Step;

    /// The position waiting for the network.
    fn leaf(&self) -> &G;

    /// The network's logits (over all actions) and value for [`LeafSearch::leaf`].
    fn deliver(&mut self, logits: &[f32], value: f32);

    /// A whole search of `budget` playouts, `evaluate` giving each leaf's logits (written
    /// into its slice) and value, one leaf at a time, asking `go_on(evaluations so far)`
    /// after each whether to keep going (a clock): stopping early leaves a search of fewer
    /// playouts.
    fn search_by(
        &mut self,
        budget: u32,
        mut evaluate: impl FnMut(&G, &mut [f32]) -> f32,
        mut go_on: impl FnMut(u32) -> bool,
    ) {
        let mut logits = Vec::new();
        let mut evaluations = 0;
        while self.run(budget) == Step::NeedsEval {
            let leaf = self.leaf();
            logits.resize(leaf.num_actions(), 0.0);
            let value = evaluate(leaf, &mut logits);
            self.deliver(&logits, value);
            evaluations += 1;
            if !go_on(evaluations) {
                return;
            }
        }
    }

    /// [`LeafSearch::search_by`] with `evaluator`, stopping early as `go_on` says.
    fn search_while(&mut self, evaluator: &mut dyn Evaluator, budget: u32, go_on: impl FnMut(u32) -> bool) {
        let (mut planes, mut value) = (Vec::new(), [0.0f32]);
        let evaluate = |leaf: &G, logits: &mut [f32]| {
            planes.resize(leaf.plane_shape().len(), 0.0);
            leaf.encode_planes(&mut planes);
            evaluator.evaluate(&planes, 1, logits, &mut value);
            value[0]
        };
        self.search_by(budget, evaluate, go_on);
    }

    /// A whole search of `budget` playouts with `evaluator`.
    fn search_with(&mut self, evaluator: &mut dyn Evaluator, budget: u32) {
        self.search_while(evaluator, budget, |_| true);
    }
}

/// The side of the protocol the tree searches (the graph search, `puct`, and the chance
/// search) share, written once: playouts from the root until one stops at a leaf for the
/// network, which stays pending until [`LeafSearch::deliver`] expands it. A tree search
/// supplies the four steps below and becomes a [`LeafSearch`] by [`leaf_search_by_playouts!`].
pub(crate) trait Playouts<G: Game> {
    /// The leaf the last playout stopped at (its node and position), until delivered.
    fn pending(&self) -> &Option<(u32, G)>;

    /// Whether the search of `budget` playouts is complete (or its root is decided); in
    /// Gumbel mode, sequential halving plans for this budget from here on.
    fn finished(&mut self, budget: u32) -> bool;

    /// One playout; true if it stopped at a leaf that needs the network.
    fn playout(&mut self) -> bool;

    /// Expands the pending leaf with the network's logits (over all actions) and value.
    fn expand_pending(&mut self, logits: &[f32], value: f32);

    /// [`LeafSearch::run`]: playouts until one needs the network or the search is complete.
    fn run_playouts(&mut self, budget: u32) -> Step {
        assert!(self.pending().is_none(), "deliver the pending evaluation first");
        loop {
            if self.finished(budget) {
                return Step::Done;
            }
            if self.playout() {
                return Step::NeedsEval;
            }
        }
    }

    /// [`LeafSearch::leaf`]: the position waiting for the network.
    fn pending_leaf(&self) -> &G {
        &self.pending().as_ref().expect("no leaf is pending").1
    }
}

/// `impl LeafSearch for $search` through its [`Playouts`]: written once here, since a
/// blanket impl over every `Playouts` would collide with the `Searcher`'s own.
macro_rules! leaf_search_by_playouts {
    ($search:ident) => {
        impl<G: Game> $crate::step::LeafSearch<G> for $search<G> {
            fn run(&mut self, budget: u32) -> $crate::step::Step {
                $crate::step::Playouts::run_playouts(self, budget)
            }

            fn leaf(&self) -> &G {
                $crate::step::Playouts::pending_leaf(self)
            }

            fn deliver(&mut self, logits: &[f32], value: f32) {
                $crate::step::Playouts::expand_pending(self, logits, value)
            }
        }
    };
}
pub(crate) use leaf_search_by_playouts;
