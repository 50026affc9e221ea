//! The messages of Multi-Paxos: single-decree Paxos's phases, per log slot, plus what a log
//! needs around them (heartbeats that carry the commit point, catch-up of a lagging replica,
//! a client's value forwarded to the leader).
//!
//! Phase 1 (`Prepare` / `Promise`) covers every slot from `from` on at once: that is the whole
//! point of Multi-Paxos. Phase 2 (`Accept` / `Accepted`) runs once per slot. This module only
//! describes payloads; who sends what is `node` and `leader`.

use serde::{Deserialize, Serialize};

/// A ballot (a proposal number): `round * multiplier + node id`, unique per node and round.
pub type Ballot = u64;

/// A log position, from 1.
pub type Slot = u64;

/// A log entry's value: interned text (see [`sim_core::Name`]), copied by pointer into every
/// message, acceptor and learner that holds it.
pub type Value = sim_core::Name;

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
    Forward
});
