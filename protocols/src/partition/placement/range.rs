//! Range partitioning: equal slices of the key order, the scheme that keeps range scans local
//! and concentrates skewed keys on one node (text 004's hot spot).

use super::{Member, NodeId, Placement, next_by_index};
use crate::partition::keys::KeyRef;

/// Splits the ordinal space `lo..=hi` into `N` equal slices, slice `i` to node `i` of the list
/// (the lesson's `clave // (espacio // n)`); replicas are the next nodes by index, wrapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangePartition {
    lo: u64,
    hi: u64,
    nodes: Vec<NodeId>,
}

impl RangePartition {
    /// Slices of `lo..=hi` over `nodes` in order.
    pub fn new(lo: u64, hi: u64, nodes: Vec<NodeId>) -> RangePartition {
        RangePartition {
            lo,
            hi: hi.max(lo),
            nodes,
        }
    }

    fn index(&self, ord: u64) -> usize {
        assert!(!self.nodes.is_empty(), "RangePartition over no nodes");
        let span = u128::from(self.hi - self.lo) + 1;
        let offset = u128::from(ord.clamp(self.lo, self.hi) - self.lo);
        (offset * self.nodes.len() as u128 / span) as usize
    }
}

impl Placement for RangePartition {
    fn owner(&self, key: KeyRef<'_>) -> NodeId {
        self.nodes[self.index(key.ord)]
    }
    fn replicas(&self, key: KeyRef<'_>, r: usize, out: &mut Vec<NodeId>) {
        next_by_index(&self.nodes, self.index(key.ord), r, out);
    }
    fn join(&mut self, member: &Member) {
        self.nodes.push(member.id);
    }
    fn leave(&mut self, id: NodeId) {
        self.nodes.retain(|&n| n != id);
    }
    fn nodes(&self) -> Vec<NodeId> {
        self.nodes.clone()
    }
}
