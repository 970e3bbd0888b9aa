//! Connect Four bitboards against a naive array implementation, perft, notation, symmetry,
//! errors and the rollout heuristic.

use dojo_base::bits::{BitWord, Bits192};
use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_game::tactics::Tactics;
use dojo_game::tactics::{lookahead_by_play, two_step_lookahead_by_play, Lookahead};
use dojo_game::Symmetries;
use dojo_game::{Action, AnyGame, Game, GameError, GameSpec, Outcome, Player, ToMove};
use rand::{seq::IndexedRandom, RngExt, SeedableRng};
use std::collections::HashMap;

const EMPTY: u8 = 0;
const BLOCK: u8 = 3;

/// The rules written the obvious way: a grid of cells and a per-column "next row" pointer
/// that skips blocked cells, like the saiblo framework's `top[]` array.
#[derive(Clone, Debug)]
struct Naive {
    w: usize,
    h: usize,
    /// `cells[c * h + r]`: EMPTY, 1 (first player), 2 (second player) or BLOCK.
    cells: Vec<u8>,
    /// Next free row of each column (`h` when none).
    top: Vec<usize>,
    ply: usize,
    free: usize,
    result: Option<Outcome>,
}

impl Naive {
    fn new(w: usize, h: usize, blocked: &[(usize, usize)]) -> Naive {
        let mut cells = vec![EMPTY; w * h];
        for &(c, r) in blocked {
            cells[c * h + r] = BLOCK;
        }
        let free = cells.iter().filter(|&&x| x == EMPTY).count();
        let mut n = Naive { w, h, cells, top: vec![0; w], ply: 0, free, result: None };
        for c in 0..w {
            n.top[c] = n.skip_blocked(c, 0);
        }
        n
    }

    fn skip_blocked(&self, c: usize, mut r: usize) -> usize {
        while r < self.h && self.cells[c * self.h + r] == BLOCK {
            r += 1;
        }
        r
    }

    fn get(&self, c: i32, r: i32) -> u8 {
        if c < 0 || r < 0 || c >= self.w as i32 || r >= self.h as i32 {
            return BLOCK;
        }
        self.cells[c as usize * self.h + r as usize]
    }

    fn mover(&self) -> u8 {
        1 + (self.ply % 2) as u8
    }

    fn legal(&self) -> Vec<Action> {
        if self.result.is_some() {
            return vec![];
        }
        (0..self.w).filter(|&c| self.top[c] < self.h).map(|c| c as Action).collect()
    }

    /// Whether a disc of `who` on (c, r) would make four in a row, whatever is on (c, r) now.
    fn wins_at(&self, who: u8, c: usize, r: usize) -> bool {
        let (c, r) = (c as i32, r as i32);
        for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            let mut n = 1;
            for s in [1, -1] {
                let (mut x, mut y) = (c + s * dc, r + s * dr);
                while self.get(x, y) == who {
                    n += 1;
                    x += s * dc;
                    y += s * dr;
                }
            }
            if n >= 4 {
                return true;
            }
        }
        false
    }

    fn play(&mut self, c: usize) -> usize {
        let r = self.top[c];
        assert!(r < self.h && self.result.is_none());
        let who = self.mover();
        self.cells[c * self.h + r] = who;
        self.top[c] = self.skip_blocked(c, r + 1);
        self.ply += 1;
        if self.wins_at(who, c, r) {
            self.result = Some(Outcome::Win(if who == 1 { Player::First } else { Player::Second }));
        } else if self.ply == self.free {
            self.result = Some(Outcome::Draw);
        }
        r
    }

    fn unplay(&mut self, c: usize, r: usize) {
        self.cells[c * self.h + r] = EMPTY;
        self.top[c] = r;
        self.ply -= 1;
        self.result = None;
    }

    /// The first `k` cells a column would fill from now on.
    fn next_rows(&self, c: usize, k: usize) -> Vec<usize> {
        let mut rows = Vec::new();
        let mut r = self.top[c];
        while rows.len() < k && r < self.h {
            rows.push(r);
            r = self.skip_blocked(c, r + 1);
        }
        rows
    }
}

fn bits_of<B: BitWord>(g: &Connect4<B>, f: impl Fn(usize, usize) -> bool) -> B {
    let mut b = B::zero();
    for c in 0..g.width() {
        for r in 0..g.height() {
            if f(c, r) {
                b = b | B::bit(g.bit_index(c, r));
            }
        }
    }
    b
}

/// Column set of a bitboard whose bits lie in distinct columns.
fn columns_of<B: BitWord>(g: &Connect4<B>, mut b: B) -> Vec<Action> {
    let mut out = Vec::new();
    while !b.is_zero() {
        out.push(g.column_of_bit(b.trailing_zeros()) as Action);
        b = b.clear_lowest();
    }
    out
}

#[derive(Default)]
struct Seen {
    by_position: HashMap<Vec<u8>, u64>,
    by_hash: HashMap<u64, Vec<u8>>,
    transpositions: usize,
    two_step_positions: usize,
    outcomes: [usize; 3],
}

