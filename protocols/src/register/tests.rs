//! The register model's handlers, and its exhaustive counts against stateright's.

use crate::register::config::RegisterConfig;
use crate::register::protocol::RegisterPaxos;
use sim_core::exhaustive::{self, Options, Order};
use sim_core::{SimConfig, build_sim};

fn config(clients: u32) -> RegisterConfig {
    ron::from_str(&format!("(clients: {clients})")).expect("a config")
}

fn explore(config: &RegisterConfig, order: Order, jobs: usize) -> exhaustive::Report {
    let mut sim = build_sim::<RegisterPaxos>(config, SimConfig::seeded(1));
    sim.go_untimed();
    let options = Options {
        order,
        jobs,
        keep_going: true,
        ignored_wait: true,
        ..Options::default()
    };
    let sometimes = <RegisterPaxos as sim_core::Protocol>::sometimes(config);
    exhaustive::explore(sim, &options, &sometimes, &mut |_| {})
}

/// stateright's `can_model_paxos` pins 16,668 unique states for 2 clients, BFS and DFS alike
/// (on one thread and two), and finds "value chosen" in 8 deliveries; depth first finds the
/// same example on two threads as on one.
#[test]
fn two_clients_give_staterights_16668_states() {
    let mut dfs_examples = Vec::new();
    for (order, jobs) in [
        (Order::Bfs, 1),
        (Order::Dfs, 1),
        (Order::Bfs, 2),
        (Order::Dfs, 2),
    ] {
        let report = explore(&config(2), order, jobs);
        assert!(report.violation.is_none(), "{:?}", report.violation);
        assert!(report.stats.complete);
        assert_eq!(report.stats.unique_states, 16_668, "{order:?} on {jobs}");
        let example = report.sometimes[0].example.clone().expect("reachable");
        if order == Order::Bfs {
            assert_eq!(example.len(), 8, "stateright's discovery is 8 deliveries");
        } else {
            dfs_examples.push(example);
        }
    }
    assert_eq!(dfs_examples[0], dfs_examples[1]);
}

/// With 3 clients stateright counts 1,194,428 unique states (its README and `paxos check-bfs
/// 3`). A few seconds in a release build, minutes in a debug one:
/// `cargo test --release -p protocols -- --ignored three_clients`.
#[test]
#[ignore = "1.2 million states: run in release"]
fn three_clients_give_staterights_1194428_states() {
    for (order, jobs) in [(Order::Bfs, 1), (Order::Dfs, 1), (Order::Dfs, 2)] {
        let report = explore(&config(3), order, jobs);
        assert!(report.violation.is_none(), "{:?}", report.violation);
        assert!(report.stats.complete);
        assert_eq!(report.stats.unique_states, 1_194_428, "{order:?} on {jobs}");
    }
}

/// The checker is proven by the bug knob: a leader that ignores accepted proposals lets two
/// servers decide two values, and the clients read them in opposite orders.
#[test]
fn ignoring_accepted_proposals_is_caught_as_not_linearizable() {
    let mut buggy = config(2);
    buggy.bugs.ignore_accepted = true;
    let found = explore_until_violation(&buggy);
    let v = found.violation.expect("a violation");
    assert_eq!(v.violations[0].invariant, "linearizable");
    assert!(v.violations[0].message.contains("not linearizable"));
    assert_eq!(v.path.len(), 17, "the shortest path, breadth first");
}

/// Depth first on two threads goes on past a violation as one does: the same counts of the
/// whole graph, and the same counterexample (the one a one-thread walk meets first).
#[test]
fn depth_first_on_two_threads_keeps_going_as_one_does() {
    let mut buggy = config(2);
    buggy.bugs.ignore_accepted = true;
    let [one, two] = [1, 2].map(|jobs| explore(&buggy, Order::Dfs, jobs));
    let facts = |r: &exhaustive::Report| {
        let v = r.violation.as_ref().expect("a violation");
        (
            r.stats.unique_states,
            r.stats.transitions,
            r.stats.terminal,
            v.path.clone(),
            v.violations[0].message.clone(),
        )
    };
    assert_eq!(facts(&one), facts(&two));
    assert!(
        one.stats.unique_states > 16_668,
        "{}",
        one.stats.unique_states
    );
}

/// Without stateright's rule for ignored messages (each delivery consumes its message, as a
/// timed run does) the same model has other states: the count is the rule's doing.
#[test]
fn consuming_ignored_messages_gives_another_count() {
    let count = |ignored_wait| {
        let mut sim = build_sim::<RegisterPaxos>(&config(1), SimConfig::seeded(1));
        sim.go_untimed();
        let options = Options {
            keep_going: true,
            ignored_wait,
            ..Options::default()
        };
        let report = exhaustive::explore(sim, &options, &[], &mut |_| {});
        assert!(report.stats.complete);
        report.stats.unique_states
    };
    let (waiting, consuming) = (count(true), count(false));
    eprintln!("1 client: {waiting} states when ignored messages wait, {consuming} when consumed");
    assert_ne!(waiting, consuming);
}

fn explore_until_violation(config: &RegisterConfig) -> exhaustive::Report {
    let mut sim = build_sim::<RegisterPaxos>(config, SimConfig::seeded(1));
    sim.go_untimed();
    let options = Options {
        ignored_wait: true,
        ..Options::default()
    };
    exhaustive::explore(sim, &options, &[], &mut |_| {})
}
