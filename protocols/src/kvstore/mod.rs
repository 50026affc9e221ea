//! # kvstore: the key-value state machine a replicated log drives, and its clients' history
//!
//! No protocol: what Raft's and Multi-Paxos's key-value stores share. [`Kv`] is the state
//! machine every replica applies the log to, in log order: put, get, append and
//! compare-and-set, each client's last request remembered with its answer, so that a request
//! logged twice (a client's retry) takes effect once and the retry gets the first answer
//! (Raft's §8; "at most once" through client ids and sequence numbers). [`history`] reads the
//! clients' calls and returns from a run's notes and checks them for linearizability.
//!
//! The map here and [`crate::linearizability::KvMap`] apply the same four operations on
//! purpose: this one is the implementation under test, that one its specification.

pub mod history;

use crate::linearizability::KvOp;
use crate::linearizability::KvRet;
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

/// How a leader answers a read: Raft's and Multi-Paxos's `reads` setting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Reads {
    /// Logged, chosen and applied like a write (linearizable).
    #[default]
    ThroughLog,
    /// From the leader's own state machine at once, without asking anyone whether it still
    /// leads: one round trip less, and stale when a deposed leader, cut off from the others,
    /// does not know it is deposed.
    LeaderLocal,
}

impl Reads {
    /// Whether this is the default (what a config leaves out when written).
    pub fn is_through_log(&self) -> bool {
        *self == Reads::ThroughLog
    }
}

/// An operation of a request, borrowed from wherever a protocol keeps it (Raft's log entry,
/// Multi-Paxos's slot value), so that applying it copies nothing but a new value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpRef<'a> {
    /// Set the key (first) to the value (second).
    Put(&'a str, &'a str),
    /// Read the key.
    Get(&'a str),
    /// Add the value at the end of the key's (an absent key counts as empty).
    Append(&'a str, &'a str),
    /// Set the key to the third text if it holds the second (`None`: if it is absent).
    Cas(&'a str, Option<&'a str>, &'a str),
}

impl OpRef<'_> {
    /// The operation as the linearizability check's key-value map takes it.
    pub fn to_kv_op(self) -> KvOp {
        match self {
            OpRef::Put(key, value) => KvOp::Put(key.into(), value.into()),
            OpRef::Get(key) => KvOp::Get(key.into()),
            OpRef::Append(key, value) => KvOp::Append(key.into(), value.into()),
            OpRef::Cas(key, expected, value) => {
                KvOp::Cas(key.into(), expected.map(str::to_owned), value.into())
            }
        }
    }
}

impl<'a> From<&'a KvOp> for OpRef<'a> {
    fn from(op: &'a KvOp) -> Self {
        match op {
            KvOp::Put(key, value) => OpRef::Put(key, value),
            KvOp::Get(key) => OpRef::Get(key),
            KvOp::Append(key, value) => OpRef::Append(key, value),
            KvOp::Cas(key, expected, value) => OpRef::Cas(key, expected.as_deref(), value),
        }
    }
}

/// The key-value map and each client's last applied request. Values are counted references,
/// not interned names: an append makes a new value at every step of a run, and interned
/// texts live as long as the process (a search of many seeds would keep every one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Kv {
    values: BTreeMap<String, Arc<str>>,
    /// Client -> (its last applied request number, the index it was applied at, the answer).
    last: BTreeMap<Name, (u64, u64, Answer)>,
}

impl Kv {
    /// Applies client `client`'s request `seq`, `op`, found at log `index`: the index it took
    /// effect at (an earlier one for a repeat of a request already applied) and the answer.
    /// With `forget` (a bug knob) no request is known as a repeat: a retried append is applied
    /// twice.
    pub fn apply(
        &mut self,
        client: &Name,
        seq: u64,
        op: OpRef<'_>,
        index: u64,
        forget: bool,
    ) -> (u64, Answer) {
        if let Some((last, at, answer)) = self.last.get(client)
            && seq <= *last
            && !forget
        {
            return (*at, answer.clone());
        }
        let answer = match op {
            OpRef::Put(key, value) => {
                self.set(key, Arc::from(value));
                Answer::Written
            }
            OpRef::Get(key) => self.read(key),
            OpRef::Append(key, value) => {
                let now = self.get(key).unwrap_or("");
                let appended = Arc::from(format!("{now}{value}"));
                self.set(key, appended);
                Answer::Written
            }
            OpRef::Cas(key, expected, value) => {
                let swapped = self.get(key) == expected;
                if swapped {
                    self.set(key, Arc::from(value));
                }
                Answer::Swapped(swapped)
            }
        };
        self.last
            .insert(client.clone(), (seq, index, answer.clone()));
        (index, answer)
    }

