//! Node-local clocks: skew (an offset) and drift (a rate error), in integers.
//!
//! A node reads its own clock through `Context::local_clock`, and the delays it gives to timers
//! are measured on that clock, so a node whose clock runs fast fires its timers early in true
//! time, as a real lease holder with a fast clock would.

use crate::time::{Duration, Instant};
use serde::{Deserialize, Serialize};

const PPM: i128 = 1_000_000;

/// A node's clock error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Clock {
    /// Offset from true time, in nanoseconds (positive: ahead).
    pub skew_ns: i64,
    /// Rate error in parts per million (positive: runs fast). Must be above -1 000 000.
    pub drift_ppm: i64,
}

impl Clock {
    /// Checks that the clock still moves forward.
    pub fn validate(self) -> Result<(), String> {
        if self.drift_ppm <= -1_000_000 {
            return Err(format!(
                "a drift of {} ppm would stop or reverse the clock: use a value above -1000000",
                self.drift_ppm
            ));
        }
        Ok(())
    }

    /// What this clock reads at true time `now` (never below zero).
    pub fn local(self, now: Instant) -> Instant {
        if self == Clock::default() {
            return now;
        }
        let t = i128::from(now.0);
        let local = t + i128::from(self.skew_ns) + t * i128::from(self.drift_ppm) / PPM;
        Instant(local.clamp(0, i128::from(u64::MAX)) as u64)
    }

    /// How much true time passes while this clock advances by `local`.
    pub fn to_true(self, local: Duration) -> Duration {
        if self.drift_ppm == 0 {
            return local;
        }
        let d = i128::from(local.0) * PPM / (PPM + i128::from(self.drift_ppm));
        Duration(d.clamp(0, i128::from(u64::MAX)) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skew_offsets_and_drift_scales() {
        let c = Clock {
            skew_ns: 5,
            drift_ppm: 100_000,
        };
        assert_eq!(c.local(Instant(1_000)), Instant(1_105));
        // A clock 10 % fast sees 110 ns pass in 100 ns of true time.
        assert_eq!(c.to_true(Duration(110)), Duration(100));
        assert_eq!(Clock::default().local(Instant(7)), Instant(7));
        assert!(
            Clock {
                skew_ns: 0,
                drift_ppm: -1_000_000
            }
            .validate()
            .is_err()
        );
    }
}
