//! A dojo network as a saiblo strategy (`dojo export saiblo`): one C++ file with the
//! network's weights as data, its inference and dojo's search (PUCT or Gumbel) by the clock
//! ([`crate::cpp_export`]'s engine for Connect Four, behind saiblo's front end
//! `cpp/saiblo.cpp`), plus the SDK's two headers, so the folder is a submission the platform
//! builds with plain `g++ -O2`.
//!
//! What makes the C++ the network: [`check_agreement`] loads the built
//! strategy and compares its `dojoEvaluate` with the network itself on random positions of
//! every saiblo board, with each of the strategy's convolutions the machine runs (the AVX2
//! kernel and the portable one).

use crate::cpp_export::{self, BuildFailure, GamePart, SearchSettings};
use dojo_arch::precision::Precision;
use dojo_base::bits::Bits192;
use dojo_base::rng::Rng;
use dojo_external::saiblo::SaibloView;
use dojo_game::connect4::Connect4;
use dojo_game::tactics::Lookahead;
use dojo_game::tactics::Tactics;
use dojo_game::{AnyGame, Game, GameSpec};
use dojo_net::checkpoint::{self, CheckpointError, Loaded};
use dojo_net::device::Device;
use dojo_net::folded::FoldedNetwork;
use dojo_net::model::Model;
use dojo_search::config::SearchConfig;
use rand::{RngExt, SeedableRng};
use std::ffi::c_int;
use std::path::{Path, PathBuf};

/// saiblo's front end: the SDK's two functions and the check's entry points.
const FRONT: &str = include_str!("cpp/saiblo.cpp");

/// The SDK's headers, as the strategy is built against them (our own words for its two
/// declarations: a `Point` is two ints, `x` then `y`).
const POINT_H: &str = "// saiblo's Point: the row from the top (x) and the column (y) of a move.\n\
#ifndef POINT_H_\n#define POINT_H_\n\nclass Point {\npublic:\n    int x;\n    int y;\n    \
Point(int x, int y) : x(x), y(y) {}\n};\n\n#endif\n";
const STRATEGY_H: &str = "// The two functions saiblo calls.\n#ifndef STRATEGY_H_\n#define STRATEGY_H_\n\n\
#include \"Point.h\"\n\nextern \"C\" Point* getPoint(const int M, const int N, const int* top, const int* board,\n\
                           const int lastX, const int lastY, const int noX, const int noY);\n\n\
extern \"C\" void clearPoint(Point* p);\n\n#endif\n";

/// The platform's clock is 3 s a move; the strategy searches this long and leaves the rest
/// for the platform's own overhead.
pub const DEFAULT_MOVE_MS: u64 = 2500;
/// The first input planes of Connect Four's encoding, all an any-size network reads.
const PLANES: usize = 9;

/// The rollouts an exported strategy mixes into its network's value at each expanded
/// position unless told otherwise (`search.rollouts`; a `net:` player's default is none): by
/// the clock (500 ms a move), 4 rollouts at AlphaGo's even mix won 72.5% of 40 games against
/// the same export without them (docs/saiblo.md, "Rollouts in the leaves").
pub const EXPORT_ROLLOUTS: u32 = 4;

/// The search a strategy runs unless told otherwise: a `net:` player's
/// ([`SearchConfig::for_play`]) with [`EXPORT_ROLLOUTS`] rollouts a leaf.
pub fn default_search() -> SearchConfig {
    SearchConfig { rollouts: EXPORT_ROLLOUTS, ..SearchConfig::for_play(u32::MAX) }
}

