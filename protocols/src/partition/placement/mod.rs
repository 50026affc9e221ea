//! Placement schemes: which node owns a key, and which `r` nodes hold its replicas.
//!
//! Each scheme lives in its own file behind the [`Placement`] trait; [`Placer`] is the closed
//! set of them, so a measurement (or, later, a live coordinator) can hold any scheme by value,
//! clone it, and let nodes join and leave with the scheme's own rebalancing rule:
//!
//! | scheme | owner of a key | a join moves |
//! | --- | --- | --- |
//! | [`ModN`] | `hash % N` | almost everything (`N/(N+1)`) |
//! | [`Ring`] | first vnode position strictly after the hash | `~1/(N+1)` |
//! | [`Rendezvous`] | the node with the highest `hash("node|key")` | `~1/(N+1)` |
//! | [`Slots`] | owner of slot `hash % S` | whole slots stolen from the others |
//! | [`RangePartition`] | the equal slice of the key *order* | boundaries shift for most keys |
//! | [`SplitRanges`] | the hash range holding the key | a split moves half of one range |
//!
//! Nodes are [`NodeId`]s, indexes into the caller's table of names, so the same node keeps the
//! same id before and after a membership change and owners compare directly.

mod modn;
mod range;
mod rendezvous;
mod ring;
mod slots;
mod split;

pub use modn::ModN;
pub use range::RangePartition;
pub use rendezvous::Rendezvous;
pub use ring::Ring;
pub use slots::Slots;
pub use split::SplitRanges;

use super::keys::KeyRef;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// A node as placement sees it: an index into the caller's table of node names.
pub type NodeId = u32;

/// A node joining a placement: its id, its name (ring labels and rendezvous weights hash it),
/// and its weight (vnode multiplier on the ring; 1.0 elsewhere).
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// The node's index in the caller's name table.
    pub id: NodeId,
    /// The node's name, e.g. `inv-bcn`.
    pub name: String,
    /// Relative capacity; the ring gives the node `max(1, floor(vnodes * weight))` vnodes.
    pub weight: f64,
}

impl Member {
    /// A member of weight 1.
    pub fn new(id: NodeId, name: impl Into<String>) -> Member {
        Member {
            id,
            name: name.into(),
            weight: 1.0,
        }
    }
}

/// What every scheme answers: the owner of a key and its replica set, and how it rebalances when
/// a node joins or leaves.
pub trait Placement {
    /// The node that owns `key` (its first replica).
    fn owner(&self, key: KeyRef<'_>) -> NodeId;

    /// Writes the `r` distinct nodes holding `key` into `out` (cleared first), owner first;
    /// fewer when the placement has fewer than `r` nodes.
    fn replicas(&self, key: KeyRef<'_>, r: usize, out: &mut Vec<NodeId>);

    /// Adds `member` with the scheme's rebalancing rule.
    fn join(&mut self, member: &Member);

    /// Removes node `id` (all of its vnodes, slots or ranges) with the scheme's rule.
    fn leave(&mut self, id: NodeId);

    /// The nodes currently placed, in the scheme's index order.
    fn nodes(&self) -> Vec<NodeId>;
}

/// The placement schemes by name, as the command line selects them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SchemeKind {
    /// Consistent-hash ring with vnodes and weights.
    Ring,
    /// `hash % N`.
    Mod,
    /// Highest random weight.
    Rendezvous,
    /// A fixed table of slots (Redis Cluster style) mapped to nodes.
    Slots,
    /// Equal slices of the key order.
    Range,
}

impl SchemeKind {
    /// Every scheme with its name.
    pub const ALL: [(&'static str, SchemeKind); 5] = [
        ("ring", SchemeKind::Ring),
        ("mod", SchemeKind::Mod),
        ("rendezvous", SchemeKind::Rendezvous),
        ("slots", SchemeKind::Slots),
        ("range", SchemeKind::Range),
    ];

    /// The scheme's name on the command line.
    pub fn name(self) -> &'static str {
        SchemeKind::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map_or("?", |(n, _)| n)
    }
}

impl fmt::Display for SchemeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SchemeKind {
    type Err = String;

    fn from_str(s: &str) -> Result<SchemeKind, String> {
        SchemeKind::ALL
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(s))
            .map(|&(_, k)| k)
            .ok_or_else(|| {
                format!("unknown scheme {s:?}: use one of ring, mod, rendezvous, slots, range")
            })
    }
}

/// The parameters a scheme is built with (each scheme reads the ones it needs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SchemeParams {
    /// Hash of vnode labels (`"X#i"`) and of rendezvous pairs (`"node|key"`).
    pub hash_fn: super::hash::HashFn,
    /// Vnodes per node of weight 1 on the ring.
    pub vnodes: u32,
    /// Number of slots of the slot table (Redis Cluster: 16384).
    pub slots: u32,
    /// The key space range partitioning splits, `lo..=hi` of the keys' ordinals.
    pub space: (u64, u64),
}

