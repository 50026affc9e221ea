//! # scenarios: dsim's scenario files and runner
//!
//! A scenario (RON) names a protocol and its config, the network, a timeline of faults and
//! commands, when to stop, and what the outcome must be. This crate reads it (two-pass, typed by
//! the protocol), checks every name with positions and suggestions, and runs it.
//!
//! - [`schema`]: the file's shape.
//! - [`diagnostic`]: located problems, rendered like a compiler's.
//! - [`load`]: text to a checked, ready-to-run scenario.
//! - [`registry`]: the one place that names every protocol.
//! - [`run`]: one run: simulation, story, expectations, trace.
//! - [`offline`]: from a trace file alone: its story, a re-check, a replay.
//! - [`bundled`]: the scenarios built into the binary.
//! - [`sweep`]: many seeds of one scenario, aggregated (the thread pool is the caller's).
//! - [`vary`]: one config value changed across runs.
//! - [`cost`]: messages per decision, counted from runs (PBFT against Paxos).
//!
//! It never prints, exits, reads the clock or spawns threads: that is the CLI's job.

pub mod bundled;
pub mod cost;
pub mod coverage;
pub mod diagnostic;
pub mod exhaustive;
pub mod explore;
pub mod load;
pub mod offline;
pub mod pct;
pub mod registry;
pub mod run;
pub mod schedule;
pub mod schema;
pub mod swarm;
pub mod sweep;
pub mod vary;

pub use diagnostic::Diagnostic;
pub use registry::{DynProtocol, Summary};
pub use run::{RunOptions, RunResult};
