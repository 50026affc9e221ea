//! Handler and checker unit tests: handlers with `TestContext` (no kernel), invariants on
//! hand-made records, and validation.

use super::config::validate;
use super::invariants::{NoAckedWriteLost, ReadYourLatestAck};
use super::*;
use sim_core::{Actor, Effect, Event, Instant, Invariant, NodeId, Record, TestContext};

fn v(version: u64, value: &str) -> Versioned {
    Versioned {
        version,
        value: value.into(),
    }
}

fn store(req: u64, data: Versioned, hint_for: Option<NodeId>) -> RingMsg {
    RingMsg::Store {
        req,
        key: "usuario:7".into(),
        data,
        hint_for,
        repair: false,
        era: 0,
    }
}

fn sent(effects: &[Effect<RingNode>]) -> Vec<(NodeId, RingMsg)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Send { to, msg } => Some((*to, msg.clone())),
            _ => None,
        })
        .collect()
}

fn rec(step: u64, node: &str, note: RingNote) -> Record<RingNode> {
    Record {
        step,
        time: Instant::from_millis(step),
        event: Event::Note {
            node: node.into(),
            note,
        },
    }
}

// Goal: "gana la más nueva" (listing 9.16). Method: n1 gets v2 then a late v1. Proves: v2 is
// kept and noted once, v1 is ignored, and both are acked (the replica holds v1 or newer).
#[test]
fn storage_keeps_the_newest_version_and_acks_every_write() {
    let config = RingConfig::lesson();
    let coord = NodeId(6);
    let mut n1 = RingNode::new(&config, NodeId(1));
    let mut t = TestContext::new(NodeId(1));
    n1.on_message(&mut t.ctx(), coord, store(1, v(2, "Ada B."), None));
    n1.on_message(&mut t.ctx(), coord, store(2, v(1, "Ada"), None));
    let effects = t.take();
    let stored = effects
        .iter()
        .filter(|e| matches!(e, Effect::Note(RingNote::Stored { .. })))
        .count();
    assert_eq!(stored, 1);
    assert_eq!(n1.stored("usuario:7"), Some(&v(2, "Ada B.")));
    let acks: Vec<&Effect<RingNode>> = effects
        .iter()
        .filter(|e| {
            matches!(
                e,
                Effect::Send {
                    msg: RingMsg::StoreAck { .. },
                    ..
                }
            )
        })
        .collect();
    assert_eq!(acks.len(), 2);
}

fn acks(effects: &[Effect<RingNode>]) -> usize {
    sent(effects)
        .iter()
        .filter(|(_, m)| matches!(m, RingMsg::StoreAck { .. }))
        .count()
}

// Goal: the two fences of a replica. Method: n1 keeps v1 'Ada'; then gets v1 'Eve' (another
// value under the same version); then it learns of a join (era 1) and gets a Store written at
// era 0. Proves: the first is acked, the second is neither kept nor acked (a second owner
// cannot confirm a value under a version already given), and the stale-era write is neither
// kept nor acked (an owner that missed a handover cannot land writes).
#[test]
fn a_replica_refuses_a_second_value_and_a_write_from_an_earlier_era() {
    let mut config = RingConfig::lesson();
    config.spares = vec!["n6".into()];
    let coord = NodeId(7);
    let mut n1 = RingNode::new(&config, NodeId(1));
    let mut t = TestContext::new(NodeId(1));
    n1.on_message(&mut t.ctx(), coord, store(1, v(1, "Ada"), None));
    assert_eq!(acks(&t.take()), 1);
    n1.on_message(&mut t.ctx(), coord, store(2, v(1, "Eve"), None));
    assert_eq!(acks(&t.take()), 0, "equal version, other value: no ack");
    assert_eq!(n1.stored("usuario:7"), Some(&v(1, "Ada")));
    let join = map::Change::Join(NodeId(6));
    n1.on_message(
        &mut t.ctx(),
        coord,
        RingMsg::Rebalance {
            epoch: 1,
            change: join,
        },
    );
    t.take();
    n1.on_message(&mut t.ctx(), coord, store(3, v(2, "Ada B."), None));
    assert_eq!(acks(&t.take()), 0, "era 0 < era 1: fenced");
    assert_eq!(n1.stored("usuario:7"), Some(&v(1, "Ada")));
}

