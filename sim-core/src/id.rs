//! Identifiers the kernel hands out: nodes and messages.
//!
//! A node's identity in a run is its index in the order nodes were added; its name (the course's
//! "relay-1", "nodo-3") is what traces and people see. This module knows nothing about either's
//! meaning beyond that.

use serde::{Deserialize, Serialize};
pub(crate) mod renaming;

use std::collections::BTreeSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, PoisonError};

/// A node of the simulation: its index in the order nodes were added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct NodeId(pub u32);

impl Hash for NodeId {
    /// The id as a `u32`; while a search hashes a state under a renaming of interchangeable
    /// nodes (see [`crate::symmetry`]), the renamed id.
    fn hash<H: Hasher>(&self, state: &mut H) {
        renaming::renamed_id(self.0).hash(state);
    }
}

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

/// A node's name as it appears in traces. Names are interned: each distinct text is kept once
/// for the life of the process, so a record copies a name as two words, with no allocation and
/// no reference count to touch (a run makes a record per step, each naming one or two nodes).
/// Names come from scenario files, configs and trace files, and a message to a node that does
/// not exist names it `#<id>`: the texts kept are few unless a file or a protocol bug makes
/// them many (each is kept until the process ends). A name reads, compares, orders and hashes
/// as its text, and writes and reads as a plain string.
#[derive(Clone, PartialOrd, Ord)]
pub struct Name(&'static str);

/// As the text, like a `str` (stable hashes of states that hold names depend on it).
impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// Two names are equal when they are the one kept copy: interning makes that the same as
/// equal text, in one comparison.
impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Name {}

impl Name {
    /// The one copy of `text` kept for this process.
    fn intern(text: &str) -> Name {
        static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
        let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&kept) = names.get(text) {
            return Name(kept);
        }
        let kept: &'static str = Box::leak(text.into());
        names.insert(kept);
        Name(kept)
    }

    /// The name's text, for as long as the process lives.
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.0
    }
}

impl From<&str> for Name {
    fn from(text: &str) -> Name {
        Name::intern(text)
    }
}

impl From<String> for Name {
    fn from(text: String) -> Name {
        Name::intern(&text)
    }
}

impl From<&String> for Name {
    fn from(text: &String) -> Name {
        Name::intern(text)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Name, D::Error> {
        /// Interns the text where the format lends it, without a copy of its own.
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Name, E> {
                Ok(Name::intern(text))
            }
        }
        deserializer.deserialize_str(Text)
    }
}

/// A node's name kept in a state that a search hashes: an invariant's memory of who did what
/// ("n1 led term 2"), which is read from records and so holds names, not ids. It hashes as
/// its text; while a search hashes a state under a renaming of interchangeable nodes (see
/// [`crate::symmetry`]), as the renamed node's name. Keep names in hashed state as this type,
/// never as a plain `String`, or symmetric states would not merge (and, were the protocol to
/// declare its nodes interchangeable, different ones could).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NodeName(pub Name);

impl Hash for NodeName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        renaming::hash_name(&self.0, state);
    }
}

impl std::ops::Deref for NodeName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for NodeName {
    fn from(name: &str) -> Self {
        NodeName(Name::from(name))
    }
}

impl From<Name> for NodeName {
    fn from(name: Name) -> Self {
        NodeName(name)
    }
}

impl From<&Name> for NodeName {
    fn from(name: &Name) -> Self {
        NodeName(name.clone())
    }
}

impl fmt::Display for NodeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<Name> for NodeName {
    fn eq(&self, other: &Name) -> bool {
        self.0 == *other
    }
}

impl PartialEq<str> for NodeName {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for NodeName {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl std::borrow::Borrow<str> for NodeName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// A message sent in a run, numbered in sending order from 1. A network duplicate keeps the id of
/// the message it copies.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct MsgId(pub u64);

#[cfg(test)]
mod tests {
    use super::*;

    /// One text is one name, whichever way it was made or read; names order, hash and write
    /// as their text.
    #[test]
    fn a_name_is_its_text_kept_once() {
        let made = Name::from("relay-1");
        let read: Name = serde_json::from_str("\"relay-1\"").unwrap();
        assert!(std::ptr::eq(made.as_str(), read.as_str()));
        assert_eq!(made, read);
        assert_ne!(made, Name::from(String::from("relay-2")));
        let (a1, a2) = (Name::from("a1"), Name::from("a2"));
        assert_eq!(a1.cmp(&a2), std::cmp::Ordering::Less);
        assert_eq!(serde_json::to_string(&made).unwrap(), "\"relay-1\"");
        assert_eq!(format!("{made} {made:?}"), "relay-1 \"relay-1\"");
        assert_eq!(
            crate::hash::stable_hash(&made),
            crate::hash::stable_hash(&"relay-1")
        );
    }
}
