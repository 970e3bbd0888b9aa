//! One-player tournaments (2048, 2584): there is no one to pair with, so every player plays
//! the same games alone and players are compared by their scores ([`super::scores`]).
//!
//! "The same games": game `i` of every player starts from one seed, derived from the
//! tournament's seed and `i` alone, which draws the opening tiles, every later spawn and
//! the player's own randomness. So a player's game `i` depends on nothing else (not its
//! name, the other players, the thread, the session), identical players score identically,
//! and differences between players are not differences of luck in which games they drew.
//! A killed tournament resumes by playing only the (player, game) pairs missing from
//! `results.jsonl`, and a new player (a new checkpoint) plays only its own games.

use super::{file_safe, fnv1a, open_folder, play_keys, TournamentDir, TournamentSpec};
use crate::players::{BaselinePlayers, PlayerSpec};
use dojo_core::game::sliding::{Rules, Rules2048, Rules2584, Sliding};
use dojo_core::game::{FromAnyGame, Game, GameSpec, ToMove};
use dojo_core::rng::Rng;
use dojo_core::search::player::Agent;
use dojo_run::journal;
use rand::{Rng as _, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;

/// A game of a one-player tournament: `player`'s game number `game`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SoloKey {
    pub player: String,
    pub game: u32,
}

/// One line of a one-player tournament's `results.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScoreLine {
    #[serde(flatten)]
    pub key: SoloKey,
    pub score: u64,
    /// The largest tile at the end (a face value: 2048, 2584...).
    pub max_tile: u32,
    /// Player moves made (the moves themselves are in `games/`).
    pub moves: u32,
    /// Why the player stopped before the game was over (it failed to move); the score is
    /// the one it had then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<String>,
    pub seconds: f64,
    pub unix_ms: u64,
}

/// The seed of game `game` of every player of a tournament seeded `seed`.
pub fn game_seed(seed: u64, game: u32) -> u64 {
    let mut bytes = Vec::with_capacity(20);
    bytes.extend_from_slice(&seed.to_le_bytes());
    // Not a pairing's seed (those hash names in between).
    bytes.extend_from_slice(b"solo");
    bytes.extend_from_slice(&game.to_le_bytes());
    fnv1a(&bytes)
}

/// The finished games in `dir`, each once (a game written twice counts once).
pub fn read_score_lines(dir: &TournamentDir) -> Result<Vec<ScoreLine>, String> {
    let mut seen = HashSet::new();
    let lines: Vec<ScoreLine> = journal::read(&dir.results()).map_err(|e| e.to_string())?;
    Ok(lines.into_iter().filter(|l| seen.insert(l.key.clone())).collect())
}

/// A one-player tournament opened for play: its folder locked, its spec written, its
/// finished games read.
pub struct SoloTournament {
    pub dir: TournamentDir,
    pub spec: TournamentSpec,
    pub results: Vec<ScoreLine>,
    _lock: std::fs::File,
}

impl SoloTournament {
    /// Creates the one-player tournament `spec` in `dir`, or reopens the one there
    /// extended by it (see [`TournamentSpec::extend`]).
    pub fn open(dir: TournamentDir, spec: &TournamentSpec) -> Result<SoloTournament, String> {
        if !spec.is_one_player()? {
            return Err(format!("{} is a two-player game: its tournament is a Tournament", spec.game));
        }
        let (spec, lock) = open_folder(&dir, spec)?;
        let results = read_score_lines(&dir)?;
        Ok(SoloTournament { dir, spec, results, _lock: lock })
    }

    /// Every game of the tournament, game by game (every player's first game, then every
    /// player's second...), so a tournament cut short has measured everyone on the same
    /// games.
    pub fn schedule(&self) -> Vec<SoloKey> {
        (0..self.spec.games_per_pair)
            .flat_map(|game| self.spec.entrants.iter().map(move |e| SoloKey { player: e.name.clone(), game }))
            .collect()
    }

