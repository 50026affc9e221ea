//! The course's Paxos scenarios (SCENARIOS.md section 1) replayed through the kernel.
//!
//! Each test drives a `Sim` with the lesson's cast, real messages on a 1 ms network, the losses
//! as targeted fault rules, and the rounds as `Propose` commands 100 ms apart (so they do not
//! overlap unless the test wants them to). The three invariants run online; none may fire.

use super::support::{PaxosRun, Propose, Run, Scenario, every_acceptor, lesson, px1, scenario};
use crate::paxos::{OnTimeout, PaxosExpect, PaxosNote};
use sim_core::{Duration, RuleAction};

/// Rounds A (relay-1 at 0 ms), B (relay-2 at 100 ms), C (relay-1 at 200 ms).
fn three_rounds(s: &mut Scenario) -> Run {
    s.propose(0, "relay-1")
        .propose(100, "relay-2")
        .propose(200, "relay-1");
    s.run()
}

// Goal: PX-1, the lesson's run. Method: lose relay-1's first Accept to a2 and to a3, then run
// rounds A, B, C. Proves: relay-2 adopts (11, relay-1) and gets it chosen at n=12 with 3 of 3,
// relay-1's second round is 21 and confirms it, and every acceptor ends (21, relay-1).
#[test]
fn px1_lost_accepts_relay2_adopts_relay1() {
    let run = px1(&lesson(|_| {}), false);
    assert_eq!(run.violated(), Vec::<String>::new());
    let notes = run.noted();
    assert!(notes.contains(&(
        "relay-1".into(),
        PaxosNote::PhaseFailed {
            phase: 2,
            n: 11,
            got: 1,
            needed: 2,
            retry_in_ms: None
        }
    )));
    assert!(notes.contains(&(
        "relay-2".into(),
        PaxosNote::Adopted {
            n: 12,
            value: "relay-1".into(),
            from_n: 11,
            gave_up: "relay-2".into()
        }
    )));
    let chosen = run.chosen();
    assert!(chosen.contains(&("relay-2".into(), 12, "relay-1".into(), 3)));
    assert!(chosen.contains(&("relay-1".into(), 21, "relay-1".into(), 3)));
    run.check(&PaxosExpect::Chosen("relay-1".into())).unwrap();
    every_acceptor(&run, 21, "relay-1");
}

// Goal: the lesson's variant of PX-1. Method: round A loses the Accept to a1 too. Proves: no
// promise in round B reports anything, so relay-2 proposes and gets its own value chosen; in
// round C relay-1 adopts it; every acceptor ends (21, relay-2).
#[test]
fn px1_variant_all_accepts_lost_relay2_wins() {
    let mut s = scenario(&lesson(|_| {}), 1, false);
    for a in ["a1", "a2", "a3"] {
        s.lose_first("Accept", "relay-1", a);
    }
    let run = three_rounds(&mut s);
    assert_eq!(run.violated(), Vec::<String>::new());
    assert!(
        run.chosen()
            .contains(&("relay-2".into(), 12, "relay-2".into(), 3))
    );
    assert!(run.noted().contains(&(
        "relay-1".into(),
        PaxosNote::Adopted {
            n: 21,
            value: "relay-2".into(),
            from_n: 12,
            gave_up: "relay-1".into()
        }
    )));
    run.check(&PaxosExpect::Chosen("relay-2".into())).unwrap();
    assert!(run.check(&PaxosExpect::Chosen("relay-1".into())).is_err());
    every_acceptor(&run, 21, "relay-2");
}

// Goal: PX-2, exercise 1. Method: round A loses relay-1's Accepts to a1 and a3 (only a2 holds
// (11, relay-1)); round B loses relay-2's Prepare to a2. Proves: the majority a1, a3 reports
// nothing, so relay-2 proposes its own value, a2 accepts 12 (it only promised 11), relay-2 is
// chosen, and round C's relay-1 adopts it: every acceptor ends (21, relay-2).
#[test]
fn px2_lost_prepare_relay2_chosen() {
    let mut s = scenario(&lesson(|_| {}), 1, false);
    s.lose_first("Accept", "relay-1", "a1")
        .lose_first("Accept", "relay-1", "a3")
        .lose_first("Prepare", "relay-2", "a2");
    let run = three_rounds(&mut s);
    assert_eq!(run.violated(), Vec::<String>::new());
    assert!(
        run.chosen()
            .contains(&("relay-2".into(), 12, "relay-2".into(), 3))
    );
    assert!(
        !run.noted()
            .iter()
            .any(|(node, n)| node == "relay-2" && matches!(n, PaxosNote::Adopted { .. })),
        "relay-2 never saw a2's (11, relay-1), so it adopts nothing"
    );
    run.check(&PaxosExpect::Chosen("relay-2".into())).unwrap();
    run.check(&PaxosExpect::Learned {
        node: "relay-1".into(),
        value: "relay-2".into(),
    })
    .unwrap();
    every_acceptor(&run, 21, "relay-2");
}

