//! A run streams its records: memory flat in its length, the trace written as it happens and
//! never left half-done at its path.

use crate::support::{dsim, scratch, stderr, stdout};
use protocols::raft::Raft;
use traces::Lang;
use traces::narrate::Detail;
use traces::story::stream::{Shortener, Teller, WINDOW};
use traces::story::{Shown, shorten, tell};

/// A three-node Raft cluster heartbeating for `steps` steps (the election-only lesson model).
fn long_raft(steps: u64) -> String {
    format!(
        r#"Scenario(
    description: "a long three-node Raft run",
    protocol: "raft",
    config: (
        replication: false,
        nodes: [
            (name: "nodo-1", log: (term: 1, index: 5)),
            (name: "nodo-2", log: (term: 1, index: 5)),
            (name: "nodo-3", log: (term: 1, index: 3)),
        ],
        election_timeout_ms: (150, 300),
        heartbeat_ms: 50,
        rpc_timeout_ms: 50,
    ),
    network: (latency: Uniform(2, 10)),
    stop: (max_time_ms: 2000000000, max_steps: {steps}),
)
"#
    )
}

/// The records of a bundled Raft scenario's run.
fn raft_records(name: &str) -> Vec<sim_core::Record<protocols::raft::RaftNode>> {
    let b = scenarios::bundled::find(name).unwrap();
    let prep = scenarios::load::load::<Raft>(b.name, b.source).unwrap();
    let mut sim = scenarios::run::build(&prep, prep.doc.seed);
    sim.set_trace(sim_core::TraceMode::Memory(Vec::new()));
    sim.run();
    sim.take_records()
}

// Goal: a story told a window at a time is the story told whole when the run fits one window,
// and keeps its order when it does not. Method: raft/split-votes told by a `Teller` with the
// default window and with windows of 64 records, against `tell` and `shorten` of all records.
// Proves: the course's stories are unchanged by streaming, and a long run's story still reads
// in order, each record told at most once.
#[test]
fn a_story_told_in_windows_is_the_whole_story_when_it_fits() {
    let records = raft_records("raft/split-votes");
    assert!(records.len() < WINDOW);
    let whole = tell::<Raft>(&records, Lang::En, Detail::Story);
    let want = shorten(&whole, 80, 40, 40);
    let mut teller = Teller::<Raft>::new(Lang::En, Detail::Story, Shortener::new(80, 40, 40));
    records.iter().cloned().for_each(|r| teller.push(r));
    assert_eq!(teller.finish(), want);

    let mut windowed = Teller::<Raft>::with_window(Lang::En, Detail::Story, Shortener::whole(), 64);
    records.iter().cloned().for_each(|r| windowed.push(r));
    let indices: Vec<usize> = windowed
        .finish()
        .into_iter()
        .map(|s| match s {
            Shown::Line(told) => told.index,
            Shown::Gap(_) => panic!("a whole story has no gap"),
        })
        .collect();
    assert!(indices.windows(2).all(|w| w[0] < w[1]), "{indices:?}");
    assert!(
        indices.len() >= whole.len(),
        "windows fold less, never more"
    );
}

// Goal: a long run's story costs the lines it shows, not the run's length. Method: 60,000
// steps (three story windows) of a heartbeating Raft cluster through `dsim run -v` (every
// message told), shortened and with --full. Proves: the shown story stays at its head, key
// events and tail, the run ends with its verdict, and --full tells every window.
#[test]
fn a_long_run_shows_a_bounded_story() {
    let dir = scratch("long-story");
    let file = dir.join("long.ron");
    std::fs::write(&file, long_raft(60_000)).unwrap();
    let file = file.to_str().unwrap();
    let out = dsim(&["run", file, "-v"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(text.contains("after 60000 steps"), "{text}");
    assert!(
        text.contains("more lines; the whole story with --full"),
        "{text}"
    );
    assert!(text.lines().count() < 80 + 40 + 40 + 41 + 20, "{text}");
    let full = stdout(&dsim(&["run", file, "-v", "--full"]));
    assert!(
        full.lines().count() > 40_000,
        "{} lines",
        full.lines().count()
    );
}

// Goal: a trace that cannot be written is an error, never a success. Method: `--trace
// /dev/full`. Proves: exit 2, and the message names the file.
#[test]
fn a_trace_to_a_full_disk_is_an_error_naming_the_file() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("skipped: this system has no /dev/full");
        return;
    }
    let out = dsim(&["run", "paxos/lost-accepts", "--trace", "/dev/full"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("/dev/full"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

// Goal: a killed run never leaves a file that claims to be its trace. Method: `dsim run
// --trace` of a long run over an existing file, killed with SIGKILL once it has written part
// of the trace (beside the target). Proves: the target still holds what it held before, and
// what was written is only in the hidden temporary file.
#[test]
fn a_killed_run_leaves_no_trace_at_its_path() {
    use std::time::Duration;
    let dir = scratch("killed");
    let file = dir.join("long.ron");
    std::fs::write(&file, long_raft(50_000_000)).unwrap();
    let target = dir.join("t.jsonl");
    std::fs::write(&target, "old").unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_dsim"))
        .args(["run", file.to_str().unwrap(), "--trace"])
        .arg(&target)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let partial = || {
        std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().ends_with(".dsim-tmp"))
            .and_then(|e| e.metadata().ok())
            .is_some_and(|m| m.len() > 0)
    };
    // At most a minute: 3,000 looks 20 ms apart.
    for _ in 0..3_000 {
        if partial() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let wrote = partial();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(wrote, "the run wrote part of its trace within a minute");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    std::fs::remove_dir_all(&dir).ok();
}

// Goal: a huge value cannot multiply into a huge trace. Method: the PBFT normal case with one
// client writing a 1 MB value, validated and run. Proves: the file is refused (exit 2) at the
// value's line and column, with a message of bounded size, before anything runs or is written.
#[test]
fn a_one_megabyte_value_is_refused_where_it_is_written() {
    let dir = scratch("big-value");
    let source = std::fs::read_to_string(
        crate::support::root().join("scenarios/course/pbft/normal-case.ron"),
    )
    .unwrap();
    let big = "v".repeat(1 << 20);
    let source = source.replace(r#"Put("x", "1")"#, &format!(r#"Put("x", "{big}")"#));
    let file = dir.join("big.ron");
    std::fs::write(&file, &source).unwrap();
    let line = source[..source.find(&big).unwrap()].lines().count();
    let trace = dir.join("t.jsonl");
    for args in [
        vec!["validate"],
        vec!["run", "--trace", trace.to_str().unwrap()],
    ] {
        let out = dsim(&[args.as_slice(), &[file.to_str().unwrap()]].concat());
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("big.ron:{line}:")), "{args:?}: {err}");
        assert!(err.contains("at most 4096"), "{args:?}: {err}");
        assert!(err.len() < 2_000, "{args:?}: {} bytes", err.len());
    }
    assert!(!trace.exists());
}
