//! A dojo Gomoku network as a Gomocup brain (`dojo export gomocup`): one C++ file with the
//! network's weights as data, its inference and dojo's search by the clock with Gomoku's
//! threat-space prover ([`crate::cpp_export`]'s engine for Gomoku, behind the protocol
//! front end `cpp/gomocup.cpp`), built for Linux with `g++` and for Windows x86-64 with
//! mingw-w64 as a static `pbrain-NAME.exe`: what Gomocup's manager runs, with no library
//! and no arguments.
//!
//! What makes the C++ the network: [`check_agreement`] builds the same file as a shared
//! object (without `main`) and compares its `dojoEvaluate` with dojo's folded network, as
//! `net:` players run it, on random positions of every board size the brain plays, with
//! each of its convolutions the machine runs; [`check_lookahead`] compares its lookahead and
//! threat search with dojo's on the same positions.

use crate::cpp_export::{self, BuildFailure, GamePart, Kernel, SearchSettings};
use dojo_arch::precision::Precision;
use dojo_base::rng::Rng;
use dojo_game::gomoku::{Gomoku, GOMOKU_MAX, GOMOKU_MIN};
use dojo_game::spec::GomokuRule;
use dojo_game::tactics::Lookahead;
use dojo_game::tactics::Tactics;
use dojo_game::{Action, Game, GameSpec};
use dojo_net::checkpoint::{self, CheckpointError, Loaded};
use dojo_net::device::Device;
use dojo_net::folded::FoldedNetwork;
use dojo_search::config::SearchConfig;
use rand::{RngExt, SeedableRng};
use std::ffi::c_int;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

/// The protocol front end.
const FRONT: &str = include_str!("cpp/gomocup.cpp");
/// Gomoku's input planes.
const PLANES: usize = 8;
/// Gomocup's fast games give 5 s a move; without a clock from the manager a move searches
/// this long.
pub const DEFAULT_MOVE_MS: u64 = 5000;
/// Gomocup's memory limit, for a manager that sends no `INFO max_memory`.
pub const GOMOCUP_MEMORY: u64 = 350 << 20;
/// What the brain's process holds besides the search graph (code, weights, the network's
/// scratch, the C++ runtime; under wine, its loader too): the graph gets the rest of
/// `max_memory`. The Linux brain holds 3 MB before its first search (docs/records/gomocup.md).
pub const MEMORY_BESIDES_GRAPH: u64 = 16 << 20;
/// The VCF prover's budget at each expanded position unless told otherwise: 1,000 nodes, as
/// docs/gomoku-vcf.md measures it in play.
pub const EXPORT_VCF_NODES: u32 = 1000;
/// The name Gomocup knows the brain by unless told otherwise (`pbrain-dojo.exe`).
pub const DEFAULT_NAME: &str = "dojo";

/// The search a brain runs unless told otherwise: a `net:` player's
/// ([`SearchConfig::for_play`]) with the threat-space prover on.
pub fn default_search() -> SearchConfig {
    SearchConfig { vcf_nodes: EXPORT_VCF_NODES, ..SearchConfig::for_play(u32::MAX) }
}

/// A brain's search unless told otherwise: [`default_search`] by the clock.
pub fn default_settings() -> SearchSettings {
    SearchSettings { playouts: None, move_ms: DEFAULT_MOVE_MS, search: default_search() }
}

