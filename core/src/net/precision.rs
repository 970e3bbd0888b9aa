//! The number format self-play evaluates the network in.
//!
//! Self-play spends about 80% of its time in the network's forward pass (perf: 3×32 net,
//! Connect Four, one core), and that pass already runs near the core's peak f32 rate. CPUs
//! with bfloat16 dot products (AVX512-BF16; every AMX CPU has them too) do twice the
//! multiply-adds per instruction in bf16, with f32 accumulation: on this project's EPYC,
//! self-play made 1.42× the games per second, and a network played `mcts:1000` as well in
//! bf16 as in f32 (100-game matches: 88 and 88 wins against 87 and 92). Its 8-bit mantissa
//! moves a policy logit or a value by well under the differences a search acts on.
//!
//! Training stays in f32, and so do matches, gating and analysis, whose numbers are
//! compared across runs and machines. Without native bf16 a CPU would emulate it, slower
//! than f32: `auto` picks bf16 only where the CPU has it.

use std::fmt;
use std::str::FromStr;

/// The format a network's forward pass runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    F32,
    Bf16,
}

impl Precision {
    pub fn kind(self) -> tch::Kind {
        match self {
            Precision::F32 => tch::Kind::Float,
            Precision::Bf16 => tch::Kind::BFloat16,
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
        })
    }
}

/// What a user asks for: a format, or `auto` (bf16 on a CPU with native bf16, else f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PrecisionChoice {
    #[default]
    Auto,
    Fixed(Precision),
}

impl FromStr for PrecisionChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(PrecisionChoice::Auto),
            "f32" | "float" | "fp32" => Ok(PrecisionChoice::Fixed(Precision::F32)),
            "bf16" | "bfloat16" => Ok(PrecisionChoice::Fixed(Precision::Bf16)),
            _ => Err(format!("unknown precision {s:?}: expected auto, f32 or bf16")),
        }
    }
}

impl fmt::Display for PrecisionChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrecisionChoice::Auto => f.write_str("auto"),
            PrecisionChoice::Fixed(p) => p.fmt(f),
        }
    }
}

impl PrecisionChoice {
    /// The format to run in on `device`. `auto` keeps f32 on CUDA, where the gain depends
    /// on the GPU and has not been measured here.
    pub fn resolve(self, device: tch::Device) -> Precision {
        match self {
            PrecisionChoice::Fixed(p) => p,
            PrecisionChoice::Auto if device == tch::Device::Cpu && cpu_has_native_bf16() => Precision::Bf16,
            PrecisionChoice::Auto => Precision::F32,
        }
    }
}

/// Whether this CPU computes bf16 dot products natively (AVX512-BF16).
pub fn cpu_has_native_bf16() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_print_and_resolve() {
        for (text, choice) in [
            ("auto", PrecisionChoice::Auto),
            ("f32", PrecisionChoice::Fixed(Precision::F32)),
            ("bf16", PrecisionChoice::Fixed(Precision::Bf16)),
        ] {
            assert_eq!(text.parse::<PrecisionChoice>().unwrap(), choice);
            assert_eq!(choice.to_string(), text);
        }
        assert_eq!(" BF16 ".parse::<PrecisionChoice>().unwrap(), PrecisionChoice::Fixed(Precision::Bf16));
        let err = "half".parse::<PrecisionChoice>().unwrap_err();
        assert_eq!(err, "unknown precision \"half\": expected auto, f32 or bf16");
        let cpu = tch::Device::Cpu;
        assert_eq!(PrecisionChoice::Fixed(Precision::F32).resolve(cpu), Precision::F32);
        let auto = if cpu_has_native_bf16() { Precision::Bf16 } else { Precision::F32 };
        assert_eq!(PrecisionChoice::Auto.resolve(cpu), auto);
        assert_eq!(PrecisionChoice::Auto.resolve(tch::Device::Cuda(0)), Precision::F32);
    }
}
