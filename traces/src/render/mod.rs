//! Renderers: one trace, four ways to look at it.
//!
//! - [`text`]: the course-style story, filtered, coloured on a terminal.
//! - [`mermaid`]: a Mermaid `sequenceDiagram`, as the course draws its runs.
//! - [`html`]: one self-contained page to step through a run.
//! - [`dot`]: the happens-before graph (Graphviz DOT), built with petgraph.
//!
//! Every renderer reads a [`TraceView`](crate::view::TraceView) and is deterministic: the same
//! trace renders to the same bytes.

pub mod dot;
pub mod html;
pub mod mermaid;
pub mod text;

use crate::view::ViewRecord;

/// Which records a view shows: by node, by kind, by time window. Empty lists keep everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Keep records that involve one of these nodes.
    pub nodes: Vec<String>,
    /// Keep records whose message, note, timer, command or fault kind is one of these
    /// (case-insensitive); violations are always kept.
    pub kinds: Vec<String>,
    /// Keep records at or after this virtual time (nanoseconds).
    pub from: Option<u64>,
    /// Keep records at or before this virtual time (nanoseconds).
    pub until: Option<u64>,
}

impl Filter {
    /// Whether `r` passes.
    pub fn keeps(&self, r: &ViewRecord) -> bool {
        if self.from.is_some_and(|t| r.time < t) || self.until.is_some_and(|t| r.time > t) {
            return false;
        }
        if r.kind == "violation" {
            return true;
        }
        let node_ok = self.nodes.is_empty() || self.nodes.iter().any(|n| r.involves(n));
        let kind_ok = self.kinds.is_empty()
            || r.what
                .as_deref()
                .is_some_and(|w| self.kinds.iter().any(|k| k.eq_ignore_ascii_case(w)));
        node_ok && kind_ok
    }
}
