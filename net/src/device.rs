//! Choosing where the network runs and how many threads libtorch may use.
//!
//! libtorch's intra-op pool spins while it waits for work: two processes whose pools
//! together exceed the cores slow each other down by up to ~100× (measured on a 2-core
//! machine). Every process that runs a network therefore sets its thread counts
//! explicitly, once, before the first tensor op.

use dojo_arch::precision::Precision;
use std::fmt;
use std::str::FromStr;
use std::sync::Once;

/// Where to run the network: `cpu`, `cuda` (device 0) or `cuda:N`. dojo's own type, which
/// every service and command speaks; only this crate turns it into libtorch's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Device {
    #[default]
    Cpu,
    Cuda(usize),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DeviceError {
    #[error("unknown device {0:?}: expected cpu, cuda or cuda:N")]
    Unknown(String),
    #[error("device {requested} was requested but libtorch sees no CUDA device{hint}")]
    NoCuda { requested: String, hint: String },
    #[error("device cuda:{index} was requested but only {count} CUDA device(s) exist")]
    NoSuchGpu { index: usize, count: usize },
    /// A number format the device cannot run (f16 on a CPU).
    #[error("precision {precision} runs only on CUDA devices, not on {device}; use f32, bf16 or auto")]
    Precision { precision: Precision, device: Device },
}

impl FromStr for Device {
    type Err = DeviceError;
    fn from_str(s: &str) -> Result<Self, DeviceError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cpu" => Ok(Device::Cpu),
            "cuda" | "gpu" => Ok(Device::Cuda(0)),
            other => other
                .strip_prefix("cuda:")
                .and_then(|n| n.parse().ok())
                .map(Device::Cuda)
                .ok_or_else(|| DeviceError::Unknown(s.to_string())),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => write!(f, "cpu"),
            Device::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

impl From<tch::Device> for Device {
    /// libtorch's device as dojo's (other kinds than CUDA count as the CPU).
    fn from(device: tch::Device) -> Device {
        match device {
            tch::Device::Cuda(i) => Device::Cuda(i),
            _ => Device::Cpu,
        }
    }
}

impl From<Device> for tch::Device {
    fn from(device: Device) -> tch::Device {
        match device {
            Device::Cpu => tch::Device::Cpu,
            Device::Cuda(i) => tch::Device::Cuda(i),
        }
    }
}

impl Device {
    /// The formats worth timing on this device: f32 and bf16 on a CPU (bf16 even without
    /// native support: libtorch may still be faster, and only a measurement knows), and
    /// f16 too on CUDA.
    pub fn precisions(self) -> &'static [Precision] {
        match self {
            Device::Cuda(_) => &[Precision::F32, Precision::Bf16, Precision::F16],
            Device::Cpu => &[Precision::F32, Precision::Bf16],
        }
    }

    /// The device itself once libtorch can run on it, or a clear error when CUDA was asked
    /// for and is not there.
    pub fn resolve(self) -> Result<Device, DeviceError> {
        match self {
            Device::Cpu => Ok(Device::Cpu),
            Device::Cuda(index) => {
                if !tch::Cuda::is_available() {
                    // has_cuda() is false without a GPU even where libtorch_cuda is
                    // loaded; has_cudart() says whether it is (its hooks registered).
                    let hint = if tch::utils::has_cudart() {
                        " (libtorch has CUDA support; is a GPU and its driver present?)"
                    } else {
                        " (this libtorch was built without CUDA)"
                    };
                    return Err(DeviceError::NoCuda { requested: self.to_string(), hint: hint.into() });
                }
                let count = tch::Cuda::device_count().max(0) as usize;
                if index >= count {
                    return Err(DeviceError::NoSuchGpu { index, count });
                }
                Ok(Device::Cuda(index))
            }
        }
    }
}

/// Sets libtorch's intra-op and inter-op thread counts for this process, and has the C
/// allocator keep the memory libtorch frees ([`super::allocator`]). Only the first call has
/// an effect (libtorch refuses to change the inter-op pool once it has started).
pub fn set_threads(threads: usize) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        super::allocator::keep_freed_memory();
        // Threads started from here on inherit it (see `denormals`).
        super::denormals::flush_to_zero();
        let n = threads.max(1) as i32;
        tch::set_num_interop_threads(n);
        tch::set_num_threads(n);
    });
}

/// An error naming the problem when `device` cannot run `precision` (f16 on a CPU).
pub fn check_precision(precision: Precision, device: Device) -> Result<(), DeviceError> {
    if device.precisions().contains(&precision) {
        Ok(())
    } else {
        Err(DeviceError::Precision { precision, device })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn precisions_each_device_runs() {
        let cpu = Device::Cpu;
        assert!(check_precision(Precision::Bf16, cpu).is_ok());
        assert_eq!(
            check_precision(Precision::F16, cpu).unwrap_err().to_string(),
            "precision f16 runs only on CUDA devices, not on cpu; use f32, bf16 or auto"
        );
        assert!(check_precision(Precision::F16, Device::Cuda(1)).is_ok());
        assert_eq!(Device::Cpu.precisions(), &[Precision::F32, Precision::Bf16]);
        assert_eq!(Device::Cuda(0).precisions().len(), 3);
    }

    use super::*;
    use tch::{Kind, Tensor};

    #[test]
    fn libtorch_links_and_computes() {
        set_threads(1);
        let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0]).reshape([2, 2]);
        let b = a.matmul(&a);
        let got: Vec<f32> = Vec::try_from(b.flatten(0, 1)).unwrap();
        assert_eq!(got, vec![7.0, 10.0, 15.0, 22.0]);
        assert_eq!(tch::get_num_threads(), 1);
        assert_eq!(b.kind(), Kind::Float);
    }

    #[test]
    fn device_specs_parse_and_cuda_absence_is_a_clear_error() {
        assert_eq!("cpu".parse::<Device>(), Ok(Device::Cpu));
        assert_eq!("cuda".parse::<Device>(), Ok(Device::Cuda(0)));
        assert_eq!("cuda:1".parse::<Device>(), Ok(Device::Cuda(1)));
        let err = "tpu".parse::<Device>().unwrap_err();
        assert_eq!(err.to_string(), "unknown device \"tpu\": expected cpu, cuda or cuda:N");
        assert_eq!(Device::Cpu.resolve(), Ok(Device::Cpu));
        assert_eq!(tch::Device::from(Device::Cuda(2)), tch::Device::Cuda(2));
        assert_eq!(Device::from(tch::Device::Cuda(3)), Device::Cuda(3));
        assert_eq!(Device::from(tch::Device::Mps), Device::Cpu);
        if !tch::Cuda::is_available() {
            let err = Device::Cuda(0).resolve().unwrap_err().to_string();
            assert!(err.starts_with("device cuda:0 was requested but libtorch sees no CUDA device"), "{err}");
            let hint = match tch::utils::has_cudart() {
                true => "(libtorch has CUDA support; is a GPU and its driver present?)",
                false => "(this libtorch was built without CUDA)",
            };
            assert!(err.ends_with(hint), "{err}");
        }
    }
}
