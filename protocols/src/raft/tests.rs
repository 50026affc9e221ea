//! Handler and checker unit tests: handlers with `TestContext` (no kernel), invariants on
//! hand-made record sequences.

use super::invariants::{
    AdoptHigherTerm, AtMostOneLeaderPerTerm, LeaderLogUpToDate, LeaderWithin, OneVotePerTerm,
    TermsNeverDecrease,
};
use super::*;
use sim_core::{
    Actor, Duration, Effect, Event, Fault, Instant, Invariant, MsgId, NodeId, Record, TestContext,
};

const N1: NodeId = NodeId(0);
const N2: NodeId = NodeId(1);
const N3: NodeId = NodeId(2);

fn node(config: &RaftConfig, id: NodeId) -> (RaftNode, TestContext<RaftNode>) {
    let mut node = RaftNode::new(config, id);
    let mut t = TestContext::new(id);
    node.on_start(&mut t.ctx());
    t.take();
    (node, t)
}

use sim_core::actor::{notes_of as notes, sends_of as sent};

fn vote_request(term: u64, last_log_term: u64, last_log_index: u64) -> RaftMsg {
    RaftMsg::RequestVote {
        term,
        last_log_index,
        last_log_term,
    }
}

fn resets_election_timer(effects: &[Effect<RaftNode>]) -> bool {
    effects.iter().any(|e| {
        matches!(
            e,
            Effect::SetTimer {
                timer: RaftTimer::Election,
                ..
            }
        )
    })
}

// Goal: the election restriction. Method: nodo-2 (1,5) gets RequestVote of term 1 from nodo-3
// with log (1,3), then from nodo-1 with (1,5). Proves: the stale log is denied with both logs in
// the reason and no timer reset; the up-to-date one is granted, resetting the election timer.
#[test]
fn vote_is_denied_to_a_stale_log_and_granted_to_an_up_to_date_one() {
    let (mut n2, mut t) = node(&RaftConfig::lesson(), N2);
    n2.on_message(&mut t.ctx(), N3, vote_request(1, 1, 3));
    let effects = t.take();
    assert_eq!(
        notes(&effects),
        vec![
            RaftNote::TermChanged { from: 0, to: 1 },
            RaftNote::VoteDenied {
                term: 1,
                candidate: "nodo-3".into(),
                reason: DenyReason::LogBehind {
                    theirs: LastEntry { term: 1, index: 3 },
                    mine: LastEntry { term: 1, index: 5 },
                },
            },
        ]
    );
    assert_eq!(
        sent(&effects),
        vec![(
            N3,
            RaftMsg::RequestVoteReply {
                term: 1,
                vote_granted: false
            }
        )]
    );
    assert!(
        !resets_election_timer(&effects),
        "a denied vote does not reset the timer"
    );
    assert_eq!(n2.server().unwrap().voted_for(), None);

    n2.on_message(&mut t.ctx(), N1, vote_request(2, 1, 5));
    let effects = t.take();
    assert!(notes(&effects).contains(&RaftNote::VoteGranted {
        term: 2,
        candidate: "nodo-1".into()
    }));
    assert_eq!(
        sent(&effects),
        vec![(
            N1,
            RaftMsg::RequestVoteReply {
                term: 2,
                vote_granted: true
            }
        )]
    );
    assert!(resets_election_timer(&effects));
    assert_eq!(
        (
            n2.server().unwrap().current_term(),
            n2.server().unwrap().voted_for()
        ),
        (2, Some(N1))
    );
}

