//! The facts PBFT nodes publish for checkers, expectations and the story.
//!
//! Invariants read only these, never an actor's state, so `dsim check` judges a trace file with
//! the same code. Nodes are named (the record's node is the author); which replicas are
//! correct is the config's business, not the notes': a Byzantine replica's notes are ignored
//! by the checkers.

use crate::pbft::msg::{Seq, View};
use crate::pbft::service::{Op, OpResult};
use crate::pbft::sign::Digest;
use serde::{Deserialize, Serialize};

/// A fact one PBFT node published.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PbftNote {
    /// Client: sends request `timestamp` for `op` to `to` (the primary it believes in).
    Requested {
        /// The request's timestamp.
        timestamp: u64,
        /// The operation.
        op: Op,
        /// The replica it is sent to.
        to: String,
    },
    /// Client: no result in time, so the request goes to every replica.
    Retransmitted {
        /// The request's timestamp.
        timestamp: u64,
    },
    /// Client: f + 1 replicas sent the same result: the client accepts it.
    Accepted {
        /// The request's timestamp.
        timestamp: u64,
        /// The operation.
        op: Op,
        /// The result.
        result: OpResult,
        /// The replicas whose matching replies it counted.
        replies: Vec<String>,
    },
    /// Replica: a request from `client` went to the primary `to` (this replica is a backup).
    Forwarded {
        /// The client.
        client: String,
        /// The request's timestamp.
        timestamp: u64,
        /// The primary.
        to: String,
    },
    /// Replica: the pre-prepare (view, seq, digest) is in its log: as primary it assigned the
    /// number, as backup it accepted the primary's assignment.
    PrePrepared {
        /// The view.
        view: View,
        /// The sequence number.
        seq: Seq,
        /// The request's digest.
        digest: Digest,
        /// Who signed the pre-prepare.
        primary: String,
        /// Whether this replica issued it (as primary) rather than accepted it: a twin can
        /// accept a pre-prepare its other copy signed under their one name.
        #[serde(default)]
        issued: bool,
        /// The request's client.
        client: String,
        /// The request's timestamp.
        timestamp: u64,
        /// The operation.
        op: Op,
    },
    /// Replica: a pre-prepare it refused, and why.
    Refused {
        /// The pre-prepare's view.
        view: View,
        /// Its sequence number.
        seq: Seq,
        /// Who signed it.
        from: String,
        /// Why it was refused.
        why: Refusal,
    },
    /// Replica: prepared (view, seq, digest): the pre-prepare and `prepares` matching prepares
    /// from different backups.
    Prepared {
        /// The view.
        view: View,
        /// The sequence number.
        seq: Seq,
        /// The request's digest.
        digest: Digest,
        /// Matching prepares counted.
        prepares: u32,
    },
    /// Replica: committed-local (view, seq, digest): prepared, and `commits` matching commits.
    Committed {
        /// The view.
        view: View,
        /// The sequence number.
        seq: Seq,
        /// The request's digest.
        digest: Digest,
        /// Matching commits counted.
        commits: u32,
    },
    /// Replica: executed request `seq` against the service and replied to the client. A
    /// request the client had already had executed (a replay) is not executed again:
    /// `again` is true and `result` is the cached reply's (sent again only when it is for
    /// this very timestamp).
    Executed {
        /// The sequence number.
        seq: Seq,
        /// The request's digest.
        digest: Digest,
        /// The client.
        client: String,
        /// The request's timestamp.
        timestamp: u64,
        /// The operation.
        op: Op,
        /// The result sent to the client.
        result: OpResult,
        /// The request had been executed before (a replayed assignment): not executed again.
        again: bool,
    },
    /// Replica: `checkpoints` matching checkpoint messages at `seq` make it stable: the log up
    /// to `seq` is collected, and the water marks move to `seq`..`seq + window`.
    CheckpointStable {
        /// The checkpoint's sequence number (the new low water mark).
        seq: Seq,
        /// The state's digest.
        state: Digest,
        /// Matching checkpoint messages counted.
        checkpoints: u32,
    },
    /// Replica: its request timer expired (or f + 1 replicas moved on): it leaves its view and
    /// asks for `view`, with its last stable checkpoint and the numbers it is prepared for.
    ViewChangeStarted {
        /// The view it moves to.
        view: View,
        /// Its last stable checkpoint.
        stable: Seq,
        /// The numbers it holds prepared certificates for.
        prepared: Vec<Seq>,
    },
    /// Replica: it entered `view`, whose primary derived these proposals (number and digest;
    /// the null digest for a gap) from the view changes of a quorum.
    NewViewEntered {
        /// The new view.
        view: View,
        /// Its primary.
        primary: String,
        /// The view changes the NEW-VIEW was built from.
        from: Vec<String>,
        /// What each number carries in the new view.
        proposals: Vec<(Seq, Digest)>,
        /// Numbers the NEW-VIEW carried that this replica's stable checkpoint already covers
        /// (a checkpoint that became stable during the view change): left out.
        #[serde(default)]
        covered: Vec<Seq>,
        /// Whether this replica built the NEW-VIEW (as the view's primary).
        #[serde(default)]
        built: bool,
    },
    /// Replica: a NEW-VIEW it refused, and why.
    NewViewRefused {
        /// The view it offered.
        view: View,
        /// Who signed it.
        from: String,
        /// What did not check out.
        why: String,
        /// The same in the course's Spanish (empty in traces written before it was kept).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        why_es: String,
    },
    /// Replica: executed the null request a new view put at `seq` (nothing happens).
    ExecutedNull {
        /// The sequence number.
        seq: Seq,
    },
    /// Replica: a client asked again, so it sent again what it had sent for the slots in its
    /// log (pre-prepares, prepares, commits) and its latest checkpoint.
    Resent {
        /// The sequence numbers of the slots.
        seqs: Vec<Seq>,
        /// Messages sent again (each to every other replica).
        messages: u32,
    },
    /// Replica: a Byzantine act, told in words for the story (the checkers ignore it).
    Byzantine {
        /// What it did.
        act: ByzantineAct,
    },
}

