//! The Gomoku game piece of the exported engines (program/src/cpp/gomoku.cpp) against dojo's
//! Gomoku (dojo_game::gomoku): the piece is built with g++ into a shared library, loaded,
//! and asked through its `dojoGomoku*` entry points about positions of random games on
//! boards of 7, 9, 15 and 20, under both rules (freestyle: five or more wins; standard:
//! exactly five). Every answer must be dojo's: the result after each move, the hash, the
//! eight input planes bit for bit, the lookahead, the threat search and the VCF prover
//! (line, nodes and budget flag) at budgets 0, 100 and 1000. dojo's rules are checked
//! against naive references in game/tests/gomoku.rs and search/tests/gomoku_vcf.rs.

use dojo_base::rng::Rng;
use dojo_game::gomoku::{vcf, Gomoku};
use dojo_game::spec::GomokuRule;
use dojo_game::tactics::Lookahead;
use dojo_game::tactics::Tactics;
use dojo_game::{Action, Game, Outcome, Player};
use libloading::Library;
use rand::{RngExt, SeedableRng};
use std::process::Command;

const PIECE: &str = include_str!("../src/cpp/gomoku.cpp");
/// What every exported engine has before its game (cpp/common.cpp).
const COMMON: &str = include_str!("../src/cpp/common.cpp");
/// What the generated part of an export defines before the piece.
const SETTINGS: &str = "namespace dojo {\nconstexpr bool TACTICS = true;\nconstexpr uint32_t VCF_NODES = 100u;\n}\n";
const SIZES: [usize; 4] = [7, 9, 15, 20];

type ResultsFn = unsafe extern "C" fn(i32, i32, *const i32, i32, *mut i32) -> i32;
type PlanesFn = unsafe extern "C" fn(i32, i32, *const i32, i32, *mut f32, *mut f32) -> i32;
type LookaheadFn = unsafe extern "C" fn(i32, i32, *const i32, i32, i32, i32, *mut i32, *mut i32) -> i32;
type ThreatFn = unsafe extern "C" fn(i32, i32, *const i32, i32, i32, *const i32, i32, *mut i32, *mut i32) -> i32;
type VcfFn = unsafe extern "C" fn(i32, i32, *const i32, i32, i32, i32, *mut i32, *mut i32, *mut i32) -> i32;
type HashFn = unsafe extern "C" fn(i32, i32, *const i32, i32, *mut u64) -> i32;

/// A lookahead's answer as both sides report it: 0 moves, 1 win (the move), 2 lost.
type Look = (i32, Vec<Action>);

/// A VCF prover's answer: the line if any, nodes, out of budget.
type VcfAnswer = (Option<Vec<Action>>, u32, bool);

/// The piece built and loaded (the directory lives as long as the library).
struct Piece {
    lib: Library,
    _dir: tempfile::TempDir,
}

impl Piece {
    /// Builds `source` (the piece, or a deliberately broken copy) after the prelude, with
    /// warnings as errors.
    fn build(source: &str) -> Piece {
        let dir = tempfile::tempdir().unwrap();
        let cpp = dir.path().join("gomoku.cpp");
        std::fs::write(&cpp, format!("{COMMON}{SETTINGS}{source}")).unwrap();
        let so = dir.path().join("gomoku.so");
        let out = Command::new("g++")
            .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o"])
            .arg(&so)
            .arg(&cpp)
            .output()
            .expect("g++ runs");
        assert!(out.status.success(), "g++ failed:\n{}", String::from_utf8_lossy(&out.stderr));
        // SAFETY: the library is the piece just built; its initialisers only fill tables.
        let lib = unsafe { Library::new(&so) }.unwrap();
        Piece { lib, _dir: dir }
    }

    fn get<T: Copy>(&self, name: &str) -> T {
        // SAFETY: each name is declared in gomoku.cpp with the signature of its type here.
        unsafe { *self.lib.get::<T>(format!("{name}\0").as_bytes()).unwrap() }
    }

