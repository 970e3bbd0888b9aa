//! Grading a player on positions, the way AlphaZero.jl grades on Pons' benchmark: a move is
//! an error when its game-theoretic class (win, draw or loss) is below the best available.
//! Error rates come overall, per Pons category (labelled positions), per disc count, and per
//! kind of position (Gomoku's one-move tactics).

use super::category::Category;
use super::labelled::Labelled;
use dojo_game::connect4::solver::{Position, Solver};
use dojo_game::connect4::Connect4;
use dojo_game::gomoku::{Gomoku, Tactic};
use dojo_game::{Action, Game};
use dojo_net::agent::NetAgent;
use dojo_search::player::Agent;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What picks the move graded: the raw network policy (no search) or the search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mover {
    Policy,
    Search,
}

impl Mover {
    pub fn name(self) -> &'static str {
        match self {
            Mover::Policy => "policy",
            Mover::Search => "search",
        }
    }
}

/// A player that can be graded: its move in a position, by policy or by search.
pub trait Chooser<G> {
    fn choose(&mut self, mover: Mover, game: &G) -> Action;
}

impl<G: Game> Chooser<G> for NetAgent<G> {
    fn choose(&mut self, mover: Mover, game: &G) -> Action {
        match mover {
            Mover::Policy => self.policy_move(game),
            Mover::Search => self.select_move(game),
        }
    }
}

/// The correct moves of a position, and the groups it counts in beside the overall rate.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub correct: Vec<Action>,
    pub category: Option<Category>,
    /// Gomoku: "win" or "block".
    pub kind: Option<&'static str>,
}

/// The columns whose class (the sign of the score) is the best among `scores`.
pub fn best_class_moves(scores: &[Option<i32>]) -> Vec<Action> {
    let class = |s: &Option<i32>| s.map(i32::signum);
    let best = scores.iter().filter_map(class).max();
    (0..scores.len()).filter(|&c| best.is_some() && class(&scores[c]) == best).map(|c| c as Action).collect()
}

/// A labelled position's verdict, from its stored scores (no solver needed).
pub fn labelled_verdict(label: &Labelled) -> Verdict {
    Verdict { correct: best_class_moves(&label.scores), category: Some(label.category), kind: None }
}

/// The solver's verdict on an unlabelled Connect Four position (win/draw/loss of each
/// column: a weak solve, faster than exact scores).
pub fn solver_verdict(solver: &mut Solver, game: &Connect4) -> Verdict {
    let pos = Position::from_game(game);
    let classes: Vec<Option<i32>> = (0..pos.width())
        .map(|col| {
            if !pos.can_play(col) {
                None
            } else if pos.is_winning_move(col) {
                Some(1)
            } else {
                let mut child = pos;
                child.play(col).expect("playable column");
                Some(-solver.solve_weak(&child))
            }
        })
        .collect();
    Verdict { correct: best_class_moves(&classes), category: None, kind: None }
}

/// The one-move tactic of a Gomoku position: make five, else block the only five; None
/// when there is none (nothing to judge).
pub fn tactic_verdict(game: &Gomoku) -> Option<Verdict> {
    let tactic = game.tactic()?;
    let correct = match &tactic {
        Tactic::Win(points) => points.clone(),
        Tactic::Block(point) => vec![*point],
    };
    Some(Verdict { correct, category: None, kind: Some(tactic.kind()) })
}

/// Error counts for one group of positions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ErrorRate {
    pub positions: u32,
    pub errors: u32,
    pub rate: f64,
}

impl ErrorRate {
    fn add(&mut self, error: bool) {
        self.positions += 1;
        self.errors += u32::from(error);
        self.rate = f64::from(self.errors) / f64::from(self.positions);
    }
}

/// One mover's grade on a set of positions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Grade {
    pub mover: Mover,
    /// Playouts per move (0 for the policy).
    pub sims: u32,
    pub overall: ErrorRate,
    /// By Pons category (labelled positions only).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_category: BTreeMap<Category, ErrorRate>,
    /// By discs (pieces) on the board.
    pub by_discs: BTreeMap<usize, ErrorRate>,
    /// By kind of position (Gomoku: "win" or "block").
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_kind: BTreeMap<&'static str, ErrorRate>,
    /// Positions with nothing to judge (Gomoku: no five to make or to stop).
    pub skipped: u32,
}

