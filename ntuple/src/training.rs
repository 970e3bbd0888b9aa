//! A training session, as `dojo ntuple train` runs it: the network to go on with (the
//! weight file's when it exists and is for this game, else a new one), then episodes in
//! blocks that end on multiples of the report interval (counted over the file's whole
//! life, so a resumed file reports where an unbroken one would), each block reported and
//! saved (atomically). A stop between episodes ends the block early and saves it. Weights
//! that diverged are never saved over the last good ones.
//!
//! One concept with `dojo_program::training` (`dojo train`'s session): a training session
//! as a command runs it, for n-tuple networks here.

use super::layout::LayoutError;
use super::weight_file::{load, read_header, save};
use super::{Layout, Method, Network, NtupleError, Trainer, TupleRules};
use dojo_base::rng::Rng;
use dojo_game::GameScore;
use dojo_game::GameSpec;
use dojo_record::score::ScoreReport;
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    File(#[from] NtupleError),
    #[error(transparent)]
    Layout(#[from] LayoutError),
    #[error("{} holds n-tuple weights for {found}, not {wanted}: train it with --game {found} or choose another --out", .path.display())]
    OtherGame { path: PathBuf, found: GameSpec, wanted: GameSpec },
    #[error(
        "training diverged at episode {episode}: weight {weight} is not a finite number; lower --alpha{}",
        if *.saved { " (the weight file keeps its last saved weights)" } else { " (nothing was saved)" }
    )]
    Diverged { episode: u64, weight: usize, saved: bool },
}

/// The network a session goes on with.
pub enum Opened<R: TupleRules> {
    /// No weight file yet: seed 002's four 6-tuples, with TCL's accumulators where asked.
    New(Network<R>),
    /// The file's network; `had_coherence`: whether the file stored TCL's accumulators.
    Resumed { net: Network<R>, had_coherence: bool },
    /// The file has seen the episodes asked for already.
    Finished { episodes: u64 },
}

impl<R: TupleRules> Opened<R> {
    /// What was opened, as `dojo ntuple train` says it: a new network for `spec` trained
    /// by `method`, a file `out` resumed (and what becomes of its TCL accumulators with
    /// `tcl`), or a file that has seen the `until` episodes asked for.
    pub fn describe(&self, spec: &GameSpec, out: Option<&Path>, tcl: bool, until: u64) -> String {
        let method = if tcl { "TCL" } else { "TD(0)" };
        let path = out.map_or_else(String::new, |p| p.display().to_string());
        match self {
            Opened::New(net) => {
                format!("new {spec} network: 4 6-tuples × 8 isomorphisms, {} weights, {method}", net.len())
            }
            Opened::Resumed { net, had_coherence } => {
                let episodes = net.episodes();
                let coherence = match (tcl, had_coherence) {
                    (true, false) => "\nthe file has no TCL accumulators: every weight starts again at rate 1",
                    (false, true) => "\ndropping the file's TCL accumulators: plain TD(0) needs none",
                    _ => "",
                };
                format!("resuming from {path}: {episodes} episodes trained, going on with {method}{coherence}")
            }
            Opened::Finished { episodes } => {
                format!("{path} has seen {episodes} episodes already (--episodes {until}): nothing to do")
            }
        }
    }
}

/// Opens the network to train for `episodes` in all from `out` (when it exists) or anew.
/// The header alone says whether the file fits, before hundreds of MiB are read.
pub fn open<R: TupleRules>(
    rules: R,
    spec: &GameSpec,
    out: Option<&Path>,
    tcl: bool,
    episodes: u64,
) -> Result<Opened<R>, SessionError> {
    let Some(path) = out.filter(|p| p.exists()) else {
        let mut net = Network::new(rules, Layout::seed002())?;
        if tcl {
            net.start_coherence();
        }
        return Ok(Opened::New(net));
    };
    let header = read_header(path)?;
    if header.spec != *spec {
        return Err(SessionError::OtherGame { path: path.to_path_buf(), found: header.spec, wanted: spec.clone() });
    }
    if header.episodes >= episodes {
        return Ok(Opened::Finished { episodes: header.episodes });
    }
    Ok(Opened::Resumed { net: load::<R>(path, tcl)?, had_coherence: header.coherence })
}

/// One block of episodes as reported.
pub struct Block {
    /// Episodes the network has seen at the end of the block.
    pub episode: u64,
    pub games: Vec<GameScore>,
    pub moves: u64,
    pub seconds: f64,
}

impl Block {
    /// The block's report: the episode, the speed, and the reach-rate table of its games.
    pub fn report(&self, spec: &GameSpec) -> String {
        let report = ScoreReport::new(spec, &self.games);
        let speed = self.moves as f64 / self.seconds.max(1e-9);
        format!(
            "episode {}: {} ({speed:.0} moves/s, {:.1} s)\n{}",
            self.episode,
            report.summary(),
            self.seconds,
            report.table()
        )
    }
}

