//! What dsim's bench binaries share: reading a process's peak memory, and the kernel bench's
//! workload.

pub mod kernel_cost;

/// The process's peak resident memory so far, in bytes (Linux's `VmHWM`; 0 elsewhere): a
/// bench runs each measurement in a child process of its own, so that this peak is that
/// measurement's.
pub fn peak_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}
