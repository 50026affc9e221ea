//! The facts a Raft node publishes for checkers, expectations and the story.
//!
//! Checkers read records only (online, or offline from a trace file), so everything they need is
//! here: every node's log at start, every change of term, every vote and its reason, every
//! leader and how it took office. Nodes are named, so a trace reads without a table of ids.

use crate::raft::log::LastEntry;
use serde::{Deserialize, Serialize};

/// A fact about one node (the node is the record's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RaftNote {
    /// At every start: the node's fixed log, so the log checker knows every node's log.
    Log {
        /// lastLogTerm.
        last_term: u64,
        /// lastLogIndex.
        last_index: u64,
    },
    /// At every start: the durable state it starts with (0 and none the first time; what
    /// survived the crash on a restart).
    Started {
        /// currentTerm.
        current_term: u64,
        /// votedFor in `current_term`.
        voted_for: Option<String>,
    },
    /// currentTerm changed (it only ever grows).
    TermChanged {
        /// The term before.
        from: u64,
        /// The term after.
        to: u64,
    },
    /// The election timeout elapsed: the node stands for election (and votes for itself).
    BecameCandidate {
        /// The new term.
        term: u64,
    },
    /// The node gave its vote of `term` to `candidate`.
    VoteGranted {
        /// The RequestVote's term (now the voter's).
        term: u64,
        /// Who got the vote.
        candidate: String,
    },
    /// The node refused its vote to `candidate`.
    VoteDenied {
        /// The RequestVote's term.
        term: u64,
        /// Who asked.
        candidate: String,
        /// Why, with what was compared.
        reason: DenyReason,
    },
    /// A majority voted for the node: it leads `term`.
    BecameLeader {
        /// The term it leads.
        term: u64,
        /// Votes counted when it took office (its own included).
        votes: u32,
        /// Its log's last entry, for the log checker.
        last_log: LastEntry,
    },
    /// A vote that arrived after the node had already taken office.
    LateVote {
        /// The term it leads.
        term: u64,
        /// Who voted.
        voter: String,
        /// Votes counted so far.
        votes: u32,
    },
    /// A candidate or leader became a follower.
    SteppedDown {
        /// Its term before.
        from_term: u64,
        /// Its term after (equal when it heard of a leader of its own term).
        to_term: u64,
        /// What made it step down.
        because: StepDownCause,
    },
    /// The node learnt who leads its term (a follower accepting a leader's heartbeat).
    Recognised {
        /// The leader.
        leader: String,
        /// The term it leads.
        term: u64,
    },
    /// A candidate or leader got no reply from `peer` within the RPC timeout.
    RpcTimeout {
        /// The silent peer.
        peer: String,
        /// The term of the unanswered request.
        term: u64,
    },
}

/// Why a vote was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DenyReason {
    /// The candidate's log is behind the voter's (§5.4.1).
    LogBehind {
        /// The candidate's last entry.
        theirs: LastEntry,
        /// The voter's last entry.
        mine: LastEntry,
    },
    /// The voter already voted for someone else in this term.
    AlreadyVoted {
        /// Whom it voted for.
        voted_for: String,
    },
    /// The request's term is older than the voter's.
    StaleTerm {
        /// The voter's currentTerm.
        current_term: u64,
    },
}

/// What made a candidate or leader step down.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepDownCause {
    /// A message carried a higher term.
    HigherTerm {
        /// The message's kind.
        kind: String,
        /// Who sent it.
        from: String,
    },
    /// A candidate heard from the leader of its own term.
    LeaderOfTerm {
        /// The leader.
        leader: String,
    },
}
