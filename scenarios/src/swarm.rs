//! Which sorts of fault a search may use, and swarm testing: each seed its own mix of them.
//!
//! A search with one fault model gives every seed the same noise: constant loss, constant
//! reordering, so many faults at once that they mask each other, and rare interleavings of a
//! few faults are drowned. Swarm testing (Groce et al., "Swarm Testing", ISSTA 2012; the way
//! TigerBeetle's VOPR runs) lets each seed draw its own mix: each sort of fault the search
//! allows is in or out with even odds, and the ones in get their own intensity. Some seeds then
//! lose nothing, some only crash nodes, some only partition them, and the report says per mix
//! how many seeds ran and what they found.
//!
//! A mix is a pure function of the seed (its own random stream, [`Stream::Swarm`]), so a seed
//! runs the same whatever thread or shard runs it, and a report's tally can be merged.

use crate::schedule::Injected;
use serde::{Deserialize, Serialize};
use sim_core::{Duration, Latency, LinkConfig, NodeId, Ratio, SimRng, Stream};

/// One sort of fault a search can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FaultKind {
    /// Lost messages.
    Loss,
    /// Messages delivered twice.
    Dup,
    /// Latencies that spread, so messages overtake each other.
    Delay,
    /// Nodes that crash and restart.
    Crash,
    /// Nodes that pause and resume.
    Pause,
    /// The nodes split into two sides, then healed.
    Partition,
    /// A node's clock off and running fast or slow.
    Skew,
}

impl FaultKind {
    /// Every sort, in the order mixes are drawn and named.
    pub const ALL: [FaultKind; 7] = [
        FaultKind::Loss,
        FaultKind::Dup,
        FaultKind::Delay,
        FaultKind::Crash,
        FaultKind::Pause,
        FaultKind::Partition,
        FaultKind::Skew,
    ];

    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Loss => "loss",
            FaultKind::Dup => "dup",
            FaultKind::Delay => "delay",
            FaultKind::Crash => "crash",
            FaultKind::Pause => "pause",
            FaultKind::Partition => "partition",
            FaultKind::Skew => "skew",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of fault sorts (a bit each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FaultKinds(u8);

impl FaultKinds {
    /// No fault at all.
    pub const NONE: FaultKinds = FaultKinds(0);
    /// Every sort.
    pub const ALL: FaultKinds = FaultKinds(0b111_1111);

    /// Whether `kind` is in the set.
    pub fn has(self, kind: FaultKind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// The set with `kind` added.
    pub fn with(self, kind: FaultKind) -> FaultKinds {
        FaultKinds(self.0 | kind.bit())
    }

    /// The set without `kind`.
    pub fn without(self, kind: FaultKind) -> FaultKinds {
        FaultKinds(self.0 & !kind.bit())
    }

    /// The sorts in the set, in [`FaultKind::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = FaultKind> {
        FaultKind::ALL.into_iter().filter(move |&k| self.has(k))
    }

    /// Reads a comma list of sort names: `loss,crash`.
    pub fn parse(text: &str) -> Result<FaultKinds, String> {
        let mut set = FaultKinds::NONE;
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let Some(kind) = FaultKind::ALL.into_iter().find(|k| k.name() == word) else {
                let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
                let hint = crate::diagnostic::closest(word, names.iter().copied())
                    .map(|c| format!("did you mean `{c}`? "))
                    .unwrap_or_default();
                return Err(format!(
                    "`{word}` is not a sort of fault; {hint}expected a comma list of {}",
                    names.join(", ")
                ));
            };
            set = set.with(kind);
        }
        if set == FaultKinds::NONE {
            return Err("name at least one sort of fault, e.g. `loss,crash`".into());
        }
        Ok(set)
    }
}

impl Default for FaultKinds {
    fn default() -> Self {
        FaultKinds::ALL
    }
}

impl std::fmt::Display for FaultKinds {
    /// `loss+crash`, or `none`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if *self == FaultKinds::NONE {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.iter().map(FaultKind::name).collect();
        f.write_str(&names.join("+"))
    }
}

impl Serialize for FaultKinds {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(FaultKind::name))
    }
}

impl<'de> Deserialize<'de> for FaultKinds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let names: Vec<String> = Vec::deserialize(d)?;
        if names.is_empty() {
            return Ok(FaultKinds::NONE);
        }
        FaultKinds::parse(&names.join(",")).map_err(serde::de::Error::custom)
    }
}

/// The faults one seed of a swarm search has: which sorts, how strong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mix {
    /// The sorts in this seed's mix.
    pub kinds: FaultKinds,
    /// The links' laws for this seed (the file's default link, changed by the mix).
    pub link: LinkConfig,
    /// How many crashes (drawn as a search's `--crashes` are).
    pub crashes: u32,
    /// How many pauses.
    pub pauses: u32,
    /// How many partitions.
    pub partitions: u32,
    /// The clocks that go wrong.
    pub skews: Vec<Injected>,
}

