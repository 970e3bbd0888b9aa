//! What the network-guided search asks of a network: a batch of positions in, policy logits
//! and values out. The search layer defines it so it never depends on tch; `net` implements
//! it with a real network, tests and benchmarks use [`UniformEvaluator`].

use dojo_game::{Action, Game};

/// Evaluates batches of positions.
pub trait Evaluator: Send {
    /// `planes` holds `batch` positions' input planes back to back (each
    /// `Game::plane_shape().len()` floats). Writes `batch × num_actions` policy logits (any
    /// scale; illegal actions are masked by the caller) and `batch` values in [-1, 1] from the
    /// side to move's point of view.
    fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]);

    /// A name for logs and player descriptions.
    fn describe(&self) -> String;
}

/// Every move equally likely, every position even: the "free" evaluator for search tests
/// and search-speed benchmarks.
#[derive(Clone, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&mut self, _planes: &[f32], _batch: usize, policy: &mut [f32], value: &mut [f32]) {
        policy.fill(0.0);
        value.fill(0.0);
    }

    fn describe(&self) -> String {
        "uniform".into()
    }
}

impl<E: Evaluator + ?Sized> Evaluator for Box<E> {
    fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
        (**self).evaluate(planes, batch, policy, value)
    }

    fn describe(&self) -> String {
        (**self).describe()
    }
}

/// Evaluates every position under each of the board's symmetries and averages the results
/// (policy logits mapped back to the position's own moves, values as they are): a network's
/// errors under one orientation are partly cancelled by the others. Costs `k` evaluations per
/// position, batched together.
pub struct SymmetryAveraged<G: Game, E: Evaluator> {
    inner: E,
    /// Any position of the game: the symmetry maps depend only on the board's shape.
    shape_of: G,
    symmetries: usize,
    planes: Vec<f32>,
    policy: Vec<f32>,
    value: Vec<f32>,
}

impl<G: Game, E: Evaluator> SymmetryAveraged<G, E> {
    pub fn new(inner: E, shape_of: G) -> SymmetryAveraged<G, E> {
        let symmetries = shape_of.num_symmetries().max(1);
        SymmetryAveraged { inner, shape_of, symmetries, planes: Vec::new(), policy: Vec::new(), value: Vec::new() }
    }

    pub fn inner(&self) -> &E {
        &self.inner
    }
}

