//! `dsim view`, `check`, `replay`, `diff` and `run --view` from the command line: every course
//! scenario in every format, an edited trace judged, replays and differences found, bad trace
//! files refused with their line.

use crate::support::{dsim, scratch, stderr, stdout};
use scenarios::bundled::BUNDLED;

/// Runs bundled scenario `name` and returns the path of its trace in `dir`.
pub fn trace_of(name: &str, dir: &std::path::Path) -> String {
    let path = dir.join(format!("{}.jsonl", name.replace('/', "_")));
    let p = path.to_str().unwrap().to_string();
    let out = dsim(&["run", name, "--trace", &p]);
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        stderr(&out)
    );
    p
}

// Goal: every bundled scenario renders in all four formats, deterministically. Method: run
// each, view it as text, mermaid, html and dot twice, and check each output's shape and bytes.
// Proves the renderers cope with every course run and never depend on iteration order.
#[test]
fn every_scenario_renders_in_every_format() {
    let dir = scratch("view-every-format");
    for b in BUNDLED {
        let trace = trace_of(b.name, &dir);
        for (format, starts) in [
            ("text", b.name),
            ("mermaid", "sequenceDiagram\n"),
            ("html", "<!DOCTYPE html>"),
            ("dot", "digraph happens_before {"),
        ] {
            let out = dsim(&["view", &trace, "--format", format]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{} {format}: {}",
                b.name,
                stderr(&out)
            );
            let text = stdout(&out);
            assert!(text.starts_with(starts), "{} {format}:\n{text}", b.name);
            assert_eq!(
                stdout(&dsim(&["view", &trace, "--format", format])),
                text,
                "{} {format} renders the same bytes twice",
                b.name
            );
        }
    }
}

// Goal: the text view tells the lesson and filters. Method: view PX-1 in Spanish, then only
// a2 between 100 and 150 ms. Proves the narrative, the language and the filters.
#[test]
fn text_view_tells_and_filters() {
    let dir = scratch("view-text");
    let trace = trace_of("paxos/lost-accepts", &dir);
    let es = stdout(&dsim(&["view", &trace, "--lang", "es"]));
    assert!(es.contains("[relay-1] accept a a2 PERDIDO"), "{es}");
    assert!(!es.contains('\x1b'), "piped output is plain");
    let a2 = stdout(&dsim(&[
        "view", &trace, "--node", "a2", "--from", "100", "--until", "150",
    ]));
    let lines: Vec<&str> = a2.lines().skip(2).collect();
    assert_eq!(lines.len(), 2, "{a2}");
    assert!(lines.iter().all(|l| l.contains("[a2]")), "{a2}");
    let kind = stdout(&dsim(&["view", &trace, "--kind", "chosen"]));
    // Each decision once, in its proposer's count (the learners' repeats are left out).
    assert_eq!(kind.lines().skip(2).count(), 2, "{kind}");
}

// Goal: `dsim check` judges a hand-edited trace. Method: change relay-1's first `Chosen` note
// to relay-2 in a PX-1 trace. Proves the agreement violation is explained with its step and
// the file's line, and exits 1, while the untouched trace passes.
#[test]
fn check_explains_an_edited_chosen_value() {
    let dir = scratch("view-check");
    let trace = trace_of("paxos/lost-accepts", &dir);
    let ok = dsim(&["check", &trace]);
    assert_eq!(ok.status.code(), Some(0), "{}", stdout(&ok));
    assert!(stdout(&ok).contains("no invariant is broken"));
    let text = std::fs::read_to_string(&trace).unwrap();
    let from = r#""note":{"Chosen":{"n":12,"value":"relay-1""#;
    assert!(text.contains(from));
    let edited = dir.join("edited.jsonl");
    std::fs::write(
        &edited,
        text.replacen(from, &from.replace("relay-1\"", "relay-2\""), 1),
    )
    .unwrap();
    let out = dsim(&["check", edited.to_str().unwrap()]);
    let said = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("VIOLATION of agreement at step 32"), "{said}");
    assert!(said.contains("two different values chosen"), "{said}");
    assert!(said.contains("CHOSEN 'relay-2'"), "{said}");
}

