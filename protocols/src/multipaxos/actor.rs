//! The Multi-Paxos actor: a node is a replica (proposer, acceptor and learner) or a key-value
//! client. Replicas come first in `NodeId` order, so a replica's peers are ids `0..replicas`
//! and client i is node `replicas + i`.

use crate::multipaxos::client::Client;
use crate::multipaxos::config::MultiPaxosConfig;
use crate::multipaxos::handler::{MultiPaxosCommand, MultiPaxosTimer};
use crate::multipaxos::msg::MultiPaxosMsg;
use crate::multipaxos::node::Replica;
use crate::multipaxos::notes::MultiPaxosNote;
use sim_core::{Actor, Context, NodeId, RoleClaim};

/// A Multi-Paxos node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MultiPaxosNode {
    /// A replica.
    Replica(Box<Replica>),
    /// A key-value client.
    Client(Client),
}

impl MultiPaxosNode {
    /// Node `id` of `config`: a replica for the first `config.nodes.len()` ids, then clients.
    pub fn new(config: &MultiPaxosConfig, id: NodeId) -> MultiPaxosNode {
        let names = config.names();
        let name = names.get(id.index()).map(String::as_str).unwrap_or("");
        if id.index() < config.nodes.len() {
            MultiPaxosNode::Replica(Box::new(Replica::from_config(config, name)))
        } else {
            MultiPaxosNode::Client(Client::new(config, name))
        }
    }

    /// The replica, if this node is one.
    pub fn replica(&self) -> Option<&Replica> {
        match self {
            MultiPaxosNode::Replica(r) => Some(r),
            MultiPaxosNode::Client(_) => None,
        }
    }

    /// The client, if this node is one.
    pub fn client(&self) -> Option<&Client> {
        match self {
            MultiPaxosNode::Client(c) => Some(c),
            MultiPaxosNode::Replica(_) => None,
        }
    }
}

impl Actor for MultiPaxosNode {
    type Msg = MultiPaxosMsg;
    type Timer = MultiPaxosTimer;
    type Note = MultiPaxosNote;
    type Command = MultiPaxosCommand;

    const ROLES: &'static [&'static str] = &["leader", "candidate"];

    /// A replica's role at its ballot; clients claim nothing.
    fn claim(&self) -> Option<RoleClaim> {
        self.replica()?.claim()
    }

    /// Equal state of the same node: a replica's setup (its id, its peers) is left out of
    /// `==` and of the hash, and two replicas in equal states are still two different nodes.
    fn same_state(&self, other: &Self) -> bool {
        match (self, other) {
            (MultiPaxosNode::Replica(a), MultiPaxosNode::Replica(b)) => {
                a.setup.me == b.setup.me && a == b
            }
            _ => self == other,
        }
    }

    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        match self {
            MultiPaxosNode::Replica(r) => r.on_start(ctx),
            MultiPaxosNode::Client(c) => c.on_start(ctx),
        }
    }

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: MultiPaxosMsg) {
        match self {
            MultiPaxosNode::Replica(r) => r.on_message(ctx, from, msg),
            MultiPaxosNode::Client(c) => c.on_message(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut Context<'_, Self>, timer: MultiPaxosTimer) {
        match self {
            MultiPaxosNode::Replica(r) => r.on_timer(ctx, timer),
            MultiPaxosNode::Client(c) => c.on_timer(ctx, timer),
        }
    }

    fn on_command(&mut self, ctx: &mut Context<'_, Self>, command: MultiPaxosCommand) {
        match self {
            MultiPaxosNode::Replica(r) => r.on_command(ctx, command),
            MultiPaxosNode::Client(c) => c.on_command(ctx, command),
        }
    }

    /// A replica forgets its role and the values given to it; a client forgets nothing (it is
    /// the scenario's driver, not a node under test).
    fn on_crash(&mut self) {
        if let MultiPaxosNode::Replica(r) = self {
            r.on_crash();
        }
    }
}

/// Clients' `Requested` notes are calls, their `Acknowledged` notes returns.
impl crate::kvstore::history::ClientNotes for MultiPaxosNode {
    fn is_client_event(note: &MultiPaxosNote) -> bool {
        matches!(
            note,
            MultiPaxosNote::Requested { .. } | MultiPaxosNote::Acknowledged { .. }
        )
    }

    fn client_event(note: &MultiPaxosNote) -> Option<crate::kvstore::history::ClientEvent> {
        use crate::kvstore::history::ClientEvent;
        match note {
            MultiPaxosNote::Requested { op, .. } => Some(ClientEvent::Call(op.clone())),
            MultiPaxosNote::Acknowledged { answer, .. } => {
                Some(ClientEvent::Return(answer.kv_ret()))
            }
            _ => None,
        }
    }
}
