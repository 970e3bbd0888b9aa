//! The number formats a network runs in, on the tensor side: each format's tensor kind.
//! The formats themselves, and what a user asks for, are `dojo_arch::precision` (plain
//! settings a run's config reads); the formats a device runs are its
//! ([`crate::device::Device::precisions`]).
//!
//! The format as data (`Precision`, `PrecisionChoice`) is `dojo_arch::precision`: one concept
//! in two layers.

use dojo_arch::precision::Precision;

/// The tensor kind `precision` computes in.
pub fn tensor_kind(precision: Precision) -> tch::Kind {
    match precision {
        Precision::F32 => tch::Kind::Float,
        Precision::Bf16 => tch::Kind::BFloat16,
        Precision::F16 => tch::Kind::Half,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_kinds() {
        assert_eq!(tensor_kind(Precision::F32), tch::Kind::Float);
        assert_eq!(tensor_kind(Precision::Bf16), tch::Kind::BFloat16);
    }
}
