//! The PBFT actor: a node is a replica or a client, over one read-only
//! [`Setup`](crate::pbft::setup::Setup) they share.

use crate::pbft::client::Client;
use crate::pbft::config::PbftConfig;
use crate::pbft::msg::PbftMsg;
use crate::pbft::notes::PbftNote;
use crate::pbft::replica::Replica;
use crate::pbft::service::Op;
use crate::pbft::setup::{Faults, PbftTimer, Shared};
use sim_core::{Actor, Context, NodeId, RoleClaim};

/// A PBFT node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PbftNode {
    /// A replica (correct or Byzantine).
    Replica(Box<Replica>),
    /// A client.
    Client(Client),
}

impl PbftNode {
    /// Node `id` of `config`.
    pub fn new(config: &PbftConfig, setup: &Shared, id: NodeId) -> PbftNode {
        if setup.is_replica(id) {
            let faults = config
                .byzantine
                .get(setup.name(id))
                .map_or_else(Faults::default, |b| Faults::of(b));
            PbftNode::Replica(Box::new(Replica::new(setup.clone(), id, faults)))
        } else {
            PbftNode::Client(Client::new(setup.clone(), id))
        }
    }

    /// The replica, if this node is one.
    pub fn replica(&self) -> Option<&Replica> {
        match self {
            PbftNode::Replica(r) => Some(r),
            PbftNode::Client(_) => None,
        }
    }

    /// The client, if this node is one.
    pub fn client(&self) -> Option<&Client> {
        match self {
            PbftNode::Client(c) => Some(c),
            PbftNode::Replica(_) => None,
        }
    }
}

impl Actor for PbftNode {
    type Msg = PbftMsg;
    type Timer = PbftTimer;
    type Note = PbftNote;
    type Command = Op;

    fn same_state(&self, other: &Self) -> bool {
        self == other
    }

    const ROLES: &'static [&'static str] = &["primary"];

    /// A replica that is the primary of its view claims it, with the view as epoch.
    fn claim(&self) -> Option<RoleClaim> {
        let replica = self.replica()?;
        replica.is_primary().then(|| RoleClaim {
            role: "primary",
            epoch: replica.view(),
        })
    }

    /// A node that restarts arms its timers again (a client its request's, a replica its
    /// view-change timer).
    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        match self {
            PbftNode::Replica(r) => r.on_start(ctx),
            PbftNode::Client(c) => c.on_start(ctx),
        }
    }

    /// State is durable (the paper's replicas keep their log on disk); the kernel cancels
    /// the timers, which the replica must know.
    fn on_crash(&mut self) {
        if let PbftNode::Replica(r) = self {
            r.on_crash();
        }
    }

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: PbftMsg) {
        match self {
            PbftNode::Replica(r) => r.on_message(ctx, from, msg),
            PbftNode::Client(c) => c.on_message(ctx, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut Context<'_, Self>, timer: PbftTimer) {
        match self {
            PbftNode::Replica(r) => r.on_timer(ctx, timer),
            PbftNode::Client(c) => c.on_timer(ctx, timer),
        }
    }

    fn on_command(&mut self, ctx: &mut Context<'_, Self>, command: Op) {
        if let PbftNode::Client(c) = self {
            c.on_command(ctx, command);
        }
    }
}
