//! What the lease nodes publish: the facts the invariants, the expectations and the story read.

use crate::lease::msg::{LeaseId, Revision};
use serde::{Deserialize, Serialize};
use sim_core::Name;

/// Why a leader stopped leading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StepDown {
    /// Its refresh had no answer within the RPC timeout.
    RefreshTimedOut,
    /// Its refresh said the lease is gone (TTL 0).
    LeaseGone,
    /// Its safety net: last successful refresh + TTL - margin, by its own clock.
    Deadline,
    /// A clean shutdown: it revoked its lease.
    Shutdown,
}

/// A fact published by a lease node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LeaseNote {
    /// Relay: the store granted it a lease.
    Granted {
        /// The lease.
        lease: LeaseId,
    },
    /// Relay: its transaction won; it leads with this fencing token.
    Leads {
        /// The key it holds.
        key: Name,
        /// The key's `mod_revision`.
        token: Revision,
        /// Its lease.
        lease: LeaseId,
    },
    /// Relay: its transaction lost; `holder` leads (as the key read says), and it waits on a
    /// watch.
    Waits {
        /// The current leader, if the key still exists.
        holder: Option<Name>,
    },
    /// Relay: the key was deleted (or found absent): it races for it.
    Races,
    /// Relay: it stops leading.
    StepsDown {
        /// Why.
        why: StepDown,
    },
    /// Relay: a call to the store had no answer within the RPC timeout; it tries again after
    /// a renewal period.
    CallFailed {
        /// Which call: "grant", "txn", "get".
        call: String,
        /// When it tries again, in ms.
        retry_in_ms: u64,
    },
    /// Relay, leading: a refresh succeeded.
    Refreshed {
        /// The TTL the store reset the lease to, in ms.
        ttl_ms: u64,
    },
    /// Relay, leading, with `unchecked_refresh`: a refresh failed and it carries on.
    IgnoredRefresh,
    /// Store: a key was created for a holder.
    Created {
        /// The key.
        key: Name,
        /// Its value: the winner.
        holder: Name,
        /// Its `mod_revision`.
        revision: Revision,
    },
    /// Store: a lease ended, by expiry or revocation, deleting its key if it had one.
    LeaseEnded {
        /// The lease.
        lease: LeaseId,
        /// Whether it was revoked (else it expired).
        revoked: bool,
        /// The key deleted with it, its holder and the deletion's revision.
        deleted: Option<(Name, Name, Revision)>,
    },
    /// Resource: it accepted a write.
    Accepted {
        /// The writer.
        writer: Name,
        /// The write's token.
        token: Revision,
        /// The highest token it had accepted before (0: none).
        highest: Revision,
    },
    /// Resource, fencing: it rejected a write whose token is below the highest it has seen.
    Rejected {
        /// The writer.
        writer: Name,
        /// The write's token.
        token: Revision,
        /// The highest token it has accepted.
        highest: Revision,
    },
}
