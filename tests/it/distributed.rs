//! `dsim explore --exhaustive --engine timely`: the search on timely dataflow finds what the
//! single-process search finds (counts, verdicts, byte-identical counterexample files) on one
//! worker, two worker threads, and two processes talking over localhost TCP.

use crate::support::{dsim, root, scratch, stderr, stdout};
use std::process::{Command, Stdio};

/// The search's flags and where its counterexample goes.
fn search(file: &str, extra: &[&str], out: &str) -> Vec<String> {
    let mut args: Vec<String> = ["explore", file, "--exhaustive", "--json", "--out", out]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn run(args: &[String]) -> std::process::Output {
    dsim(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The report's counts and findings, without what names the engine.
fn findings(out: &std::process::Output) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(&stdout(out))
        .unwrap_or_else(|e| panic!("{e}: {} {}", stdout(out), stderr(out)));
    for key in ["engine", "file"] {
        v.as_object_mut().unwrap().remove(key);
    }
    v
}

/// Two processes of one search on localhost, at ports of their own: process 1 in the
/// background, process 0 reporting. Process 0's output.
fn two_processes(args: &[String], dir: &std::path::Path, port: u16) -> std::process::Output {
    let hosts = dir.join("hosts");
    std::fs::write(
        &hosts,
        format!("127.0.0.1:{port}\n127.0.0.1:{}\n", port + 1),
    )
    .unwrap();
    let with = |process: &str| {
        let mut a = args.to_vec();
        a.extend(
            [
                "--engine",
                "timely",
                "--processes",
                "2",
                "--process",
                process,
                "--hostfile",
                hosts.to_str().unwrap(),
            ]
            .map(String::from),
        );
        a
    };
    let other = Command::new(env!("CARGO_BIN_EXE_dsim"))
        .args(with("1"))
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = run(&with("0"));
    let other = other.wait_with_output().unwrap();
    assert_eq!(other.status.code(), Some(0), "{}", stderr(&other));
    // (Timely itself may say on standard output that it is still connecting.)
    assert!(
        !stdout(&other).contains("unique_states"),
        "only process 0 reports"
    );
    first
}

/// Goal: the timely engine is the single-process search spread out, not another search.
/// Method: bundled files of three protocols (two bounded, one with a bug knob under
/// `--symmetry`, one with a loss budget) searched locally, on timely with one worker, two
/// worker threads, and two processes over TCP. Proves: equal JSON reports (counts, depths,
/// `sometimes` depths, verdicts) and byte-identical counterexample files.
#[test]
fn timely_finds_what_the_single_process_search_finds() {
    let dir = scratch("distributed");
    let cases: [(&str, &[&str], u16); 3] = [
        ("search/paxos-exhaustive", &["--max-depth", "9"], 23101),
        (
            "search/raft-exhaustive",
            &[
                "--max-depth",
                "6",
                "--max-epoch",
                "2",
                "--bug",
                "vote_twice",
                "--symmetry",
            ],
            23111,
        ),
        (
            "search/ring-exhaustive",
            &["--max-depth", "7", "--loss-budget", "1"],
            23121,
        ),
    ];
    for (file, flags, port) in cases {
        let out = |tag: &str| {
            dir.join(format!("{}-{tag}.ron", file.replace('/', "-")))
                .to_str()
                .unwrap()
                .to_string()
        };
        let local = run(&search(file, flags, &out("local")));
        let want = findings(&local);
        let code = local.status.code();
        for (tag, extra) in [
            ("one", &["--engine", "timely"][..]),
            ("two", &["--engine", "timely", "--workers", "2"][..]),
        ] {
            let mut flags = flags.to_vec();
            flags.extend_from_slice(extra);
            let got = run(&search(file, &flags, &out(tag)));
            assert_eq!(got.status.code(), code, "{file} {tag}: {}", stderr(&got));
            assert_eq!(findings(&got), want, "{file} {tag}");
        }
        let processes = two_processes(&search(file, flags, &out("processes")), &dir, port);
        assert_eq!(processes.status.code(), code, "{}", stderr(&processes));
        assert_eq!(findings(&processes), want, "{file}, two processes");
        if want["violation"].is_object() {
            let expected = std::fs::read(out("local")).unwrap();
            for tag in ["one", "two", "processes"] {
                assert_eq!(std::fs::read(out(tag)).unwrap(), expected, "{file} {tag}");
            }
        }
    }
}

/// Goal: flags that the timely engine cannot honour are refused, with the fix. Method: depth
/// first, a checkpoint, a process index out of range, a hostfile of the wrong length.
/// Proves: exit 2 and a message naming the flag.
#[test]
fn timely_refuses_what_it_cannot_do() {
    let dir = scratch("distributed-refusals");
    let hosts = dir.join("hosts");
    std::fs::write(&hosts, "127.0.0.1:23131\n").unwrap();
    let base = [
        "explore",
        "search/paxos-exhaustive",
        "--exhaustive",
        "--engine",
        "timely",
    ];
    for (extra, says) in [
        (vec!["--dfs"], "--dfs"),
        (vec!["--checkpoint", "c"], "--checkpoint"),
        (vec!["--processes", "2", "--process", "2"], "--process 2"),
        (
            vec!["--processes", "2", "--hostfile", hosts.to_str().unwrap()],
            "1 addresses",
        ),
        (vec!["--workers", "0"], "--workers 0"),
    ] {
        let mut args = base.to_vec();
        args.extend(extra);
        let o = dsim(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}