// Goal: the checkers key on (version, value). Method: hand-made records: v1 'a' confirmed,
// then v1 'b' confirmed; and a read that returns v1 'b' after v1 'a' was confirmed. Proves:
// `no-acked-write-lost` fires at the second confirmation; `read-your-latest-ack` fires at the
// read, though the version alone would pass.
#[test]
fn checkers_flag_two_values_under_one_version() {
    let acked = |value: &str| RingNote::Acked {
        key: "k".into(),
        version: 1,
        value: value.into(),
        by: vec!["n1".into()],
        standins: vec![],
        w: 1,
        home_sets: 1,
    };
    let mut lost = NoAckedWriteLost::default();
    assert!(lost.observe(&rec(1, "n0", acked("a"))).is_ok());
    assert!(
        lost.observe(&rec(2, "n0", acked("a"))).is_ok(),
        "same value"
    );
    let err = lost.observe(&rec(3, "n6", acked("b"))).unwrap_err().text;
    assert!(err.contains("'a'") && err.contains("'b'"), "{err}");
    let mut reads = ReadYourLatestAck::default();
    assert!(reads.observe(&rec(1, "n0", acked("a"))).is_ok());
    let started = RingNote::ReadStarted {
        req: 1,
        key: "k".into(),
    };
    assert!(reads.observe(&rec(2, "n0", started)).is_ok());
    let result = RingNote::ReadResult {
        req: 1,
        key: "k".into(),
        version: 1,
        value: "b".into(),
        from: vec!["n2".into()],
    };
    let err = reads.observe(&rec(3, "n0", result)).unwrap_err().text;
    assert!(err.contains("'a'") && err.contains("'b'"), "{err}");
}

// Goal: a stand-in's side of hinted handoff. Method: n3 gets a Store with `hint_for: n4`, then
// its retry timer fires, then n4's HandoffAck arrives. Proves: the write is kept as a hint (not
// in the store), the ack says `hinted`, the retry sends a Handoff to n4, and the ack drops the
// hint with a HintDelivered note.
#[test]
fn a_stand_in_keeps_a_hint_and_hands_it_over_until_acknowledged() {
    let config = RingConfig::lesson();
    let (coord, n4) = (NodeId(6), NodeId(4));
    let mut n3 = RingNode::new(&config, NodeId(3));
    let mut t = TestContext::new(NodeId(3));
    n3.on_message(&mut t.ctx(), coord, store(1, v(2, "Ada B."), Some(n4)));
    let effects = t.take();
    assert!(n3.stored("usuario:7").is_none());
    assert_eq!(n3.hint_count(), 1);
    assert!(sent(&effects).contains(&(
        coord,
        RingMsg::StoreAck {
            req: 1,
            hinted: true
        }
    )));
    n3.on_timer(&mut t.ctx(), RingTimer::HintRetry);
    let effects = t.take();
    assert!(sent(&effects).contains(&(
        n4,
        RingMsg::Handoff {
            key: "usuario:7".into(),
            data: v(2, "Ada B.")
        }
    )));
    let ack = RingMsg::HandoffAck {
        key: "usuario:7".into(),
        version: 2,
    };
    n3.on_message(&mut t.ctx(), n4, ack);
    assert_eq!(n3.hint_count(), 0);
    assert!(
        t.take()
            .iter()
            .any(|e| matches!(e, Effect::Note(RingNote::HintDelivered { version: 2, .. })))
    );
}

