//! Pieces several subcommands share: devices and threads, progress bars, and the shared
//! secret of a cluster (a checkpoint loads through `dojo_program::checkpoint`).

use anyhow::{Context, Result};
use clap::Args;
use dojo_arch::precision::{Precision, PrecisionChoice};
use dojo_net::autotune::self_play_precision;
use dojo_net::device::{set_threads, Device};
use dojo_net::model::Model;
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Where the network runs.
#[derive(Args, Clone, Debug)]
pub struct DeviceArgs {
    /// cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// libtorch threads for this process (intra- and inter-op; games at once are
    /// --parallel). Keep the total over all processes at or below the cores: libtorch's
    /// pools spin and slow each other down.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

impl DeviceArgs {
    /// Sets the thread counts and resolves the device (a clear error if CUDA is missing).
    pub fn init(&self) -> Result<Device> {
        set_threads(self.threads);
        let spec: Device = self.device.parse()?;
        Ok(spec.resolve()?)
    }
}

/// The number format of self-play's network evaluations.
#[derive(Args, Clone, Debug)]
pub struct PrecisionArgs {
    /// auto, f32, bf16 or f16 (CUDA only). auto times the network in each format this
    /// device can run, at self-play's batch sizes, and keeps the fastest (cached per CPU,
    /// threads and architecture in ${DOJO_CACHE}/precision.json).
    #[arg(long, default_value = "auto")]
    pub precision: PrecisionChoice,
}

impl PrecisionArgs {
    /// Resolves the choice for self-play with `model` at `parallel_games` games in flight,
    /// and logs what was chosen and why.
    pub fn choose(&self, model: &Model, parallel_games: usize) -> Result<Precision> {
        Ok(self_play_precision(self.precision, model, parallel_games)?)
    }
}

/// A progress bar on stderr. Where stderr is not a terminal (a log file, CI) the bar is
/// hidden and a plain line says where the work stands every [`quiet_log_every`] instead.
pub struct Progress {
    bar: ProgressBar,
    what: String,
    /// When the last plain line was written; None on a terminal.
    last_line: Option<Mutex<Instant>>,
}

/// How often a hidden bar logs a line: `DOJO_PROGRESS_EVERY` seconds, default 10.
fn quiet_log_every() -> Duration {
    let secs = std::env::var("DOJO_PROGRESS_EVERY").ok().and_then(|s| s.parse::<f64>().ok());
    Duration::from_secs_f64(secs.filter(|s| *s >= 0.0 && s.is_finite()).unwrap_or(10.0))
}

impl Progress {
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
        let Some(last) = &self.last_line else { return };
        let mut last = last.lock().unwrap_or_else(|p| p.into_inner());
        let done = self.bar.position() >= self.bar.length().unwrap_or(u64::MAX);
        if last.elapsed() >= quiet_log_every() || done {
            *last = Instant::now();
            let (pos, len) = (self.bar.position(), self.bar.length().unwrap_or(0));
            let prefix = self.bar.prefix();
            let message = self.bar.message();
            eprintln!(
                "{}{pos}/{len} {}, {:.0} s elapsed, eta {:.0} s{}",
                if prefix.is_empty() { String::new() } else { format!("{prefix}: ") },
                self.what,
                self.bar.elapsed().as_secs_f64(),
                self.bar.eta().as_secs_f64(),
                if message.is_empty() { String::new() } else { format!(" {message}") }
            );
        }
    }
}

impl std::ops::Deref for Progress {
    type Target = ProgressBar;
    fn deref(&self) -> &ProgressBar {
        &self.bar
    }
}

/// A progress bar of `len` `what` (e.g. "games").
pub fn progress(len: u64, what: &str) -> Progress {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{prefix}} [{{bar:30}}] {{pos}}/{{len}} {what}, {{elapsed}} elapsed, eta {{eta}} {{msg}}"
        ))
        .expect("static template")
        .progress_chars("=> "),
    );
    let last_line = bar.is_hidden().then(|| Mutex::new(Instant::now()));
    Progress { bar, what: what.to_string(), last_line }
}

/// `--parallel` (games played at once), or one per core.
pub fn parallel_or_cores(parallel: Option<usize>) -> usize {
    parallel.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `--http ADDR` as an address (none when not given).
pub fn http_addr(text: Option<&str>) -> Result<Option<std::net::SocketAddr>> {
    text.map(|t| t.parse().with_context(|| format!("--http {t:?} is not an address like 127.0.0.1:9100"))).transpose()
}

/// The shared secret between a learner and its workers: from a file (a mounted Kubernetes
/// Secret, a compose secret) or the environment, so it never shows in `ps` or shell history.
#[derive(Args, Clone, Debug)]
pub struct TokenArgs {
    /// A file holding the shared secret (surrounding whitespace ignored), or set DOJO_TOKEN_FILE.
    #[arg(long, env = "DOJO_TOKEN_FILE", conflicts_with = "token")]
    token_file: Option<std::path::PathBuf>,
    /// The shared secret itself (prefer --token-file or DOJO_TOKEN: a command line is visible
    /// to every user of the machine).
    #[arg(long, env = "DOJO_TOKEN", hide_env_values = true)]
    token: Option<String>,
}

impl TokenArgs {
    /// The token, if one was given; an unreadable or empty file is an error.
    pub fn resolve(&self) -> Result<Option<String>> {
        let Some(path) = &self.token_file else {
            return Ok(self.token.clone().filter(|t| !t.is_empty()));
        };
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read the token file {}", path.display()))?;
        let token = text.trim();
        anyhow::ensure!(!token.is_empty(), "the token file {} is empty", path.display());
        Ok(Some(token.to_string()))
    }
}