#[derive(Debug, thiserror::Error)]
pub enum GomocupExportError {
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// Only an any-size Gomoku network plays Gomocup's boards (20×20 freestyle, 15×15 the
    /// others).
    #[error(
        "{}: a network for {game} cannot be a Gomocup brain: export an any-size Gomoku network (one trained \
         with [net] any_size = true, e.g. networks/gomoku-any.safetensors), which plays every board from \
         {GOMOKU_MIN}x{GOMOKU_MIN} to {GOMOKU_MAX}x{GOMOKU_MAX}",
        .path.display()
    )]
    NotAnySizeGomoku { path: PathBuf, game: GameSpec },
    /// Rollouts are Connect Four's.
    #[error("search.rollouts is Connect Four's (a Gomoku brain has no rollouts): leave it at 0")]
    Rollouts,
    /// A name Gomocup's file names cannot carry.
    #[error("the brain's name {name:?} must be letters, digits, '-' or '_' (it becomes pbrain-{name}.exe)")]
    Name { name: String },
    #[error("cannot write {}: {error}", .path.display())]
    Write { path: PathBuf, error: std::io::Error },
    /// A compiler could not be run, or failed (its stderr's end attached).
    #[error("building {} failed: {reason}", .output.display())]
    Build { output: PathBuf, reason: BuildFailure },
    /// No mingw-w64 compiler for the Windows build.
    #[error(
        "no mingw-w64 C++ compiler (tried {}) for the Windows build: install Debian's \
         g++-mingw-w64-x86-64-win32 (apt install g++-mingw-w64-x86-64-win32), or build for Linux only",
        WINDOWS_COMPILERS.join(", ")
    )]
    NoWindowsCompiler,
    #[error("cannot load the check build {}: {error}", .path.display())]
    Load { path: PathBuf, error: libloading::Error },
    #[error("{} exports no {symbol} (is it a brain dojo export gomocup built?)", .path.display())]
    NoEntryPoint { path: PathBuf, symbol: &'static str },
    #[error("the brain's {entry_point} refused a position of {board} after the moves {moves}")]
    Refused { board: GameSpec, entry_point: &'static str, moves: String },
    /// The brain's lookahead or threat search is not dojo's on a position.
    #[error(
        "the brain's lookahead with a {vcf_nodes}-node threat search differs from dojo's on {board} after the \
         moves {moves}: dojo {dojo}, the brain {brain}"
    )]
    LookaheadDiffers { board: GameSpec, moves: String, vcf_nodes: u32, dojo: String, brain: String },
}

/// What was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Exported {
    /// `DIR/pbrain-NAME.cpp`.
    pub source: PathBuf,
    pub bytes: u64,
    /// The network's shape, e.g. `3x32`.
    pub shape: String,
    /// The board sizes the brain plays.
    pub sizes: RangeInclusive<usize>,
}

/// The board sizes an any-size Gomoku network's brain plays (as `dojo pbrain` does).
pub fn sizes() -> RangeInclusive<usize> {
    GOMOKU_MIN as usize..=GOMOKU_MAX as usize
}

/// Writes `DIR/pbrain-NAME.cpp` for the checkpoint at `model_path` (already `loaded`).
pub fn write_brain(
    model_path: &Path,
    loaded: &Loaded,
    settings: &SearchSettings,
    name: &str,
    dir: &Path,
) -> Result<Exported, GomocupExportError> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(GomocupExportError::Name { name: name.to_string() });
    }
    if settings.search.rollouts > 0 {
        return Err(GomocupExportError::Rollouts);
    }
    let arch = &loaded.sidecar.architecture;
    let not_any_size =
        || GomocupExportError::NotAnySizeGomoku { path: model_path.to_path_buf(), game: arch.game.clone() };
    if !arch.any_size || arch.game.family() != "gomoku" || arch.input_channels != PLANES {
        return Err(not_any_size());
    }
    let folded = FoldedNetwork::new(&loaded.model, Precision::F32);
    let layers = folded.plain_any_size().ok_or_else(not_any_size)?;
    let sizes = sizes();
    let front = format!(
        "constexpr int BRAIN_MIN_SIZE = {};\nconstexpr int BRAIN_MAX_SIZE = {};\nconstexpr const char* BRAIN_NAME = \"{name}\";\n\
         constexpr const char* BRAIN_VERSION = \"{} {}x{} v{} sha256 {}\";\n\
         constexpr uint64_t DEFAULT_MAX_MEMORY = {GOMOCUP_MEMORY}ULL;\nconstexpr uint64_t MEMORY_BESIDES_GRAPH = {MEMORY_BESIDES_GRAPH}ULL;\n",
        sizes.start(),
        sizes.end(),
        env!("CARGO_PKG_VERSION"),
        arch.blocks,
        arch.channels,
        loaded.sidecar.version,
        &loaded.sidecar.sha256[..12.min(loaded.sidecar.sha256.len())],
    );
    let generated = cpp_export::provenance(model_path, loaded)
        + &cpp_export::settings(settings)
        + &front
        + &cpp_export::weights(&layers);
    let source_text = cpp_export::assemble(FRONT, GamePart::Gomoku, &generated);
    std::fs::create_dir_all(dir).map_err(|error| GomocupExportError::Write { path: dir.to_path_buf(), error })?;
    let source = dir.join(format!("pbrain-{name}.cpp"));
    dojo_base::util::atomic_write(&source, source_text.as_bytes())
        .map_err(|error| GomocupExportError::Write { path: source.clone(), error })?;
    Ok(Exported { source, bytes: source_text.len() as u64, shape: format!("{}x{}", arch.blocks, arch.channels), sizes })
}