/// Checks every observable of `g` against the naive position `n`, including that the
/// heuristic picks from the right class of columns.
fn check<B: BitWord>(g: &Connect4<B>, n: &Naive, seen: &mut Seen) {
    let ctx = || format!("{}x{} ply {}\n{}", n.w, n.h, n.ply, g.render());
    assert_eq!(g.outcome(), n.result, "{}", ctx());
    assert_eq!(g.ply(), n.ply);
    assert_eq!(g.discs_played(), n.ply);
    let me = n.mover();
    let opp = 3 - me;
    let side = if me == 1 { Player::First } else { Player::Second };
    assert_eq!(g.to_move(), ToMove::Player(side));

    // Cells.
    let cell = |c: usize, r: usize| n.cells[c * n.h + r];
    assert_eq!(g.current_stones(), bits_of(g, |c, r| cell(c, r) == me));
    assert_eq!(g.opponent_stones(), bits_of(g, |c, r| cell(c, r) == opp));
    assert_eq!(g.blocked(), bits_of(g, |c, r| cell(c, r) == BLOCK));
    assert_eq!(g.occupied(), bits_of(g, |c, r| cell(c, r) != EMPTY));

    // Moves.
    let mut legal = Vec::new();
    g.legal_actions(&mut legal);
    assert_eq!(legal, n.legal(), "{}", ctx());
    for a in 0..(n.w + 3) as Action {
        assert_eq!(g.is_legal(a), legal.contains(&a), "column {a}: {}", ctx());
    }
    let over = n.result.is_some();
    assert_eq!(g.playable(), bits_of(g, |c, r| !over && n.top[c] == r), "{}", ctx());
    for (p, who) in [(Player::First, 1), (Player::Second, 2)] {
        let want = bits_of(g, |c, r| cell(c, r) == EMPTY && n.wins_at(who, c, r));
        assert_eq!(g.winning_cells(p), want, "{p:?} {}", ctx());
    }

    // Hash: a function of the position, and (in practice) injective.
    assert_eq!(g.hash(), g.hash_from_scratch());
    match seen.by_position.get(&n.cells) {
        Some(&h) => {
            assert_eq!(h, g.hash(), "same position, different hash: {}", ctx());
            seen.transpositions += 1;
        }
        None => {
            if let Some(other) = seen.by_hash.get(&g.hash()) {
                panic!("hash collision: {other:?} vs {:?}", n.cells);
            }
            seen.by_position.insert(n.cells.clone(), g.hash());
            seen.by_hash.insert(g.hash(), n.cells.clone());
        }
    }

    if over {
        assert!(g.immediate_wins().is_zero());
        assert!(g.playable().is_zero());
        return;
    }

    // Per-column facts the heuristic and the solver helpers are built on.
    let rows: Vec<Vec<usize>> = legal.iter().map(|&c| n.next_rows(c as usize, 3)).collect();
    let wins_for = |who: u8, c: Action, k: usize| {
        let rs = &rows[legal.iter().position(|&x| x == c).unwrap()];
        rs.len() > k && n.wins_at(who, c as usize, rs[k])
    };
    let filter = |f: &dyn Fn(Action) -> bool| -> Vec<Action> { legal.iter().copied().filter(|&c| f(c)).collect() };
    let wins = filter(&|c| wins_for(me, c, 0));
    let threats = filter(&|c| wins_for(opp, c, 0));
    assert_eq!(columns_of(g, g.immediate_wins()), wins, "{}", ctx());

    if wins.is_empty() {
        // Non-losing: after the move the opponent has no immediate win.
        let want = filter(&|c| {
            let mut m = n.clone();
            m.play(c as usize);
            m.result.is_some() || !m.legal().iter().any(|&d| m.wins_at(m.mover(), d as usize, m.top[d as usize]))
        });
        assert_eq!(columns_of(g, g.non_losing_moves()), want, "{}", ctx());
    }

    let safe = filter(&|c| !wins_for(opp, c, 1));
    let theirs_forbidden: Vec<Action> = safe.iter().copied().filter(|&c| wins_for(me, c, 1)).collect();
    let two_step: Vec<Action> = theirs_forbidden.iter().copied().filter(|&c| wins_for(me, c, 2)).collect();
    let rest: Vec<Action> = safe.iter().copied().filter(|c| !theirs_forbidden.contains(c)).collect();
    let allowed = if !wins.is_empty() {
        wins
    } else if !threats.is_empty() {
        threats
    } else if safe.is_empty() {
        legal.clone()
    } else if !two_step.is_empty() {
        seen.two_step_positions += 1;
        two_step
    } else if !rest.is_empty() {
        rest
    } else {
        safe
    };
    let mut rng = Rng::seed_from_u64(n.ply as u64 ^ g.hash());
    for _ in 0..3 {
        let a = g.heuristic_move(&mut rng);
        assert!(allowed.contains(&a), "heuristic {a} not in {allowed:?}: {}", ctx());
        assert!(legal.contains(&g.random_move(&mut rng)));
    }
}

