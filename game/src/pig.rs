//! Pig, alone (`pig`): the one-player game `docs/new-game.md` adds to dojo end to end, with
//! a die for nature. Everything dojo knows about it is in this file; its registration is
//! the same two lines as any named game's (`pub mod pig;` in `lib.rs`,
//! `Pig(crate::pig::Pig)` in `registry.rs`'s `games!`).
//!
//! The rules: a game is [`TURNS`] turns, each opening with a roll of a die. A 1 loses the
//! turn's stake and ends the turn; a 2 to 6 adds its face to the stake, and the player
//! chooses: roll again, or hold, which banks the stake and ends the turn. The score is what
//! was banked.
//!
//! Rolling gains 5/6 × 4 = 10/3 points on average and risks the stake with 1/6, so holding
//! once the stake reaches 20 is the best a player can do: 8.14 points a turn on average
//! (the test below works it out from the rules), 40.7 a game, where a player who picks at
//! random makes about 23. Nature moves twice in a row after a 1 (the next turn's roll), and
//! the last hold ends the game with no roll: the chance-node search takes both.

use crate::tactics::Tactics;
use crate::{
    Action, BoardLayout, Chance, Game, GameError, GameScore, GameSpec, MoveProblem, NamedGame, Outcome, ParseProblem,
    PlaneShape, Scoring, Symmetries, ToMove,
};
use dojo_base::rng::{splitmix64, Rng};
use rand::RngExt;

/// Turns in a game.
pub const TURNS: u8 = 5;
/// Roll the die again.
pub const ROLL: Action = 0;
/// Bank the stake and end the turn.
pub const HOLD: Action = 1;
/// The die's events: event `i` is the face `i + 1`.
const FACES: usize = 6;
/// The planes: the stake (÷ 20) and the share of the game's turns still to play (this one
/// included). Two numbers, not a thermometer of the stake: self-play that holds early
/// rarely sees a large stake, and a plane that is never on in training has weights that
/// say anything when it comes on in play, where a number is extrapolated smoothly.
const PLANES: usize = 2;

/// A game of Pig. `Default` is the start: turn 1, nothing banked, its first roll pending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pig {
    /// Turns over (`TURNS` once the game is).
    turn: u8,
    banked: u32,
    /// The turn's points so far, lost on a 1.
    stake: u32,
    /// The die is in the air: nature moves next.
    rolling: bool,
    /// The face of the last roll, for [`Game::render`] (0 before the first).
    face: u8,
    ply: u32,
    last: Option<Action>,
}

impl Default for Pig {
    fn default() -> Pig {
        Pig { turn: 0, banked: 0, stake: 0, rolling: true, face: 0, ply: 0, last: None }
    }
}

impl NamedGame for Pig {
    const NAME: &'static str = "pig";
}

impl Pig {
    /// What the turn has at stake.
    pub fn stake(&self) -> u32 {
        self.stake
    }

    /// Turns still to play, the one under way included.
    pub fn turns_left(&self) -> u8 {
        TURNS - self.turn
    }

    fn end_turn(&mut self) {
        self.stake = 0;
        self.turn += 1;
        self.rolling = self.turn < TURNS;
    }
}

impl Game for Pig {
    fn spec(&self) -> GameSpec {
        GameSpec::Named { name: Self::NAME }
    }

    fn num_actions(&self) -> usize {
        2
    }

    fn to_move(&self) -> ToMove {
        if self.rolling {
            ToMove::Chance
        } else {
            ToMove::Player(crate::Player::First)
        }
    }

    /// Both moves, whenever the player moves: a turn opens with a roll, so by the time the
    /// player chooses there is a stake to hold.
    fn legal_actions(&self, out: &mut Vec<Action>) {
        out.clear();
        if self.is_legal(ROLL) {
            out.extend([ROLL, HOLD]);
        }
    }

    fn is_legal(&self, action: Action) -> bool {
        action <= HOLD && !self.rolling && self.turn < TURNS
    }

    /// Rolling earns nothing yet; holding earns the stake.
    fn play_unchecked(&mut self, action: Action) -> u32 {
        debug_assert!(self.is_legal(action), "illegal pig move {action}");
        self.ply += 1;
        self.last = Some(action);
        if action == ROLL {
            self.rolling = true;
            return 0;
        }
        let banked = self.stake;
        self.banked = self.banked.saturating_add(banked);
        self.end_turn();
        banked
    }

