//! What a PBFT replica and client share: the read-only [`Setup`] of the config, the flags of a
//! Byzantine replica, the timers, and [`Handler`], the context type their handlers write to.
//!
//! The handlers are written against any actor with PBFT's messages, timers and notes, so that
//! the replica and the client need not know the actor enum that holds them ([`crate::pbft::node`]).

use crate::pbft::config::{Behaviour, Bugs, PbftConfig};
use crate::pbft::msg::{PbftMsg, View};
use crate::pbft::notes::PbftNote;
use serde::{Deserialize, Serialize};
use sim_core::{Actor, Context, Duration, NodeId};

/// An actor with PBFT's messages, timers and notes: what the replica and client handlers need
/// of the node that runs them.
pub trait Handler: Actor<Msg = PbftMsg, Timer = PbftTimer, Note = PbftNote> {}

impl<A: Actor<Msg = PbftMsg, Timer = PbftTimer, Note = PbftNote>> Handler for A {}

/// A handler's context.
pub type Ctx<'a, 'b, A> = &'a mut Context<'b, A>;

/// What every node of a config knows and nobody changes: names, roles, f, the quorum.
#[derive(Debug, PartialEq, Eq)]
pub struct Setup {
    /// Every node's name, by `NodeId`.
    pub names: Vec<String>,
    /// N: replicas are ids 0..N, clients N.. .
    pub replicas: u32,
    /// The tolerated number of Byzantine replicas.
    pub f: usize,
    /// Matching messages that make a quorum (see [`PbftConfig::quorum`]).
    pub quorum: usize,
    /// K: a checkpoint every K executed requests.
    pub checkpoint_interval: u64,
    /// L: the high water mark is the low one plus L.
    pub window: u64,
    /// How long a client waits before sending its request to every replica.
    pub client_timeout: Duration,
    /// How long a backup waits for a request before it starts a view change (doubled on each
    /// consecutive one).
    pub view_change_timeout: Duration,
    /// The bug knobs of correct replicas.
    pub bugs: Bugs,
}

impl Setup {
    /// The setup of `config`.
    pub fn of(config: &PbftConfig) -> Setup {
        Setup {
            names: config.node_names(),
            replicas: u32::try_from(config.n()).expect("validated: at most 64 nodes"),
            f: config.f as usize,
            quorum: config.quorum(),
            checkpoint_interval: config.checkpoint_interval,
            window: config.window,
            client_timeout: Duration::from_millis(config.client_timeout_ms),
            view_change_timeout: Duration::from_millis(config.view_change_timeout_ms),
            bugs: config.bugs,
        }
    }

    /// The primary of `view`: replica v mod N.
    pub fn primary(&self, view: View) -> NodeId {
        NodeId(u32::try_from(view % u64::from(self.replicas)).expect("below N"))
    }

    /// Whether `id` is a replica.
    pub fn is_replica(&self, id: NodeId) -> bool {
        id.0 < self.replicas
    }

    /// Whether `id` is a client.
    pub fn is_client(&self, id: NodeId) -> bool {
        !self.is_replica(id) && id.index() < self.names.len()
    }

    /// Every replica's id.
    pub fn replica_ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.replicas).map(NodeId)
    }

    /// The name of `id`.
    pub fn name(&self, id: NodeId) -> &str {
        self.names.get(id.index()).map_or("?", String::as_str)
    }
}

/// The setup, shared by every node and left out of state hashes.
pub type Shared = crate::common::Shared<Setup>;

/// What a Byzantine replica does (the config's behaviours as flags); all off for a correct one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Faults {
    /// Sends nothing.
    pub silent: bool,
    /// Different requests for one number to different replicas.
    pub equivocate: bool,
    /// Forged digests and results.
    pub lie: bool,
    /// Old messages again; requests assigned twice.
    pub replay: bool,
    /// Votes for everything it sees.
    pub double_vote: bool,
}

impl Faults {
    /// The flags of `behaviours`.
    pub fn of(behaviours: &[Behaviour]) -> Faults {
        let mut faults = Faults::default();
        for b in behaviours {
            match b {
                Behaviour::Silent => faults.silent = true,
                Behaviour::Equivocate => faults.equivocate = true,
                Behaviour::Lie => faults.lie = true,
                Behaviour::Replay => faults.replay = true,
                Behaviour::DoubleVote => faults.double_vote = true,
            }
        }
        faults
    }
}

/// The node's timers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PbftTimer {
    /// Client: request `timestamp` has had no accepted result in time.
    Retransmit {
        /// The request's timestamp.
        timestamp: u64,
    },
    /// Replica: a request it knows of has not executed in `view` in time (or the view change
    /// to `view` has not completed): time to move to the next view.
    ViewChange {
        /// The view the timer was armed in.
        view: View,
    },
}
