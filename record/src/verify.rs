//! Replaying a record: the one place that decides whether a record is believable.

use super::{
    GameRecord, InvalidRecord, MoveProblem, MoveRecord, RecordError, RecordOutcome, MAX_MOVES, MAX_POLICY,
    MAX_TOTAL_POLICY,
};
use dojo_game::with_game;
use dojo_game::{Game, Player, ToMove};

/// How far a policy may be from summing to 1 (f32 visit fractions over a few hundred moves
/// stay far inside it).
pub const POLICY_SUM_TOLERANCE: f64 = 1e-3;

fn player_name(p: Player) -> &'static str {
    match p {
        Player::First => "the first player",
        Player::Second => "the second player",
    }
}

impl GameRecord {
    /// Replays the record from [`GameRecord::start`] and checks everything
    /// [`GameRecord::validate_with`] checks.
    pub fn validate(&self) -> Result<(), RecordError> {
        let start = self.start()?;
        with_game!(start, g => self.validate_with(g))
    }

    /// Replays the record from `start` (which must be this record's start position) and
    /// checks: every move legal in turn (chance events where one is pending), policies only
    /// on legal actions, without duplicates, finite, non-negative and summing to 1, the
    /// recorded outcome equal to the replayed one, or for a resignation the game not over
    /// and won by the side that did not resign; and the limits the codec enforces.
    pub fn validate_with<G: Game>(&self, start: G) -> Result<(), RecordError> {
        self.replay(start, |_, _, _| {}).map(|_| ())
    }

    /// [`GameRecord::validate_with`] that also calls `visit(index, position, move)` before
    /// each move (chance events included) and returns the final position.
    pub fn replay<G: Game>(&self, start: G, visit: impl FnMut(usize, &G, &MoveRecord)) -> Result<G, RecordError> {
        self.replay_impl(start, visit, None)
    }

    /// The replay; `rewards`, when given, receives each move's reward (0 for chance events).
    pub(crate) fn replay_impl<G: Game>(
        &self,
        start: G,
        mut visit: impl FnMut(usize, &G, &MoveRecord),
        mut rewards: Option<&mut Vec<u32>>,
    ) -> Result<G, RecordError> {
        self.check_header(&start)?;
        let mut g = start;
        let num_actions = g.num_actions();
        let mut seen = vec![false; num_actions];
        for (i, mv) in self.moves.iter().enumerate() {
            let fail = |g: &G, reason: MoveProblem| RecordError::Move {
                number: i + 1,
                action: if mv.chance { format!("chance event {}", mv.action) } else { g.action_to_text(mv.action) },
                reason: Box::new(reason),
            };
            if let Some(o) = g.outcome() {
                return Err(fail(&g, MoveProblem::GameOver(RecordOutcome::from(o))));
            }
            if mv.chance {
                check_chance(&g, mv).map_err(|reason| fail(&g, reason))?;
                visit(i, &g, mv);
                g.apply_chance(mv.action).map_err(|e| fail(&g, MoveProblem::IllegalChance(e)))?;
                if let Some(r) = rewards.as_deref_mut() {
                    r.push(0);
                }
                continue;
            }
            check_player_move(&g, mv, &mut seen).map_err(|reason| fail(&g, reason))?;
            visit(i, &g, mv);
            let reward = g.play_unchecked(mv.action);
            if let Some(r) = rewards.as_deref_mut() {
                r.push(reward);
            }
        }
        self.check_end(&g)?;
        Ok(g)
    }

    fn check_header<G: Game>(&self, start: &G) -> Result<(), RecordError> {
        if self.spec.is_random() {
            return Err(InvalidRecord::RandomSpec { spec: self.spec.clone() }.into());
        }
        let start_spec = start.spec();
        if start_spec != self.spec {
            return Err(InvalidRecord::OtherStart { spec: self.spec.clone(), start: start_spec }.into());
        }
        RecordError::at_most("move count", self.moves.len() as u64, MAX_MOVES)?;
        let mut total = 0usize;
        for mv in &self.moves {
            total += RecordError::at_most("policy length", mv.policy.len() as u64, MAX_POLICY)?;
        }
        RecordError::at_most("total policy entries", total as u64, MAX_TOTAL_POLICY)?;
        if self.resigned && self.no_resign {
            return Err(InvalidRecord::ResignedNoResign.into());
        }
        if self.would_have_resigned.is_some() && !self.no_resign {
            return Err(InvalidRecord::WouldHaveResignedWithResign.into());
        }
        Ok(())
    }

