//! The replicated log: entries of (term, command), indexed from 1, and the up-to-date order.
//!
//! "Each log entry stores a state machine command along with the term number when the entry
//! was received by the leader" (§5.3). A scenario can start a node with entries it already
//! holds; those have no command (`write: None`): the scenario says only their terms, which
//! [`crate::raft::config::validate`] checks are consistent between nodes (the log matching
//! property must hold from the start). Election reads the last entry only ([`Log::last`]).

use crate::kvstore::OpRef;
use serde::{Deserialize, Serialize};
use sim_core::Name;
use std::fmt;

/// The (term, index) of a log's last entry: all the election restriction looks at.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(deny_unknown_fields)]
pub struct LastEntry {
    /// lastLogTerm: the term of the last entry (0 for an empty log).
    pub term: u64,
    /// lastLogIndex: the index of the last entry, from 1 (0 for an empty log).
    pub index: u64,
}

impl LastEntry {
    /// The paper's §5.4.1 comparison: "If the logs have last entries with different terms, then
    /// the log with the later term is more up-to-date. If the logs end with the same term, then
    /// whichever log is longer is more up-to-date." True when `self` is at least as up to date.
    pub fn is_at_least_as_up_to_date_as(self, other: LastEntry) -> bool {
        (self.term, self.index) >= (other.term, other.index)
    }
}

impl fmt::Display for LastEntry {
    /// The lesson's notation: `(1,5)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.term, self.index)
    }
}

/// A client's write, the command of an entry: `key = value`, tagged with the client and its
/// request number so that a retried request is applied once. Its texts are interned (see
/// [`sim_core::Name`]): they come from the scenario's commands, and an entry is copied into
/// every `AppendEntries` that carries it, every follower's log and the checkers' copies of the
/// logs, each copy a few pointers with no allocation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Write {
    /// The client's name.
    pub client: Name,
    /// The client's request number (from 1).
    pub seq: u64,
    /// The key written.
    pub key: Name,
    /// The value written (empty for a read).
    pub value: Name,
    /// What the request does: a put (the default, and the only request of the lessons), a
    /// read, an append or a compare-and-set. Left out of the trace for a put.
    #[serde(default, skip_serializing_if = "Request::is_put")]
    pub request: Request,
}

/// What a client's request does to its key; every request goes through the log, reads too,
/// so that each takes effect at one point of the log's order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Request {
    /// Set the key to the value.
    #[default]
    Put,
    /// Read the key.
    Get,
    /// Add the value at the end of the key's.
    Append,
    /// Set the key to the value if it holds this one (`None`: if it is absent).
    Cas(Option<Name>),
}

impl Request {
    /// Whether this is a plain write (what a trace leaves out).
    pub fn is_put(&self) -> bool {
        *self == Request::Put
    }

    /// This request on `key` with `value` (unused by a read), as the state machine applies it.
    pub fn op<'a>(&'a self, key: &'a str, value: &'a str) -> OpRef<'a> {
        match self {
            Request::Put => OpRef::Put(key, value),
            Request::Get => OpRef::Get(key),
            Request::Append => OpRef::Append(key, value),
            Request::Cas(expected) => OpRef::Cas(key, expected.as_ref().map(Name::as_str), value),
        }
    }
}

impl Write {
    /// The request as the state machine applies it.
    pub fn op(&self) -> OpRef<'_> {
        self.request.op(&self.key, &self.value)
    }
}

impl Write {
    /// What the request does, short: `x=1`; `get x`, `x+=a`, `x=2 if 1` for the others.
    pub fn effect(&self) -> String {
        let (key, value) = (&self.key, &self.value);
        match &self.request {
            Request::Put => format!("{key}={value}"),
            Request::Get => format!("get {key}"),
            Request::Append => format!("{key}+={value}"),
            Request::Cas(Some(expected)) => format!("{key}={value} if {expected}"),
            Request::Cas(None) => format!("{key}={value} if absent"),
        }
    }
}

impl fmt::Display for Write {
    /// `x=1 (c1#1)`: the [`Write::effect`], the client and its request number.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}#{})", self.effect(), self.client, self.seq)
    }
}

/// One log entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Entry {
    /// The term of the leader that received it.
    pub term: u64,
    /// The command, or `None` for an entry the scenario started the node with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write: Option<Write>,
}

impl Entry {
    /// An entry the node started with: a term and no command.
    pub fn given(term: u64) -> Entry {
        Entry { term, write: None }
    }
}

impl fmt::Display for Entry {
    /// `t2 x=1 (c1#1)`, or `t1` for a given entry.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.write {
            Some(w) => write!(f, "t{} {w}", self.term),
            None => write!(f, "t{}", self.term),
        }
    }
}

