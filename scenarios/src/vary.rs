//! Varying one config value of a scenario across runs: `election_timeout_ms=(150,151)`.
//!
//! The override is applied to the scenario's text, inside its `config: (...)`, by replacing the
//! value of the named field (or adding the field when the file leaves it at its default). Working
//! on the text keeps every later error located in a file the user can read, and keeps the
//! protocol's own parser the only judge of what a value means.

/// Replaces (or adds) the field `key` of the scenario's `config` with `value`.
pub fn set_config_field(source: &str, key: &str, value: &str) -> Result<String, String> {
    let config = find_field(source, 0, source.len(), "config", 1)
        .ok_or("the scenario has no `config: (...)` to change")?;
    let (open, close) = config;
    let inner = &source[open..close];
    if !inner.starts_with('(') {
        return Err("the scenario's config is not a `( ... )` struct".into());
    }
    let body_start = open + 1;
    let body_end = close - 1;
    match find_field(source, body_start, body_end, key, 0) {
        Some((start, end)) => Ok(format!("{}{}{}", &source[..start], value, &source[end..])),
        None => Ok(format!(
            "{}{key}: {value}, {}",
            &source[..body_start],
            &source[body_start..]
        )),
    }
}

/// Replaces (or adds) the top-level field `key` of the scenario (`seed`, `schedule`) with
/// `value`; an added field goes first, right after `Scenario(`.
pub fn set_scenario_field(source: &str, key: &str, value: &str) -> Result<String, String> {
    if let Some((start, end)) = find_field(source, 0, source.len(), key, 1) {
        return Ok(format!("{}{}{}", &source[..start], value, &source[end..]));
    }
    let open = crate::load::field_offset(source, "description", 0)
        .or_else(|| crate::load::field_offset(source, "protocol", 0))
        .map(|start| line_start(source, start))
        .ok_or("the scenario has no `description:` or `protocol:` to put the field beside")?;
    Ok(format!(
        "{}    {key}: {value},\n{}",
        &source[..open],
        &source[open..]
    ))
}

/// Where the line holding byte `at` starts, or `at` itself when something other than spaces
/// comes before it on its line (`Scenario(description: ...` on one line).
fn line_start(source: &str, at: usize) -> usize {
    let start = source[..at].rfind('\n').map_or(0, |i| i + 1);
    if source[start..at].trim().is_empty() {
        start
    } else {
        at
    }
}

