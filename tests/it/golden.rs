//! Golden traces: each bundled scenario's trace at its own seed is compared with
//! `traces/golden/<name>.jsonl`, ignoring the informational dsim version. A change in what a
//! seed means, in the kernel's order of events or in a protocol shows up here as a diff.
//! `UPDATE_GOLDEN=1 cargo test golden` rewrites them; read the diff before committing it.

use crate::support::{bundled_trace, root};
use scenarios::bundled::BUNDLED;
use traces::format::without_version;

#[test]
fn bundled_scenarios_match_their_golden_traces() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut missing = Vec::new();
    for b in BUNDLED {
        let trace = bundled_trace(b);
        let path = root()
            .join("traces/golden")
            .join(format!("{}.jsonl", b.name));
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &trace).unwrap();
            continue;
        }
        let Ok(golden) = std::fs::read_to_string(&path) else {
            missing.push(b.name);
            continue;
        };
        let (got, want) = (without_version(&trace), without_version(&golden));
        if got != want {
            let line = got
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
                got.lines().nth(line).unwrap_or("(end)"),
                want.lines().nth(line).unwrap_or("(end)")
            );
        }
    }
    assert!(
        missing.is_empty(),
        "no golden trace for {missing:?}: run with UPDATE_GOLDEN=1"
    );
}
