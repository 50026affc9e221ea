//! # traces: dsim's trace files
//!
//! A trace file is JSON Lines: one header line (format version, protocol, seed, the scenario
//! itself, node names), then one line per [`sim_core::Record`]. The header carries everything
//! needed to replay and re-check the run from the file alone. See `traces/FORMAT.md`.
//!
//! - [`format`]: the header, the current format version, and what older versions we still read.
//! - [`write`]: a streaming [`sim_core::TraceSink`] that writes lines as the run makes them.
//! - [`read`]: parsing a trace file back into typed records, with line numbers on errors.
//! - [`narrate`]: the generic, protocol-independent story lines (sends, drops, faults).
//!
//! This crate knows no protocol: the scenarios registry hands it the types.

pub mod format;
pub mod narrate;
pub mod read;
pub mod write;

pub use format::{FORMAT_VERSION, Header};
pub use read::{TraceError, parse_header, read_trace};
pub use write::JsonLinesSink;