/// A strategy's search unless told otherwise: [`default_search`] by the clock,
/// [`DEFAULT_MOVE_MS`] a move.
pub fn default_settings() -> SearchSettings {
    SearchSettings { playouts: None, move_ms: DEFAULT_MOVE_MS, search: default_search() }
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// Only any-size Connect Four networks play every saiblo board.
    #[error(
        "{}: a network for {game} plays one board; saiblo draws a new one every game, so export an any-size \
         Connect Four network (one trained with --game connect4:saiblo, or with [net] any_size = true)",
        .path.display()
    )]
    NotAnySize { path: PathBuf, game: GameSpec },
    #[error("cannot write {}: {error}", .path.display())]
    Write { path: PathBuf, error: std::io::Error },
    /// `g++` could not be run, or failed (its stderr's end attached).
    #[error("building {} with g++ failed: {reason}", .source_path.display())]
    Build { source_path: PathBuf, reason: BuildFailure },
    #[error("cannot load the built strategy {}: {error}", .path.display())]
    Load { path: PathBuf, error: libloading::Error },
    /// The built strategy lacks an entry point the check calls (`dojoEvaluate`,
    /// `dojoLookahead`, `dojoRollout`, `dojoUseFastKernel`): not a strategy this module wrote.
    #[error("{} exports no {symbol} (is it a strategy dojo export saiblo built?)", .path.display())]
    NoEntryPoint { path: PathBuf, symbol: &'static str },
    #[error("the strategy's {entry_point} refused the board {board}")]
    Refused { board: GameSpec, entry_point: &'static str },
    /// The strategy's two-step lookahead (`dojoLookahead`) is not dojo's on a position.
    #[error(
        "the strategy's two-step lookahead differs from dojo's on {board} after the moves {moves}: dojo {dojo}, \
         the strategy {strategy}"
    )]
    LookaheadDiffers { board: GameSpec, moves: String, dojo: String, strategy: String },
    /// The strategy's rollout (`dojoRollout`) is not dojo's from a position and stream.
    #[error(
        "the strategy's rollout differs from dojo's on {board} after the moves {moves} from the stream at \
         {start:#x}: dojo {dojo}, the strategy {strategy}"
    )]
    RolloutDiffers { board: GameSpec, moves: String, start: u64, dojo: String, strategy: String },
}

/// What was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Exported {
    /// `DIR/Strategy.cpp`.
    pub source: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// The network's shape, e.g. `3x32`.
    pub shape: String,
}

/// Writes the strategy for the checkpoint at `model_path` (already `loaded`) into `dir`:
/// `Strategy.cpp`, `Strategy.h` and `Point.h`, each written atomically.
pub fn write_strategy(
    model_path: &Path,
    loaded: &Loaded,
    config: &SearchSettings,
    dir: &Path,
) -> Result<Exported, ExportError> {
    let arch = &loaded.sidecar.architecture;
    let not_any_size = || ExportError::NotAnySize { path: model_path.to_path_buf(), game: arch.game.clone() };
    if !arch.any_size || arch.game.family() != "connect4" || arch.input_channels != PLANES {
        return Err(not_any_size());
    }
    let folded = FoldedNetwork::new(&loaded.model, Precision::F32);
    let layers = folded.plain_any_size().ok_or_else(not_any_size)?;
    let generated =
        cpp_export::provenance(model_path, loaded) + &cpp_export::settings(config) + &cpp_export::weights(&layers);
    let source = cpp_export::assemble(FRONT, GamePart::Connect4, &generated);
    std::fs::create_dir_all(dir).map_err(|error| ExportError::Write { path: dir.to_path_buf(), error })?;
    for (name, text) in [("Strategy.cpp", source.as_str()), ("Strategy.h", STRATEGY_H), ("Point.h", POINT_H)] {
        let path = dir.join(name);
        dojo_base::util::atomic_write(&path, text.as_bytes()).map_err(|error| ExportError::Write { path, error })?;
    }
    Ok(Exported {
        source: dir.join("Strategy.cpp"),
        bytes: source.len() as u64,
        shape: format!("{}x{}", arch.blocks, arch.channels),
    })
}