    fn illegal_reason(&self, action: Action) -> GameError {
        GameError::IllegalMove {
            action: action.to_string(),
            reason: MoveProblem::Rule("pig's moves are 0 (roll) and 1 (hold)"),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.turn == TURNS).then_some(Outcome::Score(u64::from(self.banked)))
    }

    /// Every field that makes the position (not the last face, which is only shown).
    fn hash(&self) -> u64 {
        let fields = u64::from(self.turn)
            | u64::from(self.rolling) << 8
            | u64::from(self.stake.min(0xff_ffff)) << 9
            | u64::from(self.banked) << 33;
        splitmix64(fields)
    }

    fn ply(&self) -> usize {
        self.ply as usize
    }

    fn last_action(&self) -> Option<Action> {
        self.last
    }

    /// Pig has no board: its planes are 1×1, one number each, and the network's
    /// convolutions act on them as a small perceptron. What is still to come depends on the
    /// stake and the turns left, not on what is banked, so the bank is not among them.
    fn plane_shape(&self) -> PlaneShape {
        PlaneShape { channels: PLANES, height: 1, width: 1 }
    }

    fn encode_planes(&self, out: &mut [f32]) {
        debug_assert_eq!(out.len(), PLANES);
        out[0] = self.stake as f32 / 20.0;
        out[1] = f32::from(self.turns_left()) / f32::from(TURNS);
    }

    fn action_to_text(&self, action: Action) -> String {
        match action {
            ROLL => "roll".to_string(),
            HOLD => "hold".to_string(),
            other => format!("#{other}"),
        }
    }

    fn action_from_text(&self, text: &str) -> Result<Action, GameError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "roll" | "r" => Ok(ROLL),
            "hold" | "h" => Ok(HOLD),
            _ => Err(GameError::Parse {
                what: "pig move",
                text: text.to_string(),
                reason: ParseProblem::Expected("roll or hold (r or h)").into(),
            }),
        }
    }

    fn render(&self) -> String {
        let turn = (self.turn + 1).min(TURNS);
        let mut text = format!("pig  turn {turn} of {TURNS}  banked {}  at stake {}", self.banked, self.stake);
        match (self.face, self.outcome()) {
            (_, Some(_)) => text.push_str("  (game over)"),
            (0, None) => {}
            (1, None) => text.push_str("  (rolled a 1: the stake is lost)"),
            (face, None) => text.push_str(&format!("  (rolled a {face})")),
        }
        text.push('\n');
        text
    }
}

impl Scoring for Pig {
    fn is_one_player(&self) -> bool {
        true
    }

    fn game_score(&self) -> Option<GameScore> {
        Some(GameScore { score: u64::from(self.banked), max_tile: 0 })
    }

    /// The best play averages 40.7 a game, with a spread of about 23; 120 keeps every likely
    /// score below the value head's 1.
    fn max_return(&self) -> f64 {
        120.0
    }
}

impl Tactics for Pig {}

impl Chance for Pig {
    fn chance_outcomes(&self, out: &mut Vec<(Action, f32)>) {
        out.clear();
        if self.rolling {
            out.extend((0..FACES as Action).map(|event| (event, 1.0 / FACES as f32)));
        }
    }

    fn apply_chance(&mut self, event: Action) -> Result<(), GameError> {
        if !self.rolling {
            return Err(GameError::NoChancePending);
        }
        if event as usize >= FACES {
            return Err(GameError::IllegalMove {
                action: format!("die event {event}"),
                reason: MoveProblem::Rule("a die shows 1 to 6: events 0 to 5"),
            });
        }
        self.face = event as u8 + 1;
        self.rolling = false;
        match self.face {
            1 => self.end_turn(),
            face => self.stake = self.stake.saturating_add(u32::from(face)),
        }
        Ok(())
    }

    fn sample_chance(&mut self, rng: &mut Rng) {
        if self.rolling {
            // In range, and a die is pending: nothing to fail.
            let _ = self.apply_chance(rng.random_range(0..FACES as Action));
        }
    }
}

