//! The run's gatekeeper: gates newly published versions against the best one, keeps
//! `models/best.*` and appends every decision to `gating.jsonl`. `dojo train` runs it on a
//! thread beside the learner; `dojo gate` runs it on its own (a cluster's arbiter, where
//! the run directory is); both open it ([`Gatekeeper::open`], how it gates coming from the
//! run's config: [`GatePolicy::from_run`]) and run its loop ([`Gatekeeper::watch`], in
//! [`crate::watch`]). One gatekeeper per run: it holds `gating.lock` while it lives
//! ([`BestKeeper`]).

use crate::gating::{gate_match, GateError, GateSettings, ScoreComparison};
use crate::sprt::{SprtConfig, SprtStatus};
use dojo_arbiter::matches::Tally;
use dojo_arbiter::promotion::{BestError, BestKeeper, Promoter};
use dojo_game::connect4::Connect4;
use dojo_game::AnyGame;
use dojo_grading::run_set::{benchmark_path, grade_checkpoint, load_or_make, GradeSettings, VersionGrade};
use dojo_grading::Case;
use dojo_net::checkpoint::{self, CheckpointError};
use dojo_proto::tensorboard::EventWriter;
use dojo_run::config::{GateMode, RunConfig};
use dojo_run::journal::{self, JournalError};
use dojo_run::paths::RunPaths;
use serde::{Deserialize, Serialize};
use std::sync::atomic::AtomicBool;

