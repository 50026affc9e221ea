//! `hash % N`: the naive scheme whose movement on a resize the lesson measures (RING-1).

use super::{Member, NodeId, Placement, next_by_index};
use crate::partition::keys::KeyRef;

/// Node `hash % N` of an ordered node list; replicas are the next nodes by index, wrapping.
///
/// It exists to be the baseline: perfectly balanced, and it moves `N/(N+1)` of the keys when a
/// node joins because the divisor changes for every key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModN {
    nodes: Vec<NodeId>,
}

impl ModN {
    /// `hash % nodes.len()` picks an index into `nodes`.
    pub fn new(nodes: Vec<NodeId>) -> ModN {
        ModN { nodes }
    }

    fn index(&self, hash: u64) -> usize {
        assert!(!self.nodes.is_empty(), "ModN over no nodes");
        (hash % self.nodes.len() as u64) as usize
    }
}

impl Placement for ModN {
    fn owner(&self, key: KeyRef<'_>) -> NodeId {
        self.nodes[self.index(key.hash)]
    }
    fn replicas(&self, key: KeyRef<'_>, r: usize, out: &mut Vec<NodeId>) {
        next_by_index(&self.nodes, self.index(key.hash), r, out);
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