// Goal: one vote per term. Method: nodo-2 votes for nodo-1 in term 2, then nodo-3 asks in term 2
// (with a good log), then nodo-1 asks again. Proves: the second candidate is denied because of
// votedFor; a repeated request from the same candidate is granted again (idempotent). With the
// vote_twice knob the second candidate gets the vote.
#[test]
fn vote_is_denied_once_voted_in_the_term() {
    let mut config = RaftConfig::lesson();
    config.nodes[2] = NodeSpec::new("nodo-3", 1, 5);
    let (mut n2, mut t) = node(&config, N2);
    n2.on_message(&mut t.ctx(), N1, vote_request(2, 1, 5));
    t.take();
    n2.on_message(&mut t.ctx(), N3, vote_request(2, 1, 5));
    let effects = t.take();
    assert_eq!(
        notes(&effects),
        vec![RaftNote::VoteDenied {
            term: 2,
            candidate: "nodo-3".into(),
            reason: DenyReason::AlreadyVoted {
                voted_for: "nodo-1".into()
            },
        }]
    );
    n2.on_message(&mut t.ctx(), N1, vote_request(2, 1, 5));
    assert!(matches!(
        notes(&t.take())[..],
        [RaftNote::VoteGranted { term: 2, .. }]
    ));

    config.bugs.vote_twice = true;
    let (mut n2, mut t) = node(&config, N2);
    n2.on_message(&mut t.ctx(), N1, vote_request(2, 1, 5));
    n2.on_message(&mut t.ctx(), N3, vote_request(2, 1, 5));
    let granted = notes(&t.take())
        .into_iter()
        .filter(|n| matches!(n, RaftNote::VoteGranted { .. }))
        .count();
    assert_eq!(granted, 2, "the knob lets a node vote twice in a term");
}

/// nodo-1 stands (term 1) and wins with nodo-2's vote.
fn leader_n1(config: &RaftConfig) -> (RaftNode, TestContext<RaftNode>) {
    let (mut n1, mut t) = node(config, N1);
    n1.on_timer(&mut t.ctx(), RaftTimer::Election);
    n1.on_message(
        &mut t.ctx(),
        N2,
        RaftMsg::RequestVoteReply {
            term: 1,
            vote_granted: true,
        },
    );
    assert_eq!(n1.server().unwrap().role(), Role::Leader);
    t.take();
    (n1, t)
}

// Goal: step-down on a higher term in a request. Method: leader nodo-1 of term 1 gets a
// RequestVote of term 3. Proves: it adopts term 3, notes SteppedDown, stops heartbeats, re-arms
// its election timer, and answers the request in the new term.
#[test]
fn leader_steps_down_on_a_higher_term_in_a_request() {
    let (mut n1, mut t) = leader_n1(&RaftConfig::lesson());
    n1.on_message(&mut t.ctx(), N3, vote_request(3, 1, 3));
    let effects = t.take();
    let ns = notes(&effects);
    assert_eq!(ns[0], RaftNote::TermChanged { from: 1, to: 3 });
    assert!(matches!(
        &ns[1],
        RaftNote::SteppedDown { from_term: 1, to_term: 3, because: StepDownCause::HigherTerm { kind, .. } }
            if kind == "RequestVote"
    ));
    assert_eq!(
        (
            n1.server().unwrap().role(),
            n1.server().unwrap().current_term()
        ),
        (Role::Follower, 3)
    );
    assert!(effects.contains(&Effect::CancelTimer {
        timer: RaftTimer::Heartbeat
    }));
    assert!(resets_election_timer(&effects));
    assert_eq!(
        sent(&effects),
        vec![(
            N3,
            RaftMsg::RequestVoteReply {
                term: 3,
                vote_granted: false
            }
        )]
    );
}

// Goal: step-down on a higher term in a reply, and its bug knob. Method: leader nodo-1 of term 1
// gets an AppendEntriesReply of term 4. Proves: it becomes follower of term 4; with
// ignore_higher_term_in_replies it stays leader of term 1.
#[test]
fn leader_steps_down_on_a_higher_term_in_a_reply() {
    let reply = RaftMsg::AppendEntriesReply {
        term: 4,
        success: false,
        match_index: 0,
        last_log_index: 0,
        rejected: 0,
    };
    let mut config = RaftConfig::lesson();
    let (mut n1, mut t) = leader_n1(&config);
    n1.on_message(&mut t.ctx(), N3, reply.clone());
    assert_eq!(
        (
            n1.server().unwrap().role(),
            n1.server().unwrap().current_term()
        ),
        (Role::Follower, 4)
    );

    config.bugs.ignore_higher_term_in_replies = true;
    let (mut n1, mut t) = leader_n1(&config);
    n1.on_message(&mut t.ctx(), N3, reply);
    assert_eq!(
        (
            n1.server().unwrap().role(),
            n1.server().unwrap().current_term()
        ),
        (Role::Leader, 1)
    );
}

