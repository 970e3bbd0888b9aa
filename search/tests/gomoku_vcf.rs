//! Gomoku's threat-space search: the VCF prover on known positions (3-, 5- and 9-move VCFs,
//! a false VCF, the node budget), checked against a VCF search written with the game's own
//! moves, and the graph search that uses it (proven wins, defences, proven losses).

use dojo_base::rng::Rng;
use dojo_game::gomoku::{vcf, Gomoku};
use dojo_game::spec::GomokuRule;
use dojo_game::tactics::Lookahead;
use dojo_game::tactics::Tactics;
use dojo_game::{Action, Game, Outcome, Player, ToMove};
use dojo_search::config::SearchConfig;
use dojo_search::evaluator::UniformEvaluator;
use dojo_search::puct::{Proven, Search};
use dojo_search::step::LeafSearch;
use rand::{RngExt, SeedableRng};

/// A position from a diagram (`X` the first player, `O` the second, anything else empty),
/// reached by playing the stones alternately; X to move where the counts are equal.
fn board(rows: &[&str]) -> Gomoku {
    let size = rows.len();
    let mut g = Gomoku::new(size).unwrap();
    let mut stones = [Vec::new(), Vec::new()];
    for (y, row) in rows.iter().enumerate() {
        let row: Vec<char> = row.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(row.len(), size, "row {y} of the diagram");
        for (x, c) in row.into_iter().enumerate() {
            match c {
                'X' => stones[0].push(g.action_at(x, y)),
                'O' => stones[1].push(g.action_at(x, y)),
                _ => {}
            }
        }
    }
    let (xs, os) = (stones[0].len(), stones[1].len());
    assert!(xs == os || xs == os + 1, "{xs} X and {os} O stones cannot alternate");
    for i in 0..xs {
        g.play(stones[0][i]).unwrap();
        if let Some(&o) = stones[1].get(i) {
            g.play(o).unwrap();
        }
    }
    assert!(g.outcome().is_none(), "the diagram holds a five");
    g
}

fn at(g: &Gomoku, text: &str) -> Action {
    g.action_from_text(text).unwrap()
}

/// The reference: whether `attacker`, to move, wins by continuous fours within `moves`
/// stones of its own (its five included), played out with the game's moves and its list of
/// winning points alone. Slow and plain.
fn wins_by_fours(g: &Gomoku, attacker: Player, moves: usize) -> bool {
    assert_eq!(g.to_move(), ToMove::Player(attacker));
    if moves == 0 {
        return false;
    }
    if !g.winning_points(attacker).is_empty() {
        return true;
    }
    if moves < 2 {
        return false;
    }
    let defender = attacker.other();
    let threats = g.winning_points(defender);
    let candidates: Vec<Action> = match threats.len() {
        0 => (0..g.num_actions() as Action).filter(|&a| g.is_legal(a)).collect(),
        1 => threats,
        _ => return false,
    };
    candidates.into_iter().any(|m| {
        let mut after = g.clone();
        after.play_unchecked(m);
        let fives = after.winning_points(attacker);
        if fives.is_empty() || !after.winning_points(defender).is_empty() {
            return false;
        }
        if fives.len() >= 2 {
            return true;
        }
        after.play_unchecked(fives[0]);
        wins_by_fours(&after, attacker, moves - 1)
    })
}

/// Whether the prover's line is a VCF: every attacker stone but the last leaves exactly one
/// point to block, the defender's reply is that point and makes no five, and the last
/// stone makes five. Returns the attacker's stones.
fn check_line(g: &Gomoku, line: &[Action]) -> usize {
    let attacker = match g.to_move() {
        ToMove::Player(p) => p,
        ToMove::Chance => unreachable!(),
    };
    let mut g = g.clone();
    for (i, pair) in line.chunks(2).enumerate() {
        g.play(pair[0]).unwrap();
        if i == line.len() / 2 {
            assert_eq!(g.outcome(), Some(Outcome::Win(attacker)), "the line ends without a five");
            return i + 1;
        }
        assert!(g.outcome().is_none());
        let threats = g.winning_points(attacker);
        assert!(!threats.is_empty(), "move {i} of the line is no four");
        assert!(threats.contains(&pair[1]), "the reply to move {i} is no block");
        assert!(g.winning_points(attacker.other()).is_empty(), "the defender could make five");
        g.play(pair[1]).unwrap();
    }
    panic!("a line of even length ends with the defender's move")
}

