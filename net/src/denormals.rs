//! Subnormal floats treated as zero in this thread's arithmetic.
//!
//! Weight decay shrinks a network's unused weights towards zero, and after some minutes of
//! training hundreds of them are subnormal (below 1.2e-38 in f32). An Intel CPU takes a
//! microcode assist on every multiply with a subnormal operand or result: in a 30-minute
//! Connect Four run on one core (issue 35) the default 3×32 network's forward pass ran
//! 7.5× slower at the end than a same-sized network without them (2,549 against 19,264
//! evaluations a second at batch 64), and self-play fell from 9.4 to under 2 games a
//! second. Flushing them to zero changes no result that matters (they are 1e-38 of the
//! weights beside them), as libtorch's own `set_flush_denormal` (which tch does not expose)
//! and every serious engine's inference do.
//!
//! The setting is a per-thread CPU flag (MXCSR's DAZ and FTZ on x86-64, FPCR's FZ on
//! AArch64), inherited by threads started afterwards. It is set where networks run: each
//! inference ([`super::model::infer_with`]) and training step sets it for its own thread,
//! which costs two instructions and holds whichever thread a caller runs them on.

/// Makes this thread treat subnormal inputs as zero and flush subnormal results to zero.
#[inline]
pub fn flush_to_zero() {
    #[cfg(target_arch = "x86_64")]
    {
        // MXCSR bit 15 (FTZ: flush-to-zero) and bit 6 (DAZ: denormals-are-zero); SSE and
        // AVX (VEX/EVEX) arithmetic, oneDNN's kernels included, obey them.
        const FTZ_DAZ: u32 = (1 << 15) | (1 << 6);
        let mut csr: u32 = 0;
        // SAFETY: stmxcsr/ldmxcsr read and write the thread's SSE control register only; the
        // value written is the current one with two mode bits set.
        unsafe {
            std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
            if csr & FTZ_DAZ != FTZ_DAZ {
                csr |= FTZ_DAZ;
                std::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags, readonly));
            }
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        // FPCR bit 24 (FZ): flush subnormal inputs and results to zero.
        // SAFETY: reads and writes the thread's floating-point control register only.
        unsafe {
            let mut fpcr: u64;
            std::arch::asm!("mrs {}, fpcr", out(reg) fpcr, options(nomem, nostack, preserves_flags));
            if fpcr & (1 << 24) == 0 {
                fpcr |= 1 << 24;
                std::arch::asm!("msr fpcr, {}", in(reg) fpcr, options(nomem, nostack, preserves_flags));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Clears the flags again (gradual underflow, the CPU's default), so the test starts
    /// from it whatever thread ran an inference before.
    fn allow_subnormals() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `flush_to_zero`.
        unsafe {
            let mut csr: u32 = 0;
            std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
            csr &= !((1 << 15) | (1 << 6));
            std::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags, readonly));
        }
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as in `flush_to_zero`.
        unsafe {
            let mut fpcr: u64;
            std::arch::asm!("mrs {}, fpcr", out(reg) fpcr, options(nomem, nostack, preserves_flags));
            fpcr &= !(1 << 24);
            std::arch::asm!("msr fpcr, {}", in(reg) fpcr, options(nomem, nostack, preserves_flags));
        }
    }

    #[test]
    fn subnormal_operands_and_products_become_zero_in_this_thread_and_threads_it_starts() {
        // Operands and product through black boxes: the compiler can neither fold the
        // product at build time nor move the multiply across the flag changes (it assumes
        // the default floating-point mode, so only the boxes order the two).
        let product = |a: f32, b: f32| std::hint::black_box(std::hint::black_box(a) * std::hint::black_box(b));
        let (before, after, sub_input, child) = std::thread::spawn(move || {
            allow_subnormals();
            let before = product(1e-20, 1e-20);
            flush_to_zero();
            let after = product(1e-20, 1e-20);
            // DAZ: a subnormal operand reads as zero.
            let sub_input = product(1e-39, 1e10);
            let child = std::thread::spawn(move || product(1e-20, 1e-20)).join().unwrap();
            allow_subnormals();
            (before, after, sub_input, child)
        })
        .join()
        .unwrap();
        assert!(before > 0.0 && before < f32::MIN_POSITIVE, "1e-40 is subnormal without the flags: {before}");
        if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
            assert_eq!(after, 0.0);
            assert_eq!(sub_input, 0.0);
            assert_eq!(child, 0.0, "a thread started afterwards inherits the flags");
        }
    }
}
