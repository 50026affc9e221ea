//! The first pass: RON's own errors turned into located diagnostics, and the protocol's name
//! read before the file is parsed with the protocol's types.

use crate::diagnostic::{Diagnostic, closest};
use crate::schema::{Head, StrictHead};
use ron::extensions::Extensions;

/// The RON options every scenario is read with: optional fields need no `Some(..)`.
pub fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(Extensions::IMPLICIT_SOME)
}

/// Reads which protocol a scenario is for.
pub fn protocol_of(file: &str, source: &str) -> Result<String, Diagnostic> {
    match ron_options().from_str::<Head>(source) {
        Ok(head) => Ok(head.protocol),
        Err(e) => {
            // A missing `protocol` is usually a misspelled one: the strict look names it.
            if let ron::error::Error::MissingStructField { .. } = e.code
                && let Err(strict) = ron_options().from_str::<StrictHead>(source)
            {
                return Err(from_ron(file, source, &strict));
            }
            Err(from_ron(file, source, &e))
        }
    }
}

/// Turns a RON error into a located diagnostic with a suggestion where one helps.
pub fn from_ron(file: &str, source: &str, e: &ron::error::SpannedError) -> Diagnostic {
    use ron::error::Error;
    let pos = e.span.start;
    let (message, help) = match &e.code {
        Error::NoSuchStructField {
            expected,
            found,
            outer,
        } => (
            format!(
                "unknown field `{found}`{}",
                outer
                    .as_ref()
                    .map(|o| format!(" in {o}"))
                    .unwrap_or_default()
            ),
            Some(suggest(found, expected, "fields")),
        ),
        Error::NoSuchEnumVariant {
            expected,
            found,
            outer,
        } => (
            format!(
                "unknown variant `{found}`{}",
                outer
                    .as_ref()
                    .map(|o| format!(" of {o}"))
                    .unwrap_or_default()
            ),
            Some(suggest(found, expected, "choices")),
        ),
        Error::MissingStructField { field, outer } => (
            format!(
                "missing field `{field}`{}",
                outer
                    .as_ref()
                    .map(|o| format!(" in {o}"))
                    .unwrap_or_default()
            ),
            Some(format!("add `{field}: ...` (see scenarios/FORMAT.md)")),
        ),
        Error::Eof => (
            "the file ends too early".to_string(),
            Some("a closing bracket or parenthesis is probably missing".to_string()),
        ),
        other => {
            let text = other.to_string();
            // RON reads a tuple struct's name and its `(` as one token: `At (` is refused.
            let rest: String = source
                .lines()
                .nth(pos.line.saturating_sub(1))
                .map(|l| l.chars().skip(pos.col.saturating_sub(1)).collect())
                .unwrap_or_default();
            let spaced = text.starts_with("Expected opening `(`")
                && rest
                    .split_once('(')
                    .is_some_and(|(name, _)| name.ends_with(char::is_whitespace));
            let help = spaced
                .then(|| "write the name and its `(` together, e.g. `At(100, ...)`".to_string());
            (text, help)
        }
    };
    // A column past the end of its line (a carriage return inside a comment) points at the
    // line's end instead.
    let line_chars = source
        .lines()
        .nth(pos.line.saturating_sub(1))
        .map_or(0, |l| l.trim_end_matches('\r').chars().count());
    let pos_col = pos.col.min(line_chars + 1);
    let pos = ron::error::Position {
        line: pos.line,
        col: pos_col,
    };
    let width = if pos.line == e.span.end.line && e.span.end.col > pos.col {
        e.span.end.col - pos.col
    } else {
        1
    };
    let line = pos.line.max(1);
    let d = Diagnostic::at(file, source, line, pos.col.max(1), width, message);
    match help {
        Some(h) => d.with_help(h),
        None => d,
    }
}

pub(super) fn suggest(found: &str, expected: &[&str], what: &str) -> String {
    let list = expected.join(", ");
    match closest(found, expected.iter().copied()) {
        Some(c) => format!("did you mean `{c}`? The {what} are: {list}"),
        None => format!("the {what} are: {list}"),
    }
}