/// The shortest VCF of the side to move by the reference, up to `max` attacker stones.
fn shortest_by_play(g: &Gomoku, max: usize) -> Option<usize> {
    let ToMove::Player(me) = g.to_move() else { return None };
    (1..=max).find(|&k| wins_by_fours(g, me, k))
}

/// X: three on row 7 closed by O at 2,7; two on column 6 below it.
const THREE: [&str; 15] = [
    "O . . . . . . . . . . . . . O",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . O X X X . . . . . . . . .",
    ". . . . . . X . . . . . . . .",
    ". . . . . . X . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    "O . . . . . . . . . . . . . O",
];

#[test]
fn a_three_move_vcf_is_found_exactly() {
    let g = board(&THREE);
    let v = vcf(&g, Player::First, 10_000);
    // The four 6,7 (O blocks 7,7) puts three on column 6: 6,6 makes it an open four.
    assert_eq!(g.moves_to_text(v.line.as_ref().unwrap()), "6,7 7,7 6,6 6,5 6,10");
    assert_eq!((v.first(), v.attacker_moves(), v.out_of_budget), (Some(at(&g, "6,7")), 3, false));
    assert_eq!(check_line(&g, v.line.as_ref().unwrap()), 3);
    assert_eq!(shortest_by_play(&g, 4), Some(3));
    // O has nothing of the kind.
    let o = vcf(&g, Player::Second, 10_000);
    assert_eq!((o.line, o.out_of_budget), (None, false));
}

/// The 3-move position where O already has four on column 7, its five-point 7,7 being
/// where O would block X's first four.
const FALSE_BY_FIVE: [&str; 15] = [
    "O . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . X . . . . . . .",
    ". . . . . . . O . . . . . . .",
    ". . . . . . . O . . . . . . .",
    ". . . . . . . O . . . . . . .",
    ". . . . . . . O . . . . . . .",
    ". . O X X X . . . . . . . . .",
    ". . . . . . X . . . . . . . .",
    ". . . . . . X . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
];

/// The 3-move position where O has an open three on column 7 through 7,7: O's block of
/// X's first four makes O an open four.
const FALSE_BY_FOUR: [&str; 15] = [
    "O . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . O . . . . . . .",
    ". . . . . . . O . . . . . . .",
    ". . . . . . . O . . . . . . .",
    ". . O X X X . . . . . . . . .",
    ". . . . . . X . . . . . . . .",
    ". . . . . . X . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
];

#[test]
fn a_false_vcf_is_rejected() {
    // X's four 6,7 looks like the start of the 3-move VCF, but O's block 7,7 is O's five.
    let g = board(&FALSE_BY_FIVE);
    let mut naive = g.clone();
    naive.play(at(&g, "6,7")).unwrap();
    naive.play(at(&g, "7,7")).unwrap();
    assert_eq!(naive.outcome(), Some(Outcome::Win(Player::Second)));
    let v = vcf(&g, Player::First, 10_000);
    assert_eq!((v.line, v.out_of_budget), (None, false));
    assert_eq!(shortest_by_play(&g, 5), None);
    // Here the block makes O an open four, which X cannot stop while playing fours.
    let g = board(&FALSE_BY_FOUR);
    let v = vcf(&g, Player::First, 10_000);
    assert_eq!((v.line, v.out_of_budget), (None, false));
    assert_eq!(shortest_by_play(&g, 5), None);
    // Without the O stones on column 7 the same X stones win.
    assert!(vcf(&board(&THREE), Player::First, 10_000).line.is_some());
}

