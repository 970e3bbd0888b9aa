//! What a tournament is in each contest ([`crate::contest`]): which games it plays and in
//! what order, how each game is seeded and who moves first, its line in `results.jsonl`
//! and its text in `games/`, and the standings it adds up to. The tournament itself
//! (folder, lock, resuming, threads) is [`super::Tournament`]'s, the same for both.
//!
//! - Two players ([`TwoPlayer`]): every pairing plays games in pairs from one opening, each
//!   side moving first once; game `k` of a pairing depends only on the tournament's seed,
//!   the two players' names and `k / 2`. Standings are ratings.
//! - One player ([`OnePlayer`], 2048, 2584): there is no one to pair with, so every player
//!   plays the same games alone: game `i` of every player starts from one seed, derived
//!   from the tournament's seed and `i` alone, which draws the opening tiles, every later
//!   spawn and the player's own randomness. So a player's game `i` depends on nothing else
//!   (not its name, the other players, the thread, the session), identical players score
//!   identically, and differences between players are not differences of luck in which
//!   games they drew. Standings are mean scores.

use super::results::{GameKey, GameLine, OnePlayerKey, ScoreLine};
use super::standings::{score_standings, standings, Ranking, ScoreStandings, Standings, StandingsError};
use super::{file_safe, fnv1a, Format, TournamentDir, TournamentError, TournamentSpec};
use crate::contest::{OnePlayer, TwoPlayer};
use crate::matches::{MatchContest, Played};
use dojo_game::GameScore;
use dojo_game::{AnyGame, Game, Player, ToMove};
use dojo_record::score::score_of_position;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;
use std::hash::Hash;
use std::path::PathBuf;

/// What a tournament is in each contest (see the module's docs).
pub trait TournamentContest: MatchContest {
    /// A game of the tournament: whose, and which of theirs.
    type Key: Clone + Debug + Eq + Hash + Serialize + DeserializeOwned + Send + Sync;
    /// One line of `results.jsonl`: a finished game.
    type Line: Clone + Debug + Serialize + DeserializeOwned + Send + Sync;
    /// What the games add up to.
    type Standings: Ranking;

    /// Why `spec` is not a tournament of this contest (its game is of the other kind).
    fn check_game(spec: &TournamentSpec) -> Result<(), TournamentError>;
    /// Every game, in the order they are played: everyone's first ones first, so a
    /// tournament cut short has measured everyone evenly.
    fn schedule(spec: &TournamentSpec) -> Vec<Self::Key>;
    /// The game a line is of.
    fn key(line: &Self::Line) -> &Self::Key;
    /// The players of a game, by name.
    fn players(key: &Self::Key) -> Vec<&str>;
    /// The seed of a game: its start, its opening, its chance events and its players'
    /// randomness all come from it.
    fn seed(spec: &TournamentSpec, key: &Self::Key) -> u64;
    /// The number of a game's start: games from one start open alike (line `k` of a book).
    fn start_number(key: &Self::Key) -> u32;
    /// Which of [`Self::players`] moves first from `start` (after the opening); the others
    /// follow in turn.
    fn first<G: Game>(key: &Self::Key, start: &G) -> usize;
    /// A game's line: `played` with [`Self::players`]`[first]` moving first, after the
    /// moves `opening` (text), in `seconds`.
    fn line<G: Game + Into<AnyGame>>(
        key: &Self::Key,
        played: &Played<G>,
        first: usize,
        opening: String,
        seconds: f64,
    ) -> Self::Line;
    /// `games/NAME.txt`, the game for people to read: its file's name and its text.
    fn game_text<G: Game>(spec: &TournamentSpec, line: &Self::Line, start: &G, played: &Played<G>) -> (String, String);
    /// The games of `spec` in words, after its player count: "6 pairings, 4 games per
    /// pairing".
    fn describe_games(spec: &TournamentSpec) -> String;
    /// A finished game in a few words, for progress lines: "a vs b #3: a won".
    fn describe(line: &Self::Line) -> String;
    /// What to say at once of a forfeit, where it is said as it happens.
    fn forfeit_note(line: &Self::Line) -> Option<String>;
    /// Where the standings go: their JSON file and their plot.
    fn standings_files(dir: &TournamentDir) -> (PathBuf, PathBuf);
    /// The standings of `spec`'s players after `results`; ratings have `anchor` (a name)
    /// rated at its Elo.
    fn standings(
        spec: &TournamentSpec,
        results: &[Self::Line],
        anchor: Option<(&str, f64)>,
    ) -> Result<Self::Standings, StandingsError>;
}

impl TournamentContest for TwoPlayer {
    type Key = GameKey;
    type Line = GameLine;
    type Standings = Standings;