// Goal: a candidate takes office at the first majority and counts late votes. Method: in a
// 5-node cluster nodo-1 stands; one grant (2 of 5) is not enough, a second (3 of 5) is; a third
// arrives late. Proves: BecameLeader with 3 votes, immediate heartbeats to all four peers, a
// LateVote note with 4 votes, and a denial or stale-term grant counts for nothing.
#[test]
fn candidate_becomes_leader_at_the_first_majority() {
    let names = ["nodo-1", "nodo-2", "nodo-3", "nodo-4", "nodo-5"];
    let mut config = RaftConfig::new(names.iter().map(|n| NodeSpec::new(n, 1, 5)).collect());
    config.replication = false;
    let (mut n1, mut t) = node(&config, N1);
    n1.on_timer(&mut t.ctx(), RaftTimer::Election);
    let effects = t.take();
    assert_eq!(notes(&effects)[1], RaftNote::BecameCandidate { term: 1 });
    assert_eq!(sent(&effects).len(), 4);
    let grant = |term| RaftMsg::RequestVoteReply {
        term,
        vote_granted: true,
    };
    n1.on_message(&mut t.ctx(), NodeId(1), grant(1));
    n1.on_message(
        &mut t.ctx(),
        NodeId(2),
        RaftMsg::RequestVoteReply {
            term: 1,
            vote_granted: false,
        },
    );
    n1.on_message(&mut t.ctx(), NodeId(2), grant(0));
    assert_eq!(n1.server().unwrap().role(), Role::Candidate);
    t.take();
    n1.on_message(&mut t.ctx(), NodeId(3), grant(1));
    let effects = t.take();
    assert_eq!(n1.server().unwrap().role(), Role::Leader);
    assert_eq!(
        notes(&effects),
        vec![RaftNote::BecameLeader {
            term: 1,
            votes: 3,
            last_log: LastEntry { term: 1, index: 5 }
        }]
    );
    let heartbeats = sent(&effects);
    assert_eq!(heartbeats.len(), 4);
    assert!(heartbeats.iter().all(|(_, m)| *m == RaftMsg::heartbeat(1)));
    assert!(effects.contains(&Effect::SetTimer {
        timer: RaftTimer::Heartbeat,
        after: Duration::from_millis(50)
    }));
    n1.on_message(&mut t.ctx(), NodeId(4), grant(1));
    assert_eq!(
        notes(&t.take()),
        vec![RaftNote::LateVote {
            term: 1,
            voter: "nodo-5".into(),
            votes: 4
        }]
    );
}

// Goal: currentTerm and votedFor are durable, the rest volatile. Method: nodo-2 votes in term 2,
// crashes, restarts. Proves: it restarts as follower of term 2, still bound to its vote (denies
// nodo-3 in term 2), and its first deadline is no longer the pinned one.
#[test]
fn term_and_vote_survive_a_crash() {
    let mut config = RaftConfig::lesson();
    config.nodes[2] = NodeSpec::new("nodo-3", 1, 5);
    config.first_deadline_ms.insert("nodo-2".into(), 7);
    let (mut n2, mut t) = node(&config, N2);
    n2.on_message(&mut t.ctx(), N1, vote_request(2, 1, 5));
    n2.on_crash();
    t.take();
    n2.on_start(&mut t.ctx());
    let effects = t.take();
    assert!(notes(&effects).contains(&RaftNote::Started {
        current_term: 2,
        voted_for: Some("nodo-1".into())
    }));
    assert!(!effects.contains(&Effect::SetTimer {
        timer: RaftTimer::Election,
        after: Duration::from_millis(7)
    }));
    n2.on_message(&mut t.ctx(), N3, vote_request(2, 1, 5));
    assert!(matches!(
        notes(&t.take())[..],
        [RaftNote::VoteDenied { .. }]
    ));
}

