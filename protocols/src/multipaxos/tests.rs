//! Multi-Paxos's own tests: the config checks, the invariants on hand-made records (a
//! sequence that breaks each, and a close one that does not), the handlers' rules (recovery
//! adopts the highest ballot per slot, a lower ballot is refused, the commit point checks the
//! ballot) and whole runs through the kernel.

use super::config::validate;
use super::invariants::{
    AppliedOnlyIfChosen, AppliedPrefixesAgree, OneValuePerSlot, Phase2AfterPhase1,
};
use super::msg::MultiPaxosMsg;
use super::node::Role;
use super::*;
use sim_core::{
    Effect, Event, Harness, Instant, Invariant, Limits, NodeId, Record, SimConfig, TestContext,
};

fn nodes() -> Vec<String> {
    vec!["n1".into(), "n2".into(), "n3".into()]
}

fn config() -> MultiPaxosConfig {
    MultiPaxosConfig {
        nodes: nodes(),
        election: Election::Fixed("n1".into()),
        heartbeat_ms: 20,
        phase_timeout_ms: 50,
        round_multiplier: 10,
        clients: Vec::new(),
        client_retry_ms: 100,
        reads: crate::kvstore::Reads::ThroughLog,
        bugs: Bugs::default(),
    }
}

fn note(node: &str, note: MultiPaxosNote) -> Record<MultiPaxosNode> {
    Record {
        step: 1,
        time: Instant::ZERO,
        event: Event::Note {
            node: sim_core::Name::from(node),
            note,
        },
    }
}

fn accepted(node: &str, b: u64, slot: u64, value: &str) -> Record<MultiPaxosNode> {
    note(
        node,
        MultiPaxosNote::Accepted {
            b,
            slot,
            value: value.into(),
        },
    )
}

fn applied(node: &str, slot: u64, value: &str) -> Record<MultiPaxosNode> {
    note(
        node,
        MultiPaxosNote::Applied {
            slot,
            value: value.into(),
        },
    )
}

/// Feeds `records` to `invariant`; the first explanation of a violation, if any.
fn judge(
    mut invariant: impl Invariant<MultiPaxosNode>,
    records: &[Record<MultiPaxosNode>],
) -> Option<String> {
    records
        .iter()
        .find_map(|r| invariant.observe(r).err())
        .map(|b| b.text)
}

#[test]
fn bad_configs_are_refused_with_the_fix() {
    assert!(validate(&config()).is_empty());
    let mut c = config();
    c.nodes.push("n1".into());
    assert!(
        validate(&c)
            .iter()
            .any(|p| p.message.contains("used twice"))
    );
    let mut c = config();
    c.election = Election::Fixed("n9".into());
    assert!(
        validate(&c)
            .iter()
            .any(|p| p.message.contains("not one of the nodes"))
    );
    let mut c = config();
    c.election = Election::Timeout(10, 5);
    assert!(
        validate(&c)
            .iter()
            .any(|p| p.message.contains("min <= max"))
    );
    let mut c = config();
    c.election = Election::Timeout(15, 30);
    assert!(
        validate(&c)
            .iter()
            .any(|p| p.message.contains("heartbeat_ms"))
    );
    let mut c = config();
    c.nodes = (1..=10).map(|i| format!("n{i}")).collect();
    assert!(validate(&c).iter().any(|p| p.message.contains("collide")));
    c.round_multiplier = 100;
    assert!(validate(&c).is_empty());
}

#[test]
fn one_value_per_slot_fires_on_a_second_majority_only() {
    let two_values = [
        accepted("n1", 11, 1, "a"),
        accepted("n2", 11, 1, "a"),
        accepted("n2", 22, 1, "b"),
        accepted("n3", 22, 1, "b"),
    ];
    let text = judge(OneValuePerSlot::new(&nodes()), &two_values).unwrap();
    assert!(text.contains("two values chosen in entry 1: 'a'"), "{text}");
    // The same value again at a higher ballot, or another slot: fine.
    let fine = [
        accepted("n1", 11, 1, "a"),
        accepted("n2", 11, 1, "a"),
        accepted("n2", 22, 1, "a"),
        accepted("n3", 22, 1, "a"),
        accepted("n2", 22, 2, "b"),
        accepted("n3", 22, 2, "b"),
    ];
    assert_eq!(judge(OneValuePerSlot::new(&nodes()), &fine), None);
}

