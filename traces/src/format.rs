//! The trace file header and its format version.
//!
//! Version 1 is the first and current format. When the format changes, the version goes up and
//! `read` keeps a path for every older version still in use; `dsim_version` is informational
//! only (golden comparisons ignore it).

use serde::{Deserialize, Serialize};

/// The format version this dsim writes.
pub const FORMAT_VERSION: u32 = 1;

/// The first line of a trace file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// The trace format version ([`FORMAT_VERSION`] when written by this dsim).
    pub format: u32,
    /// The dsim that wrote it (informational; comparisons ignore it).
    pub dsim_version: String,
    /// The protocol's name ("paxos", "raft").
    pub protocol: String,
    /// The seed of the run.
    pub seed: u64,
    /// Where the scenario came from (a path or a bundled name).
    pub scenario_name: String,
    /// The scenario file's full text, so the trace alone can be replayed and checked.
    pub scenario: String,
    /// Node names in `NodeId` order.
    pub nodes: Vec<String>,
}

impl Header {
    /// The header line as written (no trailing newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a header always serializes")
    }
}

/// Removes the informational dsim version from a trace's text, for comparisons across builds.
pub fn without_version(trace: &str) -> String {
    let mut lines = trace.lines();
    let Some(first) = lines.next() else {
        return String::new();
    };
    let header = match serde_json::from_str::<serde_json::Value>(first) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.remove("dsim_version");
            serde_json::Value::Object(map).to_string()
        }
        _ => first.to_string(),
    };
    let mut out = header;
    out.push('\n');
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}
