//! The lease actor: a node is the store, a relay or the resource, over one read-only
//! [`Setup`](crate::lease::setup::Setup) they share.

use crate::lease::msg::{LeaseMsg, LeaseTimer};
use crate::lease::notes::LeaseNote;
use crate::lease::relay::{Phase, Relay};
use crate::lease::resource::Resource;
use crate::lease::setup::Shared;
use crate::lease::store::Store;
use serde::{Deserialize, Serialize};
use sim_core::{Actor, Context, NodeId, RoleClaim};

/// A lease node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LeaseNode {
    /// The coordination store.
    Store(Store),
    /// A relay instance.
    Relay(Relay),
    /// The protected resource.
    Resource(Resource),
}

/// What a scenario can tell a relay.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LeaseCommand {
    /// A clean shutdown (a redeploy): revoke the lease and stop, so the key goes at once.
    Shutdown,
}

impl LeaseNode {
    /// Node `id` of the config `setup` was made from.
    pub fn new(setup: &Shared, id: NodeId) -> LeaseNode {
        if id == setup.store() {
            LeaseNode::Store(Store::new(setup.clone()))
        } else if setup.is_relay(id) {
            LeaseNode::Relay(Relay::new(setup.clone()))
        } else {
            LeaseNode::Resource(Resource::new(setup.clone()))
        }
    }

    /// The relay, if this node is one.
    pub fn relay(&self) -> Option<&Relay> {
        match self {
            LeaseNode::Relay(r) => Some(r),
            _ => None,
        }
    }

    /// The store, if this node is it.
    pub fn store(&self) -> Option<&Store> {
        match self {
            LeaseNode::Store(s) => Some(s),
            _ => None,
        }
    }
}

impl Actor for LeaseNode {
    type Msg = LeaseMsg;
    type Timer = LeaseTimer;
    type Note = LeaseNote;
    type Command = LeaseCommand;

    fn same_state(&self, other: &Self) -> bool {
        self == other
    }

    const ROLES: &'static [&'static str] = &["leader"];

    /// A relay that believes it leads claims "leader", with its token as epoch (the newest
    /// leader has the highest).
    fn claim(&self) -> Option<RoleClaim> {
        match self.relay()?.phase() {
            Phase::Leading { token, .. } => Some(RoleClaim {
                role: "leader",
                epoch: token,
            }),
            _ => None,
        }
    }

    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        match self {
            LeaseNode::Relay(r) => r.on_start(ctx),
            LeaseNode::Store(s) => s.on_start(ctx),
            LeaseNode::Resource(_) => {}
        }
    }

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: LeaseMsg) {
        match self {
            LeaseNode::Store(s) => s.on_message(ctx, from, msg),
            LeaseNode::Relay(r) => r.on_message(ctx, msg),
            LeaseNode::Resource(r) => r.on_message(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut Context<'_, Self>, timer: LeaseTimer) {
        match self {
            LeaseNode::Store(s) => s.on_timer(ctx, timer),
            LeaseNode::Relay(r) => r.on_timer(ctx, timer),
            LeaseNode::Resource(_) => {}
        }
    }

    fn on_command(&mut self, ctx: &mut Context<'_, Self>, command: LeaseCommand) {
        if let (LeaseNode::Relay(r), LeaseCommand::Shutdown) = (self, command) {
            r.shut_down(ctx);
        }
    }

    /// A relay is a process and loses everything; the store and the resource are durable.
    fn on_crash(&mut self) {
        if let LeaseNode::Relay(r) = self {
            r.on_crash();
        }
    }
}
