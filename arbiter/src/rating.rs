//! Ratings from game results by maximum likelihood, as BayesElo and Ordo fit them.
//!
//! The model is Bradley–Terry on the Elo scale with a draw parameter (Rao–Kupper, BayesElo's
//! "drawelo" θ): between players rated `ri` and `rj`, with `f(x) = 1 / (1 + 10^(-x/400))`,
//! `P(i wins) = f(ri - rj - θ)`, `P(j wins) = f(rj - ri - θ)` and a draw takes the rest.
//! Ratings and θ maximise the likelihood of every game; one player, the anchor, keeps a
//! fixed rating, since only differences are identified.
//!
//! A player who won every game would have an infinite rating. As BayesElo does, every
//! pairing that was played also counts one virtual draw (`PRIOR_DRAWS`): ratings stay
//! finite, and the prior's weight is one game in however many the pairing played.
//!
//! Intervals are the profile likelihood's (95%: where twice the log-likelihood falls 3.84
//! below its maximum, the other ratings and θ refitted at each trial value): asymmetric
//! where the evidence is, wider on the open side for a player who won (or lost) every game
//! (only the prior bounds that side; e.g. 20 wins of 20 against each of two players: the
//! rating 238 Elo above its lower bound, 337 below its upper one), and open (None) for a
//! player whose games do not bound it at all.

use serde::{Deserialize, Serialize};

/// Virtual draws added to every pairing that was played.
pub const PRIOR_DRAWS: f64 = 1.0;
/// Half the 95% quantile of χ² with one degree of freedom.
const HALF_CHI2_95: f64 = 3.841_458_820_694_124 / 2.0;
const LN10_400: f64 = std::f64::consts::LN_10 / 400.0;

/// Results between two players, from the first's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PairResults {
    pub a: usize,
    pub b: usize,
    pub wins: f64,
    pub draws: f64,
    pub losses: f64,
}

/// One player's fitted rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub elo: f64,
    /// The 95% interval; `None` where it runs past ±`RANGE` Elo of the anchor.
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// The whole fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    pub ratings: Vec<Rating>,
    /// The draw parameter θ, in Elo.
    pub draw_elo: f64,
    pub anchor: usize,
    pub anchor_elo: f64,
}

/// How far from the anchor intervals are searched.
pub const RANGE: f64 = 4000.0;

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-LN10_400 * x).exp())
}

/// The pairings with the prior's virtual draws added.
fn with_prior(results: &[PairResults]) -> Vec<PairResults> {
    results
        .iter()
        .filter(|r| r.a != r.b && r.wins + r.draws + r.losses > 0.0)
        .map(|r| PairResults { draws: r.draws + PRIOR_DRAWS, ..*r })
        .collect()
}

/// Log-likelihood of `results` with ratings `r` and draw parameter `theta`, and its
/// gradient (ratings, then θ) when asked.
fn log_likelihood(results: &[PairResults], r: &[f64], theta: f64, grad: Option<&mut [f64]>) -> f64 {
    let mut ll = 0.0;
    let mut g = grad;
    for p in results {
        let d = r[p.a] - r[p.b];
        let (fw, fl) = (logistic(d - theta), logistic(-d - theta));
        let fd = (1.0 - fw - fl).max(1e-300);
        ll += p.wins * fw.ln() + p.losses * fl.ln() + p.draws * fd.ln();
        if let Some(g) = g.as_deref_mut() {
            // d ln f(x) / dx = c (1 - f(x)); d f(x) / dx = c f (1 - f).
            let (dw, dl) = (LN10_400 * fw * (1.0 - fw), LN10_400 * fl * (1.0 - fl));
            let dd = p.wins * LN10_400 * (1.0 - fw) - p.losses * LN10_400 * (1.0 - fl) + p.draws * (dl - dw) / fd;
            let dtheta = -p.wins * LN10_400 * (1.0 - fw) - p.losses * LN10_400 * (1.0 - fl) + p.draws * (dw + dl) / fd;
            g[p.a] += dd;
            g[p.b] -= dd;
            let n = g.len();
            g[n - 1] += dtheta;
        }
    }
    ll
}

