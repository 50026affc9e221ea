//! Determinism: the same scenario and seed give byte-identical traces; another seed changes what
//! is random. Method: run each bundled scenario twice in-process and through the binary.

use crate::support::{dsim, root};
use scenarios::RunOptions;
use scenarios::bundled::BUNDLED;

fn trace_of(name: &str, source: &str, seed: Option<u64>) -> String {
    let protocol = scenarios::registry::protocol_for(name, source).unwrap();
    let options = RunOptions {
        seed,
        keep_trace: true,
        ..RunOptions::default()
    };
    protocol.run(name, source, &options).unwrap().trace.unwrap()
}

#[test]
fn same_seed_gives_byte_identical_traces() {
    for b in BUNDLED {
        assert_eq!(
            trace_of(b.name, b.source, None),
            trace_of(b.name, b.source, None),
            "{}",
            b.name
        );
    }
}

/// The token ring has random latency: seeds 0 and 1 must tell different stories.
#[test]
fn another_seed_changes_a_random_run() {
    let b = scenarios::bundled::find("demo/token-ring").unwrap();
    assert_ne!(
        trace_of(b.name, b.source, Some(0)),
        trace_of(b.name, b.source, Some(1))
    );
}

/// Through the binary: `--check-determinism` runs twice and compares, and two `--trace` files
/// written by two processes are identical.
#[test]
fn two_processes_write_the_same_trace_file() {
    let dir = crate::support::scratch("det");
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.jsonl");
    let b = dir.join("b.jsonl");
    for path in [&a, &b] {
        let out = dsim(&[
            "run",
            "demo/token-ring",
            "--check-determinism",
            "--trace",
            path.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0));
    }
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = root();
}

/// The trace writer's fast path writes exactly what the records' `Serialize` derive would, for
/// every record of every bundled scenario (all record kinds occur among them).
#[test]
fn fast_trace_lines_equal_serde_json() {
    for b in BUNDLED {
        let text = trace_of(b.name, b.source, None);
        let header = traces::parse_header(&text).unwrap();
        let check = |line: &str| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(value.get("kind").is_some(), "{}: {line}", b.name);
        };
        text.lines().skip(1).for_each(check);
        // Re-serialize each record with serde and compare byte for byte.
        let reserialized = scenarios::registry::find(&header.protocol)
            .unwrap()
            .read_trace(&text)
            .unwrap()
            .reserialize();
        assert_eq!(reserialized, text, "{}", b.name);
    }
}
