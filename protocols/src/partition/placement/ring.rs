//! The consistent-hash ring with virtual nodes and weights (text 000's `AnilloConsistente`).

use super::{Member, NodeId, Placement};
use crate::partition::hash::HashFn;
use crate::partition::keys::KeyRef;
use std::collections::BTreeMap;
use std::ops::Range;

/// Sorted vnode positions and their physical owners.
///
/// Vnode `i` of node `X` sits at `hash("X#i")`; a node of weight `w` gets
/// `max(1, floor(vnodes * w))` vnodes. A key goes to the first position strictly greater than
/// its hash (`bisect_right`), wrapping to the first position. A position already taken is
/// skipped (the first node to claim it keeps it), and removing a node removes every position it
/// owns, however many vnodes its weight gave it. Replicas are the next distinct physical nodes
/// clockwise from the key.
#[derive(Clone, Debug, PartialEq)]
pub struct Ring {
    hash_fn: HashFn,
    vnodes: u32,
    points: Vec<u64>,
    owners: Vec<NodeId>,
    /// Per node in join order: (id, positions it owns).
    placed: Vec<(NodeId, usize)>,
}

/// What a membership change did to a set of keys on the ring (see [`Ring::diff_sorted`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RingDiff {
    /// Keys whose owner changed.
    pub moved: u64,
    /// Keys whose replica set (compared as a set) changed.
    pub replica_sets_changed: u64,
    /// The changed keys as ranges of indexes into the sorted key hashes, ascending.
    pub changed: Vec<Range<usize>>,
}

impl Ring {
    /// An empty ring whose nodes of weight 1 get `vnodes` vnodes labelled and hashed by `hash_fn`.
    pub fn new(hash_fn: HashFn, vnodes: u32) -> Ring {
        Ring {
            hash_fn,
            vnodes,
            points: Vec::new(),
            owners: Vec::new(),
            placed: Vec::new(),
        }
    }

    /// The ring of `members` added in order (the same ring as adding them one by one, built with
    /// one sort instead of `N` insertions).
    pub fn build(hash_fn: HashFn, vnodes: u32, members: &[Member]) -> Ring {
        let mut ring = Ring::new(hash_fn, vnodes);
        let mut all: Vec<(u64, u32, NodeId)> = Vec::new();
        for (seq, m) in members.iter().enumerate() {
            if ring.placed.iter().any(|(id, _)| *id == m.id) {
                continue;
            }
            ring.placed.push((m.id, 0));
            all.extend(ring.labels(m).into_iter().map(|p| (p, seq as u32, m.id)));
        }
        ring.settle(all);
        ring
    }

    /// Takes `(position, claim order, owner)` claims: sorted by (position, claim order), the
    /// first claimant of a position keeps it, as sequential insertion with skipping would.
    fn settle(&mut self, mut claims: Vec<(u64, u32, NodeId)>) {
        claims.sort_unstable_by_key(|&(p, seq, _)| (p, seq));
        claims.dedup_by_key(|e| e.0);
        self.points = claims.iter().map(|e| e.0).collect();
        self.owners = claims.iter().map(|e| e.2).collect();
        self.recount();
    }

    /// A ring with explicit positions (the blackboard ring of listing 9.2: `n10` at 10, ...).
    /// A repeated position keeps its first owner.
    pub fn from_points(points: &[(u64, NodeId)]) -> Ring {
        let mut ring = Ring::new(HashFn::Xxh3, 1);
        let all: Vec<(u64, u32, NodeId)> = points
            .iter()
            .enumerate()
            .map(|(i, &(p, id))| (p, i as u32, id))
            .collect();
        for &(_, id) in points {
            if !ring.placed.iter().any(|(n, _)| *n == id) {
                ring.placed.push((id, 0));
            }
        }
        ring.settle(all);
        ring
    }

    /// How many vnodes a node of `weight` gets: `max(1, floor(vnodes * weight))`.
    pub fn vnodes_for(vnodes: u32, weight: f64) -> u32 {
        let v = (f64::from(vnodes) * weight).floor();
        if v.is_nan() || v < 1.0 {
            1
        } else if v > f64::from(u32::MAX) {
            u32::MAX
        } else {
            v as u32
        }
    }

