//! Unit tests of the store's rules, one call at a time, and of the config checks.

use crate::lease::config::{LeaseConfig, validate};
use crate::lease::msg::{LeaseMsg, LeaseTimer};
use crate::lease::node::LeaseNode;
use crate::lease::notes::LeaseNote;
use crate::lease::protocol::Lease;
use sim_core::actor::{notes_of, sends_of};
use sim_core::{Actor, NodeId, Protocol, TestContext};

fn config() -> LeaseConfig {
    ron::from_str(r#"(relays: ["relay-1", "relay-2"])"#).unwrap()
}

/// The store (node 0) after `calls`, each (from, message): what it sent and noted at the last.
fn store_after(
    calls: Vec<(u32, LeaseMsg)>,
) -> (LeaseNode, Vec<(NodeId, LeaseMsg)>, Vec<LeaseNote>) {
    let mut store = Lease::build(&config(), NodeId(0));
    let mut last = (Vec::new(), Vec::new());
    for (from, msg) in calls {
        let mut t = TestContext::<LeaseNode>::new(NodeId(0));
        store.on_message(&mut t.ctx(), NodeId(from), msg);
        let effects = t.take();
        last = (sends_of(&effects), notes_of(&effects));
    }
    (store, last.0, last.1)
}

fn txn(call: u64, value: &str, lease: u64) -> LeaseMsg {
    LeaseMsg::Txn {
        call,
        key: "/k".into(),
        value: value.into(),
        lease,
    }
}

/// Only the first of two transactions on a free key wins, and its token (the key's
/// mod_revision) is the store's new revision; the second sees the key taken.
#[test]
fn the_create_if_absent_transaction_has_one_winner() {
    let grant = |call| LeaseMsg::Grant {
        call,
        ttl_ms: 10_000,
    };
    let (_, sent, notes) = store_after(vec![
        (1, grant(1)),
        (2, grant(1)),
        (1, txn(2, "relay-1", 1)),
    ]);
    assert_eq!(
        sent,
        [(
            NodeId(1),
            LeaseMsg::TxnReply {
                call: 2,
                succeeded: true,
                revision: 2
            }
        )]
    );
    assert!(
        matches!(&notes[..], [LeaseNote::Created { holder, revision: 2, .. }] if holder == "relay-1")
    );
    let (store, sent, _) = store_after(vec![
        (1, grant(1)),
        (2, grant(1)),
        (1, txn(2, "relay-1", 1)),
        (2, txn(2, "relay-2", 2)),
    ]);
    assert_eq!(
        sent,
        [(
            NodeId(2),
            LeaseMsg::TxnReply {
                call: 2,
                succeeded: false,
                revision: 2
            }
        )]
    );
    assert_eq!(store.store().unwrap().get("/k"), Some("relay-1"));
}

/// A lease's expiry deletes its key at a new revision and tells the watchers; a refresh of an
/// ended lease answers TTL 0.
#[test]
fn expiry_deletes_the_key_and_tells_the_watchers() {
    let (mut store, _, _) = store_after(vec![
        (
            1,
            LeaseMsg::Grant {
                call: 1,
                ttl_ms: 10_000,
            },
        ),
        (1, txn(2, "relay-1", 1)),
        (2, LeaseMsg::Watch { key: "/k".into() }),
    ]);
    let mut t = TestContext::<LeaseNode>::new(NodeId(0));
    store.on_timer(&mut t.ctx(), LeaseTimer::Expire(1));
    let effects = t.take();
    assert_eq!(
        sends_of(&effects),
        [(
            NodeId(2),
            LeaseMsg::Deleted {
                key: "/k".into(),
                revision: 3
            }
        )]
    );
    assert_eq!(store.store().unwrap().get("/k"), None);
    let mut t = TestContext::<LeaseNode>::new(NodeId(0));
    store.on_message(
        &mut t.ctx(),
        NodeId(1),
        LeaseMsg::KeepAlive { call: 3, lease: 1 },
    );
    assert_eq!(
        sends_of(&t.take()),
        [(NodeId(1), LeaseMsg::KeepAliveReply { call: 3, ttl_ms: 0 })]
    );
}

/// A watch of an absent key fires at once, so a deletion between the read and the watch is
/// not missed.
#[test]
fn a_watch_of_an_absent_key_fires_at_once() {
    let (_, sent, _) = store_after(vec![(2, LeaseMsg::Watch { key: "/k".into() })]);
    assert_eq!(
        sent,
        [(
            NodeId(2),
            LeaseMsg::Deleted {
                key: "/k".into(),
                revision: 1
            }
        )]
    );
}

/// TTL 0, a renewal period or RPC timeout at or above the TTL, and oversized timings are
/// refused, each naming its field.
#[test]
fn impossible_timings_are_refused_with_the_field() {
    let refused = |edit: &dyn Fn(&mut LeaseConfig)| {
        let mut c = config();
        edit(&mut c);
        validate(&c)
            .into_iter()
            .map(|p| p.locate.unwrap_or_default())
            .collect::<Vec<_>>()
    };
    assert!(refused(&|_| {}).is_empty());
    assert!(refused(&|c| c.ttl_ms = 0).contains(&"ttl_ms".to_string()));
    assert!(refused(&|c| c.renew_every_ms = 10_000).contains(&"renew_every_ms".to_string()));
    assert!(refused(&|c| c.rpc_timeout_ms = 12_000).contains(&"rpc_timeout_ms".to_string()));
    assert!(refused(&|c| c.safety_margin_ms = 10_000).contains(&"safety_margin_ms".to_string()));
    assert!(refused(&|c| c.work_ms = 4_000_000).contains(&"work_ms".to_string()));
    assert!(refused(&|c| c.relays.push("etcd".into())).contains(&"\"etcd\"".to_string()));
}