/// [`THREE`] with O to move (one corner stone fewer): O must stop X's 3-move VCF.
fn o_to_defend() -> Gomoku {
    let mut rows = THREE;
    rows[14] = "O . . . . . . . . . . . . . .";
    board(&rows)
}

/// O to move against two of [`THREE`]'s VCFs far apart: no move stops both.
const TWO_THREATS: [&str; 15] = [
    "O . . . O . . . . O . . . . O",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . O X X X . . . . . . . . .",
    ". . . . . . X . . . . . . . .",
    ". . . . . . X . . . . . . . .",
    "O . . . . . . . . . . . . . .",
    ". . . . . . . . O X X X . . .",
    ". . . . . . . . . . . . X . .",
    ". . . . . . . . . . . . X . .",
    "O . . . . . . . . . . . . . O",
];

fn texts(g: &Gomoku, moves: &[Action]) -> Vec<String> {
    let mut t: Vec<String> = moves.iter().map(|&a| g.action_to_text(a)).collect();
    t.sort();
    t
}

#[test]
fn the_defences_against_a_vcf_are_exactly_the_moves_that_stop_it() {
    let g = o_to_defend();
    let mut moves = Vec::new();
    assert_eq!(g.lookahead(&mut moves), Lookahead::Moves);
    let all = moves.clone();
    assert_eq!(g.threat_search(1_000, &mut moves), Lookahead::Moves);
    // 6,5 does not stop it (X's 6,10 makes the open four instead); 6,6 and 6,10 leave
    // column 6 one open end; 6,7 and 7,7 break the first four.
    assert_eq!(texts(&g, &moves), ["6,10", "6,6", "6,7", "7,7"]);
    // Every move of the board, played out: exactly those leave X without a VCF.
    let stopping: Vec<Action> = all
        .iter()
        .copied()
        .filter(|&m| {
            let mut after = g.clone();
            after.play(m).unwrap();
            shortest_by_play(&after, 4).is_none()
        })
        .collect();
    assert_eq!(texts(&g, &stopping), ["6,10", "6,6", "6,7", "7,7"]);
    // Off, the moves are left alone.
    let mut kept = all.clone();
    assert_eq!(g.threat_search(0, &mut kept), Lookahead::Moves);
    assert_eq!(kept, all);
}

#[test]
fn two_vcfs_at_once_are_a_proven_loss_that_keeps_its_moves() {
    let g = board(&TWO_THREATS);
    let mut moves = Vec::new();
    assert_eq!(g.lookahead(&mut moves), Lookahead::Moves);
    let all = moves.clone();
    assert_eq!(g.threat_search(1_000, &mut moves), Lookahead::Lost);
    assert_eq!(moves, all);
    // A budget too small to check every reply proves nothing, and drops no unchecked move.
    let mut few = all.clone();
    assert_eq!(g.threat_search(2, &mut few), Lookahead::Moves);
    assert_eq!(few, all);
}

#[test]
fn the_search_proves_vcf_wins_and_losses_and_searches_only_defences() {
    let search = |g: &Gomoku, vcf_nodes: u32, sims: u32| {
        let config = SearchConfig { simulations: sims, vcf_nodes, ..SearchConfig::for_play(sims) };
        let mut s = Search::new(config, false, Rng::seed_from_u64(3));
        s.set_root(g);
        s.search_with(&mut UniformEvaluator, sims);
        s
    };
    // X to move wins by the VCF: proven on the root's own expansion, and its first move played.
    let g = board(&THREE);
    let mut s = search(&g, 1_000, 50);
    assert_eq!(s.root_value(), (1.0, Proven::Win));
    assert_eq!(s.playouts(), 1);
    assert_eq!(s.choose_move(0.0), at(&g, "6,7"));
    let s = search(&g, 0, 50);
    assert_eq!(s.root_value().1, Proven::Unknown);
    // O to move searches only the four defences.
    let g = o_to_defend();
    let s = search(&g, 1_000, 50);
    let children: Vec<Action> = s.root_children().iter().map(|c| c.action).collect();
    assert_eq!(texts(&g, &children), ["6,10", "6,6", "6,7", "7,7"]);
    // Against two VCFs O is proven lost, with its moves kept to play one.
    let g = board(&TWO_THREATS);
    let mut s = search(&g, 1_000, 50);
    assert_eq!(s.root_value(), (-1.0, Proven::Loss));
    assert!(g.is_legal(s.choose_move(0.0)));
    assert_eq!(search(&g, 0, 50).root_value().1, Proven::Unknown);
}