    fn labels(&self, m: &Member) -> Vec<u64> {
        let count = Ring::vnodes_for(self.vnodes, m.weight);
        let mut label = String::with_capacity(m.name.len() + 11);
        label.push_str(&m.name);
        label.push('#');
        let base = label.len();
        (0..count)
            .map(|i| {
                label.truncate(base);
                crate::partition::keys::push_decimal(&mut label, u64::from(i), 0, false);
                self.hash_fn.hash_str(&label)
            })
            .collect()
    }

    /// Positions per placed node, in one pass over the owners (not one pass per node: a
    /// thousand-node ring has a hundred thousand positions).
    fn recount(&mut self) {
        let mut per: BTreeMap<NodeId, usize> = self.placed.iter().map(|(id, _)| (*id, 0)).collect();
        for o in &self.owners {
            if let Some(n) = per.get_mut(o) {
                *n += 1;
            }
        }
        for (id, n) in &mut self.placed {
            *n = per[id];
        }
    }

    /// Adds a node: its positions not already taken are merged into the ring.
    pub fn add_node(&mut self, m: &Member) {
        if self.placed.iter().any(|(id, _)| *id == m.id) {
            return;
        }
        let mut fresh = self.labels(m);
        fresh.sort_unstable();
        fresh.dedup();
        fresh.retain(|p| self.points.binary_search(p).is_err());
        let mut points = Vec::with_capacity(self.points.len() + fresh.len());
        let mut owners = Vec::with_capacity(points.capacity());
        let (mut i, mut j) = (0, 0);
        while i < self.points.len() || j < fresh.len() {
            if j == fresh.len() || (i < self.points.len() && self.points[i] < fresh[j]) {
                points.push(self.points[i]);
                owners.push(self.owners[i]);
                i += 1;
            } else {
                points.push(fresh[j]);
                owners.push(m.id);
                j += 1;
            }
        }
        self.points = points;
        self.owners = owners;
        self.placed.push((m.id, fresh.len()));
    }

    /// Removes a node and every position it owns.
    pub fn remove_node(&mut self, id: NodeId) {
        let mut k = 0;
        for i in 0..self.points.len() {
            if self.owners[i] != id {
                self.points[k] = self.points[i];
                self.owners[k] = self.owners[i];
                k += 1;
            }
        }
        self.points.truncate(k);
        self.owners.truncate(k);
        self.placed.retain(|(n, _)| *n != id);
    }

    /// The sorted vnode positions.
    pub fn points(&self) -> &[u64] {
        &self.points
    }

    /// The owner of each position of [`Ring::points`].
    pub fn owners(&self) -> &[NodeId] {
        &self.owners
    }

    /// The index of the position that serves `hash`: the first strictly greater, wrapping.
    #[inline]
    pub fn successor(&self, hash: u64) -> usize {
        assert!(!self.points.is_empty(), "empty ring");
        let i = self.points.partition_point(|&p| p <= hash);
        if i == self.points.len() { 0 } else { i }
    }

    fn distinct(&self) -> usize {
        self.placed.iter().filter(|(_, n)| *n > 0).count()
    }

    /// Collects `want` distinct owners clockwise from position `from` (`want` <= nodes placed).
    fn walk(&self, from: usize, want: usize, out: &mut Vec<NodeId>) {
        out.clear();
        let mut i = from;
        while out.len() < want {
            let o = self.owners[i];
            if !out.contains(&o) {
                out.push(o);
            }
            i += 1;
            if i == self.points.len() {
                i = 0;
            }
        }
    }

    /// For every position, the sorted replica set of the keys it serves (stride `min(r, nodes)`).
    fn replica_table(&self, r: usize) -> (usize, Vec<NodeId>) {
        let want = r.min(self.distinct());
        let stride = want.max(1);
        let mut table = Vec::with_capacity(self.points.len() * stride);
        let mut set = Vec::with_capacity(stride);
        for i in 0..self.points.len() {
            self.walk(i, want, &mut set);
            set.sort_unstable();
            table.extend_from_slice(&set);
        }
        (stride, table)
    }

