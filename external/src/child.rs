//! A player that is a process of its own, spoken to a line at a time: a Gomocup brain
//! (`pbrain:`) or the host of a saiblo strategy (`saiblo:`). Every command waits for its
//! answer within a deadline; a process that exits, closes its output or stays silent is
//! reported with its exit status and its last words on stderr, and can always be killed
//! (with every process it started, where it runs in a process group of its own).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long an external player may take to answer a move it has `clock` for: a tenth more
/// (at least 50 ms, at most 1 s), for the pipe and a busy machine.
pub fn answer_deadline(clock: Duration) -> Duration {
    clock + (clock / 10).clamp(Duration::from_millis(50), Duration::from_secs(1))
}

/// The stderr lines of a child kept to explain a crash.
const STDERR_TAIL: usize = 5;

/// Why a child process failed a command. `who` names it in messages ("the brain").
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    #[error("cannot start {command:?}: {error}")]
    Spawn { command: String, error: std::io::Error },
    /// The child said nothing to `asked` (its first line) for `ms` milliseconds.
    #[error("no answer to {asked} within {ms} ms")]
    Timeout { asked: String, ms: u128 },
    /// The child exited or closed its output: its exit status where it was reaped, and its
    /// last lines on stderr.
    #[error("{}", crash_text(.who, .status, .stderr_tail))]
    Crashed { who: &'static str, status: Option<ExitStatus>, stderr_tail: Vec<String> },
}

impl ChildError {
    /// What kind of failure it is, as a match counts forfeits: silence is a time-out, the
    /// rest a crash.
    pub fn kind(&self) -> crate::forfeit::ForfeitKind {
        match self {
            ChildError::Timeout { .. } => crate::forfeit::ForfeitKind::Time,
            ChildError::Spawn { .. } | ChildError::Crashed { .. } => crate::forfeit::ForfeitKind::Crash,
        }
    }
}

/// "the brain exited (exit status: 3); its stderr ended: a | b".
fn crash_text(who: &str, status: &Option<ExitStatus>, stderr_tail: &[String]) -> String {
    let mut why = match status {
        Some(s) => format!("{who} exited ({s})"),
        None => format!("{who} closed its output"),
    };
    if !stderr_tail.is_empty() {
        why.push_str(&format!("; its stderr ended: {}", stderr_tail.join(" | ")));
    }
    why
}

/// A running child process.
pub struct LineChild {
    who: &'static str,
    child: Child,
    /// Whether it leads a process group of its own (killed whole).
    own_group: bool,
    stdin: ChildStdin,
    /// Its stdout, a line at a time (closed when it exits).
    lines: Receiver<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

impl LineChild {
    /// Starts `command` (named `shown` in errors) with its stdin, stdout and stderr piped to
    /// us; with `own_group`, in a process group of its own (a terminal's Ctrl-C then does
    /// not reach it: it must die with its parent by itself).
    pub fn spawn(
        who: &'static str,
        mut command: Command,
        shown: &str,
        own_group: bool,
    ) -> Result<LineChild, ChildError> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if own_group {
            command.process_group(0);
        }
        let mut child = command.spawn().map_err(|error| ChildError::Spawn { command: shown.to_string(), error })?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = stderr_tail.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
                if tail.len() == STDERR_TAIL {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        Ok(LineChild { who, child, own_group, stdin, lines, stderr_tail })
    }

    /// Writes `lines`, each ended by a newline.
    pub fn send(&mut self, lines: &[String]) -> Result<(), ChildError> {
        let mut text = lines.join("\n");
        text.push('\n');
        match self.stdin.write_all(text.as_bytes()).and_then(|()| self.stdin.flush()) {
            Ok(()) => Ok(()),
            Err(_) => Err(self.crashed()),
        }
    }

    /// The child's next line for which `skip` is false, trimmed, within `timeout`
    /// (`asked` names the command in a time-out's message).
    pub fn reply(&mut self, timeout: Duration, asked: &str, skip: impl Fn(&str) -> bool) -> Result<String, ChildError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if skip(line.trim()) => {}
                Ok(line) => return Ok(line.trim().to_string()),
                // One that exited as the time ran out crashed; it did not hang.
                Err(RecvTimeoutError::Timeout) if matches!(self.child.try_wait(), Ok(Some(_))) => {
                    return Err(self.crashed())
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ChildError::Timeout { asked: asked.to_string(), ms: timeout.as_millis() })
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.crashed()),
            }
        }
    }

    /// Why the child stopped talking: its exit status and last words on stderr.
    pub fn crashed(&mut self) -> ChildError {
        // Its stdout closed; give it a moment to be reaped.
        let deadline = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                _ => break None,
            }
        };
        // The stderr reader may still hold the last lines: a moment for it too.
        std::thread::sleep(Duration::from_millis(20));
        let tail = self.stderr_tail.lock().unwrap_or_else(|p| p.into_inner());
        ChildError::Crashed { who: self.who, status, stderr_tail: tail.iter().cloned().collect() }
    }

    /// Says `goodbye` (if any) and closes its input (a child that reads to the end of it
    /// exits), and kills it if it has not exited within a moment.
    pub fn end(self, goodbye: Option<&str>) {
        let LineChild { mut child, own_group, mut stdin, .. } = self;
        if let Some(goodbye) = goodbye {
            let _ = writeln!(stdin, "{goodbye}").and_then(|()| stdin.flush());
        }
        drop(stdin);
        let deadline = Instant::now() + Duration::from_millis(300);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        kill(&mut child, own_group);
    }

    /// Kills the child (and everything in its process group, where it has its own), and
    /// reaps it.
    pub fn kill(mut self) {
        kill(&mut self.child, self.own_group);
    }
}

fn kill(child: &mut Child, own_group: bool) {
    if own_group {
        // SAFETY: a signal to the group this child leads (its pid is the group's id).
        unsafe {
            libc::killpg(child.id() as libc::pid_t, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}