    fn results(&self, size: usize, rule: GomokuRule, moves: &[i32]) -> Vec<i32> {
        let f: ResultsFn = self.get("dojoGomokuResults");
        let mut out = vec![0; moves.len()];
        // SAFETY: `out` holds one result per move.
        let rc = unsafe { f(size as i32, code(rule), moves.as_ptr(), moves.len() as i32, out.as_mut_ptr()) };
        assert_eq!(rc, 0, "a legal game refused: {moves:?}");
        out
    }

    /// The planes in dojo's layout (plane-major), and the mask.
    fn planes(&self, size: usize, rule: GomokuRule, moves: &[i32]) -> (Vec<f32>, Vec<f32>) {
        let f: PlanesFn = self.get("dojoGomokuPlanes");
        let n = size * size;
        let (mut planes, mut mask) = (vec![7.0; 8 * n], vec![7.0; n]);
        // SAFETY: the buffers hold size² cells of 8 planes and size² cells.
        let rc = unsafe {
            f(size as i32, code(rule), moves.as_ptr(), moves.len() as i32, planes.as_mut_ptr(), mask.as_mut_ptr())
        };
        assert_eq!(rc, 0);
        (plane_major(&planes, n), mask)
    }

    fn layout_planes(&self, size: usize, rule: GomokuRule, cells: &[i32], last: i32) -> (i32, Vec<f32>) {
        let f: PlanesFn = self.get("dojoGomokuLayoutPlanes");
        let n = size * size;
        let (mut planes, mut mask) = (vec![7.0; 8 * n], vec![7.0; n]);
        // SAFETY: `cells` holds size² points, the buffers as in `planes`.
        let side = unsafe { f(size as i32, code(rule), cells.as_ptr(), last, planes.as_mut_ptr(), mask.as_mut_ptr()) };
        (side, plane_major(&planes, n))
    }

    fn lookahead(&self, size: usize, rule: GomokuRule, moves: &[i32], tactics: bool, vcf_nodes: u32) -> Look {
        let f: LookaheadFn = self.get("dojoGomokuLookahead");
        let mut out = vec![0; size * size];
        let mut count = 0;
        // SAFETY: `out` holds every point.
        let kind = unsafe {
            f(
                size as i32,
                code(rule),
                moves.as_ptr(),
                moves.len() as i32,
                tactics as i32,
                vcf_nodes as i32,
                out.as_mut_ptr(),
                &mut count,
            )
        };
        assert!(kind >= 0, "refused: {moves:?}");
        (kind, out[..count as usize].iter().map(|&a| a as Action).collect())
    }

    fn threat_search(&self, size: usize, rule: GomokuRule, moves: &[i32], nodes: u32, given: &[Action]) -> Look {
        let f: ThreatFn = self.get("dojoGomokuThreatSearch");
        let given: Vec<i32> = given.iter().map(|&a| a as i32).collect();
        let mut out = vec![0; size * size];
        let mut count = 0;
        // SAFETY: `out` holds every point, `given` its length.
        let kind = unsafe {
            f(
                size as i32,
                code(rule),
                moves.as_ptr(),
                moves.len() as i32,
                nodes as i32,
                given.as_ptr(),
                given.len() as i32,
                out.as_mut_ptr(),
                &mut count,
            )
        };
        assert!(kind >= 0, "refused: {moves:?}");
        (kind, out[..count as usize].iter().map(|&a| a as Action).collect())
    }

    fn vcf(&self, size: usize, rule: GomokuRule, moves: &[i32], attacker: Player, nodes: u32) -> VcfAnswer {
        let f: VcfFn = self.get("dojoGomokuVcf");
        let mut line = vec![0; 100];
        let (mut len, mut stats) = (0, [0i32; 2]);
        // SAFETY: a line holds at most 2 * 40 + 4 points.
        let found = unsafe {
            f(
                size as i32,
                code(rule),
                moves.as_ptr(),
                moves.len() as i32,
                attacker.index() as i32,
                nodes as i32,
                line.as_mut_ptr(),
                &mut len,
                stats.as_mut_ptr(),
            )
        };
        assert!(found >= 0, "refused: {moves:?}");
        let line = (found == 1).then(|| line[..len as usize].iter().map(|&a| a as Action).collect());
        (line, stats[0] as u32, stats[1] == 1)
    }

