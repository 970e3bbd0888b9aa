//! The exact Connect Four solver against an independent brute-force minimax (a plain array
//! board, full minimax with memoisation and no pruning) on small boards, late 7×6 positions
//! and blocked-cell boards, plus the gamesolver.org end-game test set and the error paths.

use dojo_base::rng::Rng;
use dojo_game::connect4::solver::{Position, Solver};
use dojo_game::GameError;
use rand::{seq::IndexedRandom, RngExt, SeedableRng};
use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::RangeInclusive;

// ---------------------------------------------------------------------------------------------
// Brute force: deliberately naive and independent of the solver's bitboards.
// ---------------------------------------------------------------------------------------------

const EMPTY: u8 = 0;
const BLOCKED: u8 = 3;

/// Memo keyed by the whole board (2 bits a cell); a multiplicative hash, since SipHash
/// would dominate the brute force's time.
type Memo = HashMap<(u64, u64), i8, BuildHasherDefault<MulHasher>>;

#[derive(Default)]
struct MulHasher(u64);

impl Hasher for MulHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn write_u64(&mut self, x: u64) {
        let h = (self.0.rotate_left(23) ^ x).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        self.0 = h ^ (h >> 31);
    }
}

#[derive(Clone)]
struct Brute {
    w: usize,
    h: usize,
    /// Column-major: `cells[c * h + r]`, row 0 at the bottom; 1 and 2 are the players.
    cells: Vec<u8>,
    moves: usize,
    free: usize,
    /// The board as base-4 digits, kept as discs come and go.
    key: u128,
}

impl Brute {
    fn new(w: usize, h: usize, blocked: &[(usize, usize)]) -> Brute {
        let mut b = Brute { w, h, cells: vec![EMPTY; w * h], moves: 0, free: w * h, key: 0 };
        for &(c, r) in blocked {
            if b.cells[c * h + r] == EMPTY {
                b.set(c * h + r, BLOCKED);
                b.free -= 1;
            }
        }
        b
    }

    fn set(&mut self, i: usize, v: u8) {
        self.key ^= u128::from(self.cells[i] ^ v) << (2 * i);
        self.cells[i] = v;
    }

    fn to_move(&self) -> u8 {
        if self.moves.is_multiple_of(2) {
            1
        } else {
            2
        }
    }

    /// The row a disc dropped in `c` comes to rest on: the lowest empty cell (blocked cells
    /// are never empty, so a disc passes over them).
    fn landing(&self, c: usize) -> Option<usize> {
        (0..self.h).find(|&r| self.cells[c * self.h + r] == EMPTY)
    }

    fn at(&self, c: isize, r: isize) -> u8 {
        if c < 0 || r < 0 || c >= self.w as isize || r >= self.h as isize {
            EMPTY
        } else {
            self.cells[c as usize * self.h + r as usize]
        }
    }

    fn wins(&self, c: usize, r: usize, p: u8) -> bool {
        let (c, r) = (c as isize, r as isize);
        [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
            let mut n = 1;
            for dir in [1, -1] {
                let mut k = 1;
                while self.at(c + dir * dc * k, r + dir * dr * k) == p {
                    n += 1;
                    k += 1;
                }
            }
            n >= 4
        })
    }

    fn play(&mut self, c: usize) -> usize {
        let r = self.landing(c).expect("playable");
        self.set(c * self.h + r, self.to_move());
        self.moves += 1;
        r
    }

    fn undo(&mut self, c: usize, r: usize) {
        self.set(c * self.h + r, EMPTY);
        self.moves -= 1;
    }

    fn win_now_score(&self) -> i32 {
        (self.free as i32 + 1 - self.moves as i32) / 2
    }

    /// Exact gamesolver score: full minimax, memoised on the board.
    fn score(&mut self, memo: &mut Memo) -> i32 {
        let me = self.to_move();
        if (0..self.w).any(|c| self.landing(c).is_some_and(|r| self.wins(c, r, me))) {
            return self.win_now_score(); // not memoised: cheaper to redo than to store
        }
        let key = self.memo_key();
        if let Some(&s) = memo.get(&key) {
            return i32::from(s);
        }
        let s = {
            let mut best = None;
            for c in 0..self.w {
                if self.landing(c).is_some() {
                    let r = self.play(c);
                    let s = -self.score(memo);
                    self.undo(c, r);
                    best = Some(best.map_or(s, |b: i32| b.max(s)));
                }
            }
            best.unwrap_or(0) // full board
        };
        memo.insert(key, s as i8);
        s
    }

    fn memo_key(&self) -> (u64, u64) {
        (self.key as u64, (self.key >> 64) as u64)
    }

    /// Score of each column as `Solver::analyze` defines it.
    fn analyze(&mut self, memo: &mut Memo) -> Vec<Option<i32>> {
        (0..self.w)
            .map(|c| {
                let r = self.landing(c)?;
                if self.wins(c, r, self.to_move()) {
                    return Some(self.win_now_score());
                }
                self.play(c);
                let s = -self.score(memo);
                self.undo(c, r);
                Some(s)
            })
            .collect()
    }
}

