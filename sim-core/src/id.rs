//! Identifiers the kernel hands out: nodes and messages.
//!
//! A node's identity in a run is its index in the order nodes were added; its name (the course's
//! "relay-1", "nodo-3") is what traces and people see. This module knows nothing about either's
//! meaning beyond that.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// A node of the simulation: its index in the order nodes were added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The index into per-node tables.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// A node's name as it appears in traces: shared, so records clone it without allocating.
pub type Name = Arc<str>;

/// A message sent in a run, numbered in sending order from 1. A network duplicate keeps the id of
/// the message it copies.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct MsgId(pub u64);