/// Maximises the likelihood over the ratings not in `fixed` and θ, from `r` and `theta`,
/// by gradient ascent with Newton steps on a numerically differentiated Hessian.
fn maximise(results: &[PairResults], r: &mut [f64], theta: &mut f64, fixed: &[usize]) -> f64 {
    let n = r.len();
    let free: Vec<usize> = (0..=n).filter(|i| !fixed.contains(i)).collect();
    let params = |r: &[f64], t: f64| -> Vec<f64> { free.iter().map(|&i| if i == n { t } else { r[i] }).collect() };
    let set = |x: &[f64], r: &mut [f64], t: &mut f64| {
        for (&i, &v) in free.iter().zip(x) {
            if i == n {
                *t = v.max(1e-3);
            } else {
                r[i] = v;
            }
        }
    };
    let grad_at = |x: &[f64], r: &mut Vec<f64>, t: &mut f64| -> (f64, Vec<f64>) {
        set(x, r, t);
        let mut g = vec![0.0; n + 1];
        let ll = log_likelihood(results, r, *t, Some(&mut g));
        (ll, free.iter().map(|&i| g[i]).collect())
    };
    let mut rr = r.to_vec();
    let mut tt = *theta;
    let mut x = params(r, *theta);
    let (mut ll, mut g) = grad_at(&x, &mut rr, &mut tt);
    for _ in 0..200 {
        // Hessian by central differences of the gradient.
        let k = x.len();
        let mut h = vec![vec![0.0; k]; k];
        for j in 0..k {
            let step = 1e-3 * x[j].abs().max(1.0);
            let mut xp = x.clone();
            xp[j] += step;
            let (_, gp) = grad_at(&xp, &mut rr, &mut tt);
            let mut xm = x.clone();
            xm[j] -= step;
            let (_, gm) = grad_at(&xm, &mut rr, &mut tt);
            for i in 0..k {
                h[i][j] = (gp[i] - gm[i]) / (2.0 * step);
            }
        }
        // Newton direction on -H (regularised to stay a descent direction), else the gradient.
        let dir = solve_negative_definite(&h, &g).unwrap_or_else(|| g.clone());
        let mut t = 1.0;
        let mut improved = false;
        while t > 1e-8 {
            let trial: Vec<f64> = x.iter().zip(&dir).map(|(a, d)| a + t * d).collect();
            let (ll2, g2) = grad_at(&trial, &mut rr, &mut tt);
            if ll2.is_finite() && ll2 >= ll - 1e-12 {
                let gain = ll2 - ll;
                x = trial;
                ll = ll2;
                g = g2;
                improved = gain > 1e-10;
                break;
            }
            t /= 2.0;
        }
        if !improved || g.iter().all(|v| v.abs() < 1e-9) {
            break;
        }
    }
    set(&x, r, theta);
    ll
}

/// Solves `(-h) d = g` by Gaussian elimination with partial pivoting, with a small ridge so
/// a flat direction does not blow up; None when singular.
fn solve_negative_definite(h: &[Vec<f64>], g: &[f64]) -> Option<Vec<f64>> {
    let k = g.len();
    let mut a: Vec<Vec<f64>> = (0..k)
        .map(|i| {
            let mut row: Vec<f64> = (0..k).map(|j| -h[i][j] + if i == j { 1e-9 } else { 0.0 }).collect();
            row.push(g[i]);
            row
        })
        .collect();
    for col in 0..k {
        let pivot = (col..k).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-14 {
            return None;
        }
        a.swap(col, pivot);
        let (done, below) = a.split_at_mut(col + 1);
        let pivot_row = &done[col];
        for row in below.iter_mut() {
            let f = row[col] / pivot_row[col];
            for (x, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
        }
    }
    let mut d = vec![0.0; k];
    for i in (0..k).rev() {
        let s: f64 = (i + 1..k).map(|j| a[i][j] * d[j]).sum();
        d[i] = (a[i][k] - s) / a[i][i];
    }
    let ascent: f64 = d.iter().zip(g).map(|(a, b)| a * b).sum();
    (ascent > 0.0 && d.iter().all(|v| v.is_finite())).then_some(d)
}

/// Results that no ratings can be fitted to.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FitError {
    #[error("the anchor is player {anchor}, but there are {players} players")]
    AnchorOutOfRange { anchor: usize, players: usize },
    #[error("results name player {player} of {players}")]
    PlayerOutOfRange { player: usize, players: usize },
    /// A pair's wins, draws or losses are negative (or not a number).
    #[error("game counts must be zero or more")]
    NegativeCount,
}