type Cells = &'static [(usize, usize)];

/// gamesolver notation: 1-based column digits.
fn digits(s: &str) -> Vec<usize> {
    s.bytes().map(|b| usize::from(b - b'1')).collect()
}

/// Plays random moves that do not end the game (a move completing four is never chosen),
/// preferring moves that do not hand the opponent an immediate win, so that deep and
/// non-trivial positions are easy to reach. `None` if every move left would win.
fn random_game(
    w: usize,
    h: usize,
    blocked: &[(usize, usize)],
    discs: usize,
    rng: &mut Rng,
) -> Option<(Vec<usize>, Position, Brute)> {
    let mut pos = Position::new(w, h, blocked).unwrap();
    let mut brute = Brute::new(w, h, blocked);
    let mut moves = Vec::new();
    while moves.len() < discs {
        let options: Vec<usize> = (0..w).filter(|&c| pos.can_play(c) && !pos.is_winning_move(c)).collect();
        let quiet: Vec<usize> = options
            .iter()
            .copied()
            .filter(|&c| {
                let mut child = pos;
                child.play(c).unwrap();
                !child.can_win_next()
            })
            .collect();
        let options = if quiet.is_empty() { options } else { quiet };
        if options.is_empty() {
            return None;
        }
        let c = *options.choose(rng).unwrap();
        pos.play(c).unwrap();
        brute.play(c);
        moves.push(c);
    }
    Some((moves, pos, brute))
}

// ---------------------------------------------------------------------------------------------
// Known positions
// ---------------------------------------------------------------------------------------------

/// The first lines of gamesolver.org's `Test_L3_R1` (end-game, easy), with their scores.
const END_EASY: &[(&str, i32)] = &[
    ("2252576253462244111563365343671351441", -1),
    ("7422341735647741166133573473242566", 1),
    ("23163416124767223154467471272416755633", 0),
    ("71255763773133525731261364622167124446454", 0),
    ("65214673556155731566316327373221417", -1),
    ("52677675164321472411331752454", 0),
    ("3135151421347443544172316522225776773566", 0),
    ("562154564361751726662253737734213275114", 0),
    ("233377345754465174223731671122611552", 1),
    ("6763525635134453444361412671365712", -1),
    ("211376455663355325112113664364524722", 0),
    ("3146762114467714356347741621375222", -1),
    ("67152117737262713366376314254", 6),
    ("2762751722231276466633475674533", 5),
    ("3642756176227637211322113551637574556", 2),
    ("22647455554314246733661634615122372377511", 0),
    ("427566236745127177115664464254", 2),
    ("7172212567451542223676134464437761515", 0),
    ("641154574541323641152467137655232232366", 0),
    ("5775265212657176476365522624313714333", 2),
    ("3575316255751336464276636772271112", -3),
];

