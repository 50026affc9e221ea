//! The register's messages: the clients' requests and answers, and Paxos between the servers
//! (stateright's `RegisterMsg` with its `PaxosMsg` inside, flattened into one enum).

use serde::{Deserialize, Serialize};
use sim_core::NodeId;

/// A term's ballot: (round, the leader's id). Ordered by round, then id.
pub type Ballot = (u32, NodeId);
/// A proposal: (the client's request id, the client, the value).
pub type Proposal = (u64, NodeId, char);

/// What clients and servers send.
#[derive(Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum RegisterMsg {
    /// Client to server: write `value` (request `request`).
    Put {
        /// The request's id.
        request: u64,
        /// The value to write.
        value: char,
    },
    /// Client to server: read the value.
    Get {
        /// The request's id.
        request: u64,
    },
    /// Server to client: the write is decided.
    PutOk {
        /// The request answered.
        request: u64,
    },
    /// Server to client: the decided value.
    GetOk {
        /// The request answered.
        request: u64,
        /// The value.
        value: char,
    },
    /// Leader to peer: promise not to take part in lower ballots (phase 1a).
    Prepare {
        /// The leader's ballot.
        ballot: Ballot,
    },
    /// Peer to leader: promised, with what it accepted last (phase 1b).
    Prepared {
        /// The ballot promised.
        ballot: Ballot,
        /// The peer's last accepted (ballot, proposal), if any.
        last_accepted: Option<(Ballot, Proposal)>,
    },
    /// Leader to peer: accept this proposal in this ballot (phase 2a).
    Accept {
        /// The ballot.
        ballot: Ballot,
        /// The proposal.
        proposal: Proposal,
    },
    /// Peer to leader: accepted (phase 2b).
    Accepted {
        /// The ballot accepted.
        ballot: Ballot,
    },
    /// Leader to peer: a majority accepted this proposal.
    Decided {
        /// The ballot it was decided in.
        ballot: Ballot,
        /// The decided proposal.
        proposal: Proposal,
    },
}

sim_core::message!(RegisterMsg {
    Put,
    Get,
    PutOk,
    GetOk,
    Prepare,
    Prepared,
    Accept,
    Accepted,
    Decided
});
