//! Handlers in isolation, with a `TestContext` and no kernel: each Paxos rule as a unit.

use crate::paxos::config::{CountPromises, Numbering};
use crate::paxos::node::{PaxosTimer, Phase};
use crate::paxos::{Bugs, OnTimeout, PaxosCommand, PaxosConfig, PaxosMsg, PaxosNode, PaxosNote};
use sim_core::{Actor, Effect, NodeId, TestContext};

// The lesson's layout: relay-1 #0, relay-2 #1, a1 #2, a2 #3, a3 #4.
const RELAY1: NodeId = NodeId(0);
const RELAY2: NodeId = NodeId(1);
const A1: NodeId = NodeId(2);
const A2: NodeId = NodeId(3);
const A3: NodeId = NodeId(4);
const A4: NodeId = NodeId(5);

use sim_core::actor::{notes_of as notes, sends_of as sends};

fn node(name: &str) -> PaxosNode {
    PaxosNode::from_config(&PaxosConfig::lesson(), name)
}

fn deliver(n: &mut PaxosNode, t: &mut TestContext<PaxosNode>, from: NodeId, msg: PaxosMsg) {
    n.on_message(&mut t.ctx(), from, msg);
}

// Goal: the acceptor's phase 1 rule. Method: prepare 11, then 11 again (a duplicate), then 5,
// then 12 after accepting. Proves: promised iff n > promised, a repeat of the promised number
// is answered with the same promise (never a nack), a nack carries the promise, and a promise
// reports the last accepted proposal.
#[test]
fn acceptor_promises_only_higher_numbers() {
    let mut a = node("a1");
    let mut t = TestContext::new(A1);
    deliver(&mut a, &mut t, RELAY1, PaxosMsg::Prepare { n: 11 });
    let promise = PaxosMsg::Promise {
        n: 11,
        accepted: None,
    };
    assert_eq!(sends(&t.take()), [(RELAY1, promise.clone())]);
    deliver(&mut a, &mut t, RELAY1, PaxosMsg::Prepare { n: 11 });
    assert_eq!(
        sends(&t.take()),
        [(RELAY1, promise)],
        "a repeat, answered alike"
    );
    for n in [10, 5] {
        deliver(&mut a, &mut t, RELAY2, PaxosMsg::Prepare { n });
        let effects = t.take();
        assert_eq!(
            sends(&effects),
            [(RELAY2, PaxosMsg::Nack { n, promised: 11 })]
        );
        assert_eq!(notes(&effects), [PaxosNote::Nacked { n, promised: 11 }]);
    }
    let accept = PaxosMsg::Accept {
        n: 11,
        value: "relay-1".into(),
    };
    deliver(&mut a, &mut t, RELAY1, accept);
    t.take();
    deliver(&mut a, &mut t, RELAY2, PaxosMsg::Prepare { n: 12 });
    let reported = Some((11, "relay-1".into()));
    assert_eq!(
        sends(&t.take()),
        [(
            RELAY2,
            PaxosMsg::Promise {
                n: 12,
                accepted: reported
            }
        )]
    );
}

// Goal: the acceptor's phase 2 rule. Method: promise 12, then accept 12 (equal), 11 (below)
// and 21 (above). Proves: n >= promised is accepted (equal included) and told to the proposer
// and every learner once; below is nacked; accepting raises the promise.
#[test]
fn acceptor_accepts_at_or_above_its_promise() {
    let mut a = node("a2");
    let mut t = TestContext::new(A2);
    deliver(&mut a, &mut t, RELAY2, PaxosMsg::Prepare { n: 12 });
    t.take();
    let accept = |n: u64| PaxosMsg::Accept {
        n,
        value: "v".into(),
    };
    deliver(&mut a, &mut t, RELAY2, accept(12));
    let accepted = PaxosMsg::Accepted {
        n: 12,
        value: "v".into(),
    };
    assert_eq!(
        sends(&t.take()),
        [(RELAY2, accepted.clone()), (RELAY1, accepted)],
        "to the proposer, then to the other learner"
    );
    deliver(&mut a, &mut t, RELAY1, accept(11));
    assert_eq!(
        sends(&t.take()),
        [(
            RELAY1,
            PaxosMsg::Nack {
                n: 11,
                promised: 12
            }
        )]
    );
    deliver(&mut a, &mut t, RELAY1, accept(21));
    assert_eq!(
        notes(&t.take()),
        [PaxosNote::Accepted {
            n: 21,
            value: "v".into()
        }]
    );
    let state = a.acceptor.as_ref().unwrap();
    assert_eq!(
        (state.promised, state.accepted.clone()),
        (Some(21), Some((21, "v".into())))
    );
}

