//! Hex on a 5×5 rhombus (`hex5`): the small two-player game `docs/new-game.md` adds to dojo
//! end to end. Everything dojo knows about it is in this file; its registration is two
//! lines (`pub mod hex;` in `lib.rs`, `Hex(crate::hex::Hex)` in `registry.rs`'s `games!`).
//!
//! The rules: players take turns placing a stone on an empty cell. The first player
//! (Black, `X`) wins by joining the top row to the bottom row with a chain of their stones,
//! the second (White, `O`) by joining the left column to the right column. A cell touches
//! six others: left and right, the two above it (straight up, and up and to the right) and
//! the two below (straight down, and down and to the left). A full board always has
//! exactly one winner, so Hex has no draws.
//!
//! The position is two bitboards, one bit a cell (`row * 5 + column`, row 0 at the top), so
//! a move is an `or` and the win test a flood fill by shifts.

use crate::tactics::Tactics;
use crate::{
    Action, BoardLayout, Chance, Game, GameError, GameSpec, MoveProblem, NamedGame, Outcome, ParseProblem, PlaneShape,
    Player, Scoring, Symmetries, ToMove,
};

/// Cells on a side.
pub const SIZE: usize = 5;
const CELLS: usize = SIZE * SIZE;
const FULL: u32 = (1 << CELLS) - 1;
const TOP: u32 = (1 << SIZE) - 1;
const BOTTOM: u32 = TOP << (CELLS - SIZE);
/// Column 0 and column `SIZE - 1`.
const LEFT: u32 = column_mask(0);
const RIGHT: u32 = column_mask(SIZE - 1);

const fn column_mask(column: usize) -> u32 {
    let mut mask = 0;
    let mut row = 0;
    while row < SIZE {
        mask |= 1 << (row * SIZE + column);
        row += 1;
    }
    mask
}

/// The cells that touch a cell of `set`: the six hex neighbours, none wrapping a row.
const fn neighbours(set: u32) -> u32 {
    let not_right = set & !RIGHT;
    let not_left = set & !LEFT;
    ((not_right << 1)
        | (not_left >> 1)
        | (set << SIZE)
        | (set >> SIZE)
        | (not_right >> (SIZE - 1))
        | (not_left << (SIZE - 1)))
        & FULL
}

/// Whether `stones` hold a chain from `from` to `to` (two opposite edges).
fn connects(stones: u32, from: u32, to: u32) -> bool {
    let mut reached = stones & from;
    loop {
        let grown = (reached | neighbours(reached)) & stones;
        if grown & to != 0 {
            return true;
        }
        if grown == reached {
            return false;
        }
        reached = grown;
    }
}

/// A Zobrist key for a stone of `player` on `cell` (and, at `CELLS`, for the side to move):
/// splitmix64 of the pair, so the table needs no storage and no seed.
fn zobrist(cell: usize, player: Player) -> u64 {
    dojo_base::rng::splitmix64((cell * 2 + player.index()) as u64)
}

/// A Hex position. `Default` is the empty board with Black to move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hex {
    /// Each player's stones, indexed by [`Player::index`].
    stones: [u32; 2],
    winner: Option<Player>,
    last: Option<Action>,
    hash: u64,
}

impl NamedGame for Hex {
    const NAME: &'static str = "hex5";
}

impl Hex {
    fn side(&self) -> Player {
        if self.ply().is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    fn occupied(&self) -> u32 {
        self.stones[0] | self.stones[1]
    }

    /// The player whose stone is on `cell`, if any.
    pub fn stone(&self, cell: usize) -> Option<Player> {
        [Player::First, Player::Second].into_iter().find(|p| self.stones[p.index()] & (1 << cell) != 0)
    }
}

impl Game for Hex {
    fn spec(&self) -> GameSpec {
        GameSpec::Named { name: Self::NAME }
    }

    /// One action a cell, row-major from the top left.
    fn num_actions(&self) -> usize {
        CELLS
    }