#[test]
fn gamesolver_end_easy_positions_match_published_scores_and_brute_force() {
    let mut solver = Solver::with_tt_bits(20);
    for &(text, expected) in END_EASY {
        let moves = digits(text);
        let pos = Position::from_moves(7, 6, &[], &moves).unwrap();
        let mut brute = Brute::new(7, 6, &[]);
        for &c in &moves {
            brute.play(c);
        }
        let mut memo = Memo::default();
        assert_eq!(brute.score(&mut memo), expected, "brute force on {text}");
        assert_eq!(solver.solve(&pos), expected, "solver on {text}");
        assert_eq!(solver.solve_weak(&pos), expected.signum(), "weak on {text}");
    }
}

#[test]
fn empty_small_boards_match_brute_force() {
    // (width, height, blocked, score of the empty board, found by the brute force)
    let cases: &[(usize, usize, Cells, i32)] = &[
        (4, 4, &[], 0),
        (4, 4, &[(1, 0)], 2),
        (4, 4, &[(1, 2), (2, 1)], -1),
        (3, 6, &[], 0),
        (2, 9, &[], 0),
        (1, 63, &[], 0),
    ];
    for &(w, h, blocked, expected) in cases {
        let pos = Position::new(w, h, blocked).unwrap();
        let mut memo = Memo::default();
        let brute = Brute::new(w, h, blocked).score(&mut memo);
        assert_eq!(brute, expected, "brute force {w}x{h} {blocked:?}");
        let mut solver = Solver::with_tt_bits(16);
        assert_eq!(solver.solve(&pos), expected, "solver {w}x{h} {blocked:?}");
        assert_eq!(solver.solve_weak(&pos), expected.signum());
    }
}

// ---------------------------------------------------------------------------------------------
// Random positions against brute force
// ---------------------------------------------------------------------------------------------

/// Solves `count` random positions of one board with both methods (one memo and one solver
/// for the whole board, so the table is reused across positions as in real use), checking
/// `solve`, `solve_weak`, `analyze` and `best_move`. Returns how many were compared.
fn compare_random_positions(
    (w, h, blocked): (usize, usize, &[(usize, usize)]),
    discs: RangeInclusive<usize>,
    count: usize,
    seed: u64,
    memo: &mut Memo,
) -> usize {
    let mut rng = Rng::seed_from_u64(seed);
    let mut solver = Solver::with_tt_bits(18);
    let mut compared = 0;
    let mut scores_seen = BTreeSet::new();
    while compared < count {
        let n = rng.random_range(discs.clone());
        let Some((moves, pos, mut brute)) = random_game(w, h, blocked, n, &mut rng) else {
            continue;
        };
        let expected = brute.score(memo);
        scores_seen.insert(expected);
        let ctx = format!("{w}x{h} blocked {blocked:?} moves {moves:?}");
        assert_eq!(solver.solve(&pos), expected, "solve, {ctx}");
        assert_eq!(solver.solve_weak(&pos), expected.signum(), "weak, {ctx}");
        let analysis = solver.analyze(&pos);
        assert_eq!(analysis, brute.analyze(memo), "analyze, {ctx}");
        if !pos.is_full() {
            assert_eq!(analysis.iter().flatten().max(), Some(&expected), "{ctx}");
            let best = solver.best_move(&pos);
            assert_eq!(analysis[best], Some(expected), "best_move {best}, {ctx}");
        }
        compared += 1;
    }
    // The sample must exercise wins, losses and draws, or it proves little.
    assert!(scores_seen.len() >= 3, "{w}x{h}: only scores {scores_seen:?}");
    compared
}

fn compare(board: (usize, usize, &[(usize, usize)]), discs: RangeInclusive<usize>, count: usize, seed: u64) -> usize {
    compare_random_positions(board, discs, count, seed, &mut Memo::default())
}

#[test]
fn five_by_four_empty_board_and_random_positions_match_brute_force() {
    // The empty board's full tree fills the memo, so the random positions cost little more.
    let mut memo = Memo::with_capacity_and_hasher(3_000_000, Default::default());
    assert_eq!(Brute::new(5, 4, &[]).score(&mut memo), 0);
    let empty = Position::new(5, 4, &[]).unwrap();
    assert_eq!(Solver::with_tt_bits(16).solve(&empty), 0);
    assert_eq!(compare_random_positions((5, 4, &[]), 0..=20, 150, 2, &mut memo), 150);
}