impl Mix {
    /// The mix in words, for a counterexample's header: `loss 12 %, latencies up to 40 ms, 1
    /// crash`.
    pub fn words(&self) -> String {
        let mut parts = Vec::new();
        if self.kinds.has(FaultKind::Loss) {
            parts.push(format!("loss {} %", self.link.loss.numerator));
        }
        if self.kinds.has(FaultKind::Dup) {
            parts.push(format!("duplication {} %", self.link.duplicate.numerator));
        }
        if self.kinds.has(FaultKind::Delay) {
            parts.push(format!("latencies up to {}", self.link.latency.max()));
        } else {
            parts.push(format!("every latency {}", self.link.latency.min()));
        }
        for (n, what) in [
            (self.crashes, "crash"),
            (self.pauses, "pause"),
            (self.partitions, "partition"),
        ] {
            if n > 0 {
                let plural = match (n, what) {
                    (1, _) => "",
                    (_, "crash") => "es",
                    _ => "s",
                };
                parts.push(format!("{n} {what}{plural}"));
            }
        }
        if !self.skews.is_empty() {
            parts.push("a skewed clock".into());
        }
        format!("{} ({})", self.kinds, parts.join(", "))
    }
}

/// The sorts of fault a scenario of `nodes` nodes allows: all but partitions with one node.
pub fn allowed(nodes: usize) -> FaultKinds {
    if nodes < 2 {
        FaultKinds::ALL.without(FaultKind::Partition)
    } else {
        FaultKinds::ALL
    }
}

/// `link` without the sorts `kinds` leaves out: no loss, no duplicates, every message at the
/// law's shortest latency (no message overtakes another on a link).
pub fn restrict(link: LinkConfig, kinds: FaultKinds) -> LinkConfig {
    LinkConfig {
        latency: if kinds.has(FaultKind::Delay) {
            link.latency
        } else {
            Latency::Fixed(link.latency.min())
        },
        loss: if kinds.has(FaultKind::Loss) {
            link.loss
        } else {
            Ratio::ZERO
        },
        duplicate: if kinds.has(FaultKind::Dup) {
            link.duplicate
        } else {
            Ratio::ZERO
        },
    }
}

/// Seed `seed`'s mix among the sorts `kinds` allows, on the file's default `link`: each sort in
/// or out with even odds; loss 1 to 30 % of messages, duplication 1 to 20 %, latencies uniform
/// from the law's shortest to 2 to 10 times its longest (without delay: all at the shortest),
/// 1 or 2 crashes, pauses or partitions, and one of the `nodes` nodes' clock off by up to a
/// tenth of `window_ms` and 1 to 30 % fast or slow from a time within `window_ms`.
pub fn mix(seed: u64, kinds: FaultKinds, link: LinkConfig, nodes: usize, window_ms: u64) -> Mix {
    let mut rng = SimRng::new(seed, Stream::Swarm);
    let mut chosen = FaultKinds::NONE;
    for kind in kinds.iter() {
        if rng.below(2) == 1 {
            chosen = chosen.with(kind);
        }
    }
    // Every intensity is drawn whether its sort is in or not, so that one seed's intensities
    // do not depend on its other sorts.
    let loss = Ratio {
        numerator: rng.between(1, 30) as u32,
        denominator: 100,
    };
    let duplicate = Ratio {
        numerator: rng.between(1, 20) as u32,
        denominator: 100,
    };
    let stretch = rng.between(2, 10);
    let counts = [rng.between(1, 2), rng.between(1, 2), rng.between(1, 2)];
    let (min, max) = (link.latency.min(), link.latency.max());
    let longest = Duration(
        max.0
            .max(min.0 + Duration::from_millis(1).0)
            .saturating_mul(stretch),
    );
    let on = |k: FaultKind, n: u64| if chosen.has(k) { n as u32 } else { 0 };
    Mix {
        kinds: chosen,
        link: LinkConfig {
            latency: if chosen.has(FaultKind::Delay) {
                Latency::Uniform { min, max: longest }
            } else {
                Latency::Fixed(min)
            },
            loss: if chosen.has(FaultKind::Loss) {
                loss
            } else {
                Ratio::ZERO
            },
            duplicate: if chosen.has(FaultKind::Dup) {
                duplicate
            } else {
                Ratio::ZERO
            },
        },
        crashes: on(FaultKind::Crash, counts[0]),
        pauses: on(FaultKind::Pause, counts[1]),
        partitions: on(FaultKind::Partition, counts[2]),
        skews: draw_skews(&mut rng, on(FaultKind::Skew, 1), nodes, window_ms),
    }
}

