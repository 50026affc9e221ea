//! The DOT view: the run's happens-before graph, for Graphviz.
//!
//! One vertex per event at a node (start, send, delivery, timer, command, note, crash), one per
//! loss or duplication; edges for each node's own order and for every message, from its send
//! to its delivery or loss. Built as a petgraph `Acyclic` graph, so a cycle (a hand-edited trace
//! delivering before sending) is caught, and written with petgraph's DOT writer. petgraph does
//! not escape attributes: [`quote`] does, since node names and payloads are untrusted.

use crate::view::{TraceView, ViewRecord, fields_text};
use petgraph::acyclic::Acyclic;
use petgraph::data::Build;
use petgraph::dot::{Config, Dot};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::BTreeMap;

/// A DOT quoted string: `"` and `\` escaped, line breaks as `\n`, other controls dropped.
pub fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Why an edge exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    /// The same node, one event after the other.
    Local,
    /// A message from its send.
    Message,
}

fn vertex_label(r: &ViewRecord) -> String {
    let who = r.node.clone().or_else(|| r.fault_node.clone());
    let what = r.what.clone().unwrap_or_else(|| r.kind.clone());
    let detail = match r.kind.as_str() {
        "send" => r.raw.get("msg").map(fields_text).unwrap_or_default(),
        "note" => r.raw.get("note").map(fields_text).unwrap_or_default(),
        _ => String::new(),
    };
    let head = format!(
        "#{} {}: {} {}",
        r.step,
        who.unwrap_or_default(),
        r.kind,
        what
    );
    if detail.is_empty() {
        head
    } else {
        format!("{head}\n{detail}")
    }
}

/// Renders `view`'s happens-before graph as DOT, or says which line makes it cyclic.
pub fn render(view: &TraceView) -> Result<String, String> {
    let mut g: Acyclic<DiGraph<usize, Edge>> = Acyclic::new();
    let mut last: BTreeMap<&str, NodeIndex> = BTreeMap::new();
    let mut sends: BTreeMap<u64, NodeIndex> = BTreeMap::new();
    for (i, r) in view.records.iter().enumerate() {
        let network = matches!(r.kind.as_str(), "drop" | "duplicate");
        let at = if network {
            None
        } else {
            r.node.as_deref().or(r.fault_node.as_deref())
        };
        if at.is_none() && !network {
            continue;
        }
        let v = g.add_node(i);
        if let Some(node) = at
            && let Some(prev) = last.insert(node, v)
        {
            g.try_add_edge(prev, v, Edge::Local)
                .map_err(|_| format!("line {}: this event closes a cycle", r.line))?;
        }
        match (r.kind.as_str(), r.id) {
            ("send", Some(id)) => {
                sends.insert(id, v);
            }
            ("deliver" | "drop" | "duplicate", Some(id)) => {
                if let Some(&s) = sends.get(&id) {
                    g.try_add_edge(s, v, Edge::Message).map_err(|_| {
                        format!(
                            "line {}: message {id} arrives before it is sent (a cycle)",
                            r.line
                        )
                    })?;
                }
            }
            _ => {}
        }
    }
    let inner = g.inner();
    let edge_attrs = |_, e: petgraph::graph::EdgeReference<'_, Edge>| match e.weight() {
        Edge::Local => String::new(),
        Edge::Message => "style=bold color=\"#1f5fa8\"".to_string(),
    };
    let node_attrs = |_, (_, &i): (NodeIndex, &usize)| {
        let r = &view.records[i];
        let look = match r.kind.as_str() {
            "drop" => " color=red fontcolor=red shape=box style=dashed",
            "duplicate" => " color=orange shape=box style=dashed",
            "fault" => " color=orange shape=octagon",
            "note" => " shape=note",
            _ => "",
        };
        format!("label={}{look}", quote(&vertex_label(r)))
    };
    let body = Dot::with_attr_getters(
        inner,
        &[
            Config::GraphContentOnly,
            Config::NodeNoLabel,
            Config::EdgeNoLabel,
        ],
        &edge_attrs,
        &node_attrs,
    );
    Ok(format!(
        "digraph happens_before {{\n    label={};\n    rankdir=TB;\n    node [shape=ellipse fontsize=10];\n{body:?}}}\n",
        quote(&format!(
            "{} seed {} (happens-before)",
            view.header.scenario_name, view.header.seed
        ))
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Goal: untrusted names cannot break out of a DOT string. Method: quote a hostile name.
    // Proves quotes and backslashes are escaped and newlines folded.
    #[test]
    fn quotes_escape() {
        assert_eq!(quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    }

    // Goal: the graph links a send to its delivery and each node's events in order.
    // Method: render a two-node exchange and count edges. Proves the happens-before shape.
    #[test]
    fn send_precedes_delivery() {
        let text = concat!(
            r#"{"format":1,"dsim_version":"0","protocol":"p","seed":0,"scenario_name":"s","scenario":"","nodes":["a","b\""]}"#,
            "\n",
            r#"{"step":1,"time":0,"kind":"start","node":"a"}"#,
            "\n",
            r#"{"step":2,"time":0,"kind":"send","id":1,"from":"a","to":"b\"","msg":{"Ping":{"n":1}}}"#,
            "\n",
            r#"{"step":3,"time":1,"kind":"deliver","id":1,"from":"a","to":"b\"","msg_kind":"Ping"}"#,
            "\n",
        );
        let d = render(&TraceView::read::<crate::testing::Probe>(text).unwrap()).unwrap();
        assert!(d.contains("1 -> 2 [ style=bold"), "{d}");
        assert!(d.contains("0 -> 1 [ ]"), "{d}");
        assert!(d.contains(r#"b\": deliver Ping"#), "{d}");
    }
}