    fn check_end<G: Game>(&self, g: &G) -> Result<(), RecordError> {
        let n = self.moves.len();
        match (g.outcome().map(RecordOutcome::from), self.resigned) {
            (Some(played), false) if played != self.outcome => {
                Err(InvalidRecord::OtherOutcome { recorded: self.outcome, played }.into())
            }
            (Some(_), false) => Ok(()),
            (Some(played), true) => Err(InvalidRecord::ResignedAfterTheEnd { moves: n, played }.into()),
            (None, false) => Err(InvalidRecord::NotOver { moves: n }.into()),
            (None, true) => {
                if self.spec.is_one_player() {
                    return Err(InvalidRecord::OnePlayerResigned { spec: self.spec.clone() }.into());
                }
                let loser = match g.to_move() {
                    ToMove::Player(p) => p,
                    ToMove::Chance => return Err(InvalidRecord::ResignedAtChance.into()),
                };
                let want = RecordOutcome::Win(loser.other());
                if self.outcome != want {
                    let loser = player_name(loser);
                    return Err(InvalidRecord::ResignOutcome { loser, moves: n, want, recorded: self.outcome }.into());
                }
                Ok(())
            }
        }
    }
}

/// Why a chance event cannot stand at `g`: a player to move, or a policy or a training mark
/// on it (the network never chose it).
fn check_chance<G: Game>(g: &G, mv: &MoveRecord) -> Result<(), MoveProblem> {
    if let ToMove::Player(p) = g.to_move() {
        return Err(MoveProblem::ChanceWhilePlayerToMove(player_name(p)));
    }
    if !mv.policy.is_empty() {
        return Err(MoveProblem::ChancePolicy);
    }
    if mv.train {
        return Err(MoveProblem::ChanceTrained);
    }
    Ok(())
}

/// Why a player's move cannot stand at `g`: a chance event pending, an illegal action, a root
/// value that is not a number, a trained move without a policy, or a policy that does not
/// fit the position. `seen` (one flag per action, all false) is left all false.
fn check_player_move<G: Game>(g: &G, mv: &MoveRecord, seen: &mut [bool]) -> Result<(), MoveProblem> {
    if g.to_move() == ToMove::Chance {
        return Err(MoveProblem::ChancePending);
    }
    if !g.is_legal(mv.action) {
        return Err(MoveProblem::Illegal(g.illegal_reason(mv.action)));
    }
    if !mv.root_value.is_finite() {
        return Err(MoveProblem::RootValue(mv.root_value));
    }
    if mv.train && mv.policy.is_empty() {
        return Err(MoveProblem::NoPolicy);
    }
    let checked = check_policy(g, mv, seen);
    for &(a, _) in &mv.policy {
        if let Some(s) = seen.get_mut(a as usize) {
            *s = false;
        }
    }
    checked
}

/// Checks one policy, marking its actions in `seen` (the caller clears them).
fn check_policy<G: Game>(g: &G, mv: &MoveRecord, seen: &mut [bool]) -> Result<(), MoveProblem> {
    let mut sum = 0f64;
    for &(a, p) in &mv.policy {
        let Some(s) = seen.get_mut(a as usize) else {
            return Err(MoveProblem::PolicyOutside { action: a, actions: seen.len() });
        };
        if *s {
            return Err(MoveProblem::PolicyTwice(g.action_to_text(a)));
        }
        *s = true;
        if !g.is_legal(a) {
            return Err(MoveProblem::PolicyIllegal(g.action_to_text(a)));
        }
        if !p.is_finite() || p < 0.0 {
            return Err(MoveProblem::PolicyProbability { probability: p, action: g.action_to_text(a) });
        }
        sum += f64::from(p);
    }
    if !mv.policy.is_empty() && (sum - 1.0).abs() > POLICY_SUM_TOLERANCE {
        return Err(MoveProblem::PolicySum(sum));
    }
    Ok(())
}