/// The byte span of the value of field `key` at nesting `level` within `source[from..to]`.
fn find_field(
    source: &str,
    from: usize,
    to: usize,
    key: &str,
    level: i32,
) -> Option<(usize, usize)> {
    let bytes = source.as_bytes();
    let mut depth = 0i32;
    let mut i = from;
    while i < to {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < to && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = skip_block_comment(bytes, i, to),
            b'"' => i = skip_string(bytes, i),
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ if depth == level => {
                let at_word_start = i == 0 || !is_ident(bytes[i - 1]);
                if at_word_start && bytes[i..].starts_with(key.as_bytes()) {
                    let mut j = i + key.len();
                    if j < to && is_ident(bytes[j]) {
                        i += 1;
                        continue;
                    }
                    while j < to && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if bytes.get(j) == Some(&b':') {
                        let start = skip_space(bytes, j + 1, to);
                        return Some((start, value_end(bytes, start, to)));
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn skip_space(bytes: &[u8], mut i: usize, to: usize) -> usize {
    while i < to && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The index of the `/` closing a `/* ... */` comment that starts at `i` (RON nests them).
fn skip_block_comment(bytes: &[u8], mut i: usize, to: usize) -> usize {
    let mut depth = 0;
    while i + 1 < to {
        if bytes[i] == b'/' && bytes[i + 1] == b'*' {
            depth += 1;
            i += 2;
        } else if bytes[i] == b'*' && bytes[i + 1] == b'/' {
            depth -= 1;
            i += 1;
            if depth == 0 {
                return i;
            }
            i += 1;
        } else {
            i += 1;
        }
    }
    to
}

fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < bytes.len() && bytes[i] != b'"' {
        if bytes[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    i
}

/// The end of a value starting at `start`: the first `,` or closing bracket at its own depth.
fn value_end(bytes: &[u8], start: usize, to: usize) -> usize {
    let mut depth = 0i32;
    let mut i = start;
    while i < to {
        match bytes[i] {
            b'"' => i = skip_string(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = skip_block_comment(bytes, i, to),
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < to && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            b',' if depth == 0 => break,
            _ => {}
        }
        i += 1;
    }
    let mut end = i;
    while end > start && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

/// The grid of config variants a sweep's `--vary` flags ask for, enumerated lazily: a grid of
/// 810,000 variants is built row by row from its axes, never all at once.
pub struct Grid {
    /// Each varied key and its values, in flag order.
    axes: Vec<(String, Vec<String>)>,
}

impl Grid {
    /// Parses `--vary` flags; a key varied twice is refused (its rows would contradict).
    pub fn parse(vary: &[String]) -> Result<Grid, String> {
        let mut axes: Vec<(String, Vec<String>)> = Vec::new();
        for v in vary {
            let Some((key, values)) = v.split_once('=') else {
                return Err(format!(
                    "--vary `{v}`: write KEY=V1|V2, e.g. --vary 'heartbeat_ms=20|50'"
                ));
            };
            let key = key.trim();
            let values: Vec<String> = values.split('|').map(|x| x.trim().to_string()).collect();
            if key.is_empty() || values.iter().any(String::is_empty) {
                return Err(format!(
                    "--vary `{v}`: a key and non-empty values are needed, e.g. 'heartbeat_ms=20|50'"
                ));
            }
            if axes.iter().any(|(k, _)| k == key) {
                return Err(format!(
                    "--vary {key} is given twice: list all its values in one flag, e.g. \
                     --vary '{key}=A|B|C'"
                ));
            }
            axes.push((key.to_string(), values));
        }
        Ok(Grid { axes })
    }

    /// How many variants (rows) the grid has, saturating.
    pub fn len(&self) -> u64 {
        self.axes
            .iter()
            .fold(1u64, |n, (_, values)| n.saturating_mul(values.len() as u64))
    }

    /// Row `i`: the last flag's values vary fastest, as nested loops in flag order would.
    pub fn row(&self, mut i: u64) -> Vec<(String, String)> {
        let mut row = Vec::with_capacity(self.axes.len());
        for (key, values) in self.axes.iter().rev() {
            let n = values.len() as u64;
            row.push((key.clone(), values[(i % n) as usize].clone()));
            i /= n;
        }
        row.reverse();
        row
    }

    /// Every (key, value) the grid sets, each once: checking each alone against the file finds
    /// a bad value before any run, without building every row.
    pub fn each_setting(&self) -> impl Iterator<Item = (&str, &str)> {
        self.axes
            .iter()
            .flat_map(|(k, values)| values.iter().map(move |v| (k.as_str(), v.as_str())))
    }

    /// Whether the grid has no variant (never: with no `--vary` it has the file as written).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `source` with a row of (key, value) settings applied to its config, in order.
pub fn apply_sets(source: &str, sets: &[(String, String)]) -> Result<String, String> {
    let mut text = source.to_string();
    for (key, value) in sets {
        text = set_config_field(&text, key, value)
            .map_err(|e| format!("cannot set {key}={value}: {e}"))?;
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A top-level field is replaced whole, even when a comment inside its value holds a
    /// closing bracket, and a missing one is added beside `description`.
    #[test]
    fn scenario_fields_are_set_past_comments() {
        let source = "Scenario(\n    description: \"d\",\n    expect: [A, // not ) nor ]\n        B],\n    seed: 3,\n)";
        let set = set_scenario_field(source, "expect", "[]").unwrap();
        assert_eq!(
            set,
            "Scenario(\n    description: \"d\",\n    expect: [],\n    seed: 3,\n)"
        );
        let added = set_scenario_field(&set, "schedule", "[Lose(1)]").unwrap();
        assert!(
            added.contains("    schedule: [Lose(1)],\n    description:"),
            "{added}"
        );
    }

    fn vary(n: usize, keys: &[&str]) -> Vec<String> {
        keys.iter()
            .map(|k| {
                let values: Vec<String> = (0..n).map(|v| v.to_string()).collect();
                format!("{k}={}", values.join("|"))
            })
            .collect()
    }

    // Goal: a large grid costs the memory of its axes, not of its rows. Method: 4 keys of 30
    // values (810,000 variants); the first, a middle and the last row computed directly.
    // Proves: rows are enumerated lazily in nested-loop order (the last flag fastest).
    #[test]
    fn the_grid_is_enumerated_lazily_in_flag_order() {
        let grid = Grid::parse(&vary(30, &["a", "b", "c", "d"])).unwrap();
        assert_eq!(grid.len(), 810_000);
        let row = |i| grid.row(i).into_iter().map(|(_, v)| v).collect::<Vec<_>>();
        assert_eq!(row(0), ["0", "0", "0", "0"]);
        assert_eq!(row(1), ["0", "0", "0", "1"]);
        assert_eq!(row(30), ["0", "0", "1", "0"]);
        assert_eq!(row(809_999), ["29", "29", "29", "29"]);
        assert_eq!(Grid::parse(&[]).unwrap().len(), 1);
    }

    // Goal: contradictory flags are refused. Method: the same key varied twice. Proves: an
    // error that says how to write it instead.
    #[test]
    fn a_key_varied_twice_is_refused() {
        let e = Grid::parse(&vary(2, &["heartbeat_ms", "heartbeat_ms"]))
            .err()
            .unwrap();
        assert!(e.contains("given twice"), "{e}");
    }

    const SRC: &str = r#"Scenario(
    description: "x (with parens, and commas)",
    protocol: "raft",
    // config: (not this one)
    config: (
        nodes: [(name: "a", log: (term: 1, index: 5))],
        election_timeout_ms: (150, 300),
        heartbeat_ms: 50,
    ),
    stop: (max_time_ms: 10),
)"#;

    #[test]
    fn replaces_an_existing_field_and_only_it() {
        let out = set_config_field(SRC, "election_timeout_ms", "(150, 151)").unwrap();
        assert!(out.contains("election_timeout_ms: (150, 151),"), "{out}");
        assert!(out.contains("heartbeat_ms: 50,"));
        assert!(out.contains("nodes: [(name: \"a\", log: (term: 1, index: 5))],"));
        let out = set_config_field(SRC, "heartbeat_ms", "20").unwrap();
        assert!(out.contains("heartbeat_ms: 20,"), "{out}");
    }

    /// Review finding: non-ASCII text and names inside block comments must neither panic nor
    /// be taken for the field.
    #[test]
    fn block_comments_and_non_ascii_text_are_skipped() {
        let src = "Scenario(\n  config: (\n    /* elección: ñ, heartbeat_ms: 1 */\n    \
                   heartbeat_ms: 50,\n  ),\n)";
        let out = set_config_field(src, "heartbeat_ms", "20").unwrap();
        assert!(out.contains("/* elección: ñ, heartbeat_ms: 1 */"), "{out}");
        assert!(out.contains("    heartbeat_ms: 20,"), "{out}");
    }

    #[test]
    fn adds_a_missing_field_and_leaves_nested_names_alone() {
        let out = set_config_field(SRC, "bugs", "(vote_twice: true)").unwrap();
        assert!(out.contains("config: (bugs: (vote_twice: true), "), "{out}");
        // `term` exists only nested inside nodes: it is added at the config's level, not replaced.
        let out = set_config_field(SRC, "term", "3").unwrap();
        assert!(out.contains("config: (term: 3, "), "{out}");
        assert!(out.contains("log: (term: 1, index: 5)"));
    }
}
