//! Reading a trace file back into typed records, with the line number of anything wrong.

use crate::format::{FORMAT_VERSION, Header};
use serde_json::Value;
use sim_core::{Actor, EVENT_KINDS, Record};
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

/// Reads a whole trace of protocol actor `A`: the header and every record, checked to hang
/// together (see [`Coherence`]), so that checkers never judge a run that could not happen.
///
/// Each line is parsed once: as JSON, checked for what every record has (`step`, `time`, a
/// known `kind`) so that a hand-edited line gets a message that says what to fix, then turned
/// into the protocol's typed record.
pub fn read_trace<A: Actor>(text: &str) -> Result<(Header, Vec<Record<A>>), TraceError> {
    let read = read_trace_lines(text)?;
    Ok((read.header, read.records))
}

/// A trace read with the file line of each record.
pub struct NumberedTrace<A: Actor> {
    /// The header.
    pub header: Header,
    /// Every record, in order.
    pub records: Vec<Record<A>>,
    /// The file line (from 1) each record was read from.
    pub lines: Vec<usize>,
}

/// [`read_trace`], with the file line (from 1) each record was read from.
pub fn read_trace_lines<A: Actor>(text: &str) -> Result<NumberedTrace<A>, TraceError> {
    let header = parse_header(text)?;
    let mut lines = Vec::new();
    let mut coherence = Coherence::new(&header)?;
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let at = |message: String| TraceError {
            line: i + 1,
            message,
        };
        let raw: Value = serde_json::from_str(line).map_err(|e| {
            at(format!(
                "not a JSON record ({e}); is the file truncated? re-create it with \
                 `dsim run SCENARIO --trace FILE`"
            ))
        })?;
        shape(&raw).map_err(at)?;
        let record: Record<A> = serde_json::from_value(raw.clone())
            .map_err(|e| at(format!("not a {} record: {e}", header.protocol)))?;
        let typed = serde_json::to_value(&record).expect("records serialize");
        if let Some(path) = unknown_field(&raw, &typed, String::new()) {
            return Err(at(format!(
                "unknown field `{path}` in a {} record: a misspelled or edited field would \
                 be ignored; fix or delete it (see traces/FORMAT.md)",
                record.event.kind_name()
            )));
        }
        coherence.check(&record).map_err(at)?;
        records.push(record);
        lines.push(i + 1);
    }
    Ok(NumberedTrace {
        header,
        records,
        lines,
    })
}

/// The first field of `raw` (as a dotted path) that the typed record does not have: a field
/// its types would silently drop. Fields the record adds by default may be absent from `raw`.
fn unknown_field(raw: &Value, typed: &Value, path: String) -> Option<String> {
    match (raw, typed) {
        (Value::Object(r), Value::Object(t)) => r.iter().find_map(|(k, v)| {
            let here = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            match t.get(k) {
                None => Some(here),
                Some(tv) => unknown_field(v, tv, here),
            }
        }),
        (Value::Array(r), Value::Array(t)) => r
            .iter()
            .zip(t)
            .enumerate()
            .find_map(|(i, (rv, tv))| unknown_field(rv, tv, format!("{path}[{i}]"))),
        _ => None,
    }
}

/// What every record line has, whatever its protocol: an object with a whole `step` and `time`
/// and one of the kernel's record kinds.
fn shape(raw: &Value) -> Result<(), String> {
    if !raw.is_object() {
        return Err("not a record: a record line is a JSON object (see traces/FORMAT.md)".into());
    }
    for key in ["step", "time"] {
        match raw.get(key) {
            Some(x) if x.as_u64().is_some() => {}
            Some(x) => {
                let unit = if key == "time" { " (nanoseconds)" } else { "" };
                return Err(format!(
                    "`{key}` is {x}, not a whole number from 0 up{unit}; fix or delete this line"
                ));
            }
            None => {
                return Err(format!(
                    "the record has no `{key}`: every record line has \"step\", \"time\" and \
                     \"kind\" (see traces/FORMAT.md); fix or delete this line"
                ));
            }
        }
    }
    let kinds = EVENT_KINDS.join(", ");
    match raw.get("kind").and_then(Value::as_str) {
        None => Err(format!(
            "the record has no `kind` (one of {kinds}; see traces/FORMAT.md)"
        )),
        Some(kind) if !EVENT_KINDS.contains(&kind) => Err(format!(
            "unknown record kind {kind:?}: the kinds are {kinds} (see traces/FORMAT.md)"
        )),
        Some(_) => Ok(()),
    }
}

/// What makes a sequence of records a possible run: steps and times never go back, nodes are
/// the header's (or `#N`, the kernel's name for a receiver that does not exist), and every
/// delivery, drop or duplicate is of a message sent before.
pub struct Coherence {
    nodes: std::collections::BTreeSet<String>,
    sent: std::collections::BTreeSet<u64>,
    last: (u64, u64),
}

impl Coherence {
    /// The checks for a trace with this header (whose node list must itself make sense).
    pub fn new(header: &Header) -> Result<Coherence, TraceError> {
        let mut nodes = std::collections::BTreeSet::new();
        for n in &header.nodes {
            if n.is_empty() || !nodes.insert(n.clone()) {
                return Err(TraceError {
                    line: 1,
                    message: format!(
                        "the header's node list names {n:?} {}: every node needs its own, \
                         non-empty name",
                        if n.is_empty() { "(empty)" } else { "twice" }
                    ),
                });
            }
        }
        if nodes.is_empty() {
            return Err(TraceError {
                line: 1,
                message: "the header lists no nodes".into(),
            });
        }
        Ok(Coherence {
            nodes,
            sent: std::collections::BTreeSet::new(),
            last: (0, 0),
        })
    }

    fn node(&self, name: &str) -> Result<(), String> {
        let placeholder = name
            .strip_prefix('#')
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
        if self.nodes.contains(name) || placeholder {
            return Ok(());
        }
        Err(format!(
            "node {name:?} is not in the header's node list ({})",
            self.nodes.iter().cloned().collect::<Vec<_>>().join(", ")
        ))
    }

    /// Checks the next record.
    pub fn check<A: Actor>(&mut self, r: &Record<A>) -> Result<(), String> {
        use sim_core::Event;
        let now = (r.step, r.time.as_nanos());
        if now.0 < self.last.0 {
            return Err(format!(
                "step {} comes after step {}: steps never go back",
                now.0, self.last.0
            ));
        }
        if now.1 < self.last.1 {
            return Err(format!(
                "time {} ns comes after {} ns: virtual time never goes back",
                now.1, self.last.1
            ));
        }
        self.last = now;
        if let Some(node) = r.event.node() {
            self.node(node)?;
        }
        match &r.event {
            Event::Send { id, from, to, .. } => {
                self.node(from)?;
                self.node(to)?;
                if !self.sent.insert(id.0) {
                    return Err(format!(
                        "message {} is sent twice: every send has its own id (a copied line?)",
                        id.0
                    ));
                }
            }
            Event::Deliver { id, from, .. }
            | Event::Drop { id, from, .. }
            | Event::Duplicate { id, from, .. } => {
                self.node(from)?;
                if !self.sent.contains(&id.0) {
                    return Err(format!(
                        "message {} was never sent (no `send` record with that id before)",
                        id.0
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }
}
