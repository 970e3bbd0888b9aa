//! The n-tuple value function: `V(board) = Σ` over every tuple and isomorphism of the weight
//! its tiles index, and the two ways to move it toward a target (TD(0) with a fixed rate,
//! TCL with per-weight adaptive rates).

use super::layout::{features, Feature, Layout, LayoutError, ISOMORPHISMS};
use super::TupleRules;
use dojo_game::sliding::Bits;

/// Temporal coherence learning's accumulators, one pair per weight (seed 000): `E` sums the
/// errors a weight was updated with and `A` their absolute values, so `|E| / A` is near 1
/// while the errors agree in sign and falls toward 0 as they start to cancel out.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Coherence {
    pub e: Vec<f32>,
    pub a: Vec<f32>,
}

/// Weight tables for one game (`R`) and one [`Layout`].
#[derive(Clone)]
pub struct Network<R: TupleRules> {
    rules: R,
    layout: Layout,
    features: Vec<Feature>,
    weights: Vec<f32>,
    coherence: Option<Coherence>,
    /// Training episodes these weights have seen (kept in the file, so training resumes).
    episodes: u64,
}

impl<R: TupleRules> std::fmt::Debug for Network<R> {
    /// The shape, not the tens of millions of weights.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("game", &self.rules.spec().to_string())
            .field("layout", &self.layout)
            .field("weights", &self.weights.len())
            .field("coherence", &self.coherence.is_some())
            .field("episodes", &self.episodes)
            .finish()
    }
}

impl<R: TupleRules> Network<R> {
    /// A network of zero weights (the empty board and every other is worth 0).
    pub fn new(rules: R, layout: Layout) -> Result<Network<R>, LayoutError> {
        let (features, len) = features(&layout, R::RADIX)?;
        Ok(Network { rules, layout, features, weights: vec![0.0; len], coherence: None, episodes: 0 })
    }