#[test]
fn random_small_board_positions_match_brute_force() {
    assert_eq!(compare((4, 4, &[]), 0..=16, 150, 1), 150);
    assert_eq!(compare((4, 5, &[]), 6..=20, 150, 3), 150);
    assert_eq!(compare((6, 5, &[]), 16..=30, 100, 4), 100);
}

#[test]
fn random_blocked_board_positions_match_brute_force() {
    assert_eq!(compare((4, 4, &[(1, 1)]), 0..=15, 100, 11), 100);
    assert_eq!(compare((5, 4, &[(2, 0)]), 6..=19, 100, 12), 100);
    assert_eq!(compare((5, 4, &[(0, 3), (4, 1)]), 6..=18, 100, 13), 100);
    // Two blocked cells stacked: a disc skips both.
    assert_eq!(compare((5, 5, &[(1, 1), (1, 2), (3, 0)]), 10..=22, 100, 14), 100);
    assert_eq!(compare((7, 6, &[(3, 2)]), 28..=34, 40, 15), 40);
}

#[test]
fn late_standard_positions_match_brute_force() {
    assert_eq!(compare((7, 6, &[]), 30..=34, 80, 21), 80);
}

#[test]
fn late_positions_on_other_sizes_match_brute_force() {
    // 8x7 uses all 64 bits, 9x6 and 7x8 63.
    assert_eq!(compare((8, 7, &[]), 44..=46, 25, 31), 25);
    assert_eq!(compare((9, 6, &[(4, 5)]), 41..=43, 25, 32), 25);
    assert_eq!(compare((7, 8, &[]), 44..=46, 25, 33), 25);
}

// ---------------------------------------------------------------------------------------------
// Consistency on positions too deep for brute force
// ---------------------------------------------------------------------------------------------

#[test]
fn midgame_analyze_weak_and_best_move_agree_with_solve() {
    let mut rng = Rng::seed_from_u64(41);
    let mut solver = Solver::with_tt_bits(20);
    let mut small = Solver::with_tt_bits(10); // heavy overwriting must not change scores
    let mut done = 0;
    while done < 12 {
        let discs = rng.random_range(18..26usize);
        let Some((moves, pos, _)) = random_game(7, 6, &[], discs, &mut rng) else {
            continue;
        };
        let score = solver.solve(&pos);
        assert_eq!(small.solve(&pos), score, "tiny table, {moves:?}");
        assert_eq!(solver.solve_weak(&pos), score.signum(), "{moves:?}");
        let analysis = solver.analyze(&pos);
        assert_eq!(analysis.iter().flatten().max(), Some(&score), "{moves:?}");
        for (c, a) in analysis.iter().enumerate() {
            assert_eq!(a.is_some(), pos.can_play(c));
        }
        let best = solver.best_move(&pos);
        assert_eq!(analysis[best], Some(score), "{moves:?}");
        done += 1;
    }
}

#[test]
fn immediate_wins_are_scored_without_search() {
    // First player has three in column 0 and is to move: wins with its 4th disc, the 7th.
    let pos = Position::from_moves(7, 6, &[], &[0, 1, 0, 1, 0, 1]).unwrap();
    assert!(pos.can_win_next());
    assert!(pos.is_winning_move(0) && !pos.is_winning_move(1));
    let mut solver = Solver::with_tt_bits(16);
    assert_eq!(solver.solve(&pos), (42 + 1 - 6) / 2);
    assert_eq!(solver.solve_weak(&pos), 1);
    assert_eq!(solver.node_count(), 0);
    assert_eq!(solver.best_move(&pos), 0);
    // The same on 4x4, small enough to analyze: column 0 wins with the 7th disc of 16;
    // columns 2 and 3 let the opponent win at once with column 1.
    let small = Position::from_moves(4, 4, &[], &[0, 1, 0, 1, 0, 1]).unwrap();
    let a = solver.analyze(&small);
    assert_eq!(a[0], Some((16 + 1 - 6) / 2));
    assert_eq!((a[2], a[3]), (Some(-5), Some(-5)));
    assert!(a[1].unwrap() > -5 && a[1].unwrap() < 5, "blocking delays the loss: {a:?}");
}

