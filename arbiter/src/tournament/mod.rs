//! Tournaments: every pairing of a set of players (round-robin), or every player against
//! one reference (gauntlet), in game pairs from shared random openings, rated together by
//! maximum likelihood ([`standings`]) and drawn as rating against training step ([`plot`]).
//! One-player games (2048, 2584) have no pairings: every player plays the same games alone
//! and players are ranked by mean score. Both are one [`Tournament`], generic over the
//! contest; what differs is in [`contest`].
//!
//! A tournament lives in a folder of its own (`RUN/tournaments/NAME/`):
//!
//! ```text
//! tournament.json   what it is: game, format, openings, seed, games per pairing, players
//! results.jsonl     one line per finished game (the record: players, result, moves, why;
//!                   one-player: player, game, score, max tile, moves)
//! games/            every game as text: players, result, moves and the final board
//! ratings.json      the fit: each player's rating, 95% interval, games and score
//! ratings.png       rating against training step, fixed references as horizontal lines
//! scores.json       one-player standings instead: mean score, 95% interval, reach rates
//! scores.png        mean score against training step, like ratings.png
//! ```
//!
//! Every game depends only on the tournament's seed, its two players' names and its number
//! in their pairing (one-player: its number alone), never on which thread played it or
//! when. So a tournament killed at any moment resumes by reading `results.jsonl` and
//! playing only the games not in it, and one extended with new players (new checkpoints of
//! a run) plays only the new pairings (one-player: the new players' games).

pub mod contest;
mod error;
pub mod gauntlet;
pub mod plot;
pub mod results;
pub mod selection;
pub mod session;
pub mod standings;
#[cfg(test)]
mod test_games;

pub use contest::{game_seed, TournamentContest};
pub use error::TournamentError;
pub use results::{GameKey, GameLine, OnePlayerKey, ScoreLine};

use crate::matches::play_game;
use crate::openings::{Opening, Openings};
use crate::players::{BaselinePlayers, PlayerSpec, PlayerSpecError};
use dojo_base::rng::Rng;
use dojo_game::GameSpec;
use dojo_run::journal;
use dojo_search::player::Agent;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// One player of a tournament.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entrant {
    /// Unique in the tournament: `v120` for a run's version 120, else the spec.
    pub name: String,
    /// The player spec (see [`PlayerSpec`]).
    pub spec: String,
    /// For a checkpoint: its version and training step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
}

/// Who plays whom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every pairing of players.
    RoundRobin,
    /// Every other player against each reference (by name), and no one else: references do
    /// not play each other. One reference is written as a name, several as a list (older
    /// tournaments had one).
    Gauntlet {
        #[serde(with = "one_or_more")]
        reference: Vec<String>,
    },
}

/// A list written as its one element where it has one: `"mcts:1000"`, else `["a", "b"]`.
mod one_or_more {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMore {
        One(String),
        More(Vec<String>),
    }

    pub(super) fn serialize<S: Serializer>(list: &[String], s: S) -> Result<S::Ok, S::Error> {
        match list {
            [one] => one.serialize(s),
            more => more.serialize(s),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        Ok(match OneOrMore::deserialize(d)? {
            OneOrMore::One(one) => vec![one],
            OneOrMore::More(more) => more,
        })
    }
}

/// What a tournament is (`tournament.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentSpec {
    pub game: String,
    /// One-player games: always round-robin (there are no pairings: see [`contest`]).
    pub format: Format,
    /// Games per pairing, in pairs from one opening (each side moving first once); in a
    /// one-player tournament (2048, 2584), games per player.
    pub games_per_pair: u32,
    /// Random plies opening each pair of games; 0 in a one-player tournament (its games
    /// start from their own random tiles), and where `openings` are given.
    pub opening_plies: u32,
    /// A book of openings instead of random plies ([`Openings`]): pair `k` of every
    /// pairing opens with line `k` (cycling). Kept here, not by file name, so a resumed
    /// tournament plays from the same ones whatever became of the file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub openings: Vec<String>,
    pub seed: u64,
    /// External players' time per move (`pbrain:` and `saiblo:` players), in milliseconds;
    /// None: each kind's own default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_timeout_ms: Option<u64>,
    pub entrants: Vec<Entrant>,
}