// Goal: durability. Method: crash an acceptor after it promised and accepted, with and without
// `forget_promise_on_restart`. Proves: `on_crash` keeps (promised, accepted); the knob drops
// only the promise.
#[test]
fn acceptor_state_survives_a_crash_unless_the_knob_is_on() {
    let mut a = node("a3");
    let mut t = TestContext::new(A3);
    deliver(&mut a, &mut t, RELAY1, PaxosMsg::Prepare { n: 21 });
    deliver(
        &mut a,
        &mut t,
        RELAY1,
        PaxosMsg::Accept {
            n: 21,
            value: "x".into(),
        },
    );
    let mut buggy = a.clone();
    a.on_crash();
    let state = a.acceptor.as_ref().unwrap();
    assert_eq!(
        (state.promised, state.accepted.clone()),
        (Some(21), Some((21, "x".into())))
    );
    buggy.bugs = Bugs {
        forget_promise_on_restart: true,
        ..Bugs::default()
    };
    buggy.on_crash();
    let state = buggy.acceptor.as_ref().unwrap();
    assert_eq!(
        (state.promised, state.accepted.clone()),
        (None, Some((21, "x".into())))
    );
}

const A5: NodeId = NodeId(6);

/// A proposer among five acceptors (majority 3) that ends phase 1 by `count`, already in
/// phase 1 of round 11.
fn proposer_of_five(count: CountPromises) -> (PaxosNode, TestContext<PaxosNode>) {
    let mut config = PaxosConfig::lesson();
    config.acceptors = ["a1", "a2", "a3", "a4", "a5"].map(String::from).to_vec();
    config.count_promises = count;
    let mut p = PaxosNode::from_config(&config, "relay-1");
    let mut t = TestContext::new(RELAY1);
    p.on_command(&mut t.ctx(), crate::paxos::PaxosCommand::Propose);
    t.take();
    (p, t)
}

// Goal: the heart of Paxos. Method: under `AtMajority`, a majority of promises reporting
// (11, x), (31, y), (21, z) in that order. Proves: the proposer proposes y, the HIGHEST-numbered accepted value, neither
// the first nor the last reported, and notes that it adopted it over its own.
#[test]
fn proposer_adopts_the_highest_accepted_proposal() {
    let (mut p, mut t) = proposer_of_five(CountPromises::AtMajority);
    let reports = [(A1, 11, "x"), (A2, 31, "y"), (A3, 21, "z")];
    for (from, n, v) in reports {
        let accepted = Some((n, v.into()));
        deliver(&mut p, &mut t, from, PaxosMsg::Promise { n: 11, accepted });
    }
    let effects = t.take();
    let adopted = PaxosNote::Adopted {
        n: 11,
        value: "y".into(),
        from_n: 31,
        gave_up: "relay-1".into(),
    };
    assert!(notes(&effects).contains(&adopted));
    let accept = PaxosMsg::Accept {
        n: 11,
        value: "y".into(),
    };
    assert!(sends(&effects).iter().all(|(_, m)| *m == accept));
    assert_eq!(sends(&effects).len(), 5);
}

// Goal: the proposer's own value when nothing was accepted, and stale replies. Method: under
// `AtMajority`, a promise for another number, then promises reporting nothing. Proves: the stale promise is
// not counted (two current promises of five start no phase 2), and with nothing reported by
// the majority the proposer proposes its own value.
#[test]
fn proposer_proposes_its_own_value_when_nothing_was_accepted() {
    let (mut p, mut t) = proposer_of_five(CountPromises::AtMajority);
    deliver(
        &mut p,
        &mut t,
        A1,
        PaxosMsg::Promise {
            n: 99,
            accepted: None,
        },
    );
    for from in [A2, A3] {
        deliver(
            &mut p,
            &mut t,
            from,
            PaxosMsg::Promise {
                n: 11,
                accepted: None,
            },
        );
    }
    assert!(
        sends(&t.take()).is_empty(),
        "two current promises of five are no majority"
    );
    deliver(
        &mut p,
        &mut t,
        A4,
        PaxosMsg::Promise {
            n: 11,
            accepted: None,
        },
    );
    let own = PaxosMsg::Accept {
        n: 11,
        value: "relay-1".into(),
    };
    assert!(sends(&t.take()).iter().all(|(_, m)| *m == own));
}

