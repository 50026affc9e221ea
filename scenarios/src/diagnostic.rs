//! Problems in a scenario file, each with its file, line and column (in characters), the line
//! itself, what was expected and, where a name was misspelled, the closest valid one.
//!
//! Rendering follows the compiler's shape so that teachers and students recognise it:
//!
//! ```text
//! error: unknown node "relay-3"
//!   --> lost-accepts.ron:14:21
//!    |
//! 14 |     At(100, Command("relay-3", Propose)),
//!    |                     ^^^^^^^^^
//!    = help: did you mean "relay-2"? The nodes are: relay-1, relay-2, a1, a2, a3
//! ```

use std::fmt;

/// How many problems of one file are shown in full; the rest are counted
/// ([`Diagnostic::more`]).
pub const SHOWN_PROBLEMS: usize = 50;

/// One problem in a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file (path or bundled name).
    pub file: String,
    /// Line, from 1 (0 when the problem has no place in the file).
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
    /// How many characters to underline.
    pub width: u32,
    /// What is wrong.
    pub message: String,
    /// How to fix it, if we know.
    pub help: Option<String>,
    /// The offending line's text.
    pub source_line: Option<String>,
    /// How many further problems of the file this entry stands for without showing them
    /// ([`Diagnostic::more`]); 0 for a problem of its own.
    pub hidden: u32,
}

impl Diagnostic {
    /// A problem at a (line, col) of `source`.
    pub fn at(
        file: &str,
        source: &str,
        line: usize,
        col: usize,
        width: usize,
        message: String,
    ) -> Self {
        Diagnostic {
            file: file.to_string(),
            line,
            col,
            width: u32::try_from(width.max(1)).unwrap_or(u32::MAX),
            message,
            help: None,
            source_line: source
                .lines()
                .nth(line.saturating_sub(1))
                .map(str::to_string),
            hidden: 0,
        }
    }

    /// A problem with no place in the file.
    pub fn whole_file(file: &str, message: String) -> Self {
        Diagnostic {
            file: file.to_string(),
            line: 0,
            col: 0,
            width: 0,
            message,
            help: None,
            source_line: None,
            hidden: 0,
        }
    }

    /// Stands for `hidden` more problems of `file` that are not shown: a file with thousands
    /// of problems shows the first [`SHOWN_PROBLEMS`] in full and counts the rest, so that its
    /// validation stays fast and its report readable.
    pub fn more(file: &str, hidden: usize) -> Self {
        Diagnostic {
            hidden: u32::try_from(hidden).unwrap_or(u32::MAX),
            help: Some("fix the problems above and validate again".into()),
            ..Diagnostic::whole_file(
                file,
                format!("and {hidden} more problems like these, not shown"),
            )
        }
    }

    /// How many problems this entry reports: 1, or those it stands for.
    pub fn count(&self) -> usize {
        self.hidden.max(1) as usize
    }

    /// Adds a hint on how to fix it.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "error: {}", self.message)?;
        if self.line == 0 {
            writeln!(f, "  --> {}", self.file)?;
        } else {
            writeln!(f, "  --> {}:{}:{}", self.file, self.line, self.col)?;
            if let Some(text) = &self.source_line {
                let gutter = self.line.to_string().len();
                let pad = " ".repeat(gutter);
                writeln!(f, "{pad} |")?;
                writeln!(f, "{} | {}", self.line, text)?;
                writeln!(
                    f,
                    "{pad} | {}{}",
                    " ".repeat(self.col.saturating_sub(1)),
                    "^".repeat(self.width as usize)
                )?;
            }
        }
        if let Some(help) = &self.help {
            writeln!(f, "   = help: {help}")?;
        }
        Ok(())
    }
}

/// The closest of `candidates` to `wrong`, if it is close enough to be a likely misspelling.
pub fn closest<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wrong_lower = wrong.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(&wrong_lower, &c.to_lowercase()), c))
        .filter(|(score, _)| *score >= 0.75)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// Finds where things are in a source text, handing out successive occurrences of the same
/// needle so that two problems with the same name point at two places.
pub struct Locator<'s> {
    source: &'s str,
    used: Vec<(String, usize)>,
}

impl<'s> Locator<'s> {
    /// A locator over `source`.
    pub fn new(source: &'s str) -> Self {
        Locator {
            source,
            used: Vec::new(),
        }
    }