    pub fn rules(&self) -> R {
        self.rules
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn episodes(&self) -> u64 {
        self.episodes
    }

    pub fn set_episodes(&mut self, episodes: u64) {
        self.episodes = episodes;
    }

    /// The number of weights (all tables).
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// Whether TCL's accumulators are kept (after TCL training, or [`Network::start_coherence`]).
    pub fn has_coherence(&self) -> bool {
        self.coherence.is_some()
    }

    /// Adds TCL's accumulators, all zero (every weight starts at rate 1), if missing.
    pub fn start_coherence(&mut self) {
        if self.coherence.is_none() {
            let n = self.weights.len();
            self.coherence = Some(Coherence { e: vec![0.0; n], a: vec![0.0; n] });
        }
    }

    /// Drops TCL's accumulators (they double the memory twice over and plain TD needs none).
    pub fn drop_coherence(&mut self) {
        self.coherence = None;
    }

    pub(crate) fn weights(&self) -> &[f32] {
        &self.weights
    }

    pub(crate) fn weights_mut(&mut self) -> &mut [f32] {
        &mut self.weights
    }

    pub(crate) fn coherence(&self) -> Option<&Coherence> {
        self.coherence.as_ref()
    }

    pub(crate) fn coherence_mut(&mut self) -> Option<&mut Coherence> {
        self.coherence.as_mut()
    }

    /// The number of (tuple, isomorphism) features an update is split over.
    pub fn num_features(&self) -> usize {
        self.features.len()
    }

    /// The table slot of every cell: tile indices at or above `RADIX - 1` share the last.
    #[inline(always)]
    fn slots(board: R::Bits) -> [u8; 16] {
        let top = (R::RADIX - 1) as u8;
        std::array::from_fn(|i| board.cell(i).min(top))
    }

    /// The index of `f`'s weight for a board with these slots.
    #[inline(always)]
    fn index(f: &Feature, slots: &[u8; 16]) -> usize {
        let mut i = 0usize;
        for &c in &f.cells[..f.len as usize] {
            i = i * R::RADIX + slots[c as usize] as usize;
        }
        f.offset + i
    }

    /// The value of a board (an after-state in training and play).
    #[inline]
    pub fn value(&self, board: R::Bits) -> f32 {
        let slots = Self::slots(board);
        self.features.iter().map(|f| self.weights[Self::index(f, &slots)]).sum()
    }

    /// TD(0) as seed 002: moves `V(board)` by `delta` (the learning rate times the TD error)
    /// spread evenly over the features, each weight getting `delta / features` once per
    /// feature that reads it. Returns the value after the update.
    #[inline]
    pub fn update_td(&mut self, board: R::Bits, delta: f32) -> f32 {
        let slots = Self::slots(board);
        let u = delta / self.features.len() as f32;
        for f in &self.features {
            self.weights[Self::index(f, &slots)] += u;
        }
        self.value(board)
    }

    /// TCL (seed 000): like [`Network::update_td`] with `alpha * error` spread over the
    /// features, but each weight's share scaled by its own rate `|E| / A` (1 while `A` is
    /// 0), after which `E += error` and `A += |error|`. Starts the accumulators if missing.
    /// Returns the value after the update.
    #[inline]
    pub fn update_tcl(&mut self, board: R::Bits, alpha: f32, error: f32) -> f32 {
        self.start_coherence();
        let slots = Self::slots(board);
        let u = alpha * error / self.features.len() as f32;
        let Network { features, weights, coherence, .. } = self;
        let Coherence { e, a } = coherence.as_mut().expect("started above");
        for f in features.iter() {
            let i = Self::index(f, &slots);
            let rate = if a[i] == 0.0 { 1.0 } else { e[i].abs() / a[i] };
            weights[i] += u * rate;
            e[i] += error;
            a[i] += error.abs();
        }
        self.value(board)
    }

    /// The features of one tuple (its 8 isomorphisms) and their weight indices for a board;
    /// for tests that check updates by hand.
    pub fn tuple_indices(&self, tuple: usize, board: R::Bits) -> [usize; ISOMORPHISMS] {
        let slots = Self::slots(board);
        std::array::from_fn(|s| Self::index(&self.features[tuple * ISOMORPHISMS + s], &slots))
    }

    /// The first weight that is not a finite number, if any: TD diverges when the rate is
    /// too high for how much the layout shares weights between boards.
    pub fn non_finite_weight(&self) -> Option<usize> {
        self.weights.iter().position(|w| !w.is_finite())
    }

    /// The weight at `index` (see [`Network::tuple_indices`]).
    pub fn weight(&self, index: usize) -> f32 {
        self.weights[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::sliding::{Rules2048, Rules2584, SpawnOdds};

    /// A 2048 board with the same tile index in every cell.
    fn uniform(t: u64) -> u64 {
        (0..16).fold(0, |b, i| b | t << (4 * i))
    }

    #[test]
    fn a_uniform_board_reads_one_weight_per_tuple_eight_times() {
        let mut net = Network::new(Rules2048, Layout::seed002()).unwrap();
        let b = uniform(3);
        // Every isomorphism of every tuple reads the digits 3,3,3,3,3,3.
        let idx = 3 * (1 + 16 + 256 + 4096 + 65536 + 1048576);
        for t in 0..4 {
            assert_eq!(net.tuple_indices(t, b), [(t << 24) + idx; 8]);
        }
        // TD: 0.1 × error 8 spread over 32 features is 0.025 each; each tuple's one weight
        // is hit 8 times (0.2), and read 8 times: V = 4 × 8 × 0.2 = 6.4.
        let v = net.update_td(b, 0.1 * 8.0);
        assert!((net.weight((1 << 24) + idx) - 0.2).abs() < 1e-6);
        assert!((v - 6.4).abs() < 1e-5, "{v}");
        assert!((net.value(b) - v).abs() < 1e-6);
        // Another board shares none of those weights.
        assert_eq!(net.value(uniform(2)), 0.0);
    }

    #[test]
    fn tcl_rates_follow_the_sign_history_of_the_errors() {
        let mut net = Network::new(Rules2048, Layout::seed002()).unwrap();
        let b = uniform(1);
        let w = net.tuple_indices(0, b)[0];
        // First update: A = 0, rate 1 for each of the 8 hits. The first hit sees A = 0; the
        // next 7 see E = k × 4, A = k × 4: rate 1 as well. So 8 × (0.1 × 4 / 32) = 0.1.
        net.update_tcl(b, 0.1, 4.0);
        assert!((net.weight(w) - 0.1).abs() < 1e-6, "{}", net.weight(w));
        // Now E = 32, A = 32. An error of -4: the hits see E = 32 - 4k, A = 32 + 4k for
        // k = 0..8, rate (32 - 4k) / (32 + 4k), each step 0.1 × -4 / 32 = -0.0125.
        net.update_tcl(b, 0.1, -4.0);
        let mut want = 0.1f64;
        for k in 0..8 {
            want -= 0.0125 * (32.0 - 4.0 * k as f64) / (32.0 + 4.0 * k as f64);
        }
        assert!((net.weight(w) as f64 - want).abs() < 1e-6, "{} vs {want}", net.weight(w));
        let c = net.coherence().unwrap();
        assert_eq!((c.e[w], c.a[w]), (0.0, 64.0));
    }

    #[test]
    fn big_2584_tiles_share_the_last_slot() {
        let net = Network::new(Rules2584 { odds: SpawnOdds::OneTwo }, Layout::seed002()).unwrap();
        assert_eq!(net.len(), 4 * 19usize.pow(6));
        let with = |t: u128| t; // cell 0 holds tile index t
        assert_eq!(net.tuple_indices(0, with(18)), net.tuple_indices(0, with(25)));
        assert_ne!(net.tuple_indices(0, with(17)), net.tuple_indices(0, with(18)));
        // Cell 0 is the first (most significant) digit of tuple 0 under the identity.
        assert_eq!(net.tuple_indices(0, with(17))[0], 17 * 19usize.pow(5));
    }
}
