//! The coordination store (etcd, one node): leases with a TTL kept by its own clock, refresh and
//! revoke, the create-if-absent transaction, get, watch on delete, and a revision that grows
//! with every write.
//!
//! One node handling one message at a time is linearizable by construction: the lesson's etcd
//! gets that from Raft across three or five nodes, which is not what this lesson is about.
//! A lease's expiry is a timer on the store's clock, re-armed by every refresh; when it fires
//! (or the lease is revoked) the key attached to it is deleted, the revision grows, and every
//! watcher of the key hears of it.

use crate::lease::msg::{LeaseId, LeaseMsg, LeaseTimer, Revision};
use crate::lease::notes::LeaseNote;
use crate::lease::setup::{Ctx, Handler, Shared};
use sim_core::{Duration, Name, NodeId};
use std::collections::{BTreeMap, BTreeSet};

/// A key in the store.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Entry {
    value: Name,
    lease: LeaseId,
    mod_revision: Revision,
}

/// The store's state: all of it durable (etcd keeps it on disk).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Store {
    setup: Shared,
    revision: Revision,
    next_lease: LeaseId,
    /// Live leases and their holders.
    leases: BTreeMap<LeaseId, NodeId>,
    keys: BTreeMap<Name, Entry>,
    /// Who waits for each key's deletion.
    watchers: BTreeMap<Name, BTreeSet<NodeId>>,
}

impl Store {
    /// An empty store.
    pub fn new(setup: Shared) -> Store {
        Store {
            setup,
            revision: 1,
            next_lease: 1,
            leases: BTreeMap::new(),
            keys: BTreeMap::new(),
            watchers: BTreeMap::new(),
        }
    }

    /// The value of `key`, if it exists.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.keys.get(key).map(|e| e.value.as_str())
    }

    /// How long a lease lives by the store's clock (half of it with `early_expiry`).
    fn ttl(&self) -> Duration {
        let ttl = self.setup.ttl;
        if self.setup.bugs.early_expiry {
            Duration(ttl.0 / 2)
        } else {
            ttl
        }
    }

    /// After a restart (the kernel cancelled its timers): every live lease gets its full TTL
    /// again, as etcd extends leases when it recovers, rather than expiring while it was down.
    pub fn on_start<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        for &lease in self.leases.keys() {
            ctx.set_timer(LeaseTimer::Expire(lease), self.ttl());
        }
    }

    /// A message from a relay.
    pub fn on_message<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, from: NodeId, msg: LeaseMsg) {
        match msg {
            LeaseMsg::Grant { call, .. } => {
                let lease = self.next_lease;
                self.next_lease += 1;
                self.leases.insert(lease, from);
                ctx.set_timer(LeaseTimer::Expire(lease), self.ttl());
                ctx.send(from, LeaseMsg::Granted { call, lease });
            }
            LeaseMsg::KeepAlive { call, lease } => {
                let ttl_ms = if self.leases.contains_key(&lease) {
                    ctx.set_timer(LeaseTimer::Expire(lease), self.ttl());
                    self.setup.ttl.as_millis()
                } else {
                    0
                };
                ctx.send(from, LeaseMsg::KeepAliveReply { call, ttl_ms });
            }
            LeaseMsg::Revoke { lease } if self.leases.contains_key(&lease) => {
                ctx.cancel_timer(LeaseTimer::Expire(lease));
                self.end_lease(ctx, lease, true);
            }
            LeaseMsg::Txn {
                call,
                key,
                value,
                lease,
            } => {
                let free = !self.keys.contains_key(&key) && self.leases.contains_key(&lease);
                if free {
                    self.revision += 1;
                    ctx.note(LeaseNote::Created {
                        key: key.clone(),
                        holder: value.clone(),
                        revision: self.revision,
                    });
                    self.keys.insert(
                        key.clone(),
                        Entry {
                            value,
                            lease,
                            mod_revision: self.revision,
                        },
                    );
                }
                let revision = self.keys.get(&key).map_or(0, |e| e.mod_revision);
                ctx.send(
                    from,
                    LeaseMsg::TxnReply {
                        call,
                        succeeded: free,
                        revision,
                    },
                );
            }
            LeaseMsg::Get { call, key } => {
                let value = self.keys.get(&key).map(|e| e.value.clone());
                ctx.send(from, LeaseMsg::GetReply { call, value });
            }
            LeaseMsg::Watch { key } => {
                if self.keys.contains_key(&key) {
                    self.watchers.entry(key).or_default().insert(from);
                } else {
                    let revision = self.revision;
                    ctx.send(from, LeaseMsg::Deleted { key, revision });
                }
            }
            _ => {}
        }
    }

    /// A lease's timer: it expires.
    pub fn on_timer<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, timer: LeaseTimer) {
        if let LeaseTimer::Expire(lease) = timer
            && self.leases.contains_key(&lease)
        {
            self.end_lease(ctx, lease, false);
        }
    }

    /// Ends `lease`: its key is deleted (a new revision) and the key's watchers are told.
    fn end_lease<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, lease: LeaseId, revoked: bool) {
        self.leases.remove(&lease);
        let key = self
            .keys
            .iter()
            .find(|(_, e)| e.lease == lease)
            .map(|(k, _)| k.clone());
        let deleted = key.map(|key| {
            let entry = self.keys.remove(&key).expect("found above");
            self.revision += 1;
            (key, entry.value, self.revision)
        });
        ctx.note(LeaseNote::LeaseEnded {
            lease,
            revoked,
            deleted: deleted.clone(),
        });
        if let Some((key, _, revision)) = deleted {
            for watcher in self.watchers.remove(&key).unwrap_or_default() {
                ctx.send(
                    watcher,
                    LeaseMsg::Deleted {
                        key: key.clone(),
                        revision,
                    },
                );
            }
        }
    }
}