    fn check_game(spec: &TournamentSpec) -> Result<(), TournamentError> {
        if spec.game_spec()?.is_one_player() {
            return Err(TournamentError::NotTwoPlayer { game: spec.game.clone() });
        }
        Ok(())
    }

    /// Round by round: each pairing's first pair of games, then each one's second...
    fn schedule(spec: &TournamentSpec) -> Vec<GameKey> {
        let pairings = spec.pairings();
        let mut keys = Vec::new();
        for round in 0..spec.games_per_pair / 2 {
            for &(a, b) in &pairings {
                for game in [2 * round, 2 * round + 1] {
                    keys.push(GameKey { a: spec.entrants[a].name.clone(), b: spec.entrants[b].name.clone(), game });
                }
            }
        }
        keys
    }

    fn key(line: &GameLine) -> &GameKey {
        &line.key
    }

    fn players(key: &GameKey) -> Vec<&str> {
        vec![&key.a, &key.b]
    }

    /// Both games of a pair draw the same opening and the same players' seeds.
    fn seed(spec: &TournamentSpec, key: &GameKey) -> u64 {
        pair_seed(spec.seed, &key.a, &key.b, key.game / 2)
    }

    fn start_number(key: &GameKey) -> u32 {
        key.game / 2
    }

    /// "First" is whoever moves first after the opening: A in the even games.
    fn first<G: Game>(key: &GameKey, start: &G) -> usize {
        let to_move_first = match start.to_move() {
            ToMove::Player(p) => p,
            ToMove::Chance => Player::First,
        };
        let a_side = if key.game.is_multiple_of(2) { to_move_first } else { to_move_first.other() };
        if a_side == Player::First {
            0
        } else {
            1
        }
    }

    fn line<G: Game + Into<AnyGame>>(
        key: &GameKey,
        played: &Played<G>,
        first: usize,
        opening: String,
        seconds: f64,
    ) -> GameLine {
        let a_side = if first == 0 { Player::First } else { Player::Second };
        GameLine {
            key: key.clone(),
            a_first: key.game.is_multiple_of(2),
            result: played.value_for(a_side),
            forfeit: played.forfeit.clone(),
            opening,
            moves: played.end.moves_to_text(&played.moves),
            seconds,
            unix_ms: dojo_base::util::now_unix_ms(),
        }
    }

    fn game_text<G: Game>(spec: &TournamentSpec, line: &GameLine, start: &G, played: &Played<G>) -> (String, String) {
        let GameKey { a, b, game } = &line.key;
        let (first, second) = if line.a_first { (a, b) } else { (b, a) };
        let result = match line.result {
            1 => format!("{a} wins"),
            -1 => format!("{b} wins"),
            _ => "draw".to_string(),
        };
        let mut text = format!(
            "game:     {}\nplayers:  {a} vs {b}, game {} of their pairing\nfirst:    {first} (after the opening), then {second}\nresult:   {result}\n",
            spec.game,
            game + 1
        );
        if let Some(why) = &line.forfeit {
            text.push_str(&format!("forfeit:  {why}\n"));
        }
        text.push_str(&format!(
            "opening:  {}\nmoves:    {}\nseconds:  {:.1}\n\nstart:\n{}\nend:\n{}\n",
            line.opening,
            line.moves,
            line.seconds,
            start.render(),
            played.end.render()
        ));
        (format!("{}--{}--{game:04}", file_safe(a), file_safe(b)), text)
    }

    fn describe_games(spec: &TournamentSpec) -> String {
        format!("{} pairings, {} games per pairing", spec.pairings().len(), spec.games_per_pair)
    }

    fn describe(line: &GameLine) -> String {
        let k = &line.key;
        let result = match line.result {
            1 => format!("{} won", k.a),
            -1 => format!("{} won", k.b),
            _ => "draw".to_string(),
        };
        format!("{} vs {} #{}: {result}", k.a, k.b, k.game + 1)
    }

    /// A two-player forfeit is counted in the standings (the forfeits column).
    fn forfeit_note(_line: &GameLine) -> Option<String> {
        None
    }

    fn standings_files(dir: &TournamentDir) -> (PathBuf, PathBuf) {
        (dir.ratings(), dir.plot())
    }

    fn standings(
        spec: &TournamentSpec,
        results: &[GameLine],
        anchor: Option<(&str, f64)>,
    ) -> Result<Standings, StandingsError> {
        let (anchor, anchor_elo) = anchor.ok_or(StandingsError::NoAnchor)?;
        let rated = standings(&spec.game, &spec.entrants, results, anchor, anchor_elo)?;
        Ok(match &spec.format {
            Format::Gauntlet { reference } => rated.with_gauntlet(&spec.entrants, reference, results),
            Format::RoundRobin => rated,
        })
    }
}

