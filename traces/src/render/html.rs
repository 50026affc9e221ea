//! The HTML view: one self-contained page to step through a run.
//!
//! The page (`assets/viewer.html`, `.css`, `.js`, inlined) needs no network: the trace travels
//! inside it as JSON in a `<script type="application/json">` block, with `<`, `>`, `&` and the
//! JavaScript line separators escaped so that no string can close the block. The script then
//! renders every string with `textContent`. The only other untrusted text, the title, is
//! HTML-escaped here.

use crate::Lang;
use crate::narrate::reason_text;
use crate::view::TraceView;
use serde_json::{Map, Value, json};
use sim_core::{DropReason, EVENT_KINDS as KINDS};
use std::collections::BTreeMap;

const PAGE: &str = include_str!("assets/viewer.html");
const STYLE: &str = include_str!("assets/viewer.css");
const SCRIPT: &str = include_str!("assets/viewer.js");

/// Escapes text for HTML element content and attribute values.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON that is safe inside a `<script>` block: `<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes
/// (they can only occur inside JSON strings, where the escapes mean the same characters).
pub fn script_json(value: &Value) -> String {
    let text = serde_json::to_string(value).expect("JSON values serialize");
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Fields a record's columns already carry, left out of its payload.
const IN_COLUMNS: [&str; 8] = [
    "step", "time", "kind", "node", "from", "to", "id", "msg_kind",
];

/// Interns values: each distinct one is written once and referred to by its position from 1
/// (0 means none), so the three copies of a write sent to three replicas cost one payload.
#[derive(Default)]
struct Table {
    values: Vec<Value>,
    index: BTreeMap<String, usize>,
}

impl Table {
    fn intern(&mut self, key: String, value: impl FnOnce() -> Value) -> usize {
        if let Some(&at) = self.index.get(&key) {
            return at;
        }
        self.values.push(value());
        self.index.insert(key, self.values.len());
        self.values.len()
    }
    fn text(&mut self, text: Option<&str>) -> usize {
        text.map_or(0, |t| self.intern(t.to_string(), || Value::from(t)))
    }
    fn payload(&mut self, fields: Map<String, Value>) -> usize {
        if fields.is_empty() {
            return 0;
        }
        let value = Value::Object(fields);
        self.intern(value.to_string(), || value)
    }
}

/// The data the page's script reads, compact because a long run has tens of thousands of
/// records: each record is one array `[step - previous step, time - previous time (ns), kind,
/// node, from, to, id + 1, what, story, payload, key]` with trailing zeros left off, where
/// texts and payloads are positions in the interned `strings` and `payloads` tables (0: none).
/// A fault's node (the crashed or paused one) is its `node`. Only sends (the message), losses
/// (the reason) and violations (the message) carry a payload: the rest are told by their story
/// line, and a protocol's internal notes (`TermChanged { from: 0, to: 1 }`) are not the lesson.
/// `assets/viewer.js` decodes it.
fn data(view: &TraceView, lang: Lang) -> Value {
    let mut strings = Table::default();
    let mut payloads = Table::default();
    let (mut step, mut time) = (0u64, 0u64);
    let records: Vec<Value> = view
        .records
        .iter()
        .map(|r| {
            let mut fields = Map::new();
            let told_in_words = !matches!(r.kind.as_str(), "send" | "drop" | "violation");
            if let (Value::Object(m), false) = (&r.raw, told_in_words) {
                for (k, v) in m {
                    if !IN_COLUMNS.contains(&k.as_str()) {
                        fields.insert(k.clone(), v.clone());
                    }
                }
                // A loss's reason as the story says it ("cut by a partition").
                if let Some(reason) = fields.get_mut("reason")
                    && let Ok(why) = serde_json::from_value::<DropReason>(reason.clone())
                {
                    *reason = reason_text(why, lang == Lang::Es).into();
                }
            }
            let kind = KINDS
                .iter()
                .position(|k| *k == r.kind)
                .unwrap_or(KINDS.len());
            let node = r.node.as_deref().or(r.fault_node.as_deref());
            let (from, to) = r
                .link
                .as_ref()
                .map_or((None, None), |(f, t)| (Some(f.as_str()), Some(t.as_str())));
            let mut row: Vec<Value> = vec![
                (r.step.wrapping_sub(step) as i64).into(),
                (r.time as i64).wrapping_sub(time as i64).into(),
                kind.into(),
                strings.text(node).into(),
                strings.text(from).into(),
                strings.text(to).into(),
                r.id.map_or(0, |id| id + 1).into(),
                strings.text(r.what.as_deref()).into(),
                strings.text(r.story.as_deref()).into(),
                payloads.payload(fields).into(),
                u8::from(r.key).into(),
            ];
            while row.len() > 3 && row.last() == Some(&Value::from(0)) {
                row.pop();
            }
            (step, time) = (r.step, r.time);
            Value::Array(row)
        })
        .collect();
    json!({
        "lang": lang.tag(),
        "scenario": view.header.scenario_name,
        "protocol": view.header.protocol,
        "seed": view.header.seed,
        "nodes": view.header.nodes,
        "kinds": KINDS,
        "strings": strings.values,
        "payloads": payloads.values,
        "records": records,
        "history": view.history,
    })
}

/// Renders `view` as one self-contained HTML page, its interface in `lang`.
pub fn render(view: &TraceView, lang: Lang) -> String {
    fill(
        PAGE,
        &[
            (
                "{{LANG}}",
                match lang {
                    Lang::En => "en",
                    Lang::Es => "es",
                }
                .to_string(),
            ),
            ("{{STYLE}}", STYLE.to_string()),
            ("{{TITLE}}", escape_html(&view.header.scenario_name)),
            ("{{SCRIPT}}", SCRIPT.to_string()),
            ("{{DATA}}", script_json(&data(view, lang))),
        ],
    )
}

/// Fills `template`'s placeholders in one pass over the template only, so a placeholder that
/// appears inside a value (a scenario named `{{DATA}}`) is never expanded.
fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        match values.iter().find(|(key, _)| tail.starts_with(key)) {
            Some((key, value)) => {
                out.push_str(value);
                rest = &tail[key.len()..];
            }
            None => {
                out.push_str("{{");
                rest = &tail[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value containing a placeholder is not expanded (a review found `{{DATA}}` in a
    /// scenario's name pulled the whole data block into the title).
    #[test]
    fn placeholders_inside_values_stay_text() {
        let page = fill(
            "<t>{{TITLE}}</t><d>{{DATA}}</d>",
            &[
                ("{{TITLE}}", "x {{DATA}} y".into()),
                ("{{DATA}}", "[1]".into()),
            ],
        );
        assert_eq!(page, "<t>x {{DATA}} y</t><d>[1]</d>");
    }

    // Goal: no trace string can end the data block or the page. Method: render a trace whose
    // node, scenario and payload are `</script>` attacks. Proves the page holds exactly its own
    // three script tags and the raw attack text appears nowhere.
    #[test]
    fn hostile_strings_stay_inside() {
        let evil = "</script><script>alert(1)</script>\u{2028}&";
        let header = json!({"format":1,"dsim_version":"0","protocol":"p","seed":0,
            "scenario_name": evil, "scenario": "", "nodes": [evil]});
        let rec = json!({"step":1,"time":0,"kind":"note","node":evil,"note":{"X":{"v":evil}}});
        let text = format!("{header}\n{rec}\n");
        let page = render(
            &TraceView::read::<crate::testing::Probe>(&text).unwrap(),
            Lang::En,
        );
        assert_eq!(
            page.matches("<script").count(),
            2,
            "only the data and code blocks"
        );
        assert_eq!(page.matches("</script>").count(), 2);
        assert!(!page.contains("<script>alert"));
        let data = page.split("id=\"trace-data\">").nth(1).unwrap();
        let data = data.split("</script>").next().unwrap();
        assert!(!data.contains('\u{2028}') && !data.contains('<') && !data.contains('&'));
        assert!(page.contains("dsim: &lt;/script&gt;"));
    }

    // Goal: the page needs no network. Method: look for URLs to fetch. Proves it is
    // self-contained (the only URL is SVG's namespace, which is never fetched).
    #[test]
    fn nothing_is_fetched() {
        let text = "{\"format\":1,\"dsim_version\":\"0\",\"protocol\":\"p\",\"seed\":0,\"scenario_name\":\"s\",\"scenario\":\"\",\"nodes\":[\"a\"]}\n";
        let page = render(
            &TraceView::read::<crate::testing::Probe>(text).unwrap(),
            Lang::En,
        );
        assert!(!page.contains("src=") && !page.contains("href="));
        assert_eq!(
            page.matches("http").count(),
            2,
            "the CSP's absence of hosts and SVG's namespace"
        );
    }
}