impl Grade {
    fn new(mover: Mover, sims: u32) -> Grade {
        Grade {
            mover,
            sims: if mover == Mover::Policy { 0 } else { sims },
            overall: ErrorRate::default(),
            by_category: BTreeMap::new(),
            by_discs: BTreeMap::new(),
            by_kind: BTreeMap::new(),
            skipped: 0,
        }
    }

    /// Error rates by category name, and "all" (what the gatekeeper records).
    pub fn by_category_and_all(&self) -> BTreeMap<String, ErrorRate> {
        let mut out: BTreeMap<String, ErrorRate> =
            self.by_category.iter().map(|(c, r)| (c.to_string(), r.clone())).collect();
        out.insert("all".into(), self.overall.clone());
        out
    }
}

/// A position to grade and its verdict (None: nothing to judge, counted as skipped).
pub struct Case<G> {
    pub game: G,
    pub verdict: Option<Verdict>,
}

/// Grades `chooser`'s moves by each of `movers` (`sims`: the search's playouts, for the
/// record) on every case; `tick` runs after each case (progress).
pub fn grade<G: Game>(
    cases: &[Case<G>],
    chooser: &mut impl Chooser<G>,
    movers: &[Mover],
    sims: u32,
    mut tick: impl FnMut(),
) -> Vec<Grade> {
    let mut grades: Vec<Grade> = movers.iter().map(|&m| Grade::new(m, sims)).collect();
    for case in cases {
        for grade in &mut grades {
            let Some(verdict) = &case.verdict else {
                grade.skipped += 1;
                continue;
            };
            let error = !verdict.correct.contains(&chooser.choose(grade.mover, &case.game));
            grade.overall.add(error);
            grade.by_discs.entry(case.game.ply()).or_default().add(error);
            if let Some(c) = verdict.category {
                grade.by_category.entry(c).or_default().add(error);
            }
            if let Some(k) = verdict.kind {
                grade.by_kind.entry(k).or_default().add(error);
            }
        }
        tick();
    }
    grades
}