/// Builds `DIR/Strategy.so` from `DIR/Strategy.cpp` as the platform does (`g++ -O2`, a
/// shared object).
pub fn build(dir: &Path) -> Result<PathBuf, ExportError> {
    let source_path = dir.join("Strategy.cpp");
    cpp_export::compile("g++", &["-O2", "-shared", "-fPIC"], &source_path, &dir.join("Strategy.so"))
        .map_err(|reason| ExportError::Build { source_path, reason })
}

/// The strategy's check entry points: the SDK's eight arguments of a position (`M, N, top,
/// board, lastX, lastY, noX, noY`), two out-parameters, a status.
type PositionEntry<A, B> =
    unsafe extern "C" fn(c_int, c_int, *const c_int, *const c_int, c_int, c_int, c_int, c_int, A, B) -> c_int;

/// `int dojoEvaluate(M, N, top, board, lastX, lastY, noX, noY, float* policy, float* value)`.
type Evaluate = PositionEntry<*mut f32, *mut f32>;

/// `int dojoLookahead(M, N, top, board, lastX, lastY, noX, noY, int* moves, int* count)`:
/// 0 the moves worth searching, 1 a win (the first move), 2 lost, -1 a board it refuses.
type LookaheadFn = PositionEntry<*mut c_int, *mut c_int>;

/// `int dojoRollout(M, N, top, board, lastX, lastY, noX, noY, uint64_t* state, float*
/// result)`: one rollout from the position, from the stream at `*state` (advanced).
type RolloutFn = PositionEntry<*mut u64, *mut f32>;

/// `int dojoUseFastKernel(int fast)`: the AVX2 convolution (1) or the portable one (0);
/// returns 1 if the AVX2 one is now in use.
type UseFastKernel = unsafe extern "C" fn(c_int) -> c_int;

pub use crate::cpp_export::Kernel;

/// How closely the strategy's network matched dojo's: the largest differences over every
/// kernel checked, each on the same positions.
#[derive(Clone, Debug, PartialEq)]
pub struct Agreement {
    /// The kernels checked, the one a strategy starts on first.
    pub kernels: Vec<Kernel>,
    pub positions: usize,
    /// Distinct board sizes among them.
    pub sizes: usize,
    /// The largest difference of a column's probability.
    pub policy: f32,
    /// The largest difference of a value.
    pub value: f32,
}

