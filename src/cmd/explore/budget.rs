//! The memory budget of an exhaustive search: its size from the flag or from the memory the
//! machine has free, and the gauge the search asks (the process's resident memory, read from
//! Linux's `/proc`; elsewhere no budget is enforced).

use sim_core::exhaustive::MemoryGauge;

/// Parses a size: bytes, or a number with `K`, `M`, `G` or `T` (powers of 1024, with an
/// optional `B` or `iB`): `4G`, `512M`, `1.5GiB`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        other => {
            return Err(format!(
                "unknown unit {other:?}: write a size such as 4G, 512M or 1.5GiB"
            ));
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size: write one such as 4G, 512M or 1.5GiB"))?;
    let bytes = value * (1u64 << shift) as f64;
    if !(1.0..1.8e19).contains(&bytes) {
        return Err(format!("{text:?}: give at least one byte"));
    }
    Ok(bytes as u64)
}

/// Reads a `kB` field of a `/proc` file (`VmRSS:` of `/proc/self/status`, `MemAvailable:` of
/// `/proc/meminfo`), in bytes.
fn proc_kb(path: &str, field: &str) -> Option<u64> {
    std::fs::read_to_string(path)
        .ok()?
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()
        .map(|kb| kb * 1024)
}

/// The budget to keep to: the flag's, or half of the memory available now; `None` where the
/// machine does not say.
pub fn budget(flag: Option<u64>) -> Option<u64> {
    flag.or_else(|| proc_kb("/proc/meminfo", "MemAvailable:").map(|b| b / 2))
}

/// The gauge of `budget` bytes: reached once this process's resident memory is at it.
pub fn gauge(budget: u64) -> Option<MemoryGauge> {
    proc_kb("/proc/self/status", "VmRSS:")?;
    Some(MemoryGauge::new(move || {
        proc_kb("/proc/self/status", "VmRSS:").is_some_and(|rss| rss >= budget)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("64 kb"), Ok(64 << 10));
        assert!(parse_size("4X").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("0").is_err());
    }
}