// Goal: the coordinator's quorum count. Method: a Put to the lesson's coordinator, then acks
// from its homes one at a time. Proves: the write goes to the three homes, is not confirmed at
// one ack, and is confirmed (one Acked note) at the second (W = 2).
#[test]
fn the_coordinator_confirms_at_w_home_acks() {
    let config = RingConfig::lesson();
    let coord = NodeId(6);
    let mut c = RingNode::new(&config, coord);
    let mut t = TestContext::new(coord);
    let put = RingCommand::Put {
        key: "usuario:7".into(),
        value: "Ada".into(),
    };
    c.on_command(&mut t.ctx(), put);
    let homes: Vec<NodeId> = t
        .take()
        .iter()
        .filter_map(|e| match e {
            Effect::Send { to, .. } => Some(*to),
            _ => None,
        })
        .collect();
    assert_eq!(homes, [NodeId(4), NodeId(1), NodeId(5)]);
    let ack = RingMsg::StoreAck {
        req: 1,
        hinted: false,
    };
    c.on_message(&mut t.ctx(), homes[0], ack.clone());
    assert!(t.take().is_empty(), "one ack is not a quorum");
    c.on_message(&mut t.ctx(), homes[1], ack);
    let acked: Vec<RingNote> = t
        .take()
        .into_iter()
        .filter_map(|e| match e {
            Effect::Note(n @ RingNote::Acked { .. }) => Some(n),
            _ => None,
        })
        .collect();
    assert_eq!(acked.len(), 1);
}

// Goal: `read-your-latest-ack` on hand-made records. Method: v2 acked, then a read that returns
// v1; and a read that started before the ack. Proves: the first fires, naming both versions; the
// second (concurrent with the write) does not.
#[test]
fn read_your_latest_ack_fires_only_for_reads_started_after_the_ack() {
    let acked = RingNote::Acked {
        key: "k".into(),
        version: 2,
        value: "b".into(),
        by: vec!["n1".into()],
        standins: vec![],
        w: 1,
        home_sets: 1,
    };
    let started = |req| RingNote::ReadStarted {
        req,
        key: "k".into(),
    };
    let result = |req| RingNote::ReadResult {
        req,
        key: "k".into(),
        version: 1,
        value: "a".into(),
        from: vec!["n4".into()],
    };
    let mut inv = ReadYourLatestAck::default();
    assert!(inv.observe(&rec(1, "coord", started(1))).is_ok());
    assert!(inv.observe(&rec(2, "coord", acked)).is_ok());
    assert!(
        inv.observe(&rec(3, "coord", result(1))).is_ok(),
        "concurrent read"
    );
    assert!(inv.observe(&rec(4, "coord", started(2))).is_ok());
    let err = inv.observe(&rec(5, "coord", result(2))).unwrap_err().text;
    assert!(err.contains("v2") && err.contains("v1"), "{err}");
}

// Goal: `no-acked-write-lost` on hand-made records. Method: v1 acked, held by n1 and n2; n1
// drops it, then n2 drops it. Proves: silent while a copy remains; fires at the last drop.
#[test]
fn no_acked_write_lost_fires_when_the_last_copy_goes() {
    let stored = |node: &str| RingNote::Stored {
        key: "k".into(),
        version: 1,
        node: node.into(),
        hinted: false,
        via: Via::Write,
    };
    let deleted = |node: &str| RingNote::Deleted {
        key: "k".into(),
        version: 1,
        node: node.into(),
    };
    let acked = RingNote::Acked {
        key: "k".into(),
        version: 1,
        value: "a".into(),
        by: vec!["n1".into(), "n2".into()],
        standins: vec![],
        w: 2,
        home_sets: 1,
    };
    let mut inv = NoAckedWriteLost::default();
    for (i, n) in [stored("n1"), stored("n2"), acked, deleted("n1")]
        .into_iter()
        .enumerate()
    {
        assert!(inv.observe(&rec(i as u64, "x", n)).is_ok());
    }
    assert!(inv.observe(&rec(9, "n2", deleted("n2"))).is_err());
    assert!(inv.finish(Instant::from_millis(10)).is_err());
}