/// What keeps the gatekeeper from opening, or from recording a gate. Each variant says its
/// cause in its own message.
#[derive(Debug, thiserror::Error)]
pub enum GatekeeperError {
    /// The gating lock (another process holds it) or `gating.jsonl`.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The best network cannot be read or repaired.
    #[error(transparent)]
    Best(#[from] BestError),
    /// The match.
    #[error(transparent)]
    Gate(#[from] GateError),
    /// Copying the winner to the best.
    #[error(transparent)]
    Promote(#[from] CheckpointError),
}

/// A gate of `version` that did not finish: "gating v12: the match was cancelled".
#[derive(Debug, thiserror::Error)]
#[error("gating v{version}: {error}")]
pub struct GateFailed {
    pub version: u64,
    /// Boxed: a failed gate is rare, and the error large.
    pub error: Box<GatekeeperError>,
}

/// One line of `gating.jsonl`.
///
/// A one-player game's gate (2048, 2584) fills the two-player fields from its pairs of
/// games, so readers of those keep working: `games` pairs, `wins`/`draws`/`losses` the
/// pairs the candidate scored higher/equally/lower in, `score` its share of them. Its
/// decision is by mean score, in `scores`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    pub unix_ms: u64,
    pub candidate: u64,
    /// The best version the candidate played; none when there was no best yet (the first
    /// version gated becomes the best without a match).
    pub best: Option<u64>,
    /// The candidate's games against the best.
    #[serde(flatten)]
    pub tally: Tally,
    /// The candidate's points per game.
    pub score: f64,
    pub promoted: bool,
    /// How long the match took.
    #[serde(default)]
    pub seconds: f64,
    /// Gating by SPRT: the log-likelihood ratio at the end, its bounds and the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtStatus>,
    /// Gating a one-player game: both sides' mean scores with 95% intervals, and the paired
    /// difference with its interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scores: Option<ScoreComparison>,
    /// The candidate's error rates on the run's labelled benchmark, by Pons category
    /// (`[gating]` `grade_positions`; Connect Four boards the solver takes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade: Option<VersionGrade>,
}

impl GateRecord {
    pub fn describe(&self) -> String {
        match &self.grade {
            Some(grade) => format!("{}; {}", self.describe_match(), grade.describe()),
            None => self.describe_match(),
        }
    }

    fn describe_match(&self) -> String {
        let Some(best) = self.best else {
            return format!("gating: v{} is the first best version", self.candidate);
        };
        let verdict =
            if self.promoted { format!("v{} is the new best", self.candidate) } else { format!("v{best} stays best") };
        if let Some(scores) = &self.scores {
            return format!(
                "gating: v{} vs best v{best}: {} games each, {} in {:.0} s: {verdict}",
                self.candidate,
                self.tally.games,
                scores.describe(),
                self.seconds,
            );
        }
        format!(
            "gating: v{} vs best v{best}: {} games, {}-{}-{} (W-D-L), score {:.1}%{} in {:.0} s: {verdict}",
            self.candidate,
            self.tally.games,
            self.tally.wins,
            self.tally.draws,
            self.tally.losses,
            100.0 * self.score,
            self.sprt.map_or(String::new(), |s| format!(", LLR {:.2} in [{:.2}, {:.2}]", s.llr, s.lower, s.upper)),
            self.seconds,
        )
    }
}

/// How a run gates: the match, and (without an SPRT) the score that promotes.
#[derive(Clone, Debug, PartialEq)]
pub struct GatePolicy {
    pub settings: GateSettings,
    /// The candidate's points per game that make it the best, where no SPRT decides. (A
    /// one-player game's candidate needs a higher mean score instead.)
    pub promote_score: f64,
    /// Grade every gated version on the run's labelled benchmark (None: no grading; games
    /// other than Connect Four on a board the solver takes are never graded).
    pub grade: Option<GradeSettings>,
}

impl GatePolicy {
    /// How `run` gates: its `[gating]` section, both sides searching as the run's
    /// self-play does (`search.mode`, `search.vcf_nodes`), `threads` games at once.
    pub fn from_run(run: &RunConfig, threads: usize) -> GatePolicy {
        let config = &run.gating;
        let sprt = (config.mode == GateMode::Sprt).then_some(SprtConfig {
            elo0: config.sprt.elo0,
            elo1: config.sprt.elo1,
            alpha: config.sprt.alpha,
            beta: config.sprt.beta,
            max_games: config.games,
        });
        let settings = GateSettings {
            games: config.games,
            sprt,
            search: run.search.as_player(config.simulations),
            opening_plies: config.opening_plies,
            average_symmetries: config.average_symmetries,
            threads: threads.max(1),
        };
        let grade = (config.grade_positions > 0).then(|| GradeSettings {
            per_category: config.grade_positions as usize,
            sims: config.grade_sims.unwrap_or(config.simulations),
            budget_nodes: config.grade_budget_nodes,
            total_nodes: config.grade_total_nodes,
        });
        GatePolicy { settings, promote_score: config.promote_score, grade }
    }
}

/// The run's benchmark, once the first gate to grade has loaded or drawn it.
enum Benchmark {
    NotLoaded,
    Loaded(Vec<Case<Connect4>>),
    /// This run's game has none, or it could not be made (said once).
    Unavailable,
}

pub struct Gatekeeper {
    run: RunPaths,
    policy: GatePolicy,
    /// The run's best, and the gating lock, held while the gatekeeper lives.
    keeper: BestKeeper,
    best_version: Option<u64>,
    last_gated: u64,
    /// Decisions for TensorBoard (`RUN/tensorboard/gating/`), at the candidate's step.
    tensorboard: Option<EventWriter>,
    benchmark: Benchmark,
}

impl Gatekeeper {
    /// The gatekeeper of `run`, gating as its `config` says with `threads` games at once:
    /// takes the run's gating lock and reads where gating stands (repairing a best copy
    /// that a crash cut short).
    pub fn open(run: &RunPaths, config: &RunConfig, threads: usize) -> Result<Gatekeeper, GatekeeperError> {
        let policy = &GatePolicy::from_run(config, threads);
        let keeper = BestKeeper::lock(run, Promoter::Gatekeeper)?;
        journal::end_partial_line(&run.gating_log())?;
        let best_version = keeper.best().current()?.map(|s| s.version);
        let last_gated = read_records(run)?.iter().map(|r| r.candidate).max().or(best_version).unwrap_or(0);
        let tensorboard = EventWriter::create(&run.tensorboard("gating"))
            .map_err(|e| tracing::warn!("no TensorBoard events for gating: {e}"))
            .ok();
        Ok(Gatekeeper {
            run: run.clone(),
            policy: policy.clone(),
            keeper,
            best_version,
            last_gated,
            tensorboard,
            benchmark: Benchmark::NotLoaded,
        })
    }

    pub(crate) fn run(&self) -> &RunPaths {
        &self.run
    }

    pub fn policy(&self) -> &GatePolicy {
        &self.policy
    }

    pub fn best_version(&self) -> Option<u64> {
        self.best_version
    }

    pub fn last_gated(&self) -> u64 {
        self.last_gated
    }

    /// Whether `newest` is far enough past the last gated version to gate it.
    pub fn due(&self, newest: u64, every_versions: u64) -> bool {
        newest > self.last_gated && newest - self.last_gated >= every_versions.max(1)
    }

    /// Gates `version` against the best (or makes it the first best), records the decision
    /// and promotes a winner. `cancel` stops the match between games (an error, nothing
    /// recorded).
    pub fn gate(&mut self, version: u64, cancel: Option<&AtomicBool>) -> Result<GateRecord, GateFailed> {
        self.gate_version(version, cancel).map_err(|error| GateFailed { version, error: Box::new(error) })
    }

    fn gate_version(&mut self, version: u64, cancel: Option<&AtomicBool>) -> Result<GateRecord, GatekeeperError> {
        let started = std::time::Instant::now();
        let candidate = self.run.model_version(version);
        let best = self.keeper.best().current()?.map(|s| s.version);
        let mut record = GateRecord {
            unix_ms: dojo_base::util::now_unix_ms(),
            candidate: version,
            best,
            tally: Tally::default(),
            score: 1.0,
            promoted: true,
            seconds: 0.0,
            sprt: None,
            scores: None,
            grade: None,
        };
        if best.is_some() {
            // The seed is the version: a gating decision can be replayed exactly.
            let gate = gate_match(&candidate, self.keeper.best().path(), &self.policy.settings, version, cancel)?;
            record.tally = gate.result.tally;
            record.score = gate.result.score;
            record.promoted = gate.promotes(self.policy.promote_score);
            record.sprt = gate.sprt;
            record.scores = gate.scores;
            record.seconds = started.elapsed().as_secs_f64();
        }
        // Promoted first, graded after: the promotion copies the candidate, and the learner
        // may prune the version itself while grading takes its seconds.
        if record.promoted {
            self.keeper.promote(version)?;
            self.best_version = Some(version);
        }
        let graded = if record.promoted { self.keeper.best().path().to_path_buf() } else { candidate.clone() };
        record.grade = self.grade(&graded);
        self.last_gated = version;
        journal::append(&self.run.gating_log(), &record)?;
        self.tensorboard_record(&record, &graded);
        Ok(record)
    }

    /// Loads (or draws: seconds to a minute) the run's benchmark before the first gate, for
    /// the game of the newest version. True when that took work, so a caller looks for the
    /// newest version again: during a draw the learner may publish, and prune, several.
    pub fn prepare(&mut self) -> bool {
        let Some(settings) = self.policy.grade.clone() else { return false };
        if !matches!(self.benchmark, Benchmark::NotLoaded) {
            return false;
        }
        self.benchmark = self.load_benchmark(&self.run.latest(), &settings);
        true
    }

    /// The candidate's grade on the run's benchmark, drawing the benchmark at the first
    /// gate if `prepare` did not. Grading never stops gating: a failure is logged and the
    /// record has no grade.
    fn grade(&mut self, candidate: &std::path::Path) -> Option<VersionGrade> {
        let settings = self.policy.grade.clone()?;
        if let Benchmark::NotLoaded = self.benchmark {
            self.benchmark = self.load_benchmark(candidate, &settings);
        }
        let Benchmark::Loaded(cases) = &self.benchmark else { return None };
        grade_checkpoint(candidate, cases, settings.sims)
            .map_err(|e| tracing::warn!("grading {}: {e}", candidate.display()))
            .ok()
    }

    fn load_benchmark(&self, candidate: &std::path::Path, settings: &GradeSettings) -> Benchmark {
        let game = match checkpoint::read_sidecar(candidate) {
            Ok(sidecar) => sidecar.architecture.game,
            Err(e) => {
                tracing::warn!("grading: cannot read {}: {e}", candidate.display());
                return Benchmark::NotLoaded;
            }
        };
        // Only a Connect Four board on the solver's bitboard has exact labels.
        let Ok(AnyGame::Connect4(start)) = game.start() else {
            tracing::info!("grading: no solver-labelled benchmark for {game}; versions are not graded");
            return Benchmark::Unavailable;
        };
        let started = std::time::Instant::now();
        match load_or_make(&self.run, &start, settings) {
            Ok((cases, drawn)) => {
                if let Some(drawn) = drawn {
                    tracing::info!(
                        "grading: drew {} in {:.1} s: {}",
                        benchmark_path(&self.run).display(),
                        started.elapsed().as_secs_f64(),
                        drawn.summary().trim_end()
                    );
                }
                Benchmark::Loaded(cases)
            }
            Err(e) => {
                tracing::warn!("grading: no benchmark ({e}); versions are not graded");
                Benchmark::Unavailable
            }
        }
    }

    /// The decision as TensorBoard scalars at the candidate's training step (the grade at
    /// every gate, the match's numbers where there was a match).
    fn tensorboard_record(&mut self, record: &GateRecord, candidate: &std::path::Path) {
        let Some(tb) = &mut self.tensorboard else { return };
        let Ok(sidecar) = checkpoint::read_sidecar(candidate) else { return };
        let grade = record.grade.as_ref().map(VersionGrade::scalars).unwrap_or_default();
        let mut scalars: Vec<(&str, f64)> = grade.iter().map(|(tag, v)| (tag.as_str(), *v)).collect();
        // The first best version played no match: only its grade.
        if record.best.is_some() {
            scalars.extend([
                ("gating/score", record.score),
                ("gating/promoted", if record.promoted { 1.0 } else { 0.0 }),
                ("gating/games", f64::from(record.tally.games)),
                ("gating/candidate_version", record.candidate as f64),
            ]);
        }
        if let Some(s) = &record.sprt {
            scalars.push(("gating/llr", s.llr));
        }
        if let Some(s) = &record.scores {
            scalars.push(("gating/mean_score", s.candidate.mean));
            scalars.push(("gating/best_mean_score", s.best.mean));
            scalars.push(("gating/mean_score_difference", s.difference));
        }
        if scalars.is_empty() {
            return;
        }
        if let Err(e) = tb.scalars(sidecar.step as i64, &scalars).and_then(|()| tb.flush()) {
            tracing::warn!("no more TensorBoard events for gating: {e}");
            self.tensorboard = None;
        }
    }

    /// Marks `version` as seen without gating it (e.g. it could not be read).
    pub fn skip(&mut self, version: u64) {
        self.last_gated = self.last_gated.max(version);
    }
}

/// The newest published version of a run (from `models/latest.json`).
pub fn newest_version(run: &RunPaths) -> Result<u64, CheckpointError> {
    checkpoint::read_sidecar(&run.latest()).map(|s| s.version)
}

/// Every decision in `gating.jsonl`; a line cut short by a crash is skipped.
pub fn read_records(run: &RunPaths) -> Result<Vec<GateRecord>, JournalError> {
    journal::read(&run.gating_log())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dojo_game::GameScore;
    use dojo_game::GameSpec;

    #[test]
    fn a_run_config_gates_as_its_gating_section_and_its_search_say() {
        use dojo_search::config::{SearchConfig, SearchMode};
        // The defaults: a fixed match of 40 games, graded on 50 positions a category at
        // the match's playouts.
        let mut run = RunConfig::default();
        let policy = GatePolicy::from_run(&run, 3);
        let fixed = GateSettings {
            games: 40,
            sprt: None,
            search: SearchConfig::for_play(100),
            opening_plies: 4,
            average_symmetries: false,
            threads: 3,
        };
        assert_eq!(policy.settings, fixed);
        assert_eq!(policy.promote_score, 0.55);
        let grade = GradeSettings { per_category: 50, sims: 100, budget_nodes: 200_000, total_nodes: 100_000_000 };
        assert_eq!(policy.grade, Some(grade.clone()));

        // An SPRT with the run's hypotheses, stopping at the run's games; its own grading
        // playouts; the run's search on both sides; at least one thread.
        run.gating.mode = GateMode::Sprt;
        run.gating.games = 200;
        run.gating.sprt.elo1 = 30.0;
        run.gating.grade_sims = Some(7);
        run.gating.promote_score = 0.6;
        run.search.mode = SearchMode::Gumbel;
        run.search.vcf_nodes = 500;
        let policy = GatePolicy::from_run(&run, 0);
        let sprt = SprtConfig { elo0: 0.0, elo1: 30.0, alpha: 0.05, beta: 0.1, max_games: 200 };
        let settings = GateSettings {
            games: 200,
            sprt: Some(sprt),
            search: SearchConfig { mode: SearchMode::Gumbel, vcf_nodes: 500, ..SearchConfig::for_play(100) },
            threads: 1,
            ..fixed
        };
        assert_eq!(policy.settings, settings);
        assert_eq!((policy.promote_score, policy.grade), (0.6, Some(GradeSettings { sims: 7, ..grade })));
        assert!(policy.settings.describe().starts_with("SPRT [0, 30], up to 200 games"));

        // No grading.
        run.gating.grade_positions = 0;
        assert_eq!(GatePolicy::from_run(&run, 1).grade, None);
    }

    #[test]
    fn one_player_records_keep_the_two_player_fields_and_describe_mean_scores() {
        // A line written before one-player gates existed still reads, with no scores.
        let old = r#"{"unix_ms":1,"candidate":3,"best":2,"games":4,"wins":2,"draws":0,"losses":2,"score":0.5,"promoted":false}"#;
        let record: GateRecord = serde_json::from_str(old).unwrap();
        assert_eq!((record.scores.as_ref(), record.seconds), (None, 0.0));
        assert!(record.describe().starts_with("gating: v3 vs best v2: 4 games, 2-0-2 (W-D-L), score 50.0% in 0 s"));
        assert!(!serde_json::to_string(&record).unwrap().contains("scores"));

        let games = |s: &[u64]| s.iter().map(|&score| GameScore { score, max_tile: 256 }).collect::<Vec<_>>();
        let mut scores =
            ScoreComparison::new(&GameSpec::Twenty48, &games(&[3000, 1000, 900]), &games(&[2000, 1000, 1000])).unwrap();
        scores.sprt_skipped = true;
        let t = scores.tally();
        let record = GateRecord {
            unix_ms: 1,
            candidate: 7,
            best: Some(5),
            tally: t,
            score: t.score(),
            promoted: scores.promotes(),
            seconds: 12.0,
            sprt: None,
            scores: Some(scores),
            grade: None,
        };
        let json = serde_json::to_value(&record).unwrap();
        // The dashboard's fields, and the means beside them.
        assert_eq!(
            (json["games"].as_u64(), json["wins"].as_u64(), json["losses"].as_u64()),
            (Some(3), Some(1), Some(1))
        );
        assert_eq!(json["scores"]["candidate"]["mean"].as_f64(), Some(1633.3333333333333));
        assert_eq!(json["scores"]["difference"].as_f64(), Some(300.0));
        assert_eq!(json["scores"]["sprt_skipped"].as_bool(), Some(true));
        assert_eq!(serde_json::from_value::<GateRecord>(json).unwrap(), record);
        let line = record.describe();
        assert!(line.starts_with("gating: v7 vs best v5: 3 games each, mean score 1633.3 (95% CI "), "{line}");
        assert!(line.contains(" vs 1333.3 (95% CI ") && line.contains("difference +300.0 (95% CI "), "{line}");
        assert!(line.ends_with("(the SPRT does not apply to scores) in 12 s: v7 is the new best"), "{line}");
    }
}
