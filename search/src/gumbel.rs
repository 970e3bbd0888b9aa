//! Gumbel AlphaZero's maths (Danihelka et al., ICLR 2022, "Policy improvement by planning
//! with Gumbel"), with the formulas and defaults of DeepMind's `mctx`
//! (`gumbel_muzero_policy`, `qtransform_completed_by_mix_value`, `seq_halving.py`). The
//! graph search ([`super::puct::Search`]) calls these in `search.mode = "gumbel"`:
//!
//! - at the root, Gumbel-top-k and sequential halving: simulation `i` goes to the best
//!   action, by `g + logits + σ(q̂)`, among those the schedule [`considered_visits`] allows
//!   (the ones with exactly that many visits), which visits the top `m` actions by
//!   `g + logits` first and then halves them phase by phase ([`RootSchedule`]);
//! - everywhere, `σ(q̂) = (c_visit + max_b N(b)) · c_scale · q̂` over the completed Q-values
//!   (visited actions keep their Q, unvisited ones get the mixed value `v_mix`), rescaled to
//!   [0, 1] ([`sigma`]);
//! - the improved policy `π' = softmax(logits + σ)` ([`improved_policy`]): the root's is the
//!   training target, and below the root the deterministic selection is
//!   `argmax_a π'(a) − N(a) / (1 + Σ_b N(b))` ([`interior_scores`]).
//!
//! The search stores priors (the softmax over legal moves), not logits: `ln prior` differs
//! from the logit by the same constant for every move, which neither a softmax nor an
//! argmax sees.

use dojo_base::rng::Rng;
use rand::RngExt;

/// What the formulas need of one child: its prior, its visits through this parent, and its
/// Q from the parent's mover's view (in [-1, 1], or in points in the chance search: [`sigma`]
/// rescales a node's Q by its own range; read only when `visits > 0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildView {
    pub prior: f32,
    pub visits: u32,
    pub q: f32,
}

/// mctx's `get_sequence_of_considered_visits(m, n)`: for each of the `n` simulations, the
/// visit count an action must have to be chosen. Phase by phase, each of the `m` (then
/// `m/2`, ..., down to 2) considered actions gets `max(1, ⌊n / (⌈log2 m⌉ · considered)⌋)`
/// more visits, until the budget is spent; the sequence is cut at exactly `n`.
pub fn considered_visits(m: u32, n: u32) -> Vec<u32> {
    (0..n).map(|sim| considered_visits_at(m, n, sim).expect("within the budget")).collect()
}

/// The element `sim` of [`considered_visits`]`(m, n)` (None from `n` on), computed rather
/// than listed: a search by the clock plans for millions of simulations and makes a few
/// thousand. Within a phase the considered actions all have the phase's starting visits,
/// and each round of the phase gives each of them one more.
pub fn considered_visits_at(m: u32, n: u32, sim: u32) -> Option<u32> {
    if sim >= n {
        return None;
    }
    if m <= 1 {
        return Some(sim);
    }
    let log2max = m.next_power_of_two().trailing_zeros() as u64;
    let (n, sim) = (n as u64, sim as u64);
    let (mut start, mut base, mut considered) = (0u64, 0u64, m as u64);
    loop {
        let extra = (n / (log2max * considered)).max(1);
        if sim < start + extra * considered {
            return Some((base + (sim - start) / considered) as u32);
        }
        start += extra * considered;
        base += extra;
        considered = (considered / 2).max(2);
    }
}

/// mctx's `_compute_mixed_value` (the paper's Appendix D): the network's value of the node
/// blended with the prior-weighted mean Q of the visited children,
/// `(v + N · Σ_visited p(a) q(a) / Σ_visited p(a)) / (N + 1)` with `N` the children's visits.
pub fn mixed_value(raw_value: f32, children: &[ChildView]) -> f32 {
    let total: u32 = children.iter().map(|c| c.visits).sum();
    if total == 0 {
        return raw_value;
    }
    let (mut sum_p, mut sum_pq) = (0.0f32, 0.0f32);
    for c in children.iter().filter(|c| c.visits > 0) {
        // A visited move with a prior that underflowed still counts (mctx's `tiny`).
        let p = c.prior.max(f32::MIN_POSITIVE);
        sum_p += p;
        sum_pq += p * c.q;
    }
    (raw_value + total as f32 * (sum_pq / sum_p)) / (total as f32 + 1.0)
}

