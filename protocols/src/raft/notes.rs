//! The facts a Raft node publishes for checkers, expectations and the story.
//!
//! Checkers read records only (online, or offline from a trace file), so everything they need is
//! here: every node's log at start and every change to it, every change of term, every vote and
//! its reason, every leader and how it took office, every commit and application, and what
//! each client asked and was told. Nodes are named, so a trace reads without a table of ids.

use crate::kvstore::Answer;
use crate::raft::log::{Entry, LastEntry, Request};
use serde::{Deserialize, Serialize};
use sim_core::Name;

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
        voted_for: Option<Name>,
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
        candidate: Name,
    },
    /// The node refused its vote to `candidate`.
    VoteDenied {
        /// The RequestVote's term.
        term: u64,
        /// Who asked.
        candidate: Name,
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
        voter: Name,
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
        leader: Name,
        /// The term it leads.
        term: u64,
    },
    /// A candidate or leader got no reply from `peer` within the RPC timeout.
    RpcTimeout {
        /// The silent peer.
        peer: Name,
        /// The term of the unanswered request.
        term: u64,
    },
    /// A paused node resumes: what it believes on its return (it kept all its state).
    Resumed {
        /// Its currentTerm (`None` for a client).
        term: Option<u64>,
        /// Whether it still believes it leads.
        leads: bool,
    },
    /// At the first start, with replication: the terms of the entries the node starts with.
    Entries {
        /// Index 1 first.
        terms: Vec<u64>,
    },
    /// The leader appended a client's write to its own log.
    Appended {
        /// Its index.
        index: u64,
        /// The entry.
        entry: Entry,
    },
    /// The node's log changed on an AppendEntries from `leader`: it kept its first `kept`
    /// entries, deleted the `dropped` after them and appended `entries`.
    Stored {
        /// The leader that sent them (the node itself when a buggy leader drops its tail).
        leader: Name,
        /// Entries kept, from index 1.
        kept: u64,
        /// Entries deleted after them.
        dropped: u64,
        /// Entries appended, at `kept + 1` on.
        entries: Vec<Entry>,
    },
    /// commitIndex advanced to `index`.
    Committed {
        /// The new commitIndex.
        index: u64,
        /// The node's currentTerm then.
        term: u64,
        /// `None`: the leader counted a majority; `Some(leader)`: learnt from its
        /// leaderCommit.
        by: Option<Name>,
    },
    /// The rule of §5.4.2 at work: a majority holds entry `index`, but it is of an older term
    /// than the leader's, so the leader does not commit it by counting replicas.
    NotCommitted {
        /// The entry.
        index: u64,
        /// Its term.
        entry_term: u64,
        /// The leader's term.
        term: u64,
    },
    /// Entries `first..` were applied to the state machine, in order, in one step.
    Applied {
        /// The index of the first.
        first: u64,
        /// The entries.
        entries: Vec<Entry>,
    },
    /// The leader's AppendEntries did not match `follower`'s log: it steps nextIndex back and
    /// tries again from `next_index` ("back to the last point in common").
    SteppedBack {
        /// The follower.
        follower: Name,
        /// The index the follower's log did not match at (prevLogIndex).
        mismatch_at: u64,
        /// The new nextIndex.
        next_index: u64,
    },
    /// A client sent a new write.
    Requested {
        /// The client's request number.
        seq: u64,
        /// The server it went to.
        server: Name,
        /// The key.
        key: Name,
        /// The value.
        value: Name,
        /// What the request does (left out for a put).
        #[serde(default, skip_serializing_if = "Request::is_put")]
        request: Request,
    },
    /// A follower named the leader; the client sends there.
    Redirected {
        /// The request.
        seq: u64,
        /// The follower.
        from: Name,
        /// The leader it named.
        to: Name,
    },
    /// No answer in time: the client sends the request again, to the next server.
    Retried {
        /// The request.
        seq: u64,
        /// The server it goes to now.
        server: Name,
    },
    /// The leader answered: the write is committed and applied at `index`.
    Acknowledged {
        /// The request.
        seq: u64,
        /// Where it was applied.
        index: u64,
        /// The leader that answered.
        server: Name,
        /// What the state machine answered (left out for a write).
        #[serde(default, skip_serializing_if = "Answer::is_written")]
        answer: Answer,
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
        voted_for: Name,
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
        from: Name,
    },
    /// A candidate heard from the leader of its own term.
    LeaderOfTerm {
        /// The leader.
        leader: Name,
    },
}
