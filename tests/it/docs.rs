//! Every `dsim ...` command the docs print in a shell block is run, exactly as printed: a user
//! who copies one gets what the text promises, never a usage error or a crash.

use crate::support::root;
use std::process::Command;

/// The documents whose shell blocks a user copies from.
const DOCS: &[&str] = &[
    "README.md",
    "CONTRIBUTING.md",
    "ARCHITECTURE.md",
    "scenarios/FORMAT.md",
    "traces/FORMAT.md",
];

/// The `dsim ...` lines of the ```sh blocks of `text`, continuation lines joined.
fn commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_sh = line.trim() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let line = line.trim();
        let (body, more) = match line.strip_suffix('\\') {
            Some(b) => (b, true),
            None => (line, false),
        };
        if pending.is_empty() && !body.starts_with("dsim ") {
            continue;
        }
        pending.push_str(body);
        pending.push(' ');
        if !more {
            out.push(std::mem::take(&mut pending));
        }
    }
    out
}

/// Commands the docs print to show a failure being found: these exit 1; every other exits 0.
const SHOWS_A_FAILURE: &[&str] = &[
    "dsim sweep raft/split-votes",
    "dsim explore search/paxos-swarm --bug",
    "dsim explore search/raft-election --bug",
    "dsim explore search/paxos-exhaustive --exhaustive --bug",
    "dsim explore search/pbft-byzantine-backup --bug",
    "dsim run lease/exercise-3 --set 'bugs=(unchecked_refresh: true)'",
    "dsim explore search/lease-election --crashes 1 --partitions 1 --window-ms 20000 --bug",
];

/// Splits a command line as a POSIX shell would for what the docs use: words, single and
/// double quotes, and a trailing `# comment`.
fn words(line: &str) -> Vec<String> {
    let (mut out, mut word, mut quote, mut started) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (None, '#') if !started => break,
            (None, '\'' | '"') => (quote, started) = (Some(c), true),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (_, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(word);
    }
    out
}

#[test]
fn the_splitter_reads_quotes_and_comments() {
    assert_eq!(
        words("dsim sweep x --vary 'a=(1,2)|(3,4)' \"b c\"   # note"),
        ["dsim", "sweep", "x", "--vary", "a=(1,2)|(3,4)", "b c"]
    );
}

// Goal: the docs' commands work as printed. Method: every `dsim` line of every shell block, run
// in a scratch folder (files they write land there). Proves: exit 0, or exactly 1 where the
// command exists to show a failure (a sweep that finds one); never 2 (usage, bad input) or 3.
#[test]
fn every_dsim_command_in_the_docs_runs() {
    let scratch = crate::support::scratch("docs");
    std::fs::create_dir_all(&scratch).unwrap();
    let mut ran = 0;
    for doc in DOCS {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        for line in commands(&text) {
            let args = words(&line);
            let out = Command::new(env!("CARGO_BIN_EXE_dsim"))
                .args(&args[1..])
                .current_dir(&scratch)
                .env_remove("RUST_LOG")
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            let want = if SHOWS_A_FAILURE.iter().any(|c| line.starts_with(c)) {
                1
            } else {
                0
            };
            assert!(
                out.status.code() == Some(want) && !err.contains("panicked"),
                "{doc}: `{line}` exited {:?}, not {want}:\n{err}",
                out.status.code()
            );
            ran += 1;
        }
    }
    std::fs::remove_dir_all(&scratch).ok();
    assert!(ran >= 6, "the docs' commands were found ({ran})");
}