impl TournamentSpec {
    /// Checks the spec can be played: an even number of games, two players or more, unique
    /// names, parseable specs, a reference that plays. A one-player game's tournament needs
    /// a game or more per player, one player or more, no gauntlet and no openings.
    pub fn validate(&self) -> Result<(), TournamentError> {
        if self.game_spec()?.is_one_player() {
            return self.validate_one_player();
        }
        if self.games_per_pair == 0 || !self.games_per_pair.is_multiple_of(2) {
            return Err(TournamentError::GamesPerPair { games: self.games_per_pair });
        }
        if self.entrants.len() < 2 {
            return Err(TournamentError::TooFewPlayers { players: self.entrants.len() });
        }
        let names = self.check_entrants()?;
        if let Format::Gauntlet { reference } = &self.format {
            if reference.is_empty() {
                return Err(TournamentError::NoReference);
            }
            let mut seen = HashSet::new();
            for r in reference {
                if !names.contains(r.as_str()) {
                    return Err(TournamentError::ReferenceNotPlaying { name: r.clone() });
                }
                if !seen.insert(r.as_str()) {
                    return Err(TournamentError::ReferenceTwice { name: r.clone() });
                }
            }
            if seen.len() == names.len() {
                return Err(TournamentError::OnlyReferences);
            }
        }
        self.check_openings()
    }

    /// The openings, where there is a book: not with random plies too, and each one legal.
    fn check_openings(&self) -> Result<(), TournamentError> {
        if self.openings.is_empty() {
            return Ok(());
        }
        if self.opening_plies != 0 {
            return Err(TournamentError::BookAndPlies { plies: self.opening_plies });
        }
        let game = self.game_spec()?;
        let probe = game
            .new_game(&mut Rng::seed_from_u64(0))
            .map_err(|error| TournamentError::GameStart { game: game.clone(), error })?;
        let book = self.book();
        dojo_game::with_game!(probe, g => book.check(&g))?;
        self.check_book_not_cycled()
    }

    /// A pairing of two deterministic players gets no more pairs than the book has lines
    /// ([`Openings::check_not_cycled`]).
    fn check_book_not_cycled(&self) -> Result<(), TournamentError> {
        let book = self.book();
        let specs = self.entrants.iter().map(|e| e.spec.parse()).collect::<Result<Vec<PlayerSpec>, _>>()?;
        for (i, j) in self.pairings() {
            let (a, b) = (&self.entrants[i].name, &self.entrants[j].name);
            book.check_not_cycled(self.games_per_pair, [(a, &specs[i]), (b, &specs[j])])?;
        }
        Ok(())
    }

    /// The book of openings (empty: random plies open the pairs).
    pub fn book(&self) -> Openings {
        Openings { lines: self.openings.clone() }
    }

    fn validate_one_player(&self) -> Result<(), TournamentError> {
        if self.games_per_pair == 0 {
            return Err(TournamentError::NoGames);
        }
        if self.entrants.is_empty() {
            return Err(TournamentError::NoPlayers);
        }
        if let Format::Gauntlet { .. } = self.format {
            return Err(TournamentError::OnePlayerGauntlet { game: self.game.clone() });
        }
        if self.opening_plies != 0 {
            return Err(TournamentError::OnePlayerPlies { game: self.game.clone(), plies: self.opening_plies });
        }
        if !self.openings.is_empty() {
            return Err(TournamentError::OnePlayerBook { game: self.game.clone() });
        }
        self.check_entrants().map(|_| ())
    }

    /// Unique names and parseable specs; the names.
    fn check_entrants(&self) -> Result<HashSet<&str>, TournamentError> {
        let mut names = HashSet::new();
        for e in &self.entrants {
            if !names.insert(e.name.as_str()) {
                return Err(TournamentError::Twice { name: e.name.clone() });
            }
            e.spec.parse::<PlayerSpec>()?;
        }
        Ok(names)
    }

    /// The run's checkpoints among the players whose file is gone (pruned by the run since
    /// they joined: a periodic tournament's newest version of the time, say). Their games
    /// stand and they keep their ratings, but they play no more. A player from outside the
    /// run whose file is missing is not one of them: building it fails, loudly.
    pub fn gone(&self) -> HashSet<String> {
        let missing = |e: &Entrant| match e.spec.parse::<PlayerSpec>() {
            Ok(PlayerSpec::Net(net)) => !net.path.exists(),
            _ => false,
        };
        self.entrants.iter().filter(|e| e.version.is_some() && missing(e)).map(|e| e.name.clone()).collect()
    }

