//! The number format self-play evaluates the network in.
//!
//! Self-play spends most of its time in the network's forward pass, so the format matters:
//! CPUs with bfloat16 dot products (AVX512-BF16, AMX) do twice the multiply-adds per
//! instruction in bf16 with f32 accumulation, and on this project's EPYC self-play made
//! 1.42× the games per second in bf16, at equal strength (100-game matches against
//! `mcts:1000`: 88 and 88 wins in bf16 against 87 and 92 in f32). But a CPU flag does not
//! say which is faster: on an Intel Xeon with AVX512-BF16, libtorch's bf16 convolutions ran
//! 1.45× *slower* than f32. So `auto` does not guess: [`super::autotune`] times the network
//! the process will run in every candidate format and keeps the fastest.
//!
//! bf16's 8-bit mantissa moves a policy logit or a value by well under the differences a
//! search acts on. Matches, gating and analysis stay in f32: their numbers are compared
//! across runs and machines. Training (`train.precision`, `auto` by default) runs in bf16
//! where a timing of the network finds it at least 1.2× f32: mixed precision, the weights
//! and the optimizer in f32, which on 15×15 Gomoku data tracked f32's losses to the third
//! digit over 600 steps, and over an hour at equal CPU made 46% more steps and 19% more
//! games for a network as strong (52% of 200 games against f32's; docs/training.md).
//!
//! The tensor side of each format is `dojo_net::precision`: one concept in two layers.

use dojo_base::util::SettingError;
use std::fmt;
use std::str::FromStr;

/// The format a network's forward pass runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    F32,
    Bf16,
    /// IEEE half precision: on CUDA only (CPUs emulate it far slower than f32).
    F16,
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
            Precision::F16 => "f16",
        })
    }
}

impl FromStr for Precision {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<Self, SettingError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "f32" | "float" | "fp32" => Ok(Precision::F32),
            "bf16" | "bfloat16" => Ok(Precision::Bf16),
            "f16" | "fp16" | "half" => Ok(Precision::F16),
            _ => Err(SettingError::not_a_choice("unknown precision", s, "f32, bf16 or f16")),
        }
    }
}

/// What a user asks for: a format, or `auto` (the fastest by measurement). In a run's
/// config it is the same text as on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum PrecisionChoice {
    #[default]
    Auto,
    Fixed(Precision),
}

impl FromStr for PrecisionChoice {
    type Err = SettingError;
    fn from_str(s: &str) -> Result<Self, SettingError> {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(PrecisionChoice::Auto);
        }
        s.parse().map(PrecisionChoice::Fixed).map_err(|_| {
            SettingError::not_a_choice("unknown precision", s, "auto, f32, bf16 or f16 (f16 on CUDA only)")
        })
    }
}

impl TryFrom<String> for PrecisionChoice {
    type Error = SettingError;
    fn try_from(s: String) -> Result<Self, SettingError> {
        s.parse()
    }
}

impl From<PrecisionChoice> for String {
    fn from(c: PrecisionChoice) -> String {
        c.to_string()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_and_print() {
        for (text, choice) in [
            ("auto", PrecisionChoice::Auto),
            ("f32", PrecisionChoice::Fixed(Precision::F32)),
            ("bf16", PrecisionChoice::Fixed(Precision::Bf16)),
            ("f16", PrecisionChoice::Fixed(Precision::F16)),
        ] {
            assert_eq!(text.parse::<PrecisionChoice>().unwrap(), choice);
            assert_eq!(choice.to_string(), text);
        }
        assert_eq!(" BF16 ".parse::<PrecisionChoice>().unwrap(), PrecisionChoice::Fixed(Precision::Bf16));
        assert_eq!("AUTO".parse::<PrecisionChoice>().unwrap(), PrecisionChoice::Auto);
        let err = "int8".parse::<PrecisionChoice>().unwrap_err().to_string();
        assert_eq!(err, "unknown precision \"int8\": expected auto, f32, bf16 or f16 (f16 on CUDA only)");
    }
}
