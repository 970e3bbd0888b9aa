//! Pure MCTS on toy games with known answers: tic-tac-toe (exact values by negamax), a
//! take-away game, hand-built game trees for the solver, and a one-player lottery with
//! chance nodes.

use dojo_base::rng::Rng;
use dojo_game::tactics::Tactics;
use dojo_game::{
    Action, BoardLayout, Chance, Game, GameError, GameSpec, Outcome, ParseProblem, PlaneShape, Player, Scoring,
    Symmetries, ToMove,
};
use dojo_search::mcts::{FnRollout, Mcts, MctsConfig, Proven, RolloutPolicy, SearchResult, UniformRollout};
use dojo_search::player::{Agent, RandomAgent};
use rand::{seq::IndexedRandom, RngExt, SeedableRng};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

// --- allocation counting (per thread, so parallel tests do not disturb each other) ---

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> usize {
    ALLOCS.with(|c| c.get())
}

/// The parts of `Game` these toys do not care about.
macro_rules! toy_boilerplate {
    () => {
        fn hash(&self) -> u64 {
            0
        }
        toy_boilerplate!(with_hash);
    };
    (with_hash) => {
        fn spec(&self) -> GameSpec {
            GameSpec::gomoku(7)
        }
        fn plane_shape(&self) -> PlaneShape {
            PlaneShape { channels: 1, height: 1, width: 1 }
        }
        fn encode_planes(&self, out: &mut [f32]) {
            out.fill(0.0);
        }
        fn action_to_text(&self, action: Action) -> String {
            action.to_string()
        }
        fn action_from_text(&self, text: &str) -> Result<Action, GameError> {
            text.parse().map_err(|_| GameError::Parse {
                what: "action",
                text: text.into(),
                reason: ParseProblem::Rule("not a number").into(),
            })
        }
        fn render(&self) -> String {
            format!("{self:?}")
        }
    };
}

// --- tic-tac-toe ---

