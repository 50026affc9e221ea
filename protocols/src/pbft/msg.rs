//! The messages of PBFT's normal case and checkpoints (Castro and Liskov, OSDI 1999, section 4),
//! each signed by its sender (see [`crate::pbft::sign`]).
//!
//! Every phase has its own body type, so a signature on a prepare can never be passed off as a
//! commit. The view change (section 4.4) adds VIEW-CHANGE, with the prepared certificates a
//! replica holds, and NEW-VIEW, with the view changes it is built from.

use crate::pbft::service::{Op, OpResult};
use crate::pbft::sign::{Digest, Signed};
use serde::{Deserialize, Serialize};
use sim_core::NodeId;

/// A view number: the primary of view v is replica v mod N.
pub type View = u64;
/// A sequence number the primary assigns to a request.
pub type Seq = u64;

/// ⟨REQUEST, o, t, c⟩: client c asks for operation o; its timestamps grow, so a request is
/// executed at most once. The client is the signer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Request {
    /// The operation.
    pub op: Op,
    /// The client's timestamp (1, 2, 3 ...).
    pub timestamp: u64,
}

/// ⟨PRE-PREPARE, v, n, d⟩: the primary of view v assigns sequence number n to the request
/// with digest d.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PrePrepare {
    /// The view.
    pub view: View,
    /// The sequence number.
    pub seq: Seq,
    /// The request's digest.
    pub digest: Digest,
}

/// ⟨PREPARE, v, n, d, i⟩: backup i accepted the pre-prepare (v, n, d). i is the signer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Prepare {
    /// The view.
    pub view: View,
    /// The sequence number.
    pub seq: Seq,
    /// The request's digest.
    pub digest: Digest,
}

/// ⟨COMMIT, v, n, d, i⟩: replica i is prepared for (v, n, d). i is the signer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Commit {
    /// The view.
    pub view: View,
    /// The sequence number.
    pub seq: Seq,
    /// The request's digest.
    pub digest: Digest,
}

/// ⟨REPLY, v, t, c, i, r⟩: replica i executed client c's request t with result r in view v.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Reply {
    /// The replica's view (the client learns the primary from it).
    pub view: View,
    /// The request's timestamp.
    pub timestamp: u64,
    /// The client.
    pub client: NodeId,
    /// The result.
    pub result: OpResult,
}

/// ⟨CHECKPOINT, n, d, i⟩: replica i's service state after executing request n has digest d.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The sequence number executed last.
    pub seq: Seq,
    /// The digest of the state then.
    pub state: Digest,
}

/// A prepared certificate: a pre-prepare (with its request, so that a new primary can
/// propose it again) and 2f matching prepares from different backups, all signed by their
/// senders, so that whoever receives it can check it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Certificate {
    /// The pre-prepare, signed by the primary of its view.
    pub pre_prepare: Signed<PrePrepare>,
    /// Its request, signed by the client (none: a new view's null request).
    pub request: Option<Signed<Request>>,
    /// The matching prepares.
    pub prepares: Vec<Signed<Prepare>>,
}

/// ⟨VIEW-CHANGE, v+1, n, C, P, i⟩: replica i moves to view v+1; n is its last stable
/// checkpoint, C the 2f + 1 checkpoint messages that prove it, P a certificate for every
/// request prepared at i above n.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ViewChange {
    /// The view it moves to.
    pub view: View,
    /// Its last stable checkpoint's sequence number (0: none yet).
    pub stable: Seq,
    /// The checkpoint messages that make it stable (empty for 0).
    pub proof: Vec<Signed<Checkpoint>>,
    /// A certificate for every request prepared above `stable`.
    pub prepared: Vec<Certificate>,
}

/// One entry of a NEW-VIEW's O: a pre-prepare of the new view, with its request, or with none
/// for a null request that fills a gap.
pub type Proposal = (Signed<PrePrepare>, Option<Signed<Request>>);

/// ⟨NEW-VIEW, v+1, V, O⟩: the primary of view v+1 with the 2f + 1 view-change messages V it
/// used and the pre-prepares O it derived from them, which every replica can check.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NewView {
    /// The new view.
    pub view: View,
    /// The view-change messages it is built from.
    pub view_changes: Vec<Signed<ViewChange>>,
    /// The pre-prepares for the numbers between the latest stable checkpoint in V and the
    /// highest prepared number in V.
    pub pre_prepares: Vec<Proposal>,
}

/// One PBFT message.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PbftMsg {
    /// Client to the primary (or, after a timeout, to every replica; a backup forwards it).
    Request(Signed<Request>),
    /// Primary to backups: the assignment, with the request itself.
    PrePrepare(Signed<PrePrepare>, Signed<Request>),
    /// Backup to every other replica.
    Prepare(Signed<Prepare>),
    /// Replica to every other replica.
    Commit(Signed<Commit>),
    /// Replica to client.
    Reply(Signed<Reply>),
    /// Replica to every other replica, every K requests.
    Checkpoint(Signed<Checkpoint>),
    /// Replica to every other replica, when its request timer expires.
    ViewChange(Signed<ViewChange>),
    /// The new view's primary to every other replica.
    NewView(Signed<NewView>),
}

sim_core::message!(PbftMsg {
    Request,
    PrePrepare,
    Prepare,
    Commit,
    Reply,
    Checkpoint,
    ViewChange,
    NewView
});

/// The digest of a signed request: what pre-prepares, prepares and commits carry.
pub fn digest_of(request: &Signed<Request>) -> Digest {
    Digest::of(request)
}

/// The digest of the null request a new view puts in a gap (executing it does nothing).
pub const NULL: Digest = Digest(0);

/// The digest of a proposal's request, or [`NULL`].
pub fn digest_or_null(request: &Option<Signed<Request>>) -> Digest {
    request.as_ref().map_or(NULL, digest_of)
}