    /// Keys per node (indexed by [`NodeId`], `ids` long) of the sorted key hashes: each arc's
    /// keys are counted with one binary search per position, not one search per key.
    pub fn counts_sorted(&self, sorted_hashes: &[u64], ids: usize) -> Vec<u64> {
        let mut counts = vec![0u64; ids];
        let mut below = 0;
        for (i, &p) in self.points.iter().enumerate() {
            // Keys in [previous point, p) are served by position i.
            let upto = sorted_hashes.partition_point(|&k| k < p);
            counts[self.owners[i] as usize] += (upto - below) as u64;
            below = upto;
        }
        // Keys at or past the last point wrap to the first position.
        if let Some(&first) = self.owners.first() {
            counts[first as usize] += (sorted_hashes.len() - below) as u64;
        }
        counts
    }

    /// Which of `sorted_hashes` change owner and replica set (size `r`) from `self` to `after`.
    ///
    /// A merge walk: the union of both rings' positions cuts the hash space into segments whose
    /// keys share one serving position in each ring; each segment's replica sets are compared
    /// once, and only the segments that differ are measured in the keys (two binary searches).
    /// So the cost is linear in the vnodes, and logarithmic in the keys.
    pub fn diff_sorted(&self, after: &Ring, sorted_hashes: &[u64], r: usize) -> RingDiff {
        let (sb, tb) = self.replica_table(r);
        let (sa, ta) = after.replica_table(r);
        let (nb, na) = (self.points.len(), after.points.len());
        let mut diff = RingDiff::default();
        let (mut pb, mut pa) = (0, 0);
        let mut lower: Option<u64> = None;
        loop {
            let upper = match (self.points.get(pb), after.points.get(pa)) {
                (Some(&b), Some(&a)) => Some(b.min(a)),
                (Some(&b), None) => Some(b),
                (None, Some(&a)) => Some(a),
                (None, None) => None,
            };
            let ib = if pb == nb { 0 } else { pb };
            let ia = if pa == na { 0 } else { pa };
            let owner_differs = self.owners[ib] != after.owners[ia];
            let set_differs = tb[ib * sb..(ib + 1) * sb] != ta[ia * sa..(ia + 1) * sa];
            if owner_differs || set_differs {
                // Keys in [lower, upper): counted by two binary searches.
                let start = lower.map_or(0, |l| sorted_hashes.partition_point(|&k| k < l));
                let end = upper.map_or(sorted_hashes.len(), |u| {
                    sorted_hashes.partition_point(|&k| k < u)
                });
                let n = (end - start) as u64;
                if owner_differs {
                    diff.moved += n;
                }
                if set_differs && end > start {
                    diff.replica_sets_changed += n;
                    match diff.changed.last_mut() {
                        Some(last) if last.end == start => last.end = end,
                        _ => diff.changed.push(start..end),
                    }
                }
            }
            let Some(u) = upper else { break };
            if self.points.get(pb) == Some(&u) {
                pb += 1;
            }
            if after.points.get(pa) == Some(&u) {
                pa += 1;
            }
            lower = Some(u);
        }
        diff
    }
}