/// The mingw-w64 compilers tried for the Windows build, in order.
pub const WINDOWS_COMPILERS: [&str; 2] = ["x86_64-w64-mingw32-g++-win32", "x86_64-w64-mingw32-g++"];

/// Where a brain is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// This machine's Linux, with `g++`: `DIR/pbrain-NAME`.
    Linux,
    /// Windows x86-64, with mingw-w64, linked statically: `DIR/pbrain-NAME.exe`.
    Windows,
}

/// Builds the brain from `source` (`DIR/pbrain-NAME.cpp`) for `target`, beside it.
pub fn build(source: &Path, target: Target) -> Result<PathBuf, GomocupExportError> {
    let stem = source.with_extension("");
    let (compiler, output) = match target {
        Target::Linux => ("g++".to_string(), stem),
        Target::Windows => {
            (windows_compiler().ok_or(GomocupExportError::NoWindowsCompiler)?, stem.with_extension("exe"))
        }
    };
    let flags: &[&str] = match target {
        Target::Linux => &["-O2", "-static-libstdc++", "-static-libgcc"],
        Target::Windows => &["-O2", "-static"],
    };
    cpp_export::compile(&compiler, flags, source, &output)
        .map_err(|reason| GomocupExportError::Build { output: output.clone(), reason })
}

/// The first mingw-w64 compiler on PATH.
pub fn windows_compiler() -> Option<String> {
    WINDOWS_COMPILERS.iter().find(|c| which(c)).map(|c| c.to_string())
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// The check's build: `source` as a shared object without `main`, at `output`.
pub fn build_check(source: &Path, output: &Path) -> Result<PathBuf, GomocupExportError> {
    cpp_export::compile("g++", &["-O2", "-shared", "-fPIC", "-DDOJO_NO_MAIN"], source, output)
        .map_err(|reason| GomocupExportError::Build { output: output.to_path_buf(), reason })
}

/// `int dojoEvaluate(size, rule, moves, count, float* policy, float* value)`.
type EvaluateFn = unsafe extern "C" fn(c_int, c_int, *const c_int, c_int, *mut f32, *mut f32) -> c_int;
/// `int dojoGomokuLookahead(size, rule, moves, count, tactics, vcf_nodes, int* out, int*
/// count_out)`: 0 the moves worth searching, 1 a win (the first move), 2 lost.
type LookaheadFn =
    unsafe extern "C" fn(c_int, c_int, *const c_int, c_int, c_int, c_int, *mut c_int, *mut c_int) -> c_int;
/// `int dojoUseFastKernel(int fast)`.
type UseFastKernel = unsafe extern "C" fn(c_int) -> c_int;

/// How closely the brain's network matched dojo's: the largest differences over every
/// kernel and position checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Agreement {
    pub kernels: Vec<Kernel>,
    /// Positions checked on each board size.
    pub positions_per_size: usize,
    pub sizes: RangeInclusive<usize>,
    /// The largest difference of a point's probability.
    pub policy: f32,
    /// The largest difference of a value.
    pub value: f32,
    /// Positions whose lookahead (with a threat search) was compared, all the same.
    pub lookaheads: usize,
}