// Goal: the lesson's slip as a knob. Method: nodo-3 votes for nodo-1 in term 1, gets nodo-1's
// heartbeat of term 1, then nodo-2 asks for term 1. Proves: correct Raft denies (votedFor kept);
// with reset_vote_on_heartbeat the heartbeat cleared the vote and nodo-2 gets it.
#[test]
fn heartbeat_keeps_the_vote_unless_the_lesson_slip_is_on() {
    let mut config = RaftConfig::lesson();
    config.nodes[2] = NodeSpec::new("nodo-3", 1, 5);
    for slip in [false, true] {
        config.bugs.reset_vote_on_heartbeat = slip;
        let (mut n3, mut t) = node(&config, N3);
        n3.on_message(&mut t.ctx(), N1, vote_request(1, 1, 5));
        n3.on_message(&mut t.ctx(), N1, RaftMsg::heartbeat(1));
        let effects = t.take();
        assert!(notes(&effects).contains(&RaftNote::Recognised {
            leader: "nodo-1".into(),
            term: 1
        }));
        n3.on_message(&mut t.ctx(), N2, vote_request(1, 1, 5));
        let granted = notes(&t.take())
            .iter()
            .any(|n| matches!(n, RaftNote::VoteGranted { .. }));
        assert_eq!(granted, slip);
    }
}

fn rec(step: u64, ms: u64, event: Event<RaftNode>) -> Record<RaftNode> {
    Record {
        step,
        time: Instant::from_millis(ms),
        event,
    }
}

fn n(step: u64, ms: u64, node: &str, note: RaftNote) -> Record<RaftNode> {
    rec(
        step,
        ms,
        Event::Note {
            node: sim_core::Name::from(node),
            note,
        },
    )
}

fn leader(term: u64, t: u64, i: u64) -> RaftNote {
    RaftNote::BecameLeader {
        term,
        votes: 2,
        last_log: LastEntry { term: t, index: i },
    }
}

fn run(inv: &mut dyn Invariant<RaftNode>, records: &[Record<RaftNode>]) -> Vec<String> {
    let mut errors: Vec<String> = records
        .iter()
        .filter_map(|r| inv.observe(r).err().map(|b| b.text))
        .collect();
    errors.extend(
        inv.finish(Instant::from_millis(10_000))
            .err()
            .map(|b| b.text),
    );
    errors
}

// Goal: election safety's checker. Method: two leaders in different terms, then a second leader
// of term 2. Proves: only the same-term pair is a violation, named with both leaders.
#[test]
fn at_most_one_leader_per_term_on_records() {
    let ok = [
        n(1, 1, "nodo-1", leader(1, 1, 5)),
        n(2, 2, "nodo-2", leader(2, 1, 5)),
    ];
    assert!(run(&mut AtMostOneLeaderPerTerm::default(), &ok).is_empty());
    let bad = [
        ok[0].clone(),
        ok[1].clone(),
        n(3, 3, "nodo-3", leader(2, 1, 5)),
    ];
    let errors = run(&mut AtMostOneLeaderPerTerm::default(), &bad);
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0].contains("nodo-3") && errors[0].contains("nodo-2"),
        "{errors:?}"
    );
}

// Goal: one vote per term's checker. Method: a self-vote (BecameCandidate) then a grant to
// another in the same term; and grants in different terms. Proves: only the double vote fails.
#[test]
fn one_vote_per_term_on_records() {
    let grant = |term, c: &str| RaftNote::VoteGranted {
        term,
        candidate: c.into(),
    };
    let ok = [
        n(1, 1, "nodo-2", grant(1, "nodo-1")),
        n(2, 2, "nodo-2", grant(1, "nodo-1")),
        n(3, 3, "nodo-2", RaftNote::BecameCandidate { term: 2 }),
    ];
    assert!(run(&mut OneVotePerTerm::default(), &ok).is_empty());
    let bad = [ok[2].clone(), n(4, 4, "nodo-2", grant(2, "nodo-3"))];
    assert_eq!(run(&mut OneVotePerTerm::default(), &bad).len(), 1);
}

