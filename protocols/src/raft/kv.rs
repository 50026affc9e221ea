//! The state machine the log drives: a key-value map that applies each client's write once.
//!
//! "If any given state machine applies a command, no other state machine will apply a
//! different command for the same log index" (state machine safety). A client that retries
//! may get its write into the log twice; as in §8 of the paper, the state machine remembers
//! each client's last request number and applies a repeat as a no-op, answering with the
//! index of the first.

use crate::linearizability::KvRet;
use crate::raft::log::{Request, Write};
use serde::{Deserialize, Serialize};
use sim_core::Name;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What the state machine answers a request: kept with the client's last request, so that a
/// repeat gets the first answer, not a second effect.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Answer {
    /// A put or an append took effect (left out of the trace).
    #[default]
    Written,
    /// A read saw this value (`None`: the key was never written).
    Value(Option<String>),
    /// A compare-and-set swapped (`true`) or found another value.
    Swapped(bool),
}

impl Answer {
    /// Whether this is a write's answer (what a trace leaves out).
    pub fn is_written(&self) -> bool {
        *self == Answer::Written
    }

    /// The answer as the linearizability check's key-value map gives it.
    pub fn kv_ret(&self) -> KvRet {
        match self {
            Answer::Written => KvRet::Done,
            Answer::Value(value) => KvRet::Value(value.clone()),
            Answer::Swapped(swapped) => KvRet::Swapped(*swapped),
        }
    }
}

/// The key-value map and each client's last applied request. Values are counted references,
/// not interned names: an append makes a new value at every step of a run, and interned
/// texts live as long as the process (a search of many seeds would keep every one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Kv {
    values: BTreeMap<Name, Arc<str>>,
    /// Client -> (its last applied request number, the index it was applied at, the answer).
    last: BTreeMap<Name, (u64, u64, Answer)>,
}

impl Kv {
    /// Applies `write` found at log `index`: the index it took effect at (an earlier one for a
    /// repeat of a request already applied) and the answer. With `forget` (a bug knob) no
    /// request is known as a repeat: a retried append is applied twice.
    pub fn apply(&mut self, write: &Write, index: u64, forget: bool) -> (u64, Answer) {
        if let Some((seq, at, answer)) = self.last.get(&write.client)
            && write.seq <= *seq
            && !forget
        {
            return (*at, answer.clone());
        }
        let (key, value) = (&write.key, &write.value);
        let answer = match &write.request {
            Request::Put => {
                self.values.insert(key.clone(), Arc::from(value.as_str()));
                Answer::Written
            }
            Request::Get => self.read(key),
            Request::Append => {
                let now = self.get(key).unwrap_or("");
                let appended = Arc::from(format!("{now}{value}"));
                self.values.insert(key.clone(), appended);
                Answer::Written
            }
            Request::Cas(expected) => {
                let swapped = self.get(key) == expected.as_ref().map(Name::as_str);
                if swapped {
                    self.values.insert(key.clone(), Arc::from(value.as_str()));
                }
                Answer::Swapped(swapped)
            }
        };
        self.last
            .insert(write.client.clone(), (write.seq, index, answer.clone()));
        (index, answer)
    }

    /// Where the client's request `seq` was applied and its answer, if it was.
    pub fn applied_at(&self, client: &str, seq: u64) -> Option<(u64, Answer)> {
        self.last
            .get(client)
            .filter(|(last, _, _)| *last == seq)
            .map(|(_, at, answer)| (*at, answer.clone()))
    }

    /// The value of `key`, if written.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(|v| &**v)
    }

    /// The value of `key` as a read answers it.
    pub fn read(&self, key: &str) -> Answer {
        Answer::Value(self.get(key).map(str::to_owned))
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
            request: Request::Put,
        }
    }

    // Goal: a retried write applies once. Method: apply c1#1 at 2, again at 3, then c1#2.
    // Proves: the repeat is a no-op answered with index 2; a newer request applies.
    #[test]
    fn a_repeated_request_applies_once() {
        let mut kv = Kv::default();
        assert_eq!(kv.apply(&put("c1", 1, "a"), 2, false).0, 2);
        assert_eq!(kv.apply(&put("c1", 1, "a"), 3, false).0, 2);
        assert_eq!(kv.applied_at("c1", 1), Some((2, Answer::Written)));
        assert_eq!(kv.apply(&put("c1", 2, "b"), 4, false).0, 4);
        assert_eq!(kv.get("x"), Some("b"));
        assert_eq!(kv.applied_at("c1", 1), None);
    }
}
