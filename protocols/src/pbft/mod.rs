//! # PBFT: Practical Byzantine Fault Tolerance
//!
//! Paxos and Raft assume a node that fails goes quiet. A **Byzantine** node may instead lie:
//! tell different replicas different things, vote for what it never saw, replay old messages.
//! Castro and Liskov's PBFT (OSDI 1999) orders clients' requests on N >= 3f + 1 replicas so
//! that f Byzantine ones cannot make the correct ones disagree. This module follows the
//! signature-based protocol of the paper, sections 4.1 to 4.5: the normal case, checkpoints,
//! and the view change that replaces a faulty primary.
//!
//! ## Why 3f + 1
//!
//! A replica can wait for at most N - f answers (f may be silent), and f of those may be lies:
//! the honest ones must still outnumber them, N - 2f > f. With N = 3f + 1 a **quorum** is
//! 2f + 1, and any two quorums share f + 1 replicas, at least one of them correct
//! ([`PbftConfig::quorum`] gives the general size).
//!
//! ## The normal case
//!
//! A client signs ⟨REQUEST, o, t, c⟩ and sends it to the **primary** of the view (replica
//! v mod N). The primary assigns it the next sequence number n and multicasts
//! ⟨PRE-PREPARE, v, n, d⟩ with the request (d its digest). A backup accepts it if the primary
//! signed it, in its view, within the water marks, and it has accepted no other digest for
//! (v, n); then it multicasts ⟨PREPARE, v, n, d, i⟩. With the pre-prepare and 2f matching
//! prepares from different backups a replica is **prepared**: no correct replica can be
//! prepared for another request at (v, n). It multicasts ⟨COMMIT, v, n, d, i⟩; with 2f + 1
//! matching commits it is **committed-local**, which implies f + 1 correct replicas are
//! prepared, enough to carry the request into any later view. Replicas execute committed
//! requests in sequence order and reply; the client accepts a result with f + 1 matching
//! replies (one of them is correct). A client with no result in time sends the request to
//! every replica, which forward it to the primary.
//!
//! ## Checkpoints and water marks
//!
//! Every K requests a replica multicasts ⟨CHECKPOINT, n, d, i⟩ with the digest of its state;
//! 2f + 1 matching ones make the checkpoint **stable**: the log up to n is collected and the
//! low water mark h moves to n. Sequence numbers live in (h, h + L], so a faulty primary
//! cannot exhaust them.
//!
//! ## The view change
//!
//! A backup that waits too long for a request leaves the view with a VIEW-CHANGE carrying its
//! last stable checkpoint and a prepared certificate for every request prepared above it; the
//! next primary, with 2f + 1 of them, sends a NEW-VIEW that re-proposes every prepared request
//! at its number (the certificate of the highest view wins) and null requests in the gaps; the
//! backups check it against the view changes it carries and enter the view. Committed means
//! prepared at f + 1 correct replicas, so any 2f + 1 view changes carry it: nothing committed
//! is lost. Timeouts double on consecutive view changes, so the cluster settles in a view. See
//! [`view_change`].
//!
//! ## Authentication
//!
//! Every message is [`Signed`](sign::Signed) by its sender, and a node can sign only as itself
//! (by construction, see [`sign`]): a Byzantine replica can lie in its own messages, never in
//! another's.
//!
//! ## Byzantine replicas and bug knobs
//!
//! [`Behaviour`] lists what a Byzantine replica does (silent, equivocating, lying, replaying,
//! double-voting), per replica in the config; [`Bugs`] breaks one rule of the correct
//! replicas, each caught by an invariant ([`invariants`]).
//!
//! ## Map of the module
//!
//! [`sign`] (signatures, digests), [`msg`], [`service`] (the replicated key-value map),
//! [`replica`] (the correct replica), [`view_change`], [`byzantine`] (the deviations), [`client`], [`setup`] (what they share), [`node`] (the
//! actor), [`notes`], [`invariants`], [`config`], [`expect`], [`narrate`]; [`Pbft`] plugs it all
//! into scenarios.

pub mod byzantine;
pub mod client;
pub mod config;
pub mod expect;
pub mod invariants;
pub mod msg;
pub mod narrate;
pub mod node;
pub mod notes;
pub mod protocol;
pub mod replica;
pub mod service;
pub mod setup;
pub mod sign;
pub mod view_change;

#[cfg(test)]
mod tests;

pub use config::{Behaviour, Bugs, PbftConfig};
pub use expect::PbftExpect;
pub use msg::PbftMsg;
pub use node::PbftNode;
pub use notes::PbftNote;
pub use protocol::Pbft;
pub use service::Op;
pub use setup::PbftTimer;
