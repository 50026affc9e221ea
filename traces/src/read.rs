//! Reading a trace file back into typed records, with the line number of anything wrong.

use crate::format::{FORMAT_VERSION, Header};
use sim_core::{Actor, Record};
use std::fmt;

/// A problem in a trace file, at a line (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Reads only the header (first line), checking that this dsim can read the format.
pub fn parse_header(text: &str) -> Result<Header, TraceError> {
    let first = text.lines().next().ok_or(TraceError {
        line: 1,
        message: "the file is empty: a trace starts with a header line".into(),
    })?;
    let header: Header = serde_json::from_str(first).map_err(|e| TraceError {
        line: 1,
        message: format!(
            "not a dsim trace header ({e}); a trace starts with the header line that \
             `dsim run SCENARIO --trace FILE` writes"
        ),
    })?;
    if header.format > FORMAT_VERSION {
        return Err(TraceError {
            line: 1,
            message: format!(
                "trace format {} was written by a newer dsim (this one reads up to {}): upgrade dsim",
                header.format, FORMAT_VERSION
            ),
        });
    }
    if header.format == 0 {
        return Err(TraceError {
            line: 1,
            message: "trace format 0 does not exist".into(),
        });
    }
    Ok(header)
}

/// Reads a whole trace of protocol actor `A`: the header and every record.
pub fn read_trace<A: Actor>(text: &str) -> Result<(Header, Vec<Record<A>>), TraceError> {
    let header = parse_header(text)?;
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(line).map_err(|e| TraceError {
            line: i + 1,
            message: format!("not a {} record: {e}", header.protocol),
        })?;
        records.push(record);
    }
    Ok((header, records))
}
