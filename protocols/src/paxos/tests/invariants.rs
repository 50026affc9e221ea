//! The invariants on hand-made records, as `dsim check` runs them on a student's trace file:
//! for each, a sequence that violates it and a close one that does not.

use crate::paxos::{Agreement, ChosenValueIsStable, PaxosCommand, PaxosNode, PaxosNote, Validity};
use sim_core::{Event, Instant, Invariant, Record};

fn note(node: &str, note: PaxosNote) -> Record<PaxosNode> {
    Record {
        step: 1,
        time: Instant::ZERO,
        event: Event::Note {
            node: sim_core::Name::from(node),
            note,
        },
    }
}

fn accepted(node: &str, n: u64, value: &str) -> Record<PaxosNode> {
    note(
        node,
        PaxosNote::Accepted {
            n,
            value: value.into(),
        },
    )
}

fn chosen(node: &str, n: u64, value: &str) -> Record<PaxosNode> {
    note(
        node,
        PaxosNote::Chosen {
            n,
            value: value.into(),
            accepts: 2,
            of: 3,
        },
    )
}

/// The acceptors of every hand-made trace here.
fn acceptors() -> Vec<String> {
    ["a1", "a2", "a3"].map(String::from).to_vec()
}

/// Feeds `records` to `inv`; returns the first error.
fn first_error(
    mut inv: impl Invariant<PaxosNode>,
    records: &[Record<PaxosNode>],
) -> Option<String> {
    records
        .iter()
        .find_map(|r| inv.observe(r).err().map(|b| b.text))
}

// Goal: agreement from acceptor notes. Method: (11, x) accepted by a1, a2, then (12, y) by a2,
// a3. Proves: the second majority is caught, with both majorities named; the same with y = x
// passes.
#[test]
fn agreement_catches_two_majorities_with_different_values() {
    let bad = [
        accepted("a1", 11, "x"),
        accepted("a2", 11, "x"),
        accepted("a2", 12, "y"),
        accepted("a3", 12, "y"),
    ];
    let err = first_error(Agreement::new(&acceptors()), &bad).expect("a violation");
    assert!(
        err.contains("(a1, a2)") && err.contains("(a2, a3)"),
        "{err}"
    );
    let good = [
        accepted("a1", 11, "x"),
        accepted("a2", 11, "x"),
        accepted("a2", 12, "x"),
        accepted("a3", 12, "x"),
    ];
    assert_eq!(first_error(Agreement::new(&acceptors()), &good), None);
}

// Goal: agreement from learners. Method: two learners note different values. Proves: caught,
// naming the learners; two learners noting the same value at different numbers pass.
#[test]
fn agreement_catches_learners_that_disagree() {
    let bad = [chosen("relay-1", 11, "x"), chosen("relay-2", 12, "y")];
    let err = first_error(Agreement::new(&acceptors()), &bad).expect("a violation");
    assert!(
        err.contains("relay-1 learned") && err.contains("relay-2 learned"),
        "{err}"
    );
    let good = [chosen("relay-1", 11, "x"), chosen("relay-2", 21, "x")];
    assert_eq!(first_error(Agreement::new(&acceptors()), &good), None);
}

// Goal: validity. Method: a learner notes 'zzz', which no proposer started with; then the same
// after a `ProposeValue("zzz")` command. Proves: an invented value is caught; a commanded one
// is valid.
#[test]
fn validity_catches_a_value_nobody_proposed() {
    let initial = || ["relay-1".into()].into_iter().collect();
    let bad = [chosen("relay-1", 11, "zzz")];
    let err = first_error(Validity::new(&acceptors(), initial()), &bad).expect("a violation");
    assert!(err.contains("'zzz'") && err.contains("'relay-1'"), "{err}");
    let command = Record {
        step: 1,
        time: Instant::ZERO,
        event: Event::Command {
            node: sim_core::Name::from("relay-1"),
            command: PaxosCommand::ProposeValue("zzz".into()),
            accepted: true,
        },
    };
    let good = [command, chosen("relay-1", 11, "zzz")];
    assert_eq!(
        first_error(Validity::new(&acceptors(), initial()), &good),
        None
    );
}

