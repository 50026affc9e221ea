//! A protocol-independent view of a trace, for the renderers.
//!
//! Renderers (text, Mermaid, HTML, DOT) must draw any protocol's trace, so they read records as
//! JSON values rather than typed records: who, what kind, which message, and the payload's
//! fields as written. The protocol's own words arrive separately, as story lines attached to
//! records by index (the registry narrates with the typed records).

use crate::format::Header;
use crate::read::{TraceError, parse_header};
use serde_json::Value;

/// One record of a trace, as the renderers see it.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewRecord {
    /// Its line in the file, from 1 (the header is line 1).
    pub line: usize,
    /// The kernel step.
    pub step: u64,
    /// Virtual time in nanoseconds.
    pub time: u64,
    /// The record kind: `start`, `send`, `deliver`, `drop`, `duplicate`, `timer`, `fault`,
    /// `command`, `note`, `violation`.
    pub kind: String,
    /// The node it is about (the sender for sends, the receiver for deliveries).
    pub node: Option<String>,
    /// Sender and receiver, for message records.
    pub link: Option<(String, String)>,
    /// The message's number, for message records.
    pub id: Option<u64>,
    /// The name of what it carries: the message kind, the note's, timer's, command's or fault's
    /// variant (`Accept`, `Chosen`, `crash`), or the invariant of a violation.
    pub what: Option<String>,
    /// The whole record as written.
    pub raw: Value,
    /// The protocol's or the generic narrator's line for it, once attached.
    pub story: Option<String>,
}

impl ViewRecord {
    /// Whether `node` takes part in this record (as its node, sender, receiver, or the subject of
    /// a fault).
    pub fn involves(&self, node: &str) -> bool {
        self.node.as_deref() == Some(node)
            || self
                .link
                .as_ref()
                .is_some_and(|(from, to)| from == node || to == node)
            || self.fault_node() == Some(node)
    }

    /// The node a fault names, for the faults about one node (crash, restart, pause, resume,
    /// clock).
    pub fn fault_node(&self) -> Option<&str> {
        if self.kind != "fault" {
            return None;
        }
        let fault = self.raw.get("fault")?.as_object()?;
        let (_, v) = fault.iter().next()?;
        v.as_str().or_else(|| v.get("node").and_then(Value::as_str))
    }
}

/// A whole trace, as the renderers see it.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceView {
    /// The header.
    pub header: Header,
    /// Every record, in file order.
    pub records: Vec<ViewRecord>,
}

/// The name of an externally tagged enum value: `{"Accept":{..}}` or `"Propose"`.
fn tag(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(m) if m.len() == 1 => m.keys().next().cloned(),
        _ => None,
    }
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn need_u64(v: &Value, key: &str, line: usize) -> Result<u64, TraceError> {
    let message = match v.get(key) {
        Some(x) if x.as_u64().is_some() => return Ok(x.as_u64().expect("checked")),
        Some(x) => format!(
            "`{key}` is {x}, not a whole number from 0 up{}; fix or delete this line",
            if key == "time" { " (nanoseconds)" } else { "" }
        ),
        None => format!(
            "the record has no `{key}`: every record line has \"step\", \"time\" and \"kind\" \
             (see traces/FORMAT.md); fix or delete this line"
        ),
    };
    Err(TraceError { line, message })
}

const KINDS: &[&str] = &[
    "start",
    "send",
    "deliver",
    "drop",
    "duplicate",
    "timer",
    "fault",
    "command",
    "note",
    "violation",
];

fn record(raw: Value, line: usize) -> Result<ViewRecord, TraceError> {
    if !raw.is_object() {
        return Err(TraceError {
            line,
            message: "not a record: a record line is a JSON object (see traces/FORMAT.md)".into(),
        });
    }
    let step = need_u64(&raw, "step", line)?;
    let time = need_u64(&raw, "time", line)?;
    let Some(kind) = string(&raw, "kind") else {
        return Err(TraceError {
            line,
            message: format!(
                "the record has no `kind` (one of {}; see traces/FORMAT.md)",
                KINDS.join(", ")
            ),
        });
    };
    if !KINDS.contains(&kind.as_str()) {
        return Err(TraceError {
            line,
            message: format!(
                "unknown record kind {:?}: the kinds are {} (see traces/FORMAT.md)",
                kind,
                KINDS.join(", ")
            ),
        });
    }
    let link = match (string(&raw, "from"), string(&raw, "to")) {
        (Some(f), Some(t)) => Some((f, t)),
        _ => None,
    };
    let node = string(&raw, "node").or_else(|| match kind.as_str() {
        "send" => link.as_ref().map(|l| l.0.clone()),
        "deliver" | "drop" | "duplicate" => link.as_ref().map(|l| l.1.clone()),
        _ => None,
    });
    let what = match kind.as_str() {
        "send" => raw.get("msg").and_then(tag),
        "deliver" | "drop" | "duplicate" => string(&raw, "msg_kind"),
        "note" => raw.get("note").and_then(tag),
        "timer" => raw.get("timer").and_then(tag),
        "command" => raw.get("command").and_then(tag),
        "fault" => raw.get("fault").and_then(tag),
        "violation" => string(&raw, "invariant"),
        _ => None,
    };
    Ok(ViewRecord {
        line,
        step,
        time,
        id: raw.get("id").and_then(Value::as_u64),
        kind,
        node,
        link,
        what,
        raw,
        story: None,
    })
}

