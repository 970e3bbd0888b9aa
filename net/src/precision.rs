//! The number formats a network runs in, on the tensor side: each format's tensor kind,
//! and the formats worth timing on a device. The formats themselves, and what a user asks
//! for, are `dojo_arch::precision` (plain settings a run's config reads).

use crate::device::Device;
use dojo_arch::precision::Precision;

/// The tensor kind `precision` computes in.
pub fn tensor_kind(precision: Precision) -> tch::Kind {
    match precision {
        Precision::F32 => tch::Kind::Float,
        Precision::Bf16 => tch::Kind::BFloat16,
        Precision::F16 => tch::Kind::Half,
    }
}

/// The formats worth timing on `device`: f32 and bf16 on a CPU (bf16 even without native
/// support: libtorch may still be faster, and only a measurement knows), and f16 too on
/// CUDA.
pub fn candidates(device: Device) -> &'static [Precision] {
    match device {
        Device::Cuda(_) => &[Precision::F32, Precision::Bf16, Precision::F16],
        Device::Cpu => &[Precision::F32, Precision::Bf16],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_and_devices() {
        assert_eq!(candidates(Device::Cpu), &[Precision::F32, Precision::Bf16]);
        assert_eq!(candidates(Device::Cuda(0)).len(), 3);
        assert_eq!(tensor_kind(Precision::Bf16), tch::Kind::BFloat16);
    }
}
