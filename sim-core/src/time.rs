//! Virtual time: integer nanoseconds since the start of a run.
//!
//! The kernel never reads the host clock. `Instant` and `Duration` are plain `u64` nanosecond
//! counts so that every comparison and sum is exact and the same on every machine. This module
//! also keeps the thread's current virtual time so that `tracing` diagnostics can be stamped with
//! it (see [`current`]); it does not know about node-local clocks (see `clock`).

use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in virtual time, in nanoseconds since the run started.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Instant(pub u64);

/// A span of virtual time, in nanoseconds.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Duration(pub u64);

impl Instant {
    /// The start of every run.
    pub const ZERO: Instant = Instant(0);
    /// The far future: used as "no deadline".
    pub const MAX: Instant = Instant(u64::MAX);

    /// The instant `ms` milliseconds after the start.
    pub const fn from_millis(ms: u64) -> Instant {
        Instant(ms.saturating_mul(1_000_000))
    }
    /// Nanoseconds since the start.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Whole milliseconds since the start (rounded down).
    pub const fn as_millis(self) -> u64 {
        self.0 / 1_000_000
    }
    /// The time elapsed since `earlier`, or zero if `earlier` is later.
    pub const fn saturating_since(self, earlier: Instant) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    /// No time at all.
    pub const ZERO: Duration = Duration(0);

    /// `ns` nanoseconds.
    pub const fn from_nanos(ns: u64) -> Duration {
        Duration(ns)
    }
    /// `us` microseconds.
    pub const fn from_micros(us: u64) -> Duration {
        Duration(us.saturating_mul(1_000))
    }
    /// `ms` milliseconds.
    pub const fn from_millis(ms: u64) -> Duration {
        Duration(ms.saturating_mul(1_000_000))
    }
    /// `s` seconds.
    pub const fn from_secs(s: u64) -> Duration {
        Duration(s.saturating_mul(1_000_000_000))
    }
    /// The length in nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// The length in whole milliseconds (rounded down).
    pub const fn as_millis(self) -> u64 {
        self.0 / 1_000_000
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, rhs: Duration) -> Instant {
        Instant(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, rhs: Duration) {
        *self = *self + rhs;
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;
    fn sub(self, rhs: Instant) -> Duration {
        self.saturating_since(rhs)
    }
}

impl Add for Duration {
    type Output = Duration;
    fn add(self, rhs: Duration) -> Duration {
        Duration(self.0.saturating_add(rhs.0))
    }
}

/// Formats nanoseconds the way the course prints times: `1.250s`, `120ms`, `3.5ms`, `800ns`.
fn fmt_nanos(ns: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if ns >= 1_000_000_000 {
        write!(f, "{}.{:03}s", ns / 1_000_000_000, (ns / 1_000_000) % 1000)
    } else if ns >= 1_000_000 {
        let frac = (ns / 100_000) % 10;
        if frac == 0 {
            write!(f, "{}ms", ns / 1_000_000)
        } else {
            write!(f, "{}.{}ms", ns / 1_000_000, frac)
        }
    } else if ns >= 1_000 {
        write!(f, "{}us", ns / 1_000)
    } else {
        write!(f, "{ns}ns")
    }
}

impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_nanos(self.0, f)
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_nanos(self.0, f)
    }
}

thread_local! {
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

/// The virtual time of the simulation running on this thread, for stamping diagnostics.
///
/// Each `Sim` sets it as it steps; it is a diagnostic aid only and never feeds a decision.
pub fn current() -> Instant {
    Instant(CURRENT.with(Cell::get))
}

pub(crate) fn set_current(now: Instant) {
    CURRENT.with(|c| c.set(now.0));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_reads_like_the_course() {
        assert_eq!(Instant::from_millis(120).to_string(), "120ms");
        assert_eq!(Instant(1_250_000_000).to_string(), "1.250s");
        assert_eq!(Duration(3_500_000).to_string(), "3.5ms");
        assert_eq!(Duration(800).to_string(), "800ns");
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        assert_eq!(Instant::MAX + Duration(5), Instant::MAX);
        assert_eq!(Instant(3) - Instant(5), Duration::ZERO);
    }
}
