//! What dsim's bench binaries share: reading a process's peak memory, a search's work
//! directory on disk, and the kernel bench's workload.

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

/// A directory for one search's frontier on disk, removed when dropped.
pub struct SearchDir(std::path::PathBuf);

impl SearchDir {
    /// A fresh directory in the system's temporary one.
    pub fn new() -> SearchDir {
        let dir = std::env::temp_dir().join(format!("dsim-bench-search-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        SearchDir(dir)
    }

    /// The search's frontier there.
    pub fn frontier(&self) -> sim_core::exhaustive::DiskFrontier {
        sim_core::exhaustive::DiskFrontier {
            dir: self.0.clone(),
            resume: false,
            identity: 0,
        }
    }

    /// The bytes its files take.
    pub fn bytes(&self) -> u64 {
        std::fs::read_dir(&self.0)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok()?.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    }
}

impl Default for SearchDir {
    fn default() -> Self {
        SearchDir::new()
    }
}

impl Drop for SearchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