/// `skews` clock faults among `nodes` nodes, drawn from `rng`, each starting within
/// `window_ms`.
fn draw_skews(rng: &mut SimRng, skews: u32, nodes: usize, window_ms: u64) -> Vec<Injected> {
    (0..skews)
        .map(|_| {
            let node = NodeId(rng.below(nodes as u64) as u32);
            let at_ms = rng.between(0, window_ms);
            let off = rng.between(0, window_ms / 10) as i64;
            let drift = rng.between(10_000, 300_000) as i64;
            let sign = |negative: bool| if negative { -1 } else { 1 };
            Injected::Skew {
                node,
                at_ms,
                skew_ms: off * sign(rng.below(2) == 1),
                drift_ppm: drift * sign(rng.below(2) == 1),
            }
        })
        .collect()
}

/// How many seeds of one mix a search ran, and how many of them broke each invariant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MixTally {
    /// The mix's sorts, `loss+crash` (or `none`).
    pub mix: String,
    /// Seeds searched with this mix.
    pub seeds: u64,
    /// Of them, how many broke each invariant (or failed to make progress: `liveness`).
    pub found: std::collections::BTreeMap<String, u64>,
}

/// Adds `more` into `into`, one row per mix, sorted by mix name.
pub fn add_tallies(into: &mut Vec<MixTally>, more: &[MixTally]) {
    for row in more {
        match into.binary_search_by(|r| r.mix.cmp(&row.mix)) {
            Ok(i) => {
                into[i].seeds += row.seeds;
                for (invariant, n) in &row.found {
                    *into[i].found.entry(invariant.clone()).or_default() += n;
                }
            }
            Err(i) => into.insert(i, row.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_parse_print_and_refuse() {
        let k = FaultKinds::parse("crash, loss").unwrap();
        assert_eq!(k.to_string(), "loss+crash");
        assert_eq!(FaultKinds::NONE.to_string(), "none");
        let e = FaultKinds::parse("loss,partiton").unwrap_err();
        assert!(e.contains("did you mean `partition`"), "{e}");
        assert!(FaultKinds::parse(" , ").is_err());
        let json = serde_json::to_string(&k).unwrap();
        assert_eq!(json, r#"["loss","crash"]"#);
        assert_eq!(serde_json::from_str::<FaultKinds>(&json).unwrap(), k);
    }

    /// Mixes vary: over many seeds every sort is sometimes in and sometimes out, some seeds
    /// have no fault at all, and a sort left out of the allowed set never appears.
    #[test]
    fn mixes_vary_within_the_allowed_sorts() {
        let link = LinkConfig::uniform_ms(1, 10).with_loss(Ratio {
            numerator: 1,
            denominator: 10,
        });
        let allowed = FaultKinds::ALL.without(FaultKind::Skew);
        let mixes: Vec<Mix> = (0..512).map(|s| mix(s, allowed, link, 3, 1000)).collect();
        for kind in FaultKind::ALL {
            let with = mixes.iter().filter(|m| m.kinds.has(kind)).count();
            if kind == FaultKind::Skew {
                assert_eq!(with, 0);
            } else {
                assert!((150..=362).contains(&with), "{kind:?} in {with} of 512");
            }
        }
        assert!(mixes.iter().any(|m| m.kinds == FaultKinds::NONE));
        for m in &mixes {
            assert_eq!(m.link.loss.is_zero(), !m.kinds.has(FaultKind::Loss));
            assert_eq!(m.link.latency.min(), link.latency.min());
            assert_eq!(
                m.link.latency.max() == link.latency.min(),
                !m.kinds.has(FaultKind::Delay)
            );
            assert_eq!(m.crashes > 0, m.kinds.has(FaultKind::Crash));
        }
        let seven = mix(7, FaultKinds::ALL, link, 3, 1000);
        assert_eq!(
            seven,
            mix(7, FaultKinds::ALL, link, 3, 1000),
            "a function of the seed"
        );
    }

    #[test]
    fn restricting_removes_the_left_out_sorts() {
        let link = LinkConfig::uniform_ms(2, 9).with_loss(Ratio {
            numerator: 1,
            denominator: 2,
        });
        let only_loss = restrict(link, FaultKinds::NONE.with(FaultKind::Loss));
        assert_eq!(only_loss.latency, Latency::Fixed(Duration::from_millis(2)));
        assert_eq!(only_loss.loss, link.loss);
        assert_eq!(restrict(link, FaultKinds::ALL), link);
    }

    #[test]
    fn tallies_add_by_mix() {
        let row = |mix: &str, seeds, found: &[(&str, u64)]| MixTally {
            mix: mix.into(),
            seeds,
            found: found.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        };
        let mut all = vec![row("loss", 3, &[("agreement", 1)])];
        add_tallies(
            &mut all,
            &[row("crash", 2, &[]), row("loss", 4, &[("agreement", 2)])],
        );
        assert_eq!(
            all,
            vec![row("crash", 2, &[]), row("loss", 7, &[("agreement", 3)])]
        );
    }
}
