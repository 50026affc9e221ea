//! A link's laws: how long its packets take, how often it loses or duplicates them.
//!
//! Plain data read by the network (which link a message takes) and by the oracle (what the
//! laws decide for one message); neither module owns the other.

use crate::rng::{Ratio, SimRng};
use crate::time::Duration;
use serde::{Deserialize, Serialize};

/// How long a packet takes on a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Latency {
    /// Always the same.
    Fixed(Duration),
    /// Uniform in `[min, max]`.
    Uniform {
        /// Shortest.
        min: Duration,
        /// Longest.
        max: Duration,
    },
    /// Mostly near `min` with a heavy tail up to `max`: P(latency > x) is about min / x
    /// (a Pareto law of index 1, drawn with integers only: each doubling of the latency is half
    /// as likely as the one before).
    HeavyTail {
        /// Shortest, and the scale of the law.
        min: Duration,
        /// Cap.
        max: Duration,
    },
}

impl Latency {
    /// The shortest latency this law can give.
    pub fn min(self) -> Duration {
        match self {
            Latency::Fixed(d) => d,
            Latency::Uniform { min, .. } | Latency::HeavyTail { min, .. } => min,
        }
    }
    /// The longest latency this law can give.
    pub fn max(self) -> Duration {
        match self {
            Latency::Fixed(d) => d,
            Latency::Uniform { max, .. } | Latency::HeavyTail { max, .. } => max,
        }
    }

    /// Checks `min <= max` (and a positive minimum for the heavy tail).
    pub fn validate(self) -> Result<(), String> {
        if self.min() > self.max() {
            return Err(format!(
                "latency minimum {} is above its maximum {}",
                self.min(),
                self.max()
            ));
        }
        if let Latency::HeavyTail { min, .. } = self
            && min.0 == 0
        {
            return Err("a heavy-tailed latency needs a positive minimum (its scale)".into());
        }
        Ok(())
    }

    /// A latency drawn from this law (a fixed latency draws nothing).
    pub(crate) fn sample(self, rng: &mut SimRng) -> Duration {
        let (min, max) = (self.min().0, self.max().0);
        let span = max - min;
        if span == 0 {
            return Duration(min);
        }
        let offset = match self {
            Latency::Fixed(_) => 0,
            Latency::Uniform { .. } => rng.between(0, span),
            Latency::HeavyTail { .. } => heavy_tail_offset(rng, min, max),
        };
        Duration(min + offset)
    }
}

/// Pareto(1) by doublings: the number of doublings is geometric with ratio 1/2, then uniform
/// within the octave; capped at `max`.
fn heavy_tail_offset(rng: &mut SimRng, min: u64, max: u64) -> u64 {
    let doublings = rng.next_u64().trailing_zeros().min(62);
    let low = min.saturating_mul(1u64 << doublings).min(max);
    let high = min.saturating_mul(1u64 << (doublings + 1)).min(max);
    rng.between(low, high) - min
}

/// The behaviour of a link (or of every link, as the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LinkConfig {
    /// How long packets take.
    pub latency: Latency,
    /// Probability that a packet is lost.
    pub loss: Ratio,
    /// Probability that a packet is delivered twice.
    pub duplicate: Ratio,
}

impl LinkConfig {
    /// A link whose latency is uniform in [`min_ms`, `max_ms`] milliseconds, nothing lost or
    /// duplicated (add those with [`LinkConfig::with_loss`]).
    pub fn uniform_ms(min_ms: u64, max_ms: u64) -> Self {
        LinkConfig {
            latency: Latency::Uniform {
                min: Duration::from_millis(min_ms),
                max: Duration::from_millis(max_ms),
            },
            ..LinkConfig::default()
        }
    }

    /// This link, losing each message with probability `loss`.
    pub fn with_loss(self, loss: Ratio) -> Self {
        LinkConfig { loss, ..self }
    }
}

impl Default for LinkConfig {
    /// A healthy LAN: 1 ms, nothing lost, nothing duplicated.
    fn default() -> Self {
        LinkConfig {
            latency: Latency::Fixed(Duration::from_millis(1)),
            loss: Ratio::ZERO,
            duplicate: Ratio::ZERO,
        }
    }
}
