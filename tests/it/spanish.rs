//! `--lang es` is Spanish all through: every line a student sees from `run`, `sweep`, `check`,
//! `view` and `ring`, on every bundled scenario and every ring experiment, with no English words
//! left but what the course keeps (node names, message kinds, invariant ids, its loanwords).

use crate::support::{dsim, scratch, stderr, stdout};
use scenarios::bundled::BUNDLED;
use std::collections::BTreeSet;

/// English words a Spanish line must not hold. Words Spanish shares (`a`, `no`, `con`) and the
/// lesson's loanwords (prepare, accept, promise, timeout, lease, commit, quorum, hinted
/// handoff, log, token, hint, vnodes, hash, makespan) and words Spanish writes alike (ideal)
/// are not in the list.
const ENGLISH: &[&str] = &[
    "passed",
    "failed",
    "expect",
    "expected",
    "expectation",
    "rule",
    "violation",
    "violations",
    "occurrence",
    "seed",
    "seeds",
    "messages",
    "message",
    "lost",
    "delivered",
    "sent",
    "step",
    "steps",
    "the",
    "and",
    "with",
    "from",
    "after",
    "before",
    "then",
    "but",
    "not",
    "leader",
    "term",
    "value",
    "chosen",
    "node",
    "nodes",
    "write",
    "writes",
    "read",
    "reads",
    "returns",
    "held",
    "invariant",
    "invariants",
    "run",
    "runs",
    "found",
    "none",
    "nothing",
    "of",
    "is",
    "was",
    "for",
    "to",
    "by",
    "at",
    "it",
    "its",
    "which",
    "every",
    "each",
    "keys",
    "key",
    "moved",
    "move",
    "share",
    "deviation",
    "imbalance",
    "workers",
    "partitions",
    "partition",
    "slow",
    "queries",
    "query",
    "loss",
    "cost",
    "median",
    "busiest",
    "mean",
    "most",
    "frequent",
    "words",
    "hottest",
    "simulated",
    "minimum",
    "add",
    "remove",
    "down",
    "paused",
    "crashed",
    "starts",
    "told",
    "receives",
    "times",
    "stands",
    "election",
    "grants",
    "denies",
    "vote",
    "votes",
    "elected",
    "became",
    "committed",
    "prepared",
    "executed",
    "accepted",
    "learned",
    "stored",
    "stores",
    "worker",
    "threads",
    "ran",
    "variant",
    "variants",
    "first",
    "last",
    "failing",
    "replay",
    "when",
];

