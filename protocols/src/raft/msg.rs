//! The RPCs of Raft leader election, with the paper's argument names (Figure 2).
//!
//! The sender is known from the network, so `candidateId` and `leaderId` are not repeated in the
//! payload. Heartbeats are AppendEntries with no entries; as logs are fixed, the entries,
//! prevLogIndex/prevLogTerm and leaderCommit arguments are left out until replication arrives.

use serde::{Deserialize, Serialize};

/// A Raft RPC request or reply. Every one carries the sender's `term`: whoever sees a higher
/// term adopts it and becomes a follower, whatever the message.
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
    /// Invoked by the leader; with no entries, a heartbeat.
    AppendEntries {
        /// The leader's term.
        term: u64,
    },
    /// The answer to an AppendEntries.
    AppendEntriesReply {
        /// The follower's currentTerm, for the leader to update itself.
        term: u64,
        /// True if the follower accepted the sender as leader of `term`.
        success: bool,
    },
}

impl RaftMsg {
    /// The term the message carries.
    pub fn term(&self) -> u64 {
        match *self {
            RaftMsg::RequestVote { term, .. }
            | RaftMsg::RequestVoteReply { term, .. }
            | RaftMsg::AppendEntries { term }
            | RaftMsg::AppendEntriesReply { term, .. } => term,
        }
    }

    /// Whether the message answers a request (a reply), rather than asking for something.
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
    AppendEntriesReply
});
