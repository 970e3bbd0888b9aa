//! Keeping freed memory in the process, for libtorch's sake.
//!
//! libtorch allocates every activation of every forward pass (and every gradient of every
//! training step) with plain `malloc` and frees it right after. glibc hands the top of its
//! heap back to the kernel on such frees (and serves large blocks with fresh `mmap`s), so
//! the next pass faults every page in again and the kernel zeroes it: in `perf` of
//! `dojo bench selfplay` (3×32 net, Connect Four, one core) page faults, `brk` and `munmap`
//! took 10% of the time and `malloc` itself 5%. Raising the trim and mmap thresholds keeps
//! the pages of one pass for the next; a process's peak use is the same either way.

/// Blocks up to this size come from the heap, not from their own `mmap`.
const MMAP_THRESHOLD: i32 = 256 << 20;
/// The heap is trimmed only when this much is free at its top.
const TRIM_THRESHOLD: i32 = 1 << 30;

/// Tells the C allocator to keep freed memory (glibc only; elsewhere it does nothing).
/// Returns whether it took effect.
pub fn keep_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets allocator parameters; valid at any time.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn glibc_takes_the_thresholds() {
        assert_eq!(super::keep_freed_memory(), cfg!(all(target_os = "linux", target_env = "gnu")));
    }
}
