//! `--precision auto`: choosing self-play's number format by timing the network itself.
//!
//! Which format is fastest depends on the CPU (or GPU), the network's shape and the batch:
//! on this project's EPYC bf16 self-play ran 1.4× faster than f32, on an Intel Xeon with
//! the very same AVX512-BF16 flag 1.45× slower. So a process about to play times the
//! network it will actually run, folded as self-play runs it, in every candidate format
//! ([`Device::precisions`]) at the batch sizes self-play will use, for about a tenth of
//! a second each after a warm-up, and keeps the fastest.
//!
//! The decision is cached per (CPU model, device, libtorch threads, architecture, batches)
//! in `${DOJO_CACHE}/precision.json`, behind a file lock, so the workers that start
//! together on one machine measure once between them (the others wait for the lock, then
//! read the answer) and a new architecture is measured again. The trainer's `auto`
//! (`crate::train::TrainingPrecision`) keeps its own decisions in the same file.

use super::device::{Device, DeviceError};
use super::model::Model;
use super::timing::NetTimer;
use dojo_arch::architecture::Architecture;
use dojo_arch::precision::{Precision, PrecisionChoice};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long each (format, batch) pair is timed, after its warm-up.
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(100);

/// Another format replaces f32 (the first candidate) only when it is at least this much
/// faster: below that the measurement cannot tell them apart, and f32 is the exact one.
const MIN_GAIN: f64 = 1.03;

/// One timing: forward passes of `batch` positions in `precision`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    pub precision: Precision,
    pub batch: usize,
    pub evals_per_s: f64,
}

/// Where a decision came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Source {
    /// The user named the format.
    #[default]
    Fixed,
    /// Timed just now.
    Measured,
    /// Read from the cache file.
    Cached(PathBuf),
}

/// The format self-play runs in, and the timings behind it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrecisionDecision {
    pub chosen: Precision,
    /// Every candidate at every batch size (empty for a fixed choice).
    pub measured: Vec<Rate>,
    #[serde(skip)]
    pub source: Source,
}

impl PrecisionDecision {
    /// The decision for a format the user named.
    pub fn fixed(precision: Precision) -> PrecisionDecision {
        PrecisionDecision { chosen: precision, measured: Vec::new(), source: Source::Fixed }
    }

    /// Each measured format's throughput over a workload of one batch of every measured
    /// size (positions over time: fast small batches do not hide a slow large one), in the
    /// order first measured.
    pub fn throughputs(&self) -> Vec<(Precision, f64)> {
        let mut order: Vec<Precision> = Vec::new();
        for r in &self.measured {
            if !order.contains(&r.precision) {
                order.push(r.precision);
            }
        }
        order
            .into_iter()
            .map(|p| {
                let (mut evals, mut secs) = (0.0, 0.0);
                for r in self.measured.iter().filter(|r| r.precision == p) {
                    evals += r.batch as f64;
                    secs += r.batch as f64 / r.evals_per_s.max(1e-9);
                }
                (p, evals / secs.max(1e-12))
            })
            .collect()
    }
}

impl fmt::Display for PrecisionDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "precision {}", self.chosen)?;
        let how = match &self.source {
            Source::Fixed => return f.write_str(" (as asked)"),
            Source::Measured => "measured".to_string(),
            Source::Cached(path) => format!("cached in {}", path.display()),
        };
        let mut batches: Vec<usize> = self.measured.iter().map(|r| r.batch).collect();
        batches.sort_unstable();
        batches.dedup();
        let rates: Vec<String> = self.throughputs().iter().map(|(p, r)| format!("{p} {:.0} evals/s", r)).collect();
        let batches: Vec<String> = batches.iter().map(|b| b.to_string()).collect();
        write!(f, " (auto, {how} at batch {}: {})", batches.join(" and "), rates.join(", "))
    }
}