/// The grades as a table: one row per Pons category (labelled files) or per disc count, one
/// column per mover.
pub fn table(model: &str, grades: &[Grade]) -> String {
    let mut text = String::new();
    let header = |g: &Grade| match g.mover {
        Mover::Policy => "policy".to_string(),
        Mover::Search => format!("search@{}", g.sims),
    };
    let first = &grades[0];
    let overall: Vec<String> = grades.iter().map(|g| format!("{} {:.1}%", header(g), 100.0 * g.overall.rate)).collect();
    text.push_str(&format!(
        "{model}: {} of {} positions not optimal (a move whose win/draw/loss class is below the best){}\n",
        overall.join(", "),
        first.overall.positions,
        if first.skipped > 0 { format!(" ({} without a tactic skipped)", first.skipped) } else { String::new() }
    ));
    let rows: Vec<(String, Vec<&ErrorRate>)> = if !first.by_category.is_empty() {
        first.by_category.keys().map(|c| (c.to_string(), grades.iter().map(|g| &g.by_category[c]).collect())).collect()
    } else if !first.by_kind.is_empty() {
        first.by_kind.keys().map(|k| (k.to_string(), grades.iter().map(|g| &g.by_kind[k]).collect())).collect()
    } else {
        first.by_discs.keys().map(|d| (d.to_string(), grades.iter().map(|g| &g.by_discs[d]).collect())).collect()
    };
    let group = if !first.by_category.is_empty() {
        "category"
    } else if !first.by_kind.is_empty() {
        "kind"
    } else {
        "discs"
    };
    text.push_str(&format!("{group:>8}  positions"));
    for g in grades {
        text.push_str(&format!("  {:>14}", header(g)));
    }
    text.push('\n');
    let all = ("all".to_string(), grades.iter().map(|g| &g.overall).collect());
    for (name, rates) in rows.iter().chain(std::iter::once(&all)) {
        text.push_str(&format!("{name:>8}  {:>9}", rates[0].positions));
        for r in rates {
            text.push_str(&format!("  {:>5.1}% ({:>4})", 100.0 * r.rate, r.errors));
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labelled::parse_lines;
    use crate::labelled::PositionLine;

    /// Always the leftmost legal column, whatever it is asked; errors are predictable.
    struct Leftmost;

    impl Chooser<Connect4> for Leftmost {
        fn choose(&mut self, _: Mover, game: &Connect4) -> Action {
            let mut legal = Vec::new();
            game.legal_actions(&mut legal);
            legal[0]
        }
    }

    #[test]
    fn best_class_ignores_margins_and_full_columns() {
        assert_eq!(best_class_moves(&[Some(-3), Some(2), None, Some(9), Some(0)]), [1, 3]);
        assert_eq!(best_class_moves(&[None, Some(0), Some(-1), Some(0)]), [1, 3]);
        assert_eq!(best_class_moves(&[Some(-5), Some(-1)]), [0, 1]);
        assert!(best_class_moves(&[None, None]).is_empty());
    }

    #[test]
    fn a_leftmost_player_errs_where_column_one_is_worse_than_the_best() {
        // Two labelled positions (scores of every column by the solver: the test checks them)
        // and one plain one the solver judges at grading time.
        let start = Connect4::standard();
        let mut solver = Solver::new();
        let label = |moves: &str, solver: &mut Solver| {
            let mut game = start.clone();
            for a in game.moves_from_text(moves).unwrap() {
                game.play(a).unwrap();
            }
            let scores = solver.analyze(&Position::from_game(&game));
            Labelled::new(&game, moves.into(), scores)
        };
        // "232323": the first player wins now in column 2, and column 1 lets the second
        // player win in column 3: an error. "121212": column 1 wins now. Both L1R1, score 18.
        let a = label("232323", &mut solver);
        assert_eq!((a.category.to_string(), a.score, a.moves_left), ("L1R1".into(), 18, 1));
        assert_eq!(best_class_moves(&a.scores), [1]);
        let b = label("121212", &mut solver);
        assert_eq!(best_class_moves(&b.scores), [0]);
        // "343434" (plain, judged by the solver): column 3 wins, column 1 loses.
        let text = format!("{}\n{}\n343434\n", serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
        let cases: Vec<Case<Connect4>> = parse_lines(&text)
            .unwrap()
            .into_iter()
            .map(|(_, line)| match line {
                PositionLine::Labelled(l) => {
                    Case { game: l.position(&start).unwrap(), verdict: Some(labelled_verdict(&l)) }
                }
                PositionLine::Plain(moves) => {
                    let mut game = start.clone();
                    for m in game.moves_from_text(&moves).unwrap() {
                        game.play(m).unwrap();
                    }
                    let verdict = solver_verdict(&mut solver, &game);
                    Case { game, verdict: Some(verdict) }
                }
            })
            .collect();
        assert_eq!(cases[2].verdict.as_ref().unwrap().correct, [2]);
        let mut ticks = 0;
        let grades = grade(&cases, &mut Leftmost, &[Mover::Policy, Mover::Search], 50, || ticks += 1);
        assert_eq!(ticks, 3);
        let (policy, search) = (&grades[0], &grades[1]);
        assert_eq!((policy.sims, search.sims), (0, 50));
        assert_eq!((policy.overall.positions, policy.overall.errors), (3, 2));
        assert_eq!(policy.by_category[&"L1R1".parse().unwrap()], ErrorRate { positions: 2, errors: 1, rate: 0.5 });
        assert_eq!(policy.by_category.len(), 1);
        assert_eq!(policy.by_discs[&6], ErrorRate { positions: 3, errors: 2, rate: 2.0 / 3.0 });
        assert_eq!(policy.by_category_and_all()["all"], policy.overall);
        assert_eq!(policy.overall, search.overall);
        let json = serde_json::to_value(policy).unwrap();
        assert_eq!(json["mover"], "policy");
        assert_eq!(json["by_category"]["L1R1"]["errors"], 1);
    }
}