// Goal: terms never decrease, across restarts. Method: a node reaches term 3, then restarts at
// term 0 (a lost durable term), and a TermChanged going down. Proves: both are violations; a
// restart at the same term is not.
#[test]
fn terms_never_decrease_on_records() {
    let started = |t| RaftNote::Started {
        current_term: t,
        voted_for: None,
    };
    let ok = [
        n(1, 0, "nodo-1", started(0)),
        n(2, 1, "nodo-1", RaftNote::TermChanged { from: 0, to: 3 }),
        n(3, 2, "nodo-1", started(3)),
    ];
    assert!(run(&mut TermsNeverDecrease::default(), &ok).is_empty());
    let lost = [ok[0].clone(), ok[1].clone(), n(3, 2, "nodo-1", started(0))];
    assert!(run(&mut TermsNeverDecrease::default(), &lost)[0].contains("survive restarts"));
    let down = [n(1, 1, "nodo-1", RaftNote::TermChanged { from: 3, to: 2 })];
    assert_eq!(run(&mut TermsNeverDecrease::default(), &down).len(), 1);
}

// Goal: the log checker. Method: logs (1,5), (1,5), (1,3) published; nodo-1 (1,5) leads, then
// nodo-3 (1,3) leads. Proves: the stale leader is caught, naming the logs ahead of it.
#[test]
fn leader_log_up_to_date_on_records() {
    let log = |i| RaftNote::Log {
        last_term: 1,
        last_index: i,
    };
    let logs = [
        n(1, 0, "nodo-1", log(5)),
        n(2, 0, "nodo-2", log(5)),
        n(3, 0, "nodo-3", log(3)),
    ];
    let mut ok = logs.to_vec();
    ok.push(n(4, 1, "nodo-1", leader(1, 1, 5)));
    assert!(run(&mut LeaderLogUpToDate::default(), &ok).is_empty());
    let mut bad = logs.to_vec();
    bad.push(n(4, 1, "nodo-3", leader(1, 1, 3)));
    let errors = run(&mut LeaderLogUpToDate::default(), &bad);
    assert!(errors[0].contains("nodo-1 (1,5)"), "{errors:?}");
}

// Goal: the higher-term rule's checker. Method: a Send of term 4 delivered to a node at term 2,
// followed (next step) by nothing, versus by a TermChanged in the same step. Proves: keeping the
// lower term is caught at the next step; adopting it is fine.
#[test]
fn adopt_higher_term_on_records() {
    let send = rec(
        1,
        1,
        Event::Send {
            id: MsgId(1),
            from: sim_core::Name::from("nodo-3"),
            to: sim_core::Name::from("nodo-1"),
            msg: RaftMsg::AppendEntriesReply {
                term: 4,
                success: false,
                match_index: 0,
                last_log_index: 0,
                rejected: 0,
            },
        },
    );
    let deliver = rec(
        2,
        2,
        Event::Deliver {
            id: MsgId(1),
            from: sim_core::Name::from("nodo-3"),
            to: sim_core::Name::from("nodo-1"),
            msg_kind: "AppendEntriesReply".into(),
        },
    );
    let at2 = n(
        0,
        0,
        "nodo-1",
        RaftNote::Started {
            current_term: 2,
            voted_for: None,
        },
    );
    let adopted = n(2, 2, "nodo-1", RaftNote::TermChanged { from: 2, to: 4 });
    let later = rec(3, 3, Event::Fault { fault: Fault::Heal });
    let ok = [
        at2.clone(),
        send.clone(),
        deliver.clone(),
        adopted,
        later.clone(),
    ];
    assert!(run(&mut AdoptHigherTerm::default(), &ok).is_empty());
    let bad = [at2, send, deliver, later];
    let errors = run(&mut AdoptHigherTerm::default(), &bad);
    assert!(errors[0].contains("kept its term 2"), "{errors:?}");
}