    /// The tournament's game. A one-player game's (2048, 2584) is played by a
    /// `Tournament<OnePlayer>` and ranked by mean score ([`standings::ScoreStandings`]).
    pub fn game_spec(&self) -> Result<GameSpec, TournamentError> {
        self.game.parse().map_err(|error| TournamentError::Game { game: self.game.clone(), error })
    }

    /// The pairings (entrant indices; the first is A), in entrant order.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        let n = self.entrants.len();
        match &self.format {
            Format::RoundRobin => (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect(),
            Format::Gauntlet { reference } => {
                let index = |name: &String| self.entrants.iter().position(|e| &e.name == name).expect("validated");
                let refs: Vec<usize> = reference.iter().map(index).collect();
                (0..n)
                    .filter(|i| !refs.contains(i))
                    .flat_map(|i| refs.iter().map(move |&r| if i < r { (i, r) } else { (r, i) }))
                    .collect()
            }
        }
    }

    /// This tournament, extended by `more`: players not in it are added (after its own),
    /// and the games per pairing become `more`'s. Everything that decides the games already
    /// played (game, format, openings, seed) must be the same, and a name must keep its spec.
    pub fn extend(&self, more: &TournamentSpec) -> Result<TournamentSpec, TournamentError> {
        let differs = |what: &'static str, was: String, now: String| Err(TournamentError::Differs { what, was, now });
        if more.game != self.game {
            return differs("game", self.game.clone(), more.game.clone());
        }
        if more.format != self.format {
            return differs("format", format!("{:?}", self.format), format!("{:?}", more.format));
        }
        if more.opening_plies != self.opening_plies {
            return differs("opening plies", self.opening_plies.to_string(), more.opening_plies.to_string());
        }
        if more.seed != self.seed {
            return differs("seed", self.seed.to_string(), more.seed.to_string());
        }
        if more.openings != self.openings {
            return Err(TournamentError::OtherOpenings { was: self.openings.len(), now: more.openings.len() });
        }
        // The games played stand whatever the clock was; new ones get the clock asked for.
        let mut merged = TournamentSpec {
            games_per_pair: more.games_per_pair,
            move_timeout_ms: more.move_timeout_ms,
            ..self.clone()
        };
        for e in &more.entrants {
            match self.entrants.iter().find(|old| old.name == e.name) {
                Some(old) if old.spec != e.spec => {
                    return Err(TournamentError::Respecified {
                        name: e.name.clone(),
                        was: old.spec.clone(),
                        now: e.spec.clone(),
                    })
                }
                Some(_) => {}
                None => merged.entrants.push(e.clone()),
            }
        }
        Ok(merged)
    }
}

/// The files of a tournament.
#[derive(Clone, Debug)]
pub struct TournamentDir {
    pub root: PathBuf,
}

impl TournamentDir {
    pub fn new(root: impl Into<PathBuf>) -> TournamentDir {
        TournamentDir { root: root.into() }
    }
    pub fn spec(&self) -> PathBuf {
        self.root.join("tournament.json")
    }
    pub fn results(&self) -> PathBuf {
        self.root.join("results.jsonl")
    }
    pub fn games(&self) -> PathBuf {
        self.root.join("games")
    }
    pub fn ratings(&self) -> PathBuf {
        self.root.join("ratings.json")
    }
    pub fn plot(&self) -> PathBuf {
        self.root.join("ratings.png")
    }
    /// A one-player tournament's standings (mean scores), beside no `ratings.json`.
    pub fn scores(&self) -> PathBuf {
        self.root.join("scores.json")
    }
    /// A one-player tournament's plot (mean score against training step).
    pub fn score_plot(&self) -> PathBuf {
        self.root.join("scores.png")
    }
    fn lock(&self) -> PathBuf {
        self.root.join("tournament.lock")
    }

    pub fn read_spec(&self) -> Result<Option<TournamentSpec>, TournamentError> {
        match std::fs::read(self.spec()) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|error| TournamentError::Spec { path: self.spec(), error }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(TournamentError::io("read", self.spec())(e)),
        }
    }

    /// The finished games of a tournament of `contest`, each once (a game written twice
    /// counts once).
    pub fn read_results<C: TournamentContest>(&self, _contest: C) -> Result<Vec<C::Line>, TournamentError> {
        let mut seen = HashSet::new();
        let lines: Vec<C::Line> = journal::read(&self.results())?;
        Ok(lines.into_iter().filter(|l| seen.insert(C::key(l).clone())).collect())
    }
}