#[test]
fn applied_only_if_chosen_needs_a_majority_for_that_value() {
    let early = [accepted("n1", 11, 1, "a"), applied("n1", 1, "a")];
    let text = judge(AppliedOnlyIfChosen::new(&nodes()), &early).unwrap();
    assert!(
        text.contains("no majority has accepted anything there"),
        "{text}"
    );
    let other = [
        accepted("n1", 11, 1, "a"),
        accepted("n2", 11, 1, "a"),
        applied("n3", 1, "b"),
    ];
    let text = judge(AppliedOnlyIfChosen::new(&nodes()), &other).unwrap();
    assert!(text.contains("but 'a' was chosen there"), "{text}");
    let fine = [
        accepted("n1", 11, 1, "a"),
        accepted("n2", 11, 1, "a"),
        applied("n3", 1, "a"),
    ];
    assert_eq!(judge(AppliedOnlyIfChosen::new(&nodes()), &fine), None);
}

#[test]
fn applied_prefixes_agree_checks_order_and_values() {
    let gap = [applied("n1", 1, "a"), applied("n1", 3, "c")];
    let text = judge(AppliedPrefixesAgree::default(), &gap).unwrap();
    assert!(
        text.contains("applied entry 3 ('c') before entry 2"),
        "{text}"
    );
    let differ = [applied("n1", 1, "a"), applied("n2", 1, "b")];
    let text = judge(AppliedPrefixesAgree::default(), &differ).unwrap();
    assert!(text.contains("but n1 applied 'a' there"), "{text}");
    let fine = [
        applied("n1", 1, "a"),
        applied("n2", 1, "a"),
        applied("n1", 2, "b"),
    ];
    assert_eq!(judge(AppliedPrefixesAgree::default(), &fine), None);
}

#[test]
fn phase_2_needs_a_majority_of_promises_of_its_ballot() {
    let promised = |node: &str, b| note(node, MultiPaxosNote::Promised { b, reported: 0 });
    let proposed = note(
        "n1",
        MultiPaxosNote::Proposed {
            b: 11,
            slot: 1,
            value: "a".into(),
        },
    );
    let early = [promised("n1", 11), promised("n2", 12), proposed.clone()];
    let text = judge(Phase2AfterPhase1::new(&nodes()), &early).unwrap();
    assert!(text.contains("only n1 had promised 11"), "{text}");
    let fine = [promised("n1", 11), promised("n3", 11), proposed];
    assert_eq!(judge(Phase2AfterPhase1::new(&nodes()), &fine), None);
}