fn promise(n: u64, accepted: Option<(u64, &str)>) -> PaxosMsg {
    PaxosMsg::Promise {
        n,
        accepted: accepted.map(|(m, v)| (m, v.into())),
    }
}

// Goal: the lesson's phase 1 (the default). Method: three promises of five reporting nothing
// (a majority), then a nack, then a last promise reporting (7, z). Proves: the proposer waits
// for every acceptor's answer and adopts what the last one reported, which a proposer counting
// at the first majority would have missed.
#[test]
fn phase_1_waits_for_every_acceptor_by_default() {
    let (mut p, mut t) = proposer_of_five(CountPromises::AfterAllReplies);
    for from in [A1, A2, A3] {
        deliver(&mut p, &mut t, from, promise(11, None));
    }
    let nack = PaxosMsg::Nack {
        n: 11,
        promised: 14,
    };
    deliver(&mut p, &mut t, A4, nack);
    assert!(sends(&t.take()).is_empty(), "a5 has not answered yet");
    deliver(&mut p, &mut t, A5, promise(11, Some((7, "z"))));
    let accept = PaxosMsg::Accept {
        n: 11,
        value: "z".into(),
    };
    let effects = t.take();
    assert_eq!(sends(&effects).len(), 5);
    assert!(sends(&effects).iter().all(|(_, m)| *m == accept));
}

// Goal: a lost Prepare under the default. Method: two promises of three, then the phase timer.
// Proves: the timeout ends phase 1 with the promises it has, a majority, so phase 2 starts
// (the lesson's round B of exercise 1), rather than failing.
#[test]
fn phase_1_timeout_with_a_majority_goes_on_to_phase_2() {
    let mut p = node("relay-2");
    let mut t = TestContext::new(RELAY2);
    p.on_command(&mut t.ctx(), PaxosCommand::Propose);
    t.take();
    for from in [A1, A3] {
        deliver(&mut p, &mut t, from, promise(12, None));
    }
    assert!(sends(&t.take()).is_empty());
    p.on_timer(&mut t.ctx(), PaxosTimer::Phase(12));
    let effects = t.take();
    let proposed = PaxosNote::Proposed {
        n: 12,
        value: "relay-2".into(),
    };
    assert_eq!(notes(&effects), [proposed]);
    assert_eq!(sends(&effects).len(), 3);
}

// Goal: the lesson's numbering (the default). Method: round 11 refused by promises of 22,
// then a new Propose. Proves: the next number is the next round's, 21 (`ronda += 1`), not one
// past the promise seen.
#[test]
fn next_round_is_the_next_number_by_default() {
    let mut p = node("relay-1");
    let mut t = TestContext::new(RELAY1);
    p.on_command(&mut t.ctx(), PaxosCommand::Propose);
    for from in [A1, A2] {
        let nack = PaxosMsg::Nack {
            n: 11,
            promised: 22,
        };
        deliver(&mut p, &mut t, from, nack);
    }
    p.on_command(&mut t.ctx(), PaxosCommand::Propose);
    assert!(sends(&t.take()).contains(&(A1, PaxosMsg::Prepare { n: 21 })));
}

