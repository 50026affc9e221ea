//! # protocols: the course's protocols as `sim_core` actors
//!
//! One module per protocol, each behind the `sim_core::Protocol` trait: an essay of the
//! algorithm in the paper's words (`mod.rs`), its messages, its node, the notes it publishes for
//! checkers, its invariants, its bug knobs, its expectations and its story.
//!
//! - [`paxos`]: single-decree Paxos (Lamport, "Paxos Made Simple"): proposers, acceptors,
//!   learners.
//! - [`raft`]: Raft leader election (Ongaro and Ousterhout, figure 2) over fixed logs.
//! - [`ring`]: partitioning: hash mod N, the consistent-hash ring with vnodes and weights,
//!   rendezvous, slot tables and ranges, and the measurements of the course's tables.
//!
//! **Architecture invariant:** protocols never depend on each other and do no I/O.

pub mod paxos;
pub mod raft;
pub mod ring;
