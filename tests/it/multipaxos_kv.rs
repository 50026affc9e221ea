//! The key-value store on Multi-Paxos end to end: the course scenario (requests through the
//! log, loss, the leader crashed and restarted) is linearizable in both languages and at every
//! seed swept; `dsim explore search/multipaxos-kv` finds the `forget_requests` knob and does
//! not accuse the correct store; the history reaches the HTML view and `dsim check` offline.

use crate::raft_kv::explore_store;
use crate::support::{dsim, scratch, stderr, stdout};

const FAULTS: [&str; 6] = ["--crashes", "2", "--partitions", "2", "--window-ms", "1000"];

/// Goal: the course scenario tells the store's story and its history is linearizable. Method:
/// `dsim run multipaxos/kv-linearizable` in English and Spanish. Proves: it passes; clients'
/// requests are entries ('c2#2 cas(y, a -> b)'), answered with what the state machine said;
/// the invariants' line ends with `linearizable` (so the history was checked).
#[test]
fn the_course_scenario_is_linearizable_in_both_languages() {
    let o = dsim(&["run", "multipaxos/kv-linearizable"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("'c2#2 cas(y, a -> b)'"), "{text}");
    assert!(
        text.contains("[c3] n2 acknowledges request 2 with b, applied at entry 6"),
        "{text}"
    );
    let held = text
        .lines()
        .find(|l| l.starts_with("invariants held:"))
        .unwrap_or_default();
    assert!(held.ends_with(", linearizable"), "{held}");
    let es = stdout(&dsim(&[
        "run",
        "multipaxos/kv-linearizable",
        "--lang",
        "es",
    ]));
    assert!(
        es.contains("[c1] pido a n1 escribir x=1 (petición 1)"),
        "{es}"
    );
    assert!(
        es.contains("linealizable") || es.contains("linearizable"),
        "{es}"
    );
}

/// Goal: no schedule of the course scenario breaks the store. Method: `dsim sweep` over 200
/// seeds with `--json`. Proves: no run breaks an invariant (`linearizable` among them); the
/// story's expectations may differ at other seeds (the cas can come before the append), which
/// is why only safety is asked of them.
#[test]
fn no_seed_of_the_course_scenario_breaks_the_store() {
    let o = dsim(&[
        "sweep",
        "multipaxos/kv-linearizable",
        "--seeds",
        "0..200",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}", stderr(&o)));
    let summary = &json["variants"][0]["summary"];
    assert_eq!(summary["runs_with_violations"], 0, "{summary}");
    assert!(summary["passed"].as_u64().unwrap() > 150, "{summary}");
}

/// Goal: the knob is found and the correct store is not accused. Method: `dsim explore
/// search/multipaxos-kv` with two crashes and two partitions per seed: `--bug forget_requests`
/// over 100 seeds, the control over 1,000. Proves: the knob breaks `linearizable` with the
/// window in words and its counterexample replays; the control finds nothing (exit 0).
#[test]
fn forgetting_requests_is_found_and_the_correct_store_is_not_accused() {
    let extra = ["--bug", "forget_requests"];
    let (code, found) = explore_store("search/multipaxos-kv", &FAULTS, "0..100", "forget", &extra);
    assert_eq!(code, Some(1));
    let (invariant, message) = &found[0];
    assert_eq!(invariant, "linearizable");
    assert!(message.contains("after append(x, "), "{message}");
    let control = explore_store("search/multipaxos-kv", &FAULTS, "0..1000", "control", &[]);
    assert_eq!(control, (Some(0), Vec::new()));
}

/// Goal: the history reaches a trace's readers. Method: trace the course scenario, then
/// `dsim check` it and `dsim view --format html` it. Proves: the offline check reads the
/// clients' notes back (requests as entries included) and holds `linearizable`; the page
/// carries the history with its verdict.
#[test]
fn the_history_is_checked_offline_and_shown_in_the_view() {
    let dir = scratch("multipaxos-kv-trace");
    let trace = dir.join("t.jsonl");
    let t = trace.to_str().unwrap();
    let o = dsim(&["run", "multipaxos/kv-linearizable", "--trace", t]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = dsim(&["check", t]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("linearizable"), "{}", stdout(&o));
    let html = stdout(&dsim(&["view", t, "--format", "html"]));
    assert!(
        html.contains("\"client\":\"c3\",\"op\":\"get(y)\""),
        "no history"
    );
    assert!(html.contains("\"verdict\":\"linearizable\""), "no verdict");
}
