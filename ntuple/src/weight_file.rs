//! The weight file: a small header, the tables, a checksum. All numbers little-endian.
//!
//! ```text
//! magic      8 bytes  "DJNTUPLE"
//! version    u32      1
//! spec       u32 length (1..=64), then that many bytes of UTF-8: the game, e.g. "2584:1-3"
//! radix      u32      table slots a cell (16 for 2048, 19 for 2584)
//! tuples     u32      1..=16, then per tuple: u8 length (1..=8) and that many cells (0..16)
//! flags      u8       bit 0: TCL's accumulators follow the weights
//! episodes   u64      training episodes so far
//! weights    f32 × radix^length, tuple by tuple
//! [E, A]     f32 × the same, twice (with flag bit 0)
//! crc32      u32      of every byte before it
//! ```
//!
//! Files are written whole and atomically ([`atomic_write`]); a reader checks the header
//! against the game and the size against the header before it allocates anything, and the
//! checksum after reading, so a wrong, truncated or corrupt file is an error naming what
//! is wrong, never a panic or a half-loaded network.

use super::layout::{Layout, LayoutError, MAX_TUPLES, MAX_TUPLE_LEN};
use super::network::Network;
use super::TupleRules;
use dojo_base::util::atomic_write;
use dojo_game::GameSpec;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

const MAGIC: &[u8; 8] = b"DJNTUPLE";
const VERSION: u32 = 1;
const MAX_SPEC_LEN: usize = 64;
const FLAG_COHERENCE: u8 = 1;

/// Why a weight file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum NtupleError {
    /// The cause is in the message and not also a source, so a report that prints an
    /// error with its sources says it once.
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("{path}: {reason}")]
    Format { path: String, reason: FileProblem },
}