// Goal: validation says how to fix a bad quorum. Method: W > RF, R = 0, RF > nodes, and
// R + W <= RF with and without `allow_stale_reads`. Proves: each is refused naming the field,
// and the stale quorum passes only when the scenario asks for it.
#[test]
fn validation_refuses_impossible_quorums_and_flags_stale_ones() {
    let located = |c: &RingConfig| -> Vec<String> {
        validate(c).into_iter().filter_map(|p| p.locate).collect()
    };
    let mut c = RingConfig::lesson();
    assert!(validate(&c).is_empty());
    c.w = 4;
    assert!(located(&c).contains(&"w".to_string()));
    c.w = 2;
    c.r = 0;
    assert!(located(&c).contains(&"r".to_string()));
    c.r = 2;
    c.rf = 7;
    assert!(located(&c).contains(&"rf".to_string()));
    c.rf = 3;
    (c.w, c.r) = (1, 1);
    assert_eq!(located(&c), ["r"]);
    c.allow_stale_reads = true;
    assert!(validate(&c).is_empty());
}

// Goal: an owner that took a key over learns its latest version before numbering. Method: with
// client c1, n4 (usuario:7's owner since epoch 0) gets a write request; n1 gets one after n4
// left and n1 cleaned up (n1 now owns the key), then R = 2 read replies, one of them v2.
// Proves: n4 sends Stores at once (no one else ever numbered the key); n1 first sends Reads to
// the key's homes and no Store, and after R replies numbers its write v3, past the v2 it never
// held.
#[test]
fn a_new_owner_reads_a_quorum_before_its_first_write() {
    let mut config = RingConfig::lesson();
    config.clients = vec!["c1".into()];
    let (n1, n4, n5, coord, c1) = (NodeId(1), NodeId(4), NodeId(5), NodeId(6), NodeId(7));
    let request = || RingMsg::Request {
        id: 1,
        key: "usuario:7".into(),
        value: Some("Eve".into()),
    };
    let kinds = |effects: &[Effect<RingNode>]| -> Vec<&'static str> {
        use sim_core::Message;
        sent(effects).iter().map(|(_, m)| m.kind()).collect()
    };
    let mut owner = RingNode::new(&config, n4);
    let mut t = TestContext::new(n4);
    owner.on_message(&mut t.ctx(), c1, request());
    assert_eq!(kinds(&t.take()), ["Store"; 3]);
    let mut heir = RingNode::new(&config, n1);
    let mut t = TestContext::new(n1);
    let leave = map::Change::Leave(n4);
    heir.on_message(
        &mut t.ctx(),
        coord,
        RingMsg::Rebalance {
            epoch: 1,
            change: leave,
        },
    );
    heir.on_message(&mut t.ctx(), coord, RingMsg::Cleanup { epoch: 1 });
    t.take();
    heir.on_message(&mut t.ctx(), c1, request());
    let effects = t.take();
    assert_eq!(kinds(&effects), ["Read"; 3], "a version read, no write yet");
    let reply = |data| RingMsg::ReadReply {
        req: 1,
        data,
        moved: false,
    };
    heir.on_message(&mut t.ctx(), n1, reply(None));
    assert!(!kinds(&t.take()).contains(&"Store"), "one reply is not R");
    heir.on_message(&mut t.ctx(), n5, reply(Some(v(2, "Ada B."))));
    let written: Vec<u64> = sent(&t.take())
        .iter()
        .filter_map(|(_, m)| match m {
            RingMsg::Store {
                data,
                repair: false,
                ..
            } => Some(data.version),
            _ => None,
        })
        .collect();
    assert_eq!(written, [3; 3], "numbered past the quorum's v2");
}