fn differential<B: BitWord>(w: usize, h: usize, blocked: &[(usize, usize)], games: usize, seed: u64) -> Seen {
    let mut seen = Seen::default();
    let mut rng = Rng::seed_from_u64(seed);
    for game in 0..games {
        let mut g = Connect4::<B>::new(w, h, blocked).unwrap();
        let mut n = Naive::new(w, h, blocked);
        loop {
            check(&g, &n, &mut seen);
            if n.result.is_some() {
                break;
            }
            // Mix uniform and heuristic play so that both short tactical games and long,
            // nearly full boards are covered.
            let a = if game % 3 == 0 {
                g.heuristic_move(&mut rng)
            } else {
                let legal = n.legal();
                *legal.choose(&mut rng).unwrap()
            };
            let before = g.hash();
            g.play(a).unwrap();
            assert_ne!(g.hash(), before);
            assert_eq!(g.last_action(), Some(a));
            n.play(a as usize);
        }
        seen.outcomes[match n.result.unwrap() {
            Outcome::Win(Player::First) => 0,
            Outcome::Win(Player::Second) => 1,
            _ => 2,
        }] += 1;
    }
    assert!(seen.transpositions > 0, "{w}x{h}: no transposition reached");
    seen
}

#[test]
fn differential_7x6_u64_and_u128() {
    let s = differential::<u64>(7, 6, &[], 1500, 1);
    assert!(s.outcomes.iter().all(|&k| k > 0), "{:?}", s.outcomes);
    assert!(s.two_step_positions > 0);
    differential::<u128>(7, 6, &[], 300, 2);
}

#[test]
fn differential_12x12_bits192() {
    differential::<Bits192>(12, 12, &[], 400, 3);
}

#[test]
fn differential_9x10_blocked_u128_and_bits192() {
    // A blocked run, a blocked top cell, a blocked bottom cell and a fully blocked column.
    let blocked = [
        (0, 0),
        (2, 3),
        (2, 4),
        (2, 5),
        (5, 9),
        (7, 0),
        (7, 1),
        (7, 2),
        (7, 3),
        (7, 4),
        (7, 5),
        (7, 6),
        (7, 7),
        (7, 8),
        (7, 9),
    ];
    let s = differential::<Bits192>(9, 10, &blocked, 500, 4);
    assert!(s.two_step_positions > 0);
    differential::<u128>(9, 10, &blocked, 300, 5);
}

#[test]
fn differential_saiblo_boards_with_one_blocked_cell() {
    let mut rng = Rng::seed_from_u64(6);
    for i in 0..40 {
        let (w, h) = (rng.random_range(9..13usize), rng.random_range(9..13usize));
        let b = [(rng.random_range(..w), rng.random_range(..h))];
        differential::<Bits192>(w, h, &b, 25, 100 + i);
    }
}

#[test]
fn differential_small_boards_u64() {
    let s = differential::<u64>(4, 4, &[], 1500, 7);
    assert!(s.outcomes[2] > 0, "4x4 games are often drawn");
    differential::<u64>(8, 7, &[], 800, 8);
    differential::<u64>(4, 12, &[(1, 11), (2, 0)], 500, 9);
    differential::<u64>(12, 4, &[(5, 1)], 500, 10);
}

fn perft<B: BitWord>(g: &Connect4<B>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if g.outcome().is_some() {
        return 0;
    }
    let mut total = 0;
    let mut poss = g.playable();
    while !poss.is_zero() {
        let mut child = g.clone();
        let col = g.column_of_bit(poss.trailing_zeros());
        child.play_unchecked(col as Action);
        total += perft(&child, depth - 1);
        poss = poss.clear_lowest();
    }
    total
}

fn naive_perft(n: &mut Naive, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if n.result.is_some() {
        return 0;
    }
    let mut total = 0;
    for c in n.legal() {
        let r = n.play(c as usize);
        total += naive_perft(n, depth - 1);
        n.unplay(c as usize, r);
    }
    total
}

const PERFT_7X6: [u64; 8] = [7, 49, 343, 2401, 16807, 117649, 823536, 5673234];

#[test]
fn perft_7x6_matches_known_counts() {
    let g = Connect4::<u64>::new(7, 6, &[]).unwrap();
    let wide = Connect4::<Bits192>::new(7, 6, &[]).unwrap();
    for (d, &want) in PERFT_7X6.iter().enumerate() {
        let d = d as u32 + 1;
        assert_eq!(perft(&g, d), want, "depth {d}");
        if d <= 6 {
            assert_eq!(perft(&wide, d), want, "Bits192 depth {d}");
        }
    }
}

#[test]
fn perft_7x6_naive_agrees() {
    let mut n = Naive::new(7, 6, &[]);
    for (d, &want) in PERFT_7X6.iter().enumerate() {
        assert_eq!(naive_perft(&mut n, d as u32 + 1), want, "depth {}", d + 1);
    }
}

#[test]
fn perft_with_blocked_cells_matches_naive() {
    let blocked = [(1, 0), (3, 2), (3, 3), (6, 5)];
    let g = Connect4::<u64>::new(7, 6, &blocked).unwrap();
    let mut n = Naive::new(7, 6, &blocked);
    for d in 1..=6 {
        assert_eq!(perft(&g, d), naive_perft(&mut n, d), "depth {d}");
    }
}

fn play_text<B: BitWord>(g: &mut Connect4<B>, moves: &str) {
    for a in g.moves_from_text(moves).unwrap() {
        g.play(a).unwrap();
    }
}

fn c7x6(moves: &str) -> Connect4 {
    let mut g = Connect4::<u64>::new(7, 6, &[]).unwrap();
    play_text(&mut g, moves);
    g
}