/// What a session shows while it runs.
pub trait Observer {
    /// A block of `episodes` episodes starts.
    fn block(&mut self, episodes: u64);
    /// An episode ended.
    fn episode(&mut self, score: &GameScore);
    /// A block ended (before it is saved).
    fn report(&mut self, block: &Block);
}

/// How a session is run.
pub struct Schedule<'a> {
    /// Train until the network has seen this many episodes.
    pub until: u64,
    /// Episodes between reports (and saves).
    pub report_every: u64,
    pub method: Method,
    pub alpha: f32,
    /// Tile spawns come from this seed, mixed with the episodes already seen (so a resumed
    /// run draws other spawns than the run it continues).
    pub seed: u64,
    /// Where the weights are saved (None: not saved).
    pub out: Option<&'a Path>,
}

/// Trains `net` on `schedule`; returns whether `stop` ended it early.
pub fn train<R: TupleRules>(
    net: &mut Network<R>,
    schedule: &Schedule<'_>,
    stop: &AtomicBool,
    observer: &mut dyn Observer,
) -> Result<bool, SessionError> {
    let rng = Rng::seed_from_u64(schedule.seed ^ net.episodes().wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut trainer = Trainer::new(schedule.method, schedule.alpha, rng);
    let k = schedule.report_every.max(1);
    while net.episodes() < schedule.until {
        let end = ((net.episodes() / k + 1) * k).min(schedule.until);
        observer.block(end - net.episodes());
        let (mut games, mut moves, clock) = (Vec::new(), 0u64, Instant::now());
        while net.episodes() < end && !stop.load(Ordering::Relaxed) {
            let e = trainer.episode(net);
            let score = e.game_score();
            observer.episode(&score);
            games.push(score);
            moves += u64::from(e.moves);
        }
        let block = Block { episode: net.episodes(), games, moves, seconds: clock.elapsed().as_secs_f64() };
        observer.report(&block);
        if let Some(weight) = net.non_finite_weight() {
            // Saving would overwrite the last good weights with useless ones.
            let saved = schedule.out.is_some_and(Path::exists);
            return Err(SessionError::Diverged { episode: net.episodes(), weight, saved });
        }
        if let Some(path) = schedule.out {
            save(net, path)?;
        }
        if stop.load(Ordering::Relaxed) {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::sliding::Rules2048;

    #[derive(Default)]
    struct Seen {
        blocks: Vec<u64>,
        episodes: u64,
        reports: Vec<u64>,
    }

    impl Observer for Seen {
        fn block(&mut self, episodes: u64) {
            self.blocks.push(episodes);
        }
        fn episode(&mut self, _score: &GameScore) {
            self.episodes += 1;
        }
        fn report(&mut self, block: &Block) {
            self.reports.push(block.episode);
        }
    }

    fn schedule(until: u64, out: Option<&Path>) -> Schedule<'_> {
        Schedule { until, report_every: 4, method: Method::Td, alpha: 0.1, seed: 1, out }
    }

    #[test]
    fn blocks_end_on_multiples_of_the_interval_across_a_resume() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("w.bin");
        let Opened::New(mut net) = open(Rules2048, &GameSpec::Twenty48, Some(&path), false, 6).unwrap() else {
            panic!("no file yet: a new network")
        };
        let mut seen = Seen::default();
        assert!(!train(&mut net, &schedule(6, Some(&path)), &AtomicBool::new(false), &mut seen).unwrap());
        assert_eq!((seen.blocks, seen.reports, seen.episodes), (vec![4, 2], vec![4, 6], 6));
        // Resumed at 6 towards 10: the next report falls on 8, as an unbroken run's would.
        let Opened::Resumed { mut net, had_coherence: false } =
            open(Rules2048, &GameSpec::Twenty48, Some(&path), false, 10).unwrap()
        else {
            panic!("the saved file resumes")
        };
        assert_eq!(net.episodes(), 6);
        let mut seen = Seen::default();
        train(&mut net, &schedule(10, Some(&path)), &AtomicBool::new(false), &mut seen).unwrap();
        assert_eq!(seen.reports, vec![8, 10]);
        assert!(matches!(
            open(Rules2048, &GameSpec::Twenty48, Some(&path), false, 10),
            Ok(Opened::Finished { episodes: 10 })
        ));
    }

    #[test]
    fn a_stop_ends_the_block_and_saves_it_and_another_games_file_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("w.bin");
        let Opened::New(mut net) = open(Rules2048, &GameSpec::Twenty48, Some(&path), false, 100).unwrap() else {
            panic!("a new network")
        };
        let stopped = train(&mut net, &schedule(100, Some(&path)), &AtomicBool::new(true), &mut Seen::default());
        assert!(stopped.unwrap());
        assert_eq!(read_header(&path).unwrap().episodes, 0);
        let other: GameSpec = "2584".parse().unwrap();
        let GameSpec::Fib2584 { odds } = other else { panic!("2584 is a Fibonacci game") };
        let err = match open(dojo_game::sliding::Rules2584 { odds }, &other, Some(&path), false, 10) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a 2048 file opened for 2584"),
        };
        assert!(err.contains("holds n-tuple weights for 2048, not 2584"), "{err}");
    }
}