/// Fits ratings to `results` among `players` players, `anchor` fixed at `anchor_elo`.
pub fn fit(players: usize, results: &[PairResults], anchor: usize, anchor_elo: f64) -> Result<Fit, FitError> {
    if anchor >= players {
        return Err(FitError::AnchorOutOfRange { anchor, players });
    }
    if let Some(p) = results.iter().find(|p| p.a >= players || p.b >= players) {
        return Err(FitError::PlayerOutOfRange { player: p.a.max(p.b), players });
    }
    if results.iter().any(|p| !(p.wins >= 0.0 && p.draws >= 0.0 && p.losses >= 0.0)) {
        return Err(FitError::NegativeCount);
    }
    let data = with_prior(results);
    let mut r = vec![anchor_elo; players];
    let mut theta = 100.0;
    let best = maximise(&data, &mut r, &mut theta, &[anchor]);
    let mut ratings = Vec::with_capacity(players);
    for i in 0..players {
        if i == anchor {
            ratings.push(Rating { elo: anchor_elo, low: Some(anchor_elo), high: Some(anchor_elo) });
            continue;
        }
        let bound = |direction: f64| profile_bound(&data, &r, theta, best, anchor, i, direction);
        ratings.push(Rating { elo: r[i], low: bound(-1.0), high: bound(1.0) });
    }
    Ok(Fit { ratings, draw_elo: theta, anchor, anchor_elo })
}