const LINES: [u16; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

/// Cells 0..9 row by row; X (first) moves first.
#[derive(Clone, Debug, PartialEq)]
struct Ttt {
    x: u16,
    o: u16,
    ply: usize,
    last: Option<Action>,
}

impl Ttt {
    fn new() -> Ttt {
        Ttt { x: 0, o: 0, ply: 0, last: None }
    }

    /// From a 9-character diagram, `x`, `o` or `.` per cell.
    fn from_diagram(s: &str) -> Ttt {
        let mut g = Ttt::new();
        for (i, ch) in s.chars().enumerate() {
            match ch {
                'x' => g.x |= 1 << i,
                'o' => g.o |= 1 << i,
                _ => {}
            }
        }
        g.ply = (g.x.count_ones() + g.o.count_ones()) as usize;
        g
    }

    fn has_line(bits: u16) -> bool {
        LINES.iter().any(|&l| l & !bits == 0)
    }
}

impl Game for Ttt {
    fn num_actions(&self) -> usize {
        9
    }
    fn to_move(&self) -> ToMove {
        ToMove::Player(if self.ply & 1 == 0 { Player::First } else { Player::Second })
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.outcome().is_none() {
            out.extend((0..9).filter(|&a| self.is_legal(a)));
        }
    }
    fn is_legal(&self, action: Action) -> bool {
        action < 9 && (self.x | self.o) & (1 << action) == 0
    }
    fn play_unchecked(&mut self, action: Action) -> u32 {
        if self.ply & 1 == 0 {
            self.x |= 1 << action;
        } else {
            self.o |= 1 << action;
        }
        self.ply += 1;
        self.last = Some(action);
        0
    }
    fn outcome(&self) -> Option<Outcome> {
        if Ttt::has_line(self.x) {
            Some(Outcome::Win(Player::First))
        } else if Ttt::has_line(self.o) {
            Some(Outcome::Win(Player::Second))
        } else if self.x | self.o == 0x1ff {
            Some(Outcome::Draw)
        } else {
            None
        }
    }
    fn ply(&self) -> usize {
        self.ply
    }
    fn last_action(&self) -> Option<Action> {
        self.last
    }
    toy_boilerplate!(with_hash);
    /// The position (the graph search shares nodes by it), mixed by an odd multiplier, which
    /// keeps distinct positions distinct.
    fn hash(&self) -> u64 {
        ((u64::from(self.x) << 16) | u64::from(self.o)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

impl Scoring for Ttt {}

impl Tactics for Ttt {}

impl Chance for Ttt {}

impl Symmetries for Ttt {}

impl BoardLayout for Ttt {}

/// Exact negamax for the side to move: `10 - plies` to the end for a win, its negation for
/// a loss, 0 for a draw (the winner hurries, the loser delays).
fn negamax(g: &Ttt) -> i32 {
    if let Some(o) = g.outcome() {
        // The previous mover made the line, so a finished game is lost for the side to move.
        return match o {
            Outcome::Draw => 0,
            _ => -10,
        };
    }
    let mut moves = Vec::new();
    g.legal_actions(&mut moves);
    moves
        .iter()
        .map(|&a| {
            let mut c = g.clone();
            c.play_unchecked(a);
            let v = -negamax(&c);
            // One more ply to the end: wins get less good, losses less bad.
            v - v.signum()
        })
        .max()
        .unwrap()
}

/// Exact value of each legal move, for the side to move.
fn move_values(g: &Ttt) -> Vec<(Action, i32)> {
    let mut moves = Vec::new();
    g.legal_actions(&mut moves);
    moves
        .iter()
        .map(|&a| {
            let mut c = g.clone();
            c.play_unchecked(a);
            let v = -negamax(&c);
            (a, v - v.signum())
        })
        .collect()
}

fn uniform(iterations: u32, seed: u64) -> Mcts<Ttt, UniformRollout> {
    Mcts::new(MctsConfig::with_iterations(iterations), UniformRollout, Rng::seed_from_u64(seed))
}

fn visit_sum(r: &SearchResult) -> u32 {
    r.children.iter().map(|c| c.visits).sum()
}

#[test]
fn negamax_reference_knows_tic_tac_toe() {
    assert_eq!(negamax(&Ttt::new()), 0, "perfect play draws");
    assert_eq!(negamax(&Ttt::from_diagram("xx.oo....")), 9, "mate in 1");
    assert_eq!(negamax(&Ttt::from_diagram("xo..x...o")), 7, "mate in 2");
}

#[test]
fn root_visits_sum_to_iterations() {
    let mut m = uniform(1000, 1);
    let r = m.search(&Ttt::new());
    assert_eq!(r.iterations, 1000);
    assert_eq!(visit_sum(&r), 1000);
    assert_eq!(r.children.len(), 9);
    assert!(r.children.iter().all(|c| c.visits > 0));
    let actions: Vec<Action> = r.children.iter().map(|c| c.action).collect();
    assert_eq!(actions, (0..9).collect::<Vec<Action>>(), "sorted by action");
    assert_eq!(r.proven, None);
    // The empty board is a draw: the root value is far from a win or a loss.
    assert!((0.3..0.8).contains(&r.value), "root value {}", r.value);
}

#[test]
fn proven_root_stops_early_and_visits_still_sum() {
    let mut m = uniform(5000, 2);
    let r = m.search(&Ttt::from_diagram("xo..x...o"));
    assert!(r.iterations < 5000, "stopped after {}", r.iterations);
    assert_eq!(visit_sum(&r), r.iterations);
}

#[test]
fn finished_root_runs_no_iterations() {
    let mut m = uniform(100, 3);
    let r = m.search(&Ttt::from_diagram("xxxoo...."));
    assert_eq!(r.iterations, 0);
    assert_eq!(r.best, None);
    assert!(r.children.is_empty());
    assert_eq!(r.proven, Some(Proven::Loss { plies: 0 }));
}

#[test]
fn finds_mate_in_one() {
    // X to move: 2 wins at once (O threatens 5).
    let g = Ttt::from_diagram("xx.oo....");
    for seed in 0..5 {
        let mut m = uniform(2000, seed);
        let r = m.search(&g);
        assert_eq!(r.best, Some(2), "seed {seed}");
        assert_eq!(r.proven, Some(Proven::Win { plies: 1 }));
        assert_eq!(m.select_move(&g), 2);
    }
}

#[test]
fn blocks_opponents_mate_in_one() {
    // O to move must take 2; every other move loses at once.
    let g = Ttt::from_diagram("xx..o....");
    let good: Vec<Action> = move_values(&g).into_iter().filter(|&(_, v)| v >= 0).map(|(a, _)| a).collect();
    assert_eq!(good, vec![2]);
    for seed in 0..5 {
        let mut m = uniform(2000, seed);
        let r = m.search(&g);
        assert_eq!(r.best, Some(2), "seed {seed}");
        for c in &r.children {
            if c.action != 2 && c.proven.is_some() {
                assert_eq!(c.proven, Some(Proven::Loss { plies: 2 }), "{c:?}");
            }
        }
    }
}

#[test]
fn proves_mate_in_two() {
    // X (0, 4) against O (1, 8), X to move: 3 or 6 forks; X wins in 3 plies.
    let g = Ttt::from_diagram("xo..x...o");
    let winning: Vec<Action> = move_values(&g).into_iter().filter(|&(_, v)| v == 7).map(|(a, _)| a).collect();
    assert!(!winning.is_empty());
    for seed in 0..5 {
        let mut m = uniform(20_000, seed);
        let r = m.search(&g);
        assert_eq!(r.proven, Some(Proven::Win { plies: 3 }), "seed {seed}");
        let best = r.best.unwrap();
        assert!(winning.contains(&best), "seed {seed}: {best} not in {winning:?}");
        let c = r.children.iter().find(|c| c.action == best).unwrap();
        assert_eq!(c.proven, Some(Proven::Win { plies: 3 }));
    }
}

#[test]
fn solver_off_still_finds_mate_but_proves_nothing() {
    let g = Ttt::from_diagram("xx.oo....");
    let cfg = MctsConfig { solver: false, ..MctsConfig::with_iterations(2000) };
    let mut m: Mcts<Ttt, _> = Mcts::new(cfg, UniformRollout, Rng::seed_from_u64(4));
    let r = m.search(&g);
    assert_eq!(r.best, Some(2));
    assert_eq!(r.proven, None);
    assert_eq!(r.iterations, 2000);
    assert_eq!(visit_sum(&r), 2000);
}

fn play_ttt(first: &mut dyn Agent<Ttt>, second: &mut dyn Agent<Ttt>) -> Outcome {
    let mut g = Ttt::new();
    loop {
        if let Some(o) = g.outcome() {
            return o;
        }
        let a = if g.ply & 1 == 0 { first.select_move(&g) } else { second.select_move(&g) };
        g.play(a).expect("agent played an illegal move");
    }
}

#[test]
fn never_loses_tic_tac_toe_to_random() {
    let mut mcts = uniform(2000, 5);
    let mut random = RandomAgent::new(Rng::seed_from_u64(6));
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for game in 0..50 {
        let mcts_first = game & 1 == 0;
        let outcome = if mcts_first { play_ttt(&mut mcts, &mut random) } else { play_ttt(&mut random, &mut mcts) };
        let me = if mcts_first { Player::First } else { Player::Second };
        match outcome {
            Outcome::Win(p) if p == me => wins += 1,
            Outcome::Win(_) => losses += 1,
            _ => draws += 1,
        }
    }
    assert_eq!(losses, 0, "wins {wins} draws {draws} losses {losses}");
    assert!(wins >= 35, "wins {wins} draws {draws}");
}

#[test]
fn same_seed_same_search() {
    let g = Ttt::from_diagram("x...o....");
    let a = uniform(3000, 42).search(&g);
    let b = uniform(3000, 42).search(&g);
    assert_eq!(a, b);
    let c = uniform(3000, 43).search(&g);
    assert_ne!(
        a.children.iter().map(|c| c.visits).collect::<Vec<_>>(),
        c.children.iter().map(|c| c.visits).collect::<Vec<_>>()
    );
}

#[test]
fn name_reports_iterations() {
    let m = uniform(1234, 0);
    assert_eq!(Agent::<Ttt>::name(&m), "mcts:1234");
}

#[test]
fn custom_rollout_policy_is_used() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&calls);
    let policy = FnRollout(move |g: &Ttt, rng: &mut Rng| {
        counter.fetch_add(1, Ordering::Relaxed);
        let mut moves = Vec::new();
        g.legal_actions(&mut moves);
        *moves.choose(rng).unwrap()
    });
    let mut m = Mcts::new(MctsConfig::with_iterations(500), policy, Rng::seed_from_u64(9));
    let g = Ttt::from_diagram("xx.oo....");
    assert_eq!(m.select_move(&g), 2);
    assert!(calls.load(Ordering::Relaxed) > 0);
}

/// A struct policy, the way a game-specific heuristic plugs in.
struct LowestFirst;

impl RolloutPolicy<Ttt> for LowestFirst {
    fn choose(&mut self, game: &Ttt, _rng: &mut Rng, scratch: &mut Vec<Action>) -> Action {
        game.legal_actions(scratch);
        scratch[0]
    }
}

#[test]
fn rollout_cap_and_struct_policy_still_find_the_win() {
    let cfg = MctsConfig { max_rollout_moves: Some(1), ..MctsConfig::with_iterations(1000) };
    let mut m = Mcts::new(cfg, LowestFirst, Rng::seed_from_u64(10));
    let r = m.search(&Ttt::from_diagram("xx.oo....")); // X to move
    assert_eq!(r.best, Some(2));
    let r = m.search(&Ttt::from_diagram("xx..o....")); // O to move
    assert_eq!(r.best, Some(2));
}

#[test]
fn searching_again_does_not_allocate() {
    let g = Ttt::from_diagram("x...o....");
    let mut m = uniform(3000, 11);
    for _ in 0..3 {
        m.select_move(&g);
    }
    let before = allocs();
    for _ in 0..10 {
        m.select_move(&g);
    }
    // Only the arena may grow, and it keeps its capacity between searches.
    assert!(allocs() - before <= 1, "{} allocations", allocs() - before);
}

// --- take-away: take 1..=3 from a pile, taking the last wins ---

#[derive(Clone, Debug)]
struct TakeAway {
    pile: u8,
    ply: usize,
}

impl Game for TakeAway {
    fn num_actions(&self) -> usize {
        3
    }
    fn to_move(&self) -> ToMove {
        ToMove::Player(if self.ply & 1 == 0 { Player::First } else { Player::Second })
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        out.extend((0..3).filter(|&a| self.is_legal(a)));
    }
    fn is_legal(&self, action: Action) -> bool {
        action < 3 && (action as u8) < self.pile
    }
    fn play_unchecked(&mut self, action: Action) -> u32 {
        self.pile -= action as u8 + 1;
        self.ply += 1;
        0
    }
    fn outcome(&self) -> Option<Outcome> {
        let winner = if self.ply & 1 == 1 { Player::First } else { Player::Second };
        (self.pile == 0).then_some(Outcome::Win(winner))
    }
    fn ply(&self) -> usize {
        self.ply
    }
    fn last_action(&self) -> Option<Action> {
        None
    }
    toy_boilerplate!();
}

impl Scoring for TakeAway {}

impl Tactics for TakeAway {}

impl Chance for TakeAway {}

impl Symmetries for TakeAway {}

impl BoardLayout for TakeAway {}

#[test]
fn take_away_finds_the_winning_take() {
    // Leave a multiple of 4: from 5, 6, 7, 9, 10, 11, 13 take pile % 4.
    for pile in [5u8, 6, 7, 9, 10, 11, 13] {
        let mut m: Mcts<TakeAway, _> =
            Mcts::new(MctsConfig::with_iterations(3000), UniformRollout, Rng::seed_from_u64(12));
        let r = m.search(&TakeAway { pile, ply: 0 });
        assert_eq!(r.best, Some((pile % 4 - 1) as Action), "pile {pile}: {:?}", r.children);
    }
}

#[test]
fn beats_random_at_take_away() {
    let mut mcts: Mcts<TakeAway, _> =
        Mcts::new(MctsConfig::with_iterations(1000), UniformRollout, Rng::seed_from_u64(13));
    let mut random = RandomAgent::new(Rng::seed_from_u64(14));
    let mut wins = 0;
    for game in 0..40 {
        let mcts_first = game & 1 == 0;
        let mut g = TakeAway { pile: 15, ply: 0 };
        while g.outcome().is_none() {
            let mcts_turn = (g.ply & 1 == 0) == mcts_first;
            let a = if mcts_turn { mcts.select_move(&g) } else { Agent::<TakeAway>::select_move(&mut random, &g) };
            g.play(a).unwrap();
        }
        let me = if mcts_first { Player::First } else { Player::Second };
        if g.outcome() == Some(Outcome::Win(me)) {
            wins += 1;
        }
    }
    assert!(wins >= 38, "mcts won {wins} of 40");
}

// --- explicit game trees for the solver ---

#[derive(Debug)]
enum T {
    Inner(&'static [usize]),
    Leaf(Outcome),
}

/// A position in a fixed tree; players alternate, First at the root; action `i` is the
/// `i`-th child.
#[derive(Clone, Debug)]
struct TreeGame {
    tree: &'static [T],
    at: usize,
    ply: usize,
}

impl Game for TreeGame {
    fn num_actions(&self) -> usize {
        4
    }
    fn to_move(&self) -> ToMove {
        ToMove::Player(if self.ply & 1 == 0 { Player::First } else { Player::Second })
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if let T::Inner(kids) = &self.tree[self.at] {
            out.extend(0..kids.len() as Action);
        }
    }
    fn is_legal(&self, action: Action) -> bool {
        matches!(&self.tree[self.at], T::Inner(kids) if (action as usize) < kids.len())
    }
    fn play_unchecked(&mut self, action: Action) -> u32 {
        if let T::Inner(kids) = &self.tree[self.at] {
            self.at = kids[action as usize];
        }
        self.ply += 1;
        0
    }
    fn outcome(&self) -> Option<Outcome> {
        match &self.tree[self.at] {
            T::Leaf(o) => Some(*o),
            T::Inner(_) => None,
        }
    }
    fn ply(&self) -> usize {
        self.ply
    }
    fn last_action(&self) -> Option<Action> {
        None
    }
    toy_boilerplate!();
}

impl Scoring for TreeGame {}

impl Tactics for TreeGame {}

impl Chance for TreeGame {}

impl Symmetries for TreeGame {}

impl BoardLayout for TreeGame {}

const FIRST_WINS: T = T::Leaf(Outcome::Win(Player::First));
const SECOND_WINS: T = T::Leaf(Outcome::Win(Player::Second));

/// First is lost whatever it does, sooner or later: move 0 loses in 1 ply, move 1 in 2,
/// move 2 in 4.
static ALL_LOST: [T; 8] = [
    T::Inner(&[1, 2, 4]),
    SECOND_WINS,
    T::Inner(&[3]),
    SECOND_WINS,
    T::Inner(&[5]),
    T::Inner(&[6]),
    T::Inner(&[7]),
    SECOND_WINS,
];

#[test]
fn lost_position_picks_the_longest_defence() {
    let g = TreeGame { tree: &ALL_LOST, at: 0, ply: 0 };
    let mut m: Mcts<TreeGame, _> = Mcts::new(MctsConfig::with_iterations(1000), UniformRollout, Rng::seed_from_u64(15));
    let r = m.search(&g);
    assert_eq!(r.proven, Some(Proven::Loss { plies: 4 }));
    assert_eq!(r.best, Some(2));
    let proofs: Vec<_> = r.children.iter().map(|c| c.proven).collect();
    assert_eq!(
        proofs,
        vec![Some(Proven::Loss { plies: 1 }), Some(Proven::Loss { plies: 2 }), Some(Proven::Loss { plies: 4 }),]
    );
    assert_eq!(m.select_move(&g), 2);
}

/// Move 0 draws at once; move 1 lets Second choose between a loss and a draw; move 2 lets
/// Second win. The root is a proven draw and move 2 must be avoided.
static DRAWISH: [T; 7] = [
    T::Inner(&[1, 2, 5]),
    T::Leaf(Outcome::Draw),
    T::Inner(&[3, 4]),
    FIRST_WINS,
    T::Leaf(Outcome::Draw),
    T::Inner(&[6, 3]),
    SECOND_WINS,
];

#[test]
fn proves_draws_and_avoids_proven_losses() {
    let g = TreeGame { tree: &DRAWISH, at: 0, ply: 0 };
    for seed in 0..5 {
        let mut m: Mcts<TreeGame, _> =
            Mcts::new(MctsConfig::with_iterations(500), UniformRollout, Rng::seed_from_u64(seed));
        let r = m.search(&g);
        assert_eq!(r.proven, Some(Proven::Draw), "seed {seed}");
        assert_eq!(r.children[2].proven, Some(Proven::Loss { plies: 2 }));
        assert_ne!(r.best, Some(2));
    }
}

// --- a one-player lottery with a chance node ---

/// Move 0 ("safe") scores 5 and ends. Move 1 ("gamble") draws a ticket: good with
/// probability `p_good`, then the one move left ("collect") scores 20; bad, it scores 1.
#[derive(Clone, Debug)]
struct Lottery {
    p_good: f32,
    stage: u8, // 0 choose, 1 ticket pending, 2 collect good, 3 collect bad, 4 over
    score: u64,
    ply: usize,
}

impl Lottery {
    fn new(p_good: f32) -> Lottery {
        Lottery { p_good, stage: 0, score: 0, ply: 0 }
    }
}

impl Game for Lottery {
    fn num_actions(&self) -> usize {
        2
    }
    fn to_move(&self) -> ToMove {
        if self.stage == 1 {
            ToMove::Chance
        } else {
            ToMove::Player(Player::First)
        }
    }
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        match self.stage {
            0 => out.extend([0, 1]),
            2 | 3 => out.push(0),
            _ => {}
        }
    }
    fn is_legal(&self, action: Action) -> bool {
        match self.stage {
            0 => action < 2,
            2 | 3 => action == 0,
            _ => false,
        }
    }
    fn play_unchecked(&mut self, action: Action) -> u32 {
        self.ply += 1;
        let reward = match (self.stage, action) {
            (0, 0) => {
                self.stage = 4;
                5
            }
            (0, _) => {
                self.stage = 1;
                0
            }
            (2, _) => {
                self.stage = 4;
                20
            }
            _ => {
                self.stage = 4;
                1
            }
        };
        self.score += u64::from(reward);
        reward
    }
    fn outcome(&self) -> Option<Outcome> {
        (self.stage == 4).then_some(Outcome::Score(self.score))
    }
    fn ply(&self) -> usize {
        self.ply
    }
    fn last_action(&self) -> Option<Action> {
        None
    }
    toy_boilerplate!();
}

impl Scoring for Lottery {
    fn is_one_player(&self) -> bool {
        true
    }
}

impl Tactics for Lottery {}

impl Chance for Lottery {
    fn chance_outcomes(&self, out: &mut Vec<(Action, f32)>) {
        out.clear();
        if self.stage == 1 {
            out.extend([(0, self.p_good), (1, 1.0 - self.p_good)]);
        }
    }

    fn apply_chance(&mut self, event: Action) -> Result<(), GameError> {
        if self.stage != 1 {
            return Err(GameError::NoChancePending);
        }
        self.stage = if event == 0 { 2 } else { 3 };
        Ok(())
    }

    fn sample_chance(&mut self, rng: &mut Rng) {
        if self.stage == 1 {
            self.stage = if rng.random::<f32>() < self.p_good { 2 } else { 3 };
        }
    }
}

impl Symmetries for Lottery {}

impl BoardLayout for Lottery {}

#[test]
fn lottery_follows_expected_value_not_event_count() {
    // Gamble EV: 0.1·20 + 0.9·1 = 2.9 < 5, though the two tickets average 10.5;
    // at p = 0.4 it is 8.6 > 5.
    for (p, want, ev) in [(0.1f32, 0, 2.9), (0.4, 1, 8.6)] {
        for seed in 0..3 {
            let mut m: Mcts<Lottery, _> =
                Mcts::new(MctsConfig::with_iterations(3000), UniformRollout, Rng::seed_from_u64(seed));
            let r = m.search(&Lottery::new(p));
            assert_eq!(r.best, Some(want), "p {p} seed {seed}: {:?}", r.children);
            assert_eq!(r.iterations, 3000);
            assert_eq!(visit_sum(&r), 3000);
            assert_eq!(r.children[0].value, 5.0, "safe always scores 5");
            // The gamble's value is the mean of its payoffs (20 or 1) over its visits, and
            // UCB may drop it after an unlucky run (at p = 0.1 about one seed in ten sees no
            // win in its first 20 or so tries): allow four standard errors for the visits it
            // got. Averaging over events instead (10.5) stays far outside.
            let gamble = r.children[1].value;
            let visits = f64::from(r.children[1].visits);
            let tolerance = 4.0 * 19.0 * (f64::from(p) * (1.0 - f64::from(p))).sqrt() / visits.sqrt();
            assert!((gamble - ev).abs() < tolerance, "p {p} seed {seed}: gamble {gamble} vs {ev} (±{tolerance})");
            assert_eq!(r.proven, None);
            assert_eq!(m.select_move(&Lottery::new(p)), want);
        }
    }
}

#[test]
fn a_search_by_the_clock_runs_until_its_time_is_up_whatever_its_iterations() {
    use dojo_game::connect4::Connect4;
    use dojo_search::mcts::Connect4Rollout;
    use std::time::{Duration, Instant};
    let clock = Duration::from_millis(40);
    // One iteration asked for, but by the clock: the iteration count is not used.
    let config = MctsConfig { iterations: 1, ..MctsConfig::with_clock(clock) };
    let mut m = Mcts::new(config, Connect4Rollout, Rng::seed_from_u64(4));
    assert_eq!(Agent::<Connect4>::name(&m), "mcts:40ms");
    let started = Instant::now();
    let r = m.search(&Connect4::standard());
    assert!(started.elapsed() >= clock, "stopped after {:?}", started.elapsed());
    assert!(r.iterations > 1, "{} iterations", r.iterations);
    assert_eq!(visit_sum(&r), r.iterations);
    // A root proven early stops the clock too: a mate in one is played at once.
    let mut m = Mcts::new(MctsConfig::with_clock(Duration::from_secs(60)), UniformRollout, Rng::seed_from_u64(5));
    let started = Instant::now();
    assert_eq!(m.select_move(&Ttt::from_diagram("xx.oo....")), 2);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(MctsConfig::with_clock(Duration::from_millis(3000)).budget_name(), "3s");
    assert_eq!(MctsConfig::with_iterations(800).budget_name(), "800");
}

#[test]
fn a_search_by_the_clock_keeps_the_subtree_of_the_move_and_reply_that_were_played() {
    use dojo_game::connect4::Connect4;
    use dojo_search::mcts::Connect4Rollout;
    use std::time::Duration;
    let mut game = Connect4::<u64>::standard();
    let mut m = Mcts::new(MctsConfig::with_clock(Duration::from_millis(30)), Connect4Rollout, Rng::seed_from_u64(4));
    let first = m.search(&game);
    assert_eq!((first.reused, visit_sum(&first)), (0, first.iterations), "a fresh tree");
    // The move searched most and a reply: what the first search learnt there is kept.
    game.play(first.best.unwrap()).unwrap();
    game.play(3).unwrap();
    let second = m.search(&game);
    assert!(second.reused > 0, "{second:?}");
    assert_eq!(visit_sum(&second), second.iterations + second.reused);
    // A position not two plies below the last root starts afresh, as does a new game.
    game.play(second.best.unwrap()).unwrap();
    let third = m.search(&game);
    assert_eq!(third.reused, 0);
    Agent::<Connect4>::new_game(&mut m, 1);
    game.play(third.best.unwrap()).unwrap();
    game.play(0).unwrap();
    assert_eq!(m.search(&game).reused, 0, "after new_game");
    // mcts:N searches a fresh tree every move.
    let mut fixed = Mcts::new(MctsConfig::with_iterations(200), Connect4Rollout, Rng::seed_from_u64(4));
    let mut game = Connect4::<u64>::standard();
    let r = fixed.search(&game);
    game.play(r.best.unwrap()).unwrap();
    game.play(3).unwrap();
    assert_eq!(fixed.search(&game).reused, 0);
}

fn graph(iterations: u32, seed: u64) -> Mcts<Ttt, UniformRollout> {
    let config = MctsConfig { graph: true, ..MctsConfig::with_iterations(iterations) };
    Mcts::new(config, UniformRollout, Rng::seed_from_u64(seed))
}

/// Tic-tac-toe's positions reachable in play (the empty board included): a graph search
/// holds at most one node for each.
const TTT_POSITIONS: usize = 5478;

#[test]
fn a_graph_search_keeps_one_node_a_position_and_proves_the_game_a_draw() {
    for seed in 0..3 {
        let mut m = graph(200_000, seed);
        let r = m.search(&Ttt::new());
        assert_eq!(r.proven, Some(Proven::Draw), "seed {seed}");
        assert!(r.nodes <= TTT_POSITIONS, "seed {seed}: {} nodes", r.nodes);
        assert_eq!(visit_sum(&r), r.iterations);
        assert!(r.children.iter().all(|c| c.proven == Some(Proven::Draw)), "{:?}", r.children);
    }
    // A tree holds a node for each move order that reaches a position.
    let r = uniform(20_000, 0).search(&Ttt::new());
    assert!(r.nodes > TTT_POSITIONS, "{} nodes", r.nodes);
}

#[test]
fn a_graph_search_proves_and_plays_what_the_tree_does() {
    // The mate in two, proven as the tree proves it: the search stops at the first proven
    // fork (a win in 3 plies), and no other move is proven to win.
    let g = Ttt::from_diagram("xo..x...o");
    let values = move_values(&g);
    for seed in 0..5 {
        let mut m = graph(50_000, seed);
        let r = m.search(&g);
        assert_eq!(r.proven, Some(Proven::Win { plies: 3 }), "seed {seed}");
        let best = r.best.unwrap();
        assert!(values.contains(&(best, 7)), "seed {seed}: {best} is no fork");
        for c in &r.children {
            let value = values.iter().find(|(a, _)| *a == c.action).unwrap().1;
            match c.proven {
                Some(Proven::Win { plies }) => assert_eq!((value, plies), (7, 3), "seed {seed}: {c:?}"),
                Some(Proven::Loss { .. }) => assert!(value < 0, "seed {seed}: {c:?}"),
                Some(Proven::Draw) => assert_eq!(value, 0, "seed {seed}: {c:?}"),
                None => {}
            }
        }
        assert_eq!(m.select_move(&Ttt::from_diagram("xx.oo....")), 2, "mate in one");
    }
    let mut mcts = graph(2000, 5);
    let mut random = RandomAgent::new(Rng::seed_from_u64(6));
    for game in 0..20 {
        let (first, second): (&mut dyn Agent<Ttt>, &mut dyn Agent<Ttt>) =
            if game % 2 == 0 { (&mut mcts, &mut random) } else { (&mut random, &mut mcts) };
        let outcome = play_ttt(first, second);
        let lost = if game % 2 == 0 { Player::Second } else { Player::First };
        assert_ne!(outcome, Outcome::Win(lost), "game {game}");
    }
}

#[test]
fn a_graph_search_by_the_clock_keeps_every_node_the_new_root_reaches() {
    use dojo_game::connect4::Connect4;
    use dojo_search::mcts::Connect4Rollout;
    use std::time::Duration;
    let config = MctsConfig { graph: true, ..MctsConfig::with_clock(Duration::from_millis(30)) };
    let mut m = Mcts::new(config, Connect4Rollout, Rng::seed_from_u64(4));
    let mut game = Connect4::<u64>::standard();
    let first = m.search(&game);
    assert_eq!((first.reused, visit_sum(&first)), (0, first.iterations));
    // The graph finds the new root by its position, however many plies on.
    for reply in [3, 2] {
        game.play(m.search(&game).best.unwrap()).unwrap();
        game.play(reply).unwrap();
        let next = m.search(&game);
        assert!(next.reused > 0, "{next:?}");
        assert_eq!(visit_sum(&next), next.iterations + next.reused);
    }
    game.play(m.search(&game).best.unwrap()).unwrap();
    assert!(m.search(&game).reused > 0, "one ply on");
    Agent::<Connect4>::new_game(&mut m, 1);
    game.play(0).unwrap();
    assert_eq!(m.search(&game).reused, 0, "after new_game");
}
