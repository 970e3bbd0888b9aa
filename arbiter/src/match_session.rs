//! A match as a user asks for one (`dojo match`): the players checked against the game,
//! how each pair of games opens, the games played on threads, and the report rendered.
//! One- and two-player games take the same path; the game's contest decides the rest.

use crate::match_report::{forfeits, MatchReport, Rendered};
use crate::matches::{play_match, MakePlayer, MatchError, MatchPlan};
use crate::openings::{Openings, OpeningsError};
use crate::players::{check_player_for, BaselinePlayers, PlayerError, PlayerSpec};
use crate::with_contest;
use dojo_base::rng::Rng;
use dojo_game::with_game;
use dojo_game::{GameError, GameSpec};
use rand::SeedableRng;
use std::path::Path;
use std::sync::Mutex;

#[derive(Debug, thiserror::Error)]
pub enum MatchSessionError {
    #[error("--games must be at least 1")]
    NoGames,
    #[error("{family} is a one-player game: give only --a (--b {b} has no one to play against)")]
    OnePlayerOpponent { family: &'static str, b: Box<PlayerSpec> },
    #[error("{family} is a one-player game: its games start from their own random tiles (leave out --openings)")]
    OnePlayerOpenings { family: &'static str },
    #[error("{spec} is a two-player game: give the opponent with --b")]
    NoOpponent { spec: GameSpec },
    #[error(transparent)]
    Player(#[from] PlayerError),
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Openings(#[from] OpeningsError),
    #[error(transparent)]
    Match(#[from] MatchError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// A match: `a` against `b` (a one-player game: `a` alone).
pub struct MatchRequest<'a> {
    pub spec: GameSpec,
    pub a: PlayerSpec,
    pub b: Option<PlayerSpec>,
    pub games: u32,
    /// Random plies opening each pair (None: [`DETERMINISTIC_OPENING_PLIES`] where both
    /// players are deterministic and there is no book, else 0).
    pub opening_plies: Option<usize>,
    /// A book of openings: pair K opens with line K (cycling).
    pub openings: Option<&'a Path>,
    pub threads: usize,
    pub seed: u64,
    /// Render one JSON object; with every game's moves.
    pub json: bool,
    pub verbose: bool,
}

/// The match played: its report, and the games that were forfeited ("game N: why").
pub struct Played {
    pub rendered: Rendered,
    pub forfeits: Vec<String>,
}

/// Random plies opening each pair of games between two deterministic players, as gating and
/// tournaments open theirs.
pub const DETERMINISTIC_OPENING_PLIES: usize = 4;

impl MatchRequest<'_> {
    /// The players, checked against the game: `a`, and `b` in a two-player game.
    pub fn players(&self) -> Result<Vec<PlayerSpec>, MatchSessionError> {
        if self.games == 0 {
            return Err(MatchSessionError::NoGames);
        }
        check_player_for(&self.a, &self.spec)?;
        let family = self.spec.family();
        match &self.b {
            Some(b) if self.spec.is_one_player() => {
                Err(MatchSessionError::OnePlayerOpponent { family, b: Box::new(b.clone()) })
            }
            None if self.spec.is_one_player() && self.openings.is_some() => {
                Err(MatchSessionError::OnePlayerOpenings { family })
            }
            None if self.spec.is_one_player() => Ok(vec![self.a.clone()]),
            None => Err(MatchSessionError::NoOpponent { spec: self.spec.clone() }),
            Some(b) => {
                check_player_for(b, &self.spec)?;
                Ok(vec![self.a.clone(), b.clone()])
            }
        }
    }

    /// The random plies opening each pair of games, and whether they were chosen for the
    /// user (two deterministic players would otherwise replay two games).
    pub fn opening_plies(&self, players: &[PlayerSpec]) -> (usize, bool) {
        let [a, b] = players else { return (0, false) };
        match self.opening_plies {
            Some(plies) => (plies, false),
            None if self.openings.is_none() && a.is_deterministic() && b.is_deterministic() => {
                (DETERMINISTIC_OPENING_PLIES, true)
            }
            None => (0, false),
        }
    }
}

/// Plays the match of `players` ([`MatchRequest::players`]), `opening_plies` random plies
/// opening each pair, calling `on_game` with a progress message after each game.
pub fn play(
    request: &MatchRequest<'_>,
    players: &[PlayerSpec],
    opening_plies: usize,
    on_game: &(dyn Fn(String) + Sync),
) -> Result<Played, MatchSessionError> {
    let spec = &request.spec;
    let probe = spec.new_game(&mut Rng::seed_from_u64(request.seed))?;
    let book = request.openings.map(Openings::load).transpose()?;
    if let (Some(book), [a, b]) = (&book, players) {
        book.check_not_cycled(request.games, [(&a.to_string(), a), (&b.to_string(), b)])?;
    }
    let opening = (opening_plies, book.as_ref());
    with_contest!(spec, contest => with_game!(probe, g => play_typed(contest, g, request, players, opening, on_game)))
}

fn play_typed<C: MatchReport, G: BaselinePlayers>(
    contest: C,
    _probe: G,
    request: &MatchRequest<'_>,
    players: &[PlayerSpec],
    (opening_plies, openings): (usize, Option<&Openings>),
    on_game: &(dyn Fn(String) + Sync),
) -> Result<Played, MatchSessionError> {
    let spec = &request.spec;
    let plan = MatchPlan { opening_plies, openings, ..MatchPlan::new(request.games, request.threads, request.seed) };
    let played = Mutex::new(Vec::<C::Game>::new());
    let record = |g: &C::Game| {
        let mut played = played.lock().unwrap_or_else(|p| p.into_inner());
        played.push(g.clone());
        on_game(C::progress(&played));
    };
    let start = |rng: &mut Rng| {
        let any = spec.new_game(rng).expect("spec was checked by the probe game");
        G::from_any(any).expect("every game of a spec has the probe's type")
    };
    let makers: Vec<Box<MakePlayer<'_, G>>> =
        players.iter().map(|p| Box::new(move |s| G::baseline(p, s)) as Box<MakePlayer<'_, G>>).collect();
    let makers: Vec<&MakePlayer<'_, G>> = makers.iter().map(|m| m.as_ref()).collect();
    let result = play_match(contest, plan, &makers, start, &record)?;
    let mut played = played.into_inner().unwrap_or_else(|p| p.into_inner());
    played.sort_by_key(C::index);
    let forfeits = forfeits::<C>(&played);
    let rendered = C::render(result, &played, spec, request.json, request.verbose)?;
    Ok(Played { rendered, forfeits })
}