/// A 5-move VCF, from clustered random play (seeded; the prover found it, the reference
/// below confirms there is none shorter).
const FIVE: [&str; 15] = [
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . O O . . . . .",
    ". . . . O . . X X . . . . . .",
    ". . . . . . . X O O . . . . .",
    ". . . . O O X . X O X . . . .",
    ". . . . X . O . . . X . . . .",
    ". . . . . . X . O . . . . . .",
    ". . . . X . O . X . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
];

/// A 9-move VCF, found the same way.
const NINE: [&str; 15] = [
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . O . O X . . . . . . .",
    ". . . . X . . . X . . . . . .",
    ". . . . . . . . . . . O . . .",
    ". . . X . . . X . . . . . . .",
    ". . . . . . . X . . . . . . .",
    ". . . X . X . . . . . . . . .",
    ". . . . . . . O X X . . O . .",
    ". . . . . . . O . O . . O . .",
    ". . . . . . . . O . . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . O . . . . X . O . . . . .",
    ". . . . . . . . . . . . . . .",
    ". . . . . . . . . . . . . . .",
];

#[test]
fn five_and_nine_move_vcfs_are_found_and_are_the_shortest() {
    for (rows, moves, line) in [
        (FIVE, 5, "4,9 5,8 4,11 4,12 7,8 5,10 7,7 7,4 7,9"),
        (NINE, 9, "7,3 7,4 6,3 5,3 9,3 10,3 6,6 8,4 3,9 4,8 3,6 3,8 5,4 4,5 6,5 3,2 8,7"),
    ] {
        let g = board(&rows);
        let v = vcf(&g, Player::First, 100_000);
        let found = v.line.as_ref().expect("a VCF");
        assert_eq!(g.moves_to_text(found), line);
        assert_eq!(v.attacker_moves(), moves);
        assert_eq!(check_line(&g, found), moves);
        assert_eq!(shortest_by_play(&g, moves), Some(moves), "{}", g.render());
    }
}

#[test]
fn the_node_budget_is_respected() {
    let g = board(&NINE);
    let full = vcf(&g, Player::First, 1_000_000);
    let needed = full.nodes;
    assert!(full.line.is_some() && !full.out_of_budget);
    // Every budget short of what the proof takes: no line, never a node past the cap.
    for cap in (0..needed).step_by(7).chain([needed - 1]) {
        let v = vcf(&g, Player::First, cap);
        assert_eq!((v.line.is_none(), v.out_of_budget), (true, true), "budget {cap}");
        assert!(v.nodes <= cap, "{} nodes under a budget of {cap}", v.nodes);
    }
    // Exactly enough finds the same line in the same nodes.
    assert_eq!(vcf(&g, Player::First, needed), full);
    // A position without a VCF is searched to the end well inside the budget.
    let none = vcf(&board(&FALSE_BY_FIVE), Player::First, 1_000_000);
    assert_eq!((none.line.is_none(), none.out_of_budget), (true, false));
    assert!(none.nodes < 100, "{}", none.nodes);
}