    fn hash(&self, size: usize, rule: GomokuRule, moves: &[i32]) -> u64 {
        let f: HashFn = self.get("dojoGomokuHash");
        let mut hash = 0;
        // SAFETY: one u64 out.
        assert_eq!(unsafe { f(size as i32, code(rule), moves.as_ptr(), moves.len() as i32, &mut hash) }, 0);
        hash
    }
}

/// The piece's number for `rule` (its `GomokuRule` enum): Gomocup's, 0 freestyle, 1 standard.
fn code(rule: GomokuRule) -> i32 {
    rule.gomocup() as i32
}

/// The piece's cell-major planes (`planes[cell * 8 + k]`) in dojo's plane-major layout.
fn plane_major(planes: &[f32], n: usize) -> Vec<f32> {
    let mut out = vec![0.0; 8 * n];
    for c in 0..n {
        for k in 0..8 {
            out[k * n + c] = planes[c * 8 + k];
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Random games.

/// A random game under `rule` to its end: mostly next to the stones already down (within
/// two points, so lines, fours and VCFs are common), sometimes anywhere.
fn random_game(size: usize, rule: GomokuRule, rng: &mut Rng) -> Vec<i32> {
    let mut g = Gomoku::with_rule(size, rule).unwrap();
    let (mut moves, mut open) = (Vec::new(), Vec::new());
    while g.outcome().is_none() {
        g.legal_actions(&mut open);
        let near: Vec<Action> = open.iter().copied().filter(|&a| near_stone(&g, a)).collect();
        let a = if !near.is_empty() && rng.random_bool(0.85) {
            near[rng.random_range(..near.len())]
        } else {
            open[rng.random_range(..open.len())]
        };
        g.play(a).unwrap();
        moves.push(a as i32);
    }
    moves
}

fn near_stone(g: &Gomoku, a: Action) -> bool {
    let (x, y) = g.point(a);
    let stone = |dx: usize, dy: usize| match ((x + dx).checked_sub(2), (y + dy).checked_sub(2)) {
        (Some(qx), Some(qy)) => g.stone(qx, qy).is_some(),
        _ => false,
    };
    (0..5).any(|dy| (0..5).any(|dx| stone(dx, dy)))
}

fn dojo_result(g: &Gomoku) -> i32 {
    match g.outcome() {
        None => 0,
        Some(Outcome::Win(_)) => 1,
        Some(_) => 2,
    }
}

fn as_look(look: Lookahead, out: Vec<Action>) -> Look {
    match look {
        Lookahead::Moves => (0, out),
        Lookahead::Win(a) => (1, vec![a]),
        Lookahead::Lost => (2, out),
    }
}

/// What dojo's search expands a position with (search/src/puct.rs, `deliver`).
fn dojo_expansion(g: &Gomoku, tactics: bool, vcf_nodes: u32) -> Look {
    let mut out = Vec::new();
    let mut look = if tactics {
        g.lookahead(&mut out)
    } else {
        g.legal_actions(&mut out);
        Lookahead::Moves
    };
    if look == Lookahead::Moves && vcf_nodes > 0 {
        look = g.threat_search(vcf_nodes, &mut out);
    }
    as_look(look, out)
}

fn dojo_vcf(g: &Gomoku, attacker: Player, nodes: u32) -> VcfAnswer {
    let v = vcf(g, attacker, nodes);
    (v.line, v.nodes, v.out_of_budget)
}

/// Positions compared and the tactical answers among them, for the report.
#[derive(Default, Debug)]
struct Tally {
    positions: usize,
    wins: usize,
    lost: usize,
    narrowed: usize,
    vcf_lines: usize,
    /// Lines of more than one four, and searches that ran out of budget (at 100 nodes).
    long_lines: usize,
    out_of_budget: usize,
    /// Standard positions whose stones, played under freestyle, give another result or
    /// planes, and (ongoing under both rules) another lookahead or VCF line at 1000 nodes:
    /// where the rules' answers differ, so the rule is compared and not only passed on.
    other_than_freestyle: usize,
    tactics_other_than_freestyle: usize,
}

/// Compares `piece` with dojo on every position of `games` random games of `rule` a size;
/// the first difference as an error.
fn compare(piece: &Piece, rule: GomokuRule, games: usize, seed: u64) -> Result<Tally, String> {
    let mut rng = Rng::seed_from_u64(seed);
    let mut tally = Tally::default();
    for size in SIZES {
        for _ in 0..games {
            let moves = random_game(size, rule, &mut rng);
            compare_game(piece, size, rule, &moves, &mut tally)?;
        }
    }
    Ok(tally)
}

fn compare_game(piece: &Piece, size: usize, rule: GomokuRule, moves: &[i32], tally: &mut Tally) -> Result<(), String> {
    let results = piece.results(size, rule, moves);
    let mut g = Gomoku::with_rule(size, rule).unwrap();
    // The same moves under freestyle while that game goes on (a standard game may go past
    // an overline).
    let mut twin = (rule == GomokuRule::Standard).then(|| Gomoku::new(size).unwrap());
    for k in 0..=moves.len() {
        let prefix = &moves[..k];
        if k > 0 {
            let m = moves[k - 1] as Action;
            g.play(m).unwrap();
            twin = twin.filter(|t| t.outcome().is_none()).map(|mut t| t.play(m).map(|_| t).unwrap());
        }
        let at = || format!("{rule}, size {size}, moves {prefix:?}\n{}", g.render());
        if k > 0 && results[k - 1] != dojo_result(&g) {
            return Err(format!("result {} against {}: {}", results[k - 1], dojo_result(&g), at()));
        }
        if piece.hash(size, rule, prefix) != g.hash() {
            return Err(format!("hash differs: {}", at()));
        }
        let (planes, mask) = piece.planes(size, rule, prefix);
        let want = dojo_planes(&g);
        if let Some(i) = (0..want.len()).find(|&i| planes[i] != want[i]) {
            let n = size * size;
            return Err(format!("plane {} at ({}, {}) differs: {}", i / n, i % n % size, i % n / size, at()));
        }
        if mask != want[3 * size * size..4 * size * size] {
            return Err(format!("mask differs: {}", at()));
        }
        if g.outcome().is_none() {
            compare_tactics(piece, size, rule, prefix, &g, tally).map_err(|e| format!("{e}: {}", at()))?;
        }
        if let Some(t) = &twin {
            tally_rules(&g, t, tally);
        }
        tally.positions += 1;
    }
    Ok(())
}

fn dojo_planes(g: &Gomoku) -> Vec<f32> {
    let mut out = vec![0.0; 8 * g.size() * g.size()];
    g.encode_planes(&mut out);
    out
}

/// Counts where the standard position `g` and its freestyle twin `t` differ.
fn tally_rules(g: &Gomoku, t: &Gomoku, tally: &mut Tally) {
    let differs = dojo_result(g) != dojo_result(t) || dojo_planes(g) != dojo_planes(t);
    tally.other_than_freestyle += differs as usize;
    if g.outcome().is_none() && t.outcome().is_none() {
        let line = |g: &Gomoku, attacker| vcf(g, attacker, 1000).line;
        let tactics = dojo_expansion(g, true, 1000) != dojo_expansion(t, true, 1000)
            || [Player::First, Player::Second].into_iter().any(|p| line(g, p) != line(t, p));
        tally.tactics_other_than_freestyle += tactics as usize;
    }
}

fn compare_tactics(
    piece: &Piece,
    size: usize,
    rule: GomokuRule,
    moves: &[i32],
    g: &Gomoku,
    tally: &mut Tally,
) -> Result<(), String> {
    for (tactics, nodes) in [(true, 0), (true, 100), (true, 1000), (false, 100)] {
        let (got, want) = (piece.lookahead(size, rule, moves, tactics, nodes), dojo_expansion(g, tactics, nodes));
        if got != want {
            return Err(format!("lookahead (tactics {tactics}, {nodes} nodes) {got:?} against {want:?}"));
        }
        if nodes == 1000 {
            tally.wins += (want.0 == 1) as usize;
            tally.lost += (want.0 == 2) as usize;
        }
    }
    // The threat search on every open move (no lookahead first), as without tactics.
    let mut all = Vec::new();
    g.legal_actions(&mut all);
    let mut narrowed = all.clone();
    let want = as_look(g.threat_search(1000, &mut narrowed), narrowed);
    let got = piece.threat_search(size, rule, moves, 1000, &all);
    if got != want {
        return Err(format!("threat search {got:?} against {want:?}"));
    }
    tally.narrowed += (want.0 == 0 && want.1.len() < all.len()) as usize;
    for attacker in [Player::First, Player::Second] {
        for nodes in [0, 100, 1000] {
            let (got, want) = (piece.vcf(size, rule, moves, attacker, nodes), dojo_vcf(g, attacker, nodes));
            if got != want {
                return Err(format!("vcf of {attacker:?} at {nodes} nodes {got:?} against {want:?}"));
            }
            tally.vcf_lines += (nodes == 1000 && want.0.is_some()) as usize;
            tally.long_lines += (nodes == 1000 && want.0.as_ref().is_some_and(|l| l.len() > 3)) as usize;
            tally.out_of_budget += (nodes == 100 && want.2) as usize;
        }
    }
    Ok(())
}

/// Enough positions, and enough of every answer, that a difference would have shown.
fn assert_enough(tally: &Tally) {
    assert!(tally.positions > 5000, "{tally:?}");
    assert!(tally.wins > 100 && tally.lost > 20 && tally.narrowed > 20 && tally.vcf_lines > 200, "{tally:?}");
    assert!(tally.long_lines > 100 && tally.out_of_budget > 20, "{tally:?}");
}

#[test]
fn piece_matches_dojo_on_random_freestyle_games() {
    let piece = Piece::build(PIECE);
    let tally = compare(&piece, GomokuRule::Freestyle, 30, 0x676f_6d6f_6b75).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{tally:?}");
    assert_enough(&tally);
}

#[test]
fn piece_matches_dojo_on_random_standard_games() {
    let piece = Piece::build(PIECE);
    let tally = compare(&piece, GomokuRule::Standard, 30, 0x0073_7464).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{tally:?}");
    assert_enough(&tally);
    // The rules part somewhere in these games, in the plain answers and in the tactics.
    assert!(tally.other_than_freestyle > 20 && tally.tactics_other_than_freestyle > 20, "{tally:?}");
}

/// The tests above can fail: pieces broken in the open-four plane, in the prover's
/// iterative deepening (the same lines, found with other node counts), in the standard
/// rule's exact five and in its hash key, are caught.
#[test]
fn broken_pieces_fail_the_comparison() {
    for (what, rule, from, to) in [
        ("open four", GomokuRule::Freestyle, "out.open_four[p] |= fours[p] & partner;", "out.open_four[p] |= partner;"),
        (
            "deepening",
            GomokuRule::Freestyle,
            "uint32_t depth = 1; depth <= DEPTH_CAP",
            "uint32_t depth = 2; depth <= DEPTH_CAP",
        ),
        (
            "exact five",
            GomokuRule::Standard,
            "if (rule == STANDARD) w = w & ~at(-(k + 1)) & ~at(5 - k);",
            "(void)rule;",
        ),
        ("standard key", GomokuRule::Standard, "standard = wyrand(state);", "standard = 0;"),
    ] {
        assert!(PIECE.contains(from), "{what}: the piece no longer holds {from:?}");
        let piece = Piece::build(&PIECE.replace(from, to));
        let err = compare(&piece, rule, 2, 5).expect_err(what);
        eprintln!("{what}: {}", err.lines().next().unwrap_or(""));
    }
}

#[test]
fn put_lays_out_the_position_play_reaches() {
    let piece = Piece::build(PIECE);
    let mut rng = Rng::seed_from_u64(11);
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        for size in SIZES {
            for _ in 0..5 {
                let moves = random_game(size, rule, &mut rng);
                let k = rng.random_range(..moves.len());
                let prefix = &moves[..k];
                let mut cells = vec![0; size * size];
                for (i, &m) in prefix.iter().enumerate() {
                    cells[m as usize] = 1 + (i % 2) as i32;
                }
                let last = prefix.last().copied().unwrap_or(-1);
                let (side, planes) = piece.layout_planes(size, rule, &cells, last);
                assert_eq!(side, (k % 2) as i32);
                assert_eq!(planes, piece.planes(size, rule, prefix).0, "{rule}, size {size}, moves {prefix:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The standard rule on hand-built positions (size 15; O's stones far from X's): the
// piece's answers where the rules part, and dojo's on every position of the layout.

/// The moves giving X the stones `xs` and O the stones `os` (points (x, y)), alternately,
/// X first; `xs` has as many stones as `os` or one more.
fn layout(xs: &[(i32, i32)], os: &[(i32, i32)]) -> Vec<i32> {
    assert!(xs.len() == os.len() || xs.len() == os.len() + 1);
    let mut moves = Vec::new();
    for (i, &(x, y)) in xs.iter().enumerate() {
        moves.push(y * 15 + x);
        if let Some(&(x, y)) = os.get(i) {
            moves.push(y * 15 + x);
        }
    }
    moves
}

/// Compares `piece` with dojo on every position of `moves` (size 15) under both rules.
fn agrees_with_dojo(piece: &Piece, moves: &[i32]) {
    for rule in [GomokuRule::Freestyle, GomokuRule::Standard] {
        compare_game(piece, 15, rule, moves, &mut Tally::default()).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// O's stones, scattered so that they make no line.
const O_FAR: [(i32, i32); 6] = [(0, 14), (3, 12), (6, 14), (9, 12), (12, 14), (14, 11)];

#[test]
fn standard_overline_does_not_win() {
    let piece = Piece::build(PIECE);
    // X: 0 1 _ 3 4 5 on row 2, then X plays 2: six in a row.
    let mut moves = layout(&[(0, 2), (1, 2), (3, 2), (4, 2), (5, 2)], &O_FAR[..5]);
    moves.push(2 * 15 + 2);
    agrees_with_dojo(&piece, &moves);
    assert_eq!(*piece.results(15, GomokuRule::Standard, &moves).last().unwrap(), 0, "six is no win under standard");
    assert_eq!(*piece.results(15, GomokuRule::Freestyle, &moves).last().unwrap(), 1, "six wins under freestyle");
}

#[test]
fn standard_five_beside_an_opponent_stone_wins() {
    let piece = Piece::build(PIECE);
    // O on (5, 2), beside X's 1 2 3 4 on row 2; X plays 0: exactly five, a win.
    let mut os = vec![(5, 2)];
    os.extend_from_slice(&O_FAR[..3]);
    let mut moves = layout(&[(1, 2), (2, 2), (3, 2), (4, 2)], &os);
    moves.push(2 * 15);
    agrees_with_dojo(&piece, &moves);
    let results = piece.results(15, GomokuRule::Standard, &moves);
    assert_eq!(results, vec![0, 0, 0, 0, 0, 0, 0, 0, 1]);
}

#[test]
fn standard_five_point_is_exactly_five() {
    let piece = Piece::build(PIECE);
    // X to move with X X _ X X X on row 2 (x 0..5): 2 makes six, so it is no five-point
    // under standard; under freestyle it wins at once.
    let moves = layout(&[(0, 2), (1, 2), (3, 2), (4, 2), (5, 2)], &O_FAR[..5]);
    agrees_with_dojo(&piece, &moves);
    let point = 2 * 15 + 2;
    let n = 225;
    let (standard, _) = piece.planes(15, GomokuRule::Standard, &moves);
    let (freestyle, _) = piece.planes(15, GomokuRule::Freestyle, &moves);
    assert_eq!((standard[4 * n + point], freestyle[4 * n + point]), (0.0, 1.0));
    assert_eq!(piece.lookahead(15, GomokuRule::Freestyle, &moves, true, 0), (1, vec![point as Action]));
    let (kind, _) = piece.lookahead(15, GomokuRule::Standard, &moves, true, 0);
    assert_eq!(kind, 0, "no win at once under standard");
    // Without the stone on 0, X _ X X X (x 1..5) makes exactly five at 2: a win.
    let moves = layout(&[(1, 2), (3, 2), (4, 2), (5, 2)], &O_FAR[..4]);
    agrees_with_dojo(&piece, &moves);
    assert_eq!(piece.lookahead(15, GomokuRule::Standard, &moves, true, 0), (1, vec![point as Action]));
}

#[test]
fn standard_open_four_needs_two_exact_fives() {
    let piece = Piece::build(PIECE);
    // X: 0 _ 2 3 4 _ _ on row 2, X to move. A stone on 5 makes 2 3 4 5 with fives at 1
    // (0..5: six, not a five under standard) and 6 (2..6: five): an open four under
    // freestyle only. A stone on 1 makes 0..4, five at once under both.
    let moves = layout(&[(0, 2), (2, 2), (3, 2), (4, 2)], &O_FAR[..4]);
    agrees_with_dojo(&piece, &moves);
    let n = 225;
    let at5 = 2 * 15 + 5;
    let (standard, _) = piece.planes(15, GomokuRule::Standard, &moves);
    let (freestyle, _) = piece.planes(15, GomokuRule::Freestyle, &moves);
    assert_eq!((standard[6 * n + at5], freestyle[6 * n + at5]), (0.0, 1.0));
    let at1 = 2 * 15 + 1;
    assert_eq!((standard[4 * n + at1], freestyle[4 * n + at1]), (1.0, 1.0));
}

#[test]
fn standard_vcf_does_not_count_on_an_overline() {
    let piece = Piece::build(PIECE);
    // X: 1 2 _ 4 _ 6 7 on row 2, X to move. Freestyle: 3 makes 1..4, with fives at 0 and at
    // 5 (1..7, seven in a row): two, a win with one four.
    let moves = layout(&[(1, 2), (2, 2), (4, 2), (6, 2), (7, 2)], &O_FAR[..5]);
    agrees_with_dojo(&piece, &moves);
    let (line, _, _) = piece.vcf(15, GomokuRule::Freestyle, &moves, Player::First, 1000);
    assert_eq!(line, Some(vec![2 * 15 + 3, 2 * 15, 2 * 15 + 5]));
    // Standard: every four of the row has one exact five (3 → 0, 5 → 8, 0 → 3, 8 → 5: the
    // overlines do not count) and each block leaves nothing: no VCF.
    let (line, nodes, out_of_budget) = piece.vcf(15, GomokuRule::Standard, &moves, Player::First, 1000);
    assert_eq!((line, out_of_budget), (None, false), "{nodes} nodes");
}

/// The piece also builds for Windows (Gomocup's platform) with mingw-w64, warning-free.
#[test]
fn piece_builds_with_mingw() {
    let compiler = "x86_64-w64-mingw32-g++-win32";
    if Command::new(compiler).arg("--version").output().is_err() {
        eprintln!("SKIPPED: {compiler} is not installed (scripts/setup-wine.sh installs it)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cpp = dir.path().join("gomoku.cpp");
    std::fs::write(&cpp, format!("{COMMON}{SETTINGS}{PIECE}")).unwrap();
    let out = Command::new(compiler)
        .args(["-std=c++17", "-O2", "-static", "-Wall", "-Wextra", "-Werror", "-c", "-o"])
        .arg(dir.path().join("gomoku.o"))
        .arg(&cpp)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
