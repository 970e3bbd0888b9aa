//! Gomoku rules: a differential test against a naive array implementation, exact move-tree
//! counts, constructed wins in every direction and at every edge, symmetries, input planes,
//! notation and error messages.

use dojo_base::rng::Rng;
use dojo_game::gomoku::{vcf, Gomoku};
use dojo_game::spec::GomokuRule;
use dojo_game::tactics::Tactics;
use dojo_game::tactics::{lookahead_by_play, Lookahead};
use dojo_game::Symmetries;
use dojo_game::{Action, Game, GameError, GameSpec, Outcome, Player, ToMove};
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{RngExt, SeedableRng};
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};

// ---------------------------------------------------------------------------------------
// The naive reference: a byte per point, runs counted by stepping from the last move.

#[derive(Clone)]
struct Naive {
    n: usize,
    /// 0 empty, 1 first player, 2 second player; index y * n + x.
    cells: [u8; 400],
    ply: usize,
    outcome: Option<Outcome>,
    /// The standard rule: only a run of exactly five wins.
    exact: bool,
}

impl Naive {
    fn new(n: usize) -> Naive {
        Naive { n, cells: [0; 400], ply: 0, outcome: None, exact: false }
    }

    fn with_rule(n: usize, rule: GomokuRule) -> Naive {
        Naive { exact: rule == GomokuRule::Standard, ..Naive::new(n) }
    }

    /// Whether a run of `len` stones wins.
    fn wins(&self, len: usize) -> bool {
        if self.exact {
            len == 5
        } else {
            len >= 5
        }
    }

    fn legal(&self) -> Vec<Action> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        (0..self.n * self.n).filter(|&i| self.cells[i] == 0).map(|i| i as Action).collect()
    }

    fn at(&self, x: i64, y: i64) -> u8 {
        let n = self.n as i64;
        if x < 0 || y < 0 || x >= n || y >= n {
            return 255;
        }
        self.cells[(y * n + x) as usize]
    }

    fn run_through(&self, x: i64, y: i64, dx: i64, dy: i64) -> usize {
        let c = self.at(x, y);
        let mut len = 1;
        for sign in [1, -1] {
            let (mut cx, mut cy) = (x + sign * dx, y + sign * dy);
            while self.at(cx, cy) == c {
                len += 1;
                cx += sign * dx;
                cy += sign * dy;
            }
        }
        len
    }

    fn play(&mut self, a: Action) {
        let a = a as usize;
        assert!(self.outcome.is_none() && self.cells[a] == 0);
        let me = if self.ply & 1 == 0 { 1 } else { 2 };
        self.cells[a] = me;
        self.ply += 1;
        let (x, y) = ((a % self.n) as i64, (a / self.n) as i64);
        let five = [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| self.wins(self.run_through(x, y, dx, dy)));
        if five {
            let p = if me == 1 { Player::First } else { Player::Second };
            self.outcome = Some(Outcome::Win(p));
        } else if self.cells[..self.n * self.n].iter().all(|&c| c != 0) {
            self.outcome = Some(Outcome::Draw);
        }
    }

    /// A full scan for a winning run (five or more of one colour; exactly five under the
    /// standard rule) anywhere.
    fn five_anywhere(&self) -> bool {
        let n = self.n as i64;
        (0..n).any(|y| {
            (0..n).any(|x| {
                let c = self.at(x, y);
                c != 0
                    && [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| {
                        // From the first stone of each run: its whole length.
                        self.at(x - dx, y - dy) != c
                            && self.wins((0..).take_while(|&i| self.at(x + i * dx, y + i * dy) == c).count())
                    })
            })
        })
    }

    /// Whether six or more stones of one colour stand in a row anywhere.
    fn overline_anywhere(&self) -> bool {
        let n = self.n as i64;
        (0..n * n).any(|i| {
            let (x, y) = (i % n, i / n);
            let c = self.at(x, y);
            c != 0 && [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| self.run_through(x, y, dx, dy) >= 6)
        })
    }

    fn winning_points(&self, who: u8) -> Vec<Action> {
        (0..self.n * self.n)
            .filter(|&i| self.cells[i] == 0)
            .filter(|&i| {
                let mut t = self.clone();
                t.cells[i] = who;
                let (x, y) = ((i % self.n) as i64, (i / self.n) as i64);
                [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| t.wins(t.run_through(x, y, dx, dy)))
            })
            .map(|i| i as Action)
            .collect()
    }

    /// A digest of the position independent of the Zobrist keys.
    fn digest(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.n.hash(&mut h);
        self.cells.hash(&mut h);
        (self.ply % 2).hash(&mut h);
        h.finish()
    }
}

fn stones_match(g: &Gomoku, nv: &Naive) {
    for y in 0..g.size() {
        for x in 0..g.size() {
            let want = match nv.cells[y * nv.n + x] {
                0 => None,
                1 => Some(Player::First),
                _ => Some(Player::Second),
            };
            assert_eq!(g.stone(x, y), want, "stone at {x},{y}");
        }
    }
}

fn legal(g: &Gomoku) -> Vec<Action> {
    let mut v = Vec::new();
    g.legal_actions(&mut v);
    v
}

/// Plays `X` stones and `O` stones alternately, `X` first (points are `(x, y)`).
fn setup(size: usize, xs: &[(usize, usize)], os: &[(usize, usize)]) -> Gomoku {
    setup_with(GomokuRule::Freestyle, size, xs, os)
}

/// [`setup`] in a game of `rule`.
fn setup_with(rule: GomokuRule, size: usize, xs: &[(usize, usize)], os: &[(usize, usize)]) -> Gomoku {
    assert!(xs.len() == os.len() || xs.len() == os.len() + 1);
    let mut g = Gomoku::with_rule(size, rule).unwrap();
    for (i, &(x, y)) in xs.iter().enumerate() {
        g.play(g.action_at(x, y)).unwrap();
        if let Some(&(x, y)) = os.get(i) {
            g.play(g.action_at(x, y)).unwrap();
        }
    }
    g
}

// ---------------------------------------------------------------------------------------
// Differential test.

