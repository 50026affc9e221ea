//! The messages of Multi-Paxos: single-decree Paxos's phases, per log slot, plus what a log
//! needs around them (heartbeats that carry the commit point, catch-up of a lagging replica,
//! a client's value forwarded to the leader).
//!
//! Phase 1 (`Prepare` / `Promise`) covers every slot from `from` on at once: that is the whole
//! point of Multi-Paxos. Phase 2 (`Accept` / `Accepted`) runs once per slot. This module only
//! describes payloads; who sends what is `node` and `leader`.

use crate::kvstore::Answer;
use crate::linearizability::{KvMap, KvOp, Spec};
use serde::{Deserialize, Serialize};
use sim_core::{Name, NodeId};
use std::fmt;
use std::sync::Arc;

/// A ballot (a proposal number): `round * multiplier + node id`, unique per node and round.
pub type Ballot = u64;

/// A log position, from 1.
pub type Slot = u64;

/// A log entry's value: a text given to a replica (the lessons' `Submit("x")`, and the no-op
/// of a gap), or a client's request to the key-value store. Either is copied by pointer into
/// every message, acceptor and learner that holds it. A text is written in a trace as the
/// plain string it always was; a request as its fields.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// A text: interned (see [`sim_core::Name`]); the same text twice is one command.
    Text(Name),
    /// A client's request: two requests are one only if client and number match.
    Request(Arc<ClientRequest>),
}

impl From<&str> for Value {
    fn from(text: &str) -> Self {
        Value::Text(Name::from(text))
    }
}

/// As the story shows it: the text, or "c1#2 put(x, 1)".
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Text(text) => f.write_str(text),
            Value::Request(r) => write!(f, "{}#{} {}", r.client, r.seq, KvMap::describe(&r.op)),
        }
    }
}

/// A key-value client's request, the value of a log entry: the client and its request number
/// make it unique, so the state machine applies it once however often it is logged.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ClientRequest {
    /// The client's name.
    pub client: Name,
    /// The client's request number, from 1.
    pub seq: u64,
    /// What it asks of the store.
    pub op: KvOp,
}

/// What an acceptor reports of one slot in a promise: (slot, ballot it accepted at, value).
pub type Report = (Slot, Ballot, Value);

/// The value a new leader proposes in a slot that no promise reported (a gap), so that the log
/// has no hole: it changes nothing when applied.
pub const NO_OP: &str = "no-op";

/// One Multi-Paxos message.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MultiPaxosMsg {
    /// Phase 1a, would-be leader to every acceptor: "promise to accept nothing below `b`, in
    /// every slot from `from` on".
    Prepare {
        /// The ballot.
        b: Ballot,
        /// The first slot the phase covers (the sender's first slot not known chosen).
        from: Slot,
    },
    /// Phase 1b: the promise, with every proposal accepted in slots from `from` on.
    Promise {
        /// The ballot promised.
        b: Ballot,
        /// What this acceptor accepted from the prepare's first slot on, in slot order.
        accepted: Vec<Report>,
    },
    /// An acceptor refused the `Prepare` or `Accept` (or ignored the heartbeat) of ballot `b`,
    /// having promised `promised`: the sender is no longer (or not yet) the leader.
    Nack {
        /// The refused ballot.
        b: Ballot,
        /// What the acceptor promised instead.
        promised: Ballot,
    },
    /// Phase 2a, leader to acceptors: "accept `value` in `slot` at ballot `b`"; `committed` is
    /// the leader's commit point (every slot up to it is chosen), piggybacked.
    Accept {
        /// The leader's ballot.
        b: Ballot,
        /// The slot.
        slot: Slot,
        /// The value proposed for it.
        value: Value,
        /// Every slot up to this one is chosen (0: none yet).
        committed: Slot,
    },
    /// Phase 2b, acceptor to the leader: "I accepted `value` in `slot` at ballot `b`".
    Accepted {
        /// The ballot.
        b: Ballot,
        /// The slot.
        slot: Slot,
        /// The value.
        value: Value,
    },
    /// Leader to every other node, when idle: "I lead at `b`; everything up to `committed`
    /// is chosen".
    Heartbeat {
        /// The leader's ballot.
        b: Ballot,
        /// The leader's commit point.
        committed: Slot,
    },
    /// A replica behind the commit point asks the leader for the chosen entries from `from` on.
    CatchUp {
        /// The first slot it lacks.
        from: Slot,
    },
    /// The leader's answer to `CatchUp`: chosen entries, in slot order, from the slot asked.
    Decided {
        /// (slot, value) pairs, at most [`CATCH_UP_BATCH`].
        entries: Vec<(Slot, Value)>,
    },
    /// A client's value, sent on to the node believed to lead.
    Forward {
        /// The value to put in the log.
        value: Value,
    },
    /// A key-value client to a replica: "log this request" (a retry keeps its number).
    Request {
        /// The request.
        request: Arc<ClientRequest>,
    },
    /// A replica's answer to a client's request.
    Reply {
        /// The request answered.
        seq: u64,
        /// Applied at this slot; `None`: this replica does not lead, see `leader`.
        slot: Option<Slot>,
        /// When not answered: the leader this replica follows, to redirect the client.
        leader: Option<NodeId>,
        /// What the state machine answered (left out for a write).
        #[serde(default, skip_serializing_if = "Answer::is_written")]
        answer: Answer,
    },
}

/// The most entries one `Decided` carries; a replica further behind asks again.
pub const CATCH_UP_BATCH: usize = 64;

sim_core::message!(MultiPaxosMsg {
    Prepare,
    Promise,
    Nack,
    Accept,
    Accepted,
    Heartbeat,
    CatchUp,
    Decided,
    Forward,
    Request,
    Reply
});
