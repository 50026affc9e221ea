//! Every `dsim ...` command the docs print in a shell block is run, exactly as printed: a user
//! who copies one gets what the text promises, never a usage error or a crash. So is every one
//! the scenario files' comments and the `--help` texts print, by the rule of [`runnable`].

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
    "dsim explore search/raft-replication --crashes 2 --partitions 3 --window-ms 2000 --bug",
    "dsim explore search/paxos-swarm --swarm --window-ms 50 --bug",
    "dsim explore search/raft-election --strategy pct --depth 3 --max-depth 200 --bug",
    "dsim explore search/multipaxos --crashes 2 --partitions 2 --window-ms 1000 --bug",
    "dsim explore search/raft-kv --crashes 2 --partitions 3 --window-ms 2000 --seeds 0..100 --set",
    "dsim explore search/multipaxos-kv --crashes 2 --partitions 3 --window-ms 2000 --seeds 0..100 --bug",
];

/// Comparisons printed in scenario comments whose failing variants are the point (exit 1):
/// PX-3's back-offs that duel forever choose nothing, beside those that end the duel.
const COMPARISONS_WITH_A_FAILURE: &[&str] = &[
    "dsim sweep paxos/dueling-proposers --seeds 0..200 --vary",
    "dsim sweep paxos/dueling-proposers-fixed-backoff --seeds 0..20 --vary",
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

/// Runs the printed command `line` (found in `place`) in `scratch` and checks it exits `want`
/// without a panic.
fn run_printed(scratch: &std::path::Path, place: &str, line: &str, want: i32) {
    let args = words(line);
    let out = Command::new(env!("CARGO_BIN_EXE_dsim"))
        .args(&args[1..])
        .current_dir(scratch)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(want) && !err.contains("panicked"),
        "{place}: `{line}` exited {:?}, not {want}:\n{err}",
        out.status.code()
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
            let want = i32::from(SHOWS_A_FAILURE.iter().any(|c| line.starts_with(c)));
            run_printed(&scratch, doc, &line, want);
            ran += 1;
        }
    }
    std::fs::remove_dir_all(&scratch).ok();
    assert!(ran >= 6, "the docs' commands were found ({ran})");
}

/// Whether a printed command is an example to run rather than a mention of the syntax: it
/// names something after its subcommand that is not a flag (`dsim explore --exhaustive` names
/// a mode, not a run), and has no placeholder (a word in capitals such as FILE or NAME).
fn runnable(words: &[String]) -> bool {
    let placeholder =
        |w: &String| w.len() >= 3 && w.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    words.len() >= 3 && !words[2].starts_with('-') && !words.iter().any(placeholder)
}

/// The `dsim ...` commands a scenario file's comments print: in backticks (a span may continue
/// on the next comment line) or alone on an indented comment line.
fn comment_commands(text: &str) -> Vec<String> {
    let comments: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("//"))
        .collect();
    let mut out: Vec<String> = comments
        .iter()
        .filter_map(|c| c.strip_prefix("   ").map(str::trim))
        .filter(|c| c.starts_with("dsim "))
        .map(str::to_string)
        .collect();
    let joined = comments
        .iter()
        .map(|c| c.trim())
        .collect::<Vec<_>>()
        .join(" ");
    out.extend(
        joined
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|span| span.starts_with("dsim "))
            .map(str::to_string),
    );
    out
}

/// The `dsim ...` example lines of every `--help` text, subcommands' subcommands included.
fn help_commands() -> Vec<(String, String)> {
    let help = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_dsim"))
            .args(args)
            .arg("--help")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let subcommands = |text: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .filter(|c| c != "help")
            .collect()
    };
    let mut out = Vec::new();
    let mut queue: Vec<Vec<String>> = subcommands(&help(&[]))
        .into_iter()
        .map(|c| vec![c])
        .collect();
    while let Some(path) = queue.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        for sub in subcommands(&text) {
            let mut deeper = path.clone();
            deeper.push(sub);
            queue.push(deeper);
        }
        let place = format!("dsim {} --help", path.join(" "));
        out.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| l.starts_with("dsim "))
                .map(|l| (place.clone(), l.to_string())),
        );
    }
    out
}

// Goal: what the scenario files' comments and the `--help` texts print as examples works too.
// Method: every runnable `dsim` command (see `runnable`) of every bundled file's comments and of
// every help text, run in a scratch folder in the order printed (a `dsim run found.ron` follows
// the search that wrote it). Proves: exit 0, or 1 for a command that turns on a bug knob; never
// 2 or 3; and that there were such commands to run.
#[test]
fn every_dsim_command_in_scenario_comments_and_help_runs() {
    let scratch = crate::support::scratch("docs-comments");
    std::fs::create_dir_all(&scratch).unwrap();
    let mut printed: Vec<(String, String)> = Vec::new();
    for b in scenarios::bundled::BUNDLED {
        printed.extend(
            comment_commands(b.source)
                .into_iter()
                .map(|c| (b.path.to_string(), c)),
        );
    }
    printed.extend(help_commands());
    // What the docs print is run by the test above: once is enough.
    let mut done: std::collections::BTreeSet<Vec<String>> = DOCS
        .iter()
        .flat_map(|doc| commands(&std::fs::read_to_string(root().join(doc)).unwrap()))
        .map(|line| words(&line))
        .collect();
    let mut ran = 0;
    for (place, line) in printed {
        let args = words(&line);
        if !runnable(&args) || !done.insert(args.clone()) {
            continue;
        }
        // A failure is what a command that turns on a bug knob exists to show, and what the
        // listed comparisons show beside the variants that pass.
        let shows_failure = args.iter().any(|w| w == "--bug")
            || (line.contains("bugs=(") && line.contains(": true"))
            || COMPARISONS_WITH_A_FAILURE
                .iter()
                .any(|c| line.starts_with(c));
        run_printed(&scratch, &place, &line, i32::from(shows_failure));
        eprintln!("ran `{line}` ({place})");
        ran += 1;
    }
    std::fs::remove_dir_all(&scratch).ok();
    assert!(
        ran >= 5,
        "the comments' and help texts' commands were found ({ran})"
    );
}

#[test]
fn printed_commands_are_found_in_comments_and_placeholders_are_not_run() {
    let text = "// see `dsim sweep raft/x --seeds\n// 0..10` and\n//   dsim run a.ron\n// `dsim run FILE`\nScenario()";
    let found = comment_commands(text);
    assert_eq!(
        found,
        [
            "dsim run a.ron",
            "dsim sweep raft/x --seeds 0..10",
            "dsim run FILE"
        ]
    );
    let runs: Vec<bool> = found.iter().map(|c| runnable(&words(c))).collect();
    assert_eq!(runs, [true, true, false]);
    assert!(!runnable(&words("dsim explore --exhaustive")));
}