    /// The games of the schedule not played yet.
    pub fn to_play(&self) -> Vec<SoloKey> {
        let done: HashSet<&SoloKey> = self.results.iter().map(|r| &r.key).collect();
        self.schedule().into_iter().filter(|k| !done.contains(k)).collect()
    }

    /// Plays the games not played yet on `threads` threads, appending each to
    /// `results.jsonl` as it ends and telling `on_game`; stops between games once `cancel`
    /// is set. Returns every finished game, those of earlier sessions too.
    pub fn play(
        &mut self,
        threads: usize,
        cancel: &AtomicBool,
        on_game: &(dyn Fn(&ScoreLine) + Sync),
    ) -> Result<Vec<ScoreLine>, String> {
        let game: GameSpec = self.spec.game.parse().map_err(|e| format!("{e}"))?;
        let played = match game {
            GameSpec::Twenty48 => self.play_typed::<Rules2048>(&game, threads, cancel, on_game)?,
            GameSpec::Fib2584 { .. } => self.play_typed::<Rules2584>(&game, threads, cancel, on_game)?,
            _ => return Err(format!("{game} is not a one-player game this arbiter can play")),
        };
        self.results.extend(played);
        Ok(self.results.clone())
    }

    fn play_typed<R: Rules>(
        &self,
        game: &GameSpec,
        threads: usize,
        cancel: &AtomicBool,
        on_game: &(dyn Fn(&ScoreLine) + Sync),
    ) -> Result<Vec<ScoreLine>, String>
    where
        Sliding<R>: BaselinePlayers,
    {
        let keys = self.to_play();
        let specs: HashMap<&str, PlayerSpec> = self
            .spec
            .entrants
            .iter()
            .map(|e| Ok((e.name.as_str(), e.spec.parse::<PlayerSpec>()?)))
            .collect::<Result<_, String>>()?;
        let results = self.dir.results();
        play_keys(
            &keys,
            threads,
            cancel,
            &results,
            HashMap::new,
            |key, agents: &mut HashMap<String, Box<dyn Agent<Sliding<R>>>>| self.play_one(key, game, &specs, agents),
            on_game,
        )
    }

    fn play_one<R: Rules>(
        &self,
        key: &SoloKey,
        game: &GameSpec,
        specs: &HashMap<&str, PlayerSpec>,
        agents: &mut HashMap<String, Box<dyn Agent<Sliding<R>>>>,
    ) -> Result<ScoreLine, String>
    where
        Sliding<R>: BaselinePlayers,
    {
        let started = std::time::Instant::now();
        if !agents.contains_key(&key.player) {
            let spec = specs.get(key.player.as_str()).ok_or_else(|| format!("{} is not a player", key.player))?;
            let agent = Sliding::<R>::baseline(spec, 0).map_err(|e| format!("{}: {e}", key.player))?;
            agents.insert(key.player.clone(), agent);
        }
        let agent = agents.get_mut(&key.player).expect("built above");
        let mut rng = Rng::seed_from_u64(game_seed(self.spec.seed, key.game));
        let start = Sliding::<R>::from_any(game.new_game(&mut rng).map_err(|e| e.to_string())?)
            .expect("every game of a spec has its type");
        let (end, moves, forfeit) = play_alone(start, agent.as_mut(), &mut rng);
        let line = ScoreLine {
            key: key.clone(),
            score: end.score(),
            max_tile: end.max_tile(),
            moves: moves.len() as u32,
            forfeit,
            seconds: started.elapsed().as_secs_f64(),
            unix_ms: dojo_core::util::now_unix_ms(),
        };
        self.write_game_text(&line, &start, &end, &moves)?;
        Ok(line)
    }