/// Any scheme, by value: built from a member list, cloned before a membership change.
#[derive(Clone, Debug)]
pub enum Placer {
    /// See [`Ring`].
    Ring(Ring),
    /// See [`ModN`].
    Mod(ModN),
    /// See [`Rendezvous`].
    Rendezvous(Rendezvous),
    /// See [`Slots`].
    Slots(Slots),
    /// See [`RangePartition`].
    Range(RangePartition),
    /// See [`SplitRanges`] (built directly: it has no `SchemeKind`, as `dsim ring` does not
    /// measure it; the live ring's dynamic scheme uses it).
    Split(SplitRanges),
}

impl Placer {
    /// The scheme `kind` over `members` (in order: the index order of mod, slots and range).
    pub fn build(kind: SchemeKind, params: &SchemeParams, members: &[Member]) -> Placer {
        match kind {
            SchemeKind::Ring => Placer::Ring(Ring::build(params.hash_fn, params.vnodes, members)),
            SchemeKind::Mod => Placer::Mod(ModN::new(members.iter().map(|m| m.id).collect())),
            SchemeKind::Rendezvous => Placer::Rendezvous(Rendezvous::new(params.hash_fn, members)),
            SchemeKind::Slots => Placer::Slots(Slots::new(
                params.slots,
                members.iter().map(|m| m.id).collect(),
            )),
            SchemeKind::Range => Placer::Range(RangePartition::new(
                params.space.0,
                params.space.1,
                members.iter().map(|m| m.id).collect(),
            )),
        }
    }

    fn inner(&self) -> &dyn Placement {
        match self {
            Placer::Ring(p) => p,
            Placer::Mod(p) => p,
            Placer::Rendezvous(p) => p,
            Placer::Slots(p) => p,
            Placer::Range(p) => p,
            Placer::Split(p) => p,
        }
    }

    fn inner_mut(&mut self) -> &mut dyn Placement {
        match self {
            Placer::Ring(p) => p,
            Placer::Mod(p) => p,
            Placer::Rendezvous(p) => p,
            Placer::Slots(p) => p,
            Placer::Range(p) => p,
            Placer::Split(p) => p,
        }
    }
}

impl Placement for Placer {
    fn owner(&self, key: KeyRef<'_>) -> NodeId {
        self.inner().owner(key)
    }
    fn replicas(&self, key: KeyRef<'_>, r: usize, out: &mut Vec<NodeId>) {
        self.inner().replicas(key, r, out);
    }
    fn join(&mut self, member: &Member) {
        self.inner_mut().join(member);
    }
    fn leave(&mut self, id: NodeId) {
        self.inner_mut().leave(id);
    }
    fn nodes(&self) -> Vec<NodeId> {
        self.inner().nodes()
    }
}

/// Replicas of the index-ordered schemes (mod, slots, range): the owner at index `first`, then
/// the next nodes by index, wrapping.
fn next_by_index(nodes: &[NodeId], first: usize, r: usize, out: &mut Vec<NodeId>) {
    out.clear();
    let n = nodes.len();
    out.extend((0..r.min(n)).map(|j| nodes[(first + j) % n]));
}

/// The schemes of whole units (slots, ranges) owned by an ordered node list, and their shared
/// rebalancing rule: a join steals whole units, one at a time from the node holding the most,
/// until the newcomer holds `units / N`; a leaver's units go one at a time to the node holding
/// the fewest. Ties go to the node listed first.
mod units {
    use super::{BTreeMap, NodeId};

    /// Each node's position in `nodes`.
    pub(super) fn positions(nodes: &[NodeId]) -> BTreeMap<NodeId, usize> {
        nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect()
    }

    /// The units each node of `nodes` holds (by position in `nodes`), given each unit's owner.
    pub(super) fn held(owners: impl Iterator<Item = NodeId>, nodes: &[NodeId]) -> Vec<Vec<usize>> {
        let at = positions(nodes);
        let mut held = vec![Vec::new(); nodes.len()];
        for (unit, owner) in owners.enumerate() {
            if let Some(&i) = at.get(&owner) {
                held[i].push(unit);
            }
        }
        held
    }

    /// The units the newcomer, the last of `held`, steals in order (of `units` in all).
    pub(super) fn steal(mut held: Vec<Vec<usize>>, units: usize) -> Vec<usize> {
        let newcomer = held.len() - 1;
        let target = units / held.len();
        let mut taken = Vec::with_capacity(target);
        for _ in 0..target {
            let Some(donor) =
                (0..newcomer).max_by(|&a, &b| held[a].len().cmp(&held[b].len()).then(b.cmp(&a)))
            else {
                break;
            };
            let Some(unit) = held[donor].pop() else {
                break;
            };
            taken.push(unit);
            held[newcomer].push(unit);
        }
        taken
    }

    /// Where the units of the leaver at position `gone` go: `(unit, heir)` with the heir's
    /// position among the nodes that stay (`None` when nobody stays).
    pub(super) fn hand_out(held: &[Vec<usize>], gone: usize) -> Vec<(usize, Option<usize>)> {
        let mut counts: Vec<usize> = held
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != gone)
            .map(|(_, h)| h.len())
            .collect();
        held[gone]
            .iter()
            .map(|&unit| {
                let heir =
                    (0..counts.len()).min_by(|&a, &b| counts[a].cmp(&counts[b]).then(a.cmp(&b)));
                if let Some(h) = heir {
                    counts[h] += 1;
                }
                (unit, heir)
            })
            .collect()
    }
}
