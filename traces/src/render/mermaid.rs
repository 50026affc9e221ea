//! The Mermaid view: a `sequenceDiagram` of the run, as the course draws its diagrams.
//!
//! One participant per node (ids `n0`, `n1` ... with the node's name as alias, so any name is
//! safe), `->>` for a delivered message, `-x` for a lost one, `-->>` for a duplicated copy, and
//! notes for the milestones: chosen values and new leaders (notes whose kind names one, see
//! [`MILESTONE_WORDS`]), crashes and restarts, partitions, and violations. Every label is
//! stripped of what Mermaid's grammar would read as syntax.

use crate::view::{TraceView, ViewRecord, fields_text};
use std::collections::BTreeSet;

/// Note kinds whose name contains one of these words are milestones drawn as Mermaid notes
/// (Paxos `Chosen` and `Adopted`, Raft `BecameLeader`); other notes stay out of the picture.
pub const MILESTONE_WORDS: &[&str] = &["Chosen", "Adopted", "Leader", "Elected", "Decided"];

/// Keeps letters, digits, spaces and a few harmless marks as they are, and writes anything
/// Mermaid could read as syntax (`;`, `#`, quotes, `<`, `>`, braces, `%` ...) as a Mermaid
/// entity code (`#59;`), so distinct names stay distinct in the picture; line breaks and tabs
/// become spaces.
pub fn label(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_alphanumeric() || " -_.=()[]'/+*@!?,:".contains(c) {
            out.push(c);
        } else if c.is_whitespace() || c.is_control() {
            out.push(' ');
        } else {
            out.push_str(&format!("#{};", u32::from(c)));
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct Ids<'a>(&'a [String]);

impl Ids<'_> {
    fn of(&self, name: &str) -> String {
        match self.0.iter().position(|n| n == name) {
            Some(i) => format!("n{i}"),
            None => format!("x_{}", label(name).replace([' ', ':', '-', '.'], "_")),
        }
    }
}

fn message_label(view: &TraceView, r: &ViewRecord) -> String {
    let kind = r.what.clone().unwrap_or_default();
    let fields = r.id.and_then(|id| view.sent(id)).map(fields_text);
    match fields {
        Some(f) if !f.is_empty() => format!("{kind} {f}"),
        _ => kind,
    }
}

fn is_milestone(r: &ViewRecord) -> bool {
    r.kind == "note"
        && r.what
            .as_deref()
            .is_some_and(|w| MILESTONE_WORDS.iter().any(|m| w.contains(m)))
}