/// A node's log. Index 1 is the first entry; index 0 is the empty prefix (term 0).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Log {
    entries: Vec<Entry>,
}

impl Log {
    /// A log of `index` entries of term `term` (the short form `log: (term: 1, index: 5)`).
    pub fn new(term: u64, index: u64) -> Log {
        Log {
            entries: (0..index).map(|_| Entry::given(term)).collect(),
        }
    }

    /// A log holding given entries of these terms, in order (index 1 first).
    pub fn from_entry_terms(terms: &[u64]) -> Log {
        Log {
            entries: terms.iter().map(|&t| Entry::given(t)).collect(),
        }
    }

    /// The last entry's (term, index).
    pub fn last(&self) -> LastEntry {
        LastEntry {
            term: self.last_term(),
            index: self.last_index(),
        }
    }
    /// lastLogTerm.
    pub fn last_term(&self) -> u64 {
        self.entries.last().map_or(0, |e| e.term)
    }
    /// lastLogIndex.
    pub fn last_index(&self) -> u64 {
        self.entries.len() as u64
    }
    /// Whether this log is at least as up to date as one ending at (`term`, `index`).
    pub fn is_at_least_as_up_to_date_as(&self, term: u64, index: u64) -> bool {
        self.last()
            .is_at_least_as_up_to_date_as(LastEntry { term, index })
    }

    /// The entry at `index` (from 1), if there is one.
    pub fn get(&self, index: u64) -> Option<&Entry> {
        let i = usize::try_from(index.checked_sub(1)?).ok()?;
        self.entries.get(i)
    }

    /// The term of the entry at `index`: 0 for index 0, `None` past the end.
    pub fn term_at(&self, index: u64) -> Option<u64> {
        if index == 0 {
            Some(0)
        } else {
            self.get(index).map(|e| e.term)
        }
    }

    /// Entries from `index` (from 1) to the end, at most `max` of them.
    pub fn from(&self, index: u64, max: usize) -> Vec<Entry> {
        let start = usize::try_from(index.saturating_sub(1)).unwrap_or(usize::MAX);
        self.entries.iter().skip(start).take(max).cloned().collect()
    }

    /// Appends one entry; returns its index.
    pub fn push(&mut self, entry: Entry) -> u64 {
        self.entries.push(entry);
        self.last_index()
    }

    /// Keeps the first `kept` entries and drops the rest.
    pub fn truncate(&mut self, kept: u64) {
        self.entries
            .truncate(usize::try_from(kept).unwrap_or(usize::MAX));
    }

    /// Every entry, index 1 first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The terms of the entries, index 1 first: how the course draws a log.
    pub fn terms(&self) -> Vec<u64> {
        self.entries.iter().map(|e| e.term).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Goal: the up-to-date order of §5.4.1. Method: compare logs differing in term, then index.
    // Proves: a later last term wins even when shorter; with equal terms the longer log wins;
    // equal logs are at least as up to date as each other.
    #[test]
    fn up_to_date_compares_last_term_then_last_index() {
        let log = Log::new(1, 5);
        assert!(log.is_at_least_as_up_to_date_as(1, 3));
        assert!(log.is_at_least_as_up_to_date_as(1, 5));
        assert!(!log.is_at_least_as_up_to_date_as(1, 6));
        assert!(!log.is_at_least_as_up_to_date_as(2, 1));
        assert!(Log::new(2, 1).is_at_least_as_up_to_date_as(1, 9));
        assert_eq!(
            Log::from_entry_terms(&[1, 1, 2]).last().to_string(),
            "(2,3)"
        );
        assert_eq!(Log::from_entry_terms(&[]).last(), LastEntry::default());
    }

    // Goal: indexing from 1 with index 0 as the empty prefix. Method: read, slice, truncate.
    // Proves: term_at(0) is 0, past the end is None; from() and truncate() count from 1.
    #[test]
    fn entries_are_indexed_from_one() {
        let mut log = Log::from_entry_terms(&[1, 1, 2]);
        assert_eq!(log.term_at(0), Some(0));
        assert_eq!(log.term_at(3), Some(2));
        assert_eq!(log.term_at(4), None);
        assert_eq!(log.from(2, 10), vec![Entry::given(1), Entry::given(2)]);
        assert_eq!(log.from(3, 0), Vec::<Entry>::new());
        assert_eq!(log.from(9, 10), Vec::<Entry>::new());
        log.truncate(1);
        assert_eq!(log.terms(), vec![1]);
        assert_eq!(log.push(Entry::given(3)), 2);
        assert_eq!(log.last().to_string(), "(3,2)");
    }
}
