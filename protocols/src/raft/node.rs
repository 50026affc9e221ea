//! The Raft actor: a node is a server or a client. Servers come first in `NodeId` order, so
//! a server's peers are ids `0..servers`.

use crate::raft::client::Client;
use crate::raft::config::RaftConfig;
use crate::raft::msg::RaftMsg;
use crate::raft::notes::RaftNote;
use crate::raft::server::Server;
use sim_core::{Actor, Context, NodeId, RoleClaim};

pub use crate::raft::handler::{RaftCommand, RaftTimer};
pub use crate::raft::server::Role;

/// A Raft node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RaftNode {
    /// A server (follower, candidate or leader).
    Server(Box<Server>),
    /// A client.
    Client(Client),
}

impl RaftNode {
    /// Node `id` of `config`: a server for the first `config.nodes.len()` ids, then clients.
    pub fn new(config: &RaftConfig, id: NodeId) -> RaftNode {
        if id.index() < config.nodes.len() {
            RaftNode::Server(Box::new(Server::new(config, id)))
        } else {
            RaftNode::Client(Client::new(config))
        }
    }

    /// The server, if this node is one.
    pub fn server(&self) -> Option<&Server> {
        match self {
            RaftNode::Server(s) => Some(s),
            RaftNode::Client(_) => None,
        }
    }

    /// The client, if this node is one.
    pub fn client(&self) -> Option<&Client> {
        match self {
            RaftNode::Client(c) => Some(c),
            RaftNode::Server(_) => None,
        }
    }
}

impl Actor for RaftNode {
    type Msg = RaftMsg;
    type Timer = RaftTimer;
    type Note = RaftNote;
    type Command = RaftCommand;

    fn same_state(&self, other: &Self) -> bool {
        self == other
    }

    const ROLES: &'static [&'static str] = &["leader", "candidate", "follower"];

    /// A server's role in its current term: `"@leader"` in a scenario is the leader of the
    /// newest term among the nodes a step can act on. Clients claim nothing.
    fn claim(&self) -> Option<RoleClaim> {
        let server = self.server()?;
        Some(RoleClaim {
            role: server.role_word(),
            epoch: server.current_term(),
        })
    }

    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        match self {
            RaftNode::Server(s) => s.on_start(ctx),
            RaftNode::Client(c) => c.on_start(ctx),
        }
    }

    /// The lesson's "--- nodo-1 VUELVE (cree seguir en el término 2) ---".
    fn on_resume(&mut self, ctx: &mut Context<'_, Self>) {
        let (term, leads) = match self {
            RaftNode::Server(s) => (Some(s.current_term()), s.role() == Role::Leader),
            RaftNode::Client(_) => (None, false),
        };
        ctx.note(RaftNote::Resumed { term, leads });
    }

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: RaftMsg) {
        match self {
            RaftNode::Server(s) => s.on_message(ctx, from, msg),
            RaftNode::Client(c) => c.on_message(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut Context<'_, Self>, timer: RaftTimer) {
        match self {
            RaftNode::Server(s) => s.on_timer(ctx, timer),
            RaftNode::Client(c) => c.on_timer(ctx, timer),
        }
    }

    fn on_command(&mut self, ctx: &mut Context<'_, Self>, command: RaftCommand) {
        if let RaftNode::Client(c) = self {
            c.on_command(ctx, command);
        }
    }

    fn on_crash(&mut self) {
        match self {
            RaftNode::Server(s) => s.on_crash(),
            RaftNode::Client(c) => c.on_crash(),
        }
    }
}

/// Clients' `Requested` notes are calls, their `Acknowledged` notes returns.
impl crate::kvstore::history::ClientNotes for RaftNode {
    fn is_client_event(note: &RaftNote) -> bool {
        matches!(
            note,
            RaftNote::Requested { .. } | RaftNote::Acknowledged { .. }
        )
    }

    fn client_event(note: &RaftNote) -> Option<crate::kvstore::history::ClientEvent> {
        use crate::kvstore::history::ClientEvent;
        match note {
            RaftNote::Requested {
                key,
                value,
                request,
                ..
            } => Some(ClientEvent::Call(request.op(key, value).to_kv_op())),
            RaftNote::Acknowledged { answer, .. } => Some(ClientEvent::Return(answer.kv_ret())),
            _ => None,
        }
    }
}
