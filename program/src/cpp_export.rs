//! The one C++ code generator behind `dojo export saiblo` and `dojo export gomocup`: a
//! network and dojo's search written as a single plain C++ file (no library, one thread)
//! that a platform builds with its own compiler.
//!
//! The file is assembled from parts (program/src/cpp/): what every engine shares
//! (`common.cpp`), the generated constants (the search's settings and the network's
//! weights, [`settings`], [`weights`]), a game (`connect4.cpp` or `gomoku.cpp`: the board,
//! its tactics, its input planes, which cell's logit is a move's), the network
//! (`network.cpp`) and the search (`search.cpp`), which ask the game only what
//! `cpp/README.md` lists; then a front end, the platform's side (`saiblo.cpp`: the SDK's two
//! functions; `gomocup.cpp`: a brain's `main` speaking the protocol), whose `//@ENGINE@`
//! line the rest replaces. Two front ends and two games over one network and one search.
//!
//! The weights are the folded inference network's
//! ([`FoldedNetwork`](dojo_net::folded::FoldedNetwork), every batch norm
//! folded into its convolution, in f32), written as the shortest decimals that read back to
//! the same floats.

use dojo_net::checkpoint::Loaded;
use dojo_net::folded::{PlainAnySize, PlainLayer};
use dojo_search::config::{SearchConfig, SearchMode, MAX_TIMED_PLAYOUTS};
use dojo_search::puct::ROLLOUT_SEED;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const COMMON: &str = include_str!("cpp/common.cpp");
const NETWORK: &str = include_str!("cpp/network.cpp");
const SEARCH: &str = include_str!("cpp/search.cpp");
/// The line of a front end the engine replaces.
const ENGINE_LINE: &str = "//@ENGINE@\n";

/// The game an engine plays: its part of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GamePart {
    Connect4,
    Gomoku,
}

impl GamePart {
    fn source(self) -> &'static str {
        match self {
            GamePart::Connect4 => include_str!("cpp/connect4.cpp"),
            GamePart::Gomoku => include_str!("cpp/gomoku.cpp"),
        }
    }
}

/// The whole engine: `front` (a front end's source) with its `//@ENGINE@` line replaced by
/// the shared parts, `generated` (constants and weights) and `game`'s part.
pub fn assemble(front: &str, game: GamePart, generated: &str) -> String {
    debug_assert!(front.contains(ENGINE_LINE), "a front end has an //@ENGINE@ line");
    let generated = format!("namespace dojo {{\n\n{generated}\n}}  // namespace dojo\n");
    let engine = [COMMON, "\n", &generated, "\n", game.source(), "\n", NETWORK, "\n", SEARCH].concat();
    front.replacen(ENGINE_LINE, &engine, 1)
}

/// How an exported engine searches.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSettings {
    /// Searches stop at this many playouts (None: only the clock stops them, and Gumbel
    /// mode's sequential halving plans for [`MAX_TIMED_PLAYOUTS`], as a `net:` player by
    /// the clock does).
    pub playouts: Option<u32>,
    /// Milliseconds each move searches for (a front end with a protocol clock may use less).
    pub move_ms: u64,
    /// The search's settings.
    pub search: SearchConfig,
}

/// The search's settings as C++ constants.
pub fn settings(config: &SearchSettings) -> String {
    let s = &config.search;
    let flag = |b: bool| if b { "true" } else { "false" };
    format!(
        "constexpr uint32_t MAX_PLAYOUTS = {}u;\nconstexpr int MOVE_MS = {};\nconstexpr float C_PUCT = {:e}f;\n\
         constexpr float FPU_REDUCTION = {:e}f;\nconstexpr bool TACTICS = {};\nconstexpr bool TWO_STEP_KILLS = {};\n\
         constexpr uint32_t VCF_NODES = {}u;\n\
         constexpr bool REUSE_TREE = {};\nconstexpr bool GUMBEL = {};\nconstexpr uint32_t GUMBEL_CONSIDERED = {}u;\n\
         constexpr float GUMBEL_C_VISIT = {:e}f;\nconstexpr float GUMBEL_C_SCALE = {:e}f;\n\
         constexpr uint32_t ROLLOUTS = {}u;\nconstexpr float ROLLOUT_WEIGHT = {:e}f;\n\
         constexpr uint64_t ROLLOUT_SEED = {:#x}ULL;\n",
        config.playouts.unwrap_or(MAX_TIMED_PLAYOUTS),
        config.move_ms.min(i32::MAX as u64),
        s.c_puct,
        s.fpu_reduction,
        flag(s.tactics),
        flag(s.tactics && s.two_step_kills),
        s.vcf_nodes,
        flag(s.reuse_tree),
        flag(s.mode == SearchMode::Gumbel),
        s.gumbel_considered,
        s.gumbel_c_visit,
        s.gumbel_c_scale,
        s.rollouts,
        s.rollout_weight,
        ROLLOUT_SEED,
    )
}

/// A comment naming the network a file was written from.
pub fn provenance(model_path: &Path, loaded: &Loaded) -> String {
    let arch = &loaded.sidecar.architecture;
    format!(
        "// Network: {} (step {}, version {}, sha256 {}), {}x{} any-size, {}.\n",
        model_path.display(),
        loaded.sidecar.step,
        loaded.sidecar.version,
        loaded.sidecar.sha256,
        arch.blocks,
        arch.channels,
        arch.game
    )
}

