//! Seeded randomness: one seed, an independent ChaCha8 stream per purpose.
//!
//! Every random draw in a run comes from a [`SimRng`] derived from the run's seed and a
//! [`Stream`] naming its purpose (the network, one per node by name, the scenario's faults), so
//! adding a node or a draw in one place never reshuffles another. Sampling is our own integer
//! arithmetic over `next_u64` (no `rand` distributions, whose algorithms may change between
//! versions); probabilities are exact [`Ratio`]s. A golden test pins the first outputs.
//! This module does not decide what a draw means for the network: see `decide`.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// What a random stream is for; each purpose gets its own ChaCha8 stream of the run's seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Loss, duplication and latency decisions of the network.
    Network,
    /// Random choices made by the scenario's fault schedule.
    Faults,
    /// A swarm search's choice of which sorts of fault a seed has, and how strong.
    Swarm,
    /// A scheduler's own choices (PCT's priorities and change points).
    Scheduler,
    /// A node's own stream, keyed by its name so that adding a node leaves the others' alone.
    Node(u64),
}

impl Stream {
    /// The stream of the node called `name`.
    pub fn node(name: &str) -> Stream {
        Stream::Node(xxhash_rust::xxh3::xxh3_64(name.as_bytes()))
    }

    fn id(self) -> u64 {
        match self {
            Stream::Network => 1,
            Stream::Faults => 2,
            Stream::Swarm => 3,
            Stream::Scheduler => 4,
            // The top bit keeps node streams apart from the fixed purposes above.
            Stream::Node(h) => h | (1 << 63),
        }
    }
}

/// A deterministic random stream with our own sampling functions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimRng {
    inner: ChaCha8Rng,
}

impl SimRng {
    /// The stream for `purpose` of the run seeded with `seed`.
    pub fn new(seed: u64, purpose: Stream) -> SimRng {
        let mut inner = ChaCha8Rng::seed_from_u64(seed);
        inner.set_stream(purpose.id());
        SimRng { inner }
    }

    /// The next raw 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// A uniform integer in `[0, bound)`; `bound` must be positive.
    ///
    /// Lemire's multiply-and-reject: unbiased, and usually one draw. The rejection threshold
    /// (a division) is computed only when the low half falls below `bound`, which it rarely
    /// does; the answers are the same as with the threshold computed first.
    #[inline]
    pub fn below(&mut self, bound: u64) -> u64 {
        assert!(bound > 0, "SimRng::below(0)");
        let mut m = u128::from(self.next_u64()) * u128::from(bound);
        if (m as u64) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(bound);
            }
        }
        (m >> 64) as u64
    }

    /// A uniform integer in `[low, high]` (both included).
    #[inline]
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        assert!(low <= high, "SimRng::between({low}, {high})");
        match (high - low).checked_add(1) {
            Some(span) => low + self.below(span),
            None => self.next_u64(),
        }
    }

    /// True with probability exactly `p`.
    #[inline]
    pub fn chance(&mut self, p: Ratio) -> bool {
        if p.numerator == 0 {
            return false;
        }
        if p.numerator >= p.denominator {
            return true;
        }
        self.below(u64::from(p.denominator)) < u64::from(p.numerator)
    }

    /// Shuffles `items` in place (Fisher-Yates over [`SimRng::below`]).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// A probability as an exact fraction, written `"1/100"` in scenario files.
///
/// Invariant: `denominator > 0` and `numerator <= denominator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Ratio {
    /// Favourable outcomes.
    pub numerator: u32,
    /// All outcomes.
    pub denominator: u32,
}

impl Ratio {
    /// Never.
    pub const ZERO: Ratio = Ratio {
        numerator: 0,
        denominator: 1,
    };
    /// Always.
    pub const ONE: Ratio = Ratio {
        numerator: 1,
        denominator: 1,
    };

    /// `numerator / denominator`, or an error that says what is wrong.
    pub fn new(numerator: u32, denominator: u32) -> Result<Ratio, String> {
        if denominator == 0 {
            return Err(format!("{numerator}/0 has a zero denominator"));
        }
        if numerator > denominator {
            return Err(format!(
                "{numerator}/{denominator} is above 1: a probability is at most 1/1"
            ));
        }
        Ok(Ratio {
            numerator,
            denominator,
        })
    }

    /// True when the event can never happen.
    pub fn is_zero(self) -> bool {
        self.numerator == 0
    }
}

impl Default for Ratio {
    fn default() -> Ratio {
        Ratio::ZERO
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.numerator, self.denominator)
    }
}

