//! What the live ring's nodes say to each other, the timers they set, and the commands a
//! scenario gives the coordinator.
//!
//! Replica traffic (`Store`/`StoreAck`, `Read`/`ReadReply`) is the lesson's `guardar`/`leer`
//! turned into messages; `Handoff` is hinted handoff; `Rebalance`, `Transfer`, `StreamDone` and
//! `Cleanup` are a membership change carried out over the network. `Request`, `Reply` and
//! `Moved` are a client's traffic with the node it believes owns a key; `MapUpdate` is the
//! partition map reaching the clients, late.

use crate::ring_store::map::Change;
use serde::{Deserialize, Serialize};
use sim_core::NodeId;

/// A stored value: the coordinator's per-key version and the text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Versioned {
    /// The key's version (1, 2, ...; 0 means "never written").
    pub version: u64,
    /// The value.
    pub value: String,
}

/// One key in a transfer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entry {
    /// The key.
    pub key: String,
    /// Its version and value.
    pub data: Versioned,
}

impl Entry {
    /// Bytes this entry costs on the wire: key, value and an 8-byte version.
    pub fn bytes(&self) -> u64 {
        (self.key.len() + self.data.value.len() + 8) as u64
    }
}

/// A message of the live ring.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RingMsg {
    /// Coordinator to a replica: keep this version (`hint_for`: as a stand-in for that home;
    /// `repair`: read repair of a stale replica).
    Store {
        /// The request's number at the coordinator.
        req: u64,
        /// The key.
        key: String,
        /// Version and value.
        data: Versioned,
        /// The home replica this stand-in keeps the write for, if any.
        hint_for: Option<NodeId>,
        /// Whether this is read repair (no ack expected).
        repair: bool,
        /// The writer's era (see `Coord::era`): a replica at a later era refuses the write,
        /// so an owner that has handed a key over cannot land writes after the handover.
        era: u64,
    },
    /// A replica (or stand-in) kept the write.
    StoreAck {
        /// The request's number.
        req: u64,
        /// Whether it was kept as a hint.
        hinted: bool,
    },
    /// Coordinator to a home replica: what do you have for `key`?
    Read {
        /// The request's number.
        req: u64,
        /// The key.
        key: String,
    },
    /// A replica's answer (`None`: nothing stored).
    ReadReply {
        /// The request's number.
        req: u64,
        /// What the replica holds.
        data: Option<Versioned>,
        /// The replica no longer homes the key (it cleaned up after a rebalance): the reader
        /// retries on its newer map instead of counting this reply.
        moved: bool,
    },
    /// Stand-in to a home replica: the write you missed while down.
    Handoff {
        /// The key.
        key: String,
        /// Version and value.
        data: Versioned,
    },
    /// The home replica kept the handed-off write.
    HandoffAck {
        /// The key.
        key: String,
        /// The version it kept (or had newer).
        version: u64,
    },
    /// Coordinator to the nodes of the old and new maps: the map changes; stream what you must.
    Rebalance {
        /// The new epoch.
        epoch: u64,
        /// The change that makes it.
        change: Change,
    },
    /// Source to destination: a chunk of keys the destination now owns.
    Transfer {
        /// The epoch being rebalanced to.
        epoch: u64,
        /// The chunk's number at the source.
        seq: u64,
        /// The keys.
        entries: Vec<Entry>,
    },
    /// The destination kept the chunk.
    TransferAck {
        /// The epoch.
        epoch: u64,
        /// The chunk's number.
        seq: u64,
    },
    /// Source to coordinator: every chunk I owed for `epoch` was acknowledged.
    StreamDone {
        /// The epoch.
        epoch: u64,
        /// Keys sent.
        keys: u64,
        /// Bytes sent.
        bytes: u64,
        /// Keys and bytes this node was the first old home of (the coordinator sums them into
        /// the data set's size, for the fair share: it does not see the clients' writes).
        owned: (u64, u64),
        /// Of those keys, the copies the change requires: one per key and new home that was
        /// not an old home (keys, bytes).
        required: (u64, u64),
    },
    /// Coordinator to the nodes: the move is over; drop the keys you no longer home. Resent
    /// until acknowledged.
    Cleanup {
        /// The epoch.
        epoch: u64,
    },
    /// A node cleaned up after `epoch` (or was already past it).
    CleanupAck {
        /// The epoch.
        epoch: u64,
    },
    /// Client to the node it believes owns `key`: write `value` (`Some`) or read it (`None`).
    Request {
        /// The request's number at the client.
        id: u64,
        /// The key.
        key: String,
        /// The value to write; `None` for a read.
        value: Option<String>,
    },
    /// Owner to client: the answer (`ok: false`: the quorum was not reached in time).
    Reply {
        /// The client's request number.
        id: u64,
        /// Whether the write was confirmed or the read reached R replies.
        ok: bool,
        /// The version written or read (0: not found).
        version: u64,
        /// The value read ("" for a write or not found).
        value: String,
    },
    /// A node to a client: I do not own `key` at `epoch`; `owner` does (Redis Cluster's MOVED).
    Moved {
        /// The client's request number.
        id: u64,
        /// The key.
        key: String,
        /// The epoch of the map the node answered from.
        epoch: u64,
        /// The key's owner in that map.
        owner: NodeId,
    },
    /// Coordinator to the clients: the partition map, as its log of changes.
    MapUpdate {
        /// Every change since epoch 0.
        log: Vec<Change>,
    },
    /// Client to coordinator: I route by the map of `epoch` (the push is resent until this).
    MapAck {
        /// The epoch the client holds.
        epoch: u64,
    },
}