// Goal: the liveness bound. Method: bound 300 ms; a leader at 200 ms after start; it pauses at
// 1 s and the next leader comes at 1.2 s (fine), or never (caught at the end).
// Proves: windows are measured from the last fault and a missing leader is reported.
#[test]
fn leader_within_bound_on_records() {
    let tc = |to| RaftNote::TermChanged { from: to - 1, to };
    let base = [
        n(1, 150, "nodo-1", tc(1)),
        n(2, 200, "nodo-1", leader(1, 1, 5)),
        rec(
            3,
            1000,
            Event::Fault {
                fault: Fault::Pause(sim_core::Name::from("nodo-1")),
            },
        ),
        n(4, 1150, "nodo-2", tc(2)),
    ];
    let mut ok = base.to_vec();
    ok.push(n(5, 1200, "nodo-2", leader(2, 1, 5)));
    assert!(run(&mut LeaderWithin::new(Duration::from_millis(300)), &ok).is_empty());
    let errors = run(&mut LeaderWithin::new(Duration::from_millis(300)), &base);
    assert!(
        errors[0].contains("after the last fault at 1.000s"),
        "{errors:?}"
    );
}

fn stored(leader: &str, kept: u64, dropped: u64, terms: &[u64]) -> RaftNote {
    RaftNote::Stored {
        leader: leader.into(),
        kept,
        dropped,
        entries: terms.iter().map(|&t| Entry::given(t)).collect(),
    }
}

// Goal: with replication, the stale-leader check reads the logs as they are now, not as they
// were at start. Method: five nodes; a and d start at (2,4), b, c and e at (2,2); b leads
// term 3, repairs a and d down to (2,2), appends (3,3) and restarts (its start note says
// (3,3)); c then leads term 4 with log (2,2). Proves: no violation (only b is ahead of c),
// though the start notes alone put a, d and b ahead; a leader whose log really is behind a
// majority (b at (3,3) after c gave three logs (4,4)) is still caught.
#[test]
fn the_stale_leader_check_follows_logs_as_they_change() {
    let mut check = LeaderLogUpToDate::default();
    let mut step = 0;
    let mut feed = |check: &mut LeaderLogUpToDate, node: &str, note: RaftNote| {
        step += 1;
        check.observe(&n(step, step, node, note))
    };
    for (node, terms) in [
        ("a", vec![1, 2, 2, 2]),
        ("b", vec![1, 2]),
        ("c", vec![1, 2]),
        ("d", vec![1, 2, 2, 2]),
        ("e", vec![1, 2]),
    ] {
        let last = LastEntry {
            term: 2,
            index: terms.len() as u64,
        };
        feed(
            &mut check,
            node,
            RaftNote::Log {
                last_term: last.term,
                last_index: last.index,
            },
        )
        .unwrap();
        feed(&mut check, node, RaftNote::Entries { terms }).unwrap();
    }
    feed(&mut check, "b", leader(3, 2, 2)).unwrap();
    feed(&mut check, "a", stored("b", 2, 2, &[])).unwrap();
    feed(&mut check, "d", stored("b", 2, 2, &[])).unwrap();
    let appended = RaftNote::Appended {
        index: 3,
        entry: Entry::given(3),
    };
    feed(&mut check, "b", appended).unwrap();
    let restarted = RaftNote::Log {
        last_term: 3,
        last_index: 3,
    };
    feed(&mut check, "b", restarted).unwrap();
    assert_eq!(feed(&mut check, "c", leader(4, 2, 2)), Ok(()));
    feed(&mut check, "a", stored("c", 2, 0, &[4, 4])).unwrap();
    feed(&mut check, "d", stored("c", 2, 0, &[4, 4])).unwrap();
    feed(&mut check, "e", stored("c", 2, 0, &[4, 4])).unwrap();
    let err = feed(&mut check, "b", leader(5, 3, 3)).unwrap_err().text;
    assert!(err.contains("b leads term 5 with log (3,3)"), "{err}");
}

