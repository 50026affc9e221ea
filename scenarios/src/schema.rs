//! The scenario file schema (RON), as written by teachers and students.
//!
//! ```ron
//! Scenario(
//!     description: "PX-1: relay-1's accepts to a2 and a3 are lost",
//!     protocol: "paxos",
//!     config: (proposers: ["relay-1", "relay-2"], acceptors: ["a1", "a2", "a3"]),
//!     seed: 0,
//!     network: (latency: Fixed(1)),
//!     timeline: [
//!         At(0, Drop(from: "relay-1", to: "a2", msg: "Accept", nth: 1)),
//!         At(0, Command("relay-1", Propose)),
//!         At(100, Crash("a1")),
//!     ],
//!     stop: (max_time_ms: 5000),
//!     expect: [Chosen("relay-1")],
//! )
//! ```
//!
//! Times are integer milliseconds. Probabilities are exact fractions written as strings
//! ("1/100"). Optional fields need no `Some(..)`. `scenarios/FORMAT.md` is the full reference.
//! This module only describes the shape; `load` checks names and turns it into kernel actions.

use serde::{Deserialize, Serialize};
use sim_core::Ratio;

/// The first look at a file: just enough to know which protocol's types to parse it with.
#[derive(Debug, Deserialize)]
#[serde(rename = "Scenario")]
pub struct Head {
    /// The protocol's name.
    pub protocol: String,
}

/// The first look again, strictly, to name a misspelled top-level field when `protocol` is
/// missing (the usual reason is that it was misspelled).
#[derive(Debug, Deserialize)]
#[serde(rename = "Scenario", deny_unknown_fields)]
#[allow(dead_code)] // Parsed only for its errors.
pub struct StrictHead {
    description: serde::de::IgnoredAny,
    #[serde(default)]
    description_es: Option<serde::de::IgnoredAny>,
    protocol: serde::de::IgnoredAny,
    #[serde(default)]
    config: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    seed: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    network: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    timeline: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    stop: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    expect: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    expect_violation: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    schedule: Option<serde::de::IgnoredAny>,
}

/// A whole scenario for a protocol whose config is `C`, commands `M` and expectations `E`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename = "Scenario", deny_unknown_fields)]
pub struct ScenarioDoc<C, M, E> {
    /// One line on what the scenario shows (printed by `dsim list`).
    pub description: String,
    /// The same line in the course's Spanish, told by `dsim run --lang es` (the English one
    /// when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_es: Option<String>,
    /// The protocol's name ("paxos", "raft").
    pub protocol: String,
    /// The protocol's settings.
    pub config: C,
    /// The seed (default 0: the same file tells the same story every time).
    #[serde(default)]
    pub seed: u64,
    /// How links behave unless a step changes them.
    #[serde(default)]
    pub network: LinkSpec,
    /// What happens when.
    #[serde(default = "Vec::new")]
    pub timeline: Vec<At<M>>,
    /// When the run stops.
    #[serde(default)]
    pub stop: StopSpec,
    /// What the outcome must be.
    #[serde(default = "Vec::new")]
    pub expect: Vec<E>,
    /// The invariants this scenario exists to break (a teaching counterexample), as one name or
    /// a list: the run passes only if exactly these invariants are violated.
    #[serde(default, deserialize_with = "one_or_many")]
    pub expect_violation: Vec<String>,
    /// The run's choices as data (see [`ChoiceSpec`]): when present, the network follows this
    /// list instead of its random stream, and every message it does not name is delivered once
    /// at the link's shortest latency. `dsim explore` writes its counterexamples this way.
    #[serde(default)]
    pub schedule: Option<Vec<ChoiceSpec>>,
}

