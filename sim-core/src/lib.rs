//! # sim-core: the deterministic kernel of dsim
//!
//! Everything a protocol needs to run in simulation, and nothing about any protocol, file,
//! language or clock on the wall. (How a run reads as a story lives in the `traces` crate.)
//! Module map, bottom up:
//!
//! - [`time`]: virtual `Instant`/`Duration` in integer nanoseconds.
//! - [`rng`]: one seed, a ChaCha8 stream per purpose, our own integer sampling, exact `Ratio`s.
//! - [`id`]: `NodeId`, `MsgId`, node `Name`s.
//! - [`hash`]: stable hashing of states (no per-process keys).
//! - [`actor`]: the `Actor` contract and the effect-buffering `Context` (plus `TestContext`).
//! - [`link`]: a link's laws (latency, loss, duplication).
//! - [`oracle`]: the one source of a run's chance (each message's fate by its id, each node's
//!   draws), random from the seed or following a schedule of `Choice`s.
//! - [`net`]: which link a message takes, partitions, ordered fault rules.
//! - [`clock`]: node-local clocks with skew and drift.
//! - [`action`]: what a scenario schedules (faults, network changes, commands) as data.
//! - [`queue`]: the (time, seq) event queue.
//! - [`trace`]: trace records and sinks, and the record `Kinds` an invariant reads.
//! - [`check`]: the `Invariant` trait and the `Checker` that runs invariants over records.
//! - [`kernel`]: `Sim`, the event loop that ties it together (and its untimed stepping).
//! - [`symmetry`]: interchangeable nodes, and hashing a state under a renaming of them.
//! - [`exhaustive`]: every interleaving of a small configuration, states counted and merged.
//! - [`protocol`]: a protocol's model (config, nodes, invariants, expectation checks).
//! - [`harness`]: one test harness for any protocol (script by name, run, read back).
//!
//! **Architecture invariant:** the same (actors, schedule, seed) gives the same records, byte for
//! byte. No `HashMap` iteration, no wall clock, no float decisions, and no threads in a run (an
//! exhaustive search expands states on several, and merges them in a fixed order).
#![warn(missing_docs)]

pub mod action;
pub mod actor;
pub mod check;
pub mod clock;
pub mod exhaustive;
pub mod harness;
pub mod hash;
pub mod id;
pub mod kept;
pub mod kernel;
pub mod link;
pub mod net;
pub mod oracle;
pub mod protocol;
pub mod queue;
pub mod rng;
pub mod symmetry;
#[cfg(test)]
mod testing;
pub mod time;
pub mod trace;

pub use action::{Action, NodeAction};
pub use actor::{Actor, Context, Effect, Message, RoleClaim, TestContext};
pub use check::{Broken, Checker, Invariant, Violation};
pub use clock::Clock;
pub use harness::{Finished, Harness};
pub use id::{MsgId, Name, NodeId, NodeName};
pub use kept::KeptRecords;
pub use kernel::{
    Limits, Move, MoveCode, MoveKind, NetStats, RunReport, Sim, SimConfig, Status, StopReason,
    Taken,
};
pub use link::{Latency, LinkConfig};
pub use net::{DropReason, FaultRule, RuleAction};
pub use oracle::{Choice, Draws, Oracle};
pub use protocol::{BugKnob, ConfigProblem, Outcome, Protocol, build_sim};
pub use rng::{Ratio, SimRng, Stream};
pub use time::{Duration, Instant};
pub use trace::{EVENT_KINDS, Event, Fault, Kinds, Record, TraceMode, TraceSink};