/// Compares the built strategy `so`'s `dojoEvaluate` with `model` (run by libtorch in f32)
/// on `positions` random positions of random saiblo boards, drawn from `seed`, once for each
/// kernel the strategy can run on this machine; and its `dojoLookahead` with dojo's
/// two-step lookahead on each, which must be the same ([`ExportError::LookaheadDiffers`]),
/// as must one rollout of each from a random stream ([`ExportError::RolloutDiffers`]).
pub fn check_agreement(so: &Path, model: &Model, positions: usize, seed: u64) -> Result<Agreement, ExportError> {
    // SAFETY: a shared object this module wrote and built; its initialisers only build
    // tables of its own.
    let library =
        unsafe { libloading::Library::new(so) }.map_err(|error| ExportError::Load { path: so.to_path_buf(), error })?;
    let missing = |symbol| ExportError::NoEntryPoint { path: so.to_path_buf(), symbol };
    // SAFETY: the signatures `cpp/saiblo.cpp` declares.
    let evaluate =
        unsafe { library.get::<Evaluate>(b"dojoEvaluate\0") }.map(|f| *f).map_err(|_| missing("dojoEvaluate"))?;
    let lookahead =
        unsafe { library.get::<LookaheadFn>(b"dojoLookahead\0") }.map(|f| *f).map_err(|_| missing("dojoLookahead"))?;
    let rollout =
        unsafe { library.get::<RolloutFn>(b"dojoRollout\0") }.map(|f| *f).map_err(|_| missing("dojoRollout"))?;
    let use_fast = unsafe { library.get::<UseFastKernel>(b"dojoUseFastKernel\0") }
        .map(|f| *f)
        .map_err(|_| missing("dojoUseFastKernel"))?;
    // SAFETY: it sets one flag of the strategy's.
    let fast = unsafe { use_fast(1) } == 1;
    let kernels: Vec<Kernel> = [fast.then_some(Kernel::Avx2), Some(Kernel::Portable)].into_iter().flatten().collect();
    let mut agreement = Agreement { kernels: kernels.clone(), positions, sizes: 0, policy: 0.0, value: 0.0 };
    let arch = model.arch();
    let frame = (arch.width, arch.height);
    let mut rng = Rng::seed_from_u64(seed);
    let mut sizes = std::collections::BTreeSet::new();
    let (mut planes, mut logits, mut value) = (vec![0.0; arch.input_len()], vec![0.0; arch.actions], [0.0f32]);
    for _ in 0..positions {
        let (game, moves) = random_position(&mut rng);
        sizes.insert((game.width(), game.height()));
        let view = SaibloView::of(&game).expect("a saiblo board has one blocked cell");
        let framed = AnyGame::Connect4Wide(game.clone()).framed(frame.0, frame.1).expect("saiblo boards fit the frame");
        let AnyGame::Connect4Wide(framed) = framed else { unreachable!("framing keeps the game") };
        framed.encode_planes(&mut planes);
        model.infer(&planes, 1, &mut logits, &mut value);
        let mut legal = Vec::new();
        game.legal_actions(&mut legal);
        let want = cpp_export::softmax_over(&logits, &legal, game.width());
        let (m, n, top, board, last_x, last_y, no_x, no_y) = view.sdk_args();
        // dojo's answer once, the strategy's with each kernel.
        for &kernel in &kernels {
            let (mut policy, mut theirs) = (vec![0.0f32; game.width()], 0.0f32);
            // SAFETY: `use_fast` sets one flag of the strategy's; the arrays have the sizes
            // `evaluate`'s signature promises for this board.
            let status = unsafe {
                use_fast(c_int::from(kernel == Kernel::Avx2));
                evaluate(m, n, top, board, last_x, last_y, no_x, no_y, policy.as_mut_ptr(), &mut theirs)
            };
            if status != 0 {
                return Err(ExportError::Refused { board: game.spec(), entry_point: "dojoEvaluate" });
            }
            for (a, b) in want.iter().zip(&policy) {
                agreement.policy = agreement.policy.max((a - b).abs());
            }
            agreement.value = agreement.value.max((value[0] - theirs).abs());
        }
        check_lookahead(lookahead, &game, &moves, &view)?;
        check_rollout(rollout, &game, &moves, &view, rng.random::<u64>())?;
    }
    agreement.sizes = sizes.len();
    Ok(agreement)
}

/// The strategy's `dojoLookahead` on `game` (reached by `moves`, shown as `view`) against
/// dojo's two-step lookahead: the same answer, or [`ExportError::LookaheadDiffers`].
fn check_lookahead(
    lookahead: LookaheadFn,
    game: &Connect4<Bits192>,
    moves: &[dojo_game::Action],
    view: &SaibloView,
) -> Result<(), ExportError> {
    let (m, n, top, board, last_x, last_y, no_x, no_y) = view.sdk_args();
    let mut dojo_moves = Vec::new();
    let dojo = describe(game.two_step_lookahead(&mut dojo_moves), &dojo_moves);
    let (mut columns, mut count) = (vec![0 as c_int; game.width()], 0 as c_int);
    // SAFETY: `columns` holds a column per board column, as the signature asks.
    let status = unsafe { lookahead(m, n, top, board, last_x, last_y, no_x, no_y, columns.as_mut_ptr(), &mut count) };
    let theirs = match (status, count) {
        (-1, _) => return Err(ExportError::Refused { board: game.spec(), entry_point: "dojoLookahead" }),
        (1, 1) => describe(Lookahead::Win(columns[0] as dojo_game::Action), &[]),
        (0 | 2, k) if (0..=game.width() as c_int).contains(&k) => {
            let columns: Vec<dojo_game::Action> =
                columns[..k as usize].iter().map(|&c| c as dojo_game::Action).collect();
            describe(if status == 2 { Lookahead::Lost } else { Lookahead::Moves }, &columns)
        }
        _ => format!("the answer {status} with {count} columns"),
    };
    if theirs != dojo {
        let moves = game.moves_to_text(moves);
        return Err(ExportError::LookaheadDiffers { board: game.spec(), moves, dojo, strategy: theirs });
    }
    Ok(())
}

