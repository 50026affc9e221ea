//! How a protocol plugs into scenarios: its config, its nodes, its invariants, its expectations
//! and its story.
//!
//! One implementation per protocol (in the `protocols` crate); the `scenarios` crate's registry
//! is the only place that names them all. The trait lives here, beside `Actor`, so that protocols
//! depend on the kernel only. It knows nothing about files: configs and expectations arrive
//! already parsed.

use crate::actor::Actor;
use crate::check::Invariant;
use crate::id::NodeId;
use crate::kernel::Sim;
use crate::trace::Record;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;

/// The language of a story. The course is taught in Spanish; English is the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Spanish, with the lesson's own words.
    Es,
}

/// What a finished run offers to expectation checks: the final states and every record.
pub struct Outcome<'a, A: Actor> {
    /// The simulation as it ended (final actor states, statuses, node names).
    pub sim: &'a Sim<A>,
    /// Every record of the run, in order.
    pub records: &'a [Record<A>],
}

impl<A: Actor> Outcome<'_, A> {
    /// The final state of the node called `name`.
    pub fn actor(&self, name: &str) -> Option<&A> {
        self.sim.node_id(name).map(|id| self.sim.actor(id))
    }
}

/// A protocol as scenarios see it.
pub trait Protocol: 'static {
    /// The name scenario files and the CLI use: "paxos", "raft".
    const NAME: &'static str;
    /// One line on what the protocol is, for `dsim list`.
    const ABOUT: &'static str;
    /// The node type.
    type Actor: Actor;
    /// The protocol's settings in a scenario file (roles, timeouts, bug knobs).
    type Config: Clone + Debug + Serialize + DeserializeOwned;
    /// What a scenario can expect of the outcome ("chosen relay-1", "leader of term 4 is nodo-2").
    type Expect: Clone + Debug + Serialize + DeserializeOwned;

    /// The nodes this config describes, by name, in the order they get their `NodeId`s.
    fn nodes(config: &Self::Config) -> Vec<String>;

    /// Problems with the config that parsing cannot see (empty when it is fine). Each names the
    /// offending value (quoted as in the file, so it can be located) and says how to fix it.
    fn validate(config: &Self::Config) -> Vec<ConfigProblem> {
        let _ = config;
        Vec::new()
    }

    /// Builds the node with id `id` (its name is `Self::nodes(config)[id]`).
    fn build(config: &Self::Config, id: NodeId) -> Self::Actor;

    /// The invariants every run of this config must keep.
    fn invariants(config: &Self::Config) -> Vec<Box<dyn Invariant<Self::Actor>>>;

    /// Checks one expectation against the outcome: `Ok` says what held, `Err` why it did not.
    fn check(expect: &Self::Expect, outcome: &Outcome<'_, Self::Actor>) -> Result<String, String>;

    /// Node names that an expectation mentions, for validating them against the nodes.
    fn expect_nodes(expect: &Self::Expect) -> Vec<String> {
        let _ = expect;
        Vec::new()
    }

    /// Node names that a command mentions (besides the node it is sent to).
    fn command_nodes(command: &<Self::Actor as Actor>::Command) -> Vec<String> {
        let _ = command;
        Vec::new()
    }

    /// The story line for one record, in the course's words, or `None` to leave it to the
    /// generic narrator (sends, drops, faults ...).
    fn narrate(record: &Record<Self::Actor>, lang: Lang) -> Option<String>;

    /// Figures of one run that a sweep over seeds aggregates (elections until a leader, time
    /// without a leader ...). Empty by default.
    fn measures(records: &[Record<Self::Actor>]) -> Vec<Measure> {
        let _ = records;
        Vec::new()
    }

    /// Closing lines of the story: the run's figures in words ("no leader for 183 ms").
    fn summary(records: &[Record<Self::Actor>], lang: Lang) -> Vec<String> {
        let _ = (records, lang);
        Vec::new()
    }
}

/// One figure of one run, for sweeps to aggregate over seeds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Measure {
    /// A short name, a column of the sweep's table: "elections", "no_leader".
    pub name: &'static str,
    /// What kind of figure it is (how to aggregate and print it).
    pub kind: MeasureKind,
    /// The value, or `None` when the run never got there (no leader was ever elected).
    pub value: Option<u64>,
}

/// How a figure aggregates over runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MeasureKind {
    /// A count: median, p90, max.
    Count,
    /// A span of virtual time in nanoseconds: median, p90, max, printed in ms.
    Nanos,
    /// 0 or 1: printed as the share of runs where it is 1.
    Flag,
}

/// A problem found in a protocol config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigProblem {
    /// The offending text as written in the file (a quoted name, a field name), to locate it.
    pub locate: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}