/// The fastest of `candidates` by `time(precision, batch)` (evals/s) at every batch size;
/// the first candidate keeps the place unless another beats it by [`MIN_GAIN`]. The
/// timing source is a parameter so the choice can be tested without timing anything.
pub fn fastest(
    candidates: &[Precision],
    batches: &[usize],
    mut time: impl FnMut(Precision, usize) -> f64,
) -> PrecisionDecision {
    let mut measured = Vec::new();
    for &precision in candidates {
        for &batch in batches {
            measured.push(Rate { precision, batch, evals_per_s: time(precision, batch) });
        }
    }
    let mut decision = PrecisionDecision { chosen: candidates[0], measured, source: Source::Measured };
    let rates = decision.throughputs();
    let baseline = rates.first().map_or(0.0, |r| r.1);
    let best = rates.iter().copied().filter(|r| r.1.is_finite()).max_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((p, rate)) = best {
        if rate >= baseline * MIN_GAIN {
            decision.chosen = p;
        }
    }
    decision
}

/// Resolves `choice` for self-play with `model`: a named format as it is (checked against
/// the device), `auto` by measurement at `batches`, through `cache` when there is one.
pub fn choose_precision(
    choice: PrecisionChoice,
    model: &Model,
    batches: &[usize],
    cache: Option<&DecisionCache>,
) -> Result<PrecisionDecision, DeviceError> {
    let device = model.device();
    if let PrecisionChoice::Fixed(p) = choice {
        super::device::check_precision(p, device)?;
        return Ok(PrecisionDecision::fixed(p));
    }
    let mut batches: Vec<usize> = batches.iter().map(|&b| b.max(1)).collect();
    batches.sort_unstable();
    batches.dedup();
    if batches.is_empty() {
        batches.push(1);
    }
    let measure = || {
        let mut timer = NetTimer::new(model, DEFAULT_BUDGET);
        fastest(device.precisions(), &batches, |p, b| timer.evals_per_s(p, b))
    };
    match cache {
        Some(cache) => {
            let key = cache_key(model.arch(), device, tch::get_num_threads(), &batches);
            Ok(cache.get_or_insert(&key, measure))
        }
        None => Ok(measure()),
    }
}

/// The format self-play with `parallel_games` games in flight evaluates `model` in:
/// `choice` as named, or for `auto` the fastest when timed at self-play's batch sizes (all
/// the games while every one waits for the network, about half once cache hits and
/// finished moves thin the batch out), through the user's cache. Logs the decision. The
/// worker, `dojo selfplay` and the commands that play a network all choose here.
pub fn self_play_precision(
    choice: PrecisionChoice,
    model: &Model,
    parallel_games: usize,
) -> Result<Precision, DeviceError> {
    let batches = [parallel_games.div_ceil(2).max(1), parallel_games.max(1)];
    let decision = choose_precision(choice, model, &batches, DecisionCache::default_location().as_ref())?;
    tracing::info!("{decision}");
    Ok(decision.chosen)
}

/// What a cached decision is valid for: the same hardware, threads, network shape and
/// batches.
pub fn cache_key(arch: &Architecture, device: Device, threads: i32, batches: &[usize]) -> String {
    let arch = serde_json::to_string(arch).unwrap_or_default();
    format!(
        "{} | {device:?} | {threads} threads | batches {batches:?} | {arch} | dojo {}",
        cpu_model(),
        env!("CARGO_PKG_VERSION")
    )
}

/// The CPU's model name (Linux), else its architecture.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// Decisions by [`cache_key`], in one JSON file.
pub struct DecisionCache {
    path: PathBuf,
}

/// Each key's decision as JSON: self-play's [`PrecisionDecision`]s and the trainer's
/// (`crate::train::TrainingPrecision`) share the file, each read back as its own type.
#[derive(Default, Serialize, Deserialize)]
struct CacheFile {
    decisions: BTreeMap<String, serde_json::Value>,
}

impl DecisionCache {
    /// The cache in `dir` (created when first written).
    pub fn in_dir(dir: &Path) -> DecisionCache {
        DecisionCache { path: dir.join("precision.json") }
    }