#[test]
fn transposed_move_orders_share_a_hash() {
    let a = c7x6("1234");
    let b = c7x6("3214");
    let c = c7x6("2143");
    assert_eq!(a.hash(), b.hash());
    assert_ne!(a.hash(), c.hash(), "colours of the discs differ");
    assert_eq!(a.occupied(), c.occupied());
    // Side to move is part of the hash, and so is the board.
    assert_ne!(c7x6("").hash(), c7x6("4").hash());
    let blocked = Connect4::<u64>::new(7, 6, &[(0, 0)]).unwrap();
    assert_ne!(blocked.hash(), c7x6("").hash());
}

#[test]
fn notation_round_trips() {
    let g = c7x6("");
    assert_eq!(g.moves_from_text("4453").unwrap(), vec![3, 3, 4, 2]);
    for text in ["4 4 5 3", "4;4;5;3", " 4453\n", "4,4,5,3", "4; 4 ;5 3"] {
        assert_eq!(g.moves_from_text(text).unwrap(), vec![3, 3, 4, 2], "{text:?}");
    }
    assert_eq!(g.moves_to_text(&[3, 3, 4, 2]), "4453");
    assert_eq!(g.moves_from_text("").unwrap(), Vec::<Action>::new());
    assert_eq!(g.action_to_text(3), "4");
    assert_eq!(g.action_from_text("7").unwrap(), 6);

    let wide = Connect4::<Bits192>::new(12, 12, &[]).unwrap();
    let moves = vec![9, 3, 11, 0, 10];
    assert_eq!(wide.moves_to_text(&moves), "a4c1b");
    for text in ["a4c1b", "A4C1B", "10 4 12 1 11", "10;4;12;1;11", "a 4 12 1 B"] {
        assert_eq!(wide.moves_from_text(text).unwrap(), moves, "{text:?}");
    }
    assert_eq!(wide.action_to_text(11), "12");
    assert_eq!(wide.action_from_text("12").unwrap(), 11);
    assert_eq!(wide.action_from_text("c").unwrap(), 11);
    // Without a separator, "12" is the compact list 1, 2.
    assert_eq!(wide.moves_from_text("12").unwrap(), vec![0, 1]);
    assert_eq!(wide.moves_from_text("12;").unwrap(), vec![11]);

    // Random games on every width: text → moves → same position.
    let mut rng = Rng::seed_from_u64(11);
    for w in 4..=12 {
        for _ in 0..20 {
            let h = rng.random_range(4..13usize);
            let mut g = Connect4::<Bits192>::new(w, h, &[]).unwrap();
            let mut moves = Vec::new();
            while g.outcome().is_none() {
                let a = g.random_move(&mut rng);
                moves.push(a);
                g.play(a).unwrap();
            }
            let text = g.moves_to_text(&moves);
            assert_eq!(g.moves_from_text(&text).unwrap(), moves, "{text}");
            let tokens: Vec<String> = moves.iter().map(|&a| g.action_to_text(a)).collect();
            assert_eq!(g.moves_from_text(&tokens.join(" ")).unwrap(), moves);
            let mut replay = Connect4::<Bits192>::new(w, h, &[]).unwrap();
            play_text(&mut replay, &text);
            assert_eq!(replay, g);
        }
    }
}

#[test]
fn render_draws_the_board() {
    let g = Connect4::<u64>::new(7, 6, &[(6, 0)]).unwrap();
    let mut g2 = g.clone();
    play_text(&mut g2, "4453");
    assert_eq!(
        g2.render(),
        ". . . . . . .\n\
         . . . . . . .\n\
         . . . . . . .\n\
         . . . . . . .\n\
         . . . O . . .\n\
         . . O X X . #\n\
         1 2 3 4 5 6 7\n\
         X to move\n"
    );
    let wide = Connect4::<Bits192>::new(10, 4, &[]).unwrap();
    assert!(wide.render().contains(" 1  2  3  4  5  6  7  8  9 10\n"));
}

fn mirror_cells<B: BitWord>(g: &Connect4<B>) -> Vec<u8> {
    let (w, h) = (g.width(), g.height());
    let (first, second) = (g.stones(Player::First), g.stones(Player::Second));
    let mut v = Vec::new();
    for c in 0..w {
        for r in 0..h {
            let i = g.bit_index(w - 1 - c, r);
            v.push(if g.blocked().has(i) {
                3
            } else if first.has(i) {
                1
            } else if second.has(i) {
                2
            } else {
                0
            });
        }
    }
    v
}

fn cells<B: BitWord>(g: &Connect4<B>) -> Vec<u8> {
    let (w, h) = (g.width(), g.height());
    let (first, second) = (g.stones(Player::First), g.stones(Player::Second));
    let mut v = Vec::new();
    for c in 0..w {
        for r in 0..h {
            let i = g.bit_index(c, r);
            v.push(if g.blocked().has(i) {
                3
            } else if first.has(i) {
                1
            } else if second.has(i) {
                2
            } else {
                0
            });
        }
    }
    v
}