/// mctx's `qtransform_completed_by_mix_value`, written to `out` (one per child):
/// the completed Q-values (unvisited children get [`mixed_value`]), rescaled to [0, 1] by
/// their own min and max, times `(c_visit + max_b N(b)) · c_scale`.
///
/// Why the node's own min/max rather than `(q + 1) / 2`: it is what mctx does and the paper
/// measured, and at the small budgets Gumbel is for the Q-values of one node differ by a few
/// hundredths; with `(q + 1) / 2` and `c_scale = 0.1` such a difference would move a logit
/// by a tenth of a unit at most, and the improved policy would stay the prior.
pub fn sigma(raw_value: f32, children: &[ChildView], c_visit: f32, c_scale: f32, out: &mut Vec<f32>) {
    let v_mix = mixed_value(raw_value, children);
    out.clear();
    out.extend(children.iter().map(|c| if c.visits > 0 { c.q } else { v_mix }));
    let min = out.iter().copied().fold(f32::INFINITY, f32::min);
    let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
    let scale = (c_visit + max_visits as f32) * c_scale / (max - min).max(1e-8);
    for q in out.iter_mut() {
        *q = (*q - min) * scale;
    }
}

/// The logit the search stands in for a prior (`ln prior`; a prior of 0 becomes a very
/// unlikely move rather than −∞, as mctx floors its scores at −1e9).
pub fn logit(prior: f32) -> f32 {
    prior.max(f32::MIN_POSITIVE).ln()
}

/// The improved policy `softmax(logits + σ)` over the children, written to `out`.
pub fn improved_policy(children: &[ChildView], sigma: &[f32], out: &mut Vec<f32>) {
    out.clear();
    out.extend(children.iter().zip(sigma).map(|(c, s)| logit(c.prior) + s));
    let max = out.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for x in out.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    for x in out.iter_mut() {
        *x /= sum;
    }
}

/// The paper's deterministic selection below the root, `π'(a) − N(a) / (1 + Σ_b N(b))`
/// for each child (to be maximised), written to `out`.
pub fn interior_scores(children: &[ChildView], sigma: &[f32], out: &mut Vec<f32>) {
    improved_policy(children, sigma, out);
    let total: u32 = children.iter().map(|c| c.visits).sum();
    for (x, c) in out.iter_mut().zip(children) {
        *x -= c.visits as f32 / (1.0 + total as f32);
    }
}

/// A standard Gumbel(0, 1) draw, `−ln(−ln u)`.
pub fn gumbel(rng: &mut Rng) -> f32 {
    let u: f64 = rng.random();
    (-(-u.max(f64::MIN_POSITIVE).ln()).ln()) as f32
}

/// The root's side of the search: the Gumbel noise `g` of each root action, how many
/// simulations sequential halving has given each, and the schedule they follow.
#[derive(Clone, Debug, Default)]
pub struct RootSchedule {
    noise: Vec<f32>,
    visits: Vec<u32>,
}

impl RootSchedule {
    /// Starts afresh for a root with `actions` moves: Gumbel noise from `rng` (self-play), or
    /// none (`g = 0`, as the paper evaluates its agents).
    pub fn start(&mut self, actions: usize, rng: Option<&mut Rng>) {
        self.noise.clear();
        match rng {
            Some(rng) => self.noise.extend((0..actions).map(|_| gumbel(rng))),
            None => self.noise.resize(actions, 0.0),
        }
        self.visits.clear();
        self.visits.resize(actions, 0);
    }

