//! What several protocols need alike and no protocol owns: a read-only setup shared by every
//! node and left out of state hashes, and the config check of node names. Not a protocol:
//! protocols still never depend on each other.

use sim_core::{ConfigProblem, NodeId};

/// The most nodes a protocol config may describe (servers, replicas and clients together): a
/// file bounds what it makes the simulator hold.
pub const MAX_NODES: usize = 64;
/// The longest timing a config may set, in ms: one hour.
pub const MAX_MS: u64 = 3_600_000;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

/// A config's read-only facts, shared by every node of a run and left out of a state's hash
/// and equality (they are the same in every state).
pub struct Shared<T>(pub Arc<T>);

impl<T> Shared<T> {
    /// `value`, to be shared.
    pub fn new(value: T) -> Shared<T> {
        Shared(Arc::new(value))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::hash::Hash for Shared<T> {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, _: &Shared<T>) -> bool {
        true
    }
}

impl<T> Eq for Shared<T> {}

impl<T> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Setup")
    }
}

/// Empty and repeated node names, each located at its quoted name; `roles` says which roles
/// must not share one ("the store, every relay and the resource").
pub fn name_problems(names: impl IntoIterator<Item = String>, roles: &str) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for name in names {
        if name.is_empty() {
            problems.push(ConfigProblem {
                locate: Some("\"\"".into()),
                message: "a node has an empty name: give every node a name".into(),
            });
        } else if !seen.insert(name.clone()) {
            problems.push(ConfigProblem {
                locate: Some(format!("\"{name}\"")),
                message: format!("\"{name}\" is used twice: {roles} need their own names"),
            });
        }
    }
    problems
}

/// An invariant's explanation in English (what the trace records) and in the course's Spanish
/// (what `--lang es` prints).
pub fn broke(en: String, es: String) -> sim_core::Broken {
    sim_core::Broken::from(en).also(traces::Lang::Es.tag(), es)
}

/// Several explanations as one, each language's texts joined with "; ".
pub fn broke_all(list: Vec<sim_core::Broken>) -> sim_core::Broken {
    let tag = traces::Lang::Es.tag();
    let en: Vec<&str> = list.iter().map(|b| b.text.as_str()).collect();
    let es: Vec<&str> = list.iter().map(|b| b.text_in(tag)).collect();
    broke(en.join("; "), es.join("; "))
}

/// A set of a run's nodes, one bit each (a config describes at most [`MAX_NODES`], so ids fit
/// in a `u64`): who accepted or refused a Paxos proposer's round, without an allocation,
/// iterated in id order as the `BTreeSet<NodeId>` it stands for. It hashes as a set of ids
/// (see `sim_core::symmetry::hash_set`), so interchangeable nodes renamed by a search rename
/// in it, and shows as a set of ids.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct NodeSet(u64);

impl fmt::Debug for NodeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl NodeSet {
    /// The node's bit. Panics past [`MAX_NODES`]: configs refuse more nodes.
    fn bit(id: NodeId) -> u64 {
        assert!(
            (id.0 as usize) < MAX_NODES,
            "node {id} is past the {MAX_NODES} a config may hold"
        );
        1 << id.0
    }

    /// Adds `id`; whether it was new.
    pub fn insert(&mut self, id: NodeId) -> bool {
        let new = self.0 & Self::bit(id) == 0;
        self.0 |= Self::bit(id);
        new
    }

    /// Removes `id`; whether it was there.
    pub fn remove(&mut self, id: &NodeId) -> bool {
        if !self.contains(id) {
            return false;
        }
        self.0 &= !Self::bit(*id);
        true
    }

    /// Whether `id` is in the set.
    pub fn contains(&self, id: &NodeId) -> bool {
        (id.0 as usize) < MAX_NODES && self.0 & (1 << id.0) != 0
    }

    /// How many nodes are in it.
    pub fn len(&self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The nodes in id order.
    pub fn iter(&self) -> NodeSetIter {
        NodeSetIter(Bits(self.0))
    }
}

/// The positions of the bits set in a `u64`, lowest first: a bit set's members (a
/// [`NodeSet`]'s ids, a Paxos ledger's acceptors by index).
#[derive(Clone, Debug)]
pub struct Bits(pub u64);

impl Iterator for Bits {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let at = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(at)
    }
}

/// A [`NodeSet`]'s nodes in id order.
#[derive(Clone, Debug)]
pub struct NodeSetIter(Bits);

impl Iterator for NodeSetIter {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        self.0.next().map(NodeId)
    }
}

impl IntoIterator for &NodeSet {
    type Item = NodeId;
    type IntoIter = NodeSetIter;
    fn into_iter(self) -> NodeSetIter {
        self.iter()
    }
}

impl std::hash::Hash for NodeSet {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        sim_core::symmetry::hash_set(self.iter(), state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::symmetry::AsSet;
    use std::collections::BTreeSet;

    proptest::proptest! {
        /// Goal: `NodeSet` is a drop-in for `BTreeSet<NodeId>`. Method: the same inserts and
        /// removes on both. Proves: the same answers, members in the same order, the same
        /// hash as the set hashed with `AsSet` (so state hashes did not change).
        #[test]
        fn node_set_acts_as_a_btree_set(ops in proptest::collection::vec((0u32..64, proptest::bool::ANY), 0..40)) {
            let mut bits = NodeSet::default();
            let mut tree = BTreeSet::new();
            for (id, add) in ops {
                let id = NodeId(id);
                if add {
                    proptest::prop_assert_eq!(bits.insert(id), tree.insert(id));
                } else {
                    proptest::prop_assert_eq!(bits.remove(&id), tree.remove(&id));
                }
                proptest::prop_assert_eq!(bits.contains(&id), tree.contains(&id));
            }
            proptest::prop_assert_eq!(bits.len(), tree.len());
            proptest::prop_assert_eq!(bits.iter().collect::<Vec<_>>(), tree.iter().copied().collect::<Vec<_>>());
            proptest::prop_assert_eq!(sim_core::hash::stable_hash(&bits), sim_core::hash::stable_hash(&AsSet(&tree)));
        }
    }
}