#[test]
fn budget_gives_up_cleanly_and_leaves_a_sound_table() {
    let pos = Position::from_moves(7, 6, &[], &digits("4453")).unwrap();
    let mut solver = Solver::with_tt_bits(20);
    assert_eq!(solver.solve_with_budget(&pos, 1_000), None);
    assert!(solver.node_count() > 1_000 && solver.node_count() <= 1_001);
    // A late position fits easily in a budget, and an aborted search poisons nothing.
    let late = Position::from_moves(7, 6, &[], &digits(END_EASY[16].0)).unwrap();
    for _ in 0..3 {
        assert_eq!(solver.solve_with_budget(&pos, 5_000), None);
        assert_eq!(solver.solve_with_budget(&late, 10_000_000), Some(END_EASY[16].1));
    }
    solver.reset();
    assert_eq!(solver.node_count(), 0);
}

#[test]
fn switching_boards_resets_the_table() {
    let mut solver = Solver::with_tt_bits(16);
    let mut memo_a = Memo::default();
    let mut memo_b = Memo::default();
    let mut rng = Rng::seed_from_u64(51);
    // Same key bits mean different positions on these boards; a stale table would mix them.
    for i in 0..60 {
        let (w, h, blocked, memo): (usize, usize, &[(usize, usize)], _) =
            if i % 2 == 0 { (4, 4, &[], &mut memo_a) } else { (4, 4, &[(0, 0)], &mut memo_b) };
        let discs = rng.random_range(..10usize);
        let Some((_, pos, mut brute)) = random_game(w, h, blocked, discs, &mut rng) else {
            continue;
        };
        assert_eq!(solver.solve(&pos), brute.score(memo));
    }
}

// ---------------------------------------------------------------------------------------------
// Positions, bitboards and errors
// ---------------------------------------------------------------------------------------------

#[test]
fn bitboards_round_trip() {
    let mut rng = Rng::seed_from_u64(61);
    for blocked in [&[][..], &[(2, 0), (5, 3)][..]] {
        for _ in 0..50 {
            let discs = rng.random_range(..30usize);
            let Some((_, pos, _)) = random_game(7, 6, blocked, discs, &mut rng) else {
                continue;
            };
            let back =
                Position::from_bitboards(7, 6, pos.current(), pos.mask(), pos.blocked(), pos.moves_played()).unwrap();
            assert_eq!(back, pos);
            assert_eq!(back.key(), pos.current() + pos.mask());
        }
    }
}

fn spec_reason(e: GameError) -> String {
    match e {
        GameError::Spec { reason, .. } => reason.to_string(),
        other => panic!("expected a spec error, got {other:?}"),
    }
}

fn illegal_reason(e: GameError) -> String {
    match e {
        GameError::IllegalMove { reason, .. } => reason.to_string(),
        other => panic!("expected an illegal move, got {other:?}"),
    }
}

