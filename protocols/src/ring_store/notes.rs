//! The facts the live ring publishes for checkers, expectations and the story.
//!
//! The checkers never look inside an actor, so every copy that appears or disappears is a note
//! (`Stored`, `Deleted`, `HintDelivered`), every promise to a client is a note (`Acked`), every
//! answer is a note (`ReadStarted`, `ReadResult`; an owner's read of the newest version before
//! numbering, `VersionRead`), and every map change is a note
//! (`OwnershipChanged`, `Split`, `RebalanceDone`). A client's view is published too: what it was
//! answered (`Answered`, `GaveUp`), each redirect (`Redirected`) and each map it learns
//! (`MapLearned`). Node names travel as text, so a trace file reads alone.

use serde::{Deserialize, Serialize};

/// How a copy reached a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Via {
    /// A coordinator's write.
    Write,
    /// A stand-in's hint, as a hint (`hinted`) or handed to its home.
    Handoff,
    /// Read repair of a stale replica.
    Repair,
    /// A rebalancing transfer.
    Stream,
}

/// A fact one node published.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RingNote {
    /// Coordinator: a write of `key` version `version` goes to its home replicas.
    WriteStarted {
        /// The key.
        key: String,
        /// Its new version.
        version: u64,
        /// The value.
        value: String,
        /// The home replicas it goes to.
        homes: Vec<String>,
    },
    /// Node: it now holds this version of `key` (`hinted`: as a stand-in for `home`).
    Stored {
        /// The key.
        key: String,
        /// The version kept.
        version: u64,
        /// The node keeping it.
        node: String,
        /// Whether it is a hint kept for another node.
        hinted: bool,
        /// How it got here.
        via: Via,
    },
    /// Coordinator: the write is confirmed to the client: `by` are the acks counted (W of them).
    Acked {
        /// The key.
        key: String,
        /// The version confirmed.
        version: u64,
        /// The value.
        value: String,
        /// The nodes whose acks counted.
        by: Vec<String>,
        /// Of those, the stand-ins (only under a sloppy quorum, or the bug).
        standins: Vec<String>,
        /// The W each set of homes needed (0 in traces written before it was recorded).
        #[serde(default)]
        w: u32,
        /// Sets of homes that each needed W acks: 2 while the ring moves (the old homes and
        /// the new ones, a joint quorum), else 1.
        #[serde(default = "one")]
        home_sets: u32,
    },
    /// Coordinator: a write could not reach W home replicas in time.
    WriteFailed {
        /// The key.
        key: String,
        /// The version.
        version: u64,
        /// Acks counted.
        acks: u32,
        /// Acks needed.
        needed: u32,
    },
    /// Coordinator: a home replica did not answer in time; `standin` keeps the write for it.
    HintSent {
        /// The key.
        key: String,
        /// The version.
        version: u64,
        /// The silent home replica.
        home: String,
        /// The stand-in.
        standin: String,
    },
    /// Stand-in: `home` acknowledged the handed-off write; the hint is gone.
    HintDelivered {
        /// The key.
        key: String,
        /// The version handed over.
        version: u64,
        /// The home replica.
        home: String,
        /// The stand-in (the node noting this).
        standin: String,
    },
    /// Coordinator: a read of `key` starts (request `req`).
    ReadStarted {
        /// The request.
        req: u64,
        /// The key.
        key: String,
    },
    /// Coordinator: the read's answer, the newest of R replies (version 0: not found).
    ReadResult {
        /// The request.
        req: u64,
        /// The key.
        key: String,
        /// The newest version among the replies.
        version: u64,
        /// Its value ("" if not found).
        value: String,
        /// The replicas whose replies were counted.
        from: Vec<String>,
    },
    /// Owner: before numbering its first write of `key` since it took the key over, it read R
    /// of the key's homes; `version` is the newest they hold, and the write numbers past it.
    VersionRead {
        /// The key.
        key: String,
        /// The newest version among the replies (0: none).
        version: u64,
        /// The replicas whose replies were counted.
        from: Vec<String>,
    },
    /// Coordinator: a read got fewer than R replies in time.
    ReadFailed {
        /// The request.
        req: u64,
        /// The key.
        key: String,
        /// Replies counted.
        got: u32,
        /// Replies needed.
        needed: u32,
    },
    /// Coordinator: `node` answered with an old version; it is sent the newest (read repair).
    Repairing {
        /// The key.
        key: String,
        /// The stale replica.
        node: String,
        /// What it had (0: nothing).
        had: u64,
        /// What it gets.
        version: u64,
    },
    /// Node: it dropped its copy of `key` (it no longer homes it after a rebalance).
    Deleted {
        /// The key.
        key: String,
        /// The version dropped.
        version: u64,
        /// The node.
        node: String,
    },
    /// Coordinator: the map moves to `epoch` by `change`; `members` is the new ring.
    OwnershipChanged {
        /// The new epoch.
        epoch: u64,
        /// "join n6" or "leave n2".
        change: String,
        /// The node joining or leaving.
        node: String,
        /// The members after the change.
        members: Vec<String>,
    },
    /// Source: `keys` keys (`bytes` bytes) of `epoch` were streamed and acknowledged, taking
    /// `took_ms` at the configured bandwidth.
    Streamed {
        /// The epoch.
        epoch: u64,
        /// Keys sent.
        keys: u64,
        /// Bytes sent.
        bytes: u64,
        /// Time from the `Rebalance` to the last ack, in ms.
        took_ms: u64,
    },
    /// Coordinator: every source finished; reads use the new map. `moved` counts the copies
    /// every old home sent (each streams what it holds, so a key goes once per old home);
    /// `required` the copies the change had to land (one per key and new home that lacked it);
    /// `share` an even split: the newcomer's (a join or a split) or the leaver's (a leave)
    /// fair share RF/N of the data.
    RebalanceDone {
        /// The epoch now in force.
        epoch: u64,
        /// Keys streamed in all.
        moved_keys: u64,
        /// Bytes streamed in all.
        moved_bytes: u64,
        /// Key copies the change had to land on new homes.
        required_keys: u64,
        /// Bytes of those copies.
        required_bytes: u64,
        /// Key copies of one node's fair share (RF/N of the data).
        share_keys: u64,
        /// Bytes of that share.
        share_bytes: u64,
        /// Time from the change to the end, in ms.
        took_ms: u64,
    },
    /// Coordinator (dynamic scheme): the range `lo..=hi` holds `bytes` > `limit` bytes; it splits
    /// at `at` and the upper half goes to `to`, the least-loaded node.
    Split {
        /// The epoch the split makes.
        epoch: u64,
        /// The range's first hash.
        lo: u64,
        /// The range's last hash.
        hi: u64,
        /// The first hash of the upper half.
        at: u64,
        /// Keys in the range.
        keys: u64,
        /// Bytes in the range.
        bytes: u64,
        /// The threshold (`split_bytes`).
        limit: u64,
        /// The range's owner.
        from: String,
        /// The upper half's new owner.
        to: String,
    },
    /// Client: `node` does not own `key` in its map of `epoch` and names `to` (MOVED); the
    /// client updates its map for the key and retries there (`attempt` counts redirects).
    Redirected {
        /// The client.
        client: String,
        /// The key.
        key: String,
        /// The node that redirected.
        from: String,
        /// The owner it named.
        to: String,
        /// The epoch of the redirecting node's map.
        epoch: u64,
        /// Redirects of this request so far (1, 2, ...).
        attempt: u32,
    },
    /// Client: the partition map of `epoch` reached it; it routes by it from now on.
    MapLearned {
        /// The client.
        client: String,
        /// The epoch learned.
        epoch: u64,
    },
    /// Client: the answer to its request, from the owner `node`.
    Answered {
        /// The client.
        client: String,
        /// The key.
        key: String,
        /// Whether it was a write.
        write: bool,
        /// Whether the quorum was reached.
        ok: bool,
        /// The version written or read (0: not found).
        version: u64,
        /// The value read ("" for a write).
        value: String,
        /// The node that served it.
        node: String,
    },
    /// Client: it gave up a request (no answer in time, or too many redirects).
    GaveUp {
        /// The client.
        client: String,
        /// The key.
        key: String,
        /// Why.
        reason: String,
    },
    /// Coordinator: a command it could not carry out, and why.
    Refused {
        /// What was asked.
        command: String,
        /// Why not.
        reason: String,
    },
}

fn one() -> u32 {
    1
}