    /// The user's cache: `${DOJO_CACHE}`, else `~/.cache/dojo` (where `scripts/env.sh` keeps
    /// libtorch too); None without either.
    pub fn default_location() -> Option<DecisionCache> {
        let dir = match std::env::var_os("DOJO_CACHE") {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => PathBuf::from(std::env::var_os("HOME").filter(|h| !h.is_empty())?).join(".cache/dojo"),
        };
        Some(DecisionCache::in_dir(&dir))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The decision stored under `key`, or `measure()`'s, stored for next time (see
    /// [`DecisionCache::get_or_measure`]).
    pub fn get_or_insert(&self, key: &str, measure: impl FnOnce() -> PrecisionDecision) -> PrecisionDecision {
        match self.get_or_measure(key, || Ok::<_, Infallible>(measure())) {
            Ok((decision, true)) => PrecisionDecision { source: Source::Cached(self.path.clone()), ..decision },
            Ok((decision, false)) => decision,
            Err(never) => match never {},
        }
    }

    /// The value stored under `key` (and true), or `measure()`'s (and false), stored for
    /// next time; a failed measurement is the caller's error and stores nothing. Holds an
    /// exclusive lock throughout, so processes asking at once measure once. A cache that
    /// cannot be read or written is warned about and bypassed, and a stored value that does
    /// not read as a `D` is measured again: the cache only saves time.
    pub fn get_or_measure<D: Serialize + DeserializeOwned, E>(
        &self,
        key: &str,
        measure: impl FnOnce() -> Result<D, E>,
    ) -> Result<(D, bool), E> {
        let _lock = match self.lock() {
            Ok(lock) => lock,
            Err(e) => {
                tracing::warn!("precision cache {} unusable ({e}); measuring without it", self.path.display());
                return Ok((measure()?, false));
            }
        };
        let mut file = self.read();
        if let Some(found) = file.decisions.get(key).and_then(|v| D::deserialize(v).ok()) {
            return Ok((found, true));
        }
        let decision = measure()?;
        let written = serde_json::to_value(&decision)
            .and_then(|value| {
                file.decisions.insert(key.to_string(), value);
                serde_json::to_vec_pretty(&file)
            })
            .map_err(std::io::Error::from)
            .and_then(|bytes| dojo_base::util::atomic_write(&self.path, &bytes));
        if let Err(e) = written {
            tracing::warn!("cannot write the precision cache {}: {e}", self.path.display());
        }
        Ok((decision, false))
    }

    fn lock(&self) -> std::io::Result<File> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let lock = OpenOptions::new().create(true).truncate(false).write(true).open(dir.join("precision.lock"))?;
        lock.lock()?;
        Ok(lock)
    }