    /// The (line, col, width in chars) of the next unreported occurrence of `needle`, skipping
    /// occurrences inside `//` comments.
    pub fn find(&mut self, needle: &str) -> Option<(usize, usize, usize)> {
        let start = self
            .used
            .iter()
            .find(|(n, _)| n == needle)
            .map(|(_, at)| *at)
            .unwrap_or(0);
        // The next occurrence outside comments after the last one reported for this needle,
        // or the first one again when a later problem names the same text.
        let all = self.occurrences(needle);
        let found = *all.iter().find(|&&at| at >= start).or(all.first())?;
        let next = found + needle.len();
        match self.used.iter_mut().find(|(n, _)| n == needle) {
            Some(entry) => entry.1 = next,
            None => self.used.push((needle.to_string(), next)),
        }
        Some(self.position(found, needle))
    }

    /// The (line, col, width) of the first occurrence of `needle` at or after byte `from`,
    /// outside `//` comments: for a problem known to sit in one part of the file (a step).
    pub fn find_from(&self, needle: &str, from: usize) -> Option<(usize, usize, usize)> {
        self.occurrences(needle)
            .into_iter()
            .find(|&at| at >= from)
            .map(|at| self.position(at, needle))
    }

    /// Byte offsets of every occurrence of `needle` outside `//` comments.
    pub fn occurrences(&self, needle: &str) -> Vec<usize> {
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(rel) = self.source.get(from..).and_then(|s| s.find(needle)) {
            let at = from + rel;
            let line_start = self.source[..at].rfind('\n').map_or(0, |i| i + 1);
            if !self.source[line_start..at].contains("//") {
                out.push(at);
            }
            from = at + needle.len().max(1);
        }
        out
    }

    /// The (line, col, width) of `needle` known to start at byte `byte`.
    pub fn position_of(&self, byte: usize, needle: &str) -> (usize, usize, usize) {
        self.position(byte, needle)
    }

    fn position(&self, byte: usize, needle: &str) -> (usize, usize, usize) {
        let before = &self.source[..byte];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = self.source[line_start..byte].chars().count() + 1;
        (line, col, needle.chars().count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let src = "a\n  \"ñandú\", \"x\"\n";
        let mut loc = Locator::new(src);
        assert_eq!(loc.find("\"x\""), Some((2, 12, 3)));
    }

    #[test]
    fn repeated_needles_point_at_successive_places_and_skip_comments() {
        let src = "// \"n9\" in a comment\nA(\"n9\")\nB(\"n9\")\n";
        let mut loc = Locator::new(src);
        assert_eq!(loc.find("\"n9\"").map(|p| p.0), Some(2));
        assert_eq!(loc.find("\"n9\"").map(|p| p.0), Some(3));
        // A third problem naming the same text points at its first place again, never at the
        // commented occurrence.
        assert_eq!(loc.find("\"n9\"").map(|p| p.0), Some(2));
        let mut wraps = Locator::new("A(\"n9\")\n// \"n9\" again\n");
        assert_eq!(wraps.find("\"n9\"").map(|p| p.0), Some(1));
        assert_eq!(
            wraps.find("\"n9\"").map(|p| p.0),
            Some(1),
            "past a commented one"
        );
        let only_commented = "// \"n9\" here\nA(1)\n";
        assert_eq!(Locator::new(only_commented).find("\"n9\""), None);
    }

    #[test]
    fn find_from_starts_at_a_place() {
        let src = "a: (latency: 1),\nAt(1, X(latency: 2)),\nAt(2, X(latency: 3)),\n";
        let loc = Locator::new(src);
        let steps = loc.occurrences("At(");
        assert_eq!(steps.len(), 2);
        assert_eq!(loc.find_from("latency", steps[1]).map(|p| p.0), Some(3));
    }

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(closest("relay-3", ["relay-1", "a1"]), Some("relay-1"));
        assert_eq!(closest("Acept", ["Prepare", "Accept"]), Some("Accept"));
        assert_eq!(closest("zzz", ["Prepare", "Accept"]), None);
    }

    #[test]
    fn renders_like_a_compiler() {
        let src = "x\n  At(1, Crash(\"n9\")),\n";
        let d = Diagnostic::at("f.ron", src, 2, 15, 4, "unknown node \"n9\"".into())
            .with_help("did you mean \"n1\"?");
        let text = d.to_string();
        assert!(text.contains("--> f.ron:2:15"), "{text}");
        assert!(text.contains("2 |   At(1, Crash(\"n9\")),"), "{text}");
        assert!(text.contains("  |               ^^^^"), "{text}");
    }
}
