//! What every lease node knows and nobody changes ([`Setup`]), and [`Handler`], the context
//! type the store, relay and resource handlers write to without knowing the node enum.

use crate::lease::config::{Bugs, LeaseConfig};
use crate::lease::msg::{LeaseMsg, LeaseTimer};
use crate::lease::notes::LeaseNote;
use sim_core::{Actor, Context, Duration, Name, NodeId};

/// An actor with the lease protocol's messages, timers and notes.
pub trait Handler: Actor<Msg = LeaseMsg, Timer = LeaseTimer, Note = LeaseNote> {}

impl<A: Actor<Msg = LeaseMsg, Timer = LeaseTimer, Note = LeaseNote>> Handler for A {}

/// A handler's context.
pub type Ctx<'a, 'b, A> = &'a mut Context<'b, A>;

/// The read-only facts of a config: names, roles, timings.
#[derive(Debug, PartialEq, Eq)]
pub struct Setup {
    /// Every node's name by `NodeId`: the store (0), the relays, the resource (last).
    pub names: Vec<Name>,
    /// The key the relays race for.
    pub key: Name,
    /// The lease's TTL.
    pub ttl: Duration,
    /// The leader's sleep between rounds.
    pub renew_every: Duration,
    /// How long a call to the store may go unanswered.
    pub rpc_timeout: Duration,
    /// How long a round of work takes.
    pub work: Duration,
    /// The relay's safety margin under the TTL.
    pub safety_margin: Duration,
    /// Whether the resource checks tokens.
    pub fencing: bool,
    /// The bug knobs.
    pub bugs: Bugs,
}

impl Setup {
    /// The setup of `config`.
    pub fn of(config: &LeaseConfig) -> Setup {
        Setup {
            names: config.node_names().iter().map(Name::from).collect(),
            key: Name::from(&config.key),
            ttl: Duration::from_millis(config.ttl_ms),
            renew_every: Duration::from_millis(config.renew_every_ms),
            rpc_timeout: Duration::from_millis(config.rpc_timeout_ms),
            work: Duration::from_millis(config.work_ms),
            safety_margin: Duration::from_millis(config.safety_margin_ms),
            fencing: config.fencing,
            bugs: config.bugs,
        }
    }

    /// The store's id.
    pub fn store(&self) -> NodeId {
        NodeId(0)
    }

    /// The resource's id.
    pub fn resource(&self) -> NodeId {
        NodeId(u32::try_from(self.names.len() - 1).expect("validated: few nodes"))
    }

    /// Whether `id` is a relay.
    pub fn is_relay(&self, id: NodeId) -> bool {
        id.0 > 0 && id.index() + 1 < self.names.len()
    }

    /// The name of `id`.
    pub fn name(&self, id: NodeId) -> Name {
        self.names
            .get(id.index())
            .cloned()
            .unwrap_or_else(|| Name::from("?"))
    }
}

/// The setup, shared by every node and left out of state hashes.
pub type Shared = crate::common::Shared<Setup>;
