//! `dsim sweep`: many seeds, config variants, any thread count, the same table.

use crate::support::{dsim, stdout};
use serde_json::Value;

fn sweep_json(jobs: &str) -> Value {
    let out = dsim(&[
        "sweep",
        "raft/split-votes",
        "--seeds",
        "0..48",
        "--vary",
        "election_timeout_ms=(150,300)",
        "--vary",
        "bugs=(vote_twice: false)|(vote_twice: true)",
        "--jobs",
        jobs,
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "the knob's runs fail");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Goal: results never depend on the thread count. Method: the same sweep with 1 and 2 worker
/// threads, checking that 2 threads really ran (threads_used) and that the variants' tables are
/// identical. Proves: results are collected by seed, not by finishing order.
#[test]
fn identical_results_at_any_thread_count() {
    let one = sweep_json("1");
    let two = sweep_json("2");
    assert_eq!(one["execution"]["threads_used"], 1);
    assert_eq!(
        two["execution"]["threads_used"], 2,
        "the pool really used two threads"
    );
    assert_eq!(one["variants"], two["variants"]);
}

/// Goal: the sweep shows safety. Method: the double-vote knob off and on in one sweep. Proves:
/// zero violations without the knob, and a non-zero count with it, named by invariant.
#[test]
fn the_double_vote_knob_turns_violations_on() {
    let v = sweep_json("2");
    let off = &v["variants"][0]["summary"];
    let on = &v["variants"][1]["summary"];
    assert_eq!(off["runs_with_violations"], 0);
    assert_eq!(off["passed"], 48);
    assert!(on["runs_with_violations"].as_u64().unwrap() > 0, "{on}");
    assert!(on["violations"]["one-vote-per-term"].as_u64().unwrap() > 0);
}

/// The replay line a sweep prints (`dsim run ... --seed N --set ...`) reproduces the failure.
#[test]
fn the_printed_replay_reproduces_a_failing_seed() {
    let v = sweep_json("2");
    let seed = v["variants"][1]["summary"]["first_failure"]
        .as_u64()
        .unwrap();
    let out = dsim(&[
        "run",
        "raft/split-votes",
        "--seed",
        &seed.to_string(),
        "--set",
        "election_timeout_ms=(150,300)",
        "--set",
        "bugs=(vote_twice: true)",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("one-vote-per-term"),
        "{}",
        stdout(&out)
    );
}

/// Standard output (the results) is byte-identical at any --jobs; how it ran goes to stderr.
#[test]
fn text_output_does_not_depend_on_jobs() {
    let run = |jobs: &str| {
        dsim(&[
            "sweep",
            "raft/split-votes",
            "--seeds",
            "0..24",
            "--vary",
            "election_timeout_ms=(150,300)",
            "--jobs",
            jobs,
        ])
    };
    let (one, two) = (run("1"), run("2"));
    assert_eq!(one.stdout, two.stdout);
    assert!(crate::support::stderr(&two).contains("2 worker threads"));
}

#[test]
fn bad_sweep_flags_are_usage_errors() {
    let out = dsim(&[
        "sweep",
        "raft/split-votes",
        "--seeds",
        "0..18446744073709551615",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a huge range is refused, not a crash"
    );
    let out = dsim(&[
        "sweep",
        "raft/split-votes",
        "--seeds",
        "0..2",
        "--jobs",
        "100000",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = dsim(&["sweep", "raft/split-votes", "--seeds", "5..5"]);
    assert_eq!(out.status.code(), Some(2));
    let out = dsim(&[
        "sweep",
        "raft/split-votes",
        "--seeds",
        "0..2",
        "--vary",
        "nokey",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let out = dsim(&[
        "sweep",
        "raft/split-votes",
        "--seeds",
        "0..2",
        "--vary",
        "heartbeat_ms=0",
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a variant that does not validate is refused"
    );
}

/// Goal: a sweep's table reads in the course's Spanish. Method: `dsim sweep --lang es` of the
/// PX-3 comparison (a variant that fails and one that passes). Proves: the table's words are
/// Spanish (semillas, ejecuciones, superadas, mediana, nunca alcanzado, primera semilla que
/// falla) and none of its English words remain; the figures are the English table's.
#[test]
fn the_sweep_table_reads_in_spanish() {
    let args = [
        "sweep",
        "paxos/dueling-proposers",
        "--seeds",
        "0..20",
        "--vary",
        "on_timeout=Retry(2, 2)|Retry(1, 5)",
    ];
    let es = stdout(&dsim(&[&args[..], &["--lang", "es"]].concat()));
    for word in [
        "semillas 0..20",
        "ejecuciones por variante",
        "superadas",
        "ninguna violación de seguridad",
        "mediana",
        "nunca alcanzado",
        "primera semilla que falla",
    ] {
        assert!(es.contains(word), "{word}: {es}");
    }
    for english in [
        " runs",
        "passed",
        "median ",
        "never reached",
        "seeds ",
        "first failing",
    ] {
        assert!(!es.contains(english), "{english:?} in {es}");
    }
    let en = stdout(&dsim(&args));
    let numbers = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect()
    };
    assert_eq!(numbers(&es), numbers(&en));
}
