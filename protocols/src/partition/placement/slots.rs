//! A fixed table of slots mapped to nodes (Redis Cluster's 16384 slots, Riak's partitions): keys
//! hash to a slot, and rebalancing moves whole slots.

use super::{Member, NodeId, Placement, next_by_index, units};
use crate::partition::keys::KeyRef;
use std::collections::BTreeMap;

/// Slot `hash % S`, owned by an entry of the slot table.
///
/// The table starts as contiguous equal runs in node order (what `redis-cli --cluster create`
/// does). A joining node steals whole slots, one at a time from the node holding the most (its
/// highest slot), until it holds `S / N`; a leaving node's slots go one at a time to the node
/// holding the fewest. Ties go to the node listed first. So a join moves about `1/(N+1)` of the
/// keys, like the ring, but the unit of movement is a slot. Replicas are the next nodes by
/// index after the owner, wrapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slots {
    table: Vec<NodeId>,
    nodes: Vec<NodeId>,
    /// Each node's index in `nodes` (replicas look it up once per key).
    index: BTreeMap<NodeId, usize>,
}

impl Slots {
    /// `slots` slots (at least 1) over `nodes`, in contiguous equal runs.
    pub fn new(slots: u32, nodes: Vec<NodeId>) -> Slots {
        let s = slots.max(1) as usize;
        let n = nodes.len().max(1);
        let table = (0..s)
            .map(|i| nodes.get(i * n / s).copied().unwrap_or(NodeId::MAX))
            .collect();
        let index = units::positions(&nodes);
        Slots {
            table,
            nodes,
            index,
        }
    }

    /// The slot table: entry `s` is the owner of slot `s`.
    pub fn table(&self) -> &[NodeId] {
        &self.table
    }

    fn slot(&self, hash: u64) -> usize {
        (hash % self.table.len() as u64) as usize
    }

    fn held(&self) -> Vec<Vec<usize>> {
        units::held(self.table.iter().copied(), &self.nodes)
    }
}

impl Placement for Slots {
    fn owner(&self, key: KeyRef<'_>) -> NodeId {
        self.table[self.slot(key.hash)]
    }
    fn replicas(&self, key: KeyRef<'_>, r: usize, out: &mut Vec<NodeId>) {
        let first = *self
            .index
            .get(&self.owner(key))
            .expect("slot owner is a listed node");
        next_by_index(&self.nodes, first, r, out);
    }
    fn join(&mut self, member: &Member) {
        if self.nodes.contains(&member.id) {
            return;
        }
        self.nodes.push(member.id);
        self.index = units::positions(&self.nodes);
        if self.nodes.len() == 1 {
            self.table.fill(member.id);
            return;
        }
        for slot in units::steal(self.held(), self.table.len()) {
            self.table[slot] = member.id;
        }
    }
    fn leave(&mut self, id: NodeId) {
        let Some(gone) = self.nodes.iter().position(|&n| n == id) else {
            return;
        };
        let held = self.held();
        self.nodes.remove(gone);
        self.index = units::positions(&self.nodes);
        for (slot, heir) in units::hand_out(&held, gone) {
            self.table[slot] = heir.map_or(NodeId::MAX, |h| self.nodes[h]);
        }
    }
    fn nodes(&self) -> Vec<NodeId> {
        self.nodes.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_join_steals_an_equal_share_of_whole_slots() {
        let mut s = Slots::new(16, vec![0, 1, 2]);
        assert_eq!(s.table(), &[0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
        let before = s.table().to_vec();
        s.join(&Member::new(3, "d"));
        let moved = before.iter().zip(s.table()).filter(|(a, b)| a != b).count();
        assert_eq!(moved, 4);
        assert!(
            s.table()
                .iter()
                .zip(&before)
                .all(|(a, b)| a == b || *a == 3)
        );
        s.leave(3);
        let mut counts = [0; 3];
        for &o in s.table() {
            counts[o as usize] += 1;
        }
        assert_eq!(counts.iter().sum::<usize>(), 16);
        assert!(counts.iter().all(|&c| (5..=6).contains(&c)), "{counts:?}");
    }
}
