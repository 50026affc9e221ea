//! The key-value store on Multi-Paxos end to end: the course scenario (requests through the
//! log, loss, the leader crashed and restarted) is linearizable in both languages and at every
//! seed swept; `dsim explore search/multipaxos-kv` finds the `forget_requests` knob and does
//! not accuse the correct store; the history reaches the HTML view and `dsim check` offline.

use crate::raft_kv::explore_store;
use crate::support::{dsim, scratch, stderr, stdout};

const FAULTS: [&str; 6] = ["--crashes", "2", "--partitions", "3", "--window-ms", "2000"];

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
    let held_es = es
        .lines()
        .find(|l| l.starts_with("invariantes que se cumplen:"))
        .unwrap_or_default();
    assert!(held_es.ends_with(", linearizable"), "{held_es}");
}

/// Goal: a deposed leader's local read is caught. Method: `dsim run multipaxos/kv-stale-read`
/// in both languages. Proves: it passes because its expected `linearizable` violation is
/// found, named with the read and the write it missed.
#[test]
fn a_deposed_leaders_local_read_is_caught() {
    let o = dsim(&["run", "multipaxos/kv-stale-read"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(
            "the clients' history is not linearizable (key x): get(x) by c3 returned 1 after \
             put(x, 2) by c2 had returned"
        ),
        "{text}"
    );
    let es = stdout(&dsim(&["run", "multipaxos/kv-stale-read", "--lang", "es"]));
    assert!(
        es.contains("la historia de los clientes no es linealizable (clave x)"),
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

/// Goal: each way to break the store is found; the correct store is not accused. Method:
/// `dsim explore search/multipaxos-kv` with two crashes and three partitions per seed: the
/// `forget_requests` knob and leader-local reads over 100 seeds, the control over 1,000.
/// Proves: both break `linearizable` with the window in words and their counterexamples
/// replay; the control finds nothing (exit 0).
#[test]
fn each_way_to_break_the_store_is_found_and_the_correct_store_is_not_accused() {
    for (label, extra) in [
        ("forget", ["--bug", "forget_requests"]),
        ("local-reads", ["--set", "reads=LeaderLocal"]),
    ] {
        let search = "search/multipaxos-kv";
        let (code, found) = explore_store(search, &FAULTS, "0..100", label, &extra);
        assert_eq!(code, Some(1), "{label}");
        let (invariant, message) = &found[0];
        assert_eq!(invariant, "linearizable", "{label}");
        assert!(message.contains(" returned "), "{label}: {message}");
    }
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
