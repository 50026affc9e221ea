//! The largest sizes a scenario file may set: a run beyond them would take the machine's
//! memory or days, and a student's typo should be refused, not run. Each admits the course's
//! sizes many times over (a 1,000-node ring, a minute of virtual time, a million steps).

/// Nodes of one scenario.
pub const NODES: usize = 10_000;
/// Characters of a node name.
pub const NAME_CHARS: usize = 64;
/// Steps of a timeline.
pub const TIMELINE_STEPS: usize = 100_000;
/// Virtual time of a run and of any step, in ms (30 days).
pub const TIME_MS: u64 = 30 * 24 * 3_600_000;
/// Kernel steps of a run.
pub const STEPS: u64 = 100_000_000;
/// Messages in flight at once.
pub const IN_FLIGHT: usize = 10_000_000;
/// Characters of one text (a value, a key, a description): a text is copied into the trace
/// with every record that carries it (a client's value in each request, pre-prepare and log
/// line of a PBFT run), so its size bounds how much a trace can grow per record.
pub const TEXT_CHARS: usize = 4_096;

/// How much of a long text's line a diagnostic shows after its opening quote.
const SHOWN_CHARS: usize = 60;

/// Every text in `source` longer than [`TEXT_CHARS`] characters, located at its opening quote.
/// This reads the file as text (strings, raw strings, comments), before any protocol's types,
/// so it bounds every text a file can set, whatever field it sits in.
pub fn long_texts(file: &str, source: &str) -> Vec<crate::Diagnostic> {
    super::literals::strings(source)
        .filter_map(|text| {
            let chars = source.as_bytes()[text.body.clone()]
                .iter()
                .filter(|&&b| b & 0xC0 != 0x80)
                .count();
            (chars > TEXT_CHARS).then(|| long_text(file, source, text.start, chars))
        })
        .collect()
}

fn long_text(file: &str, source: &str, start: usize, chars: usize) -> crate::Diagnostic {
    let line_start = source[..start].rfind('\n').map_or(0, |p| p + 1);
    let line = source[..start].matches('\n').count() + 1;
    let col = source[line_start..start].chars().count() + 1;
    let mut diagnostic = crate::Diagnostic::at(
        file,
        "",
        line,
        col,
        1,
        format!(
            "a text of {chars} characters; a scenario's texts (values, keys, descriptions) are \
             at most {TEXT_CHARS}"
        ),
    )
    .with_help(
        "a trace copies a value into every record that carries it, so a long one would \
         multiply; use a shorter value (its size does not change what the protocol does)",
    );
    let line_end = source[start..]
        .find('\n')
        .map_or(source.len(), |p| start + p);
    let shown: String = source[line_start..line_end]
        .chars()
        .take(col - 1 + SHOWN_CHARS)
        .collect();
    diagnostic.source_line = Some(format!("{shown}…"));
    diagnostic
}

#[cfg(test)]
mod tests {
    use super::*;

    // Goal: every text a file can set is bounded, wherever it sits, and only texts count.
    // Method: a file with a text one character over the cap in a command, one at the cap, and
    // long runs of characters in a comment, a block comment and a raw string at the cap.
    // Proves: only the text over the cap is refused, at its opening quote's line and column,
    // and the diagnostic shows a bounded piece of its line.
    #[test]
    fn texts_over_the_cap_are_refused_where_they_start() {
        let over = "v".repeat(TEXT_CHARS + 1);
        let at_cap = "é".repeat(TEXT_CHARS);
        let source = format!(
            "// {over}\n/* \"{over}\" */\nScenario(\n  a: r#\"{at_cap}\"#,\n  b: \"{at_cap}\",\n  \
             c: '\"',\n  timeline: [At(0, Command(\"c1\", Put(\"x\", \"{over}\")))],\n)\n"
        );
        let problems = long_texts("f.ron", &source);
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = &problems[0];
        assert_eq!((p.line, p.col), (7, 43), "{p}");
        assert!(p.message.contains(&(TEXT_CHARS + 1).to_string()), "{p}");
        assert!(p.to_string().len() < 1_000, "{p}");
    }
}
