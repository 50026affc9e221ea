//! Rendezvous hashing (highest random weight): every node draws a weight for every key and the
//! highest wins; the top `r` are the replica set, with no ring and no vnodes.

use super::{Member, NodeId, Placement};
use crate::partition::hash::HashFn;
use crate::partition::keys::KeyRef;

/// The lesson's `max(nodos, key=lambda n: hash_clave(f"{n}|{clave}"))`.
///
/// Ties (never seen with 64-bit hashes) go to the node listed first, as Python's `max` and its
/// stable `sorted(reverse=True)` do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendezvous {
    hash_fn: HashFn,
    nodes: Vec<(NodeId, String)>,
}

impl Rendezvous {
    /// Rendezvous over `members` in order.
    pub fn new(hash_fn: HashFn, members: &[Member]) -> Rendezvous {
        Rendezvous {
            hash_fn,
            nodes: members.iter().map(|m| (m.id, m.name.clone())).collect(),
        }
    }

    /// The weight of node `name` for `key`: `hash("name|key")`.
    pub fn weight(hash_fn: HashFn, name: &str, key: &str) -> u64 {
        let mut buf = [0u8; 128];
        let len = name.len() + 1 + key.len();
        if len <= buf.len() {
            buf[..name.len()].copy_from_slice(name.as_bytes());
            buf[name.len()] = b'|';
            buf[name.len() + 1..len].copy_from_slice(key.as_bytes());
            hash_fn.hash(&buf[..len])
        } else {
            hash_fn.hash_str(&format!("{name}|{key}"))
        }
    }

    /// Every node's weight for `key`, in list order.
    pub fn weights(&self, key: &str) -> Vec<(NodeId, u64)> {
        self.nodes
            .iter()
            .map(|(id, name)| (*id, Rendezvous::weight(self.hash_fn, name, key)))
            .collect()
    }

    /// The top `r` of `(node, weight)` pairs in list order: highest weight first, ties to the
    /// earlier node. Shared with measurements that compute each weight once for two clusters.
    pub fn top(weights: &[(NodeId, u64)], r: usize, out: &mut Vec<NodeId>) {
        out.clear();
        // Selection by insertion into a short sorted prefix: r is small (a replica count).
        let mut best: Vec<(u64, usize)> = Vec::with_capacity(r + 1);
        for (i, &(_, w)) in weights.iter().enumerate() {
            // Strictly greater weights go first; equal weights keep list order.
            let at = best.partition_point(|&(bw, _)| bw >= w);
            if at < r {
                best.insert(at, (w, i));
                best.truncate(r);
            }
        }
        out.extend(best.into_iter().map(|(_, i)| weights[i].0));
    }
}

impl Placement for Rendezvous {
    fn owner(&self, key: KeyRef<'_>) -> NodeId {
        let mut best: Option<(NodeId, u64)> = None;
        for (id, name) in &self.nodes {
            let w = Rendezvous::weight(self.hash_fn, name, key.text);
            if best.is_none_or(|(_, b)| w > b) {
                best = Some((*id, w));
            }
        }
        best.expect("Rendezvous over no nodes").0
    }
    fn replicas(&self, key: KeyRef<'_>, r: usize, out: &mut Vec<NodeId>) {
        Rendezvous::top(&self.weights(key.text), r, out);
    }
    fn join(&mut self, member: &Member) {
        self.nodes.push((member.id, member.name.clone()));
    }
    fn leave(&mut self, id: NodeId) {
        self.nodes.retain(|(n, _)| *n != id);
    }
    fn nodes(&self) -> Vec<NodeId> {
        self.nodes.iter().map(|(id, _)| *id).collect()
    }
}