    fn to_move(&self) -> ToMove {
        ToMove::Player(self.side())
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.winner.is_some() {
            return;
        }
        let mut free = !self.occupied() & FULL;
        while free != 0 {
            out.push(free.trailing_zeros() as Action);
            free &= free - 1;
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        self.winner.is_none() && (action as usize) < CELLS && self.occupied() & (1 << action) == 0
    }

    fn play_unchecked(&mut self, action: Action) -> u32 {
        debug_assert!(self.is_legal(action), "illegal hex move {action}");
        let me = self.side();
        let stones = &mut self.stones[me.index()];
        *stones |= 1 << action;
        let (from, to) = if me == Player::First { (TOP, BOTTOM) } else { (LEFT, RIGHT) };
        if connects(*stones, from, to) {
            self.winner = Some(me);
        }
        self.hash ^= zobrist(action as usize, me) ^ zobrist(CELLS, me);
        self.last = Some(action);
        0
    }

    fn illegal_reason(&self, action: Action) -> GameError {
        if action as usize >= CELLS {
            return GameError::IllegalMove { action: action.to_string(), reason: MoveProblem::OnlyCells(CELLS) };
        }
        GameError::IllegalMove {
            action: self.action_to_text(action),
            reason: MoveProblem::Rule("the cell is already taken"),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.winner.map(Outcome::Win)
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn ply(&self) -> usize {
        self.occupied().count_ones() as usize
    }

    fn last_action(&self) -> Option<Action> {
        self.last
    }

    fn plane_shape(&self) -> PlaneShape {
        PlaneShape { channels: 3, height: SIZE, width: SIZE }
    }

    /// The side to move's stones, the opponent's, and a plane of ones when the side to move
    /// is Black (who joins top and bottom) and zeros when White (left and right): without
    /// it the network could not tell which edges the mover must join.
    fn encode_planes(&self, out: &mut [f32]) {
        debug_assert_eq!(out.len(), 3 * CELLS);
        out.fill(0.0);
        let me = self.side();
        for (plane, player) in [me, me.other()].into_iter().enumerate() {
            let mut stones = self.stones[player.index()];
            while stones != 0 {
                out[plane * CELLS + stones.trailing_zeros() as usize] = 1.0;
                stones &= stones - 1;
            }
        }
        if me == Player::First {
            out[2 * CELLS..].fill(1.0);
        }
    }

    /// A column letter and a row number from the top, as Hex players write: `a1` is the top
    /// left cell, `e5` the bottom right.
    fn action_to_text(&self, action: Action) -> String {
        let (row, column) = (action as usize / SIZE, action as usize % SIZE);
        format!("{}{}", (b'a' + column as u8) as char, row + 1)
    }

    fn action_from_text(&self, text: &str) -> Result<Action, GameError> {
        let err = |form| GameError::Parse {
            what: "hex move",
            text: text.to_string(),
            reason: ParseProblem::Expected(form).into(),
        };
        let text = text.trim().to_ascii_lowercase();
        let mut chars = text.chars();
        let column = chars.next().and_then(|c| ('a'..='e').contains(&c).then(|| c as usize - 'a' as usize));
        let row = chars.as_str().parse::<usize>().ok().filter(|r| (1..=SIZE).contains(r));
        match (column, row) {
            (Some(column), Some(row)) => Ok(((row - 1) * SIZE + column) as Action),
            _ => Err(err("a column a-e and a row 1-5, e.g. c3")),
        }
    }

    /// The rhombus, each row shifted half a cell right of the one above.
    fn render(&self) -> String {
        let mut text = String::from("  a b c d e\n");
        for row in 0..SIZE {
            text.push_str(&" ".repeat(row));
            text.push_str(&format!("{}", row + 1));
            for column in 0..SIZE {
                let mark = match self.stone(row * SIZE + column) {
                    Some(Player::First) => 'X',
                    Some(Player::Second) => 'O',
                    None => '.',
                };
                text.push(' ');
                text.push(mark);
            }
            text.push('\n');
        }
        text
    }
}

impl Scoring for Hex {}

impl Tactics for Hex {}

impl Chance for Hex {}

impl Symmetries for Hex {
    /// The identity and the half turn: turning the board by 180° keeps each player's two
    /// edges theirs. (Mirroring across the long diagonal swaps the players' goals, so it is
    /// no symmetry of a position.)
    fn num_symmetries(&self) -> usize {
        2
    }

    fn map_action(&self, sym: usize, action: Action) -> Action {
        debug_assert!(sym < 2);
        if sym == 0 {
            action
        } else {
            (CELLS - 1) as Action - action
        }
    }

    fn map_plane(&self, sym: usize, src: &[f32], dst: &mut [f32]) {
        debug_assert!(sym < 2);
        dst.copy_from_slice(src);
        if sym == 1 {
            dst.reverse();
        }
    }
}

impl BoardLayout for Hex {
    /// Action `i` places on cell `i` of the planes.
    fn actions_are_cells(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_base::rng::Rng;
    use rand::seq::IndexedRandom;
    use rand::SeedableRng;

    fn play(moves: &str) -> Hex {
        let mut game = Hex::default();
        for m in game.moves_from_text(moves).unwrap() {
            game.play(m).unwrap();
        }
        game
    }

    #[test]
    fn neighbours_are_the_six_hex_cells_and_never_wrap() {
        let text = |set: u32| {
            let mut cells: Vec<String> = (0..CELLS)
                .filter(|c| set & (1 << c) != 0)
                .map(|c| Hex::default().action_to_text(c as Action))
                .collect();
            cells.sort();
            cells.join(" ")
        };
        assert_eq!(text(neighbours(1 << 12)), "b3 b4 c2 c4 d2 d3"); // c3, in the middle
        assert_eq!(text(neighbours(1 << 0)), "a2 b1"); // a1, the acute corner
        assert_eq!(text(neighbours(1 << 4)), "d1 d2 e2"); // e1, the obtuse corner
        assert_eq!(text(neighbours(1 << 5)), "a1 a3 b1 b2"); // a2, on the left edge
    }

    #[test]
    fn black_wins_by_joining_top_and_bottom_white_left_and_right() {
        // Black goes straight down column c; White's stones never join.
        let g = play("c1 a1 c2 a2 c3 a3 c4 a4");
        assert_eq!(g.outcome(), None);
        let g = play("c1 a1 c2 a2 c3 a3 c4 a4 c5");
        assert_eq!(g.outcome(), Some(Outcome::Win(Player::First)));
        // White's chain along row 3 bends through the diagonal neighbours: a3 b3 c3 d2 e2? d2
        // touches c3 (up and to the right), e2 touches d2.
        let g = play("a1 a3 b1 b3 a5 c3 b5 d2 c5 e2");
        assert_eq!(g.outcome(), Some(Outcome::Win(Player::Second)));
        // Down and to the right is no neighbour: a1 b2 c3 d4 e5 joins nothing.
        let mut g = play("a1 e1 b2 e2 c3 e3 d4 d1 e5");
        assert_eq!(g.outcome(), None);
        let taken =
            GameError::IllegalMove { action: "a1".into(), reason: MoveProblem::Rule("the cell is already taken") };
        assert_eq!(g.play(0), Err(taken));
        assert_eq!(g.play(25).unwrap_err().to_string(), "illegal move 25: there are only 25 cells");
    }

    #[test]
    fn every_full_board_has_exactly_one_winner_and_the_half_turn_keeps_it() {
        let mut rng = Rng::seed_from_u64(7);
        let mut moves = Vec::new();
        for _ in 0..500 {
            let mut game = Hex::default();
            let mut turned = Hex::default();
            let mut played = 0;
            while game.outcome().is_none() {
                game.legal_actions(&mut moves);
                let m = *moves.choose(&mut rng).unwrap();
                game.play(m).unwrap();
                turned.play(game.map_action(1, m)).unwrap();
                played += 1;
                assert_eq!(game.outcome(), turned.outcome(), "after {played} moves");
            }
            assert!(played <= CELLS && matches!(game.outcome(), Some(Outcome::Win(_))));
            // Filling the rest of the board never changes who joined their edges first.
            let winner = game.outcome();
            let mut full = game.clone();
            for m in 0..CELLS {
                if full.stone(m).is_none() {
                    let side = full.side().index();
                    full.stones[side] |= 1 << m;
                }
            }
            let (black, white) = (connects(full.stones[0], TOP, BOTTOM), connects(full.stones[1], LEFT, RIGHT));
            assert!(black != white, "a full board has one winner");
            let expected = if black { Player::First } else { Player::Second };
            assert_eq!(winner, Some(Outcome::Win(expected)));
        }
    }

    #[test]
    fn planes_follow_the_side_to_move_and_the_half_turn() {
        let g = play("a1 e5");
        let mut planes = vec![0.0; 3 * CELLS];
        g.encode_planes(&mut planes);
        assert_eq!((planes[0], planes[24], planes[CELLS + 24], planes[2 * CELLS]), (1.0, 0.0, 1.0, 1.0));
        let g = play("a1");
        g.encode_planes(&mut planes);
        assert_eq!((planes[0], planes[CELLS], planes[2 * CELLS]), (0.0, 1.0, 0.0), "White to move");
        let mut turned = vec![0.0; CELLS];
        g.map_plane(1, &planes[CELLS..2 * CELLS], &mut turned);
        assert_eq!(turned[g.map_action(1, 0) as usize], 1.0);
    }

    #[test]
    fn notation_round_trips_and_bad_moves_say_why() {
        let g = Hex::default();
        for a in 0..CELLS as Action {
            assert_eq!(g.action_from_text(&g.action_to_text(a)), Ok(a));
        }
        assert_eq!(g.action_to_text(0), "a1");
        assert_eq!(g.action_to_text(24), "e5");
        for bad in ["f1", "a6", "a0", "", "c", "3c"] {
            let err = g.action_from_text(bad).unwrap_err().to_string();
            assert!(err.contains("expected a column a-e and a row 1-5"), "{bad}: {err}");
        }
        assert_eq!(g.spec().to_string(), "hex5");
        assert_eq!("hex5".parse::<GameSpec>().unwrap(), g.spec());
    }

    #[test]
    fn the_hash_is_the_position_whatever_the_order() {
        assert_eq!(play("a1 b1 c1 d1").hash(), play("c1 d1 a1 b1").hash());
        assert_ne!(play("a1 b1").hash(), play("b1 a1").hash(), "the same cells, different owners");
        assert_ne!(play("a1").hash(), Hex::default().hash());
    }
}