    /// Forgets the root (until [`RootSchedule::start`]).
    pub fn clear(&mut self) {
        self.noise.clear();
        self.visits.clear();
    }

    /// Simulations given to the root's moves since [`RootSchedule::start`].
    pub fn spent(&self) -> u32 {
        self.visits.iter().sum()
    }

    /// Simulations given to each root move, in edge order.
    pub fn visits(&self) -> &[u32] {
        &self.visits
    }

    /// `g(a) + logit(a) + σ(a)`, the score sequential halving ranks the root's moves by.
    pub fn score(&self, index: usize, child: &ChildView, sigma: f32) -> f32 {
        self.noise.get(index).copied().unwrap_or(0.0) + logit(child.prior) + sigma
    }

    /// Picks the move for the next simulation of a `budget`-simulation search considering
    /// `m` moves, and counts it: the best-scoring move among those with as many visits as
    /// the schedule says. Should none have that many (the budget changed mid-search), the
    /// best-scoring move with the fewest visits above the top half goes, so the search
    /// keeps halving rather than stall.
    pub fn choose(&mut self, m: u32, budget: u32, children: &[ChildView], sigma: &[f32]) -> usize {
        let m = m.clamp(1, children.len().max(1) as u32);
        let sim = self.spent();
        let best_with = |want: Option<u32>| {
            (0..children.len()).filter(|&i| want.is_none_or(|v| self.visits[i] == v)).max_by(|&a, &b| {
                self.score(a, &children[a], sigma[a]).total_cmp(&self.score(b, &children[b], sigma[b]))
            })
        };
        let chosen = considered_visits_at(m, budget, sim)
            .and_then(|level| best_with(Some(level)))
            .or_else(|| best_with(self.visits.iter().copied().max()))
            .unwrap_or(0);
        self.visits[chosen] += 1;
        chosen
    }

    /// The move sequential halving ends on: the best-scoring among the most visited ones
    /// (mctx's final `score_considered` with the largest visit count), skipping moves
    /// `lost(i)` says are proven lost while another remains.
    pub fn final_choice(&self, children: &[ChildView], sigma: &[f32], lost: impl Fn(usize) -> bool) -> usize {
        let most = self.visits.iter().copied().max().unwrap_or(0);
        let key = |i: usize| {
            let top = self.visits.get(i).copied().unwrap_or(0) == most;
            (!lost(i), top, self.score(i, &children[i], sigma[i]))
        };
        (0..children.len())
            .max_by(|&a, &b| {
                let (ka, kb) = (key(a), key(b));
                (ka.0, ka.1).cmp(&(kb.0, kb.1)).then(ka.2.total_cmp(&kb.2))
            })
            .expect("a root with moves")
    }
}

/// What a tree search keeps for Gumbel mode (the graph search and the chance search alike):
/// the root's [`RootSchedule`], the budget sequential halving plans for (the current
/// `run`'s), and scratch for the children of the node a simulation is at.
#[derive(Clone, Debug, Default)]
pub struct GumbelState {
    pub schedule: RootSchedule,
    pub budget: u32,
    views: Vec<ChildView>,
    sigma: Vec<f32>,
    scores: Vec<f32>,
}