/// The effects' sends, as (receiver, message).
fn sends(effects: Vec<Effect<MultiPaxosNode>>) -> Vec<(NodeId, MultiPaxosMsg)> {
    effects
        .into_iter()
        .filter_map(|e| match e {
            Effect::Send { to, msg } => Some((to, msg)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_new_leader_adopts_the_highest_ballot_per_slot_and_fills_gaps() {
    let mut five = config();
    five.nodes = (1..=5).map(|i| format!("n{i}")).collect();
    let mut leader = Replica::from_config(&five, "n1");
    let mut t = TestContext::new(NodeId(0));
    leader.start_phase_1(&mut t.ctx());
    t.take();
    // n2 reports (5, 'old') in slot 1 and (7, 'x') in slot 3; n3 reports (9, 'new') in slot 1.
    leader.on_promise(
        &mut t.ctx(),
        NodeId(1),
        11,
        vec![(1, 5, "old".into()), (3, 7, "x".into())],
    );
    assert!(
        matches!(leader.role, Role::Preparing { .. }),
        "one promise short"
    );
    leader.on_promise(&mut t.ctx(), NodeId(2), 11, vec![(1, 9, "new".into())]);
    let Role::Leading { next, .. } = leader.role else {
        panic!("a majority of promises makes a leader: {:?}", leader.role);
    };
    assert_eq!(next, 4);
    let proposed: Vec<(u64, String)> = sends(t.take())
        .into_iter()
        .filter(|(to, _)| *to == NodeId(1))
        .filter_map(|(_, m)| match m {
            MultiPaxosMsg::Accept { slot, value, .. } => Some((slot, value.to_string())),
            _ => None,
        })
        .collect();
    assert_eq!(
        proposed,
        vec![(1, "new".into()), (2, "no-op".into()), (3, "x".into())]
    );
}

#[test]
fn a_lower_ballot_is_refused_and_a_commit_point_checks_the_ballot() {
    let mut n2 = Replica::from_config(&config(), "n2");
    let mut t = TestContext::new(NodeId(1));
    n2.on_message(
        &mut t.ctx(),
        NodeId(0),
        MultiPaxosMsg::Prepare { b: 21, from: 1 },
    );
    t.take();
    let accept = |b, value: &str| MultiPaxosMsg::Accept {
        b,
        slot: 1,
        value: value.into(),
        committed: 0,
    };
    n2.on_message(&mut t.ctx(), NodeId(2), accept(13, "old"));
    assert!(matches!(
        sends(t.take()).as_slice(),
        [(
            _,
            MultiPaxosMsg::Nack {
                b: 13,
                promised: 21
            }
        )]
    ));
    // Accepted at 21; a heartbeat of ballot 31 saying slot 1 is committed: not this value
    // necessarily, so n2 asks the leader rather than apply it.
    n2.on_message(&mut t.ctx(), NodeId(0), accept(21, "a"));
    t.take();
    n2.on_message(
        &mut t.ctx(),
        NodeId(0),
        MultiPaxosMsg::Heartbeat {
            b: 31,
            committed: 1,
        },
    );
    assert!(n2.learner.chosen.is_empty());
    assert!(
        sends(t.take())
            .iter()
            .any(|(_, m)| matches!(m, MultiPaxosMsg::CatchUp { from: 1 }))
    );
    // The bug knob takes it anyway.
    let mut c = config();
    c.bugs.commit_any_ballot = true;
    let mut buggy = Replica::from_config(&c, "n2");
    buggy.on_message(&mut t.ctx(), NodeId(0), accept(21, "a"));
    buggy.on_message(
        &mut t.ctx(),
        NodeId(0),
        MultiPaxosMsg::Heartbeat {
            b: 31,
            committed: 1,
        },
    );
    assert_eq!(buggy.applied_log(), vec![Value::from("a")]);
}

fn harness(config: MultiPaxosConfig) -> Harness<MultiPaxos> {
    Harness::new(
        config,
        SimConfig {
            limits: Limits {
                max_time: Instant::from_millis(300),
                ..Limits::default()
            },
            ..SimConfig::default()
        },
    )
}

#[test]
fn a_stable_leader_runs_phase_1_once_and_logs_in_order() {
    let mut h = harness(config());
    for (i, value) in ["a", "b", "c"].iter().enumerate() {
        let node = ["n1", "n2", "n3"][i];
        h.command(
            10 + 10 * i as u64,
            node,
            MultiPaxosCommand::Submit(value.to_string()),
        );
    }
    let run = h.run();
    assert!(run.violated().is_empty(), "{:?}", run.violated());
    let preparing = run
        .notes()
        .filter(|(_, _, n)| matches!(n, MultiPaxosNote::Preparing { .. }))
        .count();
    assert_eq!(preparing, 1);
    for node in nodes() {
        let log: Vec<String> = run
            .actor(&node)
            .replica()
            .expect("a replica")
            .applied_log()
            .iter()
            .map(|v| v.to_string())
            .collect();
        assert_eq!(log, ["a", "b", "c"], "{node}");
    }
}

#[test]
fn a_crashed_leader_is_replaced_by_timeout_and_nothing_is_lost() {
    let mut c = config();
    c.election = Election::Timeout(40, 80);
    c.heartbeat_ms = 10;
    for seed in 0..20 {
        let mut h = Harness::<MultiPaxos>::new(
            c.clone(),
            SimConfig {
                seed,
                limits: Limits {
                    max_time: Instant::from_millis(1_000),
                    ..Limits::default()
                },
                ..SimConfig::default()
            },
        );
        h.command(200, "n1", MultiPaxosCommand::Submit("a".into()))
            .command(200, "n2", MultiPaxosCommand::Submit("b".into()))
            .crash(250, "n1")
            .crash(250, "n2")
            .restart(300, "n2")
            .command(400, "n3", MultiPaxosCommand::Submit("c".into()))
            .restart(500, "n1");
        let run = h.run();
        assert!(
            run.violated().is_empty(),
            "seed {seed}: {:?}",
            run.violated()
        );
        let logs: Vec<Vec<Value>> = nodes()
            .iter()
            .filter_map(|n| run.actor(n).replica().map(Replica::applied_log))
            .collect();
        assert!(
            logs.windows(2).all(|w| w[0] == w[1]),
            "seed {seed}: {logs:?}"
        );
        assert!(
            logs[0].iter().any(|v| v.to_string() == "c"),
            "seed {seed}: {logs:?}"
        );
    }
}

// Goal: a replica serves key-value clients as the store needs. Method: n1 leads (phase 1 with
// n2's promise); a client's append arrives, then n2's accept; the same request again; then a
// follower gets the request. Proves: the leader proposes the request as an entry's value,
// applies it once chosen and answers the client (node 3) with its slot; the retry is answered
// at once from the state machine's table, not logged again; a follower names its leader.
#[test]
fn replicas_log_requests_answer_retries_from_the_table_and_redirect() {
    use crate::linearizability::KvOp;
    use std::sync::Arc;
    let mut c = config();
    c.clients = vec!["c1".into()];
    let mut n1 = Replica::from_config(&c, "n1");
    let mut t = TestContext::new(NodeId(0));
    n1.start_phase_1(&mut t.ctx());
    n1.on_promise(&mut t.ctx(), NodeId(1), 11, vec![]);
    t.take();
    let request = Arc::new(ClientRequest {
        client: "c1".into(),
        seq: 1,
        op: KvOp::Append("x".into(), "a".into()),
    });
    let ask = |request: &Arc<ClientRequest>| MultiPaxosMsg::Request {
        request: request.clone(),
    };
    n1.on_message(&mut t.ctx(), NodeId(3), ask(&request));
    let value = Value::Request(request.clone());
    let proposed = sends(t.take());
    assert!(
        proposed.iter().any(|(_, m)| matches!(
            m,
            MultiPaxosMsg::Accept { slot: 1, value: v, .. } if *v == value
        )),
        "{proposed:?}"
    );
    n1.on_message(
        &mut t.ctx(),
        NodeId(1),
        MultiPaxosMsg::Accepted {
            b: 11,
            slot: 1,
            value,
        },
    );
    let answered = |out: &[(NodeId, MultiPaxosMsg)]| {
        out.iter().any(|(to, m)| {
            *to == NodeId(3)
                && matches!(
                    m,
                    MultiPaxosMsg::Reply {
                        seq: 1,
                        slot: Some(1),
                        ..
                    }
                )
        })
    };
    assert!(answered(&sends(t.take())));
    assert_eq!(n1.kv.get("x"), Some("a"));
    n1.on_message(&mut t.ctx(), NodeId(3), ask(&request));
    let retry = sends(t.take());
    assert!(answered(&retry) && retry.len() == 1, "{retry:?}");
    assert_eq!(n1.kv.get("x"), Some("a"), "applied once");
    let mut n2 = Replica::from_config(&c, "n2");
    let mut t2 = TestContext::new(NodeId(1));
    n2.on_message(
        &mut t2.ctx(),
        NodeId(0),
        MultiPaxosMsg::Heartbeat {
            b: 11,
            committed: 0,
        },
    );
    t2.take();
    n2.on_message(&mut t2.ctx(), NodeId(3), ask(&request));
    assert!(matches!(
        sends(t2.take()).as_slice(),
        [(
            NodeId(3),
            MultiPaxosMsg::Reply {
                slot: None,
                leader: Some(NodeId(0)),
                ..
            }
        )]
    ));
}

// Goal: commands go to the right kind of node. Method: command_problem for a client's command
// sent to a replica (with and without clients) and a replica's sent to a client. Proves: each
// is refused with the fix; the right pairings pass.
#[test]
fn commands_to_the_wrong_kind_of_node_are_refused_with_the_fix() {
    use sim_core::Protocol;
    let mut c = config();
    let put = MultiPaxosCommand::Put("x".into(), "1".into());
    let none = MultiPaxos::command_problem(&c, "n1", &put).unwrap();
    assert!(none.contains("add clients: [\"c1\"]"), "{none}");
    c.clients = vec!["c1".into()];
    let replica = MultiPaxos::command_problem(&c, "n1", &put).unwrap();
    assert!(replica.contains("goes to a client (c1)"), "{replica}");
    let lead = MultiPaxos::command_problem(&c, "c1", &MultiPaxosCommand::Lead).unwrap();
    assert!(lead.contains("go to a replica (n1, n2, n3)"), "{lead}");
    assert_eq!(MultiPaxos::command_problem(&c, "c1", &put), None);
    let submit = MultiPaxosCommand::Submit("a".into());
    assert_eq!(MultiPaxos::command_problem(&c, "n2", &submit), None);
}
