//! The text view: the course-style story, one line per record, filtered, optionally coloured.
//!
//! Lines are the narrators' (protocol first, generic for the rest), prefixed with the virtual
//! clock and the step, so a student can find the step in the other views. Colour marks what the
//! lesson is about: losses and violations in red, faults in yellow, the protocol's facts in
//! bold; the caller decides whether colour is wanted (a terminal, and no `NO_COLOR`).

use crate::Lang;
use crate::render::Filter;
use crate::view::{TraceView, ViewRecord, clock};

const RED: &str = "\x1b[31m";
const BOLD_RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[33m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

fn style(r: &ViewRecord) -> &'static str {
    match r.kind.as_str() {
        "drop" => RED,
        "violation" => BOLD_RED,
        "fault" | "duplicate" => YELLOW,
        "note" => BOLD,
        _ => "",
    }
}

/// Renders the story of `view`'s records that pass `filter`; records with no story line (at the
/// chosen detail) are left out. With `color`, ANSI colours mark losses, faults and facts; the
/// heading is in `lang` (the lines are already).
pub fn render(view: &TraceView, filter: &Filter, color: bool, lang: Lang) -> String {
    let h = &view.header;
    let (name, protocol, seed, nodes) = (&h.scenario_name, &h.protocol, h.seed, h.nodes.join(", "));
    let mut out = match lang {
        Lang::En => format!("{name} ({protocol} protocol, seed {seed}, nodes: {nodes})\n\n"),
        Lang::Es => format!("{name} (protocolo {protocol}, semilla {seed}, nodos: {nodes})\n\n"),
    };
    for r in view.records.iter().filter(|r| filter.keeps(r)) {
        let Some(line) = &r.story else { continue };
        let prefix = format!("{}  #{:<4}", clock(r.time), r.step);
        let s = style(r);
        if color {
            out.push_str(&format!("{DIM}{prefix}{RESET} "));
            if s.is_empty() {
                out.push_str(line);
            } else {
                out.push_str(&format!("{s}{line}{RESET}"));
            }
        } else {
            out.push_str(&prefix);
            out.push(' ');
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> TraceView {
        let text = concat!(
            r#"{"format":1,"dsim_version":"0","protocol":"p","seed":3,"scenario_name":"s","scenario":"","nodes":["a","b"]}"#,
            "\n",
            r#"{"step":1,"time":1000000,"kind":"send","id":1,"from":"a","to":"b","msg":{"Ping":{"n":1}}}"#,
            "\n",
            r#"{"step":1,"time":1000000,"kind":"drop","id":1,"from":"a","to":"b","msg_kind":"Ping","reason":"loss"}"#,
            "\n",
            r#"{"step":2,"time":2000000,"kind":"note","node":"a","note":{"Done":{}}}"#,
            "\n"
        );
        let mut v = TraceView::read::<crate::testing::Probe>(text).unwrap();
        let told = |index, text: &str| crate::story::Told {
            index,
            time: sim_core::Instant::ZERO,
            text: text.into(),
            key: false,
            pinned: false,
        };
        let lines = [told(1, "a: Ping to b LOST"), told(2, "[a] done")];
        v.attach_story(lines);
        v
    }

    // Goal: plain output carries no escape codes and coloured output marks a loss in red.
    // Method: render one trace both ways. Proves piping gives clean text.
    #[test]
    fn colour_only_when_asked() {
        let plain = render(&view(), &Filter::default(), false, Lang::En);
        assert!(!plain.contains('\x1b'), "{plain}");
        assert!(
            plain.contains("   0.001s  #1    a: Ping to b LOST"),
            "{plain}"
        );
        let colored = render(&view(), &Filter::default(), true, Lang::En);
        assert!(colored.contains(&format!("{RED}a: Ping to b LOST{RESET}")));
    }

    // Goal: filters keep only what they name. Method: a kind filter for the note.
    // Proves the loss disappears and the note stays.
    #[test]
    fn filters_by_kind() {
        let f = Filter {
            kinds: vec!["Done".into()],
            ..Filter::default()
        };
        let out = render(&view(), &f, false, Lang::En);
        assert!(out.contains("[a] done") && !out.contains("LOST"), "{out}");
    }
}
