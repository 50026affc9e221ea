//! A run's client history as the history view draws it: each client a row, each operation a
//! bar from its call to its return, and the window a failed linearizability check names.
//!
//! A protocol with clients makes one from its records ([`crate::Story::history`]); the HTML
//! view shows it in its own panel (Porcupine's picture), each bar linked to its record.

use serde::Serialize;

/// The operations of a run's clients and the verdict on them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClientHistory {
    /// Every operation, in the order they were called.
    pub ops: Vec<HistoryOp>,
    /// The operations of the failing window (indices into `ops`), the one no order explains
    /// first; empty when the history is linearizable.
    pub window: Vec<usize>,
    /// The verdict in words: "linearizable", or what the failing window shows.
    pub verdict: String,
}

/// One client operation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HistoryOp {
    /// The client.
    pub client: String,
    /// The operation in words: `get(x)`, `put(x, 2)`.
    pub op: String,
    /// What it returned, in words (`None`: it never returned).
    pub result: Option<String>,
    /// The index, among the trace's records, of its call.
    pub call: usize,
    /// The index of its return, if it returned.
    pub ret: Option<usize>,
}
