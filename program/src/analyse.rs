//! What a network plays in given positions (`dojo bestmove`), how often that is a
//! game-theoretic mistake (`dojo eval`), and the positions to ask it about (`dojo
//! positions`). The judging itself (verdicts, Pons categories, error rates) is the
//! arbiter's `grading`; this wires it to a network player, a file and a stream.

use dojo_arbiter::players::{net_player, PlayerError, PlayerSpec};
use dojo_game::with_game;
use dojo_game::{AnyGame, FromAnyGame, Game, GameError, GameSpec};
use dojo_grading::draw::{draw_positions, DrawSettings, Drawn};
use dojo_grading::grade::grade;
use dojo_grading::judge::{judge_file, position_after, JudgeError, Judged};
use dojo_grading::labelled::to_text as labelled_text;
use dojo_grading::positions::{
    no_immediate_win, positions_from_games, random_positions, PositionRange, PositionsError,
};
use dojo_grading::{Case, Grade, Mover};
use dojo_net::device::Device;
use dojo_search::player::Agent;
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum AnalyseError {
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Player(#[from] PlayerError),
    #[error(transparent)]
    Judge(#[from] JudgeError),
    #[error(transparent)]
    Positions(#[from] PositionsError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("{failures} position(s) could not be read (see the errors above)")]
    Unreadable { failures: usize },
    #[error("--min-moves {min} is above --max-moves {max}")]
    MoveRange { min: usize, max: usize },
    #[error("--pons labels Connect Four positions with the solver (width × (height + 1) <= 64), not {spec}")]
    PonsGame { spec: GameSpec },
    #[error("--tactics is for Gomoku, not {spec}")]
    TacticsGame { spec: GameSpec },
    #[error("--count and --per-category must be at least 1")]
    NoPositions,
}

/// `dojo bestmove`: for each line of `input` (a position's moves from the start), the move
/// `player` (a `net:` spec) plays there on a line of `output`, or `error: WHY` (said on
/// `errors` too, for a person watching). Fails after the last line if any line could not
/// be read.
pub fn bestmove(
    spec: &GameSpec,
    player: &PlayerSpec,
    device: Device,
    input: impl BufRead,
    output: impl Write,
    errors: impl Write,
) -> Result<(), AnalyseError> {
    with_game!(spec.start()?, g => bestmove_typed(g, spec, player, device, input, output, errors))
}

fn bestmove_typed<G: Game + FromAnyGame>(
    start: G,
    spec: &GameSpec,
    player: &PlayerSpec,
    device: Device,
    input: impl BufRead,
    mut out: impl Write,
    mut errors: impl Write,
) -> Result<(), AnalyseError> {
    let mut agent = net_player(player, 0, device, Some((spec, &start)))?;
    let mut failures = 0;
    for (number, line) in input.lines().enumerate() {
        match position_after(&start, line?.trim()) {
            Ok(game) => writeln!(out, "{}", game.action_to_text(agent.select_move(&game)))?,
            Err(e) => {
                failures += 1;
                writeln!(errors, "dojo bestmove: line {}: {e}", number + 1)?;
                writeln!(out, "error: {e}")?;
            }
        }
        out.flush()?;
    }
    match failures {
        0 => Ok(()),
        failures => Err(AnalyseError::Unreadable { failures }),
    }
}

/// `dojo eval`'s progress: `judged` after each position of the file is judged, `grading`
/// with the number of cases once, then `graded` after each is graded.
pub trait EvalProgress {
    fn judged(&mut self);
    fn grading(&mut self, cases: usize);
    fn graded(&mut self);
}

/// `dojo eval`: judges the positions file `text` (named `file` in errors) and grades
/// `player` on it, one grade per mover.
pub fn eval(
    spec: &GameSpec,
    player: &PlayerSpec,
    device: Device,
    (text, file): (&str, &str),
    movers: &[Mover],
    progress: &mut impl EvalProgress,
) -> Result<Vec<Grade>, AnalyseError> {
    let judged = judge_file(spec, text, file, || progress.judged())?;
    match judged {
        Judged::Connect4(start, cases) => eval_typed(start, spec, player, device, &cases, movers, progress),
        Judged::Gomoku(start, cases) => eval_typed(start, spec, player, device, &cases, movers, progress),
    }
}

fn eval_typed<G: Game + FromAnyGame>(
    start: G,
    spec: &GameSpec,
    player: &PlayerSpec,
    device: Device,
    cases: &[Case<G>],
    movers: &[Mover],
    progress: &mut impl EvalProgress,
) -> Result<Vec<Grade>, AnalyseError> {
    let mut agent = net_player(player, 0, device, Some((spec, &start)))?;
    let sims = match player {
        PlayerSpec::Net(net) => net.search.simulations,
        _ => 0,
    };
    progress.grading(cases.len());
    Ok(grade(cases, &mut agent, movers, sims, || progress.graded()))
}

/// Which positions `dojo positions` draws.
pub struct PositionsRequest {
    pub range: PositionRange,
    pub kind: PositionsKind,
}

pub enum PositionsKind {
    /// Random play's positions where the side to move cannot win at once (from these
    /// recorded games instead where any are named).
    Decisions { from_games: Vec<PathBuf> },
    /// Gomoku positions with a one-move tactic.
    Tactics { from_games: Vec<PathBuf> },
    /// Connect Four positions labelled by the solver in Pons' categories.
    Pons(DrawSettings),
}

/// The positions drawn: their text (one a line), and what a user should hear about them.
pub struct Positions {
    pub text: String,
    pub note: Option<String>,
}

/// `dojo positions`: distinct positions of `spec` as asked; `labelled` after each one
/// the solver labels (Pons' categories only).
pub fn positions(
    spec: &GameSpec,
    request: PositionsRequest,
    labelled: impl FnMut(),
) -> Result<Positions, AnalyseError> {
    let range = request.range;
    if range.min_moves > range.max_moves {
        return Err(AnalyseError::MoveRange { min: range.min_moves, max: range.max_moves });
    }
    let start = spec.start()?;
    match request.kind {
        PositionsKind::Pons(settings) => {
            let AnyGame::Connect4(start) = start else { return Err(AnalyseError::PonsGame { spec: spec.clone() }) };
            if settings.count == 0 || settings.per_category == Some(0) {
                return Err(AnalyseError::NoPositions);
            }
            let mut labelled = labelled;
            let drawn: Drawn = draw_positions(&start, &settings, |_| labelled());
            Ok(Positions { text: labelled_text(&drawn.positions), note: Some(drawn.summary()) })
        }
        PositionsKind::Tactics { from_games } => {
            let AnyGame::Gomoku(start) = start else { return Err(AnalyseError::TacticsGame { spec: spec.clone() }) };
            unlabelled(start, range, &from_games, |g| g.tactic().is_some())
        }
        PositionsKind::Decisions { from_games } => {
            with_game!(start, g => unlabelled(g, range, &from_games, no_immediate_win))
        }
    }
}

fn unlabelled<G: Game>(
    start: G,
    range: PositionRange,
    from_games: &[PathBuf],
    keep: impl Fn(&G) -> bool,
) -> Result<Positions, AnalyseError> {
    let (lines, note) = if from_games.is_empty() {
        (random_positions(&start, range, keep)?, None)
    } else {
        let lines = positions_from_games(&start, from_games, range, keep)?;
        let short = (lines.len() < range.count).then(|| {
            let (found, min, max) = (lines.len(), range.min_moves, range.max_moves);
            format!("found only {found} distinct positions with {min}..={max} moves\n")
        });
        (lines, short)
    };
    Ok(Positions { text: lines.iter().map(|line| format!("{line}\n")).collect(), note })
}
