//! The state machine the log drives: a key-value map that applies each client's write once.
//!
//! "If any given state machine applies a command, no other state machine will apply a
//! different command for the same log index" (state machine safety). A client that retries
//! may get its write into the log twice; as in §8 of the paper, the state machine remembers
//! each client's last request number and applies a repeat as a no-op, answering with the
//! index of the first.

use crate::raft::log::Write;
use sim_core::Name;
use std::collections::BTreeMap;

/// The key-value map and each client's last applied request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Kv {
    values: BTreeMap<Name, Name>,
    /// Client -> (its last applied request number, the index it was applied at).
    last: BTreeMap<Name, (u64, u64)>,
}

impl Kv {
    /// Applies `write` found at log `index`: the index it took effect at (an earlier one for a
    /// repeat of a request already applied).
    pub fn apply(&mut self, write: &Write, index: u64) -> u64 {
        if let Some(&(seq, at)) = self.last.get(&write.client)
            && write.seq <= seq
        {
            return at;
        }
        self.values.insert(write.key.clone(), write.value.clone());
        self.last.insert(write.client.clone(), (write.seq, index));
        index
    }

    /// Where the client's request `seq` was applied, if it was.
    pub fn applied_at(&self, client: &str, seq: u64) -> Option<u64> {
        self.last
            .get(client)
            .filter(|&&(last, _)| last == seq)
            .map(|&(_, at)| at)
    }

    /// The value of `key`, if written.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(Name::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(client: &str, seq: u64, value: &str) -> Write {
        Write {
            client: client.into(),
            seq,
            key: "x".into(),
            value: value.into(),
        }
    }

    // Goal: a retried write applies once. Method: apply c1#1 at 2, again at 3, then c1#2.
    // Proves: the repeat is a no-op answered with index 2; a newer request applies.
    #[test]
    fn a_repeated_request_applies_once() {
        let mut kv = Kv::default();
        assert_eq!(kv.apply(&put("c1", 1, "a"), 2), 2);
        assert_eq!(kv.apply(&put("c1", 1, "a"), 3), 2);
        assert_eq!(kv.applied_at("c1", 1), Some(2));
        assert_eq!(kv.apply(&put("c1", 2, "b"), 4), 4);
        assert_eq!(kv.get("x"), Some("b"));
        assert_eq!(kv.applied_at("c1", 1), None);
    }
}