impl Placement for Ring {
    fn owner(&self, key: KeyRef<'_>) -> NodeId {
        self.owners[self.successor(key.hash)]
    }
    fn replicas(&self, key: KeyRef<'_>, r: usize, out: &mut Vec<NodeId>) {
        self.walk(self.successor(key.hash), r.min(self.distinct()), out);
    }
    fn join(&mut self, member: &Member) {
        self.add_node(member);
    }
    fn leave(&mut self, id: NodeId) {
        self.remove_node(id);
    }
    fn nodes(&self) -> Vec<NodeId> {
        self.placed.iter().map(|(id, _)| *id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(hash: u64) -> KeyRef<'static> {
        KeyRef {
            text: "",
            hash,
            ord: hash,
        }
    }

    #[test]
    fn blackboard_ring_of_listing_9_2() {
        let mut ring = Ring::from_points(&[(10, 0), (50, 1), (90, 2)]);
        assert_eq!(ring.owner(key(40)), 1);
        assert_eq!(ring.owner(key(95)), 0, "wraps");
        assert_eq!(ring.owner(key(55)), 2);
        assert_eq!(
            ring.owner(key(50)),
            2,
            "bisect_right: a key on a point goes past it"
        );
        let joined = {
            let mut pts = vec![(10, 0), (50, 1), (90, 2), (60, 3)];
            pts.sort();
            Ring::from_points(&pts)
        };
        assert_eq!(joined.owner(key(55)), 3);
        assert_eq!(joined.owner(key(40)), 1);
        assert_eq!(joined.owner(key(95)), 0);
        ring.remove_node(1);
        assert_eq!(ring.owner(key(40)), 2);
    }

    #[test]
    fn weights_floor_with_a_minimum_of_one() {
        assert_eq!(Ring::vnodes_for(150, 2.0), 300);
        assert_eq!(Ring::vnodes_for(150, 0.5), 75);
        assert_eq!(Ring::vnodes_for(150, 0.001), 1);
        assert_eq!(Ring::vnodes_for(10, 0.33), 3);
    }

    #[test]
    fn removing_a_weighted_node_removes_all_its_vnodes() {
        let members = [
            Member {
                id: 0,
                name: "a".into(),
                weight: 2.0,
            },
            Member::new(1, "b"),
        ];
        let mut ring = Ring::build(HashFn::Md5_64, 10, &members);
        assert_eq!(ring.points().len(), 30);
        ring.remove_node(0);
        assert_eq!(ring.points().len(), 10);
        assert!(ring.owners().iter().all(|&o| o == 1));
    }

    #[test]
    fn colliding_positions_keep_their_first_owner() {
        let ring = Ring::from_points(&[(5, 0), (5, 1), (9, 1)]);
        assert_eq!(ring.points(), &[5, 9]);
        assert_eq!(ring.owners(), &[0, 1]);
        // Adding a node whose label collides with a taken position skips that vnode.
        let mut ring = Ring::build(HashFn::Md5_64, 3, &[Member::new(0, "x")]);
        let before = ring.points().to_vec();
        ring.add_node(&Member::new(1, "x"));
        assert_eq!(
            ring.points(),
            &before[..],
            "all of y's labels collide with x's"
        );
        assert_eq!(ring.nodes(), vec![0, 1]);
    }

    #[test]
    fn adding_one_by_one_equals_building_at_once() {
        let members: Vec<Member> = (0..5).map(|i| Member::new(i, format!("n{i}"))).collect();
        let built = Ring::build(HashFn::Xxh3, 20, &members);
        let mut grown = Ring::new(HashFn::Xxh3, 20);
        for m in &members {
            grown.add_node(m);
        }
        assert_eq!(built.points(), grown.points());
        assert_eq!(built.owners(), grown.owners());
    }

    #[test]
    fn replicas_are_distinct_physical_nodes_clockwise() {
        let ring = Ring::from_points(&[(10, 0), (20, 0), (30, 1), (40, 2)]);
        let mut out = Vec::new();
        ring.replicas(key(5), 3, &mut out);
        assert_eq!(out, [0, 1, 2]);
        ring.replicas(key(35), 3, &mut out);
        assert_eq!(out, [2, 0, 1]);
        ring.replicas(key(35), 9, &mut out);
        assert_eq!(out.len(), 3, "capped at the number of nodes");
    }

    #[test]
    fn merge_walk_agrees_with_key_by_key_comparison() {
        let members: Vec<Member> = (0..8).map(|i| Member::new(i, format!("n{i}"))).collect();
        let before = Ring::build(HashFn::Xxh3, 16, &members);
        let mut after = before.clone();
        after.add_node(&Member::new(8, "n8"));
        let mut removed = before.clone();
        removed.remove_node(3);
        let mut keys: Vec<u64> = (0..20_000u64)
            .map(|i| HashFn::Xxh3.hash(&i.to_le_bytes()))
            .collect();
        keys.sort_unstable();
        for (other, r) in [(&after, 3), (&removed, 3), (&after, 1), (&removed, 2)] {
            let diff = before.diff_sorted(other, &keys, r);
            let (mut moved, mut changed) = (0, 0);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let mut flagged = Vec::new();
            for (i, &h) in keys.iter().enumerate() {
                moved += u64::from(before.owner(key(h)) != other.owner(key(h)));
                before.replicas(key(h), r, &mut a);
                other.replicas(key(h), r, &mut b);
                a.sort_unstable();
                b.sort_unstable();
                if a != b {
                    changed += 1;
                    flagged.push(i);
                }
            }
            assert_eq!(diff.moved, moved);
            let mut counts = vec![0u64; 9];
            for &h in &keys {
                counts[other.owner(key(h)) as usize] += 1;
            }
            assert_eq!(other.counts_sorted(&keys, 9), counts);
            assert_eq!(diff.replica_sets_changed, changed);
            let listed: Vec<usize> = diff.changed.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(listed, flagged);
        }
    }
}
