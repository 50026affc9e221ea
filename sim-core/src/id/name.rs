//! A node's name, or another short text that runs copy at every step: interned, so that copying
//! one touches no reference count. Its own module, so that nothing else in `id` can make a
//! `Name` without interning it (equality compares pointers, which is right only for interned
//! names).

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Mutex, PoisonError};

/// A node's name as it appears in traces, or another short text that messages, logs and notes
/// copy at every step. Names are interned: each distinct text is kept once for the life of the
/// process, so a record copies a name as two words, with no allocation and no reference count
/// to touch (a run makes a record per step, each naming one or two nodes). Names come from
/// scenario files, configs and trace files, and a message to a node that does not exist names
/// it `#<id>`. The other texts interned this way come from files too, or one per such text:
/// Paxos's values, Raft's client writes, PBFT's operations and results (a lying replica's
/// result is a true one with `?` added), the lease service's keys and values. So the texts
/// kept are few unless a file or a protocol bug makes them many (each is kept until the
/// process ends). A name reads, compares, orders and hashes as its text, and writes and reads
/// as a plain string.
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