/// The seed of the `pair`-th pair of games between `a` and `b`: from names, so a pairing
/// plays the same games whichever other players the tournament has.
pub(crate) fn pair_seed(seed: u64, a: &str, b: &str, pair: u32) -> u64 {
    let mut bytes = Vec::with_capacity(a.len() + b.len() + 16);
    bytes.extend_from_slice(&seed.to_le_bytes());
    bytes.extend_from_slice(a.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(b.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(&pair.to_le_bytes());
    fnv1a(&bytes)
}

/// The seed of game `game` of every player of a one-player tournament seeded `seed`.
pub fn game_seed(seed: u64, game: u32) -> u64 {
    let mut bytes = Vec::with_capacity(20);
    bytes.extend_from_slice(&seed.to_le_bytes());
    // Not a pairing's seed (those hash names in between).
    bytes.extend_from_slice(b"solo");
    bytes.extend_from_slice(&game.to_le_bytes());
    fnv1a(&bytes)
}

impl TournamentContest for OnePlayer {
    type Key = OnePlayerKey;
    type Line = ScoreLine;
    type Standings = ScoreStandings;

    fn check_game(spec: &TournamentSpec) -> Result<(), TournamentError> {
        if !spec.game_spec()?.is_one_player() {
            return Err(TournamentError::NotOnePlayer { game: spec.game.clone() });
        }
        Ok(())
    }

    /// Game by game: every player's first game, then every player's second...
    fn schedule(spec: &TournamentSpec) -> Vec<OnePlayerKey> {
        (0..spec.games_per_pair)
            .flat_map(|game| spec.entrants.iter().map(move |e| OnePlayerKey { player: e.name.clone(), game }))
            .collect()
    }

    fn key(line: &ScoreLine) -> &OnePlayerKey {
        &line.key
    }

    fn players(key: &OnePlayerKey) -> Vec<&str> {
        vec![&key.player]
    }

    fn seed(spec: &TournamentSpec, key: &OnePlayerKey) -> u64 {
        game_seed(spec.seed, key.game)
    }

    fn start_number(key: &OnePlayerKey) -> u32 {
        key.game
    }

    fn first<G: Game>(_key: &OnePlayerKey, _start: &G) -> usize {
        0
    }

    fn line<G: Game + Into<AnyGame>>(
        key: &OnePlayerKey,
        played: &Played<G>,
        _first: usize,
        _opening: String,
        seconds: f64,
    ) -> ScoreLine {
        // A tournament of this contest is of a one-player game, whose positions have a score.
        let end = score_of_position(&played.end.clone().into()).unwrap_or(GameScore { score: 0, max_tile: 0 });
        ScoreLine {
            key: key.clone(),
            score: end.score,
            max_tile: end.max_tile,
            moves: played.moves.len() as u32,
            forfeit: played.forfeit.clone(),
            seconds,
            unix_ms: dojo_base::util::now_unix_ms(),
        }
    }

    fn game_text<G: Game>(spec: &TournamentSpec, line: &ScoreLine, start: &G, played: &Played<G>) -> (String, String) {
        let OnePlayerKey { player, game } = &line.key;
        let mut text = format!(
            "game:     {} (game {} of every player, seed {})\nplayer:   {player}\nscore:    {}\nmax tile: {}\n",
            spec.game,
            game + 1,
            game_seed(spec.seed, *game),
            line.score,
            line.max_tile
        );
        if let Some(why) = &line.forfeit {
            text.push_str(&format!("forfeit:  {why}\n"));
        }
        text.push_str(&format!(
            "moves:    {} ({})\nseconds:  {:.1}\n\nstart:\n{}\nend:\n{}\n",
            line.moves,
            played.end.moves_to_text(&played.moves),
            line.seconds,
            start.render(),
            played.end.render()
        ));
        (format!("{}--{game:04}", file_safe(player)), text)
    }

    fn describe_games(spec: &TournamentSpec) -> String {
        format!("{} games each on the same seeds", spec.games_per_pair)
    }

    fn describe(line: &ScoreLine) -> String {
        format!("{} #{}: score {}", line.key.player, line.key.game + 1, line.score)
    }

    fn forfeit_note(line: &ScoreLine) -> Option<String> {
        let why = line.forfeit.as_ref()?;
        Some(format!("forfeit: {} game {}: {why}", line.key.player, line.key.game + 1))
    }

    fn standings_files(dir: &TournamentDir) -> (PathBuf, PathBuf) {
        (dir.scores(), dir.score_plot())
    }

    /// Mean scores: no anchor.
    fn standings(
        spec: &TournamentSpec,
        results: &[ScoreLine],
        _anchor: Option<(&str, f64)>,
    ) -> Result<ScoreStandings, StandingsError> {
        score_standings(spec, results)
    }
}
