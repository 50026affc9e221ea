//! The sequential key-value map a replicated store must look like to its clients: put, get,
//! append and compare-and-set, each on one key (so a history splits by key).

use super::Spec;
use super::timed::Partitioned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A map from keys to values, every key absent at first.
#[derive(Clone, Debug, Default, Hash, PartialEq, Eq, PartialOrd, Ord)]
pub struct KvMap(pub BTreeMap<String, String>);

/// An operation on a [`KvMap`].
#[derive(Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum KvOp {
    /// Set `key` to `value`.
    Put(String, String),
    /// Read `key`.
    Get(String),
    /// Add `value` at the end of `key`'s value (an absent key counts as empty).
    Append(String, String),
    /// Set `key` to the third value if it holds the second (`None`: if it is absent).
    Cas(String, Option<String>, String),
}

/// What an operation on a [`KvMap`] returns.
#[derive(Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum KvRet {
    /// A put or an append is done.
    Done,
    /// A get saw this value (`None`: the key was absent).
    Value(Option<String>),
    /// A compare-and-set swapped (`true`) or found another value (`false`).
    Swapped(bool),
}

impl KvOp {
    /// The key the operation touches.
    pub fn key(&self) -> &str {
        match self {
            KvOp::Put(key, _) | KvOp::Get(key) | KvOp::Append(key, _) | KvOp::Cas(key, _, _) => key,
        }
    }
}

impl Spec for KvMap {
    type Op = KvOp;
    type Ret = KvRet;

    fn invoke(&mut self, op: &KvOp) -> KvRet {
        match op {
            KvOp::Put(key, value) => {
                self.0.insert(key.clone(), value.clone());
                KvRet::Done
            }
            KvOp::Get(key) => KvRet::Value(self.0.get(key).cloned()),
            KvOp::Append(key, value) => {
                self.0.entry(key.clone()).or_default().push_str(value);
                KvRet::Done
            }
            KvOp::Cas(key, expected, new) => {
                let swapped = self.0.get(key) == expected.as_ref();
                if swapped {
                    self.0.insert(key.clone(), new.clone());
                }
                KvRet::Swapped(swapped)
            }
        }
    }

    fn describe(op: &KvOp) -> String {
        match op {
            KvOp::Put(key, value) => format!("put({key}, {value})"),
            KvOp::Get(key) => format!("get({key})"),
            KvOp::Append(key, value) => format!("append({key}, {value})"),
            KvOp::Cas(key, expected, new) => {
                format!(
                    "cas({key}, {} -> {new})",
                    expected.as_deref().unwrap_or("absent")
                )
            }
        }
    }

    fn outcome(ret: &KvRet, es: bool) -> String {
        match (ret, es) {
            (KvRet::Done, false) => "returned".to_owned(),
            (KvRet::Done, true) => "terminó".to_owned(),
            (KvRet::Value(Some(value)), false) => format!("returned {value}"),
            (KvRet::Value(Some(value)), true) => format!("devolvió {value}"),
            (KvRet::Value(None), false) => "returned nothing".to_owned(),
            (KvRet::Value(None), true) => "no devolvió nada".to_owned(),
            (KvRet::Swapped(true), false) => "swapped".to_owned(),
            (KvRet::Swapped(true), true) => "hizo el cambio".to_owned(),
            (KvRet::Swapped(false), false) => "failed to swap".to_owned(),
            (KvRet::Swapped(false), true) => "no hizo el cambio".to_owned(),
        }
    }
}

impl Partitioned for KvMap {
    type Part = String;
    fn part(op: &KvOp) -> String {
        op.key().to_owned()
    }
}