impl GumbelState {
    /// The child (its index) a simulation follows from a node: `fill` writes the node's
    /// children and their σ (the search's own view of its tree); at the root, sequential
    /// halving's choice among `considered` moves, below it the largest `π' − N / (1 + ΣN)`
    /// as `adjust(index, score)` leaves it (the graph search's proofs).
    pub fn select(
        &mut self,
        at_root: bool,
        considered: u32,
        fill: impl FnOnce(&mut Vec<ChildView>, &mut Vec<f32>),
        adjust: impl Fn(usize, f32) -> f32,
    ) -> usize {
        fill(&mut self.views, &mut self.sigma);
        if at_root {
            return self.schedule.choose(considered, self.budget, &self.views, &self.sigma);
        }
        interior_scores(&self.views, &self.sigma, &mut self.scores);
        let mut best = (0, f32::NEG_INFINITY);
        for (i, &score) in self.scores.iter().enumerate() {
            let score = adjust(i, score);
            if score > best.1 {
                best = (i, score);
            }
        }
        best.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn schedule_matches_mctx() {
        // The cases of mctx's seq_halving_test.py.
        let (r8, r4a, r4b) = ([0; 8], [1; 4], [2; 4]);
        let min_sims: Vec<u32> = [&r8[..], &r4a, &r4b, &[3, 3, 4, 4, 5, 5, 6, 6]].concat();
        assert_eq!(considered_visits(8, 24), min_sims);
        let mut extra: Vec<u32> = [&r8[..], &r4a, &r4b, &[3; 4]].concat();
        extra.extend((4..=16).flat_map(|v| [v, v]));
        extra.push(17);
        assert_eq!(considered_visits(8, 47), extra);
        assert_eq!(considered_visits(8, 2), vec![0, 0]);
        assert_eq!(considered_visits(8, 13), [&r8[..], &r4a, &[2]].concat());
        let not_pow2: Vec<u32> = [&[0; 7][..], &[1, 1, 1, 2, 2, 2], &[3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8]].concat();
        assert_eq!(considered_visits(7, 24), not_pow2);
        assert_eq!(considered_visits(0, 16), (0..16).collect::<Vec<u32>>());
        assert_eq!(considered_visits(1, 16), (0..16).collect::<Vec<u32>>());
        // Budget below m: the first `n` moves get one visit each.
        assert_eq!(considered_visits(16, 5), vec![0; 5]);
    }

    #[test]
    fn a_search_by_the_clock_plans_without_listing_its_budget() {
        // A net: player by the clock plans for MAX_TIMED_PLAYOUTS; the first phase of 12
        // moves gives each 10_000_000 / (4 · 12) = 208_333 visits, round by round.
        let n = crate::config::MAX_TIMED_PLAYOUTS;
        let first: Vec<u32> = (0..36).map(|sim| considered_visits_at(12, n, sim).unwrap()).collect();
        assert_eq!(first, [[0; 12], [1; 12], [2; 12]].concat());
        assert_eq!(considered_visits_at(12, n, 12 * 208_333), Some(208_333), "the second phase starts");
        assert_eq!(considered_visits_at(12, n, 12 * 208_333 + 6), Some(208_334), "with 6 moves");
        assert_eq!(considered_visits_at(12, n, n - 1).map(|v| v > 208_333), Some(true));
        assert_eq!(considered_visits_at(12, n, n), None);
    }

    #[test]
    fn schedule_spends_exactly_the_budget_and_halves() {
        for m in [1u32, 2, 3, 4, 7, 16] {
            for n in [1u32, 2, 5, 7, 16, 31, 32, 50, 64, 100, 200] {
                let levels = considered_visits(m, n);
                assert_eq!(levels.len(), n as usize, "m={m} n={n}");
                // Followed greedily (ties to the lowest index), every step finds a move with
                // the visits it asks for.
                let mut visits = vec![0u32; m as usize];
                for &l in &levels {
                    let i = visits.iter().position(|&v| v == l).unwrap_or_else(|| panic!("m={m} n={n} level {l}"));
                    visits[i] += 1;
                }
                assert_eq!(visits.iter().sum::<u32>(), n);
            }
        }
    }

    #[test]
    fn improved_policy_matches_the_formula_by_hand() {
        // Three moves, priors 0.5/0.3/0.2; the first visited twice (Q 0.6), the second once
        // (Q -0.2), the third never; the network values the node at 0.1.
        let children = [
            ChildView { prior: 0.5, visits: 2, q: 0.6 },
            ChildView { prior: 0.3, visits: 1, q: -0.2 },
            ChildView { prior: 0.2, visits: 0, q: 0.0 },
        ];
        // v_mix = (0.1 + 3 · (0.5·0.6 + 0.3·(-0.2)) / 0.8) / 4 = (0.1 + 3 · 0.3) / 4 = 0.25.
        assert!((mixed_value(0.1, &children) - 0.25).abs() < 1e-6);
        // Completed Q = [0.6, -0.2, 0.25] → rescaled [1, 0, 0.5625] → × (50 + 2) · 0.1 = 5.2.
        let mut s = Vec::new();
        sigma(0.1, &children, 50.0, 0.1, &mut s);
        for (got, want) in s.iter().zip([5.2, 0.0, 2.925]) {
            assert!((got - want).abs() < 1e-5, "{s:?}");
        }
        // π' ∝ p · e^σ = [0.5 e^5.2, 0.3, 0.2 e^2.925].
        let mut pi = Vec::new();
        improved_policy(&children, &s, &mut pi);
        let w = [0.5 * 5.2f64.exp(), 0.3, 0.2 * 2.925f64.exp()];
        let z: f64 = w.iter().sum();
        for (got, want) in pi.iter().zip(w.iter().map(|x| x / z)) {
            assert!((*got as f64 - want).abs() < 1e-6, "{pi:?}");
        }
        assert!((pi[0] - 0.957461).abs() < 1e-5 && (pi[2] - 0.039370).abs() < 1e-5, "{pi:?}");
        // Interior selection subtracts N / (1 + ΣN) = [2/4, 1/4, 0].
        let mut scores = Vec::new();
        interior_scores(&children, &s, &mut scores);
        for i in 0..3 {
            let want = pi[i] - [0.5, 0.25, 0.0][i];
            assert!((scores[i] - want).abs() < 1e-6);
        }
    }

    #[test]
    fn unvisited_node_keeps_its_prior() {
        let children = [ChildView { prior: 0.7, visits: 0, q: 0.0 }, ChildView { prior: 0.3, visits: 0, q: 0.0 }];
        let (mut s, mut pi) = (Vec::new(), Vec::new());
        sigma(-0.4, &children, 50.0, 0.1, &mut s);
        assert_eq!(s, vec![0.0, 0.0]);
        improved_policy(&children, &s, &mut pi);
        assert!((pi[0] - 0.7).abs() < 1e-6 && (pi[1] - 0.3).abs() < 1e-6, "{pi:?}");
    }

    #[test]
    fn root_schedule_spreads_visits_as_sequential_halving() {
        // Eight equal moves but for their noise: 16 simulations visit all eight once, the
        // best four by g + logit once more, ... (no Q: σ is the same for every move).
        let children = vec![ChildView { prior: 0.125, visits: 0, q: 0.0 }; 8];
        let sigma = vec![0.0; 8];
        let mut root = RootSchedule::default();
        root.start(8, Some(&mut Rng::seed_from_u64(3)));
        let order: Vec<usize> = {
            let mut o: Vec<usize> = (0..8).collect();
            o.sort_by(|&a, &b| root.noise[b].total_cmp(&root.noise[a]));
            o
        };
        for _ in 0..16 {
            root.choose(16, 16, &children, &sigma);
        }
        assert_eq!(root.spent(), 16);
        // m = 8: log2 = 3; 1 visit each (8), then 4 × 1 (4), then 2 × 2 (4).
        let by_rank: Vec<u32> = order.iter().map(|&i| root.visits()[i]).collect();
        assert_eq!(by_rank, vec![4, 4, 2, 2, 1, 1, 1, 1]);
        assert_eq!(root.final_choice(&children, &sigma, |_| false), order[0]);
        // A proven loss is passed over while another move remains.
        assert_eq!(root.final_choice(&children, &sigma, |i| i == order[0]), order[1]);
    }

    #[test]
    fn gumbel_draws_have_the_right_mean() {
        // E[Gumbel(0, 1)] is the Euler–Mascheroni constant, 0.5772.
        let mut rng = Rng::seed_from_u64(9);
        let mean = (0..100_000).map(|_| gumbel(&mut rng) as f64).sum::<f64>() / 100_000.0;
        assert!((mean - 0.5772).abs() < 0.02, "{mean}");
    }
}
