//! The RPCs of Raft (Figure 2 of the paper), with the paper's argument names, and the client's
//! request and reply.
//!
//! The sender is known from the network, so `candidateId` and `leaderId` are not repeated in the
//! payload. Heartbeats are AppendEntries with no entries. Fields that are zero or empty are left
//! out of a trace, so the election-only model's heartbeats read `AppendEntries(term: 2)` as
//! before replication existed.

use crate::kvstore::Answer;
use crate::raft::log::{Entry, Request};
use serde::{Deserialize, Serialize};
use sim_core::{Name, NodeId};

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A Raft RPC request or reply, or a client's request or its answer. Every RPC carries the
/// sender's `term`: whoever sees a higher term adopts it and becomes a follower, whatever the
/// message.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RaftMsg {
    /// Invoked by candidates to gather votes.
    RequestVote {
        /// The candidate's term.
        term: u64,
        /// Index of the candidate's last log entry.
        last_log_index: u64,
        /// Term of the candidate's last log entry.
        last_log_term: u64,
    },
    /// The answer to a RequestVote.
    RequestVoteReply {
        /// The voter's currentTerm, for the candidate to update itself.
        term: u64,
        /// True means the candidate received the vote.
        vote_granted: bool,
    },
    /// Invoked by the leader to replicate entries; with no entries, a heartbeat.
    AppendEntries {
        /// The leader's term.
        term: u64,
        /// Index of the entry immediately preceding the new ones.
        #[serde(default, skip_serializing_if = "is_zero")]
        prev_log_index: u64,
        /// Term of that entry.
        #[serde(default, skip_serializing_if = "is_zero")]
        prev_log_term: u64,
        /// Entries to store (empty for a heartbeat).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        entries: Vec<Entry>,
        /// The leader's commitIndex.
        #[serde(default, skip_serializing_if = "is_zero")]
        leader_commit: u64,
    },
    /// The answer to an AppendEntries.
    AppendEntriesReply {
        /// The follower's currentTerm, for the leader to update itself.
        term: u64,
        /// True if the follower accepted the sender as leader of `term` and (with replication)
        /// its log matched at prevLogIndex.
        success: bool,
        /// On success, the index up to which the follower's log now matches the leader's.
        #[serde(default, skip_serializing_if = "is_zero")]
        match_index: u64,
        /// On a mismatch, the follower's lastLogIndex, so that the leader can skip back past
        /// the end of a short log in one step.
        #[serde(default, skip_serializing_if = "is_zero")]
        last_log_index: u64,
        /// On a mismatch, the prevLogIndex that did not match, so that the leader can tell a
        /// late or duplicated refusal from the answer to its latest request.
        #[serde(default, skip_serializing_if = "is_zero")]
        rejected: u64,
    },
    /// A client asks a server to write `key = value`; request `seq` of that client.
    ClientRequest {
        /// The client's request number.
        seq: u64,
        /// The key.
        key: Name,
        /// The value.
        value: Name,
        /// What the request does (left out for a put).
        #[serde(default, skip_serializing_if = "Request::is_put")]
        request: Request,
    },
    /// A server answers a client.
    ClientReply {
        /// The request answered.
        seq: u64,
        /// Committed and applied at this log index; `None`: not the leader.
        index: Option<u64>,
        /// When not the leader: the leader the server knows of, to redirect the client.
        leader: Option<NodeId>,
        /// What the state machine answered (left out for a write).
        #[serde(default, skip_serializing_if = "Answer::is_written")]
        answer: Answer,
    },
}

impl RaftMsg {
    /// The term the message carries (0 for a client's messages, which carry none).
    pub fn term(&self) -> u64 {
        match *self {
            RaftMsg::RequestVote { term, .. }
            | RaftMsg::RequestVoteReply { term, .. }
            | RaftMsg::AppendEntries { term, .. }
            | RaftMsg::AppendEntriesReply { term, .. } => term,
            RaftMsg::ClientRequest { .. } | RaftMsg::ClientReply { .. } => 0,
        }
    }

    /// A heartbeat of the election-only model: just the term.
    pub fn heartbeat(term: u64) -> RaftMsg {
        RaftMsg::AppendEntries {
            term,
            prev_log_index: 0,
            prev_log_term: 0,
            entries: Vec::new(),
            leader_commit: 0,
        }
    }

    /// Whether the message answers a server's request (an RPC reply), rather than asking for
    /// something.
    pub fn is_reply(&self) -> bool {
        matches!(
            self,
            RaftMsg::RequestVoteReply { .. } | RaftMsg::AppendEntriesReply { .. }
        )
    }
}

sim_core::message!(RaftMsg {
    RequestVote,
    RequestVoteReply,
    AppendEntries,
    AppendEntriesReply,
    ClientRequest,
    ClientReply
});
