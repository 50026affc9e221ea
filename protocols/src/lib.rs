//! protocols: the course's protocols as `sim_core` actors, each behind the `Protocol` trait.

pub mod raft;
