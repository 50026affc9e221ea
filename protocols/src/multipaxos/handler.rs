//! What the replica and client halves of a Multi-Paxos node share with the actor that hosts
//! them: its timers, its commands, and [`Handler`], the actor shape their handlers are written
//! against (so that `node`, `leader` and `client` need not name
//! [`crate::multipaxos::actor::MultiPaxosNode`], which holds them).

use crate::multipaxos::msg::{Ballot, MultiPaxosMsg};
use crate::multipaxos::notes::MultiPaxosNote;
use serde::{Deserialize, Serialize};
use sim_core::Actor;

/// What a scenario can tell a replica (`Submit`, `Lead`) or a key-value client (the rest).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum MultiPaxosCommand {
    /// A client's value for the log (RON: `Submit("x")`): a leader proposes it in its next
    /// slot, a follower forwards it to the leader it knows (or keeps it until it knows one).
    Submit(String),
    /// Run phase 1 now, with a ballot above every one seen (RON: `Lead`).
    Lead,
    /// To a key-value client: write `key = value` through the log:
    /// `Command("c1", Put("x", "1"))`.
    Put(String, String),
    /// To a client: read `key` through the log: `Command("c1", Get("x"))`.
    Get(String),
    /// To a client: add `value` at the end of `key`'s value: `Command("c1", Append("x", "a"))`.
    Append(String, String),
    /// To a client: set `key` to the third value if it holds the second (`None`: if absent):
    /// `Command("c1", Cas("x", Some("1"), "2"))`.
    Cas(String, Option<String>, String),
}

/// Timer tags.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MultiPaxosTimer {
    /// No word from a leader for an election timeout: run phase 1.
    Election,
    /// A leader's period: heartbeat, and resend unanswered accepts.
    Heartbeat,
    /// Phase 1 of this ballot did not reach a majority in time.
    Phase(Ballot),
    /// A client's request `seq` went unanswered: send it again, to the next replica.
    ClientRetry {
        /// The request.
        seq: u64,
    },
}

/// An actor that speaks Multi-Paxos: the handlers of replicas and clients run in its context.
pub trait Handler:
    Actor<Msg = MultiPaxosMsg, Timer = MultiPaxosTimer, Note = MultiPaxosNote>
{
}

impl<A: Actor<Msg = MultiPaxosMsg, Timer = MultiPaxosTimer, Note = MultiPaxosNote>> Handler for A {}