/// One choice of a schedule, about the k-th message sent in the run (counted from 1, as the
/// trace's `id` numbers them) or a node's n-th random draw. Each overrides the link's laws:
/// `Lose(12)` loses message 12 even on a link that loses nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ChoiceSpec {
    /// Message k is lost: `Lose(12)`.
    Lose(u64),
    /// Message k takes this many milliseconds (fractions allowed): `Latency(14, 9.5)`.
    Latency(u64, f64),
    /// Message k is delivered twice, the copy after this many milliseconds: `Duplicate(15, 3)`.
    Duplicate(u64, f64),
    /// The node's n-th random draw (from 1) answers this value, in the node's own units (a Raft
    /// election timeout in microseconds, a Paxos back-off in milliseconds); clamped to the
    /// range the node draws from: `Draw("nodo-2", 1, 150000)`.
    Draw(String, u64, u64),
    /// The node's n-th timer (from 1, counting every arming) fires this many milliseconds
    /// after it was armed, whatever the node asked for: `Timer("p1", 2, 7.0)`. How a path
    /// found by `dsim explore --exhaustive` is replayed in time.
    Timer(String, u64, f64),
    /// Crash the node at the first time (ms) and restart it at the second: `Crash("a2", 8, 12)`.
    Crash(String, u64, u64),
    /// Pause the node at the first time (ms) and resume it at the second.
    Pause(String, u64, u64),
    /// Split the nodes into these groups (unlisted nodes form one more) at the first time and
    /// heal every cut at the second: `Partition([["a1"], ["a2", "a3"]], 100, 300)`.
    Partition(Vec<Vec<String>>, u64, u64),
    /// From the time (ms) on, the node's clock is off by the second number (ms) and runs fast
    /// by the third (parts per million; slow if negative): `Skew("n2", 50, 0, 200000)`.
    Skew(String, u64, i64, i64),
}

/// A step of the timeline at a time in milliseconds: `At(150, Crash("n1"))`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct At<M>(pub u64, pub Step<M>);

/// One scripted change. Node names are the scenario's own; where `Crash`, `Pause`, `Resume` and
/// `Command` name a node they may name a role instead, `"@leader"`: the node claiming it when
/// the step runs (see `sim_core::Action::ToRole`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Step<M> {
    /// Crash a node: volatile state lost, timers cancelled, messages to it dropped.
    Crash(String),
    /// Restart a crashed node with its durable state.
    Restart(String),
    /// Pause a node: it keeps its state but neither receives nor acts (the lesson's "CAE").
    Pause(String),
    /// Resume a paused node (the lesson's "VUELVE").
    Resume(String),
    /// Tell a node to do something: `Command("relay-2", Propose)`.
    Command(String, M),
    /// Split the nodes into groups that cannot talk; unlisted nodes form one more group.
    Partition(Vec<Vec<String>>),
    /// Cut the links from every node of `from` to every node of `to`, one way.
    PartitionOneWay {
        /// Senders whose messages are cut.
        from: Vec<String>,
        /// Receivers they can no longer reach.
        to: Vec<String>,
    },
    /// Restore every cut link.
    Heal,
    /// Lose matching messages: `Drop(from: "relay-1", to: "a2", msg: "Accept", nth: 1)`.
    Drop {
        /// Only messages from this node.
        #[serde(default)]
        from: Option<String>,
        /// Only messages to this node.
        #[serde(default)]
        to: Option<String>,
        /// Only messages of this kind.
        #[serde(default)]
        msg: Option<String>,
        /// Only the nth matching message sent from now on (1 = the next one); all if unset.
        #[serde(default)]
        nth: Option<u64>,
        /// Only messages sent before this time (ms); forever if unset.
        #[serde(default)]
        until_ms: Option<u64>,
    },
    /// Deliver matching messages `by_ms` later than the link would.
    Delay {
        /// Only messages from this node.
        #[serde(default)]
        from: Option<String>,
        /// Only messages to this node.
        #[serde(default)]
        to: Option<String>,
        /// Only messages of this kind.
        #[serde(default)]
        msg: Option<String>,
        /// Only the nth matching message.
        #[serde(default)]
        nth: Option<u64>,
        /// Only messages sent before this time (ms).
        #[serde(default)]
        until_ms: Option<u64>,
        /// The extra delay in milliseconds.
        by_ms: u64,
    },
    /// Deliver matching messages twice, the copy `after_ms` after the original.
    Duplicate {
        /// Only messages from this node.
        #[serde(default)]
        from: Option<String>,
        /// Only messages to this node.
        #[serde(default)]
        to: Option<String>,
        /// Only messages of this kind.
        #[serde(default)]
        msg: Option<String>,
        /// Only the nth matching message.
        #[serde(default)]
        nth: Option<u64>,
        /// Only messages sent before this time (ms).
        #[serde(default)]
        until_ms: Option<u64>,
        /// How much later the copy arrives, in milliseconds.
        #[serde(default)]
        after_ms: u64,
    },
    /// Remove every drop, delay and duplicate rule.
    ClearRules,
    /// Set a node's clock off by `skew_ms` and make it run fast by `drift_ppm` (slow if negative).
    Clock {
        /// The node.
        node: String,
        /// Offset from true time in milliseconds.
        #[serde(default)]
        skew_ms: i64,
        /// Rate error in parts per million.
        #[serde(default)]
        drift_ppm: i64,
    },
    /// Change how every link behaves from now on.
    Network(LinkSpec),
    /// Change how one directed link behaves from now on.
    Link {
        /// Sender side.
        from: String,
        /// Receiver side.
        to: String,
        /// The new behaviour.
        link: LinkSpec,
    },
}