    fn set(&mut self, key: &str, value: Arc<str>) {
        match self.values.get_mut(key) {
            Some(slot) => *slot = value,
            None => {
                self.values.insert(key.to_owned(), value);
            }
        }
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

/// What a request asks, after "asks S1 to" or "pido a S1".
pub fn request_words(op: OpRef<'_>, es: bool) -> String {
    match (op, es) {
        (OpRef::Put(key, value), false) => format!("write {key}={value}"),
        (OpRef::Put(key, value), true) => format!("escribir {key}={value}"),
        (OpRef::Get(key), false) => format!("read {key}"),
        (OpRef::Get(key), true) => format!("leer {key}"),
        (OpRef::Append(key, value), false) => format!("append {value} to {key}"),
        (OpRef::Append(key, value), true) => format!("añadir {value} al final de {key}"),
        (OpRef::Cas(key, Some(old), value), false) => {
            format!("set {key}={value} if it holds {old}")
        }
        (OpRef::Cas(key, Some(old), value), true) => format!("poner {key}={value} si vale {old}"),
        (OpRef::Cas(key, None, value), false) => format!("set {key}={value} if it is absent"),
        (OpRef::Cas(key, None, value), true) => format!("poner {key}={value} si no existe"),
    }
}

/// What a read or a compare-and-set answered, after "request 3" (nothing for a write).
pub fn answer_words(answer: &Answer, es: bool) -> String {
    match (answer, es) {
        (Answer::Written, _) => String::new(),
        (Answer::Value(Some(value)), false) => format!(" with {value}"),
        (Answer::Value(Some(value)), true) => format!(" con {value}"),
        (Answer::Value(None), false) => " with nothing (never written)".to_owned(),
        (Answer::Value(None), true) => " sin valor (nunca escrita)".to_owned(),
        (Answer::Swapped(true), false) => " (swapped)".to_owned(),
        (Answer::Swapped(true), true) => " (cambiada)".to_owned(),
        (Answer::Swapped(false), false) => " (not swapped: another value)".to_owned(),
        (Answer::Swapped(false), true) => " (sin cambio: otro valor)".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Goal: a retried write applies once. Method: apply c1#1 at 2, again at 3, then c1#2.
    // Proves: the repeat is a no-op answered with index 2; a newer request applies.
    #[test]
    fn a_repeated_request_applies_once() {
        let mut kv = Kv::default();
        let c1 = Name::from("c1");
        assert_eq!(kv.apply(&c1, 1, OpRef::Append("x", "a"), 2, false).0, 2);
        assert_eq!(kv.apply(&c1, 1, OpRef::Append("x", "a"), 3, false).0, 2);
        assert_eq!(kv.applied_at("c1", 1), Some((2, Answer::Written)));
        assert_eq!(kv.get("x"), Some("a"));
        assert_eq!(kv.apply(&c1, 2, OpRef::Put("x", "b"), 4, false).0, 4);
        assert_eq!(kv.get("x"), Some("b"));
        assert_eq!(kv.applied_at("c1", 1), None);
    }

    // Goal: the knob does what it says. Method: the same append twice with `forget`.
    // Proves: it is applied twice ("aa"), which the linearizability check then catches.
    #[test]
    fn forgetting_requests_applies_a_retry_twice() {
        let mut kv = Kv::default();
        let c1 = Name::from("c1");
        kv.apply(&c1, 1, OpRef::Append("x", "a"), 1, true);
        kv.apply(&c1, 1, OpRef::Append("x", "a"), 2, true);
        assert_eq!(kv.get("x"), Some("aa"));
    }

    // Goal: compare-and-set compares with the value or its absence. Method: cas on an absent
    // key, then with a wrong and a right expected value. Proves: each answer and effect.
    #[test]
    fn compare_and_set_swaps_only_on_a_match() {
        let mut kv = Kv::default();
        let c1 = Name::from("c1");
        let cas = |kv: &mut Kv, seq, expected, new| {
            kv.apply(&c1, seq, OpRef::Cas("x", expected, new), seq, false)
                .1
        };
        assert_eq!(cas(&mut kv, 1, None, "1"), Answer::Swapped(true));
        assert_eq!(cas(&mut kv, 2, Some("2"), "3"), Answer::Swapped(false));
        assert_eq!(cas(&mut kv, 3, Some("1"), "3"), Answer::Swapped(true));
        assert_eq!(kv.read("x"), Answer::Value(Some("3".into())));
    }
}
