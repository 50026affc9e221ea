//! The replicated service: a small key-value map, the state machine every replica executes.
//!
//! Operations are deterministic, so correct replicas that execute the same requests in the
//! same order reach the same state and give the same results; a `Put` answers the value it
//! replaced, so a result also tells the order in which writes were executed.

use crate::pbft::sign::Digest;
use serde::{Deserialize, Serialize};
use sim_core::Name;
use std::collections::BTreeMap;
use std::fmt;

/// What a client asks the service to do; also the scenario command a client obeys
/// (`Command("c1", Put("x", "1"))`). Keys and values are interned (see [`sim_core::Name`]):
/// they come from the scenario's commands, and a request is copied into every PRE-PREPARE
/// and every replica's log.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Op {
    /// Set `key` to `value`; the result is the value it had.
    Put(Name, Name),
    /// Read `key`; the result is its value.
    Get(Name),
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Put(key, value) => write!(f, "put {key}={value}"),
            Op::Get(key) => write!(f, "get {key}"),
        }
    }
}

impl fmt::Debug for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// The result of an operation: a value, or none.
pub type OpResult = Option<Name>;

/// The key-value map.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Service {
    map: BTreeMap<Name, Name>,
}

impl Service {
    /// Executes `op` and returns its result.
    pub fn apply(&mut self, op: &Op) -> OpResult {
        match op {
            Op::Put(key, value) => self.map.insert(key.clone(), value.clone()),
            Op::Get(key) => self.map.get(key).cloned(),
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.map.get(key).map(Name::as_str)
    }

    /// The digest of the state, for checkpoints.
    pub fn digest(&self) -> Digest {
        Digest::of(&self.map)
    }
}