/// What is wrong inside a weight file ([`NtupleError::Format`]).
#[derive(Debug, thiserror::Error)]
pub enum FileProblem {
    #[error("the file ends inside the {0} (truncated?)")]
    Truncated(&'static str),
    #[error("not an n-tuple weight file (too short to hold a header)")]
    TooShort,
    #[error("not an n-tuple weight file (it does not start with DJNTUPLE)")]
    Magic,
    #[error("weight file version {0}; this dojo reads version {VERSION}")]
    Version(u32),
    #[error("the game name is {0} bytes long; expected 1..={MAX_SPEC_LEN} (corrupt header)")]
    SpecLength(usize),
    #[error("the game name is not UTF-8")]
    SpecUtf8,
    #[error("{0}")]
    Spec(dojo_game::GameError),
    #[error("{0} tuples; a layout has 1..={MAX_TUPLES} (corrupt header)")]
    TupleCount(usize),
    #[error("tuple {tuple} has {cells} cells; a tuple has 1..={MAX_TUPLE_LEN} (corrupt header)")]
    TupleLength { tuple: usize, cells: usize },
    #[error("{0} (corrupt header)")]
    HeaderLayout(LayoutError),
    #[error("unknown flags {0:#04x} (corrupt header or a newer dojo)")]
    Flags(u8),
    #[error("holds n-tuple weights for {spec}, not {game}")]
    OtherGame { spec: GameSpec, game: &'static str },
    #[error("tables of {radix} slots a cell; {game} tables have {want}")]
    Radix { radix: usize, game: &'static str, want: usize },
    #[error("{0}")]
    Layout(LayoutError),
    #[error("the file is {len} bytes but its header describes {want} (truncated or with extra bytes)")]
    Length { len: u64, want: u64 },
    #[error("checksum mismatch: the file is corrupt")]
    Checksum,
    #[error("weight {0} is not a finite number")]
    NotFinite(usize),
}

/// What a weight file's header says.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub spec: GameSpec,
    pub radix: usize,
    pub layout: Layout,
    /// Whether TCL's accumulators are stored.
    pub coherence: bool,
    pub episodes: u64,
    /// Bytes before the tables.
    header_len: u64,
}

impl Header {
    /// The size of a file with this header, in bytes.
    fn file_len(&self) -> Result<u64, LayoutError> {
        let weights: usize = self.layout.table_lens(self.radix)?.iter().sum();
        let tables = if self.coherence { 3 } else { 1 };
        Ok(self.header_len + 4 * (weights as u64) * tables + 4)
    }
}

fn format_err(path: &Path, reason: FileProblem) -> NtupleError {
    NtupleError::Format { path: path.display().to_string(), reason }
}

fn io_err(path: &Path, error: std::io::Error) -> NtupleError {
    NtupleError::Io { path: path.display().to_string(), error }
}

/// Writes `net` to `path` atomically (readers see the old file or the whole new one).
pub fn save<R: TupleRules>(net: &Network<R>, path: &Path) -> Result<(), NtupleError> {
    let spec = net.rules().spec().to_string();
    let tables = if net.has_coherence() { 3 } else { 1 };
    let mut out = Vec::with_capacity(64 + 4 * net.len() * tables);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(spec.len() as u32).to_le_bytes());
    out.extend_from_slice(spec.as_bytes());
    out.extend_from_slice(&(R::RADIX as u32).to_le_bytes());
    out.extend_from_slice(&(net.layout().tuples().len() as u32).to_le_bytes());
    for t in net.layout().tuples() {
        out.push(t.len() as u8);
        out.extend_from_slice(t);
    }
    out.push(if net.has_coherence() { FLAG_COHERENCE } else { 0 });
    out.extend_from_slice(&net.episodes().to_le_bytes());
    let mut put = |values: &[f32]| {
        for v in values {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    put(net.weights());
    if let Some(c) = net.coherence() {
        put(&c.e);
        put(&c.a);
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    atomic_write(path, &out).map_err(|e| io_err(path, e))
}

/// Reads a file sequentially, keeping a running checksum and the byte count.
struct Reader<'a> {
    inner: BufReader<File>,
    crc: crc32fast::Hasher,
    read: u64,
    path: &'a Path,
}

impl<'a> Reader<'a> {
    fn open(path: &'a Path) -> Result<(Reader<'a>, u64), NtupleError> {
        let file = File::open(path).map_err(|e| io_err(path, e))?;
        let len = file.metadata().map_err(|e| io_err(path, e))?.len();
        Ok((
            Reader { inner: BufReader::with_capacity(1 << 20, file), crc: crc32fast::Hasher::new(), read: 0, path },
            len,
        ))
    }

    fn fill(&mut self, buf: &mut [u8], what: &'static str) -> Result<(), NtupleError> {
        self.inner.read_exact(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => format_err(self.path, FileProblem::Truncated(what)),
            _ => io_err(self.path, e),
        })?;
        self.crc.update(buf);
        self.read += buf.len() as u64;
        Ok(())
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], NtupleError> {
        let mut b = [0u8; N];
        self.fill(&mut b, what)?;
        Ok(b)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, NtupleError> {
        Ok(self.array::<1>(what)?[0])
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, NtupleError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    /// Fills `out` with f32s, in chunks (no second copy of a table in memory).
    fn f32s(&mut self, out: &mut [f32]) -> Result<(), NtupleError> {
        let mut buf = vec![0u8; 1 << 16];
        for chunk in out.chunks_mut(buf.len() / 4) {
            let bytes = &mut buf[..chunk.len() * 4];
            self.fill(bytes, "tables")?;
            for (v, b) in chunk.iter_mut().zip(bytes.chunks_exact(4)) {
                *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
        Ok(())
    }

    /// Reads `n` f32s and drops them (still checksummed).
    fn skip_f32s(&mut self, n: usize) -> Result<(), NtupleError> {
        let mut buf = vec![0u8; 1 << 16];
        let mut left = n * 4;
        while left > 0 {
            let k = left.min(buf.len());
            self.fill(&mut buf[..k], "tables")?;
            left -= k;
        }
        Ok(())
    }

    fn header(&mut self) -> Result<Header, NtupleError> {
        let path = self.path;
        let bad = |reason: FileProblem| Err(format_err(path, reason));
        let magic: [u8; 8] = self.array("header").map_err(|_| format_err(self.path, FileProblem::TooShort))?;
        if &magic != MAGIC {
            return bad(FileProblem::Magic);
        }
        let version = self.u32("header")?;
        if version != VERSION {
            return bad(FileProblem::Version(version));
        }
        let spec_len = self.u32("header")? as usize;
        if spec_len == 0 || spec_len > MAX_SPEC_LEN {
            return bad(FileProblem::SpecLength(spec_len));
        }
        let mut spec = vec![0u8; spec_len];
        self.fill(&mut spec, "header")?;
        let spec = String::from_utf8(spec).map_err(|_| format_err(self.path, FileProblem::SpecUtf8))?;
        let spec: GameSpec = spec.parse().map_err(|e| format_err(self.path, FileProblem::Spec(e)))?;
        let radix = self.u32("header")? as usize;
        let count = self.u32("header")? as usize;
        if count == 0 || count > MAX_TUPLES {
            return bad(FileProblem::TupleCount(count));
        }
        let mut tuples = Vec::with_capacity(count);
        for i in 0..count {
            let len = self.u8("header")? as usize;
            if len == 0 || len > MAX_TUPLE_LEN {
                return bad(FileProblem::TupleLength { tuple: i, cells: len });
            }
            let mut cells = vec![0u8; len];
            self.fill(&mut cells, "header")?;
            tuples.push(cells);
        }
        let layout = Layout::new(tuples).map_err(|e| format_err(self.path, FileProblem::HeaderLayout(e)))?;
        let flags = self.u8("header")?;
        if flags & !FLAG_COHERENCE != 0 {
            return bad(FileProblem::Flags(flags));
        }
        let episodes = u64::from_le_bytes(self.array("header")?);
        Ok(Header { spec, radix, layout, coherence: flags & FLAG_COHERENCE != 0, episodes, header_len: self.read })
    }
}

/// Reads and checks a weight file's header (not its tables): which game, layout and
/// training it holds.
pub fn read_header(path: &Path) -> Result<Header, NtupleError> {
    Reader::open(path)?.0.header()
}

/// Loads a weight file for game `R`. With `keep_coherence` false, TCL's accumulators (if
/// stored) are checked but not kept: playing needs only the weights.
pub fn load<R: TupleRules>(path: &Path, keep_coherence: bool) -> Result<Network<R>, NtupleError> {
    let (mut reader, len) = Reader::open(path)?;
    let header = reader.header()?;
    let rules = R::from_spec(&header.spec)
        .ok_or_else(|| format_err(path, FileProblem::OtherGame { spec: header.spec.clone(), game: R::NAME }))?;
    if header.radix != R::RADIX {
        return Err(format_err(path, FileProblem::Radix { radix: header.radix, game: R::NAME, want: R::RADIX }));
    }
    let want = header.file_len().map_err(|e| format_err(path, FileProblem::Layout(e)))?;
    if len != want {
        return Err(format_err(path, FileProblem::Length { len, want }));
    }
    let mut net = Network::new(rules, header.layout.clone()).map_err(|e| format_err(path, FileProblem::Layout(e)))?;
    net.set_episodes(header.episodes);
    reader.f32s(net.weights_mut())?;
    if header.coherence {
        if keep_coherence {
            net.start_coherence();
            let c = net.coherence_mut().expect("just started");
            reader.f32s(&mut c.e)?;
            reader.f32s(&mut c.a)?;
        } else {
            reader.skip_f32s(2 * net.len())?;
        }
    }
    let computed = reader.crc.clone().finalize();
    let stored = u32::from_le_bytes(reader.array::<4>("checksum")?);
    if stored != computed {
        return Err(format_err(path, FileProblem::Checksum));
    }
    if let Some(bad) = net.non_finite_weight() {
        return Err(format_err(path, FileProblem::NotFinite(bad)));
    }
    Ok(net)
}