/// Where player `i`'s profile log-likelihood, going from the fit in `direction`, falls
/// `HALF_CHI2_95` below `best`; None if not within `RANGE` of the anchor.
fn profile_bound(
    data: &[PairResults],
    fitted: &[f64],
    theta: f64,
    best: f64,
    anchor: usize,
    i: usize,
    direction: f64,
) -> Option<f64> {
    let profile = |value: f64| {
        let mut r = fitted.to_vec();
        let mut t = theta;
        r[i] = value;
        maximise(data, &mut r, &mut t, &[anchor, i])
    };
    let inside = |value: f64| best - profile(value) <= HALF_CHI2_95;
    let far = fitted[anchor] + direction * RANGE;
    if inside(far) {
        return None;
    }
    let (mut near, mut out) = (fitted[i], far);
    // Bisection to 0.1 Elo.
    while (out - near).abs() > 0.1 {
        let mid = (near + out) / 2.0;
        if inside(mid) {
            near = mid;
        } else {
            out = mid;
        }
    }
    Some((near + out) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_base::rng::Rng;
    use rand::{RngExt, SeedableRng};

    /// Games between players of the given true ratings, `games` per pairing, draws at
    /// `theta`, scored by the model itself.
    fn simulate(truth: &[f64], games: u32, theta: f64, seed: u64) -> Vec<PairResults> {
        let mut rng = Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        for a in 0..truth.len() {
            for b in a + 1..truth.len() {
                let d = truth[a] - truth[b];
                let (pw, pl) = (logistic(d - theta), logistic(-d - theta));
                let mut p = PairResults { a, b, ..Default::default() };
                for _ in 0..games {
                    let u: f64 = rng.random();
                    if u < pw {
                        p.wins += 1.0;
                    } else if u < pw + pl {
                        p.losses += 1.0;
                    } else {
                        p.draws += 1.0;
                    }
                }
                out.push(p);
            }
        }
        out
    }

    #[test]
    fn known_differences_are_recovered_within_their_intervals() {
        let truth = [0.0, 100.0, 250.0, -150.0];
        let results = simulate(&truth, 400, 80.0, 1);
        let fit = fit(4, &results, 0, 0.0).unwrap();
        assert_eq!(fit.ratings[0], Rating { elo: 0.0, low: Some(0.0), high: Some(0.0) });
        for (i, (r, t)) in fit.ratings.iter().zip(truth).enumerate().skip(1) {
            let (low, high) = (r.low.unwrap(), r.high.unwrap());
            assert!(low < r.elo && r.elo < high, "player {i}: {r:?}");
            assert!(low <= t && t <= high, "player {i}: truth {t} outside {r:?}");
            assert!(high - low < 120.0, "player {i}: interval too wide with 1200 games: {r:?}");
        }
        assert!((fit.draw_elo - 80.0).abs() < 15.0, "draw elo {}", fit.draw_elo);
        // The order agrees with the truth.
        let mut order: Vec<usize> = (0..4).collect();
        order.sort_by(|&x, &y| fit.ratings[y].elo.total_cmp(&fit.ratings[x].elo));
        assert_eq!(order, [2, 1, 0, 3]);
    }

    #[test]
    fn the_anchor_moves_every_rating_alike() {
        let results = simulate(&[0.0, 200.0, 50.0], 100, 60.0, 2);
        let a = fit(3, &results, 0, 0.0).unwrap();
        let b = fit(3, &results, 0, 1500.0).unwrap();
        for (x, y) in a.ratings.iter().zip(&b.ratings) {
            assert!((y.elo - x.elo - 1500.0).abs() < 0.5, "{x:?} {y:?}");
            assert!((y.low.unwrap() - x.low.unwrap() - 1500.0).abs() < 0.5, "{x:?} {y:?}");
        }
        // Anchoring on player 1 instead: the same differences.
        let c = fit(3, &results, 1, 0.0).unwrap();
        assert!(((c.ratings[0].elo - c.ratings[1].elo) - (a.ratings[0].elo - a.ratings[1].elo)).abs() < 0.5);
    }

    #[test]
    fn a_player_who_won_every_game_gets_a_finite_rating_and_an_open_upper_side() {
        let results = [
            PairResults { a: 0, b: 1, wins: 10.0, draws: 5.0, losses: 5.0 },
            PairResults { a: 2, b: 0, wins: 20.0, draws: 0.0, losses: 0.0 },
            PairResults { a: 2, b: 1, wins: 20.0, draws: 0.0, losses: 0.0 },
        ];
        let fit = fit(3, &results, 1, 0.0).unwrap();
        let top = &fit.ratings[2];
        assert!(top.elo.is_finite() && top.elo > fit.ratings[0].elo + 200.0, "{fit:?}");
        let low = top.low.expect("a lower bound");
        assert!(low < top.elo && low > fit.ratings[0].elo, "{top:?}");
        // The games bound it from below; only the prior's virtual draws bound it from above,
        // so the interval leans that way and is wide.
        let upper = top.high.map_or(f64::INFINITY, |h| h - top.elo);
        assert!(upper > 1.2 * (top.elo - low), "{top:?}");
        assert!(upper + (top.elo - low) > 400.0, "{top:?}");
        assert!(fit.ratings.iter().all(|r| r.elo.is_finite()), "{fit:?}");
    }

    #[test]
    fn draws_only_give_equal_ratings_and_bad_input_is_refused() {
        let results = [PairResults { a: 0, b: 1, wins: 0.0, draws: 30.0, losses: 0.0 }];
        let fit_draws = fit(2, &results, 0, 0.0).unwrap();
        assert!(fit_draws.ratings[1].elo.abs() < 1e-3, "{fit_draws:?}");
        assert!(fit_draws.draw_elo > 300.0, "all draws mean a large draw parameter: {fit_draws:?}");
        assert_eq!(
            fit(2, &results, 2, 0.0).unwrap_err().to_string(),
            "the anchor is player 2, but there are 2 players"
        );
        let bad = [PairResults { a: 0, b: 5, ..Default::default() }];
        assert_eq!(fit(2, &bad, 0, 0.0).unwrap_err().to_string(), "results name player 5 of 2");
        let negative = [PairResults { a: 0, b: 1, wins: -1.0, ..Default::default() }];
        assert_eq!(fit(2, &negative, 0, 0.0).unwrap_err().to_string(), "game counts must be zero or more");
        // A player who played nobody keeps the anchor's rating with an open interval.
        let alone = fit(3, &results, 0, 0.0).unwrap();
        assert_eq!(alone.ratings[2].elo, 0.0);
        assert_eq!((alone.ratings[2].low, alone.ratings[2].high), (None, None));
    }
}
