//! The lease election end to end: each bug knob caught (by `dsim explore` or on the course
//! file it breaks) with its control; every lease scenario over seeds 0..100.

use crate::support::{dsim, scratch, stderr, stdout};

/// `dsim explore search/lease-election ARGS [--bug BUG] --json`: the exit code and the first
/// broken invariant (or `liveness`).
fn explore(args: &[&str], bug: Option<&str>) -> (Option<i32>, Option<String>) {
    let out = scratch(&format!("lease-{}", bug.unwrap_or("control"))).join("found.ron");
    let mut all = vec!["explore", "search/lease-election"];
    all.extend(args);
    all.extend(["--json", "--out", out.to_str().unwrap()]);
    all.extend(bug.iter().flat_map(|b| ["--bug", *b]));
    let o = dsim(&all);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("{bug:?}: no JSON ({e}): {}", stderr(&o)));
    if json["found"][0].is_object() {
        assert_eq!(json["found"][0]["replays"], true, "{json}");
    }
    let found = json["found"][0]["finding"]["invariant"]
        .as_str()
        .map(str::to_string);
    (o.status.code(), found)
}

/// Goal: the store's and the relay's bug knobs each open a split-brain window that correct code
/// never opens under crashes, partitions and losses. Method: `dsim explore
/// search/lease-election` with one crash and one partition per seed, with each knob over 200
/// seeds and without any over 2,000. Proves: exit 1 and split-brain for `early_expiry` and
/// `unchecked_refresh` (their files replay); exit 0 for the correct protocol (no split brain,
/// and a leader again after every fault: liveness).
#[test]
fn store_and_relay_knobs_open_split_brain_and_correct_relays_never_do() {
    let faults = [
        "--crashes",
        "1",
        "--partitions",
        "1",
        "--window-ms",
        "20000",
    ];
    for knob in ["early_expiry", "unchecked_refresh"] {
        let mut args = faults.to_vec();
        args.extend(["--seeds", "0..200"]);
        let (code, found) = explore(&args, Some(knob));
        assert_eq!(code, Some(1), "{knob}");
        assert_eq!(found.as_deref(), Some("split-brain"), "{knob}");
    }
    let mut args = faults.to_vec();
    args.extend(["--seeds", "0..2000"]);
    assert_eq!(explore(&args, None), (Some(0), None));
}

/// Goal: fencing is what rejects the paused leader's stale write, and a resource that does not
/// check tokens lets it through. Method: `dsim run lease/gc-pause-fenced --json`, as written
/// and with `resource_ignores_tokens`. Proves: the file passes (the write rejected, split
/// brain expected); with the knob, fenced-writes breaks and the expectation of one rejected
/// write fails (exit 1).
#[test]
fn a_resource_that_ignores_tokens_accepts_the_stale_write() {
    let run = |sets: &[&str]| {
        let mut args = vec!["run", "lease/gc-pause-fenced", "--json"];
        args.extend(sets);
        let o = dsim(&args);
        let json: serde_json::Value = serde_json::from_str(&stdout(&o))
            .unwrap_or_else(|e| panic!("no JSON ({e}): {}", stderr(&o)));
        (o.status.code(), json)
    };
    let (code, json) = run(&[]);
    assert_eq!(code, Some(0), "{json}");
    let (code, json) = run(&["--set", "bugs=(resource_ignores_tokens: true)"]);
    assert_eq!(code, Some(1), "{json}");
    let broken: Vec<&str> = json["report"]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["invariant"].as_str())
        .collect();
    assert!(broken.contains(&"fenced-writes"), "{json}");
}

/// Goal: exercise 3's planner that does not check its refresh overlaps the new one, and the
/// one that checks does not. Method: `dsim run lease/exercise-3`, as written and with
/// `unchecked_refresh`. Proves: exit 0, then exit 1 with split-brain.
#[test]
fn exercise_3_overlaps_only_with_an_unchecked_refresh() {
    let o = dsim(&["run", "lease/exercise-3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = dsim(&[
        "run",
        "lease/exercise-3",
        "--set",
        "bugs=(unchecked_refresh: true)",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("split-brain"), "{}", stdout(&o));
}

/// Goal: every lease course scenario holds at every seed, not only the one its story shows.
/// Method: `dsim sweep lease/NAME --seeds 0..100 --json` for each. Proves: 100 of 100 pass.
#[test]
fn every_lease_scenario_passes_over_seeds_0_to_100() {
    for b in scenarios::bundled::BUNDLED
        .iter()
        .filter(|b| b.name.starts_with("lease/"))
    {
        let o = dsim(&["sweep", b.name, "--seeds", "0..100", "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}: {}", b.name, stderr(&o));
        let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        let summary = &json["variants"][0]["summary"];
        assert_eq!(summary["passed"], 100, "{}: {summary}", b.name);
    }
}