// Goal: replay confirms an untouched trace and spots an edit; diff shows the first divergent
// step with context; an edit that no run could make is refused. Method: replay PX-3's trace, a
// copy with one start turned into a restart, and a copy whose steps go back. Proves exit 0 on
// identical, exit 1 with the divergent line otherwise, exit 2 with the line for an impossible
// trace.
#[test]
fn replay_and_diff_find_the_first_divergence() {
    let dir = scratch("view-replay");
    let trace = trace_of("paxos/dueling-proposers", &dir);
    let out = dsim(&["replay", &trace]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("identical"));
    let text = std::fs::read_to_string(&trace).unwrap();
    let edited = dir.join("edited.jsonl");
    let line5 = text.lines().nth(5).unwrap();
    let restarted = line5.replace("\"restart\":false", "\"restart\":true");
    assert_ne!(restarted, line5, "line 6 is a start");
    std::fs::write(&edited, text.replacen(line5, &restarted, 1)).unwrap();
    let impossible = dir.join("impossible.jsonl");
    let back = line5.replace("\"step\":", "\"step\":9");
    std::fs::write(&impossible, text.replacen(line5, &back, 1)).unwrap();
    let out = dsim(&["replay", impossible.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("impossible.jsonl:7: step 6 comes after step 95"),
        "{}",
        stderr(&out)
    );
    let e = edited.to_str().unwrap();
    let out = dsim(&["replay", e]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("first difference at line 6"),
        "{}",
        stdout(&out)
    );
    let out = dsim(&["diff", &trace, e]);
    assert_eq!(out.status.code(), Some(1));
    let said = stdout(&out);
    assert!(said.contains("first difference at line 6"), "{said}");
    assert!(said.contains("      5   "), "context lines: {said}");
    let same = dsim(&["diff", &trace, &trace]);
    assert_eq!(same.status.code(), Some(0));
}

// Goal: bad trace files are bad input (exit 2) with the line and what to do. Method: a
// truncated line, a newer format, an unknown protocol, a text file. Proves no panic and a
// located message each time.
#[test]
fn bad_traces_are_refused_with_their_line() {
    let dir = scratch("view-bad");
    let trace = trace_of("demo/token-ring", &dir);
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut cut: String = text.lines().take(4).collect::<Vec<_>>().join("\n");
    cut.push_str("\n{\"step\":3,\"ti\n");
    let cases = [
        ("truncated", cut, ":5: ", "truncated"),
        (
            "newer",
            text.replacen("\"format\":1", "\"format\":9", 1),
            ":1: ",
            "upgrade dsim",
        ),
        (
            "unknown",
            text.replacen("\"protocol\":\"token-ring\"", "\"protocol\":\"zab\"", 1),
            ":1: ",
            "does not know",
        ),
        (
            "text",
            "hello\n".to_string(),
            ":1: ",
            "dsim run SCENARIO --trace",
        ),
    ];
    // Records that cannot belong to a run are refused by `check` with their line (a review
    // found they were judged as if they could): a step going back, a delivery never sent.
    let lines: Vec<&str> = text.lines().collect();
    let mut back = lines.clone();
    back.swap(5, 9);
    let mut unsent: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let deliver = unsent
        .iter()
        .position(|l| l.contains("\"kind\":\"deliver\""))
        .unwrap();
    unsent[deliver] = unsent[deliver].replacen("\"id\":", "\"id\":9999", 1);
    for (name, body, what) in [
        ("backwards", back.join("\n"), "never go back"),
        ("unsent", unsent.join("\n"), "was never sent"),
    ] {
        let path = dir.join(format!("{name}.jsonl"));
        std::fs::write(&path, body).unwrap();
        let out = dsim(&["check", path.to_str().unwrap()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(what), "{name}: {err}");
    }
    for (name, body, at, what) in cases {
        let path = dir.join(format!("{name}.jsonl"));
        std::fs::write(&path, body).unwrap();
        let p = path.to_str().unwrap();
        for cmd in ["view", "check", "replay"] {
            let out = dsim(&[cmd, p]);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{cmd} {name}: {err}");
            assert!(
                err.contains(&format!("{p}{at}")) && err.contains(what),
                "{cmd} {name}: {err}"
            );
        }
    }
}

// Goal: a scenario runs straight into a view. Method: `dsim run --view html -o FILE`.
// Proves the page is written and the story still printed.
#[test]
fn run_writes_a_view() {
    let dir = scratch("view-run");
    let page = dir.join("run.html");
    let out = dsim(&[
        "run",
        "paxos/lost-accepts",
        "--view",
        "html",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("PASSED"));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("id=\"trace-data\"") && html.contains("paxos/lost-accepts"));
}

// Goal: a filter that cannot match is said to be wrong, not answered with an empty page.
// Method: `view` with an unknown node, a misspelled node, an unknown kind, an inverted window;
// then a window after the run. Proves: exit 2 with a did-you-mean for wrong names and windows;
// a correct filter that matches nothing says so (on stderr) and exits 0.
#[test]
fn view_filters_that_cannot_match_are_refused_or_told() {
    let dir = scratch("view-filters");
    let trace = trace_of("paxos/lost-accepts", &dir);
    for (args, said) in [
        (vec!["--node", "zz"], "no node \"zz\" in this trace"),
        (vec!["--node", "relay1"], "did you mean \"relay-1\"?"),
        (vec!["--kind", "Bogus"], "no kind \"Bogus\" in this trace"),
        (vec!["--kind", "Acept"], "did you mean \"Accept\"?"),
        (vec!["--from", "500", "--until", "100"], "swap them"),
    ] {
        let mut all = vec!["view", trace.as_str()];
        all.extend(args.iter().copied());
        let out = dsim(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out));
    }
    let out = dsim(&["view", &trace, "--kind", "accept"]);
    assert_eq!(out.status.code(), Some(0), "kinds are matched in any case");
    let out = dsim(&["view", &trace, "--from", "4000"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("nothing in"), "{}", stderr(&out));
}

// Goal: an edited trace never has a field silently ignored. Method: a field added at the top of
// a record, and one inside a message's payload. Proves: `check` and `view` refuse each (exit 2)
// with the line and the field's path.
#[test]
fn unknown_fields_in_a_trace_are_refused_with_their_path() {
    let dir = scratch("view-unknown-field");
    let trace = trace_of("paxos/lost-accepts", &dir);
    let text = std::fs::read_to_string(&trace).unwrap();
    let (n, send) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("\"kind\":\"send\""))
        .unwrap();
    for (edit, path) in [
        (
            send.replacen("{\"step\"", "{\"stepp\":1,\"step\"", 1),
            "`stepp`",
        ),
        (send.replace("}}}", ",\"bogus\":1}}}"), ".bogus`"),
    ] {
        assert_ne!(edit, send);
        let edited = dir.join("edited.jsonl");
        std::fs::write(&edited, text.replacen(send, &edit, 1)).unwrap();
        for cmd in ["check", "view"] {
            let out = dsim(&[cmd, edited.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(2), "{cmd}: {}", stderr(&out));
            let said = stderr(&out);
            assert!(
                said.contains(&format!("edited.jsonl:{}: unknown field", n + 1)),
                "{said}"
            );
            assert!(said.contains(path), "{said}");
        }
    }
}