impl TraceView {
    /// Parses a trace file's text; errors name the line and say what to do.
    pub fn parse(text: &str) -> Result<TraceView, TraceError> {
        let header = parse_header(text)?;
        let mut records = Vec::new();
        for (i, line) in text.lines().enumerate().skip(1) {
            if line.trim().is_empty() {
                continue;
            }
            let raw: Value = serde_json::from_str(line).map_err(|e| TraceError {
                line: i + 1,
                message: format!(
                    "not a JSON record ({e}); is the file truncated? re-create it with \
                     `dsim run SCENARIO --trace FILE`"
                ),
            })?;
            records.push(record(raw, i + 1)?);
        }
        Ok(TraceView { header, records })
    }

    /// Attaches story lines: `(record index, line)` pairs, the index counting records from 0.
    pub fn attach_story(&mut self, lines: impl IntoIterator<Item = (usize, String)>) {
        for (i, text) in lines {
            if let Some(r) = self.records.get_mut(i) {
                r.story = Some(text);
            }
        }
    }

    /// The message a send carried, by message number: the payload of the first send with `id`.
    pub fn sent(&self, id: u64) -> Option<&Value> {
        self.records
            .iter()
            .find(|r| r.kind == "send" && r.id == Some(id))
            .and_then(|r| r.raw.get("msg"))
    }
}

/// The fields of an externally tagged value as `k=v` pairs (`Accept{n:11,value:"x"}` gives
/// `n=11 value=x`), for short labels.
pub fn fields_text(v: &Value) -> String {
    let inner = match v {
        Value::Object(m) if m.len() == 1 => m.values().next().unwrap_or(v),
        _ => return String::new(),
    };
    match inner {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", scalar(v)))
            .collect::<Vec<_>>()
            .join(" "),
        other => scalar(other),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "none".into(),
        other => other.to_string(),
    }
}

/// Virtual time as seconds with milliseconds, the story's clock: `   0.102s`.
pub fn clock(nanos: u64) -> String {
    format!(
        "{:>4}.{:03}s",
        nanos / 1_000_000_000,
        (nanos / 1_000_000) % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = r#"{"format":1,"dsim_version":"0","protocol":"p","seed":0,"scenario_name":"s","scenario":"","nodes":["a","b"]}"#;

    // Goal: the view reads who, what and which message from any protocol's records.
    // Method: parse a send, a drop and a crash. Proves the fields renderers rely on are found.
    #[test]
    fn reads_links_kinds_and_fault_nodes() {
        let text = format!(
            "{HEAD}\n{}\n{}\n{}\n",
            r#"{"step":1,"time":0,"kind":"send","id":1,"from":"a","to":"b","msg":{"Ping":{"n":1}}}"#,
            r#"{"step":1,"time":0,"kind":"drop","id":1,"from":"a","to":"b","msg_kind":"Ping","reason":"loss"}"#,
            r#"{"step":2,"time":5,"kind":"fault","fault":{"crash":"b"}}"#
        );
        let v = TraceView::parse(&text).unwrap();
        assert_eq!(v.records[0].what.as_deref(), Some("Ping"));
        assert_eq!(v.records[0].node.as_deref(), Some("a"));
        assert_eq!(v.records[1].node.as_deref(), Some("b"));
        assert_eq!(v.records[2].fault_node(), Some("b"));
        assert!(v.records[2].involves("b") && !v.records[2].involves("a"));
        assert_eq!(fields_text(v.sent(1).unwrap()), "n=1");
    }

    // Goal: a broken line is refused with its number. Method: a record without `time`, and a
    // truncated line. Proves errors point at the line to fix.
    #[test]
    fn broken_lines_are_located() {
        let e =
            TraceView::parse(&format!("{HEAD}\n{{\"step\":1,\"kind\":\"start\"}}\n")).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("`time`"));
        let e = TraceView::parse(&format!("{HEAD}\n\n{{\"step\":1,\"ti")).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("truncated"));
    }
}