/// How a link behaves: `(latency: Uniform(2, 10), loss: "1/100", duplicate: "0")`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// How long messages take (default: 1 ms).
    #[serde(default = "LatencySpec::default_latency")]
    pub latency: LatencySpec,
    /// Probability a message is lost.
    #[serde(default)]
    pub loss: Ratio,
    /// Probability a message is delivered twice.
    #[serde(default)]
    pub duplicate: Ratio,
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec {
            latency: LatencySpec::default_latency(),
            loss: Ratio::ZERO,
            duplicate: Ratio::ZERO,
        }
    }
}

/// A latency law in milliseconds.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum LatencySpec {
    /// Always this many ms.
    Fixed(u64),
    /// Uniform between the two (both included).
    Uniform(u64, u64),
    /// Mostly near the first, with a heavy tail up to the second (P(> x) ~ min / x).
    HeavyTail(u64, u64),
    /// Always this many microseconds (for fine-grained timing).
    FixedUs(u64),
    /// Uniform between the two, in microseconds.
    UniformUs(u64, u64),
}

impl LatencySpec {
    fn default_latency() -> Self {
        LatencySpec::Fixed(1)
    }
}

/// When the run stops: `(max_time_ms: 5000)`. Quiescence always stops it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopSpec {
    /// Virtual time limit in milliseconds (default 60 000).
    #[serde(default = "default_max_time_ms")]
    pub max_time_ms: u64,
    /// Step limit (default 1 000 000).
    #[serde(default = "default_max_steps")]
    pub max_steps: u64,
    /// Limit on messages in flight at once (default 100 000).
    #[serde(default = "default_max_in_flight")]
    pub max_in_flight: usize,
    /// Whether the first violation stops the run (default true).
    #[serde(default = "yes")]
    pub on_violation_stop: bool,
}

impl Default for StopSpec {
    fn default() -> Self {
        StopSpec {
            max_time_ms: default_max_time_ms(),
            max_steps: default_max_steps(),
            max_in_flight: default_max_in_flight(),
            on_violation_stop: true,
        }
    }
}

fn default_max_time_ms() -> u64 {
    60_000
}
fn default_max_steps() -> u64 {
    1_000_000
}
fn default_max_in_flight() -> usize {
    100_000
}
fn yes() -> bool {
    true
}

/// `"agreement"`, `["a", "b"]`, `None` or `Some(..)` of either, as a list.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match Option::<OneOrMany>::deserialize(d)? {
        None => Vec::new(),
        Some(OneOrMany::One(name)) => vec![name],
        Some(OneOrMany::Many(names)) => names,
    })
}