/// Positions of games of `rule` whose moves land next to earlier stones (threats are
/// common there).
fn clustered_positions(rule: GomokuRule, size: usize, games: usize, seed: u64) -> Vec<Gomoku> {
    let mut rng = Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut g = Gomoku::with_rule(size, rule).unwrap();
        let mut played = vec![g.action_at(size / 2, size / 2)];
        g.play(played[0]).unwrap();
        while g.outcome().is_none() {
            out.push(g.clone());
            let near: Vec<Action> = (0..g.num_actions() as Action)
                .filter(|&a| {
                    let (x, y) = g.point(a);
                    g.is_legal(a)
                        && played.iter().any(|&b| {
                            let (bx, by) = g.point(b);
                            x.abs_diff(bx) <= 2 && y.abs_diff(by) <= 2
                        })
                })
                .collect();
            let a = if near.is_empty() { g.random_move(&mut rng) } else { near[rng.random_range(..near.len())] };
            g.play(a).unwrap();
            played.push(a);
        }
    }
    out
}

/// Proves the side to move's VCF in each of `positions` and checks it against the reference
/// (the shortest up to 5 attacker stones, and that every line found is one): the positions
/// with a VCF and those without.
fn prover_agrees_with_playing_it_out(positions: Vec<Gomoku>) -> (usize, usize) {
    const DEPTH: usize = 5;
    let (mut found, mut none) = (0, 0);
    for g in positions {
        let ToMove::Player(me) = g.to_move() else { unreachable!() };
        let v = vcf(&g, me, 100_000);
        assert!(!v.out_of_budget);
        let want = shortest_by_play(&g, DEPTH);
        match &v.line {
            Some(line) if v.attacker_moves() <= DEPTH => {
                assert_eq!(want, Some(v.attacker_moves()), "{}", g.render());
                check_line(&g, line);
                found += 1;
            }
            Some(line) => {
                assert_eq!(want, None, "{}", g.render());
                check_line(&g, line);
            }
            None => {
                assert_eq!(want, None, "{}", g.render());
                none += 1;
            }
        }
    }
    (found, none)
}

#[test]
fn the_prover_agrees_with_playing_it_out_on_random_positions() {
    let (found, none) = prover_agrees_with_playing_it_out(clustered_positions(GomokuRule::Freestyle, 9, 12, 5));
    // Both kinds of position were met (the seed's games: counted, so a change shows).
    assert_eq!((found, none), (262, 310), "{found} with a VCF, {none} without");
}

/// The stones of `g` in a game of `rule`, played alternately (X to move on equal counts);
/// None where a five on the way ends it.
fn same_stones(g: &Gomoku, rule: GomokuRule) -> Option<Gomoku> {
    let mut stones = [Vec::new(), Vec::new()];
    for a in (0..g.num_actions() as Action).filter(|&a| !g.is_legal(a)) {
        let (x, y) = g.point(a);
        match g.stone(x, y) {
            Some(Player::First) => stones[0].push(a),
            Some(Player::Second) => stones[1].push(a),
            None => {}
        }
    }
    let mut out = Gomoku::with_rule(g.size(), rule).unwrap();
    for i in 0..stones[0].len() {
        for side in &stones {
            if let Some(&a) = side.get(i) {
                out.play(a).ok()?;
            }
        }
    }
    out.outcome().is_none().then_some(out)
}

#[test]
fn the_prover_agrees_with_playing_it_out_under_the_standard_rule() {
    // The reference plays by the game's rule: its fives and fours are exact ones.
    let positions = clustered_positions(GomokuRule::Standard, 9, 12, 5);
    // The same stones under freestyle: where one rule sees a VCF and the other not, the
    // overlines made the difference.
    let differ = positions
        .iter()
        .filter_map(|g| Some((g, same_stones(g, GomokuRule::Freestyle)?)))
        .filter(|(g, free)| {
            let ToMove::Player(me) = g.to_move() else { unreachable!() };
            vcf(g, me, 100_000).line.is_some() != vcf(free, me, 100_000).line.is_some()
        })
        .count();
    let (found, none) = prover_agrees_with_playing_it_out(positions);
    assert_eq!((found, none), (274, 377), "{found} with a VCF, {none} without");
    assert_eq!(differ, 35, "positions the rules disagree on");
}
