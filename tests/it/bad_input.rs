//! The bad-input corpus: each file states, in `// expect: LINE:COL text` comments, the problems
//! `dsim validate` must report. Goal: bad input always gets exit 2 with a located message and
//! never a panic. Method: run the binary on each file and match every stated position and text.

use crate::support::{dsim, ron_files, root, stderr};

#[test]
fn every_bad_file_is_refused_with_its_positions() {
    let files = ron_files(&root().join("tests/bad-input"));
    assert!(files.len() >= 8, "the corpus is in place");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let rel = file
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let out = dsim(&["validate", &rel]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{rel}: exit 2 expected\n{err}");
        assert!(!err.contains("panicked"), "{rel} panicked:\n{err}");
        let expected: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("// expect: "))
            .collect();
        assert!(!expected.is_empty(), "{rel} states what it expects");
        for e in expected {
            let (pos, what) = e.split_once(' ').unwrap();
            assert!(
                err.contains(&format!("{rel}:{pos}\n")),
                "{rel}: expected a problem at {pos}\n{err}"
            );
            assert!(err.contains(what), "{rel}: expected {what:?}\n{err}");
        }
    }
}

/// A file that does not exist and a name that is not bundled: exit 2 with a way forward.
#[test]
fn a_missing_scenario_says_how_to_find_one() {
    let out = dsim(&["run", "paxos/lost-acepts"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("dsim list"), "{}", stderr(&out));
}

/// Bad flags are usage errors (exit 2), not crashes.
#[test]
fn bad_flags_are_usage_errors() {
    let out = dsim(&["run", "demo/token-ring", "--lang", "fr"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("use `en` or `es`"));
    let out = dsim(&["run", "demo/token-ring", "--seed", "minus-one"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Every valid scenario text the project ships: the bundled ones and the format reference's
/// example (which uses every step).
fn valid_corpus() -> Vec<(String, String)> {
    let mut corpus: Vec<(String, String)> = scenarios::bundled::BUNDLED
        .iter()
        .map(|b| (b.name.to_string(), b.source.to_string()))
        .collect();
    let doc = std::fs::read_to_string(root().join("scenarios/FORMAT.md")).unwrap();
    let start = doc.find("```ron\n// What the scenario shows").unwrap() + "```ron\n".len();
    let end = start + doc[start..].find("```").unwrap();
    corpus.push(("FORMAT.md".into(), doc[start..end].to_string()));
    corpus
}

/// The field names written in a RON text (`name:` outside strings and comments), with the
/// byte offset, line and column (in characters, from 1) of each.
fn field_names(text: &str) -> Vec<(usize, usize, usize, String)> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let (mut i, mut line, mut col) = (0, 1, 1);
    let advance = |i: &mut usize, line: &mut usize, col: &mut usize| {
        if chars[*i].1 == '\n' {
            *line += 1;
            *col = 1;
        } else {
            *col += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        let c = chars[i].1;
        if c == '/' && chars.get(i + 1).is_some_and(|n| n.1 == '/') {
            while i < chars.len() && chars[i].1 != '\n' {
                advance(&mut i, &mut line, &mut col);
            }
        } else if c == '"' {
            advance(&mut i, &mut line, &mut col);
            while i < chars.len() && chars[i].1 != '"' {
                if chars[i].1 == '\\' {
                    advance(&mut i, &mut line, &mut col);
                }
                advance(&mut i, &mut line, &mut col);
            }
            advance(&mut i, &mut line, &mut col);
        } else if c.is_ascii_lowercase() || c == '_' {
            let (start, at_line, at_col) = (i, line, col);
            while i < chars.len() && (chars[i].1.is_ascii_alphanumeric() || chars[i].1 == '_') {
                advance(&mut i, &mut line, &mut col);
            }
            let word: String = chars[start..i].iter().map(|x| x.1).collect();
            let mut j = i;
            while j < chars.len() && chars[j].1 == ' ' {
                j += 1;
            }
            let previous = chars[..start].iter().rev().find(|x| !x.1.is_whitespace());
            let opens = previous.is_some_and(|p| p.1 == '(' || p.1 == ',');
            if opens && chars.get(j).is_some_and(|x| x.1 == ':') {
                out.push((chars[start].0, at_line, at_col, word));
            }
        } else {
            advance(&mut i, &mut line, &mut col);
        }
    }
    out
}

// Goal: no misspelled field is ever ignored, in any struct or struct variant of the schema, of a
// protocol's config, commands or expectations. Method: generated from every valid scenario text
// the project ships, each field written in it misspelled in turn (`nth` -> `nthzq`), validated.
// Proves: each is refused as an unknown field at its own line and column, with the fields it
// could have been; and that the corpus covers the fields (the count is printed).
#[test]
fn every_misspelled_field_is_refused_where_it_is_written() {
    let mut tried = 0;
    let mut names = std::collections::BTreeSet::new();
    for (file, text) in valid_corpus() {
        let protocol = scenarios::registry::protocol_for(&file, &text).unwrap();
        assert!(protocol.validate(&file, &text).is_ok(), "{file} is valid");
        for (offset, line, col, name) in field_names(&text) {
            let typo = format!("{name}zq");
            let mutated = format!("{}{typo}{}", &text[..offset], &text[offset + name.len()..]);
            let Ok(protocol) = scenarios::registry::protocol_for(&file, &mutated) else {
                continue; // `protocol:` itself misspelled: refused before any type is known
            };
            let problems = protocol
                .validate(&file, &mutated)
                .expect_err(&format!("{file}:{line}:{col}: `{typo}` was accepted"));
            let hit = problems
                .iter()
                .find(|d| d.message.contains(&format!("`{typo}`")));
            let d = hit.unwrap_or_else(|| panic!("{file}:{line}:{col}: {problems:?}"));
            assert_eq!(
                (d.line, d.col),
                (line, col),
                "{file}: `{typo}`: {}",
                d.message
            );
            assert!(
                d.help.as_deref().is_some_and(|h| h.contains(&name)),
                "{file}: {d:?}"
            );
            tried += 1;
            names.insert(name);
        }
    }
    println!(
        "{tried} misspellings of {} distinct field names refused",
        names.len()
    );
    assert!(names.len() >= 40, "the corpus covers the fields: {names:?}");
}

// Goal: the caps admit what the course and a large class exercise need. Method: a ring store
// of 1,000 nodes (100 vnodes each) and a token ring of 10,000 nodes, validated. Proves: the
// limits refuse typos, not real sizes.
#[test]
fn the_size_caps_admit_a_thousand_node_ring() {
    let names = |n: usize| {
        (0..n)
            .map(|i| format!("\"n{i}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let ring = format!(
        "Scenario(description: \"big\", protocol: \"ring\", config: (nodes: [{}], rf: 3, w: 2, \
         r: 2, vnodes: 100))",
        names(1000)
    );
    let p = scenarios::registry::protocol_for("big.ron", &ring).unwrap();
    assert!(p.validate("big.ron", &ring).is_ok());
    let tokens = format!(
        "Scenario(description: \"big\", protocol: \"token-ring\", config: (nodes: [{}]))",
        names(scenarios::load::caps::NODES)
    );
    let p = scenarios::registry::protocol_for("big.ron", &tokens).unwrap();
    assert!(p.validate("big.ron", &tokens).is_ok());
}

// Goal: a file with thousands of problems is validated fast and reported readably. Method: a
// Raft file whose 20,000 nodes all start with `@` (each a problem) through `dsim validate`.
// Proves: the first 50 problems are shown in full, each located, the rest counted in one line,
// and the total is right (the node count's own two problems included).
#[test]
fn thousands_of_problems_show_fifty_and_count_the_rest() {
    let nodes: Vec<String> = (0..20_000)
        .map(|i| format!("(name: \"@n{i}\", log: (term: 1, index: 1))"))
        .collect();
    let source = format!(
        "Scenario(\n  description: \"bloated\",\n  protocol: \"raft\",\n  config: (\n    \
         replication: false,\n    nodes: [\n      {}\n    ],\n  ),\n  stop: (max_time_ms: 100),\n)\n",
        nodes.join(",\n      ")
    );
    let dir = crate::support::scratch("bloated");
    let file = dir.join("bloated.ron");
    std::fs::write(&file, source).unwrap();
    let out = dsim(&["validate", file.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let shown = err.lines().filter(|l| l.starts_with("  --> ")).count();
    let located = err
        .lines()
        .filter(|l| l.starts_with("  --> ") && l.matches(':').count() >= 2)
        .count();
    assert_eq!((shown, located), (51, 50), "{err}");
    assert!(err.contains("and 19952 more problems like these"), "{err}");
    assert!(
        err.ends_with("20002 problems found; nothing was run\n"),
        "{err}"
    );
}