impl FromStr for Ratio {
    type Err = String;
    fn from_str(s: &str) -> Result<Ratio, String> {
        let s = s.trim();
        let expected = || format!("expected a probability like \"1/100\" or \"0\", found {s:?}");
        if let Some((n, d)) = s.split_once('/') {
            let n = n.trim().parse().map_err(|_| expected())?;
            let d = d.trim().parse().map_err(|_| expected())?;
            Ratio::new(n, d)
        } else {
            match s {
                "0" => Ok(Ratio::ZERO),
                "1" => Ok(Ratio::ONE),
                _ => Err(expected()),
            }
        }
    }
}

impl TryFrom<String> for Ratio {
    type Error = String;
    fn try_from(s: String) -> Result<Ratio, String> {
        s.parse()
    }
}

impl From<Ratio> for String {
    fn from(r: Ratio) -> String {
        r.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Goal: a dependency bump can never change what a seed means. Method: pin the first raw
    /// outputs of seed 0's network stream and of a node stream, and the first sampled values.
    /// If this fails, the meaning of every recorded seed and golden trace changed.
    #[test]
    fn golden_first_outputs_of_seed_zero() {
        let mut net = SimRng::new(0, Stream::Network);
        let raw: Vec<u64> = (0..3).map(|_| net.next_u64()).collect();
        assert_eq!(raw, GOLDEN_NETWORK);
        let mut node = SimRng::new(0, Stream::node("nodo-3"));
        let sampled: Vec<u64> = (0..5).map(|_| node.between(150, 300)).collect();
        assert_eq!(sampled, GOLDEN_NODE);
    }

    const GOLDEN_NETWORK: [u64; 3] = [
        13937087304575520531,
        13615851043850391654,
        10883527568275655943,
    ];
    const GOLDEN_NODE: [u64; 5] = [150, 177, 218, 200, 257];

    #[test]
    fn streams_are_independent() {
        let a: Vec<u64> = {
            let mut r = SimRng::new(7, Stream::Network);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = SimRng::new(7, Stream::Faults);
            (0..4).map(|_| r.next_u64()).collect()
        };
        assert_ne!(a, b);
        let mut again = SimRng::new(7, Stream::Network);
        assert_eq!(a[0], again.next_u64());
    }

    proptest::proptest! {
        /// The lazy threshold changes no answer: against Lemire's method with the threshold
        /// computed before every draw, on bounds where rejection is common (near 2^63 and
        /// 2^64) and on small ones.
        #[test]
        fn below_answers_as_the_eager_threshold_does(
            seed in proptest::prelude::any::<u64>(),
            bound in proptest::prop_oneof![
                1u64..100,
                (1u64 << 63)..(1u64 << 63) + 1000,
                u64::MAX - 1000..=u64::MAX,
            ],
        ) {
            let mut lazy = SimRng::new(seed, Stream::Faults);
            let mut eager = SimRng::new(seed, Stream::Faults);
            for _ in 0..50 {
                let threshold = bound.wrapping_neg() % bound;
                let expected = loop {
                    let m = u128::from(eager.next_u64()) * u128::from(bound);
                    if (m as u64) >= threshold {
                        break (m >> 64) as u64;
                    }
                };
                proptest::prop_assert_eq!(lazy.below(bound), expected);
            }
        }
    }

    #[test]
    fn below_is_in_range_and_hits_every_value() {
        let mut r = SimRng::new(1, Stream::Faults);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let v = r.below(7);
            seen[v as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(r.between(5, 5), 5);
        let _ = r.between(0, u64::MAX);
    }

    #[test]
    fn chance_is_exact_at_the_edges_and_close_in_between() {
        let mut r = SimRng::new(3, Stream::Network);
        assert!((0..100).all(|_| !r.chance(Ratio::ZERO)));
        assert!((0..100).all(|_| r.chance(Ratio::ONE)));
        let hits = (0..100_000)
            .filter(|_| r.chance(Ratio::new(1, 4).unwrap()))
            .count();
        assert!((24_000..26_000).contains(&hits), "{hits}");
    }

    #[test]
    fn ratio_parses_and_refuses_nonsense() {
        assert_eq!(
            "1/100".parse::<Ratio>().unwrap(),
            Ratio::new(1, 100).unwrap()
        );
        assert_eq!("0".parse::<Ratio>().unwrap(), Ratio::ZERO);
        assert!("3/2".parse::<Ratio>().unwrap_err().contains("above 1"));
        assert!("1/0".parse::<Ratio>().is_err());
        assert!("half".parse::<Ratio>().unwrap_err().contains("expected"));
    }
}