/// The layers as C++ arrays, in the layouts `network.cpp` reads: a 3×3 convolution's
/// kernel `[tap][in][out]`, a 1×1 convolution's or linear layer's `[in][out]`.
pub fn weights(net: &PlainAnySize) -> String {
    let channels = net.stem.shape[0];
    let hidden = net.value_fc1.shape[0];
    let mut out = format!(
        "constexpr int BLOCKS = {};\nconstexpr int CHANNELS = {channels};\nconstexpr int VALUE_HIDDEN = {hidden};\n",
        net.blocks.len()
    );
    array(&mut out, "STEM_W", &kernel_3x3(&net.stem));
    array(&mut out, "STEM_B", &net.stem.bias);
    let convs: Vec<&PlainLayer> = net.blocks.iter().flat_map(|(a, b)| [a, b]).collect();
    out.push_str("const float BLOCK_W[][9 * CHANNELS * CHANNELS] = {\n");
    for conv in &convs {
        numbers(&mut out, &kernel_3x3(conv));
    }
    out.push_str("};\nconst float BLOCK_B[][CHANNELS] = {\n");
    for conv in &convs {
        numbers(&mut out, &conv.bias);
    }
    out.push_str("};\n");
    for (name, layer) in [
        ("POLICY", &net.policy_conv),
        ("POLICY_GLOBAL", &net.policy_global),
        ("POLICY_OUT", &net.policy_out),
        ("VALUE", &net.value_conv),
        ("VALUE_FC1", &net.value_fc1),
        ("VALUE_FC2", &net.value_fc2),
    ] {
        array(&mut out, &format!("{name}_W"), &in_out(layer));
        array(&mut out, &format!("{name}_B"), &layer.bias);
    }
    out
}

/// `[out][in][3][3]` as `[tap][in][out]`.
fn kernel_3x3(conv: &PlainLayer) -> Vec<f32> {
    let (outs, ins) = (conv.shape[0], conv.shape[1]);
    let mut w = vec![0.0; conv.weight.len()];
    for o in 0..outs {
        for i in 0..ins {
            for tap in 0..9 {
                w[(tap * ins + i) * outs + o] = conv.weight[(o * ins + i) * 9 + tap];
            }
        }
    }
    w
}

/// `[out][in]` (a 1×1 kernel's trailing 1s aside) as `[in][out]`.
fn in_out(layer: &PlainLayer) -> Vec<f32> {
    let (outs, ins) = (layer.shape[0], layer.shape[1]);
    let mut w = vec![0.0; outs * ins];
    for o in 0..outs {
        for i in 0..ins {
            w[i * outs + o] = layer.weight[o * ins + i];
        }
    }
    w
}

fn array(out: &mut String, name: &str, values: &[f32]) {
    let _ = writeln!(out, "const float {name}[] = ");
    numbers(out, values);
    out.truncate(out.len() - ",\n".len());
    out.push_str(";\n");
}

/// `{a, b, ...},` with each float as the shortest decimal that reads back to it.
fn numbers(out: &mut String, values: &[f32]) {
    out.push('{');
    for (i, v) in values.iter().enumerate() {
        let sep = if i == 0 {
            ""
        } else if i % 8 == 0 {
            ",\n"
        } else {
            ", "
        };
        let _ = write!(out, "{sep}{v:e}f");
    }
    out.push_str("},\n");
}

/// Why a compiler made nothing.
#[derive(Debug, thiserror::Error)]
pub enum BuildFailure {
    #[error("cannot run {compiler}: {error}")]
    Run { compiler: String, error: std::io::Error },
    /// Its exit status and the last lines of its stderr, joined by " | ".
    #[error("{status}: {stderr_tail}")]
    Failed { status: std::process::ExitStatus, stderr_tail: String },
}

/// Compiles `source` into `output` with `compiler` and `flags` (before `-o`).
pub fn compile(compiler: &str, flags: &[&str], source: &Path, output: &Path) -> Result<PathBuf, BuildFailure> {
    let result = Command::new(compiler)
        .args(flags)
        .arg("-o")
        .arg(output)
        .arg(source)
        .output()
        .map_err(|error| BuildFailure::Run { compiler: compiler.to_string(), error })?;
    if !result.status.success() {
        let stderr = String::from_utf8_lossy(&result.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        let stderr_tail = tail.into_iter().rev().collect::<Vec<_>>().join(" | ");
        return Err(BuildFailure::Failed { status: result.status, stderr_tail });
    }
    Ok(output.to_path_buf())
}

/// The moves' probabilities: a softmax of `logits` over `legal`, 0 elsewhere (`moves` of
/// them), as an exported engine's check entry points report them.
pub fn softmax_over(logits: &[f32], legal: &[dojo_game::Action], moves: usize) -> Vec<f32> {
    let most = legal.iter().map(|&a| logits[a as usize]).fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = legal.iter().map(|&a| (logits[a as usize] - most).exp()).sum();
    let mut p = vec![0.0; moves];
    for &a in legal {
        p[a as usize] = (logits[a as usize] - most).exp() / sum;
    }
    p
}

/// One of an exported engine's two kernels for its convolutions (`cpp/network.cpp`): an
/// engine runs the first its processor has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// AVX2 and FMA intrinsics, on x86-64 processors that have them: the residual blocks'
    /// 3x3 convolutions by Winograd's F(2x2, 3x3), the others direct.
    Avx2,
    /// Plain C++, on any processor.
    Portable,
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Kernel::Avx2 => "the AVX2 kernel",
            Kernel::Portable => "the portable kernel",
        })
    }
}
