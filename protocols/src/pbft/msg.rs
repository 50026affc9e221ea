//! The messages of PBFT's normal case and checkpoints (Castro and Liskov, OSDI 1999, section 4),
//! each signed by its sender (see [`crate::pbft::sign`]).
//!
//! Every phase has its own body type, so a signature on a prepare can never be passed off as a
//! commit. Views are in every message, so that the view change (part 2) fits without changing
//! them.

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
}

sim_core::message!(PbftMsg {
    Request,
    PrePrepare,
    Prepare,
    Commit,
    Reply,
    Checkpoint
});

/// The digest of a signed request: what pre-prepares, prepares and commits carry.
pub fn digest_of(request: &Signed<Request>) -> Digest {
    Digest::of(request)
}