/// The strategy's `dojoRollout` on `game` from the stream at `state` against dojo's
/// [`Connect4::rollout`]: the same result and the stream left at the same place (so the same
/// random choices), or [`ExportError::RolloutDiffers`].
fn check_rollout(
    rollout: RolloutFn,
    game: &Connect4<Bits192>,
    moves: &[dojo_game::Action],
    view: &SaibloView,
    state: u64,
) -> Result<(), ExportError> {
    let (m, n, top, board, last_x, last_y, no_x, no_y) = view.sdk_args();
    let mut dojo_state = state;
    let dojo_result = game.rollout(&mut dojo_state);
    let (mut their_state, mut their_result) = (state, f32::NAN);
    // SAFETY: two out-parameters, as the signature asks.
    let status = unsafe { rollout(m, n, top, board, last_x, last_y, no_x, no_y, &mut their_state, &mut their_result) };
    if status != 0 {
        return Err(ExportError::Refused { board: game.spec(), entry_point: "dojoRollout" });
    }
    if (dojo_result, dojo_state) != (their_result, their_state) {
        let said = |result: f32, end: u64| format!("{result} with the stream at {end:#x}");
        return Err(ExportError::RolloutDiffers {
            board: game.spec(),
            moves: game.moves_to_text(moves),
            start: state,
            dojo: said(dojo_result, dojo_state),
            strategy: said(their_result, their_state),
        });
    }
    Ok(())
}

/// A lookahead's answer in words, its columns numbered from 1 as dojo writes moves.
fn describe(look: Lookahead, moves: &[dojo_game::Action]) -> String {
    let columns: Vec<String> = moves.iter().map(|&c| (c + 1).to_string()).collect();
    match look {
        Lookahead::Win(c) => format!("wins with column {}", c + 1),
        Lookahead::Lost => format!("lost, keeping columns [{}]", columns.join(", ")),
        Lookahead::Moves => format!("columns [{}]", columns.join(", ")),
    }
}

/// A position of a random saiblo board after random moves, never a finished one, and the
/// moves that made it.
fn random_position(rng: &mut Rng) -> (Connect4<Bits192>, Vec<dojo_game::Action>) {
    let AnyGame::Connect4Wide(mut game) = GameSpec::Connect4Saiblo.new_game(rng).expect("saiblo boards start") else {
        unreachable!("saiblo boards are wide Connect Four boards")
    };
    let length = rng.random_range(0..game.width() * game.height());
    let mut moves = Vec::with_capacity(length);
    for _ in 0..length {
        let action = game.random_move(rng);
        let next = {
            let mut next = game.clone();
            next.play_unchecked(action);
            next
        };
        if next.outcome().is_some() {
            break;
        }
        game = next;
        moves.push(action);
    }
    (game, moves)
}

