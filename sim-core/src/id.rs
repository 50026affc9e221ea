//! Identifiers the kernel hands out: nodes and messages.
//!
//! A node's identity in a run is its index in the order nodes were added; its name (the course's
//! "relay-1", "nodo-3") is what traces and people see. This module knows nothing about either's
//! meaning beyond that.

use serde::{Deserialize, Serialize};
mod name;
pub(crate) mod renaming;

pub use name::Name;

use std::fmt;
use std::hash::{Hash, Hasher};

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