/// What [`random_games_match_naive`] saw: games per (size, "win" or "draw"), distinct
/// positions, and games that held a run of six or more at their end.
struct Differential {
    endings: HashMap<(usize, &'static str), usize>,
    positions: usize,
    overlines: usize,
}

/// Plays random games of `rule` (`games` per board size) move by move alongside the naive
/// implementation, comparing everything after every move.
fn random_games_match_naive(rule: GomokuRule, seed: u64, sizes: &[(usize, usize)]) -> Differential {
    let mut rng = Rng::seed_from_u64(seed);
    // Zobrist hash -> naive digest, over every position of every game: equal positions
    // (by transposition or repetition across games) must share a hash, different ones not.
    let mut seen: HashMap<u64, u64> = HashMap::new();
    let mut endings: HashMap<(usize, &'static str), usize> = HashMap::new();
    let mut overlines = 0;
    for &(size, games) in sizes {
        for game in 0..games {
            let mut g = Gomoku::with_rule(size, rule).unwrap();
            let mut nv = Naive::with_rule(size, rule);
            let mut before_last = nv.clone();
            loop {
                assert_eq!(legal(&g), nv.legal(), "size {size} game {game} ply {}", nv.ply);
                assert_eq!(g.outcome(), nv.outcome);
                assert_eq!(g.ply(), nv.ply);
                let empties = nv.cells[..size * size].iter().filter(|&&c| c == 0).count();
                assert_eq!(g.empty_count(), empties);
                if let Some(&old) = seen.get(&g.hash()) {
                    assert_eq!(old, nv.digest(), "hash collision or mismatch");
                } else {
                    seen.insert(g.hash(), nv.digest());
                }
                // Probe is_legal on a random index, including off-board ones.
                let probe = rng.random_range(..size * size + 8) as Action;
                let probe_ok = nv.outcome.is_none() && (probe as usize) < size * size && nv.cells[probe as usize] == 0;
                assert_eq!(g.is_legal(probe), probe_ok, "is_legal({probe})");
                if nv.ply % 7 == 3 {
                    assert_eq!(g.winning_points(Player::First), nv.winning_points(1), "{g:?}");
                    assert_eq!(g.winning_points(Player::Second), nv.winning_points(2));
                }
                if nv.outcome.is_some() {
                    break;
                }
                let side = if nv.ply & 1 == 0 { Player::First } else { Player::Second };
                assert_eq!(g.to_move(), ToMove::Player(side));
                let r = g.random_move(&mut rng);
                assert_eq!(nv.cells[r as usize], 0, "random_move picked a stone");
                // Half the games follow random_move, half pick from the naive list.
                let a = if game % 2 == 0 {
                    r
                } else {
                    let l = nv.legal();
                    *l.choose(&mut rng).unwrap()
                };
                before_last = nv.clone();
                assert_eq!(g.play(a), Ok(0));
                nv.play(a);
                assert_eq!(g.last_action(), Some(a));
            }
            stones_match(&g, &nv);
            assert!(!before_last.five_anywhere(), "a five existed before the end");
            let kind = match nv.outcome {
                Some(Outcome::Win(_)) => {
                    assert!(nv.five_anywhere());
                    "win"
                }
                _ => {
                    assert!(!nv.five_anywhere());
                    "draw"
                }
            };
            *endings.entry((size, kind)).or_default() += 1;
            overlines += usize::from(nv.overline_anywhere());
        }
    }
    Differential { endings, positions: seen.len(), overlines }
}

#[test]
fn random_games_match_the_naive_implementation() {
    let seen = random_games_match_naive(
        GomokuRule::Freestyle,
        2024,
        &[(7, 1200), (9, 800), (11, 500), (15, 300), (19, 200), (20, 200)],
    );
    // The random games did reach both endings on the small board.
    let endings = &seen.endings;
    assert!(endings[&(7, "draw")] > 10, "{endings:?}");
    assert!(endings[&(7, "win")] > 100, "{endings:?}");
    assert!(seen.positions > 100_000, "{}", seen.positions);
}

#[test]
fn random_standard_games_match_the_naive_implementation() {
    let seen = random_games_match_naive(GomokuRule::Standard, 2025, &[(7, 600), (9, 300), (15, 100), (20, 60)]);
    let endings = &seen.endings;
    assert!(endings[&(7, "draw")] > 10, "{endings:?}");
    assert!(endings[&(7, "win")] > 50, "{endings:?}");
    // Random play makes overlines often enough that games went on past some.
    assert!(seen.overlines > 20, "games ending with an overline on the board: {}", seen.overlines);
    assert!(seen.positions > 30_000, "{}", seen.positions);
}

#[test]
fn random_move_is_uniform_over_empty_points_in_both_regimes() {
    let mut rng = Rng::seed_from_u64(5);
    // Few stones (rejection sampling) and a mostly full board (counting rows).
    for stones in [6usize, 30] {
        let mut g = Gomoku::new(7).unwrap();
        let mut played = 0;
        while played < stones {
            let a = g.random_move(&mut rng);
            let mut t = g.clone();
            t.play(a).unwrap();
            // Keep the game going: skip moves that would end it.
            if t.outcome().is_none() {
                g = t;
                played += 1;
            }
        }
        let empties = legal(&g);
        assert_eq!(empties.len(), 49 - stones);
        let draws = 2000 * empties.len();
        let mut counts = vec![0usize; 49];
        for _ in 0..draws {
            counts[g.random_move(&mut rng) as usize] += 1;
        }
        for a in 0..49u16 {
            if empties.contains(&a) {
                let c = counts[a as usize];
                assert!((1700..2300).contains(&c), "point {a}: {c} of {draws}");
            } else {
                assert_eq!(counts[a as usize], 0, "occupied point {a} drawn");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Hashes.

#[test]
fn transposed_move_orders_give_the_same_hash() {
    let mut rng = Rng::seed_from_u64(77);
    for size in [7, 11, 15, 19, 20] {
        for _ in 0..50 {
            // A random game's moves up to (not including) its final move: no five anywhere,
            // so any reordering of each colour's moves is a legal game reaching it.
            let mut g = Gomoku::new(size).unwrap();
            let mut moves = Vec::new();
            loop {
                let a = g.random_move(&mut rng);
                let mut t = g.clone();
                t.play_unchecked(a);
                if t.outcome().is_some() {
                    break;
                }
                g = t;
                moves.push(a);
            }
            let mut xs: Vec<Action> = moves.iter().step_by(2).copied().collect();
            let mut os: Vec<Action> = moves.iter().skip(1).step_by(2).copied().collect();
            xs.shuffle(&mut rng);
            os.shuffle(&mut rng);
            let mut h = Gomoku::new(size).unwrap();
            for i in 0..xs.len() {
                h.play(xs[i]).unwrap();
                if i < os.len() {
                    h.play(os[i]).unwrap();
                }
            }
            assert_eq!(h.hash(), g.hash());
            assert_eq!(h.ply(), g.ply());
            assert_eq!(legal(&h), legal(&g));
            for y in 0..size {
                for x in 0..size {
                    assert_eq!(h.stone(x, y), g.stone(x, y));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Exact counts.

/// Leaf move sequences of length `depth` (sequences ending in a finished game stop early
/// and are not counted unless they end exactly at `depth`).
fn perft(g: &Gomoku, depth: usize, buf: &mut Vec<Vec<Action>>) -> u64 {
    if g.outcome().is_some() {
        return u64::from(depth == 0);
    }
    if depth == 0 {
        return 1;
    }
    let mut moves = buf.pop().unwrap_or_default();
    g.legal_actions(&mut moves);
    let n = if depth == 1 {
        moves.len() as u64
    } else {
        moves
            .iter()
            .map(|&a| {
                let mut c = g.clone();
                c.play_unchecked(a);
                perft(&c, depth - 1, buf)
            })
            .sum()
    };
    buf.push(moves);
    n
}

#[test]
fn perft_7x7_from_empty() {
    let g = Gomoku::new(7).unwrap();
    let mut buf = Vec::new();
    // No five is possible before ply 9, so each level multiplies by the empty count.
    assert_eq!(perft(&g, 1, &mut buf), 49);
    assert_eq!(perft(&g, 2, &mut buf), 2352);
    assert_eq!(perft(&g, 3, &mut buf), 110_544);
    assert_eq!(perft(&g, 4, &mut buf), 5_085_024);
}

#[test]
fn distinct_positions_at_depth_3_on_7x7() {
    // Two X stones (unordered) and one O stone: C(49,2) * 47 distinct positions, and the
    // hash must tell every one apart while merging the two orders of the X stones.
    let g = Gomoku::new(7).unwrap();
    let mut hashes = HashSet::new();
    for a in legal(&g) {
        let mut g1 = g.clone();
        g1.play_unchecked(a);
        for b in legal(&g1) {
            let mut g2 = g1.clone();
            g2.play_unchecked(b);
            for c in legal(&g2) {
                let mut g3 = g2.clone();
                g3.play_unchecked(c);
                hashes.insert(g3.hash());
            }
        }
    }
    assert_eq!(hashes.len(), 1176 * 47);
}

/// Counts, by ply from `g`, the move sequences that end the game exactly at that ply.
fn terminal_counts<G: Clone>(
    g: &G,
    depth: usize,
    max: usize,
    counts: &mut [u64],
    over: &impl Fn(&G) -> bool,
    moves: &impl Fn(&G) -> Vec<Action>,
    play: &impl Fn(&mut G, Action),
) {
    if over(g) {
        counts[depth] += 1;
        return;
    }
    if depth == max {
        return;
    }
    for a in moves(g) {
        let mut c = g.clone();
        play(&mut c, a);
        terminal_counts(&c, depth + 1, max, counts, over, moves, play);
    }
}

#[test]
fn terminal_counts_from_a_double_four_race_match_hand_count() {
    // 7x7, X to move. X has 0..3 on row 0 (sole winning point a = 4,0), O has 0..3 on
    // row 6 (sole winning point b = 4,6); E = 41 empty points. No other move makes a new
    // winning point for either side (every other line holds at most two of a colour).
    //   ply 1: X plays a.                                    1
    //   ply 2: X avoids a and b (E-2), O plays b.            39
    //   ply 3: X blocks b, O avoids a (E-2), X plays a; or X avoids a,b (E-2),
    //          O avoids a,b (E-3), X plays a: (E-2)(E-2)   = 1521
    //   ply 4: X avoids a,b (E-2); O blocks a then X avoids b (E-3), or O avoids a,b
    //          (E-3) and X avoids a,b (E-4); O plays b: (E-2)(E-3)(E-3) = 56316
    let xs = [(0, 0), (1, 0), (2, 0), (3, 0)];
    let os = [(0, 6), (1, 6), (2, 6), (3, 6)];
    let g = setup(7, &xs, &os);
    assert_eq!(g.empty_count(), 41);
    assert_eq!(g.winning_points(Player::First), vec![4]);
    assert_eq!(g.winning_points(Player::Second), vec![6 * 7 + 4]);
    let want = [0u64, 1, 39, 1521, 56_316];

    let mut counts = [0u64; 5];
    terminal_counts(&g, 0, 4, &mut counts, &|g: &Gomoku| g.outcome().is_some(), &legal, &|g: &mut Gomoku, a| {
        g.play_unchecked(a);
    });
    assert_eq!(counts, want);

    let mut nv = Naive::new(7);
    for i in 0..4 {
        nv.play((xs[i].1 * 7 + xs[i].0) as Action);
        nv.play((os[i].1 * 7 + os[i].0) as Action);
    }
    let mut naive_counts = [0u64; 5];
    terminal_counts(
        &nv,
        0,
        4,
        &mut naive_counts,
        &|n: &Naive| n.outcome.is_some(),
        &|n: &Naive| n.legal(),
        &|n: &mut Naive, a| n.play(a),
    );
    assert_eq!(naive_counts, want);
}

// ---------------------------------------------------------------------------------------
// Constructed positions.

/// Plays X's `line` with O answering on `dummies`, checking the game ends exactly on
/// X's last stone, which `winning_points` predicted.
fn assert_x_wins_with(size: usize, line: &[(usize, usize)], dummies: &[(usize, usize)]) {
    let (last, first) = line.split_last().unwrap();
    let g = setup(size, first, &dummies[..first.len()]);
    assert_eq!(g.outcome(), None, "{line:?} ended early");
    let win = g.action_at(last.0, last.1);
    assert!(g.winning_points(Player::First).contains(&win), "{line:?}: {:?}", g.winning_points(Player::First));
    let mut g = g;
    g.play(win).unwrap();
    assert_eq!(g.outcome(), Some(Outcome::Win(Player::First)), "{line:?}");
    assert!(legal(&g).is_empty());
    assert!(!g.is_legal(g.random_move(&mut Rng::seed_from_u64(1))));
    assert_eq!(g.play(g.random_move(&mut Rng::seed_from_u64(1))), Err(GameError::GameOver));
}

#[test]
fn fives_in_all_directions_and_at_every_edge_win() {
    for size in [7usize, 15, 19, 20] {
        let m = size - 1;
        // O's answers: four points off X's line (four stones cannot make five).
        let dummies = |avoid: &[(usize, usize)]| -> Vec<(usize, usize)> {
            (0..size).flat_map(|y| (0..size).map(move |x| (x, y))).filter(|p| !avoid.contains(p)).take(4).collect()
        };
        let lines: Vec<Vec<(usize, usize)>> = vec![
            (0..5).map(|i| (i, 0)).collect(),                // top edge, left corner
            (0..5).map(|i| (m - i, m)).collect(),            // bottom edge, right corner
            (0..5).map(|i| (0, m - i)).collect(),            // left edge, bottom corner
            (0..5).map(|i| (m, i)).collect(),                // right edge, top corner
            (0..5).map(|i| (i, i)).collect(),                // diagonal from 0,0
            (0..5).map(|i| (m - i, m - i)).collect(),        // diagonal into the far corner
            (0..5).map(|i| (m - i, i)).collect(),            // anti-diagonal from top right
            (0..5).map(|i| (i, m - i)).collect(),            // anti-diagonal from bottom left
            (0..5).map(|i| (i + 2, i + m - 4)).collect(),    // short diagonal at the bottom
            (0..5).map(|i| (m - 4 + i, 3)).collect(),        // inside row, ends at the edge
            [(2, 1), (2, 2), (2, 4), (2, 5), (2, 3)].into(), // filled gap in a column
        ];
        for mut line in lines {
            let d = dummies(&line);
            // Play the stones in a scrambled order; the last one completes the five.
            line.swap(0, 2);
            assert_x_wins_with(size, &line, &d);
        }
    }
}

#[test]
fn six_or_more_in_a_row_wins() {
    // Freestyle: an overline counts. X: 0,1,2 and 4,5 on row 3, then 3,3 makes six.
    let line = [(0, 3), (1, 3), (2, 3), (4, 3), (5, 3), (3, 3)];
    let dummies = [(0, 6), (2, 6), (4, 6), (6, 6), (1, 5)];
    assert_x_wins_with(7, &line, &dummies);
    // Seven on a diagonal: 0..2 and 4..6, then 3,3.
    let line = [(0, 0), (1, 1), (2, 2), (4, 4), (5, 5), (6, 6), (3, 3)];
    let dummies = [(6, 0), (0, 6), (3, 0), (0, 3), (6, 3), (3, 6)];
    assert_x_wins_with(7, &line, &dummies);
}

#[test]
fn runs_do_not_wrap_around_the_board_edge() {
    // Five consecutive actions (row-major) that wrap from one row into the next, and
    // diagonal points that would be adjacent bits in a flat board: no five.
    for size in [7usize, 15, 19, 20] {
        let m = size - 1;
        let wrap_row = [(m - 1, 1), (m, 1), (0, 2), (1, 2), (2, 2)];
        let wrap_col = [(1, m - 1), (1, m), (2, 0), (2, 1), (2, 2)];
        let wrap_diag = [(m - 2, 0), (m - 1, 1), (m, 2), (0, 3), (1, 4)];
        let wrap_anti = [(2, 0), (1, 1), (0, 2), (m, 3), (m - 1, 4)];
        for line in [wrap_row, wrap_col, wrap_diag, wrap_anti] {
            let os: Vec<(usize, usize)> =
                (0..size).map(|x| (x, m / 2 + 1)).filter(|p| !line.contains(p)).take(4).collect();
            let g = setup(size, &line, &os);
            assert_eq!(g.outcome(), None, "size {size}: {line:?}");
            assert!(g.winning_points(Player::First).is_empty());
        }
    }
}

#[test]
fn four_is_not_five_and_winning_points_see_open_and_broken_fours() {
    // X: 1..4 on row 2 (open four) and 0,1,3,4 on row 5 (broken four, gap at 2).
    let xs = [(1, 2), (2, 2), (3, 2), (4, 2), (0, 5), (1, 5), (3, 5), (4, 5)];
    let os = [(0, 0), (2, 0), (4, 0), (6, 0), (6, 2), (6, 3), (6, 6)];
    let g = setup(7, &xs[..8], &os);
    assert_eq!(g.outcome(), None);
    let want: Vec<Action> = [(0, 2), (5, 2), (2, 5)].iter().map(|&(x, y)| g.action_at(x, y)).collect();
    assert_eq!(g.winning_points(Player::First), want);
    // O's 6,2 6,3 and 6,6 are no threat; row 0's O stones have gaps.
    assert_eq!(g.winning_points(Player::Second), Vec::<Action>::new());
}

#[test]
fn tactic_names_the_win_else_the_single_block() {
    use dojo_game::gomoku::Tactic;
    let at = |g: &Gomoku, x, y| g.action_at(x, y);
    // X has a broken four on row 1 (gap at (2,1)); O has an open four on row 4.
    let g = setup(9, &[(0, 1), (1, 1), (3, 1), (4, 1), (8, 8)], &[(1, 4), (2, 4), (3, 4), (4, 4)]);
    assert_eq!(g.to_move(), ToMove::Player(Player::Second));
    // O to move here: O's open four wins at (0,4) or (5,4).
    let t = g.tactic().unwrap();
    assert_eq!(t, Tactic::Win(vec![at(&g, 0, 4), at(&g, 5, 4)]));
    assert!(t.solved_by(at(&g, 5, 4)) && !t.solved_by(at(&g, 2, 1)));
    assert_eq!(t.kind(), "win");
    // X to move with no five of its own; O threatens five only at (4,4): block it.
    let g = setup(9, &[(0, 8), (2, 8), (4, 8), (6, 8)], &[(0, 4), (1, 4), (2, 4), (3, 4)]);
    assert_eq!(g.tactic(), Some(Tactic::Block(at(&g, 4, 4))));
    assert!(g.tactic().unwrap().solved_by(at(&g, 4, 4)));
    assert!(!g.tactic().unwrap().solved_by(at(&g, 5, 4)));
    // O threatens two points (an open four): nothing saves X, so no tactic.
    let g = setup(9, &[(0, 8), (2, 8), (4, 8), (6, 8)], &[(1, 4), (2, 4), (3, 4), (4, 4)]);
    assert_eq!(g.tactic(), None);
    // Quiet positions and finished games have none.
    assert_eq!(setup(9, &[(4, 4)], &[(5, 5)]).tactic(), None);
    let done = setup(9, &[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)], &[(0, 5), (1, 5), (2, 5), (3, 5)]);
    assert!(done.outcome().is_some());
    assert_eq!(done.tactic(), None);
}

#[test]
fn full_board_without_five_is_a_draw() {
    let pattern = ["XOXOXOX", "XOXOXOX", "OXOXOXO", "OXOXOXO", "XOXOXOX", "XOXOXOX", "OXOXOXO"];
    let mut xs = Vec::new();
    let mut os = Vec::new();
    for (y, row) in pattern.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            if c == 'X' { &mut xs } else { &mut os }.push((x, y));
        }
    }
    assert_eq!((xs.len(), os.len()), (25, 24));
    let g = setup(7, &xs[..24], &os);
    assert_eq!(g.outcome(), None);
    assert_eq!(legal(&g), vec![g.action_at(xs[24].0, xs[24].1)]);
    let mut g = g;
    g.play(g.action_at(xs[24].0, xs[24].1)).unwrap();
    assert_eq!(g.outcome(), Some(Outcome::Draw));
    assert_eq!(g.empty_count(), 0);
    assert!(legal(&g).is_empty());
    assert_eq!(g.play(0), Err(GameError::GameOver));
}

// ---------------------------------------------------------------------------------------
// Symmetries and planes.

#[test]
fn symmetries_are_the_eight_distinct_maps_of_the_square_and_form_a_group() {
    for size in [7usize, 8, 15, 19, 20] {
        let g = Gomoku::new(size).unwrap();
        assert_eq!(g.num_symmetries(), 8);
        let n = (size * size) as Action;
        let perms: Vec<Vec<Action>> = (0..8).map(|s| (0..n).map(|a| g.map_action(s, a)).collect()).collect();
        assert_eq!(perms[0], (0..n).collect::<Vec<_>>());
        for p in &perms {
            let mut sorted = p.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>(), "not a permutation");
        }
        let distinct: HashSet<&Vec<Action>> = perms.iter().collect();
        assert_eq!(distinct.len(), 8);
        for s in 0..8 {
            assert_eq!(g.map_action(s, n), n, "off-board actions stay put");
        }
        for p in &perms {
            for q in &perms {
                let composed: Vec<Action> = (0..n).map(|a| q[p[a as usize] as usize]).collect();
                assert!(perms.contains(&composed), "not closed under composition");
            }
        }
        // Each map keeps neighbours neighbours (it is a rigid motion of the grid).
        for s in 0..8 {
            for a in 0..n {
                let (x, y) = g.point(a);
                let (mx, my) = g.point(g.map_action(s, a));
                let c = (size - 1) as f64 / 2.0;
                let d0 = (x as f64 - c).powi(2) + (y as f64 - c).powi(2);
                let d1 = (mx as f64 - c).powi(2) + (my as f64 - c).powi(2);
                assert_eq!(d0, d1, "sym {s} moved {x},{y} off its circle");
            }
        }
    }
    // Known images of 1,0 on 15x15: rotations then reflections.
    let g = Gomoku::new(15).unwrap();
    let images: Vec<String> = (0..8).map(|s| g.action_to_text(g.map_action(s, g.action_at(1, 0)))).collect();
    assert_eq!(images, ["1,0", "14,1", "13,14", "0,13", "13,0", "0,1", "1,14", "14,13"]);
}

#[test]
fn mapped_planes_equal_planes_of_the_mapped_game() {
    let mut rng = Rng::seed_from_u64(11);
    for size in [7usize, 10, 15] {
        for _ in 0..20 {
            let mut g = Gomoku::new(size).unwrap();
            let mut moves = Vec::new();
            let len = rng.random_range(..size * size / 2);
            while moves.len() < len && g.outcome().is_none() {
                let a = g.random_move(&mut rng);
                g.play(a).unwrap();
                moves.push(a);
            }
            let shape = g.plane_shape();
            assert_eq!((shape.channels, shape.height, shape.width), (8, size, size));
            let plane = size * size;
            let mut planes = vec![0.0; shape.len()];
            g.encode_planes(&mut planes);
            for s in 0..8 {
                let mut h = Gomoku::new(size).unwrap();
                for &a in &moves {
                    h.play(g.map_action(s, a)).unwrap();
                }
                assert_eq!(h.outcome(), g.outcome());
                let mut want = vec![0.0; shape.len()];
                h.encode_planes(&mut want);
                let mut got = vec![0.0; shape.len()];
                for c in 0..shape.channels {
                    g.map_plane(s, &planes[c * plane..(c + 1) * plane], &mut got[c * plane..(c + 1) * plane]);
                }
                assert_eq!(got, want, "size {size} sym {s}");
                let mut mapped_legal: Vec<Action> = legal(&g).iter().map(|&a| g.map_action(s, a)).collect();
                mapped_legal.sort_unstable();
                assert_eq!(mapped_legal, legal(&h));
            }
        }
    }
}

#[test]
fn planes_are_from_the_side_to_move() {
    let mut g = Gomoku::new(7).unwrap();
    let mut planes = vec![9.0; 8 * 49];
    g.encode_planes(&mut planes);
    assert!(planes[..3 * 49].iter().all(|&v| v == 0.0));
    assert!(planes[3 * 49..4 * 49].iter().all(|&v| v == 1.0), "ones plane");
    assert!(planes[4 * 49..].iter().all(|&v| v == 0.0), "no threats on an empty board");
    g.play(g.action_at(3, 3)).unwrap(); // X
    g.play(g.action_at(4, 2)).unwrap(); // O
    g.encode_planes(&mut planes);
    // The stone and last-move planes' set cells.
    let ones = |p: &[f32]| -> Vec<usize> { (0..3 * 49).filter(|&i| p[i] == 1.0).collect() };
    // X to move: X's stones, O's stones, O's last move. Plane row = y.
    assert_eq!(ones(&planes), vec![3 * 7 + 3, 49 + 2 * 7 + 4, 98 + 2 * 7 + 4]);
    g.play(g.action_at(0, 6)).unwrap(); // X
    g.encode_planes(&mut planes);
    assert_eq!(ones(&planes), vec![2 * 7 + 4, 49 + 3 * 7 + 3, 49 + 6 * 7, 98 + 6 * 7]);
    assert_eq!(planes[..3 * 49].iter().filter(|&&v| v != 0.0).count(), 4);
    assert!(planes[3 * 49..4 * 49].iter().all(|&v| v == 1.0), "ones plane");
}

// ---------------------------------------------------------------------------------------
// Notation, errors, rendering, specs.

#[test]
fn notation_round_trips() {
    let g = Gomoku::new(15).unwrap();
    assert_eq!(g.action_to_text(7 * 15 + 3), "3,7");
    assert_eq!(g.action_from_text("3,7"), Ok(7 * 15 + 3));
    assert_eq!(g.action_from_text(" 14 , 0 "), Ok(14));
    for a in 0..225 {
        assert_eq!(g.action_from_text(&g.action_to_text(a)), Ok(a));
    }
    let moves = g.moves_from_text("7,7; 8,8\n9,9  10,10;;0,14").unwrap();
    assert_eq!(moves, vec![7 * 16, 8 * 16, 9 * 16, 10 * 16, 14 * 15]);
    assert_eq!(g.moves_to_text(&moves), "7,7 8,8 9,9 10,10 0,14");
    assert_eq!(g.moves_from_text(&g.moves_to_text(&moves)).unwrap(), moves);
}

#[test]
fn bad_notation_and_bad_moves_say_what_is_wrong() {
    let g = Gomoku::new(15).unwrap();
    let cases = [
        ("7", "cannot parse gomoku move \"7\": expected x,y"),
        ("a,b", "x \"a\" is not a non-negative whole number"),
        ("-1,3", "x \"-1\" is not a non-negative whole number"),
        ("3,", "y \"\" is not a non-negative whole number"),
        ("3,+4", "y \"+4\" is not a non-negative whole number"),
        ("15,3", "point 15,3 is off the 15x15 board (x and y are 0..=14)"),
        ("3,99999999999999999999999", "point 3,99999999999999999999999 is off"),
    ];
    for (text, want) in cases {
        let err = g.action_from_text(text).unwrap_err().to_string();
        assert!(err.contains(want), "{text}: {err}");
    }
    let err = g.moves_from_text("7,7 8,8;x").unwrap_err().to_string();
    assert!(err.contains("\"x\""), "{err}");

    let mut g = g;
    g.play(g.action_at(7, 7)).unwrap();
    assert_eq!(g.play(g.action_at(7, 7)).unwrap_err().to_string(), "illegal move 7,7: point 7,7 is already occupied");
    assert_eq!(
        g.play(225).unwrap_err().to_string(),
        "illegal move 0,15: point 0,15 is off the 15x15 board (x and y are 0..=14)"
    );
    assert!(g.play(Action::MAX).is_err());
    // The failed moves changed nothing.
    assert_eq!(g.ply(), 1);
    assert_eq!(g.to_move(), ToMove::Player(Player::Second));

    let won = setup(7, &[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)], &[(0, 1), (1, 1), (2, 1), (6, 6)]);
    assert_eq!(won.outcome(), Some(Outcome::Win(Player::First)));
    let mut won = won;
    assert_eq!(won.play(won.action_at(5, 5)).unwrap_err().to_string(), "the game is already over");
}

#[test]
fn bad_sizes_are_refused_and_specs_round_trip() {
    for size in [0usize, 6, 21, 300] {
        let err = Gomoku::new(size).unwrap_err();
        assert!(matches!(err, GameError::Spec { .. }));
        let msg = err.to_string();
        assert!(msg.contains(&format!("size {size} is outside 7..=20")), "{msg}");
    }
    for size in [7usize, 11, 15, 19, 20] {
        let g = Gomoku::new(size).unwrap();
        assert_eq!(g.spec().to_string(), format!("gomoku:{size}"));
        assert_eq!(g.num_actions(), size * size);
        let spec: GameSpec = format!("gomoku:{size}").parse().unwrap();
        let any = spec.start().unwrap();
        assert_eq!(any.spec(), spec);
    }
}

#[test]
fn render_shows_stones_coordinates_and_the_last_move() {
    let mut g = Gomoku::new(7).unwrap();
    g.play(g.action_at(3, 3)).unwrap();
    g.play(g.action_at(4, 3)).unwrap();
    let want = [
        "     0  1  2  3  4  5  6",
        "  0  .  .  .  .  .  .  .",
        "  1  .  .  .  .  .  .  .",
        "  2  .  .  .  .  .  .  .",
        "  3  .  .  .  X[O]  .  .",
        "  4  .  .  .  .  .  .  .",
        "  5  .  .  .  .  .  .  .",
        "  6  .  .  .  .  .  .  .",
        "X to move (ply 2), last 4,3",
        "",
    ]
    .join("\n");
    assert_eq!(g.render(), want);
    let won = setup(7, &[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)], &[(0, 1), (1, 1), (2, 1), (6, 6)]);
    assert!(won.render().ends_with("X wins (ply 9), last 4,0\n"), "{}", won.render());
}

#[test]
fn points_and_actions_agree_on_every_size() {
    for size in 7..=20usize {
        let g = Gomoku::new(size).unwrap();
        for a in 0..(size * size + 3 * size) as Action {
            let (x, y) = g.point(a);
            assert_eq!((x, y), (a as usize % size, a as usize / size), "size {size} {a}");
            assert_eq!(g.action_at(x, y), a);
        }
        assert_eq!(g.point(Action::MAX), (65535 % size, 65535 / size));
    }
    // A position stays small: cheap to clone in search, and no bloat in `AnyGame`.
    assert!(std::mem::size_of::<Gomoku>() <= 200);
}

/// Compares the lookahead with playing every move and reply out, over random 7×7 games of
/// `rule`; how often it said win, lost and moves.
fn lookahead_matches_playing_out(rule: GomokuRule) -> [u32; 3] {
    let mut seen = [0u32; 3];
    let (mut fast, mut slow) = (Vec::new(), Vec::new());
    for seed in 0..40 {
        let mut rng = Rng::seed_from_u64(seed);
        let mut g = Gomoku::with_rule(7, rule).unwrap();
        while g.outcome().is_none() {
            // Early positions cannot hold a four; checking them costs the most plays.
            if g.ply() >= 6 {
                let got = g.lookahead(&mut fast);
                match (got, lookahead_by_play(&g, &mut slow)) {
                    (Lookahead::Win(a), Lookahead::Win(_)) => {
                        let mut after = g.clone();
                        let ToMove::Player(me) = g.to_move() else { unreachable!() };
                        after.play(a).unwrap();
                        assert_eq!(after.outcome(), Some(Outcome::Win(me)));
                        seen[0] += 1;
                    }
                    (Lookahead::Lost, Lookahead::Lost) => seen[1] += 1,
                    (Lookahead::Moves, Lookahead::Moves) => {
                        assert_eq!(fast, slow, "safe moves at ply {}", g.ply());
                        seen[2] += 1;
                    }
                    (got, want) => panic!("lookahead {got:?}, playing it out {want:?}: {g:?}"),
                }
            }
            g.play(g.random_move(&mut rng)).unwrap();
        }
    }
    seen
}

#[test]
fn lookahead_matches_playing_every_move_and_reply() {
    let seen = lookahead_matches_playing_out(GomokuRule::Freestyle);
    assert!(seen.iter().all(|&n| n > 5), "win/lost/moves {seen:?}");
}

#[test]
fn standard_lookahead_matches_playing_every_move_and_reply() {
    let seen = lookahead_matches_playing_out(GomokuRule::Standard);
    assert!(seen.iter().all(|&n| n > 5), "win/lost/moves {seen:?}");
}

// ---------------------------------------------------------------------------------------
// Threat planes (planes 4..8): where each side would make five, and an open four.

impl Naive {
    /// The points where a stone of `who` on `c` would make five at: every window of five
    /// points through `c` holding three of `who`'s stones and no other stone gives its
    /// remaining empty point.
    fn four_partners(&self, who: u8, c: usize) -> HashSet<usize> {
        let n = self.n as i64;
        let (cx, cy) = ((c % self.n) as i64, (c / self.n) as i64);
        let mut out = HashSet::new();
        for (dx, dy) in [(1, 0), (0, 1), (1, 1), (-1, 1)] {
            for back in 0..5 {
                let pts: Vec<(i64, i64)> = (0..5).map(|i| (cx + (i - back) * dx, cy + (i - back) * dy)).collect();
                if pts.iter().any(|&(x, y)| x < 0 || y < 0 || x >= n || y >= n) {
                    continue;
                }
                // Standard: an own stone just past either end would make the five six.
                let (before, after) = ((pts[0].0 - dx, pts[0].1 - dy), (pts[4].0 + dx, pts[4].1 + dy));
                if self.exact && (self.at(before.0, before.1) == who || self.at(after.0, after.1) == who) {
                    continue;
                }
                let own = pts.iter().filter(|&&(x, y)| self.at(x, y) == who).count();
                let empty: Vec<usize> = pts
                    .iter()
                    .filter(|&&(x, y)| self.at(x, y) == 0 && (x, y) != (cx, cy))
                    .map(|&(x, y)| (y * n + x) as usize)
                    .collect();
                if own == 3 && empty.len() == 1 {
                    out.insert(empty[0]);
                }
            }
        }
        out
    }

    /// Planes 4..8 as `dojo` should encode them, side to move first.
    fn threat_planes(&self) -> Vec<f32> {
        let cells = self.n * self.n;
        let me = if self.ply.is_multiple_of(2) { 1 } else { 2 };
        let mut out = vec![0.0; 4 * cells];
        for (k, who) in [me, 3 - me].into_iter().enumerate() {
            for a in self.winning_points(who) {
                out[k * cells + a as usize] = 1.0;
            }
            for c in (0..cells).filter(|&c| self.cells[c] == 0) {
                if self.four_partners(who, c).len() >= 2 {
                    out[(2 + k) * cells + c] = 1.0;
                }
            }
        }
        out
    }
}

fn threat_planes(g: &Gomoku) -> Vec<f32> {
    let mut planes = vec![0.0; g.plane_shape().len()];
    g.encode_planes(&mut planes);
    planes[4 * g.size() * g.size()..].to_vec()
}

/// The set points of plane `k` of [`threat_planes`], as `(x, y)`.
fn threat_points(g: &Gomoku, k: usize) -> Vec<(usize, usize)> {
    let cells = g.size() * g.size();
    let planes = threat_planes(g);
    (0..cells).filter(|&i| planes[k * cells + i] == 1.0).map(|i| (i % g.size(), i / g.size())).collect()
}

/// Compares the threat planes with the naive count on random dense positions of `rule`
/// (`games` per size); the set points per plane.
fn threat_planes_match_naive(rule: GomokuRule, seed: u64, games: usize) -> [usize; 4] {
    let mut rng = Rng::seed_from_u64(seed);
    let mut seen = [0usize; 4];
    for size in [7usize, 9, 15, 19] {
        for _ in 0..games {
            let mut g = Gomoku::with_rule(size, rule).unwrap();
            let mut nv = Naive::with_rule(size, rule);
            // Dense positions, where fours and open fours are common; finished games too.
            let len = rng.random_range(..size * size * 3 / 4);
            for _ in 0..len {
                if g.outcome().is_some() {
                    break;
                }
                let a = g.random_move(&mut rng);
                g.play(a).unwrap();
                nv.play(a);
            }
            let want = nv.threat_planes();
            let got = threat_planes(&g);
            assert_eq!(got, want, "size {size}\n{}", g.render());
            let cells = size * size;
            for (k, n) in seen.iter_mut().enumerate() {
                *n += got[k * cells..(k + 1) * cells].iter().filter(|&&v| v == 1.0).count();
            }
        }
    }
    seen
}

#[test]
fn threat_planes_match_the_naive_count_on_random_positions() {
    let seen = threat_planes_match_naive(GomokuRule::Freestyle, 23, 150);
    // The positions exercised every plane, many times.
    assert!(seen.iter().all(|&n| n > 200), "set points per plane: {seen:?}");
}

#[test]
fn standard_threat_planes_match_the_naive_count_on_random_positions() {
    let seen = threat_planes_match_naive(GomokuRule::Standard, 24, 100);
    assert!(seen.iter().all(|&n| n > 100), "set points per plane: {seen:?}");
}

#[test]
fn threat_planes_see_open_broken_and_blocked_shapes() {
    // X: three in a row on row 4 (2,4) (3,4) (4,4); O far away. X to move.
    let g = setup(9, &[(2, 4), (3, 4), (4, 4)], &[(0, 0), (8, 0), (0, 8)]);
    assert_eq!(threat_points(&g, 0), vec![], "no five for X yet");
    // Extending either end makes .XXXX.; (0,4) and (6,4) make only a broken four.
    assert_eq!(threat_points(&g, 2), vec![(1, 4), (5, 4)]);
    assert_eq!(threat_points(&g, 3), vec![], "O has nothing");

    // O blocks the left end: OXXX.. has no open four left, only fours.
    let g = setup(9, &[(2, 4), (3, 4), (4, 4), (8, 8)], &[(0, 0), (8, 0), (1, 4)]);
    // O to move: plane 2 is O's, plane 3 is X's.
    assert_eq!(threat_points(&g, 3), vec![]);
    assert_eq!(threat_points(&g, 1), vec![], "X has no five yet");

    // .XXXX. : both ends make five, for the side not to move too.
    let g = setup(9, &[(2, 4), (3, 4), (4, 4), (5, 4)], &[(0, 0), (8, 0), (0, 8)]);
    assert_eq!(threat_points(&g, 1), vec![(1, 4), (6, 4)], "X's fives, O to move");
    assert_eq!(threat_points(&g, 0), vec![], "O's fives");

    // XXX.X: the gap makes five (a broken four).
    let g = setup(9, &[(0, 2), (1, 2), (2, 2), (4, 2)], &[(0, 8), (8, 8), (8, 0)]);
    assert_eq!(threat_points(&g, 1), vec![(3, 2)]);

    // A four-four from one stone: three along row 0 and three down column 3 meet at (3,0).
    let g =
        setup(9, &[(0, 0), (1, 0), (2, 0), (3, 1), (3, 2), (3, 3)], &[(8, 8), (6, 8), (8, 6), (4, 8), (8, 4), (6, 6)]);
    let opens = threat_points(&g, 2);
    assert!(opens.contains(&(3, 0)), "the four-four point: {opens:?}");
    assert_eq!(threat_points(&g, 0), vec![]);
}

// ---------------------------------------------------------------------------------------
// The standard rule: exactly five wins.

fn points(g: &Gomoku, ps: &[(usize, usize)]) -> Vec<Action> {
    ps.iter().map(|&(x, y)| g.action_at(x, y)).collect()
}

/// X: 0,1,2 and 4,5 on row 3 of a 7×7 board, O's stones apart on row 6 and at 1,5; X to
/// move. 3,3 makes six.
const OVERLINE_XS: [(usize, usize); 5] = [(0, 3), (1, 3), (2, 3), (4, 3), (5, 3)];
const OVERLINE_OS: [(usize, usize); 5] = [(0, 6), (2, 6), (4, 6), (6, 6), (1, 5)];

#[test]
fn an_overline_wins_under_freestyle_only() {
    let free = setup_with(GomokuRule::Freestyle, 7, &OVERLINE_XS, &OVERLINE_OS);
    let standard = setup_with(GomokuRule::Standard, 7, &OVERLINE_XS, &OVERLINE_OS);
    assert_eq!((free.rule(), standard.rule()), (GomokuRule::Freestyle, GomokuRule::Standard));
    let six = free.action_at(3, 3);
    assert_eq!(free.winning_points(Player::First), [six]);
    assert_eq!(standard.winning_points(Player::First), Vec::<Action>::new(), "six is no five-point");
    assert_eq!(free.tactic(), Some(dojo_game::gomoku::Tactic::Win(vec![six])));
    assert_eq!(standard.tactic(), None);
    let mut out = Vec::new();
    assert_eq!(free.lookahead(&mut out), Lookahead::Win(six));
    assert_eq!(standard.lookahead(&mut out), Lookahead::Moves);
    assert_eq!(out, legal(&standard), "no win, nothing to block: every move");
    assert_eq!(threat_points(&free, 0), [(3, 3)]);
    assert_eq!(threat_points(&standard, 0), Vec::<(usize, usize)>::new());
    let (mut free, mut standard) = (free, standard);
    free.play(six).unwrap();
    standard.play(six).unwrap();
    assert_eq!(free.outcome(), Some(Outcome::Win(Player::First)));
    assert_eq!(standard.outcome(), None, "six in a row does not win\n{}", standard.render());
    assert_eq!(standard.to_move(), ToMove::Player(Player::Second));
    // Seven on a diagonal neither.
    let xs = [(0, 0), (1, 1), (2, 2), (4, 4), (5, 5), (6, 6), (3, 3)];
    let os = [(6, 0), (0, 6), (3, 0), (0, 3), (6, 3), (3, 6)];
    assert_eq!(setup_with(GomokuRule::Standard, 7, &xs, &os).outcome(), None);
    assert_eq!(setup_with(GomokuRule::Freestyle, 7, &xs, &os).outcome(), Some(Outcome::Win(Player::First)));
}

#[test]
fn exactly_five_wins_with_an_opponent_stone_or_a_gap_beside_it() {
    // (X's five on row 4, the last stone completing it; O's other stones off the line.)
    type Stones<'a> = &'a [(usize, usize)];
    let cases: [(Stones, Stones); 4] = [
        // O X X X X X O: both ends taken by the opponent.
        (&[(1, 4), (2, 4), (4, 4), (5, 4), (3, 4)], &[(0, 4), (6, 4), (0, 0), (8, 8)]),
        // X X X X X O: from the board's edge to an opponent stone.
        (&[(0, 4), (1, 4), (2, 4), (4, 4), (3, 4)], &[(5, 4), (0, 0), (8, 8), (8, 0)]),
        // X X X X X . X: a gap before the sixth stone.
        (&[(0, 4), (1, 4), (2, 4), (3, 4), (6, 4), (4, 4)], &[(0, 0), (8, 8), (8, 0), (0, 8), (2, 0)]),
        // The last stone makes six along its row and exactly five down its column.
        (
            &[(0, 2), (1, 2), (2, 2), (4, 2), (5, 2), (3, 3), (3, 4), (3, 5), (3, 6), (3, 2)],
            &[(0, 0), (2, 0), (4, 0), (6, 0), (8, 0), (0, 8), (2, 8), (4, 8), (6, 8)],
        ),
    ];
    for (xs, os) in cases {
        for rule in [GomokuRule::Standard, GomokuRule::Freestyle] {
            let (last, first) = xs.split_last().unwrap();
            let mut g = setup_with(rule, 9, first, &os[..first.len()]);
            assert_eq!(g.outcome(), None, "{rule}: {xs:?}");
            let win = g.action_at(last.0, last.1);
            assert!(g.winning_points(Player::First).contains(&win), "{rule}: {xs:?}");
            g.play(win).unwrap();
            assert_eq!(g.outcome(), Some(Outcome::Win(Player::First)), "{rule}: {xs:?}\n{}", g.render());
        }
    }
}

#[test]
fn a_point_that_would_make_six_is_no_five_point_under_standard() {
    // Row 3: X 0,1,2 . 4,5 (3,3 makes six). Row 6: X 2,3,4,5 . 7: 1,6 makes exactly five,
    // 6,6 six. O's stones on rows 0 and 8, two apart. X to move.
    let xs = [(0, 3), (1, 3), (2, 3), (4, 3), (5, 3), (2, 6), (3, 6), (4, 6), (5, 6), (7, 6)];
    let os = [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0), (0, 8), (2, 8), (4, 8), (6, 8), (8, 8)];
    let free = setup_with(GomokuRule::Freestyle, 9, &xs, &os);
    let standard = setup_with(GomokuRule::Standard, 9, &xs, &os);
    assert_eq!(free.winning_points(Player::First), points(&free, &[(3, 3), (1, 6), (6, 6)]));
    assert_eq!(standard.winning_points(Player::First), points(&standard, &[(1, 6)]));
    assert_eq!(threat_points(&free, 0), [(3, 3), (1, 6), (6, 6)]);
    assert_eq!(threat_points(&standard, 0), [(1, 6)]);
    let mut out = Vec::new();
    assert_eq!(free.lookahead(&mut out), Lookahead::Win(free.action_at(3, 3)));
    assert_eq!(standard.lookahead(&mut out), Lookahead::Win(standard.action_at(1, 6)));
    // One more X stone (8,4, making nothing): O to move faces three five-points by
    // freestyle (lost), one by standard (its single block).
    let xs_more = [&xs[..], &[(8, 4)]].concat();
    let free = setup_with(GomokuRule::Freestyle, 9, &xs_more, &os);
    let standard = setup_with(GomokuRule::Standard, 9, &xs_more, &os);
    assert_eq!(free.tactic(), None, "three points to block: lost");
    assert_eq!(standard.tactic(), Some(dojo_game::gomoku::Tactic::Block(standard.action_at(1, 6))));
    assert_eq!(free.lookahead(&mut out), Lookahead::Lost);
    assert_eq!(standard.lookahead(&mut out), Lookahead::Moves);
    assert_eq!(out, points(&standard, &[(1, 6)]));
}

#[test]
fn open_fours_under_standard_complete_into_exactly_five() {
    // X: 2,3,4 on row 4 and a stone at 7,4. 5,4 makes 2..5 with five-points 1,4 (exact)
    // and 6,4 (2..7: six); 1,4 makes 1..4 with 0,4 and 5,4, both exact.
    let xs = [(2, 4), (3, 4), (4, 4), (7, 4)];
    let os = [(0, 0), (8, 0), (0, 8), (8, 8)];
    let free = setup_with(GomokuRule::Freestyle, 11, &xs, &os);
    let standard = setup_with(GomokuRule::Standard, 11, &xs, &os);
    assert_eq!(threat_points(&free, 2), [(1, 4), (5, 4)]);
    // 5,4's second five-point, 6,4, would make six: it is an open four no more.
    assert_eq!(threat_points(&standard, 2), [(1, 4)]);
}

#[test]
fn vcf_under_standard_does_not_count_an_overline() {
    // X: 3,4,5 and 8 on row 7, 6,8 6,9 6,10 down column 6; O at 2,7 and 6,11 closes the
    // ends, four more O far away. 6,7 makes a four down the column (five at 6,6) and, by
    // freestyle, one along the row whose five at 7,7 would be six (3..8): a double four.
    let xs = [(3, 7), (4, 7), (5, 7), (8, 7), (6, 8), (6, 9), (6, 10)];
    let os = [(2, 7), (6, 11), (0, 0), (14, 0), (0, 14), (14, 14), (12, 2)];
    let free = setup_with(GomokuRule::Freestyle, 15, &xs, &os);
    let standard = setup_with(GomokuRule::Standard, 15, &xs, &os);
    let won = vcf(&free, Player::First, 10_000);
    assert_eq!(won.first(), Some(free.action_at(6, 7)), "{won:?}");
    assert_eq!(won.attacker_moves(), 2);
    let none = vcf(&standard, Player::First, 10_000);
    assert_eq!((none.line, none.out_of_budget), (None, false));
    assert!(none.nodes > 0, "the fours were tried");
    let mut moves = legal(&free);
    assert_eq!(free.threat_search(10_000, &mut moves), Lookahead::Win(free.action_at(6, 7)));
    let mut moves = legal(&standard);
    assert_eq!(standard.threat_search(10_000, &mut moves), Lookahead::Moves);
    assert_eq!(moves, legal(&standard));
}

#[test]
fn perft_counts_an_overline_as_no_win_under_standard() {
    // OVERLINE position on 7×7: 39 empty points, X to move. Freestyle: 3,3 ends the game,
    // the other 38 each leave O 38 replies; standard: all 39 do.
    let free = setup_with(GomokuRule::Freestyle, 7, &OVERLINE_XS, &OVERLINE_OS);
    let standard = setup_with(GomokuRule::Standard, 7, &OVERLINE_XS, &OVERLINE_OS);
    let mut buf = Vec::new();
    assert_eq!(perft(&free, 2, &mut buf), 38 * 38);
    assert_eq!(perft(&standard, 2, &mut buf), 39 * 38);
    // From the empty board no five is possible within 4 plies: the rules agree.
    assert_eq!(perft(&Gomoku::with_rule(7, GomokuRule::Standard).unwrap(), 3, &mut buf), 110_544);
}

#[test]
fn the_rule_keeps_freestyle_hashes_and_maps_to_gomocup_numbers() {
    let moves = [(7, 7), (8, 8), (6, 6), (9, 9)];
    let free = setup(15, &moves[..2], &moves[2..]);
    let also = setup_with(GomokuRule::Freestyle, 15, &moves[..2], &moves[2..]);
    let standard = setup_with(GomokuRule::Standard, 15, &moves[..2], &moves[2..]);
    assert_eq!(also.hash(), free.hash());
    assert_ne!(standard.hash(), free.hash(), "the same stones under another rule");
    // One key tells the rules apart: the difference is the empty boards'.
    let empty = |r| Gomoku::with_rule(15, r).unwrap().hash();
    assert_eq!(standard.hash() ^ free.hash(), empty(GomokuRule::Standard) ^ empty(GomokuRule::Freestyle));
    assert_eq!(Gomoku::new(15).unwrap().rule(), GomokuRule::Freestyle);
    assert_eq!(standard.clone().framed(20).unwrap().rule(), GomokuRule::Standard);
    assert_eq!(standard.spec().to_string(), "gomoku:15:standard", "the spec names the rule");
    assert_eq!(free.spec().to_string(), "gomoku:15", "freestyle, the default, is not written");
    let mask = |m| GomokuRule::from_gomocup(m);
    assert_eq!(
        [mask(0), mask(1), mask(2), mask(3)],
        [
            Some(GomokuRule::Freestyle),
            Some(GomokuRule::Standard),
            Some(GomokuRule::Freestyle),
            Some(GomokuRule::Standard)
        ]
    );
    assert_eq!([mask(4), mask(5), mask(8), mask(9), mask(16)], [None; 5]);
    assert_eq!((GomokuRule::Freestyle.gomocup(), GomokuRule::Standard.gomocup()), (0, 1));
    assert_eq!(GomokuRule::Standard.to_string(), "standard");
}