/// PX-3's duel: every Accept takes 10 ms more than other messages, relay-2 enters 6 ms after
/// relay-1, so each proposer's Prepare lands between the other's Prepare and its Accepts.
fn duel(on_timeout: OnTimeout, seed: u64) -> Run {
    let mut s = scenario(&lesson(|c| c.on_timeout = on_timeout), seed, false);
    let delay = RuleAction::Delay {
        by: Duration::from_millis(10),
    };
    s.rule(delay, Some("Accept"), None, None, None);
    s.propose(0, "relay-1").propose(6, "relay-2");
    s.run()
}

fn highest_prepared(run: &Run) -> u64 {
    run.noted()
        .iter()
        .filter_map(|(_, n)| match n {
            PaxosNote::Preparing { n, .. } => Some(*n),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

// Goal: PX-3, the livelock. Method: the duel above with a fixed 2 ms back-off, for 2 s of
// virtual time. Proves: the proposers keep invalidating each other's promises (numbers climb
// past 1000) and nothing is ever chosen, yet no invariant fires: a liveness failure only.
#[test]
fn px3_duel_with_fixed_backoff_chooses_nothing() {
    let run = duel(OnTimeout::Retry(2, 2), 1);
    assert_eq!(run.violated(), Vec::<String>::new());
    assert!(highest_prepared(&run) > 1_000, "{}", highest_prepared(&run));
    run.check(&PaxosExpect::NothingChosen).unwrap();
}

// Goal: PX-3's way out. Method: the same duel with a random back-off in [1, 5] ms (a retry
// whose Prepare lands before the rival's Accepts keeps the duel going), over ten seeds, and
// with a fixed 10 ms.
// Proves: the duel lasts more than one round at some seed and ends at every seed, every learner
// agreeing, with no invariant firing; a fixed back-off longer than the Accepts' flight ends it
// at once (relay-2's first round is chosen): the back-off's length is the cause.
#[test]
fn px3_duel_with_random_backoff_ends() {
    let mut longest_duel = 0;
    for seed in 1..=10 {
        let run = duel(OnTimeout::Retry(1, 5), seed);
        assert_eq!(run.violated(), Vec::<String>::new(), "seed {seed}");
        let chosen = run.chosen();
        assert!(!chosen.is_empty(), "seed {seed}: nothing chosen");
        run.check(&PaxosExpect::Chosen(chosen[0].2.clone()))
            .unwrap();
        longest_duel = longest_duel.max(highest_prepared(&run));
    }
    assert!(
        longest_duel > 22,
        "some duel lasts past round 2: {longest_duel}"
    );
    let long_fixed = duel(OnTimeout::Retry(10, 10), 1);
    run_chooses_at_once(&long_fixed);
}

fn run_chooses_at_once(run: &Run) {
    assert_eq!(run.violated(), Vec::<String>::new());
    run.check(&PaxosExpect::Chosen("relay-2".into())).unwrap();
    assert!(run.chosen().iter().any(|(_, n, _, _)| *n == 12));
}

// Goal: the duel's control. Method: the same timing with `GiveUp`. Proves: the duel is the
// retries' doing: relay-1 gives up after its Accepts are refused and relay-2's round succeeds.
#[test]
fn px3_control_without_retries_relay2_wins() {
    run_chooses_at_once(&duel(OnTimeout::GiveUp, 1));
}

// Goal: determinism. Method: run the random-back-off duel twice with one seed and once with
// another. Proves: the same seed gives byte-identical records; the back-off really is drawn
// from the seeded streams (another seed, another trace).
#[test]
fn same_seed_same_records() {
    let a = duel(OnTimeout::Retry(1, 5), 7).json();
    assert_eq!(a, duel(OnTimeout::Retry(1, 5), 7).json());
    assert_ne!(a, duel(OnTimeout::Retry(1, 5), 8).json());
}

// Goal: phase 1 waits for every promise (the lesson's rule, the default). Method: PX-1 with the
// surviving accept at a3 instead of a1 (relay-1's Accepts to a1 and a2 are lost), once with the
// default and once with `AtMajority`. Proves: by default relay-2 hears a3's (11, relay-1) and
// relay-1 is chosen, as the lesson's program does; counting at the first majority proposes
// relay-2 from a1's and a2's empty promises before a3's lands, and relay-2 is chosen (also
// correct Paxos, but not the lesson's answer).
#[test]
fn px1_with_the_surviving_accept_at_a3_gives_the_lessons_answer() {
    use crate::paxos::config::CountPromises;
    for (count, winner) in [
        (CountPromises::AfterAllReplies, "relay-1"),
        (CountPromises::AtMajority, "relay-2"),
    ] {
        let mut s = scenario(&lesson(|c| c.count_promises = count), 1, false);
        s.lose_first("Accept", "relay-1", "a1")
            .lose_first("Accept", "relay-1", "a2");
        let run = three_rounds(&mut s);
        assert_eq!(run.violated(), Vec::<String>::new());
        run.check(&PaxosExpect::Chosen(winner.into()))
            .unwrap_or_else(|e| panic!("{count:?}: {e}"));
    }
}