// Goal: a new Propose while a phase waits. Method: a Propose in phase 1 with one promise, then
// one in phase 2 with two accepts of three. Proves: the first phase is noted as abandoned (no
// retry is armed), the second as a choice with the accepts counted so far, and each new round
// goes on with the next number.
#[test]
fn a_new_propose_first_ends_the_waiting_phase() {
    let mut p = node("relay-1");
    p.on_timeout = OnTimeout::Retry(5, 9);
    let mut t = TestContext::new(RELAY1);
    p.on_command(&mut t.ctx(), PaxosCommand::Propose);
    deliver(&mut p, &mut t, A1, promise(11, None));
    t.take();
    p.on_command(&mut t.ctx(), PaxosCommand::Propose);
    let effects = t.take();
    let abandoned = PaxosNote::Abandoned {
        phase: 1,
        n: 11,
        got: 1,
        needed: 2,
    };
    assert_eq!(notes(&effects)[0], abandoned);
    assert!(!effects.iter().any(|e| matches!(
        e,
        Effect::SetTimer {
            timer: PaxosTimer::Retry,
            ..
        }
    )));
    assert!(sends(&effects).contains(&(A1, PaxosMsg::Prepare { n: 21 })));
    for from in [A1, A2, A3] {
        deliver(&mut p, &mut t, from, promise(21, None));
    }
    for from in [A1, A2] {
        let accepted = PaxosMsg::Accepted {
            n: 21,
            value: "relay-1".into(),
        };
        deliver(&mut p, &mut t, from, accepted);
    }
    assert!(
        !notes(&t.take())
            .iter()
            .any(|n| matches!(n, PaxosNote::Chosen { .. })),
        "the proposer reports its round when its phase 2 ends"
    );
    p.on_command(&mut t.ctx(), PaxosCommand::Propose);
    let chosen = PaxosNote::Chosen {
        n: 21,
        value: "relay-1".into(),
        accepts: 2,
        of: 3,
    };
    let effects = t.take();
    assert_eq!(notes(&effects)[0], chosen);
    assert!(sends(&effects).contains(&(A1, PaxosMsg::Prepare { n: 31 })));
}

// Goal: the jumping numbering (`PastHighestSeen`). Method: relay-1 is refused by acceptors that
// promised 12, then proposes again; then a nack reports 22. Proves: the phase fails as soon as
// a majority is out of reach, and the next round jumps above the promise seen (21, then 31),
// never reusing a number.
#[test]
fn proposer_jumps_above_a_nacked_promise() {
    let mut p = node("relay-1");
    p.numbering = Numbering::PastHighestSeen;
    let mut t = TestContext::new(RELAY1);
    p.on_command(&mut t.ctx(), crate::paxos::PaxosCommand::Propose);
    t.take();
    for from in [A1, A2] {
        deliver(
            &mut p,
            &mut t,
            from,
            PaxosMsg::Nack {
                n: 11,
                promised: 12,
            },
        );
    }
    let failed = PaxosNote::PhaseFailed {
        phase: 1,
        n: 11,
        got: 0,
        needed: 2,
        retry_in_ms: None,
    };
    assert_eq!(notes(&t.take()), [failed]);
    assert_eq!(p.proposer.as_ref().unwrap().phase, Phase::Idle);
    p.on_command(&mut t.ctx(), crate::paxos::PaxosCommand::Propose);
    assert!(sends(&t.take()).contains(&(A1, PaxosMsg::Prepare { n: 21 })));
    deliver(
        &mut p,
        &mut t,
        A3,
        PaxosMsg::Nack {
            n: 21,
            promised: 22,
        },
    );
    p.on_command(&mut t.ctx(), crate::paxos::PaxosCommand::Propose);
    assert!(sends(&t.take()).contains(&(A1, PaxosMsg::Prepare { n: 31 })));
}

// Goal: timeouts. Method: let the phase timer of round 11 fire with one promise, under
// `Retry(5, 9)`, then fire the retry timer. Proves: the phase fails with a back-off drawn in
// [5, 9] ms, the retry timer is armed for exactly that, and it starts round 21.
#[test]
fn phase_timeout_retries_after_a_back_off_in_range() {
    let mut p = node("relay-2");
    p.on_timeout = OnTimeout::Retry(5, 9);
    let mut t = TestContext::new(RELAY2);
    p.on_command(&mut t.ctx(), crate::paxos::PaxosCommand::Propose);
    deliver(
        &mut p,
        &mut t,
        A1,
        PaxosMsg::Promise {
            n: 12,
            accepted: None,
        },
    );
    t.take();
    p.on_timer(&mut t.ctx(), PaxosTimer::Phase(12));
    let effects = t.take();
    let Some(PaxosNote::PhaseFailed {
        got: 1,
        retry_in_ms: Some(ms),
        ..
    }) = notes(&effects).first().cloned()
    else {
        panic!("{effects:?}")
    };
    assert!((5..=9).contains(&ms));
    assert!(effects.contains(&Effect::SetTimer {
        timer: PaxosTimer::Retry,
        after: sim_core::Duration::from_millis(ms)
    }));
    p.on_timer(&mut t.ctx(), PaxosTimer::Retry);
    assert!(sends(&t.take()).contains(&(A1, PaxosMsg::Prepare { n: 22 })));
}