fn symmetry_games<B: BitWord>(w: usize, h: usize, blocked: &[(usize, usize)], seed: u64) {
    let mut rng = Rng::seed_from_u64(seed);
    let start = Connect4::<B>::new(w, h, blocked).unwrap();
    assert_eq!(start.num_symmetries(), 2);
    let shape = start.plane_shape();
    assert_eq!((shape.channels, shape.height, shape.width), (9, h, w));
    let plane = h * w;
    let (mut pa, mut pb, mut mapped) = (vec![0f32; shape.len()], vec![0f32; shape.len()], vec![0f32; shape.len()]);
    for _ in 0..50 {
        let mut g = start.clone();
        let mut m = start.clone();
        loop {
            assert_eq!(cells(&m), mirror_cells(&g));
            assert_eq!(g.outcome(), m.outcome());
            for a in 0..w as Action {
                assert_eq!(g.is_legal(a), m.is_legal(g.map_action(1, a)));
            }
            g.encode_planes(&mut pa);
            m.encode_planes(&mut pb);
            for ch in 0..shape.channels {
                let r = ch * plane..(ch + 1) * plane;
                g.map_plane(1, &pa[r.clone()], &mut mapped[r.clone()]);
            }
            assert_eq!(mapped, pb);
            if g.outcome().is_some() {
                break;
            }
            let a = g.random_move(&mut rng);
            g.play(a).unwrap();
            m.play(g.map_action(1, a)).unwrap();
            assert_eq!(m.last_action(), Some(w as Action - 1 - a));
        }
    }
}

#[test]
fn mirror_symmetry_maps_positions_planes_and_moves() {
    symmetry_games::<u64>(7, 6, &[], 12);
    symmetry_games::<Bits192>(9, 10, &[(0, 2), (8, 2), (4, 5)], 13);
    symmetry_games::<Bits192>(12, 12, &[], 14);
    let lopsided = Connect4::<Bits192>::new(9, 10, &[(2, 0)]).unwrap();
    assert_eq!(lopsided.num_symmetries(), 1);
    assert!(!lopsided.is_mirror_symmetric());
}

/// Plane `ch`, row `row` (0 = top), column `col` of 7x6 planes.
fn at(p: &[f32], ch: usize, row: usize, col: usize) -> f32 {
    p[ch * 42 + row * 7 + col]
}

#[test]
fn planes_read_like_a_diagram() {
    let g = {
        let mut g = Connect4::<u64>::new(7, 6, &[(0, 5)]).unwrap();
        play_text(&mut g, "44");
        g
    };
    let mut p = vec![0f32; g.plane_shape().len()];
    g.encode_planes(&mut p);
    // X (first player) is to move: its disc is at the bottom (plane row 5), O's above it.
    assert_eq!(at(&p, 0, 5, 3), 1.0);
    assert_eq!(at(&p, 1, 4, 3), 1.0);
    assert_eq!(at(&p, 2, 4, 3), 1.0, "last move");
    assert_eq!(at(&p, 3, 0, 0), 1.0, "blocked top-left cell");
    assert!(p[4 * 42..5 * 42].iter().all(|&v| v == 1.0), "ones plane");
    assert!(p[5 * 42..6 * 42].iter().all(|&v| v == 1.0), "first player to move");
    assert_eq!(p[..4 * 42].iter().sum::<f32>(), 4.0);
    // X plays column 1 (its disc lands under the blocked cell); now the second player is to
    // move: the parity plane goes dark and the disc planes swap sides.
    let mut g = g;
    play_text(&mut g, "1");
    g.encode_planes(&mut p);
    assert_eq!(at(&p, 0, 4, 3), 1.0);
    assert_eq!(at(&p, 1, 5, 3), 1.0);
    assert_eq!(at(&p, 1, 5, 0), 1.0);
    assert_eq!(at(&p, 2, 5, 0), 1.0, "last move");
    assert!(p[4 * 42..5 * 42].iter().all(|&v| v == 1.0), "ones plane");
    assert!(p[5 * 42..6 * 42].iter().all(|&v| v == 0.0), "second player to move");
}

#[test]
fn threat_planes_mark_the_cells_that_complete_four() {
    // X holds columns 1-3 of the bottom row, O the row above: X threatens the playable
    // bottom cell of column 4, O the cell above it, which is not playable yet.
    let g = c7x6("112233");
    let mut p = vec![0f32; g.plane_shape().len()];
    assert_eq!(p.len(), 9 * 42);
    g.encode_planes(&mut p);
    let plane_sum = |p: &[f32], ch: usize| p[ch * 42..(ch + 1) * 42].iter().sum::<f32>();
    assert_eq!((plane_sum(&p, 6), at(&p, 6, 5, 3)), (1.0, 1.0), "the side to move's threat");
    assert_eq!((plane_sum(&p, 7), at(&p, 7, 4, 3)), (1.0, 1.0), "the opponent's threat, not yet playable");
    assert_eq!(plane_sum(&p, 8), 7.0, "one playable cell per column");
    for col in 0..3 {
        assert_eq!(at(&p, 8, 3, col), 1.0, "column {} is played up to row 2", col + 1);
    }
    for col in 3..7 {
        assert_eq!(at(&p, 8, 5, col), 1.0, "column {} is empty", col + 1);
    }
    // Once O is to move the threat planes swap sides, and a vertical three counts too.
    let g = c7x6("1122337");
    g.encode_planes(&mut p);
    assert_eq!((plane_sum(&p, 6), at(&p, 6, 4, 3)), (1.0, 1.0));
    assert_eq!((plane_sum(&p, 7), at(&p, 7, 5, 3)), (1.0, 1.0));
    let g = c7x6("121212");
    g.encode_planes(&mut p);
    assert_eq!((plane_sum(&p, 6), at(&p, 6, 2, 0)), (1.0, 1.0), "X's three in column 1");
    assert_eq!((plane_sum(&p, 7), at(&p, 7, 2, 1)), (1.0, 1.0), "O's three in column 2");
}

