//! # traces: dsim's trace files
//!
//! A trace file is JSON Lines: one header line (format version, protocol, seed, the scenario
//! itself, node names), then one line per [`sim_core::Record`]. The header carries everything
//! needed to replay and re-check the run from the file alone. See `traces/FORMAT.md`.
//!
//! - [`mod@format`]: the header, the current format version, and what older versions we still read.
//! - [`mod@write`]: a streaming [`sim_core::TraceSink`] that writes lines as the run makes them.
//! - [`read`]: parsing a trace file back into typed records, with line numbers on errors.
//! - [`lang`]: the languages a story is told in.
//! - [`history`]: a run's client history (calls, returns, a failing window) for the history view.
//! - [`story`]: the `Story` trait (a protocol's own story lines, summary and sweep figures), the
//!   story's `Lang`, and how a long story folds its repeated patterns ([`story::fold`]).
//! - [`narrate`]: the generic, protocol-independent story lines (sends, drops, faults).
//! - [`view`]: a protocol-independent view of a trace's records, for the renderers.
//! - [`render`]: text, Mermaid, HTML and DOT renderings of a trace.
//! - [`diff`]: the first step where two traces part ways.
//!
//! This crate knows no protocol: the scenarios registry hands it the types.

pub mod diff;
pub mod format;
pub mod history;
pub mod lang;
pub mod narrate;
pub mod read;
pub mod render;
pub mod story;
#[cfg(test)]
mod testing;
pub mod view;
pub mod write;

pub use format::{FORMAT_VERSION, Header};
pub use read::{TraceError, parse_header, read_trace, read_trace_lines};
pub use story::{Lang, Measure, MeasureKind, Story};
pub use write::JsonLinesSink;