/// The check build's entry points.
struct CheckLibrary {
    _library: libloading::Library,
    evaluate: EvaluateFn,
    lookahead: LookaheadFn,
    use_fast: UseFastKernel,
}

impl CheckLibrary {
    fn load(so: &Path) -> Result<CheckLibrary, GomocupExportError> {
        // SAFETY: a shared object this module wrote and built; its initialisers only build
        // tables of its own.
        let library = unsafe { libloading::Library::new(so) }
            .map_err(|error| GomocupExportError::Load { path: so.to_path_buf(), error })?;
        let missing = |symbol| GomocupExportError::NoEntryPoint { path: so.to_path_buf(), symbol };
        // SAFETY: the signatures `cpp/gomocup.cpp` and `cpp/gomoku.cpp` declare.
        let evaluate =
            unsafe { library.get::<EvaluateFn>(b"dojoEvaluate\0") }.map(|f| *f).map_err(|_| missing("dojoEvaluate"))?;
        let lookahead = unsafe { library.get::<LookaheadFn>(b"dojoGomokuLookahead\0") }
            .map(|f| *f)
            .map_err(|_| missing("dojoGomokuLookahead"))?;
        let use_fast = unsafe { library.get::<UseFastKernel>(b"dojoUseFastKernel\0") }
            .map(|f| *f)
            .map_err(|_| missing("dojoUseFastKernel"))?;
        Ok(CheckLibrary { _library: library, evaluate, lookahead, use_fast })
    }
}

/// Compares the check build `so`'s network with `network` (dojo's folded network, in f32,
/// framed to the largest board) on `per_size` random positions of every size the brain
/// plays (freestyle and standard in turn), drawn from `seed`, once for each kernel the brain
/// can run here; and its lookahead with a `vcf_nodes` threat search with dojo's on each,
/// which must be the same.
pub fn check_agreement(
    so: &Path,
    network: &mut FoldedNetwork,
    per_size: usize,
    vcf_nodes: u32,
    seed: u64,
) -> Result<Agreement, GomocupExportError> {
    let library = CheckLibrary::load(so)?;
    // SAFETY: it sets one flag of the brain's.
    let fast = unsafe { (library.use_fast)(1) } == 1;
    let kernels: Vec<Kernel> = [fast.then_some(Kernel::Avx2), Some(Kernel::Portable)].into_iter().flatten().collect();
    let frame = GOMOKU_MAX as usize;
    network.reframe((frame, frame)).expect("an any-size Gomoku network takes the largest frame");
    let sizes = sizes();
    let mut agreement = Agreement {
        kernels: kernels.clone(),
        positions_per_size: per_size,
        sizes: sizes.clone(),
        policy: 0.0,
        value: 0.0,
        lookaheads: 0,
    };
    let mut rng = Rng::seed_from_u64(seed);
    let (mut planes, mut logits, mut value) = (vec![0.0; PLANES * frame * frame], vec![0.0; frame * frame], [0.0f32]);
    for size in sizes {
        for k in 0..per_size {
            // Both rules the brain plays, in turn: the threat planes follow the rule.
            let rule = if k % 2 == 0 { GomokuRule::Freestyle } else { GomokuRule::Standard };
            let (game, moves) = random_position(size, rule, &mut rng);
            game.clone().framed(frame).expect("every board fits the largest frame").encode_planes(&mut planes);
            network.infer(&planes, 1, &mut logits, &mut value);
            let mut legal = Vec::new();
            game.legal_actions(&mut legal);
            let want = cpp_export::softmax_over(&logits, &legal, size * size);
            let c_moves: Vec<c_int> = moves.iter().map(|&m| m as c_int).collect();
            for &kernel in &kernels {
                let (mut policy, mut theirs) = (vec![0.0f32; size * size], 0.0f32);
                // SAFETY: the arrays have the sizes the signature promises for this board.
                let status = unsafe {
                    (library.use_fast)(c_int::from(kernel == Kernel::Avx2));
                    let count = c_moves.len() as c_int;
                    let rule = rule.gomocup() as c_int;
                    (library.evaluate)(size as c_int, rule, c_moves.as_ptr(), count, policy.as_mut_ptr(), &mut theirs)
                };
                if status != 0 {
                    return Err(refused(&game, &moves, "dojoEvaluate"));
                }
                for (a, b) in want.iter().zip(&policy) {
                    agreement.policy = agreement.policy.max((a - b).abs());
                }
                agreement.value = agreement.value.max((value[0] - theirs).abs());
            }
            check_lookahead(&library, &game, &moves, vcf_nodes)?;
            agreement.lookaheads += 1;
        }
    }
    Ok(agreement)
}

