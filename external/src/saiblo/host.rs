//! The child process that hosts one saiblo strategy for one game (`dojo saiblo-host
//! PATH.so`), as the platform runs each game in a process of its own.
//!
//! It loads the shared object, says `ready` (or `error WHY` and exits), then answers each
//! request line ([`SaibloView::request_line`]) with the strategy's point, `X Y`, or `null`
//! where `getPoint` returned none; it exits at the end of its input. The protocol runs on
//! the process's original stdout, which it keeps to itself: the strategy's own stdout goes
//! to stderr, so a strategy that prints (as course code often does) cannot garble the
//! answers. It dies with its parent, and its address space is capped at
//! [`MEMORY_LIMIT_BYTES`], so a runaway strategy takes down this process, never dojo.

use super::view::SaibloView;
use std::ffi::c_int;
use std::fs::File;
use std::io::{BufRead, Write};
use std::os::fd::FromRawFd;
use std::path::{Path, PathBuf};

/// The address space a strategy may use (the platform's limit is of this order; seed 001's
/// engine keeps its graph in a few hundred megabytes).
pub const MEMORY_LIMIT_BYTES: u64 = 4 << 30;

/// `Point* getPoint(M, N, top, board, lastX, lastY, noX, noY)`; a `Point` is two ints.
type GetPoint =
    unsafe extern "C" fn(c_int, c_int, *const c_int, *const c_int, c_int, c_int, c_int, c_int) -> *mut c_int;
/// `void clearPoint(Point*)`.
type ClearPoint = unsafe extern "C" fn(*mut c_int);

/// Why the host could not serve.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("cannot load {}: {error}", .path.display())]
    Load { path: PathBuf, error: libloading::Error },
    #[error("{} exports no {symbol} (a saiblo strategy exports getPoint and clearPoint as extern \"C\")", .path.display())]
    Symbol { path: PathBuf, symbol: &'static str },
    #[error("the host's own pipes: {0}")]
    Io(#[from] std::io::Error),
    #[error("unreadable request {line:?}")]
    Request { line: String },
}

/// Serves the strategy in `path` on stdin and the protocol stream until stdin closes.
pub fn serve(path: &Path) -> Result<(), HostError> {
    let mut out = protocol_stream()?;
    isolate();
    match load(path) {
        Ok(strategy) => {
            writeln!(out, "ready")?;
            out.flush()?;
            strategy.answer(std::io::stdin().lock(), out)
        }
        Err(error) => {
            // The parent reads why; the exit status says it too.
            let _ = writeln!(out, "error {}", error.to_string().replace('\n', " "));
            Err(error)
        }
    }
}

/// The process's stdout, kept for the protocol, with fd 1 pointed at stderr for the
/// strategy's prints.
fn protocol_stream() -> Result<File, HostError> {
    // SAFETY: plain descriptor calls on descriptors this process owns; the duplicate is
    // owned by the File from here on.
    unsafe {
        let kept = libc::dup(1);
        if kept < 0 || libc::dup2(2, 1) < 0 {
            return Err(std::io::Error::last_os_error().into());
        }
        Ok(File::from_raw_fd(kept))
    }
}

/// Dies with the parent, and caps the memory a strategy can take.
fn isolate() {
    // SAFETY: prctl and setrlimit with constant, valid arguments.
    unsafe {
        #[cfg(target_os = "linux")]
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let limit = libc::rlimit { rlim_cur: MEMORY_LIMIT_BYTES as _, rlim_max: MEMORY_LIMIT_BYTES as _ };
        libc::setrlimit(libc::RLIMIT_AS, &limit);
    }
}

/// A loaded strategy.
struct Strategy {
    get_point: GetPoint,
    clear_point: ClearPoint,
    /// Kept loaded while the functions above are called.
    _library: libloading::Library,
}

fn load(path: &Path) -> Result<Strategy, HostError> {
    // SAFETY: loading runs the library's initialisers: that is what hosting a strategy is,
    // and why it happens in this throwaway process.
    let library = unsafe { libloading::Library::new(path) }
        .map_err(|error| HostError::Load { path: path.to_path_buf(), error })?;
    let symbol = |name: &'static str| HostError::Symbol { path: path.to_path_buf(), symbol: name };
    // SAFETY: the SDK's signatures; a strategy that declares them otherwise crashes this
    // process, which the parent reports as the strategy's crash.
    unsafe {
        let get_point = *library.get::<GetPoint>(b"getPoint\0").map_err(|_| symbol("getPoint"))?;
        let clear_point = *library.get::<ClearPoint>(b"clearPoint\0").map_err(|_| symbol("clearPoint"))?;
        Ok(Strategy { get_point, clear_point, _library: library })
    }
}

impl Strategy {
    fn answer(&self, input: impl BufRead, mut out: File) -> Result<(), HostError> {
        for line in input.lines() {
            let line = line?;
            let view = SaibloView::parse_request(&line).ok_or(HostError::Request { line })?;
            let reply = self.point(&view);
            writeln!(out, "{reply}")?;
            out.flush()?;
        }
        Ok(())
    }

    /// The strategy's point for `view`, as the reply line.
    fn point(&self, view: &SaibloView) -> String {
        let (m, n, top, board, last_x, last_y, no_x, no_y) = view.sdk_args();
        // SAFETY: the arrays live for the call and have the sizes the SDK promises; the
        // Point returned is read before it is handed back to clearPoint, as the platform does.
        unsafe {
            let p = (self.get_point)(m, n, top, board, last_x, last_y, no_x, no_y);
            if p.is_null() {
                return "null".into();
            }
            let (x, y) = (*p, *p.add(1));
            (self.clear_point)(p);
            format!("{x} {y}")
        }
    }
}