/// Renders `view` as a Mermaid `sequenceDiagram`.
pub fn render(view: &TraceView) -> String {
    let nodes = &view.header.nodes;
    let ids = Ids(nodes);
    let mut out = String::from("sequenceDiagram\n");
    out.push_str(&format!(
        "    %% {} seed {}\n",
        label(&view.header.scenario_name),
        view.header.seed
    ));
    for (i, name) in nodes.iter().enumerate() {
        let alias = label(&name.replace(':', " "));
        let alias = if alias.is_empty() {
            format!("node {i}")
        } else {
            alias
        };
        out.push_str(&format!("    participant n{i} as {alias}\n"));
    }
    let span = match nodes.len() {
        0 => None,
        1 => Some("n0".to_string()),
        n => Some(format!("n0,n{}", n - 1)),
    };
    let mut delivered = BTreeSet::new();
    for r in &view.records {
        let line = match r.kind.as_str() {
            "deliver" => {
                let (from, to) = r.link.clone().unwrap_or_default();
                let arrow = if r.id.is_some_and(|id| !delivered.insert(id)) {
                    "-->>"
                } else {
                    "->>"
                };
                let copy = if arrow == "-->>" { " (copy)" } else { "" };
                format!(
                    "{}{arrow}{}: {}{copy}",
                    ids.of(&from),
                    ids.of(&to),
                    label(&message_label(view, r))
                )
            }
            "drop" => {
                let (from, to) = r.link.clone().unwrap_or_default();
                let reason = r.raw.get("reason").map(reason_text).unwrap_or_default();
                format!(
                    "{}-x{}: {} LOST {}",
                    ids.of(&from),
                    ids.of(&to),
                    label(&message_label(view, r)),
                    label(&reason)
                )
            }
            "note" if is_milestone(r) => {
                let node = r.node.clone().unwrap_or_default();
                let text = r.story.clone().unwrap_or_else(|| {
                    format!(
                        "{} {}",
                        r.what.clone().unwrap_or_default(),
                        r.raw.get("note").map(fields_text).unwrap_or_default()
                    )
                });
                format!("Note over {}: {}", ids.of(&node), label(&text))
            }
            "fault" => {
                let what = r.what.clone().unwrap_or_default();
                let text = label(&r.story.clone().unwrap_or_else(|| what.to_uppercase()));
                match (r.fault_node.as_deref(), &span) {
                    (Some(node), _) => format!("Note over {}: {text}", ids.of(node)),
                    (None, Some(span)) if what.starts_with("partition") || what == "heal" => {
                        format!("Note over {span}: {text}")
                    }
                    _ => continue,
                }
            }
            "violation" => {
                let Some(span) = &span else { continue };
                let inv = r.what.clone().unwrap_or_default();
                let msg = r
                    .raw
                    .get("message")
                    .and_then(|m| m.as_str())
                    .unwrap_or_default();
                format!(
                    "Note over {span}: VIOLATION of {} at step {}: {}",
                    label(&inv),
                    r.step,
                    label(msg)
                )
            }
            _ => continue,
        };
        out.push_str("    ");
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn reason_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => format!("({s})"),
        serde_json::Value::Object(m) => match m.iter().next() {
            Some((k, n)) if k == "rule" => {
                format!("(fault rule {})", n.as_u64().map_or(0, |n| n + 1))
            }
            Some((k, _)) => format!("({k})"),
            None => String::new(),
        },
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Goal: hostile names and texts cannot inject Mermaid syntax, and distinct names stay
    // distinct. Method: label a string with every dangerous character. Proves each becomes an
    // entity code and none survives raw (a `;` or `#` appears only inside a code).
    #[test]
    fn labels_encode_syntax() {
        let l = label("a;b#c\"d<e>f\ng%%h{i}");
        for c in ['"', '<', '>', '\n', '%', '{', '}'] {
            assert!(!l.contains(c), "{l}");
        }
        assert_eq!(l, "a#59;b#35;c#34;d#60;e#62;f g#37;#37;h#123;i#125;");
        assert_ne!(label("a&1"), label("a 1"));
    }

    // Goal: lost and delivered messages get their arrows, milestones their notes.
    // Method: render a small trace. Proves the diagram's vocabulary.
    #[test]
    fn arrows_and_notes() {
        let text = concat!(
            r#"{"format":1,"dsim_version":"0","protocol":"p","seed":0,"scenario_name":"s","scenario":"","nodes":["a","</script>"]}"#,
            "\n",
            r#"{"step":1,"time":0,"kind":"send","id":1,"from":"a","to":"</script>","msg":{"Ping":{"n":1}}}"#,
            "\n",
            r#"{"step":2,"time":1,"kind":"deliver","id":1,"from":"a","to":"</script>","msg_kind":"Ping"}"#,
            "\n",
            r#"{"step":2,"time":1,"kind":"send","id":2,"from":"a","to":"</script>","msg":{"Ping":{"n":2}}}"#,
            "\n",
            r#"{"step":3,"time":1,"kind":"drop","id":2,"from":"a","to":"</script>","msg_kind":"Ping","reason":"loss"}"#,
            "\n",
            r#"{"step":4,"time":1,"kind":"note","node":"a","note":{"Chosen":{"value":"v"}}}"#,
            "\n",
            r#"{"step":5,"time":1,"kind":"fault","fault":{"crash":"a"}}"#,
            "\n",
        );
        let m = render(&TraceView::read::<crate::testing::Probe>(text).unwrap());
        assert!(m.contains("participant n1 as #60;/script#62;\n"), "{m}");
        assert!(m.contains("n0->>n1: Ping n=1\n"), "{m}");
        assert!(
            !m.contains("n0->>n1: Ping n=2"),
            "a lost message draws no arrow: {m}"
        );
        assert!(m.contains("n0-xn1: Ping n=2 LOST (loss)\n"), "{m}");
        assert!(m.contains("Note over n0: Chosen value=v\n"), "{m}");
        assert!(m.contains("Note over n0: CRASH\n"), "{m}");
    }
}