    /// `games/NAME--N.txt`: the game for people to read.
    fn write_game_text<R: Rules>(
        &self,
        line: &ScoreLine,
        start: &Sliding<R>,
        end: &Sliding<R>,
        moves: &[dojo_core::game::Action],
    ) -> Result<(), String> {
        let SoloKey { player, game } = &line.key;
        let mut text = format!(
            "game:     {} (game {} of every player, seed {})\nplayer:   {player}\nscore:    {}\nmax tile: {}\n",
            self.spec.game,
            game + 1,
            game_seed(self.spec.seed, *game),
            line.score,
            line.max_tile
        );
        if let Some(why) = &line.forfeit {
            text.push_str(&format!("forfeit:  {why}\n"));
        }
        text.push_str(&format!(
            "moves:    {} ({})\nseconds:  {:.1}\n\nstart:\n{}\nend:\n{}\n",
            line.moves,
            end.moves_to_text(moves),
            line.seconds,
            start.render(),
            end.render()
        ));
        let path = self.dir.games().join(format!("{}--{game:04}.txt", file_safe(player)));
        dojo_core::util::atomic_write(&path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

/// Plays `game` to its end with `agent`, the spawns and the agent's seed drawn from `rng`
/// (as [`crate::matches::play_solo`] does for a match's games, which are a contiguous run
/// played by fresh players; a tournament plays any of its games with players it keeps).
/// The end, the moves, and why the agent stopped early if it did (it failed to move, or
/// chose an illegal move).
fn play_alone<R: Rules>(
    mut game: Sliding<R>,
    agent: &mut dyn Agent<Sliding<R>>,
    rng: &mut Rng,
) -> (Sliding<R>, Vec<dojo_core::game::Action>, Option<String>) {
    agent.new_game(rng.next_u64());
    let mut moves = Vec::new();
    while game.outcome().is_none() {
        if game.to_move() == ToMove::Chance {
            game.sample_chance(rng);
            continue;
        }
        let chosen = agent.try_select_move(&game).map_err(|e| e.to_string()).and_then(|action| {
            game.play(action).map_err(|e| format!("illegal move {}: {e}", game.action_to_text(action)))?;
            Ok(action)
        });
        match chosen {
            Ok(action) => moves.push(action),
            Err(why) => return (game, moves, Some(format!("{} forfeits: {why}", agent.name()))),
        }
    }
    (game, moves, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::{Entrant, Format};
    use std::sync::Mutex;

    fn spec(names: &[&str], games: u32) -> TournamentSpec {
        TournamentSpec {
            game: "2048".into(),
            format: Format::RoundRobin,
            games_per_pair: games,
            opening_plies: 0,
            openings: Vec::new(),
            seed: 3,
            move_timeout_ms: 100,
            entrants: names
                .iter()
                .map(|n| Entrant { name: n.to_string(), spec: n.to_string(), version: None, step: None })
                .collect(),
        }
    }

    #[test]
    fn a_solo_tournament_plays_every_players_games_once_and_resumes_only_the_missing_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = TournamentDir::new(tmp.path().join("t"));
        let cancel = AtomicBool::new(false);
        let mut t = SoloTournament::open(dir.clone(), &spec(&["random", "mcts:5", "uct:5"], 3)).unwrap();
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
        let mut t = SoloTournament::open(dir.clone(), &spec(&["random"], 3)).unwrap();
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
    fn solo_tournaments_refuse_two_player_games_and_the_other_way_round() {
        let tmp = tempfile::tempdir().unwrap();
        let c4 = TournamentSpec { game: "connect4".into(), games_per_pair: 2, ..spec(&["random", "mcts:5"], 2) };
        let err = SoloTournament::open(TournamentDir::new(tmp.path().join("a")), &c4).err().unwrap();
        assert_eq!(err, "connect4 is a two-player game: its tournament is a Tournament");
        let err = crate::tournament::Tournament::open(TournamentDir::new(tmp.path().join("b")), &spec(&["random"], 2))
            .err()
            .unwrap();
        assert_eq!(err, "2048 is a one-player game: its tournament is a SoloTournament, ranked by mean score");
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
        assert_ne!(game_seed(1, 0), game_seed(2, 0));
    }
}
