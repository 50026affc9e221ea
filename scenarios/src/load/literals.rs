//! The strings of a scenario file as written: where each starts and ends, read from the text
//! alone (comments, escapes and raw strings understood), so that a check can bound every text
//! and a problem about a name can be located however the file spells it (`"a\tb"`,
//! `"a\u{202e}b"`, `r#"a"b"#`).

use std::ops::Range;

/// One string literal of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Literal {
    /// The byte of its opening quote (or of the `r` of a raw string).
    pub start: usize,
    /// The byte after its closing quote (and `#`s).
    pub end: usize,
    /// Its body between the quotes, as written (escapes not undone).
    pub body: Range<usize>,
}

impl Literal {
    /// The text it stands for, its escapes undone as RON reads them.
    pub fn value(&self, source: &str) -> Option<String> {
        ron::from_str::<String>(&source[self.start..self.end]).ok()
    }
}

/// Every string literal of `source`, in order.
pub fn strings(source: &str) -> impl Iterator<Item = Literal> + '_ {
    let bytes = source.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            match (bytes[i], bytes.get(i + 1)) {
                (b'/', Some(b'/')) => {
                    i = bytes[i..]
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(bytes.len(), |p| i + p);
                    continue;
                }
                (b'/', Some(b'*')) => {
                    i = source[i + 2..]
                        .find("*/")
                        .map_or(bytes.len(), |end| i + 2 + end + 2);
                    continue;
                }
                (b'\'', _) => {
                    // A character: skipped, so a quote inside ('"') starts no string.
                    let escaped = bytes.get(i + 1) == Some(&b'\\');
                    i += if escaped { 4 } else { 3 };
                    continue;
                }
                _ => {}
            }
            let start = i;
            if let Some(hashes) = raw_string_start(bytes, i) {
                let open = i + 2 + hashes;
                let close = format!("\"{}", "#".repeat(hashes));
                let body_end = source[open..]
                    .find(&close)
                    .map_or(bytes.len(), |e| open + e);
                i = (body_end + close.len()).min(bytes.len());
                return Some(Literal {
                    start,
                    end: i,
                    body: open..body_end,
                });
            }
            if bytes[i] == b'"' {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                let body_end = j.min(bytes.len());
                i = (body_end + 1).min(bytes.len());
                return Some(Literal {
                    start,
                    end: i,
                    body: start + 1..body_end,
                });
            }
            i += 1;
        }
        None
    })
}

/// Whether a raw string (`r"..."`, `r#"..."#`) starts at `i`: the number of its `#`s.
fn raw_string_start(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes[i] != b'r'
        || i.checked_sub(1)
            .is_some_and(|p| bytes[p].is_ascii_alphanumeric() || bytes[p] == b'_')
    {
        return None;
    }
    let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
    (bytes.get(i + 1 + hashes) == Some(&b'"')).then_some(hashes)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Goal: strings are found as RON reads them. Method: a file with a comment holding a
    // quote, a character '"', an escaped quote, a raw string and an escape sequence. Proves:
    // exactly the three strings are found, each with the value RON gives it.
    #[test]
    fn strings_are_found_as_ron_reads_them() {
        let source = "// \"not\"\n(a: '\"', b: \"x\\\"y\", c: r#\"q\"r\"#, d: \"t\\tu\")";
        let values: Vec<String> = strings(source).map(|l| l.value(source).unwrap()).collect();
        assert_eq!(values, ["x\"y", "q\"r", "t\tu"]);
    }
}
