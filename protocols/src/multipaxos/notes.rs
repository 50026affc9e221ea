//! The facts Multi-Paxos replicas publish for checkers, expectations and the story.
//!
//! Invariants read only these, never a replica's state, so the same checkers judge a live run
//! and a trace file: what each acceptor promised and accepted in which slot, what each leader
//! proposed and recovered, what each learner learned and applied.

use crate::kvstore::Answer;
use crate::linearizability::KvOp;
use crate::multipaxos::msg::{Ballot, Slot, Value};
use serde::{Deserialize, Serialize};
use sim_core::Name;

/// How a learner came to know a slot's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Source {
    /// It leads and counted a majority of accepts.
    Majority,
    /// The leader's commit point covered a slot it accepted at the leader's ballot.
    Commit,
    /// The leader sent it in a `Decided` (catch-up).
    CatchUp,
}

/// A fact one Multi-Paxos replica published.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MultiPaxosNote {
    /// Would-be leader: phase 1 of ballot `b` starts for every slot from `from` on.
    Preparing {
        /// The ballot.
        b: Ballot,
        /// The first slot covered.
        from: Slot,
    },
    /// Acceptor: promised ballot `b`, reporting `reported` accepted entries from the prepare's
    /// first slot on.
    Promised {
        /// The ballot promised.
        b: Ballot,
        /// How many accepted entries its promise carries.
        reported: u32,
    },
    /// Acceptor: refused a prepare or accept of ballot `b`, having promised `promised`.
    Nacked {
        /// The refused ballot.
        b: Ballot,
        /// Its promise.
        promised: Ballot,
    },
    /// Leader: phase 1 of `b` is complete (`promises` of `of` replicas, a majority): from
    /// now on, only phase 2 per entry.
    Leading {
        /// The ballot.
        b: Ballot,
        /// Promises counted.
        promises: u32,
        /// Replicas in all.
        of: u32,
        /// The first slot phase 1 covered.
        from: Slot,
    },
    /// Leader: a promise reported `value` accepted in open slot `slot` at ballot `from_b` (the
    /// highest reported), so the leader proposes it again there (single-decree Paxos's
    /// adopt-the-highest rule, per slot).
    Recovered {
        /// The leader's ballot.
        b: Ballot,
        /// The open slot.
        slot: Slot,
        /// The value recovered.
        value: Value,
        /// The ballot it had been accepted at.
        from_b: Ballot,
    },
    /// Leader: phase 2 of `slot` starts at ballot `b` with `value` (a client's value, a
    /// recovered one, or a no-op filling a gap).
    Proposed {
        /// The ballot.
        b: Ballot,
        /// The slot.
        slot: Slot,
        /// The value.
        value: Value,
    },
    /// Acceptor: accepted `value` in `slot` at ballot `b`.
    Accepted {
        /// The ballot.
        b: Ballot,
        /// The slot.
        slot: Slot,
        /// The value.
        value: Value,
    },
    /// Learner: `slot` holds `value`, chosen; `how` says how it knows.
    Chosen {
        /// The slot.
        slot: Slot,
        /// The chosen value.
        value: Value,
        /// How it learned it.
        how: Source,
    },
    /// Learner: applied `slot`'s `value` to its state machine (in slot order).
    Applied {
        /// The slot.
        slot: Slot,
        /// The value.
        value: Value,
    },
    /// Would-be or current leader: ballot `b` was overtaken by ballot `by` (a nack, or a
    /// higher prepare, accept or heartbeat); it steps down.
    Preempted {
        /// Its ballot.
        b: Ballot,
        /// The higher ballot seen.
        by: Ballot,
    },
    /// Would-be leader: phase 1 of `b` did not reach a majority in time.
    PhaseFailed {
        /// The ballot.
        b: Ballot,
        /// Promises counted.
        promises: u32,
        /// The majority needed.
        needed: u32,
    },
    /// Client: sends its request `seq`, `op`, to `server` (the call of the operation).
    Requested {
        /// The client's request number.
        seq: u64,
        /// The replica it went to.
        server: Name,
        /// What it asks.
        op: KvOp,
    },
    /// Client: `from` does not lead and named `to`; the client sends there.
    Redirected {
        /// The request.
        seq: u64,
        /// The replica that answered.
        from: Name,
        /// The leader it named.
        to: Name,
    },
    /// Client: no answer in time; it sends the request again, to `server`.
    Retried {
        /// The request.
        seq: u64,
        /// The replica it tries now.
        server: Name,
    },
    /// Client: `server` answered request `seq`, applied at `slot` (the return of the
    /// operation).
    Acknowledged {
        /// The request.
        seq: u64,
        /// The slot it took effect at.
        slot: Slot,
        /// The replica that answered.
        server: Name,
        /// What the state machine answered (left out for a write).
        #[serde(default, skip_serializing_if = "Answer::is_written")]
        answer: Answer,
    },
}