fn parse_reason(e: GameError) -> String {
    match e {
        GameError::Parse { reason, .. } => reason.to_string(),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn boards_that_do_not_fit_are_refused() {
    let r = spec_reason(Position::new(8, 8, &[]).unwrap_err());
    assert!(r.contains("needs 72"), "{r}");
    assert!(spec_reason(Position::new(10, 6, &[]).unwrap_err()).contains("needs 70"));
    assert!(Position::new(0, 6, &[]).is_err());
    assert!(Position::new(7, 0, &[]).is_err());
    assert!(Position::new(8, 7, &[]).is_ok());
    assert!(Position::new(1, 63, &[]).is_ok());
    let r = spec_reason(Position::new(7, 6, &[(7, 0)]).unwrap_err());
    assert!(r.contains("off the 7x6 board"), "{r}");
    assert!(Position::new(7, 6, &[(0, 6)]).is_err());
    let r = spec_reason(Position::from_bitboards(7, 6, 0, 1 << 6, 1 << 6, 0).unwrap_err());
    assert!(r.contains("outside the board"), "{r}");
}

#[test]
fn illegal_move_sequences_are_refused() {
    let r = illegal_reason(Position::from_moves(7, 6, &[], &[3, 7]).unwrap_err());
    assert!(r.contains("move 2") && r.contains("columns 0..7"), "{r}");
    let r = illegal_reason(Position::from_moves(7, 6, &[], &[0; 7]).unwrap_err());
    assert!(r.contains("move 7") && r.contains("full"), "{r}");
    // Blocked cells shorten a column.
    let r = illegal_reason(Position::from_moves(4, 4, &[(0, 3)], &[0, 0, 0, 0]).unwrap_err());
    assert!(r.contains("move 4") && r.contains("full"), "{r}");
    // The winning move, and so any move after it.
    let r = illegal_reason(Position::from_moves(7, 6, &[], &[0, 1, 0, 1, 0, 1, 0, 2]).unwrap_err());
    assert!(r.contains("move 7") && r.contains("four in a row"), "{r}");
    let mut pos = Position::from_moves(7, 6, &[], &[0, 1, 0, 1, 0, 1]).unwrap();
    assert!(pos.play(0).is_err());
    assert_eq!(pos.moves_played(), 6, "a refused move changes nothing");
    pos.play(2).unwrap();
    assert_eq!(pos.moves_played(), 7);
}

#[test]
fn inconsistent_bitboards_are_refused() {
    let col = |c: u32, r: u32| 1u64 << (c * 7 + r);
    // A disc floating over an empty cell.
    let r = parse_reason(Position::from_bitboards(7, 6, 0, col(0, 1), 0, 1).unwrap_err());
    assert!(r.contains("floats"), "{r}");
    // Disc count and move count disagree.
    let r = parse_reason(Position::from_bitboards(7, 6, 0, col(0, 0), 0, 2).unwrap_err());
    assert!(r.contains("1 discs"), "{r}");
    // After one move the side to move has no disc.
    let r = parse_reason(Position::from_bitboards(7, 6, col(0, 0), col(0, 0), 0, 1).unwrap_err());
    assert!(r.contains("side to move"), "{r}");
    // current must lie inside mask.
    let r = parse_reason(Position::from_bitboards(7, 6, col(1, 0), 0, 0, 0).unwrap_err());
    assert!(r.contains("outside mask"), "{r}");
    // Blocked cells must be in mask.
    let r = parse_reason(Position::from_bitboards(7, 6, 0, 0, col(3, 3), 0).unwrap_err());
    assert!(r.contains("blocked"), "{r}");
    // A game already won (first player owns four in column 0; second to move).
    let p1 = col(0, 0) | col(0, 1) | col(0, 2) | col(0, 3);
    let p2 = col(1, 0) | col(1, 1) | col(1, 2);
    let r = parse_reason(Position::from_bitboards(7, 6, p2, p1 | p2, 0, 7).unwrap_err());
    assert!(r.contains("four in a row"), "{r}");
    // A disc resting on a blocked cell is fine, and so is one that skipped over it.
    let ok = Position::from_bitboards(7, 6, 0, col(2, 0) | col(2, 1), col(2, 0), 1).unwrap();
    assert_eq!(ok.moves_played(), 1);
    assert_eq!(ok, Position::from_moves(7, 6, &[(2, 0)], &[2]).unwrap(), "same as playing it");
}

#[test]
fn full_board_is_a_draw_and_has_no_best_move() {
    // 4x4 filled without anyone completing four: columns in pairs.
    let moves = [0, 1, 0, 1, 1, 0, 1, 0, 2, 3, 2, 3, 3, 2, 3, 2];
    let pos = Position::from_moves(4, 4, &[], &moves).unwrap();
    assert!(pos.is_full());
    let mut solver = Solver::with_tt_bits(10);
    assert_eq!(solver.solve(&pos), 0);
    assert_eq!(solver.solve_weak(&pos), 0);
    assert_eq!(solver.analyze(&pos), vec![None; 4]);
    assert_eq!(solver.best_move(&pos), 4);
}