fn refused(game: &Gomoku, moves: &[Action], entry_point: &'static str) -> GomocupExportError {
    GomocupExportError::Refused { board: game.spec(), entry_point, moves: game.moves_to_text(moves) }
}

/// The brain's lookahead with a `vcf_nodes` threat search on `game` against dojo's, as the
/// search asks for it at an expansion.
fn check_lookahead(
    library: &CheckLibrary,
    game: &Gomoku,
    moves: &[Action],
    vcf_nodes: u32,
) -> Result<(), GomocupExportError> {
    let mut dojo_moves = Vec::new();
    let mut look = game.lookahead(&mut dojo_moves);
    if look == Lookahead::Moves && vcf_nodes > 0 {
        look = game.threat_search(vcf_nodes, &mut dojo_moves);
    }
    let dojo = describe(game, look, &dojo_moves);
    let size = game.size();
    let c_moves: Vec<c_int> = moves.iter().map(|&m| m as c_int).collect();
    let (mut out, mut count) = (vec![0 as c_int; size * size], 0 as c_int);
    // SAFETY: `out` holds a move per point, as the signature asks.
    let status = unsafe {
        (library.lookahead)(
            size as c_int,
            game.rule().gomocup() as c_int,
            c_moves.as_ptr(),
            c_moves.len() as c_int,
            1,
            vcf_nodes as c_int,
            out.as_mut_ptr(),
            &mut count,
        )
    };
    let brain = match (status, count) {
        (1, 1) => describe(game, Lookahead::Win(out[0] as Action), &[]),
        (0 | 2, k) if (0..=(size * size) as c_int).contains(&k) => {
            let points: Vec<Action> = out[..k as usize].iter().map(|&p| p as Action).collect();
            describe(game, if status == 2 { Lookahead::Lost } else { Lookahead::Moves }, &points)
        }
        _ => return Err(refused(game, moves, "dojoGomokuLookahead")),
    };
    if brain != dojo {
        return Err(GomocupExportError::LookaheadDiffers {
            board: game.spec(),
            moves: game.moves_to_text(moves),
            vcf_nodes,
            dojo,
            brain,
        });
    }
    Ok(())
}

/// A lookahead's answer in words, its points as Gomocup writes them.
fn describe(game: &Gomoku, look: Lookahead, points: &[Action]) -> String {
    let text: Vec<String> = points.iter().map(|&p| game.action_to_text(p)).collect();
    match look {
        Lookahead::Win(p) => format!("wins at {}", game.action_to_text(p)),
        Lookahead::Lost => format!("lost, keeping [{}]", text.join(" ")),
        Lookahead::Moves => format!("the moves [{}]", text.join(" ")),
    }
}

/// A position of a `size` board under `rule` after random moves (up to half the board),
/// never a finished one, and the moves that made it.
fn random_position(size: usize, rule: GomokuRule, rng: &mut Rng) -> (Gomoku, Vec<Action>) {
    let mut game = Gomoku::with_rule(size, rule).expect("a Gomoku size");
    let length = rng.random_range(0..size * size / 2);
    let mut moves = Vec::with_capacity(length);
    for _ in 0..length {
        let action = game.random_move(rng);
        let mut next = game.clone();
        next.play_unchecked(action);
        if next.outcome().is_some() {
            break;
        }
        game = next;
        moves.push(action);
    }
    (game, moves)
}

/// Loads `model_path` for export (on the CPU).
pub fn load(model_path: &Path) -> Result<Loaded, GomocupExportError> {
    Ok(checkpoint::load(model_path, Device::Cpu, None)?)
}
