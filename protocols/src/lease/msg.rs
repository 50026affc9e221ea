//! What the relays, the store and the resource say to each other, and the timers they set.
//!
//! The store's calls are etcd's, as `relay_lider.py` uses them: `Grant` is `cliente.lease(TTL)`,
//! `KeepAlive` is `lease.refresh()`, `Revoke` is `lease.revoke()`, `Txn` is the transaction
//! "if version(key) == 0, put key = me with my lease", `Get` and `Watch` are `cliente.get` and
//! `cliente.watch` (a watch reports the key's deletion once). Every call but `Revoke` and
//! `Watch` carries the caller's call number, which its answer repeats, so a late answer to an
//! abandoned call is recognised and ignored.

use serde::{Deserialize, Serialize};
use sim_core::Name;

/// A lease's id at the store.
pub type LeaseId = u64;
/// The store's revision: it grows with every write; a key's `mod_revision` is the revision of
/// its last write, and the leader's fencing token.
pub type Revision = u64;

/// A message of the lease protocol.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LeaseMsg {
    /// Relay to store: grant me a lease with this TTL.
    Grant {
        /// The call's number at the relay.
        call: u64,
        /// Time to live, in ms.
        ttl_ms: u64,
    },
    /// Store to relay: the lease.
    Granted {
        /// The call's number.
        call: u64,
        /// The new lease.
        lease: LeaseId,
    },
    /// Relay to store: keep my lease alive (a refresh).
    KeepAlive {
        /// The call's number.
        call: u64,
        /// The lease.
        lease: LeaseId,
    },
    /// Store to relay: the lease's TTL after the refresh; 0 when the lease no longer exists.
    KeepAliveReply {
        /// The call's number.
        call: u64,
        /// The TTL left, in ms (the full TTL after a refresh), or 0.
        ttl_ms: u64,
    },
    /// Relay to store: end my lease now and delete its keys (no answer).
    Revoke {
        /// The lease.
        lease: LeaseId,
    },
    /// Relay to store: if `key` does not exist (version 0), create it with `value`, attached to
    /// `lease`.
    Txn {
        /// The call's number.
        call: u64,
        /// The key.
        key: Name,
        /// The value (the relay's name).
        value: Name,
        /// The lease to attach it to.
        lease: LeaseId,
    },
    /// Store to relay: whether the transaction's compare held, and the key's `mod_revision`
    /// after it (the winner's fencing token).
    TxnReply {
        /// The call's number.
        call: u64,
        /// Whether the key was created.
        succeeded: bool,
        /// The key's `mod_revision` now.
        revision: Revision,
    },
    /// Relay to store: the key's value.
    Get {
        /// The call's number.
        call: u64,
        /// The key.
        key: Name,
    },
    /// Store to relay: the key's value (`None`: absent).
    GetReply {
        /// The call's number.
        call: u64,
        /// The value.
        value: Option<Name>,
    },
    /// Relay to store: tell me when `key` is deleted (at once if it is absent now, so that a
    /// deletion between the `Get` and the `Watch` is not missed).
    Watch {
        /// The key.
        key: Name,
    },
    /// Store to watcher: `key` was deleted at `revision`.
    Deleted {
        /// The key.
        key: Name,
        /// The revision of the deletion.
        revision: Revision,
    },
    /// Leader to resource: one round of work's write. It carries the leader's token; the
    /// resource checks it only with fencing on.
    Write {
        /// The leader's round.
        round: u64,
        /// The leader's fencing token (its key's `mod_revision`).
        token: Revision,
    },
}

sim_core::message!(LeaseMsg {
    Grant,
    Granted,
    KeepAlive,
    KeepAliveReply,
    Revoke,
    Txn,
    TxnReply,
    Get,
    GetReply,
    Watch,
    Deleted,
    Write
});

/// A timer of the lease protocol.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LeaseTimer {
    /// Store: the lease expires (re-armed by each refresh).
    Expire(LeaseId),
    /// Relay: the pending call has had no answer in time.
    Rpc,
    /// Relay, leading: the next round of work starts.
    Round,
    /// Relay, leading: the round's work is done and its write goes out.
    WorkDone,
    /// Relay, leading: the safety net, last refresh + TTL - margin by its own clock.
    Deadline,
    /// Relay, waiting: read the key again, in case a deletion was missed (a watch lost on the
    /// way).
    Recheck,
    /// Relay: a call to the store failed; try again (a renewal period later).
    Retry,
}
