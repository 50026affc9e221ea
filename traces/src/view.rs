//! A protocol-independent view of a trace, for the renderers.
//!
//! Renderers (text, Mermaid, HTML, DOT) must draw any protocol's trace without its types, so a
//! view is made from the typed records once: who, what kind, which message (through the
//! kernel's `Event` accessors, the one schema), and each record's JSON as the file writes it, for
//! the payloads' fields. The protocol's own words are attached as story lines by record index
//! (`crate::story::tell`).

use crate::format::Header;
use crate::read::{TraceError, read_trace};
use crate::story::Told;
use serde_json::Value;
use sim_core::{Actor, Event, Record};

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
    /// The node a fault is about (crash, restart, pause, resume, clock).
    pub fault_node: Option<String>,
    /// The protocol's or the generic narrator's line for it, once attached.
    pub story: Option<String>,
    /// Whether its story line tells an event the lesson is about (an election, a chosen value,
    /// a fault, a join), which the views show with emphasis.
    pub key: bool,
}

/// The view of one typed record at `line` of its file.
fn view_record<A: Actor>(r: &Record<A>, line: usize) -> ViewRecord {
    let raw = serde_json::to_value(r).expect("records serialize");
    let event = &r.event;
    let what = match event {
        Event::Send { .. }
        | Event::Deliver { .. }
        | Event::Drop { .. }
        | Event::Duplicate { .. } => event.msg_kind().map(str::to_string),
        Event::Note { .. } => raw.get("note").and_then(tag),
        Event::Timer { .. } => raw.get("timer").and_then(tag),
        Event::Command { .. } => raw.get("command").and_then(tag),
        Event::Fault { .. } => raw.get("fault").and_then(tag),
        Event::Violation { invariant, .. } => Some(invariant.to_string()),
        Event::Start { .. } => None,
    };
    let fault_node = match event {
        Event::Fault { fault } => fault.node().map(str::to_string),
        _ => None,
    };
    ViewRecord {
        line,
        step: r.step,
        time: r.time.as_nanos(),
        kind: event.kind_name().to_string(),
        node: event.node().map(str::to_string),
        link: event.link().map(|(f, t)| (f.to_string(), t.to_string())),
        id: event.msg_id().map(|id| id.0),
        what,
        raw,
        fault_node,
        story: None,
        key: false,
    }
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
            || self.fault_node.as_deref() == Some(node)
    }
}

/// A whole trace, as the renderers see it.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceView {
    /// The header.
    pub header: Header,
    /// Every record, in file order.
    pub records: Vec<ViewRecord>,
    /// The clients' history, for a protocol that has one (see [`crate::Story::history`]).
    pub history: Option<crate::history::ClientHistory>,
}

/// The name of an externally tagged enum value: `{"Accept":{..}}` or `"Propose"`.
fn tag(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(m) if m.len() == 1 => m.keys().next().cloned(),
        _ => None,
    }
}

impl TraceView {
    /// The view of typed records: what each is (from the kernel's own `Event` accessors),
    /// with its JSON as a trace file writes it for the renderers that show payloads.
    ///
    /// Records are numbered as lines of the file they came from or would be written to
    /// (the header is line 1).
    pub fn of<A: Actor>(header: Header, records: &[Record<A>]) -> TraceView {
        let records = records
            .iter()
            .enumerate()
            .map(|(i, r)| view_record(r, i + 2))
            .collect();
        TraceView {
            header,
            records,
            history: None,
        }
    }

    /// Reads a trace of actor `A` (see [`read_trace`]) into a view, without story lines.
    pub fn read<A: Actor>(text: &str) -> Result<TraceView, TraceError> {
        let (header, records) = read_trace::<A>(text)?;
        Ok(TraceView::of(header, &records))
    }

    /// Attaches story lines (from [`crate::story::tell`]) to the records they tell.
    pub fn attach_story(&mut self, lines: impl IntoIterator<Item = Told>) {
        for told in lines {
            if let Some(r) = self.records.get_mut(told.index) {
                r.story = Some(told.text);
                r.key = told.key;
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
/// `n=11 value=x`), for short labels. Nested values read compactly, as a person would write
/// them: a tagged enum as `Put(x, 1)`, a struct as `(seq=1 view=0)`; a tuple variant's
/// fields are listed in order.
pub fn fields_text(v: &Value) -> String {
    let inner = match v {
        Value::Object(m) if m.len() == 1 => m.values().next().unwrap_or(v),
        _ => return String::new(),
    };
    match inner {
        Value::Object(m) => pairs(m),
        Value::Array(items) => items.iter().map(compact).collect::<Vec<_>>().join(" "),
        other => compact(other),
    }
}

fn pairs(m: &serde_json::Map<String, Value>) -> String {
    m.iter()
        .map(|(k, v)| format!("{k}={}", compact(v)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One value, short: strings bare, null as `none`, `{"Put":["x","1"]}` as `Put(x, 1)`.
fn compact(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "none".into(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(compact).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(m) if m.len() == 1 && m.keys().all(|k| k.starts_with(char::is_uppercase)) => {
            let (tag, inner) = m.iter().next().expect("one entry");
            match inner {
                Value::Array(items) => {
                    let items: Vec<String> = items.iter().map(compact).collect();
                    format!("{tag}({})", items.join(", "))
                }
                Value::Object(fields) => format!("{tag}({})", pairs(fields)),
                other => format!("{tag}({})", compact(other)),
            }
        }
        Value::Object(m) => format!("({})", pairs(m)),
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
        let v = TraceView::read::<crate::testing::Probe>(&text).unwrap();
        assert_eq!(v.records[0].what.as_deref(), Some("Ping"));
        assert_eq!(v.records[0].node.as_deref(), Some("a"));
        assert_eq!(v.records[1].node.as_deref(), Some("b"));
        assert_eq!(v.records[2].fault_node.as_deref(), Some("b"));
        assert!(v.records[2].involves("b") && !v.records[2].involves("a"));
        assert_eq!(fields_text(v.sent(1).unwrap()), "n=1");
        let nested: Value = serde_json::from_str(
            r#"{"PrePrepare":[{"seq":1,"view":0},{"op":{"Put":["x","1"]},"t":null}]}"#,
        )
        .unwrap();
        assert_eq!(fields_text(&nested), "(seq=1 view=0) (op=Put(x, 1) t=none)");
    }

    // Goal: a broken line is refused with its number. Method: a record without `time`, and a
    // truncated line. Proves errors point at the line to fix.
    #[test]
    fn broken_lines_are_located() {
        let e = TraceView::read::<crate::testing::Probe>(&format!(
            "{HEAD}\n{{\"step\":1,\"kind\":\"start\"}}\n"
        ))
        .unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("`time`"));
        let e = TraceView::read::<crate::testing::Probe>(&format!("{HEAD}\n\n{{\"step\":1,\"ti"))
            .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("truncated"));
    }
}