    /// The cached decisions; a missing file is an empty cache, and so is a damaged one
    /// (said in a warning; it is rewritten whole on the next decision).
    fn read(&self) -> CacheFile {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!("ignoring the damaged precision cache {}: {e}", self.path.display());
                CacheFile::default()
            }),
            Err(_) => CacheFile::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Precision::{Bf16, F16, F32};

    /// A timing source from a table: (precision, batch) → evals/s.
    fn table(rates: &[(Precision, usize, f64)]) -> impl FnMut(Precision, usize) -> f64 + '_ {
        move |p, b| rates.iter().find(|r| r.0 == p && r.1 == b).expect("timed an unlisted pair").2
    }

    #[test]
    fn the_fastest_format_is_chosen_whatever_the_cpu_flags_say() {
        // This project's EPYC: bf16 ahead at both batches.
        let epyc = [(F32, 32, 10_000.0), (F32, 64, 12_000.0), (Bf16, 32, 14_000.0), (Bf16, 64, 17_000.0)];
        let d = fastest(&[F32, Bf16], &[32, 64], table(&epyc));
        assert_eq!(d.chosen, Bf16);
        assert_eq!(d.measured.len(), 4);
        assert_eq!(d.source, Source::Measured);
        // The Xeon of the issue: the same flag, bf16 1.45× slower.
        let xeon = [(F32, 64, 17_400.0), (Bf16, 64, 12_000.0)];
        assert_eq!(fastest(&[F32, Bf16], &[64], table(&xeon)).chosen, F32);
        // CUDA: f16 fastest of three.
        let gpu = [(F32, 256, 1e6), (Bf16, 256, 1.6e6), (F16, 256, 1.9e6)];
        assert_eq!(fastest(&[F32, Bf16, F16], &[256], table(&gpu)).chosen, F16);
    }

    #[test]
    fn a_gain_within_noise_keeps_f32_and_a_slow_large_batch_counts() {
        let close = [(F32, 64, 10_000.0), (Bf16, 64, 10_200.0)];
        assert_eq!(fastest(&[F32, Bf16], &[64], table(&close)).chosen, F32);
        // bf16 wins the small batch by far but loses the large one by more: over one batch
        // of each (96 positions), f32 takes 32/8000 + 64/8000 = 12 ms, bf16 2 + 32 = 34 ms.
        let mixed = [(F32, 32, 8_000.0), (F32, 64, 8_000.0), (Bf16, 32, 16_000.0), (Bf16, 64, 2_000.0)];
        let d = fastest(&[F32, Bf16], &[32, 64], table(&mixed));
        assert_eq!(d.chosen, F32);
        let t = d.throughputs();
        assert_eq!(t[0].0, F32);
        assert!((t[0].1 - 96.0 / 0.012).abs() < 1e-6, "{t:?}");
        assert!((t[1].1 - 96.0 / 0.034).abs() < 1e-6, "{t:?}");
        // With f32 slow at the small batch, 32 + 8 = 40 ms, bf16's 34 ms is the faster.
        let mixed = [(F32, 32, 1_000.0), (F32, 64, 8_000.0), (Bf16, 32, 16_000.0), (Bf16, 64, 2_000.0)];
        assert_eq!(fastest(&[F32, Bf16], &[32, 64], table(&mixed)).chosen, Bf16);
    }

    #[test]
    fn decisions_print_what_was_chosen_and_every_candidate() {
        let d = fastest(&[F32, Bf16], &[64], table(&[(F32, 64, 12_000.0), (Bf16, 64, 17_000.0)]));
        assert_eq!(d.to_string(), "precision bf16 (auto, measured at batch 64: f32 12000 evals/s, bf16 17000 evals/s)");
        assert_eq!(PrecisionDecision::fixed(F32).to_string(), "precision f32 (as asked)");
    }

    #[test]
    fn the_cache_measures_once_per_key_and_survives_damage() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DecisionCache::in_dir(&dir.path().join("nested"));
        let rates = [(F32, 8, 100.0), (Bf16, 8, 200.0)];
        let measured = std::cell::Cell::new(0);
        let measure = || {
            measured.set(measured.get() + 1);
            fastest(&[F32, Bf16], &[8], table(&rates))
        };
        let first = cache.get_or_insert("a", measure);
        assert_eq!((first.chosen, first.source.clone()), (Bf16, Source::Measured));
        let again = cache.get_or_insert("a", measure);
        assert_eq!(again.source, Source::Cached(cache.path().to_path_buf()));
        assert_eq!((again.chosen, again.measured.clone()), (first.chosen, first.measured.clone()));
        cache.get_or_insert("b", measure);
        assert_eq!(measured.get(), 2, "a key seen before is not measured again");
        std::fs::write(cache.path(), b"{ not json").unwrap();
        let after = cache.get_or_insert("a", measure);
        assert_eq!((after.chosen, after.source, measured.get()), (Bf16, Source::Measured, 3));
        assert_eq!(cache.get_or_insert("a", measure).source, Source::Cached(cache.path().to_path_buf()));
    }

    #[test]
    fn a_stored_value_of_another_kind_is_measured_again() {
        let dir = tempfile::tempdir().unwrap();
        let cache = DecisionCache::in_dir(dir.path());
        cache.get_or_insert("k", || fastest(&[F32, Bf16], &[8], table(&[(F32, 8, 1.0), (Bf16, 8, 2.0)])));
        let get = |key: &str, value: f64| cache.get_or_measure(key, || Ok::<_, ()>(vec![value])).unwrap();
        assert_eq!(get("k", 3.5), (vec![3.5], false));
        assert_eq!(get("k", 0.0), (vec![3.5], true));
        assert_eq!(get("j", 1.0), (vec![1.0], false));
        assert_eq!(get("k", 0.0).0, [3.5], "other keys are kept");
        // A failed measurement is the caller's, and leaves nothing behind.
        assert_eq!(cache.get_or_measure::<Vec<f64>, _>("f", || Err("no")), Err("no"));
        assert_eq!(get("f", 2.0), (vec![2.0], false));
    }

    #[test]
    fn keys_change_with_the_architecture_threads_and_batches() {
        let game = dojo_game::connect4::Connect4::<u64>::standard();
        let small = Architecture::for_game(&game, 3, 32);
        let big = Architecture::for_game(&game, 5, 64);
        let cpu = Device::Cpu;
        let k = cache_key(&small, cpu, 1, &[32, 64]);
        assert_eq!(k, cache_key(&small.clone(), cpu, 1, &[32, 64]));
        assert_ne!(k, cache_key(&big, cpu, 1, &[32, 64]));
        assert_ne!(k, cache_key(&small, cpu, 2, &[32, 64]));
        assert_ne!(k, cache_key(&small, cpu, 1, &[64]));
        assert!(k.starts_with(&cpu_model()), "{k}");
    }

    #[test]
    fn auto_times_every_candidate_of_a_real_network_and_fixed_choices_are_checked() {
        crate::device::set_threads(1);
        let game = dojo_game::connect4::Connect4::<u64>::standard();
        let model = Model::new(Architecture::for_game(&game, 1, 8), Device::Cpu);
        let d = choose_precision(PrecisionChoice::Auto, &model, &[4, 0, 4], None).unwrap();
        let timed: Vec<(Precision, usize)> = d.measured.iter().map(|r| (r.precision, r.batch)).collect();
        assert_eq!(timed, vec![(F32, 1), (F32, 4), (Bf16, 1), (Bf16, 4)]);
        assert!(d.measured.iter().all(|r| r.evals_per_s.is_finite() && r.evals_per_s > 0.0), "{d:?}");
        let best = d.throughputs().into_iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert!(d.chosen == best.0 || d.chosen == F32, "{d:?}");
        let fixed = choose_precision(PrecisionChoice::Fixed(Bf16), &model, &[4], None).unwrap();
        assert_eq!(fixed, PrecisionDecision::fixed(Bf16));
        let err = choose_precision(PrecisionChoice::Fixed(F16), &model, &[4], None).unwrap_err().to_string();
        assert!(err.starts_with("precision f16 runs only on CUDA"), "{err}");
    }

    /// A named format is self-play's as it is, checked against the device (no timing, no
    /// cache): what the worker, `dojo selfplay` and the network players get.
    #[test]
    fn self_play_keeps_a_named_format_the_device_runs() {
        let game = dojo_game::connect4::Connect4::<u64>::standard();
        let model = Model::new(Architecture::for_game(&game, 1, 8), Device::Cpu);
        assert_eq!(self_play_precision(PrecisionChoice::Fixed(Bf16), &model, 64), Ok(Bf16));
        assert_eq!(self_play_precision(PrecisionChoice::Fixed(F32), &model, 0), Ok(F32));
        let err = self_play_precision(PrecisionChoice::Fixed(F16), &model, 64).unwrap_err();
        assert_eq!(err, DeviceError::Precision { precision: F16, device: Device::Cpu });
    }
}
