//! What every role of a live-ring node shares: the read-only [`Env`] (config, names, own id) and
//! the actor bound [`RingActor`] that the roles' handlers are generic over.
//!
//! The roles (storage in [`storage`](crate::ring_store::storage), the quorum machine in
//! [`coord`](crate::ring_store::coord), the client in [`client`](crate::ring_store::client))
//! never name the node type: a handler takes the kernel's `Context` of any actor that speaks the
//! ring's messages, timers and notes, the [`Env`], and whatever other role's state it reads as
//! an explicit parameter. So no role module imports `node`, and `node` only composes the roles.

use crate::ring_store::config::RingConfig;
use crate::ring_store::map::Map;
use crate::ring_store::msg::{RingMsg, RingTimer};
use crate::ring_store::notes::RingNote;
use sim_core::{Actor, Duration, NodeId};
use std::sync::Arc;

/// An actor with the live ring's messages, timers and notes: what a role's handler needs of the
/// kernel's `Context` (send, set timers, note), without naming the node that composes the roles.
pub trait RingActor: Actor<Msg = RingMsg, Timer = RingTimer, Note = RingNote> {}

impl<A: Actor<Msg = RingMsg, Timer = RingTimer, Note = RingNote>> RingActor for A {}

/// What every role of a node reads and none changes: the config, the names of all nodes (ids
/// index them) and this node's id.
#[derive(Clone, Debug, Hash)]
pub struct Env {
    /// The scenario's settings.
    pub cfg: Arc<RingConfig>,
    /// Every node's name, by id (see [`RingConfig::names`]).
    pub names: Arc<Vec<String>>,
    /// This node.
    pub id: NodeId,
    /// The map at epoch 0, built once for all nodes (a 1,000-node ring of 100 vnodes is
    /// 100,000 positions: one copy, not one per node).
    pub initial: Arc<Map>,
}

impl Env {
    /// The context of node `id` of `config`.
    pub fn new(config: &RingConfig, id: NodeId) -> Env {
        let mut all = Env::all(config);
        all.swap_remove(id.index())
    }

    /// The context of every node of `config`, by id, sharing one config, one name list and
    /// one initial map.
    pub fn all(config: &RingConfig) -> Vec<Env> {
        let cfg = Arc::new(config.clone());
        let names = Arc::new(config.names());
        let initial = Arc::new(Map::initial(config));
        (0..names.len())
            .map(|i| Env {
                cfg: cfg.clone(),
                names: names.clone(),
                id: NodeId(u32::try_from(i).expect("node count fits in u32")),
                initial: initial.clone(),
            })
            .collect()
    }

    /// This node's name.
    pub fn name(&self) -> &str {
        &self.names[self.id.index()]
    }

    /// The name of node `id`, for a note.
    pub fn name_of(&self, id: NodeId) -> String {
        self.names[id.index()].clone()
    }

    /// The names of `ids`, in order, for a note.
    pub fn names_of(&self, ids: &[NodeId]) -> Vec<String> {
        ids.iter().map(|&id| self.name_of(id)).collect()
    }

    /// The coordinator's id (after the storage nodes and spares, before the clients).
    pub fn coordinator(&self) -> NodeId {
        NodeId(self.cfg.coordinator_index() as u32)
    }

    /// Whether this node is the coordinator.
    pub fn is_main(&self) -> bool {
        self.id == self.coordinator()
    }

    /// Whether this node is a client (every node after the coordinator).
    pub fn is_client(&self) -> bool {
        self.id.index() > self.cfg.coordinator_index()
    }

    /// How long a node waits for a replica before taking it as down (`rpc_timeout_ms`).
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.cfg.rpc_timeout_ms)
    }

    /// `times` timeouts: the pace of retries that must not crowd the first answers.
    pub fn timeouts(&self, times: u64) -> Duration {
        Duration::from_millis(self.cfg.rpc_timeout_ms * times)
    }
}
