//! Symmetry: nodes that are interchangeable, and states that are the same but for their names.
//!
//! Three acceptors run the same code and are told apart only by their ids, so a state and its
//! copy with two acceptors' names swapped have the same future, swapped: one breaks an
//! invariant exactly when the other does. An exhaustive search that merges such states visits
//! one state per class instead of up to 3! = 6 (`dsim explore --exhaustive --symmetry`).
//!
//! A state's *symmetric* hash is the smallest of its hashes taken under every renaming of the
//! interchangeable nodes (every permutation of each group). Two states that are renamings of
//! each other have the same set of renamed hashes, so the same smallest one; two states with
//! the same smallest one have renamed copies that hash alike, so (but for a hash collision)
//! they are renamings of each other: merging them is sound.
//!
//! A renaming is applied while hashing, not by copying the state: while one is in force on a
//! thread (while [`Symmetry::smallest`] hashes), a [`NodeId`]'s `Hash` writes the renamed id and a
//! [`NodeName`](crate::NodeName)'s the renamed name, wherever they sit in an actor, a message, a timer or an
//! invariant's memory. So a protocol that declares a group (see
//! [`crate::Protocol::interchangeable`]) promises that its states refer to nodes only through
//! `NodeId` and `NodeName` values: never by a position in a list indexed by node, never by a
//! name kept as a plain string, and that its static config (a list of the acceptors in id
//! order) stays out of its hash. Broken, that promise makes the search unsound.
//!
//! A second promise makes the merging *exact* (every renaming of a state gets the same
//! hash, so the count is that of the classes, whatever the order of the search): a
//! collection kept in node order (`BTreeSet<NodeId>` of votes, a map by node name) hashes as
//! a set ([`AsSet`]), since a renaming reorders it; and no token is handed out in node order
//! (Raft's RPC numbers, which its hash leaves out). Broken, that one only merges less, and
//! breadth first, depth first and two threads may count differently
//! (`tests/it/exhaustive.rs` checks they agree for each protocol that declares groups).

use crate::id::renaming;
use crate::id::{Name, NodeId};
use std::hash::{Hash, Hasher};

pub use crate::id::renaming::hash_name;

/// Hashes `items` as a set (a multiset) of their stable hashes (see
/// [`crate::hash::hash_multiset`]), so their order does not count. A map or set keyed by node
/// (`BTreeMap<NodeId, _>`, `BTreeSet<NodeName>`) keeps its entries in its keys' order, and a
/// renaming changes that order: hashed in it, a state and its renamed copy would hash apart.
/// Hashed as a set, they hash alike. Use [`AsSet`] in a `Hash` impl.
pub fn hash_set<T: Hash, H: Hasher + ?Sized>(items: impl Iterator<Item = T>, state: &mut H) {
    crate::hash::hash_multiset(items.map(|item| crate::hash::stable_hash(&item)), state);
}

/// A collection hashed as a set of its items (see [`hash_set`]): `AsSet(&self.votes).hash(state)`
/// in a state's `Hash` impl, for a collection ordered by node.
pub struct AsSet<'a, C: ?Sized>(pub &'a C);

impl<'a, C: ?Sized> Hash for AsSet<'a, C>
where
    &'a C: IntoIterator,
    <&'a C as IntoIterator>::Item: Hash,
{
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_set(self.0.into_iter(), state);
    }
}

/// The interchangeable nodes of a configuration, and every renaming of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symmetry {
    groups: Vec<Vec<NodeId>>,
    names: Vec<Name>,
    /// Every renaming but the identity: the new id of each id.
    renamings: Vec<Vec<u32>>,
}

impl Symmetry {
    /// The most renamings a search tries per state (6! = 720: one group of six, or a group of
    /// five and one of three): each costs a hash of the whole state.
    pub const MAX_RENAMINGS: usize = 720;

    /// The symmetry of `groups` (each a set of interchangeable nodes; groups of fewer than two
    /// are dropped) among the nodes called `names`, in id order. `Err` says why not: a node
    /// that does not exist or is in two groups, or more than [`Symmetry::MAX_RENAMINGS`]
    /// renamings.
    pub fn new(groups: Vec<Vec<NodeId>>, names: &[Name]) -> Result<Symmetry, String> {
        let mut groups: Vec<Vec<NodeId>> = groups
            .into_iter()
            .map(|mut g| {
                g.sort_unstable();
                g.dedup();
                g
            })
            .filter(|g| g.len() >= 2)
            .collect();
        groups.sort();
        let mut seen = vec![false; names.len()];
        for id in groups.iter().flatten() {
            match seen.get_mut(id.index()) {
                None => return Err(format!("node {id} is not one of the {} nodes", names.len())),
                Some(true) => return Err(format!("node {id} is in two interchangeable groups")),
                Some(s) => *s = true,
            }
        }
        let mut count: usize = 1;
        for g in &groups {
            for k in 2..=g.len() {
                count = count.saturating_mul(k);
            }
        }
        if count > Self::MAX_RENAMINGS {
            return Err(format!(
                "{count} renamings of the interchangeable nodes: at most {} are tried (a group \
                 of six)",
                Self::MAX_RENAMINGS
            ));
        }
        let identity: Vec<u32> = (0..names.len() as u32).collect();
        let mut all = vec![identity.clone()];
        for g in &groups {
            let mut next = Vec::with_capacity(all.len() * g.len());
            for base in &all {
                for order in permutations(g.len()) {
                    let mut r = base.clone();
                    for (i, &k) in order.iter().enumerate() {
                        r[g[i].index()] = g[k].0;
                    }
                    next.push(r);
                }
            }
            all = next;
        }
        all.retain(|r| *r != identity);
        Ok(Symmetry {
            groups,
            names: names.to_vec(),
            renamings: all,
        })
    }