// Goal: leader completeness also binds a leader of a higher term elected before an older
// term's commit is noted. Method: s2 leads term 3 with [1]; then s1, still leading term 2 in
// its own view, notes entry 2 (of term 2) committed in term 2. Proves: the sitting leader of
// term 3, lacking entry 2, is reported at the commit.
#[test]
fn leader_completeness_binds_a_leader_elected_before_the_commit() {
    use super::log_invariants::LeaderCompleteness;
    let mut check = LeaderCompleteness::default();
    let records = [
        n(1, 1, "s1", RaftNote::Entries { terms: vec![1] }),
        n(2, 2, "s2", RaftNote::Entries { terms: vec![1] }),
        n(3, 3, "s1", leader(2, 1, 1)),
        n(
            4,
            4,
            "s1",
            RaftNote::Appended {
                index: 2,
                entry: Entry::given(2),
            },
        ),
        n(5, 5, "s2", leader(3, 1, 1)),
    ];
    for r in &records {
        check.observe(r).unwrap();
    }
    let commit = n(
        6,
        6,
        "s1",
        RaftNote::Committed {
            index: 2,
            term: 2,
            by: None,
        },
    );
    let err = check.observe(&commit).unwrap_err().text;
    assert!(err.contains("s2, leader of term 3, lacks entry 2"), "{err}");
}

// Goal: the lesson's way of counting votes, as a setting. Method: nodo-1 stands in term 1
// with `count_votes: AfterAllReplies`; nodo-2 grants, then nodo-3 (down) never answers until
// its RPC timeout fires; a second run where nodo-3 refuses instead. Proves: a majority alone
// does not make it leader while an answer is pending; the timeout (or the refusal) closes the
// count and it leads with the votes it has; at-majority counting leads at nodo-2's vote.
#[test]
fn after_all_replies_counts_once_every_request_is_answered_or_timed_out() {
    let mut config = RaftConfig::lesson();
    config.count_votes = config::CountVotes::AfterAllReplies;
    let grant = RaftMsg::RequestVoteReply {
        term: 1,
        vote_granted: true,
    };
    let (mut n1, mut t) = node(&config, N1);
    n1.on_timer(&mut t.ctx(), RaftTimer::Election);
    n1.on_message(&mut t.ctx(), N2, grant.clone());
    assert_eq!(n1.server().unwrap().role(), Role::Candidate);
    // Requests are numbered in the order sent: nodo-2's is 0, nodo-3's is 1.
    t.take();
    n1.on_timer(&mut t.ctx(), RaftTimer::Rpc { peer: N3, seq: 1 });
    assert_eq!(n1.server().unwrap().role(), Role::Leader);
    assert!(notes(&t.take()).contains(&RaftNote::BecameLeader {
        term: 1,
        votes: 2,
        last_log: LastEntry { term: 1, index: 5 },
    }));

    let (mut n1, mut t) = node(&config, N1);
    n1.on_timer(&mut t.ctx(), RaftTimer::Election);
    n1.on_message(&mut t.ctx(), N2, grant.clone());
    let refusal = RaftMsg::RequestVoteReply {
        term: 1,
        vote_granted: false,
    };
    n1.on_message(&mut t.ctx(), N3, refusal);
    assert_eq!(n1.server().unwrap().role(), Role::Leader);

    config.count_votes = config::CountVotes::AtMajority;
    let (mut n1, mut t) = node(&config, N1);
    n1.on_timer(&mut t.ctx(), RaftTimer::Election);
    n1.on_message(&mut t.ctx(), N2, grant);
    assert_eq!(n1.server().unwrap().role(), Role::Leader);
}

// Goal: a node that refuses because it voted for itself says so (issue 21's review: "ya voté a
// nodo-1" from nodo-1 read as someone else's vote). Method: the deny line for a vote held by
// the voter itself, and for one held by another node. Proves: the first reads as a self-vote
// in both languages; the second still names whom it voted for.
#[test]
fn a_refusal_for_a_vote_given_to_itself_reads_as_a_self_vote() {
    use super::narrate::deny_line;
    let own = DenyReason::AlreadyVoted {
        voted_for: "nodo-1".into(),
    };
    let es = deny_line("nodo-1", "nodo-2", &own, true);
    assert_eq!(
        es,
        "nodo-1: DENIEGO voto a nodo-2 (ya me voté a mí mismo en este término)"
    );
    assert!(deny_line("nodo-1", "nodo-2", &own, false).contains("voted for itself"));
    let other = DenyReason::AlreadyVoted {
        voted_for: "nodo-3".into(),
    };
    assert!(deny_line("nodo-1", "nodo-2", &other, true).contains("ya voté a nodo-3"));
}