impl<G: Game, E: Evaluator> Evaluator for SymmetryAveraged<G, E> {
    fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
        let k = self.symmetries;
        let shape = self.shape_of.plane_shape();
        let per = shape.len();
        let plane = shape.height * shape.width;
        let actions = self.shape_of.num_actions();
        self.planes.resize(batch * k * per, 0.0);
        self.policy.resize(batch * k * actions, 0.0);
        self.value.resize(batch * k, 0.0);
        for b in 0..batch {
            let src = &planes[b * per..(b + 1) * per];
            for s in 0..k {
                let dst = &mut self.planes[(b * k + s) * per..(b * k + s + 1) * per];
                for (from, to) in src.chunks_exact(plane).zip(dst.chunks_exact_mut(plane)) {
                    self.shape_of.map_plane(s, from, to);
                }
            }
        }
        self.inner.evaluate(&self.planes, batch * k, &mut self.policy, &mut self.value);
        let scale = 1.0 / k as f32;
        for b in 0..batch {
            let out = &mut policy[b * actions..(b + 1) * actions];
            out.fill(0.0);
            let mut v = 0.0;
            for s in 0..k {
                let row = &self.policy[(b * k + s) * actions..(b * k + s + 1) * actions];
                for (a, o) in out.iter_mut().enumerate() {
                    *o += scale * row[self.shape_of.map_action(s, a as Action) as usize];
                }
                v += scale * self.value[b * k + s];
            }
            value[b] = v;
        }
    }

    fn describe(&self) -> String {
        format!("{} averaged over {} symmetries", self.inner.describe(), self.symmetries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::connect4::Connect4;

    /// Logit of action `a` is `a`; the value is the stones in the leftmost column minus those
    /// in the rightmost (all planes), so both depend on the board's orientation. Keeps what
    /// it was asked.
    struct Lopsided {
        seen: Vec<f32>,
    }

    impl Evaluator for Lopsided {
        fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
            self.seen = planes.to_vec();
            let per = planes.len() / batch;
            let actions = policy.len() / batch;
            for b in 0..batch {
                for a in 0..actions {
                    policy[b * actions + a] = a as f32;
                }
                let mut v = 0.0;
                for (i, x) in planes[b * per..(b + 1) * per].iter().enumerate() {
                    match i % 7 {
                        0 => v += x,
                        6 => v -= x,
                        _ => {}
                    }
                }
                value[b] = v;
            }
        }

        fn describe(&self) -> String {
            "lopsided".into()
        }
    }

    fn after(moves: &[Action]) -> Connect4 {
        let mut g = Connect4::<u64>::standard();
        for &m in moves {
            g.play(m).unwrap();
        }
        g
    }

    #[test]
    fn averages_each_position_with_its_mirror_image() {
        let start = Connect4::<u64>::standard();
        let mut averaged = SymmetryAveraged::new(Lopsided { seen: Vec::new() }, start.clone());
        let per = start.plane_shape().len();
        // Two positions in one batch: a stone in column 1, and stones in columns 1 and 2.
        let (one, two) = (after(&[0]), after(&[0, 1]));
        let mut planes = vec![0.0; 2 * per];
        one.encode_planes(&mut planes[..per]);
        two.encode_planes(&mut planes[per..]);
        let mut policy = vec![0.0; 2 * 7];
        let mut value = [9.0; 2];
        averaged.evaluate(&planes, 2, &mut policy, &mut value);

        // The network saw each position as it is and mirrored: column 1 became column 7.
        let seen = &averaged.inner().seen;
        assert_eq!(seen.len(), 4 * per);
        let mut mirrored = vec![0.0; per];
        after(&[6]).encode_planes(&mut mirrored);
        assert_eq!(&seen[..per], &planes[..per]);
        assert_eq!(&seen[per..2 * per], &mirrored[..]);
        after(&[6, 5]).encode_planes(&mut mirrored);
        assert_eq!(&seen[3 * per..], &mirrored[..]);

        // Logit a comes from action a and from action 6 - a in the mirror: (a + 6 - a) / 2.
        assert_eq!(policy, vec![3.0; 14]);
        // A lopsided value cancels against its mirror image.
        let mut alone = Lopsided { seen: Vec::new() };
        let mut raw = [0.0; 1];
        alone.evaluate(&planes[..per], 1, &mut [0.0; 7], &mut raw);
        assert!(raw[0] > 0.0, "the stone in column 1 should count: {raw:?}");
        assert_eq!(value, [0.0, 0.0]);
        assert_eq!(averaged.describe(), "lopsided averaged over 2 symmetries");
    }

    /// Logits echo one input plane: the network "points at" the cells set there.
    struct Echo {
        channel: usize,
    }

    impl Evaluator for Echo {
        fn evaluate(&mut self, planes: &[f32], batch: usize, policy: &mut [f32], value: &mut [f32]) {
            let (per, actions) = (planes.len() / batch, policy.len() / batch);
            for b in 0..batch {
                let from = b * per + self.channel * actions;
                policy[b * actions..(b + 1) * actions].copy_from_slice(&planes[from..from + actions]);
                value[b] = 0.5;
            }
        }

        fn describe(&self) -> String {
            "echo".into()
        }
    }

    #[test]
    fn maps_every_symmetry_of_a_square_board_back_to_the_position_own_moves() {
        // Gomoku's third plane marks the last move. Under each of the 8 rotations and
        // reflections the echoed logit sits on the moved cell; mapped back, all 8 must land on
        // the original last move, or a rotation was undone the wrong way round.
        let mut game = dojo_game::gomoku::Gomoku::new(9).unwrap();
        for text in ["4,4", "0,0", "2,1"] {
            let a = game.action_from_text(text).unwrap();
            game.play(a).unwrap();
        }
        let last = game.action_from_text("2,1").unwrap() as usize;
        let mut averaged = SymmetryAveraged::new(Echo { channel: 2 }, game.clone());
        let mut planes = vec![0.0; game.plane_shape().len()];
        game.encode_planes(&mut planes);
        let mut policy = vec![0.0; 81];
        let mut value = [0.0];
        averaged.evaluate(&planes, 1, &mut policy, &mut value);
        let mut expected = vec![0.0; 81];
        expected[last] = 1.0;
        assert_eq!(policy, expected);
        assert_eq!(value, [0.5]);
    }
}
