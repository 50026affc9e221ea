//! # protocols: the course's protocols as `sim_core` actors
//!
//! One module per protocol, each implementing `sim_core::Protocol` (its model) and
//! `traces::Story` (how its runs read): an essay of the
//! algorithm in the paper's words (`mod.rs`), its messages, its node, the notes it publishes for
//! checkers, its invariants, its bug knobs, its expectations and its story.
//!
//! - [`paxos`]: single-decree Paxos (Lamport, "Paxos Made Simple"): proposers, acceptors,
//!   learners.
//! - [`multipaxos`]: Multi-Paxos: a log of Paxos instances with a stable leader that runs
//!   phase 1 once and phase 2 per entry, recovery of open slots, catch-up.
//! - [`raft`]: Raft leader election (Ongaro and Ousterhout, figure 2) over fixed logs.
//! - [`pbft`]: PBFT (Castro and Liskov, OSDI 1999): the normal case, checkpoints and the view
//!   change, with Byzantine replicas as settings.
//! - [`lease`]: lease-based leader election on an etcd-like store, with fencing tokens (text
//!   003's outbox relay): split brain, and what stops it.
//! - [`partition`]: the partition math (no protocol): hash mod N, the consistent-hash ring with
//!   vnodes and weights, rendezvous, slot tables and ranges, and the measurements of the
//!   course's tables (`dsim ring`).
//! - [`ring_store`]: the consistent-hash ring as a live replicated store (the `ring` protocol):
//!   a quorum machine, storage nodes and clients, built on `partition`.
//! - [`register`]: stateright's linearizable register on single-decree Paxos, copied from
//!   its `examples/paxos.rs` so the explorer's counts can be held against stateright's.
//! - [`token_ring`]: the kernel's demo, the smallest complete protocol (the glue's reference).
//!
//! - [`common`]: no protocol: the shared read-only setup and the node-name check several use.
//! - [`kvstore`]: no protocol: the key-value state machine Raft's and Multi-Paxos's logs
//!   drive (at most once per client request), and the linearizability check of its clients'
//!   history.
//! - [`linearizability`]: no protocol: Wing and Gong's linearizability check of a history,
//!   for the register model and any store's reads and writes.
//!
//! **Architecture invariant:** protocols never depend on each other and do no I/O.

pub mod common;
pub mod kvstore;
pub mod lease;
pub mod linearizability;
pub mod multipaxos;
pub mod partition;
pub mod paxos;
pub mod pbft;
pub mod raft;
pub mod register;
pub mod ring_store;
pub mod token_ring;
