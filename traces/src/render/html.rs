//! The HTML view: one self-contained page to step through a run.
//!
//! The page (`assets/viewer.html`, `.css`, `.js`, inlined) needs no network: the trace travels
//! inside it as JSON in a `<script type="application/json">` block, with `<`, `>`, `&` and the
//! JavaScript line separators escaped so that no string can close the block. The script then
//! renders every string with `textContent`. The only other untrusted text, the title, is
//! HTML-escaped here.

use crate::view::TraceView;
use serde_json::{Map, Value, json};

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

/// The data the page's script reads.
fn data(view: &TraceView) -> Value {
    let records: Vec<Value> = view
        .records
        .iter()
        .map(|r| {
            let mut fields = Map::new();
            if let Value::Object(m) = &r.raw {
                for (k, v) in m {
                    if !matches!(k.as_str(), "step" | "time" | "kind") {
                        fields.insert(k.clone(), v.clone());
                    }
                }
            }
            json!({
                "step": r.step,
                "time": r.time,
                "kind": r.kind,
                "node": r.node,
                "fault_node": r.fault_node,
                "from": r.link.as_ref().map(|l| &l.0),
                "to": r.link.as_ref().map(|l| &l.1),
                "id": r.id,
                "what": r.what,
                "story": r.story,
                "fields": fields,
            })
        })
        .collect();
    json!({
        "scenario": view.header.scenario_name,
        "protocol": view.header.protocol,
        "seed": view.header.seed,
        "nodes": view.header.nodes,
        "records": records,
    })
}

/// Renders `view` as one self-contained HTML page.
pub fn render(view: &TraceView) -> String {
    fill(
        PAGE,
        &[
            ("{{STYLE}}", STYLE.to_string()),
            ("{{TITLE}}", escape_html(&view.header.scenario_name)),
            ("{{SCRIPT}}", SCRIPT.to_string()),
            ("{{DATA}}", script_json(&data(view))),
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
        let page = render(&TraceView::read::<crate::testing::Probe>(&text).unwrap());
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
        let page = render(&TraceView::read::<crate::testing::Probe>(text).unwrap());
        assert!(!page.contains("src=") && !page.contains("href="));
        assert_eq!(
            page.matches("http").count(),
            2,
            "the CSP's absence of hosts and SVG's namespace"
        );
    }
}
