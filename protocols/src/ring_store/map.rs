//! The partition map: which nodes are home replicas of a key at an epoch.
//!
//! A map is the initial members plus a log of joins and leaves; its epoch is the log's length.
//! Everyone who needs it (the coordinator, the storage nodes, the checkers) replays the same log
//! over the shared placement code ([`crate::partition::placement`]), so the map travels as one
//! `Change` per message and every holder computes the same owners. The replica set of a key is
//! the scheme's `replicas(key, RF)`: on the ring, the next RF distinct physical nodes clockwise.
//! Under the dynamic scheme a split is a change too (`Split`), so the map a client caches is
//! the same log, shorter.

use crate::partition::hash::HashFn;
use crate::partition::keys::KeyRef;
use crate::partition::placement::{
    Member, Placement, Placer, SchemeKind, SchemeParams, SplitRanges,
};
use crate::ring_store::config::{RingConfig, Scheme};
use serde::{Deserialize, Serialize};
use sim_core::NodeId;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// One membership change, by node id (the index into the config's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Change {
    /// The node joins the ring.
    Join(NodeId),
    /// The node leaves the ring.
    Leave(NodeId),
    /// Dynamic scheme: the range holding hash `at` splits so a new range starts at `at`, owned
    /// by `to` (the upper half moves to `to` and the next nodes by index).
    Split {
        /// The first hash of the upper half.
        at: u64,
        /// Its new owner.
        to: NodeId,
    },
}

/// A partition map at an epoch: the placement after replaying `log` over the initial members.
#[derive(Clone)]
pub struct Map {
    log: Vec<Change>,
    /// Shared until a change is applied (copy on write): every node starts from one map.
    placer: Arc<Placer>,
    hash: HashFn,
    rf: usize,
    names: Arc<Vec<String>>,
}

impl Map {
    /// The map at epoch 0: the config's `nodes` on the config's scheme.
    pub fn initial(config: &RingConfig) -> Map {
        let names = config.names();
        let members: Vec<Member> = (0..config.nodes.len())
            .map(|i| Member::new(i as u32, names[i].clone()))
            .collect();
        let params = SchemeParams {
            hash_fn: config.hash,
            vnodes: config.vnodes,
            slots: config.partitions,
            space: (0, 0),
        };
        let placer = match config.scheme {
            Scheme::Vnodes => Placer::build(SchemeKind::Ring, &params, &members),
            Scheme::Partitions => Placer::build(SchemeKind::Slots, &params, &members),
            Scheme::Dynamic { .. } => {
                Placer::Split(SplitRanges::new(members.iter().map(|m| m.id).collect()))
            }
        };
        Map {
            log: Vec::new(),
            placer: Arc::new(placer),
            hash: config.hash,
            rf: config.rf as usize,
            names: Arc::new(names),
        }
    }

    /// The epoch: how many changes were applied.
    pub fn epoch(&self) -> u64 {
        self.log.len() as u64
    }

    /// Applies one change (the next epoch).
    pub fn apply(&mut self, change: Change) {
        match change {
            Change::Join(id) => {
                let name = self.names[id.index()].clone();
                Arc::make_mut(&mut self.placer).join(&Member::new(id.0, name));
            }
            Change::Leave(id) => Arc::make_mut(&mut self.placer).leave(id.0),
            Change::Split { at, to } => {
                if let Placer::Split(p) = Arc::make_mut(&mut self.placer) {
                    p.split(at, to.0);
                }
            }
        }
        self.log.push(change);
    }

    /// The map one change later.
    pub fn after(&self, change: Change) -> Map {
        let mut next = self.clone();
        next.apply(change);
        next
    }

    /// The members, in the scheme's order.
    pub fn members(&self) -> Vec<NodeId> {
        self.placer.nodes().into_iter().map(NodeId).collect()
    }

    /// Whether `id` is on the ring.
    pub fn is_member(&self, id: NodeId) -> bool {
        self.placer.nodes().contains(&id.0)
    }

    /// The map `log` leads to from the `initial` map (how a client rebuilds a pushed map).
    pub fn replay(initial: &Map, log: &[Change]) -> Map {
        let mut map = initial.clone();
        for &change in log {
            map.apply(change);
        }
        map
    }

    /// The changes since epoch 0, in order.
    pub fn log(&self) -> &[Change] {
        &self.log
    }

    /// Dynamic scheme: the range holding `key` as `(lo, hi, owner)`; `None` under the others.
    pub fn range_of(&self, key: &str) -> Option<(u64, u64, NodeId)> {
        match &*self.placer {
            Placer::Split(p) => {
                let (lo, hi, owner) = p.range_of(self.key(key));
                Some((lo, hi, NodeId(owner)))
            }
            _ => None,
        }
    }

    /// Dynamic scheme: where the range starting at `lo` would split (its midpoint).
    pub fn midpoint(&self, lo: u64) -> Option<u64> {
        match &*self.placer {
            Placer::Split(p) => p.midpoint(lo),
            _ => None,
        }
    }

    /// Dynamic scheme: how many ranges there are (0 under the others).
    pub fn range_count(&self) -> usize {
        match &*self.placer {
            Placer::Split(p) => p.ranges().len(),
            _ => 0,
        }
    }

    /// The hash of `key` (where it falls in a range).
    pub fn key(&self, key: &str) -> u64 {
        self.hash.hash_str(key)
    }

    /// The first `n` distinct nodes for `key`, owner first (RF of them are the home replicas;
    /// the ones after are the stand-ins hinted handoff uses, in order).
    pub fn walk(&self, key: &str, n: usize) -> Vec<NodeId> {
        let key_ref = KeyRef {
            text: key,
            hash: self.key(key),
            ord: 0,
        };
        let mut out = Vec::new();
        self.placer.replicas(key_ref, n, &mut out);
        out.into_iter().map(NodeId).collect()
    }

    /// The RF home replicas of `key`, owner first.
    pub fn homes(&self, key: &str) -> Vec<NodeId> {
        self.walk(key, self.rf)
    }
}

impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.log == other.log
    }
}

impl Hash for Map {
    /// The log determines the placement, so it is the state.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.log.hash(state);
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Map(epoch {}, log {:?})", self.epoch(), self.log)
    }
}

impl Map {
    /// The change that made this epoch (panics at epoch 0, which no change made).
    pub fn last_change(&self) -> Change {
        *self.log.last().expect("a change was applied")
    }
}