    /// The groups of interchangeable nodes, each sorted, none of fewer than two.
    pub fn groups(&self) -> &[Vec<NodeId>] {
        &self.groups
    }

    /// How many renamings there are, the identity included: the most states one class holds.
    pub fn orders(&self) -> usize {
        self.renamings.len() + 1
    }

    /// Whether no node is interchangeable with another: nothing to merge.
    pub fn is_trivial(&self) -> bool {
        self.renamings.is_empty()
    }

    /// The smallest of `hash` (the state's own hash) and `hash_renamed()` taken under each
    /// renaming but the identity: the state's symmetric hash.
    pub fn smallest(&self, hash: u64, mut hash_renamed: impl FnMut(&[u32]) -> u64) -> u64 {
        let mut best = hash;
        for r in &self.renamings {
            best = best.min(self.renamed(r, || hash_renamed(r)));
        }
        best
    }

    /// Calls `f` with renaming `r` in force on this thread.
    fn renamed<R>(&self, r: &[u32], f: impl FnOnce() -> R) -> R {
        let names = r
            .iter()
            .enumerate()
            .filter(|&(old, &new)| new as usize != old)
            .map(|(old, &new)| (self.names[old].clone(), self.names[new as usize].clone()));
        renaming::in_force(r, names, f)
    }
}

/// Every ordering of `0..n`, in lexicographic order.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn extend(prefix: &mut Vec<usize>, n: usize, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for next in 0..n {
            if !prefix.contains(&next) {
                prefix.push(next);
                extend(prefix, n, out);
                prefix.pop();
            }
        }
    }
    let mut out = Vec::new();
    extend(&mut Vec::with_capacity(n), n, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeName;
    use crate::hash::stable_hash;

    fn names(n: usize) -> Vec<Name> {
        (0..n).map(|i| Name::from(format!("n{i}"))).collect()
    }

    #[test]
    fn permutations_are_every_ordering_once() {
        let p = permutations(3);
        assert_eq!(p.len(), 6);
        let mut q = p.clone();
        q.dedup();
        assert_eq!(q, p);
        assert!(p.iter().all(|o| {
            let mut s = o.clone();
            s.sort();
            s == [0, 1, 2]
        }));
    }

    #[test]
    fn renamings_multiply_across_groups_and_leave_others_alone() {
        let g = |ids: &[u32]| ids.iter().map(|&i| NodeId(i)).collect::<Vec<_>>();
        let s = Symmetry::new(vec![g(&[1, 2, 3]), g(&[4, 5]), g(&[0])], &names(6)).unwrap();
        assert_eq!(s.orders(), 12);
        assert_eq!(s.groups().len(), 2, "a group of one is no group");
        assert!(s.renamings.iter().all(|r| r[0] == 0));
        assert!(Symmetry::new(vec![g(&[1, 2]), g(&[2, 3])], &names(4)).is_err());
        assert!(Symmetry::new(vec![g(&[1, 9])], &names(4)).is_err());
        assert!(Symmetry::new(vec![g(&[0, 1, 2, 3, 4, 5, 6])], &names(7)).is_err());
    }

    /// A value that names two nodes, by id and by name, hashes like its renamed copy.
    #[test]
    fn a_renaming_renames_ids_and_names_while_hashing_only() {
        let s = Symmetry::new(vec![vec![NodeId(0), NodeId(1)]], &names(3)).unwrap();
        let value = (NodeId(0), NodeName::from("n1"), NodeId(2));
        let swapped = (NodeId(1), NodeName::from("n0"), NodeId(2));
        let plain = stable_hash(&value);
        assert_ne!(plain, stable_hash(&swapped));
        let renamed = s.renamed(&s.renamings[0], || stable_hash(&value));
        assert_eq!(renamed, stable_hash(&swapped));
        assert_eq!(stable_hash(&value), plain, "nothing stays in force");
        assert_eq!(
            s.smallest(stable_hash(&value), |_| stable_hash(&value)),
            s.smallest(stable_hash(&swapped), |_| stable_hash(&swapped)),
        );
    }
}
