//! What the server and client halves of a Raft node share with the actor that hosts them: its
//! timers, its commands, and [`Handler`], the actor shape their handlers are written against
//! (so that `server` and `client` need not name [`crate::raft::node::RaftNode`]).

use crate::raft::msg::RaftMsg;
use crate::raft::notes::RaftNote;
use serde::{Deserialize, Serialize};
use sim_core::{Actor, NodeId};

/// The nodes' timers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RaftTimer {
    /// The election timeout (followers and candidates).
    Election,
    /// Time for the leader's next round of heartbeats.
    Heartbeat,
    /// No reply from `peer` to request number `seq` within the RPC timeout.
    Rpc {
        /// The peer asked.
        peer: NodeId,
        /// The node's request number.
        seq: u64,
    },
    /// A client's request `seq` went unanswered: send it again, to the next server.
    ClientRetry {
        /// The request.
        seq: u64,
    },
}

impl std::hash::Hash for RaftTimer {
    /// An RPC timer hashes as its peer only: a server has at most one pending per peer, its
    /// number always the one the server awaits (see `Server::request`), so the number is a
    /// token that tells nothing about the future. Numbers are handed out in peer order, so
    /// hashing them would also tell two renamings of one state apart (`--symmetry`).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            RaftTimer::Election | RaftTimer::Heartbeat => {}
            RaftTimer::Rpc { peer, seq: _ } => peer.hash(state),
            RaftTimer::ClientRetry { seq } => seq.hash(state),
        }
    }
}

/// What a scenario tells a client to do.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RaftCommand {
    /// Write `key = value` through the leader: `Command("c1", Put("x", "1"))`. The client
    /// sends it to the server it last heard from (the first server at the start).
    Put(String, String),
    /// The same, sent first to the named server: `Command("c2", PutVia("S5", "x", "2"))`, so
    /// that a scenario can say which server a client reaches (behind a partition, say).
    PutVia(String, String, String),
    /// Read `key` through the leader: `Command("c1", Get("x"))`; the answer is in the story.
    Get(String),
    /// The same, sent first to the named server: `Command("c3", GetVia("S1", "x"))`.
    GetVia(String, String),
    /// Add `value` at the end of `key`'s value: `Command("c1", Append("x", "a"))`.
    Append(String, String),
    /// Set `key` to the third value if it holds the second (`None`: if absent):
    /// `Command("c1", Cas("x", Some("1"), "2"))`.
    Cas(String, Option<String>, String),
}

impl RaftCommand {
    /// The command's name and the server it names first, for the commands that name one
    /// (`PutVia`, `GetVia`).
    pub fn via(&self) -> Option<(&'static str, &str)> {
        match self {
            RaftCommand::PutVia(server, ..) => Some(("PutVia", server)),
            RaftCommand::GetVia(server, ..) => Some(("GetVia", server)),
            _ => None,
        }
    }
}

/// An actor that speaks Raft: the handlers of servers and clients run in its context.
pub trait Handler: Actor<Msg = RaftMsg, Timer = RaftTimer, Note = RaftNote> {}

impl<A: Actor<Msg = RaftMsg, Timer = RaftTimer, Note = RaftNote>> Handler for A {}
