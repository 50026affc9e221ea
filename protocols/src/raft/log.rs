//! The fixed log behind a small interface.
//!
//! The lesson does not replicate the log: each node holds a fixed log so that the election
//! restriction (RequestVote's up-to-date check) can be shown. Election only ever asks a log for
//! its last entry, so that is all [`RaftLog`] promises today; log replication (a later issue) can
//! grow the trait (append, entries from an index) and add a real implementation beside
//! [`FixedLog`].

use serde::{Deserialize, Serialize};
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

/// What leader election needs from a log. Kept small on purpose; replication will extend it.
pub trait RaftLog {
    /// The last entry's (term, index).
    fn last(&self) -> LastEntry;
    /// lastLogTerm.
    fn last_term(&self) -> u64 {
        self.last().term
    }
    /// lastLogIndex.
    fn last_index(&self) -> u64 {
        self.last().index
    }
    /// Whether this log is at least as up to date as one ending at (`term`, `index`).
    fn is_at_least_as_up_to_date_as(&self, term: u64, index: u64) -> bool {
        self.last()
            .is_at_least_as_up_to_date_as(LastEntry { term, index })
    }
}

/// A log that never changes: the lesson's `(ultimo_termino, ultimo_indice)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FixedLog {
    last: LastEntry,
}

impl FixedLog {
    /// A log whose last entry is (`term`, `index`).
    pub fn new(term: u64, index: u64) -> FixedLog {
        FixedLog {
            last: LastEntry { term, index },
        }
    }

    /// A log holding entries of these terms, in order (index 1 first).
    pub fn from_entry_terms(terms: &[u64]) -> FixedLog {
        FixedLog::new(terms.last().copied().unwrap_or(0), terms.len() as u64)
    }
}

impl RaftLog for FixedLog {
    fn last(&self) -> LastEntry {
        self.last
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
        let log = FixedLog::new(1, 5);
        assert!(log.is_at_least_as_up_to_date_as(1, 3));
        assert!(log.is_at_least_as_up_to_date_as(1, 5));
        assert!(!log.is_at_least_as_up_to_date_as(1, 6));
        assert!(!log.is_at_least_as_up_to_date_as(2, 1));
        assert!(FixedLog::new(2, 1).is_at_least_as_up_to_date_as(1, 9));
        assert_eq!(
            FixedLog::from_entry_terms(&[1, 1, 2]).last().to_string(),
            "(2,3)"
        );
        assert_eq!(FixedLog::from_entry_terms(&[]).last(), LastEntry::default());
    }
}
