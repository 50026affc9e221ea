//! protocols: the distributed protocols dsim simulates, each a module built on `sim-core`.

pub mod paxos;