sim_core::message!(RingMsg {
    Store,
    StoreAck,
    Read,
    ReadReply,
    Handoff,
    HandoffAck,
    Rebalance,
    Transfer,
    TransferAck,
    StreamDone,
    Cleanup,
    CleanupAck,
    Request,
    Reply,
    Moved,
    MapUpdate,
    MapAck,
});

/// Timers of the live ring.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RingTimer {
    /// Coordinator: replicas of request `req` that have not answered are taken as down.
    Request(u64),
    /// Stand-in: try handing hints to their home replicas again.
    HintRetry,
    /// Source: the current chunk has taken its time on the wire (bytes / bandwidth); send it.
    Pace,
    /// Source: chunk `seq` was not acknowledged in time; send it again.
    Resend(u64),
    /// Coordinator: the next operation of a `Load`.
    Load,
    /// Coordinator: ask the nodes that have not finished a rebalance (or its cleanup) again.
    RebalanceRetry,
    /// Coordinator: `map_delay_ms` after a rebalance ended, push the map to the clients (and
    /// again to those that have not acknowledged it).
    MapPush,
    /// Client: the next operation of a `Load`.
    ClientLoad,
    /// Client: request `id` got no answer in time.
    ClientTimeout(u64),
}

/// What a scenario tells the coordinator (or a client: `Put`, `Get` and `Load`) to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum RingCommand {
    /// Write `value` under `key` (the coordinator gives it the key's next version).
    Put {
        /// The key, e.g. "usuario:7".
        key: String,
        /// The value, e.g. "Ada".
        value: String,
    },
    /// Read `key` from R replicas and return the newest.
    Get {
        /// The key.
        key: String,
    },
    /// Put node `0` on the ring (a spare) and stream it its keys.
    Join(String),
    /// Take node `0` off the ring, streaming its keys to their new homes.
    Leave(String),
    /// A steady load: `ops` operations, one every `every_ms`, over keys "clave-0" ..
    /// "clave-(keys-1)": first a write of each key, then reads and writes in turn.
    Load {
        /// Distinct keys.
        keys: u32,
        /// Operations in all.
        ops: u32,
        /// Milliseconds between operations.
        every_ms: u64,
    },
}