fn err_text<T: std::fmt::Debug>(r: Result<T, GameError>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn bad_input_gives_clear_errors() {
    let mut g = c7x6("444444");
    let e = err_text(g.play(3));
    assert!(e.contains("illegal move 4: column 4 is full"), "{e}");
    let e = err_text(g.play(7));
    assert!(e.contains("illegal move 8: the board has only 7 columns"), "{e}");

    let mut g = Connect4::<u64>::new(7, 6, &[(2, 5)]).unwrap();
    play_text(&mut g, "33333");
    let e = err_text(g.play(2));
    assert!(e.contains("the rest of column 3 is blocked"), "{e}");
    let column: Vec<(usize, usize)> = (0..6).map(|r| (0, r)).collect();
    let mut g = Connect4::<u64>::new(7, 6, &column).unwrap();
    let e = err_text(g.play(0));
    assert!(e.contains("column 1 is entirely blocked"), "{e}");

    let g = c7x6("");
    for (text, token, why) in [
        ("0", "\"0\"", "columns are numbered from 1 to 7"),
        ("8", "\"8\"", "the board has only 7 columns"),
        ("x", "\"x\"", "not a column"),
        ("99999999999999999999999", "\"99999999999999999999999\"", "only 7"),
        ("-1", "\"-1\"", "not a column"),
    ] {
        let e = err_text(g.action_from_text(text));
        assert!(e.contains("cannot parse column") && e.contains(token), "{e}");
        assert!(e.contains(why), "{e}");
    }
    for (text, token) in [("44x3", "\"x\""), ("4 4 8", "\"8\""), ("4a", "\"a\""), ("405", "\"0\"")] {
        let e = err_text(g.moves_from_text(text));
        assert!(e.contains(token), "{text}: {e}");
    }
    let wide = Connect4::<Bits192>::new(11, 9, &[]).unwrap();
    let e = err_text(wide.moves_from_text("10 12"));
    assert!(e.contains("\"12\"") && e.contains("only 11 columns"), "{e}");
    assert!(err_text(wide.moves_from_text("4c")).contains("\"c\""));

    // A finished game refuses moves.
    let mut g = c7x6("1212121");
    assert_eq!(g.outcome(), Some(Outcome::Win(Player::First)));
    assert_eq!(g.play(3), Err(GameError::GameOver));
    assert!(!g.is_legal(3));

    // Boards.
    type Case = (usize, usize, &'static [(usize, usize)], &'static str);
    let cases: [Case; 6] = [
        (3, 6, &[], "width 3 is outside 4..=12"),
        (13, 6, &[], "width 13 is outside 4..=12"),
        (7, 13, &[], "height 13 is outside 4..=12"),
        (7, 3, &[], "height 3 is outside 4..=12"),
        (7, 6, &[(7, 0)], "blocked cell 8.1 is off the 7x6 board"),
        (7, 6, &[(0, 6)], "blocked cell 1.7 is off the 7x6 board"),
    ];
    for (w, h, b, want) in cases {
        let e = err_text(Connect4::<Bits192>::new(w, h, b));
        assert!(e.contains(want), "{e}");
    }
    let e = err_text(Connect4::<u64>::new(12, 12, &[]));
    assert!(e.contains("needs 156 bits but this bitboard has 64"), "{e}");
    let all: Vec<(usize, usize)> = (0..4).flat_map(|c| (0..4).map(move |r| (c, r))).collect();
    let e = err_text(Connect4::<u64>::new(4, 4, &all));
    assert!(e.contains("every cell is blocked"), "{e}");
    assert!(Connect4::<u64>::new(4, 4, &all[1..]).is_ok());
}

#[test]
fn specs_pick_the_bitboard_and_round_trip() {
    for (text, wide) in [
        ("connect4", false),
        ("connect4:8x7", false),
        ("connect4:9x6", false),
        ("connect4:9x7", true),
        ("connect4:12x12:3.1,12.12", true),
    ] {
        let spec: GameSpec = text.parse().unwrap();
        let g = spec.start().unwrap();
        assert_eq!(matches!(g, AnyGame::Connect4Wide(_)), wide, "{text}");
        assert_eq!(g.spec(), spec);
    }
}

fn always<B: BitWord>(g: &Connect4<B>, want: &[Action]) {
    let mut seen = Vec::new();
    for seed in 0..200 {
        let a = g.heuristic_move(&mut Rng::seed_from_u64(seed));
        assert!(want.contains(&a), "played {a}, want one of {want:?}\n{}", g.render());
        if !seen.contains(&a) {
            seen.push(a);
        }
    }
    seen.sort_unstable();
    assert_eq!(seen, want, "not every preferred column was played");
}

#[test]
fn heuristic_takes_wins_and_blocks() {
    // X has three on the bottom row and wins in column 4.
    always(&c7x6("112233"), &[3]);
    // O must block column 4.
    always(&c7x6("11223"), &[3]);
    // Vertical threat: O blocks on top of column 1.
    always(&c7x6("12121"), &[0]);
    // Two open ends: O is lost and blocks one of them.
    let g = c7x6("33445");
    assert_eq!(columns_of(&g, g.winning_cells(Player::First) & g.playable()), vec![1, 5]);
    assert!(g.non_losing_moves().is_zero());
    for seed in 0..50 {
        assert!([1, 5].contains(&g.heuristic_move(&mut Rng::seed_from_u64(seed))));
    }
}

#[test]
fn heuristic_never_plays_under_an_opponent_threat() {
    // X has three on row 2 (columns 2-4); columns 1 and 5 are still empty, so O must not
    // play there (X would win on top).
    let g = c7x6("3224473");
    assert_eq!(columns_of(&g, g.winning_cells(Player::First)), vec![0, 4], "{}", g.render());
    always(&g, &[1, 2, 3, 5, 6]);
    assert_eq!(columns_of(&g, g.non_losing_moves()), vec![1, 2, 3, 5, 6]);

    // Same idea through a blocked cell: the cell above column 1's next cell is blocked, so
    // the threat that matters is the one above the blocked cell.
    let mut g = Connect4::<u64>::new(7, 6, &[(0, 1)]).unwrap();
    // X: row 3 in columns 2-4; rows 1-2 beneath are mixed so nobody has three there.
    play_text(&mut g, "32244337274");
    assert!(g.winning_cells(Player::First).has(g.bit_index(0, 2)), "{}", g.render());
    assert_eq!(g.side_to_move(), Player::Second);
    let safe = columns_of(&g, g.non_losing_moves());
    assert!(!safe.contains(&0), "{safe:?}\n{}", g.render());
    assert_eq!(safe, vec![1, 2, 3, 4, 5, 6]);
    always(&g, &[1, 2, 3, 4, 5, 6]);
}

#[test]
fn heuristic_keeps_columns_the_opponent_cannot_play() {
    // As above, but O has played elsewhere and X is to move: columns 1 and 5 are X's
    // resource (O may not play there), so X spends other columns first.
    let g = c7x6("32244737");
    assert_eq!(g.side_to_move(), Player::First);
    always(&g, &[1, 2, 3, 5, 6]);
}

#[test]
fn random_move_is_uniform_over_legal_columns() {
    // 7x6 with columns 1 and 4 full (colours alternate, so nobody has won); 12x8 with all
    // but columns 3 and 11 blocked out, where the rejection sampler's candidates mostly miss
    // and its fallback decides.
    let narrow = c7x6("111111444444");
    let mut blocked = vec![(2, 0), (2, 1), (2, 2)];
    for c in (0..12).filter(|&c| c != 2 && c != 10) {
        blocked.extend((0..8).map(|r| (c, r)));
    }
    let wide = Connect4::<Bits192>::new(12, 8, &blocked).unwrap();
    let draws = 60_000;
    let count = |f: &mut dyn FnMut(&mut Rng) -> Action, seed| {
        let mut k = [0u32; 12];
        let mut rng = Rng::seed_from_u64(seed);
        for _ in 0..draws {
            k[f(&mut rng) as usize] += 1;
        }
        k
    };
    for (legal, counts) in [
        (vec![1, 2, 4, 5, 6], count(&mut |r| narrow.random_move(r), 21)),
        (vec![2, 10], count(&mut |r| wide.random_move(r), 22)),
    ] {
        let expect = draws / legal.len() as u32;
        for (c, &k) in counts.iter().enumerate() {
            if legal.contains(&(c as Action)) {
                assert!(k.abs_diff(expect) < expect / 20, "{counts:?}");
            } else {
                assert_eq!(k, 0, "{counts:?}");
            }
        }
    }
}

/// Compares the bitboard lookahead with playing every move and reply, over random games;
/// returns how often each answer came up.
fn lookahead_agrees_with_play<B: BitWord>(w: usize, h: usize, blocked: &[(usize, usize)], games: u64) -> [u32; 3] {
    let mut seen = [0u32; 3];
    let (mut fast, mut slow) = (Vec::new(), Vec::new());
    for seed in 0..games {
        let mut rng = Rng::seed_from_u64(seed);
        let mut g = Connect4::<B>::new(w, h, blocked).unwrap();
        while g.outcome().is_none() {
            let got = g.lookahead(&mut fast);
            let want = lookahead_by_play(&g, &mut slow);
            match (got, want) {
                (Lookahead::Win(a), Lookahead::Win(_)) => {
                    let mut after = g.clone();
                    after.play(a).unwrap();
                    assert_eq!(after.outcome(), Some(Outcome::Win(g.side_to_move())), "{g:?}");
                    seen[0] += 1;
                }
                (Lookahead::Lost, Lookahead::Lost) => seen[1] += 1,
                (Lookahead::Moves, Lookahead::Moves) => {
                    assert_eq!(fast, slow, "safe moves of {g:?}");
                    seen[2] += 1;
                }
                _ => panic!("lookahead {got:?}, playing it out {want:?}: {g:?}"),
            }
            g.play(g.random_move(&mut rng)).unwrap();
        }
    }
    seen
}

#[test]
fn lookahead_matches_playing_every_move_and_reply() {
    for (w, h, blocked) in [(7, 6, vec![]), (7, 6, vec![(3, 0), (3, 1), (5, 3)]), (4, 4, vec![])] {
        let seen = lookahead_agrees_with_play::<u64>(w, h, &blocked, 400);
        assert!(seen.iter().all(|&n| n > 20), "{w}x{h} {blocked:?}: win/lost/moves {seen:?}");
    }
    let seen = lookahead_agrees_with_play::<Bits192>(12, 10, &[(0, 0), (6, 2)], 40);
    assert!(seen.iter().all(|&n| n > 0), "12x10: win/lost/moves {seen:?}");
}

/// Compares the bitboard two-step lookahead with playing it out, over random games; returns
/// how often each answer came up, and how often the two-step look found more than one ply.
fn two_step_agrees_with_play<B: BitWord>(w: usize, h: usize, blocked: &[(usize, usize)], games: u64) -> [u32; 4] {
    let mut seen = [0u32; 4];
    let (mut fast, mut slow, mut one_ply) = (Vec::new(), Vec::new(), Vec::new());
    for seed in 0..games {
        let mut rng = Rng::seed_from_u64(1000 + seed);
        let mut g = Connect4::<B>::new(w, h, blocked).unwrap();
        while g.outcome().is_none() {
            let got = g.two_step_lookahead(&mut fast);
            let want = two_step_lookahead_by_play(&g, &mut slow);
            let shallow = g.lookahead(&mut one_ply);
            if got != shallow || fast != one_ply {
                seen[3] += 1;
            }
            match (got, want) {
                (Lookahead::Win(a), Lookahead::Win(b)) => {
                    assert_eq!(a, b, "{g:?}");
                    let mut after = g.clone();
                    after.play(a).unwrap();
                    // Won at once, or the opponent is lost at once.
                    let won = after.outcome() == Some(Outcome::Win(g.side_to_move()));
                    assert!(won || after.lookahead(&mut one_ply) == Lookahead::Lost, "{g:?}");
                    seen[0] += 1;
                }
                (Lookahead::Lost, Lookahead::Lost) => {
                    assert_eq!(fast, slow, "moves that do not lose at once, of {g:?}");
                    seen[1] += 1;
                }
                (Lookahead::Moves, Lookahead::Moves) => {
                    assert_eq!(fast, slow, "safe moves of {g:?}");
                    seen[2] += 1;
                }
                _ => panic!("two-step lookahead {got:?}, playing it out {want:?}: {g:?}"),
            }
            g.play(g.random_move(&mut rng)).unwrap();
        }
    }
    seen
}

#[test]
fn two_step_lookahead_matches_playing_it_out() {
    for (w, h, blocked) in [(7, 6, vec![]), (7, 6, vec![(3, 0), (3, 1), (5, 3)]), (4, 4, vec![]), (5, 4, vec![(2, 0)])]
    {
        let seen = two_step_agrees_with_play::<u64>(w, h, &blocked, 300);
        assert!(seen.iter().all(|&n| n > 20), "{w}x{h} {blocked:?}: win/lost/moves/deeper {seen:?}");
    }
    let seen = two_step_agrees_with_play::<Bits192>(12, 10, &[(0, 0), (6, 2)], 30);
    assert!(seen.iter().all(|&n| n > 0), "12x10: win/lost/moves/deeper {seen:?}");
}

#[test]
fn two_step_lookahead_on_known_positions() {
    let at = |moves: &str| {
        let mut g = Connect4::<u64>::standard();
        for a in g.moves_from_text(moves).unwrap() {
            g.play(a).unwrap();
        }
        let mut out = Vec::new();
        let l = g.two_step_lookahead(&mut out);
        (l, out)
    };
    assert_eq!(at(""), (Lookahead::Moves, vec![0, 1, 2, 3, 4, 5, 6]));
    // Immediate wins and one-ply losses come first, as in the one-ply lookahead.
    assert_eq!(at("172737").0, Lookahead::Win(3));
    assert_eq!(at("27374").0, Lookahead::Lost);
    // X has 2 3 on the bottom row: 4 makes 2 3 4 open at both ends, and O is lost.
    assert_eq!(at("2737").0, Lookahead::Win(3));
    // O to move against that: only 1, 4 and 5 keep X from making the open three.
    assert_eq!(at("273"), (Lookahead::Moves, vec![0, 3, 4]));
}

#[test]
fn lookahead_on_known_positions() {
    let at = |moves: &str| {
        let mut g = Connect4::<u64>::standard();
        for a in g.moves_from_text(moves).unwrap() {
            g.play(a).unwrap();
        }
        let mut out = Vec::new();
        let l = g.lookahead(&mut out);
        (l, out)
    };
    assert_eq!(at(""), (Lookahead::Moves, vec![0, 1, 2, 3, 4, 5, 6]));
    // X has 1 2 3 on the bottom row: column 4 wins.
    assert_eq!(at("172737").0, Lookahead::Win(3));
    // O to move against X's 1 2 3: only the block at 4 does not lose.
    assert_eq!(at("11223"), (Lookahead::Moves, vec![3]));
    // X has 2 3 4 with both ends open: O cannot stop both.
    assert_eq!(at("27374").0, Lookahead::Lost);
    // O has 2 3 4 on the second row; X must not fill the bottom of column 1 or 5.
    assert_eq!(at("23427374"), (Lookahead::Moves, vec![1, 2, 3, 5, 6]));
}
