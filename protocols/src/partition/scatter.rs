//! Scatter/gather: a query that asks every partition is as slow as its slowest answer.
//!
//! Text 000, section 4: with hash partitioning, a query that names no partition key (a range
//! of dates, a secondary attribute) goes to all partitions and waits for the last one. If each
//! partition is slower than 500 ms with probability 1 %, a query over 12 partitions is slower
//! than that with probability 1 - 0.99^12, about 11 %: the tail of one partition becomes the
//! common case of the query. This module simulates it (each partition's answer time drawn from
//! a seeded stream, the query's time the largest of them) so the measured share can be set
//! beside the formula, and shows how it grows with the fan-out.

use sim_core::{Ratio, SimRng, Stream};

/// How partitions answer: a fast answer most of the time, a slow one with probability `slow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnswerTimes {
    /// Chance that one partition answers slowly (text 000: 1/100).
    pub slow: Ratio,
    /// A fast answer takes between these many milliseconds (uniform, inclusive).
    pub fast_ms: (u64, u64),
    /// A slow answer takes between these many milliseconds (uniform, inclusive); its low end
    /// is above `threshold_ms`, so "slow" means "slower than the threshold".
    pub slow_ms: (u64, u64),
    /// What counts as a slow query (text 000: 500 ms).
    pub threshold_ms: u64,
}

impl AnswerTimes {
    /// The lesson's figures: 1 % of answers slower than 500 ms (501..=2000 ms), the rest in
    /// 5..=100 ms.
    pub fn lesson() -> AnswerTimes {
        AnswerTimes {
            slow: Ratio::new(1, 100).expect("1/100 is a probability"),
            fast_ms: (5, 100),
            slow_ms: (501, 2000),
            threshold_ms: 500,
        }
    }

    fn draw(&self, rng: &mut SimRng) -> u64 {
        let (low, high) = if rng.chance(self.slow) {
            self.slow_ms
        } else {
            self.fast_ms
        };
        rng.between(low, high)
    }
}

/// What `queries` queries over `fanout` partitions measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FanOut {
    /// Partitions each query asks.
    pub fanout: u32,
    /// Queries simulated.
    pub queries: u64,
    /// Queries whose slowest answer was above the threshold.
    pub slow_queries: u64,
    /// Median of the query's time, in ms.
    pub p50_ms: u64,
    /// 99th percentile of the query's time, in ms.
    pub p99_ms: u64,
}

impl FanOut {
    /// The measured share of slow queries.
    pub fn slow_share(&self) -> f64 {
        self.slow_queries as f64 / self.queries.max(1) as f64
    }
}

/// The share the formula predicts: 1 - (1 - p)^fanout.
pub fn predicted_share(slow: Ratio, fanout: u32) -> f64 {
    let p = f64::from(slow.numerator) / f64::from(slow.denominator);
    1.0 - (1.0 - p).powi(fanout as i32)
}

/// Simulates `queries` queries, each asking `fanout` partitions, from `seed`'s stream (one
/// stream per fan-out, so adding a fan-out to a sweep leaves the others' figures alone).
pub fn simulate(times: &AnswerTimes, fanout: u32, queries: u64, seed: u64) -> FanOut {
    let mut rng = SimRng::new(seed, Stream::Node(u64::from(fanout)));
    let mut query_ms: Vec<u64> = Vec::with_capacity(queries as usize);
    for _ in 0..queries {
        let slowest = (0..fanout).map(|_| times.draw(&mut rng)).max().unwrap_or(0);
        query_ms.push(slowest);
    }
    let slow_queries = query_ms
        .iter()
        .filter(|&&ms| ms > times.threshold_ms)
        .count() as u64;
    query_ms.sort_unstable();
    let rank = |q: u64| -> u64 {
        let i = (q * queries).div_ceil(100).max(1) - 1;
        query_ms.get(i as usize).copied().unwrap_or(0)
    };
    FanOut {
        fanout,
        queries,
        slow_queries,
        p50_ms: rank(50),
        p99_ms: rank(99),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Goal: the lesson's figure. Method: 100,000 queries over 12 partitions with the lesson's
    // answer times. Proves: the measured share of slow queries is within half a point of
    // 1 - 0.99^12 = 11.4 %, and one partition alone is slow about 1 % of the time.
    #[test]
    fn twelve_partitions_are_slow_about_eleven_percent_of_the_time() {
        let times = AnswerTimes::lesson();
        let twelve = simulate(&times, 12, 100_000, 0);
        let predicted = predicted_share(times.slow, 12);
        assert!((predicted - 0.1136).abs() < 0.0001, "{predicted}");
        assert!(
            (twelve.slow_share() - predicted).abs() < 0.005,
            "{twelve:?}"
        );
        let one = simulate(&times, 1, 100_000, 0);
        assert!((one.slow_share() - 0.01).abs() < 0.001, "{one:?}");
        assert!(one.p99_ms <= 500 && twelve.p99_ms > 500);
    }

    // Goal: determinism. Method: the same simulation twice, and with another seed. Proves: a
    // seed gives the same figures every time, and another seed other figures.
    #[test]
    fn a_seed_gives_the_same_figures() {
        let times = AnswerTimes::lesson();
        assert_eq!(simulate(&times, 12, 5000, 7), simulate(&times, 12, 5000, 7));
        assert_ne!(simulate(&times, 12, 5000, 7), simulate(&times, 12, 5000, 8));
    }
}
