//! Property tests: safety of every protocol (Paxos, Raft, the ring store) under any network
//! schedule, and shrinking to the smallest schedule that breaks a buggy protocol.
//!
//! A schedule is data: a list of [`Choice`]s, each about one message by its id (lost?
//! duplicated? how late?). proptest generates schedules and, when one breaks an
//! invariant, shrinks it toward the healthy network; the result replays exactly.

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngAlgorithm, TestRng, TestRunner};
use sim_core::{Choice, Duration, MsgId, Protocol};

/// Two proposers racing over a lossy, duplicating, reordering network, retrying with back-off.
const PAXOS_RACE: &str = r#"Scenario(
    description: "two proposers race over a bad network",
    protocol: "paxos",
    config: (proposers: ["relay-1", "relay-2"], acceptors: ["a1", "a2", "a3"],
             on_timeout: Retry(1, 40)),
    network: (latency: Uniform(1, 20), loss: "1/5", duplicate: "1/10"),
    timeline: [
        At(0, Command("relay-1", Propose)),
        At(3, Command("relay-2", Propose)),
        At(60, Command("relay-1", Propose)),
    ],
    stop: (max_time_ms: 2000),
)"#;

/// RF-1's cast without pins, over a lossy network, with the leader paused and resumed.
const RAFT_BAD_NETWORK: &str = r#"Scenario(
    description: "raft election over a bad network",
    protocol: "raft",
    config: (nodes: [
        (name: "nodo-1", log: (term: 1, index: 5)),
        (name: "nodo-2", log: (term: 1, index: 5)),
        (name: "nodo-3", log: (term: 1, index: 3)),
    ]),
    network: (latency: Uniform(2, 30), loss: "1/10", duplicate: "1/20"),
    timeline: [At(400, Pause("nodo-1")), At(900, Resume("nodo-1"))],
    stop: (max_time_ms: 2000),
)"#;

/// Schedules as data: up to 60 choices about the first 300 messages (lost, late, duplicated),
/// every other message healthy. proptest shrinks a list by dropping choices and moving ids and
/// latencies toward the healthy end.
fn schedules(max_latency_ns: u64) -> impl Strategy<Value = Vec<Choice>> {
    let choice = (1..300u64, 0..3u8, 0..max_latency_ns).prop_map(|(id, sort, ns)| match sort {
        0 => Choice::Lose(MsgId(id)),
        1 => Choice::Latency(MsgId(id), Duration(ns)),
        _ => Choice::Copy(MsgId(id), Duration(ns)),
    });
    proptest::collection::vec(choice, 0..60)
}

/// Runs `source` (protocol `P`) following `schedule`; returns the names of the invariants
/// violated.
fn violations<P: Protocol>(source: &str, schedule: Vec<Choice>) -> Vec<String> {
    let prep = scenarios::load::load::<P>("property", source).expect("a valid scenario");
    let mut sim = scenarios::run::build(&prep, 0);
    sim.follow(&schedule);
    sim.run()
        .violations
        .into_iter()
        .map(|v| v.invariant)
        .collect()
}

/// A deterministic runner: the same cases on every machine and every run.
fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]))
}

/// Goal: Paxos is safe under every schedule the fault model allows. Method: 64 generated
/// schedules of losses, duplicates and delays for a two-proposer race. Proves: agreement,
/// validity and stability never fail (a failure would print the shrunk schedule).
#[test]
fn paxos_is_safe_under_any_schedule() {
    runner(64)
        .run(&schedules(19_000_000), |schedule| {
            let v = violations::<protocols::paxos::Paxos>(PAXOS_RACE, schedule);
            prop_assert!(v.is_empty(), "violated: {v:?}");
            Ok(())
        })
        .unwrap();
}

/// Goal: Raft election is safe under every schedule. Method: 64 generated schedules over
/// RF-1's cast with a pause. Proves: never two leaders in a term, terms never decrease, a
/// leader's log is up to date, one vote per term.
#[test]
fn raft_is_safe_under_any_schedule() {
    runner(64)
        .run(&schedules(28_000_000), |schedule| {
            let v = violations::<protocols::raft::Raft>(RAFT_BAD_NETWORK, schedule);
            prop_assert!(v.is_empty(), "violated: {v:?}");
            Ok(())
        })
        .unwrap();
}

/// Goal: the search finds a buggy protocol's counterexample and shrinks it. Method: the race
/// with acceptors that accept below their promise, a bug that a healthy network never shows;
/// proptest looks for a schedule that breaks an invariant and shrinks it. Proves: the healthy
/// schedule passes; a breaking one is found; the shrunk schedule is short and mostly healthy;
/// replayed, it breaks an invariant again, and the correct acceptors under the same schedule
/// (the control) do not.
#[test]
fn a_buggy_acceptor_is_caught_and_its_schedule_shrunk() {
    let buggy = PAXOS_RACE.replace(
        "on_timeout: Retry(1, 40)),",
        "on_timeout: Retry(1, 40), bugs: (accept_below_promise: true)),",
    );
    assert!(
        violations::<protocols::paxos::Paxos>(&buggy, Vec::new()).is_empty(),
        "the bug needs a bad schedule to show"
    );
    let result = runner(256).run(&schedules(19_000_000), |schedule| {
        let v = violations::<protocols::paxos::Paxos>(&buggy, schedule);
        prop_assert!(v.is_empty(), "violated: {v:?}");
        Ok(())
    });
    let Err(proptest::test_runner::TestError::Fail(_, minimal)) = result else {
        panic!("no schedule broke the buggy acceptors: {result:?}");
    };
    assert!(
        minimal.len() <= 10,
        "shrunk to {} choices: {minimal:?}",
        minimal.len()
    );
    assert!(!violations::<protocols::paxos::Paxos>(&buggy, minimal.clone()).is_empty());
    assert!(violations::<protocols::paxos::Paxos>(PAXOS_RACE, minimal).is_empty());
}

/// Goal: the ring store is safe under every schedule. Method: 48 generated schedules (losses,
/// delays, duplicates of the first 300 messages) over RING-5's coordinator scenario, whose own
/// network is a healthy 1 ms LAN. Proves: no acknowledged write is lost, reads return the
/// latest acknowledged version, ownership stays total, hints are delivered.
#[test]
fn the_ring_store_is_safe_under_any_schedule() {
    let b = scenarios::bundled::find("ring/coordinator").unwrap();
    runner(48)
        .run(&schedules(5_000_000), |schedule| {
            let v = violations::<protocols::ring_store::LiveRing>(b.source, schedule);
            prop_assert!(v.is_empty(), "violated: {v:?}");
            Ok(())
        })
        .unwrap();
}