/// What a line says once the parts that are code, not prose, are taken out: RON forms
/// (`Chosen("relay-1")`, `LeaderOfTerm(term: 4, node: "S1")`), quoted values, backquoted or
/// `dsim ...` commands, flags, paths, hyphenated and snake_case identifiers (invariant ids,
/// measure names).
fn prose(line: &str) -> String {
    let mut text = line.to_string();
    if let Some(at) = text.find("dsim ") {
        text.truncate(at);
    }
    // RON calls (`Name(...)`, nested ones included) become a space.
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_uppercase() && (i == 0 || !chars[i - 1].is_alphanumeric()) {
            let mut j = i;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            if j < chars.len() && chars[j] == '(' {
                let mut depth = 0;
                let mut k = j;
                while k < chars.len() {
                    match chars[k] {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    k += 1;
                    if depth == 0 {
                        break;
                    }
                }
                out.push(' ');
                i = k;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    text = out;
    for (open, close) in [('`', '`'), ('"', '"'), ('\'', '\'')] {
        let mut out = String::new();
        let mut inside = false;
        for c in text.chars() {
            if c == open && (!inside || c == close) {
                inside = !inside;
                out.push(' ');
            } else if !inside {
                out.push(c);
            }
        }
        text = out;
    }
    text.split_whitespace()
        .filter(|w| {
            !(w.starts_with("--")
                || w.contains('/')
                || w.contains('_')
                || w.trim_matches(|c: char| !c.is_alphanumeric()).contains('-'))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The English words of `text`, each with the line it is on.
fn english(text: &str, allowed: &BTreeSet<String>) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let prose = prose(line);
        for word in prose.split(|c: char| !c.is_alphanumeric()) {
            let w = word.to_lowercase();
            if ENGLISH.contains(&w.as_str()) && !allowed.contains(word) {
                found.push(format!("{word:?} in: {line}"));
                break;
            }
        }
    }
    found
}

/// What a run's output may name as it is: its nodes (a node may be called `leader`), its
/// message kinds (`Read`, `Write`), its protocol, and the lesson's MOVED redirect.
fn names(trace: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(trace).unwrap_or_default();
    let mut names: BTreeSet<String> = ["MOVED"].iter().map(|s| s.to_string()).collect();
    for (i, line) in text.lines().enumerate() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if i == 0 {
            names.extend(v["protocol"].as_str().map(str::to_string));
            for n in v["nodes"].as_array().into_iter().flatten() {
                names.extend(n.as_str().map(str::to_string));
            }
        }
        // A kind is named as it is, or in lower case (Paxos's "accepted a p1 PERDIDO").
        let kinds = v["msg_kind"]
            .as_str()
            .map(str::to_string)
            .into_iter()
            .chain(v["msg"].as_object().and_then(|m| m.keys().next()).cloned());
        for kind in kinds {
            names.insert(kind.to_lowercase());
            names.insert(kind);
        }
    }
    names
}

// Goal: with `--lang es` a student reads Spanish only. Method: run, sweep (2 seeds), check and
// view (text) every bundled scenario in Spanish, and strip from each line what is code (RON
// forms, quoted values, commands, identifiers); look for English words from a list. Proves no
// English prose is left in any of those outputs (and the test does catch English: the same
// scan of the English output finds some).
#[test]
fn every_course_run_reads_in_spanish() {
    let dir = scratch("spanish");
    let mut problems = Vec::new();
    let mut english_found = 0;
    for b in BUNDLED {
        let trace = dir.join(format!("{}.jsonl", b.name.replace('/', "_")));
        let trace = trace.to_str().unwrap();
        let run = dsim(&["run", b.name, "--lang", "es", "--trace", trace]);
        let allowed = names(trace);
        let en = dsim(&["run", b.name]);
        english_found += english(&stdout(&en), &allowed).len();
        let outputs = [
            ("run", run),
            (
                "sweep",
                dsim(&["sweep", b.name, "--seeds", "0..2", "--lang", "es"]),
            ),
            ("check", dsim(&["check", trace, "--lang", "es"])),
            ("view", dsim(&["view", trace, "--lang", "es"])),
        ];
        for (what, out) in outputs {
            let text = format!("{}\n{}", stdout(&out), stderr(&out));
            for p in english(&text, &allowed) {
                problems.push(format!("{} ({what}): {p}", b.name));
            }
        }
    }
    assert!(
        english_found > 0,
        "the scan finds English in English output"
    );
    assert!(
        problems.is_empty(),
        "{} English lines:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Every `dsim ring` experiment, with small arguments where the defaults are slow.
const RING: &[&[&str]] = &[
    &["lesson"],
    &[
        "place", "--scheme", "ring", "--nodes", "a,b,c", "--vnodes", "10",
    ],
    &["place", "--scheme", "mod", "--nodes", "a,b,c"],
    &[
        "move", "--scheme", "mod", "--nodes", "a,b,c,d", "--add", "e",
    ],
    &[
        "move", "--scheme", "ring", "--nodes", "a,b,c,d", "--remove", "d",
    ],
    &["toy"],
    &["sweep-vnodes"],
    &["sweep-nodes"],
    &["hotspot"],
    &["durability"],
    &["mapreduce"],
    &["scatter", "--queries", "2000"],
];

// Goal: the partitioning lessons read in Spanish too. Method: every `dsim ring` experiment
// with `--lang es`, scanned as the runs are. Proves no English is left in their tables.
#[test]
fn every_ring_experiment_reads_in_spanish() {
    let mut problems = Vec::new();
    for args in RING {
        let mut all = vec!["ring"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--lang", "es"]);
        let out = dsim(&all);
        assert_eq!(out.status.code(), Some(0), "{all:?}: {}", stderr(&out));
        let allowed: BTreeSet<String> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for p in english(&stdout(&out), &allowed) {
            problems.push(format!("{all:?}: {p}"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} English lines:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