/// Validates `spec`, locks `dir` against a second process, and writes the spec it holds
/// now: `spec`, or the one there extended by it. A line of `results.jsonl` that a kill cut
/// short is ended, so the next game gets a line of its own.
fn open_folder(dir: &TournamentDir, spec: &TournamentSpec) -> Result<(TournamentSpec, std::fs::File), TournamentError> {
    spec.validate()?;
    std::fs::create_dir_all(dir.games()).map_err(TournamentError::io("create", dir.games()))?;
    let lock = journal::lock_exclusive(&dir.lock(), "another dojo tournament is playing this tournament")?;
    let spec = match dir.read_spec()? {
        Some(old) => old.extend(spec)?,
        None => spec.clone(),
    };
    let json = serde_json::to_vec_pretty(&spec).expect("a tournament spec serialises");
    dojo_base::util::atomic_write(&dir.spec(), &json).map_err(TournamentError::io("write", dir.spec()))?;
    journal::end_partial_line(&dir.results())?;
    Ok((spec, lock))
}

/// A tournament of `contest` opened for play: its folder locked against a second process,
/// its spec written, its finished games read.
pub struct Tournament<C: TournamentContest> {
    pub dir: TournamentDir,
    pub spec: TournamentSpec,
    pub results: Vec<C::Line>,
    /// The run's checkpoints no longer on disk ([`TournamentSpec::gone`]): no games are
    /// scheduled for them.
    pub gone: HashSet<String>,
    _lock: std::fs::File,
}

impl<C: TournamentContest> Tournament<C> {
    /// Creates the tournament `spec` in `dir`, or reopens the one there extended by it
    /// (see [`TournamentSpec::extend`]). Its game must be one of `contest`'s.
    pub fn open(contest: C, dir: TournamentDir, spec: &TournamentSpec) -> Result<Tournament<C>, TournamentError> {
        C::check_game(spec)?;
        let (spec, lock) = open_folder(&dir, spec)?;
        let results = dir.read_results(contest)?;
        let gone = spec.gone();
        Ok(Tournament { dir, spec, results, gone, _lock: lock })
    }

    /// Every game of the tournament, in the order they are played.
    pub fn schedule(&self) -> Vec<C::Key> {
        C::schedule(&self.spec)
    }

    /// The games of the schedule not played yet, but for those of a player that is gone.
    pub fn to_play(&self) -> Vec<C::Key> {
        let done: HashSet<&C::Key> = self.results.iter().map(C::key).collect();
        let playable = |k: &C::Key| C::players(k).iter().all(|p| !self.gone.contains(*p));
        self.schedule().into_iter().filter(|k| !done.contains(k) && playable(k)).collect()
    }

    /// Plays the games not played yet on `threads` threads, appending each to
    /// `results.jsonl` as it ends and telling `on_game`; stops between games once `cancel`
    /// is set. Returns every finished game, those of earlier sessions too.
    pub fn play(
        &mut self,
        threads: usize,
        cancel: &AtomicBool,
        on_game: &(dyn Fn(&C::Line) + Sync),
    ) -> Result<Vec<C::Line>, TournamentError> {
        let game = self.spec.game_spec()?;
        let probe = game.new_game(&mut Rng::seed_from_u64(0))?;
        let played = dojo_game::with_game!(probe, g => self.play_typed(g, &game, threads, cancel, on_game))?;
        self.results.extend(played);
        Ok(self.results.clone())
    }

    /// The standings after every finished game; ratings have `anchor` (a name) at its Elo.
    pub fn standings(&self, anchor: Option<(&str, f64)>) -> Result<C::Standings, TournamentError> {
        Ok(C::standings(&self.spec, &self.results, anchor)?)
    }