impl Symmetries for Pig {}

impl BoardLayout for Pig {}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Plays `moves` ("roll", "hold") with the die showing `faces` in turn.
    fn play(faces: &[u8], moves: &[&str]) -> (Pig, u32) {
        let mut game = Pig::default();
        let (mut faces, mut moves, mut reward) = (faces.iter(), moves.iter(), 0);
        while game.outcome().is_none() {
            if game.to_move() == ToMove::Chance {
                let Some(&face) = faces.next() else { break };
                game.apply_chance(Action::from(face - 1)).unwrap();
            } else {
                let Some(m) = moves.next() else { break };
                reward += game.play(game.action_from_text(m).unwrap()).unwrap();
            }
        }
        (game, reward)
    }

    #[test]
    fn a_turn_banks_its_stake_or_loses_it_to_a_one() {
        // Turn 1: 4, 6, hold (10 banked). Turn 2: 5, then a 1 (lost). Turn 3: 2, hold.
        let (game, reward) = play(&[4, 6, 5, 1, 2], &["roll", "hold", "roll", "h"]);
        assert_eq!(reward, 12);
        assert_eq!(game.game_score(), Some(GameScore { score: 12, max_tile: 0 }));
        assert_eq!((game.turns_left(), game.stake()), (TURNS - 3, 0));
        assert_eq!(game.to_move(), ToMove::Chance, "the next turn opens with a roll");
        assert_eq!(game.ply(), 4);
        assert_eq!(game.last_action(), Some(HOLD));
        // A 1 on the opening roll ends the turn at once, with no move for the player.
        let (game, _) = play(&[1], &[]);
        assert_eq!((game.turns_left(), game.ply(), game.to_move()), (TURNS - 1, 0, ToMove::Chance));
        assert!(game.render().contains("turn 2 of 5  banked 0  at stake 0  (rolled a 1: the stake is lost)"));
    }

    #[test]
    fn the_game_ends_after_its_turns_with_the_banked_score() {
        let faces: Vec<u8> = [3, 1].repeat(TURNS as usize);
        let moves = vec!["roll"; TURNS as usize];
        let (game, reward) = play(&faces, &moves);
        assert_eq!(game.outcome(), Some(Outcome::Score(0)), "every stake lost: {}", game.render());
        assert_eq!(reward, 0);
        let (game, reward) = play(&[6].repeat(TURNS as usize), &vec!["hold"; TURNS as usize]);
        assert_eq!((game.outcome(), reward), (Some(Outcome::Score(6 * u64::from(TURNS))), 6 * u32::from(TURNS)));
        assert!(game.render().ends_with("(game over)\n"), "{}", game.render());
        let mut moves = Vec::new();
        game.legal_actions(&mut moves);
        assert!(moves.is_empty());
        assert_eq!(game.clone().play(HOLD), Err(GameError::GameOver));
    }

    /// Expectimax over the first turn with the rules' own die and moves: the best expected
    /// score from `game` (holding once the stake reaches 100, where it is certainly best),
    /// remembered by position, since a stake is reached in many ways.
    fn best_turn(game: &Pig, memo: &mut std::collections::HashMap<(u32, bool), f64>) -> f64 {
        if game.turn > 0 || game.stake >= 100 {
            return f64::from(game.banked + game.stake);
        }
        if let Some(&value) = memo.get(&(game.stake, game.rolling)) {
            return value;
        }
        let value = if game.to_move() == ToMove::Chance {
            let mut outcomes = Vec::new();
            game.chance_outcomes(&mut outcomes);
            outcomes
                .iter()
                .map(|&(event, p)| {
                    let mut next = game.clone();
                    next.apply_chance(event).unwrap();
                    f64::from(p) * best_turn(&next, memo)
                })
                .sum()
        } else {
            [ROLL, HOLD].into_iter().map(|m| after(game, m, memo)).fold(f64::MIN, f64::max)
        };
        memo.insert((game.stake, game.rolling), value);
        value
    }

    fn after(game: &Pig, action: Action, memo: &mut std::collections::HashMap<(u32, bool), f64>) -> f64 {
        let mut next = game.clone();
        next.play(action).unwrap();
        best_turn(&next, memo)
    }

    #[test]
    fn the_best_turn_holds_from_twenty_on_and_makes_8_14_points() {
        // Neller and Presser's number for a turn of Pig played to maximise its points.
        let memo = &mut std::collections::HashMap::new();
        let best = best_turn(&Pig::default(), memo);
        assert!((best - 8.142).abs() < 5e-4, "{best}");
        for stake in 2..40 {
            let at = Pig { stake, rolling: false, ..Pig::default() };
            let (roll, hold) = (after(&at, ROLL, memo), after(&at, HOLD, memo));
            assert_eq!(hold, f64::from(stake));
            match stake {
                ..20 => assert!(roll > hold, "rolling at {stake}: {roll} against holding's {hold}"),
                // (The die's odds are f32s, 1/6 to 7 digits.)
                20 => assert!((roll - hold).abs() < 1e-5, "a tie at 20: {roll}"),
                _ => assert!(roll < hold, "holding at {stake}: {hold} against rolling's {roll}"),
            }
        }
    }

    #[test]
    fn the_die_is_fair_and_refuses_a_seventh_face() {
        let game = Pig::default();
        let mut outcomes = Vec::new();
        game.chance_outcomes(&mut outcomes);
        assert_eq!(outcomes.iter().map(|&(e, _)| e).collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5]);
        assert!((outcomes.iter().map(|&(_, p)| p).sum::<f32>() - 1.0).abs() < 1e-6);
        let err = game.clone().apply_chance(6).unwrap_err();
        assert_eq!(err.to_string(), "illegal move die event 6: a die shows 1 to 6: events 0 to 5");
        assert_eq!(game.clone().play(ROLL), Err(GameError::ChancePending));
        let mut rng = Rng::seed_from_u64(7);
        let mut counts = [0u32; FACES];
        for _ in 0..6000 {
            let mut g = game.clone();
            g.sample_chance(&mut rng);
            counts[usize::from(g.face) - 1] += 1;
        }
        assert!(counts.iter().all(|&c| (850..1150).contains(&c)), "{counts:?}");
        let after_roll = play(&[3], &[]).0;
        assert_eq!(after_roll.clone().apply_chance(0), Err(GameError::NoChancePending));
    }

    #[test]
    fn planes_show_the_stake_and_the_turns_left() {
        let (game, _) = play(&[6, 1, 5, 6, 6, 5], &["roll", "roll", "roll", "roll"]);
        assert_eq!((game.stake(), game.turns_left()), (22, TURNS - 1));
        let mut planes = vec![0.0; game.plane_shape().len()];
        game.encode_planes(&mut planes);
        let turns_left = 4.0 / 5.0;
        assert_eq!(planes, vec![1.1, turns_left]);
    }

    #[test]
    fn notation_round_trips_and_bad_moves_say_why() {
        let game = play(&[4], &[]).0;
        for action in [ROLL, HOLD] {
            assert_eq!(game.action_from_text(&game.action_to_text(action)), Ok(action));
        }
        assert_eq!(game.moves_from_text("R hold roll"), Ok(vec![ROLL, HOLD, ROLL]));
        let err = game.action_from_text("stay").unwrap_err();
        assert_eq!(err.to_string(), "cannot parse pig move \"stay\": expected roll or hold (r or h)");
        let err = game.clone().play(2).unwrap_err();
        assert_eq!(err.to_string(), "illegal move 2: pig's moves are 0 (roll) and 1 (hold)");
    }

    #[test]
    fn the_hash_is_the_position_not_how_it_was_reached() {
        // 10 banked by 4+6 or by 5+5 (with a 1 between): the same position.
        let a = play(&[4, 6, 3], &["roll", "hold"]).0;
        let b = play(&[5, 5, 3], &["roll", "hold"]).0;
        assert_eq!(a.hash(), b.hash());
        let mut hashes: Vec<u64> = [&[4u8, 6, 3][..], &[4, 6, 4], &[4, 5, 3], &[4, 6]]
            .iter()
            .map(|faces| play(faces, &["roll", "hold"]).0.hash())
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        assert_eq!(hashes.len(), 4, "stake, bank and a pending roll all count");
    }
}