// Goal: P2b after the choice. Method: (12, x) chosen by a1, a2; then a3 accepts (21, y), and
// in the control a3 accepts a late (11, y). Proves: a higher-numbered accept with another value
// is caught; a late lower-numbered one is legal.
#[test]
fn stable_catches_a_higher_accept_with_another_value() {
    let base = [accepted("a1", 12, "x"), accepted("a2", 12, "x")];
    let mut bad = base.to_vec();
    bad.push(accepted("a3", 21, "y"));
    let err = first_error(ChosenValueIsStable::new(&acceptors()), &bad).expect("a violation");
    assert!(
        err.contains("a3 accepted 'y' at n=21") && err.contains("n=12"),
        "{err}"
    );
    let mut good = base.to_vec();
    good.push(accepted("a3", 11, "y"));
    assert_eq!(
        first_error(ChosenValueIsStable::new(&acceptors()), &good),
        None
    );
}

// Goal: P2b for accepts recorded before the choice. Method: a3 accepts (21, y) first, then a1
// and a2 accept (11, x), making 11 chosen. Proves: the earlier, higher accept is caught when 11
// becomes chosen; with y = x it passes.
#[test]
fn stable_catches_a_higher_accept_recorded_before_the_choice() {
    let bad = [
        accepted("a3", 21, "y"),
        accepted("a1", 11, "x"),
        accepted("a2", 11, "x"),
    ];
    let err = first_error(ChosenValueIsStable::new(&acceptors()), &bad).expect("a violation");
    assert!(err.contains("a3 had already accepted 'y' at n=21"), "{err}");
    let good = [
        accepted("a3", 21, "x"),
        accepted("a1", 11, "x"),
        accepted("a2", 11, "x"),
    ];
    assert_eq!(
        first_error(ChosenValueIsStable::new(&acceptors()), &good),
        None
    );
}

// Goal: a hand-edited trace cannot fake a majority. Method: `Accepted` notes from two nodes
// that are not acceptors (a review found they counted). Proves: they are ignored; the same two
// notes from real acceptors do make a majority (control).
#[test]
fn accepts_from_non_acceptors_never_count() {
    let ghosts = [
        accepted("a1", 11, "x"),
        accepted("a2", 11, "x"),
        accepted("ghost1", 12, "y"),
        accepted("ghost2", 12, "y"),
    ];
    assert_eq!(first_error(Agreement::new(&acceptors()), &ghosts), None);
    let real = [
        accepted("a1", 11, "x"),
        accepted("a2", 11, "x"),
        accepted("a2", 12, "y"),
        accepted("a3", 12, "y"),
    ];
    assert!(first_error(Agreement::new(&acceptors()), &real).is_some());
}

// Goal: P2b reads every node's accepts, not only the cluster's, while only the cluster's make
// a majority. Method: "ghost" (not an acceptor) and a3 accept higher numbers with another value
// before (11, x) becomes chosen. Proves: the first such accept in (number, value, node) order
// is reported, a ghost's included; without the ghost, a3's is.
#[test]
fn stable_reads_accepts_from_any_node_before_the_choice() {
    let choose = [accepted("a1", 11, "x"), accepted("a2", 11, "x")];
    let mut both = vec![accepted("a3", 22, "y"), accepted("ghost", 21, "y")];
    both.extend(choose.iter().cloned());
    let err = first_error(ChosenValueIsStable::new(&acceptors()), &both).expect("a violation");
    assert!(
        err.contains("ghost had already accepted 'y' at n=21"),
        "{err}"
    );
    let mut only_a3 = vec![accepted("a3", 22, "y")];
    only_a3.extend(choose.iter().cloned());
    let err = first_error(ChosenValueIsStable::new(&acceptors()), &only_a3).expect("a violation");
    assert!(err.contains("a3 had already accepted 'y' at n=22"), "{err}");
    assert!(
        err.contains("a majority (a1, a2) accepted 'x' at n=11"),
        "{err}"
    );
}