    fn play_typed<G: BaselinePlayers>(
        &self,
        _probe: G,
        game: &GameSpec,
        threads: usize,
        cancel: &AtomicBool,
        on_game: &(dyn Fn(&C::Line) + Sync),
    ) -> Result<Vec<C::Line>, TournamentError> {
        let keys = self.to_play();
        let specs: HashMap<&str, PlayerSpec> = self
            .spec
            .entrants
            .iter()
            .map(|e| Ok((e.name.as_str(), e.spec.parse::<PlayerSpec>()?.with_move_timeout(self.spec.move_timeout_ms))))
            .collect::<Result<_, PlayerSpecError>>()?;
        let results = self.dir.results();
        // Each thread builds a player the first time it needs it, and keeps it.
        play_keys(
            &keys,
            threads,
            cancel,
            &results,
            HashMap::new,
            |key, agents: &mut HashMap<String, Box<dyn Agent<G>>>| self.play_one(key, game, &specs, agents),
            on_game,
        )
    }

    /// Plays game `key` with the thread's players (`agents`, by name; built here the first
    /// time a player is needed), writes its text to `games/`, and returns its line.
    fn play_one<G: BaselinePlayers>(
        &self,
        key: &C::Key,
        game: &GameSpec,
        specs: &HashMap<&str, PlayerSpec>,
        agents: &mut HashMap<String, Box<dyn Agent<G>>>,
    ) -> Result<C::Line, TournamentError> {
        let started = std::time::Instant::now();
        let names = C::players(key);
        for &name in &names {
            if !agents.contains_key(name) {
                let spec = specs.get(name).ok_or_else(|| TournamentError::NotAPlayer { name: name.to_string() })?;
                let agent = G::baseline(spec, 0)
                    .map_err(|error| TournamentError::Player { name: name.to_string(), error: Box::new(error) })?;
                agents.insert(name.to_string(), agent);
            }
        }
        let mut rng = Rng::seed_from_u64(C::seed(&self.spec, key));
        let mut start = G::from_any(game.new_game(&mut rng)?).expect("every game of a spec has the probe's type");
        let before = start.clone();
        let book = (!self.spec.openings.is_empty()).then(|| self.spec.book());
        let opening = match &book {
            Some(book) => Opening::Book(book),
            None => Opening::Random(self.spec.opening_plies as usize),
        }
        .open(&mut start, C::start_number(key), &mut rng)?;
        let opening = before.moves_to_text(&opening);
        let first = C::first(key, &start);
        let mut players: Vec<Box<dyn Agent<G>>> =
            names.iter().map(|&name| agents.remove(name).expect("built above")).collect();
        let mut seats: Vec<&mut (dyn Agent<G> + 'static)> = players.iter_mut().map(|p| p.as_mut()).collect();
        seats.rotate_left(first);
        let played = play_game(start.clone(), &mut seats, &mut rng);
        for (name, player) in names.iter().zip(players) {
            agents.insert(name.to_string(), player);
        }
        let line = C::line(key, &played, first, opening, started.elapsed().as_secs_f64());
        let (name, text) = C::game_text(&self.spec, &line, &start, &played);
        let path = self.dir.games().join(format!("{name}.txt"));
        dojo_base::util::atomic_write(&path, text.as_bytes()).map_err(TournamentError::io("write", path.clone()))?;
        Ok(line)
    }
}

/// A name as a file name: letters, digits, `.`, `_` and `-` kept, anything else `_`; long
/// names (engine commands) cut, with a hash of the whole so two never share a file.
pub(crate) fn file_safe(name: &str) -> String {
    let safe: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || ".-_".contains(c) { c } else { '_' }).collect();
    if safe.len() <= 40 {
        return safe;
    }
    format!("{}_{:08x}", &safe[..32], fnv1a(name.as_bytes()) as u32)
}

/// 64-bit FNV-1a: stable across Rust versions and platforms (std's hasher is not).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The path of tournament `name` in the run at `run_root`.
pub fn tournament_dir(tournaments: &Path, name: &str) -> Result<TournamentDir, TournamentError> {
    if name.is_empty() || file_safe(name) != name {
        return Err(TournamentError::Name { name: name.to_string() });
    }
    Ok(TournamentDir::new(tournaments.join(name)))
}