/// Loads `model_path` for export (on the CPU).
pub fn load(model_path: &Path) -> Result<Loaded, ExportError> {
    Ok(checkpoint::load(model_path, Device::Cpu, None)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A strategy whose tactics are not dojo's (here: its two-step kills left out) fails the
    /// check by name, with the position it went wrong on; the same strategy as written passes.
    #[test]
    fn a_strategy_whose_lookahead_is_not_dojos_fails_the_check() {
        let model_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../networks/connect4-saiblo.safetensors");
        dojo_net::device::set_threads(1); // libtorch's pool spins; one position at a time needs one
        let loaded = load(&model_path).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let source = write_strategy(&model_path, &loaded, &default_settings(), dir.path()).unwrap().source;
        let so = build(dir.path()).unwrap();
        let agreement = check_agreement(&so, &loaded.model, 200, 5).unwrap();
        assert_eq!((agreement.positions, agreement.sizes), (200, 16));

        let text = std::fs::read_to_string(&source).unwrap();
        let broken = text.replacen("    if (two_step) {", "    if (!two_step) {", 1);
        assert_ne!(broken, text, "the two-step branch is where the test expects it");
        let broken_dir = dir.path().join("broken");
        std::fs::create_dir_all(&broken_dir).unwrap();
        for name in ["Strategy.h", "Point.h"] {
            std::fs::copy(dir.path().join(name), broken_dir.join(name)).unwrap();
        }
        std::fs::write(broken_dir.join("Strategy.cpp"), broken).unwrap();
        let so = build(&broken_dir).unwrap();
        let err = check_agreement(&so, &loaded.model, 200, 5).unwrap_err();
        let said = err.to_string();
        assert!(matches!(err, ExportError::LookaheadDiffers { .. }), "{said}");
        assert!(said.starts_with("the strategy's two-step lookahead differs from dojo's on connect4:"), "{said}");
        assert!(said.contains(" after the moves ") && said.contains(", the strategy "), "{said}");
    }

    /// A strategy whose rollouts are not dojo's (here: it blocks the opponent's highest
    /// threat where dojo blocks the lowest, which only matters with two) fails the check
    /// by name; the export's own passes (the test above).
    #[test]
    fn a_strategy_whose_rollouts_are_not_dojos_fails_the_check() {
        let model_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../networks/connect4-saiblo.safetensors");
        dojo_net::device::set_threads(1);
        let loaded = load(&model_path).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let source = write_strategy(&model_path, &loaded, &default_settings(), dir.path()).unwrap().source;
        let text = std::fs::read_to_string(&source).unwrap();
        assert!(text.contains("constexpr uint32_t ROLLOUTS = 4u;"), "the export's default rollouts");
        let broken = text.replacen("cell = lowest_cell(threats);", "cell = random_cell(threats, state);", 1);
        assert_ne!(broken, text, "the block is where the test expects it");
        std::fs::write(&source, broken).unwrap();
        let so = build(dir.path()).unwrap();
        let err = check_agreement(&so, &loaded.model, 1000, 5).unwrap_err();
        let said = err.to_string();
        assert!(matches!(err, ExportError::RolloutDiffers { .. }), "{said}");
        assert!(said.starts_with("the strategy's rollout differs from dojo's on connect4:"), "{said}");
        assert!(said.contains(" from the stream at 0x") && said.contains(", the strategy "), "{said}");
    }

    /// The rollouts' settings reach the generated constants.
    #[test]
    fn the_rollout_settings_are_the_strategys_constants() {
        let mut config = default_settings();
        assert_eq!((config.search.rollouts, config.search.rollout_weight), (EXPORT_ROLLOUTS, 0.5));
        assert!(cpp_export::settings(&config)
            .contains("constexpr uint32_t ROLLOUTS = 4u;\nconstexpr float ROLLOUT_WEIGHT = 5e-1f;\n"));
        config.search.apply(&["search.rollouts=0", "search.rollout_weight=0.25"]).unwrap();
        let text = cpp_export::settings(&config);
        assert!(
            text.contains("constexpr uint32_t ROLLOUTS = 0u;\nconstexpr float ROLLOUT_WEIGHT = 2.5e-1f;\n"),
            "{text}"
        );
        assert!(text.contains("constexpr uint64_t ROLLOUT_SEED = 0x726f6c6cULL;"), "{text}");
    }
}
