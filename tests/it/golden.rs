//! What each bundled scenario does, pinned two ways.
//!
//! - A **snapshot a person reads** (`tests/it/snapshots/*.snap`, insta): the story `dsim run
//!   NAME` prints, under one line with the size and the XXH3-128 digest of the whole trace
//!   (without the informational dsim version). A changed lesson shows up as a readable diff of
//!   the story; any change of the trace, told or not, changes the digest line. Review with
//!   `cargo insta review` (or `INSTA_UPDATE=always cargo test --test it golden` and `git diff`).
//! - The **trace itself** (`traces/golden/*.jsonl`) for the small scenarios (a trace under
//!   [`GOLDEN_TRACE_LIMIT`] bytes), compared byte for byte: the reference examples of the trace
//!   format. `UPDATE_GOLDEN=1 cargo test --test it golden` rewrites them.

use crate::support::{bundled_trace, dsim, root, stdout};
use scenarios::bundled::BUNDLED;
use traces::format::without_version;

/// Traces up to this size are kept whole as golden files; larger ones only by digest.
const GOLDEN_TRACE_LIMIT: usize = 20_000;

/// All snapshot and golden files together stay under this many bytes (`du -cb`).
const PINNED_BYTES_LIMIT: u64 = 600_000;

// Goal: every bundled scenario tells the same story and writes the same trace until someone
// decides otherwise. Method: a snapshot of `dsim run NAME` with the trace's digest, and the
// whole trace of the small ones. Proves: a change in what a seed means, in the kernel's order
// of events or in a protocol shows up as a diff a person can read.
#[test]
fn bundled_scenarios_match_their_snapshots_and_golden_traces() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for b in BUNDLED {
        let trace = without_version(&bundled_trace(b));
        let digest = xxhash_rust::xxh3::xxh3_128(trace.as_bytes());
        let records = trace.lines().count().saturating_sub(1);
        let story = stdout(&dsim(&["run", b.name]));
        let snapshot = format!(
            "trace: {records} records, {} bytes, xxh3-128 {digest:032x}\n\n{story}",
            trace.len()
        );
        insta::assert_snapshot!(b.name.replace('/', "__"), snapshot);
        let path = root()
            .join("traces/golden")
            .join(format!("{}.jsonl", b.name));
        if trace.len() >= GOLDEN_TRACE_LIMIT {
            assert!(
                !path.exists() || update,
                "{}: a {}-byte trace is pinned by its digest; remove {}",
                b.name,
                trace.len(),
                path.display()
            );
            if update {
                std::fs::remove_file(&path).ok();
            }
            continue;
        }
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bundled_trace(b)).unwrap();
            continue;
        }
        let golden = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{}: no golden trace (UPDATE_GOLDEN=1 writes it)", b.name));
        let want = without_version(&golden);
        if trace != want {
            let line = trace
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "{}: trace differs from {} at line {}:\n  now:    {}\n  golden: {}\n\
                 (UPDATE_GOLDEN=1 rewrites the goldens; read the diff first)",
                b.name,
                path.display(),
                line + 1,
                trace.lines().nth(line).unwrap_or(""),
                want.lines().nth(line).unwrap_or("")
            );
        }
    }
}

/// The size of every file under `dir`, recursively.
fn bytes_under(dir: &std::path::Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .map(|e| e.unwrap().path())
        .map(|p| {
            if p.is_dir() {
                bytes_under(&p)
            } else {
                p.metadata().unwrap().len()
            }
        })
        .sum()
}

// Goal: the pinned files stay small enough to review. Method: their total size. Proves: a
// reviewer is never asked to read megabytes of JSON.
#[test]
fn snapshots_and_goldens_stay_reviewable() {
    let total = bytes_under(&root().join("traces/golden"))
        + bytes_under(&root().join("tests/it/snapshots"));
    assert!(
        total <= PINNED_BYTES_LIMIT,
        "{total} bytes of snapshots and golden traces (limit {PINNED_BYTES_LIMIT})"
    );
}