/// Plays the games `keys` on `threads` threads, each with its own `state` (the players it
/// built, kept from game to game: a network is loaded once per thread, not once a game),
/// appending each finished game to the journal `results` before telling `on_game`. Stops
/// between games once `cancel` is set or a game fails (that error is returned); returns the
/// games played.
pub(crate) fn play_keys<K: Sync, S, L: Serialize + Send>(
    keys: &[K],
    threads: usize,
    cancel: &AtomicBool,
    results: &Path,
    new_state: impl Fn() -> S + Sync,
    play_one: impl Fn(&K, &mut S) -> Result<L, TournamentError> + Sync,
    on_game: &(dyn Fn(&L) + Sync),
) -> Result<Vec<L>, TournamentError> {
    let next = AtomicUsize::new(0);
    let played = Mutex::new(Vec::new());
    let error: Mutex<Option<TournamentError>> = Mutex::new(None);
    let stop = || cancel.load(Ordering::Relaxed) || error.lock().unwrap().is_some();
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, keys.len().max(1)) {
            scope.spawn(|| {
                let mut state = new_state();
                while !stop() {
                    let Some(key) = keys.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                    let line = play_one(key, &mut state).and_then(|line| {
                        journal::append(results, &line)?;
                        Ok(line)
                    });
                    match line {
                        Ok(line) => {
                            on_game(&line);
                            played.lock().unwrap().push(line);
                        }
                        Err(e) => {
                            *error.lock().unwrap() = Some(e);
                            break;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner().unwrap() {
        return Err(e);
    }
    Ok(played.into_inner().unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contest::{OnePlayer, TwoPlayer};
    use crate::tournament::test_games::spec_2048;

    /// Players known by their specs.
    fn names(specs: &[&str]) -> Vec<Entrant> {
        specs.iter().map(|n| entrant(n)).collect()
    }

    fn entrant(name: &str) -> Entrant {
        Entrant { name: name.into(), spec: name.into(), version: None, step: None }
    }

    fn spec(names: &[&str], format: Format, games: u32) -> TournamentSpec {
        TournamentSpec {
            game: "connect4".into(),
            format,
            games_per_pair: games,
            opening_plies: 2,
            openings: Vec::new(),
            seed: 9,
            move_timeout_ms: Some(100),
            entrants: names.iter().map(|n| entrant(n)).collect(),
        }
    }

    #[test]
    fn schedules_play_every_pairing_round_by_round() {
        let rr = spec(&["random", "mcts:10", "mcts:20"], Format::RoundRobin, 4);
        assert_eq!(rr.pairings(), vec![(0, 1), (0, 2), (1, 2)]);
        let s = TwoPlayer::schedule(&rr);
        assert_eq!(s.len(), 12);
        let first_round: Vec<(u32, &str, &str)> = s[..6].iter().map(|k| (k.game, &k.a[..], &k.b[..])).collect();
        assert_eq!(
            first_round,
            [
                (0, "random", "mcts:10"),
                (1, "random", "mcts:10"),
                (0, "random", "mcts:20"),
                (1, "random", "mcts:20"),
                (0, "mcts:10", "mcts:20"),
                (1, "mcts:10", "mcts:20")
            ]
        );
        assert!(s[6..].iter().all(|k| k.game >= 2));
        let g = spec(&["a", "mcts:5", "random"], Format::Gauntlet { reference: vec!["mcts:5".into()] }, 2);
        assert_eq!(g.pairings(), vec![(0, 1), (1, 2)]);
    }

    #[test]
    fn a_tournament_is_extended_by_new_players_but_not_changed_under_its_games() {
        let old = spec(&["random", "mcts:10"], Format::RoundRobin, 2);
        let more = spec(&["mcts:10", "mcts:20"], Format::RoundRobin, 4);
        let merged = old.extend(&more).unwrap();
        let names: Vec<&str> = merged.entrants.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["random", "mcts:10", "mcts:20"]);
        assert_eq!(merged.games_per_pair, 4);
        let err = old.extend(&TournamentSpec { seed: 10, ..old.clone() }).unwrap_err().to_string();
        assert!(err.starts_with("this tournament was started with seed 9, not 10"), "{err}");
        let mut renamed = old.clone();
        renamed.entrants[0].spec = "mcts:3".into();
        let err = old.extend(&renamed).unwrap_err().to_string();
        assert_eq!(err, "player random was random in this tournament, not mcts:3");
    }

    #[test]
    fn bad_tournaments_are_refused_with_the_reason() {
        for (bad, why) in [
            (spec(&["random", "mcts:10"], Format::RoundRobin, 3), "must be even"),
            (spec(&["random"], Format::RoundRobin, 2), "two players or more, not 1"),
            (spec(&["random", "random"], Format::RoundRobin, 2), "random is in the tournament twice"),
            (spec(&["random", "alphago"], Format::RoundRobin, 2), "bad player spec \"alphago\""),
            (spec(&["random", "mcts:9"], Format::Gauntlet { reference: vec!["x".into()] }, 2), "reference x is not"),
        ] {
            let err = bad.validate().unwrap_err().to_string();
            assert!(err.contains(why), "{err}");
        }
    }

    #[test]
    fn a_gauntlet_of_several_references_pairs_everyone_else_with_each() {
        let refs = vec!["mcts:1".to_string(), "mcts:2".to_string()];
        let g = spec(&["mcts:1", "random", "mcts:2", "uct:5"], Format::Gauntlet { reference: refs.clone() }, 2);
        g.validate().unwrap();
        assert_eq!(g.pairings(), vec![(0, 1), (1, 2), (0, 3), (2, 3)]);
        assert_eq!(TwoPlayer::schedule(&g).len(), 8);
        // One reference is written as a name, as before several were possible; both read back.
        let one = serde_json::to_string(&Format::Gauntlet { reference: vec!["mcts:5".into()] }).unwrap();
        assert_eq!(one, r#"{"gauntlet":{"reference":"mcts:5"}}"#);
        let two = serde_json::to_string(&Format::Gauntlet { reference: refs.clone() }).unwrap();
        assert_eq!(two, r#"{"gauntlet":{"reference":["mcts:1","mcts:2"]}}"#);
        for text in [one, two] {
            let back: Format = serde_json::from_str(&text).unwrap();
            assert_eq!(serde_json::to_string(&back).unwrap(), text);
        }
        let all = spec(&["mcts:1", "mcts:2"], Format::Gauntlet { reference: refs }, 2);
        assert!(all.validate().unwrap_err().to_string().starts_with("every player is a reference"));
    }

    #[test]
    fn a_book_of_openings_replaces_random_plies_and_stays_with_the_tournament() {
        let c4 = |openings: &[&str], plies| TournamentSpec {
            openings: openings.iter().map(|o| o.to_string()).collect(),
            opening_plies: plies,
            ..spec(&["random", "mcts:10"], Format::RoundRobin, 4)
        };
        c4(&["4 4", "3"], 0).validate().unwrap();
        let err = c4(&["4 4"], 2).validate().unwrap_err().to_string();
        assert!(err.starts_with("a tournament opens from a book of openings or with random plies, not both"), "{err}");
        let err = c4(&["4 9"], 0).validate().unwrap_err().to_string();
        assert!(err.starts_with("opening 1 (\"4 9\") is not a connect4:7x6 opening"), "{err}");
        // Two networks search without noise: a pairing of them may not cycle through the
        // book (4 games are 2 pairs; one line would be played twice), against mcts it may.
        let nets = TournamentSpec {
            entrants: names(&["net:a.safetensors", "net:b.safetensors", "mcts:10"]),
            ..c4(&["4 4"], 0)
        };
        let err = nets.validate().unwrap_err().to_string();
        assert!(
            err.starts_with("net:a.safetensors and net:b.safetensors are both deterministic")
                && err.contains("4 games are 2 pairs from a book of 1 openings")
                && err.ends_with("Ask for at most 2 games, or use a larger book"),
            "{err}"
        );
        TournamentSpec { openings: vec!["4 4".into(), "3".into()], ..nets.clone() }.validate().unwrap();
        let gauntlet = Format::Gauntlet { reference: vec!["mcts:10".into()] };
        TournamentSpec { format: gauntlet, ..nets }.validate().unwrap();
        let err = c4(&["4 4"], 0).extend(&c4(&["3", "2"], 0)).unwrap_err().to_string();
        assert!(
            err.starts_with("this tournament was started with another book of openings (1), not these 2 openings"),
            "{err}"
        );
        let err = c4(&[], 0).extend(&c4(&["3"], 0)).unwrap_err().to_string();
        assert!(err.starts_with("this tournament was started with random openings, not these 1 openings"), "{err}");
    }

    #[test]
    fn pair_seeds_depend_on_the_pairing_not_on_the_other_players() {
        use contest::pair_seed;
        assert_eq!(pair_seed(1, "a", "b", 0), pair_seed(1, "a", "b", 0));
        assert_ne!(pair_seed(1, "a", "b", 0), pair_seed(1, "a", "b", 1));
        assert_ne!(pair_seed(1, "a", "b", 0), pair_seed(1, "b", "a", 0));
        assert_ne!(pair_seed(1, "ab", "c", 0), pair_seed(1, "a", "bc", 0));
        assert_eq!(file_safe("mcts:200"), "mcts_200");
        let long = file_safe("pbrain:python3 /some/long/path/to/a/brain.py --with many --flags");
        assert_eq!(long.len(), 41);
        assert!(tournament_dir(Path::new("/t"), "a b").is_err());
        assert_eq!(tournament_dir(Path::new("/t"), "c4-2").unwrap().root, Path::new("/t/c4-2"));
    }

    #[test]
    fn a_one_player_tournament_plays_every_players_games_once_and_resumes_only_the_missing_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = TournamentDir::new(tmp.path().join("t"));
        let cancel = AtomicBool::new(false);
        let mut t =
            Tournament::open(OnePlayer, dir.clone(), &spec_2048(names(&["random", "mcts:5", "uct:5"]), 3)).unwrap();
        // Game by game: everyone's first game, then everyone's second...
        let order: Vec<u32> = t.schedule().iter().map(|k| k.game).collect();
        assert_eq!(order, [0, 0, 0, 1, 1, 1, 2, 2, 2]);
        let all = t.play(2, &cancel, &|_| {}).unwrap();
        assert_eq!(all.len(), 9);
        // mcts:N on 2048 is UCT with random rollouts: the same player as uct:N, so on the
        // same seeds it plays the same games.
        let score = |name: &str, game: u32| {
            all.iter().find(|l| l.key.player == name && l.key.game == game).map(|l| (l.score, l.moves)).unwrap()
        };
        for g in 0..3 {
            assert_eq!(score("mcts:5", g), score("uct:5", g));
        }
        assert!(all.iter().all(|l| l.forfeit.is_none() && l.moves > 0 && l.max_tile >= 4), "{all:?}");
        assert!(dir.games().join("uct_5--0002.txt").exists());
        drop(t);

        // Lines lost (a kill before they were written): only those are played again, the
        // same games as before.
        let text = std::fs::read_to_string(dir.results()).unwrap();
        let kept: Vec<&str> = text.lines().filter(|l| !l.contains("\"game\":1")).collect();
        std::fs::write(dir.results(), kept.join("\n") + "\n").unwrap();
        let mut t = Tournament::open(OnePlayer, dir.clone(), &spec_2048(names(&["random"]), 3)).unwrap();
        let missing: Vec<(String, u32)> = t.to_play().into_iter().map(|k| (k.player, k.game)).collect();
        assert_eq!(missing, [("random".into(), 1), ("mcts:5".into(), 1), ("uct:5".into(), 1)]);
        let replayed = Mutex::new(Vec::new());
        let again = t.play(1, &cancel, &|l| replayed.lock().unwrap().push(l.key.clone())).unwrap();
        assert_eq!(replayed.into_inner().unwrap().len(), 3);
        let strip = |mut v: Vec<ScoreLine>| {
            v.sort_by(|a, b| (&a.key.player, a.key.game).cmp(&(&b.key.player, b.key.game)));
            v.into_iter().map(|l| (l.key, l.score, l.max_tile, l.moves)).collect::<Vec<_>>()
        };
        assert_eq!(strip(again), strip(all));
    }

    #[test]
    fn one_player_tournaments_refuse_two_player_games_and_the_other_way_round() {
        let tmp = tempfile::tempdir().unwrap();
        let c4 =
            TournamentSpec { game: "connect4".into(), games_per_pair: 2, ..spec_2048(names(&["random", "mcts:5"]), 2) };
        let err = Tournament::open(OnePlayer, TournamentDir::new(tmp.path().join("a")), &c4).err().unwrap().to_string();
        assert_eq!(err, "connect4 is a two-player game: its tournament is a Tournament<TwoPlayer>");
        let err =
            Tournament::open(TwoPlayer, TournamentDir::new(tmp.path().join("b")), &spec_2048(names(&["random"]), 2))
                .err()
                .unwrap()
                .to_string();
        assert_eq!(err, "2048 is a one-player game: its tournament is a Tournament<OnePlayer>, ranked by mean score");
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
        assert_ne!(game_seed(1, 0), game_seed(2, 0));
    }
}
