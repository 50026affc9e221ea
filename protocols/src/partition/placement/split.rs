//! Dynamic partitioning (text 000, section 8, the second scheme; HBase regions, MongoDB chunks):
//! ranges of the hash space that split in two when they grow too big.

use super::{Member, NodeId, Placement, next_by_index, units};
use crate::partition::keys::KeyRef;

/// Contiguous ranges of the 64-bit hash space, each owned by one node.
///
/// A new data set starts as one range over the whole space on the first node (the lesson's
/// warning: "un solo nodo trabaja"). The placement itself never decides to split: whoever
/// measures sizes calls [`SplitRanges::split`], which cuts a range at its midpoint and gives
/// the upper half to a node of the caller's choice. A join steals whole ranges from the node
/// holding the most until the newcomer holds `ranges / N`; a leaver's ranges go one at a time
/// to the node holding the fewest (as [`super::Slots`] does with slots). Replicas are the
/// owner and the next nodes by index, wrapping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitRanges {
    /// (first hash of the range, owner), sorted by first hash; the first starts at 0.
    ranges: Vec<(u64, NodeId)>,
    nodes: Vec<NodeId>,
}

impl SplitRanges {
    /// One range over the whole hash space, owned by the first of `nodes`.
    pub fn new(nodes: Vec<NodeId>) -> SplitRanges {
        let owner = nodes.first().copied().unwrap_or(NodeId::MAX);
        SplitRanges {
            ranges: vec![(0, owner)],
            nodes,
        }
    }

    /// Every range as `(lo, hi, owner)`, inclusive bounds, in hash order.
    pub fn ranges(&self) -> Vec<(u64, u64, NodeId)> {
        let mut out = Vec::with_capacity(self.ranges.len());
        for (i, &(lo, owner)) in self.ranges.iter().enumerate() {
            let hi = self
                .ranges
                .get(i + 1)
                .map_or(u64::MAX, |&(next, _)| next - 1);
            out.push((lo, hi, owner));
        }
        out
    }

    fn index(&self, hash: u64) -> usize {
        self.ranges.partition_point(|&(lo, _)| lo <= hash) - 1
    }

    /// The range holding `hash`, as `(lo, hi, owner)`.
    pub fn range_of(&self, hash: u64) -> (u64, u64, NodeId) {
        self.ranges()[self.index(hash)]
    }

    /// Where the range starting at `lo` splits: its midpoint, the first hash of the upper half
    /// (`None` if the range is a single hash or no range starts at `lo`).
    pub fn midpoint(&self, lo: u64) -> Option<u64> {
        let (lo, hi, _) = self.ranges().into_iter().find(|r| r.0 == lo)?;
        (hi > lo).then(|| lo + (hi - lo) / 2 + 1)
    }

    /// Splits the range holding `at` so a new range starts at `at`, owned by `to`. Returns
    /// false (and changes nothing) if a range already starts there.
    pub fn split(&mut self, at: u64, to: NodeId) -> bool {
        let i = self.index(at);
        if self.ranges[i].0 == at {
            return false;
        }
        self.ranges.insert(i + 1, (at, to));
        true
    }

    fn held(&self) -> Vec<Vec<usize>> {
        units::held(self.ranges.iter().map(|r| r.1), &self.nodes)
    }
}

impl Placement for SplitRanges {
    fn owner(&self, key: KeyRef<'_>) -> NodeId {
        self.ranges[self.index(key.hash)].1
    }
    fn replicas(&self, key: KeyRef<'_>, r: usize, out: &mut Vec<NodeId>) {
        let owner = self.owner(key);
        let first = self.nodes.iter().position(|&n| n == owner).unwrap_or(0);
        next_by_index(&self.nodes, first, r, out);
    }
    fn join(&mut self, member: &Member) {
        if self.nodes.contains(&member.id) {
            return;
        }
        self.nodes.push(member.id);
        for range in units::steal(self.held(), self.ranges.len()) {
            self.ranges[range].1 = member.id;
        }
    }
    fn leave(&mut self, id: NodeId) {
        let Some(gone) = self.nodes.iter().position(|&n| n == id) else {
            return;
        };
        let held = self.held();
        self.nodes.remove(gone);
        for (range, heir) in units::hand_out(&held, gone) {
            self.ranges[range].1 = heir.map_or(NodeId::MAX, |h| self.nodes[h]);
        }
    }
    fn nodes(&self) -> Vec<NodeId> {
        self.nodes.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(hash: u64) -> KeyRef<'static> {
        KeyRef {
            text: "",
            hash,
            ord: 0,
        }
    }

    // Goal: a split cuts one range at its midpoint and nothing else moves. Method: split the
    // whole space to node 2, then the lower half to node 1. Proves: the ranges tile the space,
    // keys each side of a cut go to the right owner, and a second split at a range's start is
    // refused.
    #[test]
    fn a_split_cuts_a_range_at_its_midpoint_and_tiles_the_space() {
        let mut s = SplitRanges::new(vec![0, 1, 2]);
        let mid = s.midpoint(0).expect("splittable");
        assert_eq!(mid, 1 << 63);
        assert!(s.split(mid, 2));
        assert!(!s.split(mid, 1), "a range already starts there");
        let quarter = s.midpoint(0).expect("splittable");
        assert!(s.split(quarter, 1));
        let ranges = s.ranges();
        assert_eq!(ranges.len(), 3);
        assert_eq!(ranges[0].0, 0);
        assert_eq!(ranges[2].1, u64::MAX);
        assert!(ranges.windows(2).all(|w| w[0].1 + 1 == w[1].0));
        assert_eq!(s.owner(key(quarter - 1)), 0);
        assert_eq!(s.owner(key(quarter)), 1);
        assert_eq!(s.owner(key(mid)), 2);
        let mut out = Vec::new();
        s.replicas(key(mid), 2, &mut out);
        assert_eq!(out, [2, 0]);
    }
}