/// Why a replica refused a pre-prepare.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Refusal {
    /// The signer is not the primary of the pre-prepare's view.
    NotPrimary {
        /// The primary of that view.
        primary: String,
    },
    /// The replica already accepted another request at this view and sequence number.
    Conflicting {
        /// The digest it accepted.
        accepted: Digest,
        /// The digest offered now.
        offered: Digest,
    },
    /// The sequence number is outside the water marks.
    OutsideWindow {
        /// The low water mark h.
        low: Seq,
        /// The high water mark H.
        high: Seq,
    },
    /// The request's digest does not match the pre-prepare's, or its signer is no client.
    BadRequest,
    /// The pre-prepare is of another view than the replica's.
    OtherView {
        /// The replica's view.
        current: View,
    },
}

/// What a Byzantine replica did, for the story.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ByzantineAct {
    /// Sent `op` at `seq` to `to` only (an equivocating primary, or a backup posing as one).
    Equivocated {
        /// The sequence number.
        seq: Seq,
        /// The operation it assigned there.
        op: Op,
        /// The replicas told so.
        to: Vec<String>,
    },
    /// Voted for a digest nobody computed at `seq`.
    Lied {
        /// The sequence number.
        seq: Seq,
    },
    /// Voted prepare and commit for `digest` at `seq` without being prepared.
    DoubleVoted {
        /// The sequence number.
        seq: Seq,
        /// The digest voted for.
        digest: Digest,
    },
    /// Sent everyone an old message of `kind` again.
    Replayed {
        /// The message kind.
        kind: String,
    },
    /// Assigned an already assigned request again, at `seq`.
    Reassigned {
        /// The new sequence number.
        seq: Seq,
        /// The operation.
        op: Op,
    },
}
