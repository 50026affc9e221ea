//! # Raft: leader election, log replication and safety
//!
//! "Raft is a consensus algorithm for managing a replicated log" (Ongaro & Ousterhout, *In
//! Search of an Understandable Consensus Algorithm*). It decomposes consensus into leader
//! election, log replication and safety, the three parts of the course's lesson. With
//! `replication: false` a run is the lesson's election simulation: nodes with fixed logs, so
//! that the election restriction can be seen on its own (RF-1, RF-2).
//!
//! **Terms.** "Raft divides time into terms of arbitrary length. Terms are numbered with
//! consecutive integers. Each term begins with an election, in which one or more candidates
//! attempt to become leader." Terms act as a logical clock: "Current terms are exchanged
//! whenever servers communicate; if one server's current term is smaller than the other's, then
//! it updates its current term to the larger value. If a candidate or leader discovers that its
//! term is out of date, it immediately reverts to follower state." currentTerm starts at 0 here;
//! the fixed logs hold entries of term 1, so the first election is term 1.
//!
//! **Election.** "Raft uses a heartbeat mechanism to trigger leader election. When servers start
//! up, they begin as followers. A server remains in follower state as long as it receives valid
//! RPCs from a leader or candidate. Leaders send periodic heartbeats (AppendEntries RPCs that
//! carry no log entries) to all followers in order to maintain their authority. If a follower
//! receives no communication over a period of time called the election timeout, then it assumes
//! there is no viable leader and begins an election." It "increments its current term and
//! transitions to candidate state. It then votes for itself and issues RequestVote RPCs in
//! parallel to each of the other servers." It wins when it "receives votes from a majority of
//! the servers in the full cluster for the same term. Each server will vote for at most one
//! candidate in a given term, on a first-come-first-served basis". If it hears an AppendEntries
//! from a leader whose term is at least its own, it returns to follower. If nobody wins, "each
//! candidate will time out and start a new election": "Raft uses randomized election timeouts to
//! ensure that split votes are rare and that they are resolved quickly".
//!
//! **Election restriction (§5.4.1).** "A candidate must contact a majority of the cluster in
//! order to be elected ... the voter denies its vote if its own log is more up-to-date than that
//! of the candidate." Up-to-date compares the last entries' terms, then the logs' lengths.
//!
//! **Durable state.** currentTerm and votedFor are "updated on stable storage before responding
//! to RPCs": they survive a crash; role, votes and timers do not.
//!
//! **Log replication (§5.3) and the commit rule (§5.4.2)** are in [`replicate`]: clients
//! ([`client`]) write through the leader, AppendEntries carries entries after a consistency
//! check on (prevLogIndex, prevLogTerm), the leader commits an entry once a majority holds it
//! *and it is of the leader's term*, and every server applies committed entries in order to a
//! key-value map ([`crate::kvstore`]). Figure 8 of the paper (`course/raft/figure-8`) is why the term
//! condition exists.
//!
//! Our departures from the lesson's Python, on purpose: a candidate takes office at the first
//! majority (the lesson waited for every reply, including a 50 ms RPC timeout to the dead node)
//! and keeps counting late votes for the story; votedFor is never cleared by a heartbeat of the
//! current term; a leader adopts a higher term from a heartbeat reply. The last two are the
//! lesson's slips, kept as bug knobs ([`Bugs`]).
//!
//! Module map: [`msg`] (RPCs), [`log`] (entries and the up-to-date order), [`node`] (the actor:
//! a server or a client), [`server`] (election), [`replicate`] (replication and commit),
//! [`client`], [`handler`] (timers, commands), [`crate::kvstore`] (the state machine and the
//! clients' history, shared with Multi-Paxos), [`notes`] (facts for checkers), [`invariants`] and
//! [`log_invariants`], [`config`], [`expect`], [`narrate`], [`measure`] and [`replication_measure`]; [`Raft`] plugs it all
//! into scenarios.

pub mod client;
pub mod config;
pub mod expect;
pub mod handler;
pub mod invariants;
pub mod log;
pub mod log_invariants;
pub mod measure;
pub mod msg;
pub mod narrate;
pub mod node;
pub mod notes;
pub mod protocol;
pub mod replicate;
pub mod replication_measure;
pub mod server;

#[cfg(test)]
mod tests;

pub use config::{Bugs, NodeSpec, RaftConfig};
pub use expect::RaftExpect;
pub use log::{Entry, LastEntry, Log, Write};
pub use msg::RaftMsg;
pub use node::{RaftCommand, RaftNode, RaftTimer, Role};
pub use notes::{DenyReason, RaftNote, StepDownCause};
pub use protocol::Raft;
pub use server::Server;
