//! A Raft client: sends one write at a time to the server it believes leads, follows a
//! redirect to the leader a follower names, and retries on the next server when no answer
//! comes (§8 of the paper: "If the client's request times out ... the client reissues the
//! request to some other randomly chosen server"; here the next one, so that runs replay).
//!
//! A write is acknowledged when the leader has committed and applied it; a retry keeps the
//! request number, so the state machine applies it once ([`crate::kvstore::Kv`]).

use crate::raft::config::RaftConfig;
use crate::raft::handler::{Handler, RaftCommand, RaftTimer};
use crate::raft::log::Request;
use crate::raft::msg::RaftMsg;
use crate::raft::notes::RaftNote;
use sim_core::{Context, Duration, Name, NodeId};
use std::collections::VecDeque;
use std::sync::Arc;

/// A request in flight: its number, key and value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Pending {
    seq: u64,
    key: Name,
    value: Name,
    request: Request,
}

/// A client node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    /// Every node's name, by `NodeId`.
    names: Arc<[Name]>,
    /// How many of them are servers (ids `0..servers`).
    servers: usize,
    retry: Duration,
    /// Requests the scenario asked for and not yet sent: (first server, key, value, request).
    queue: VecDeque<(Option<NodeId>, Name, Name, Request)>,
    current: Option<Pending>,
    next_seq: u64,
    /// The server it sends to: the first, until a reply names the leader.
    target: NodeId,
    acknowledged: u64,
}

impl Client {
    /// A client of `config` (every client starts alike).
    pub fn new(config: &RaftConfig) -> Client {
        Client {
            names: config.names().iter().map(Name::from).collect(),
            servers: config.nodes.len(),
            retry: Duration::from_millis(config.client_retry_ms),
            queue: VecDeque::new(),
            current: None,
            next_seq: 1,
            target: NodeId(0),
            acknowledged: 0,
        }
    }

    /// Writes acknowledged so far.
    pub fn acknowledged(&self) -> u64 {
        self.acknowledged
    }

    /// Whether a write is still waiting for its answer or to be sent.
    pub fn busy(&self) -> bool {
        self.current.is_some() || !self.queue.is_empty()
    }

    fn name(&self, id: NodeId) -> Name {
        self.names
            .get(id.index())
            .cloned()
            .unwrap_or_else(|| Name::from(id.to_string()))
    }

    /// A restarted client sends its unanswered request again.
    pub(crate) fn on_start<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        if self.current.is_some() {
            self.send(ctx);
        }
    }

    /// Nothing is lost: the client is the scenario's driver, not a node under test.
    pub(crate) fn on_crash(&mut self) {}

    pub(crate) fn on_command<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        command: RaftCommand,
    ) {
        let via = |server: &str| {
            self.names[..self.servers]
                .iter()
                .position(|n| **n == *server)
                .map(|i| NodeId(i as u32))
        };
        let write = match command {
            RaftCommand::Put(key, value) => (None, key.into(), value.into(), Request::Put),
            RaftCommand::PutVia(server, key, value) => {
                (via(&server), key.into(), value.into(), Request::Put)
            }
            RaftCommand::Get(key) => (None, key.into(), Name::from(""), Request::Get),
            RaftCommand::GetVia(server, key) => {
                (via(&server), key.into(), Name::from(""), Request::Get)
            }
            RaftCommand::Append(key, value) => (None, key.into(), value.into(), Request::Append),
            RaftCommand::Cas(key, expected, value) => (
                None,
                key.into(),
                value.into(),
                Request::Cas(expected.map(Name::from)),
            ),
        };
        self.queue.push_back(write);
        if self.current.is_none() {
            self.next(ctx);
        }
    }

    /// Starts the next queued write, if any.
    fn next<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let Some((via, key, value, request)) = self.queue.pop_front() else {
            return;
        };
        if let Some(server) = via {
            self.target = server;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        ctx.note(RaftNote::Requested {
            seq,
            server: self.name(self.target),
            key: key.clone(),
            value: value.clone(),
            request: request.clone(),
        });
        self.current = Some(Pending {
            seq,
            key,
            value,
            request,
        });
        self.send(ctx);
    }

    fn send<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let Some(p) = &self.current else { return };
        let seq = p.seq;
        ctx.send(
            self.target,
            RaftMsg::ClientRequest {
                seq,
                key: p.key.clone(),
                value: p.value.clone(),
                request: p.request.clone(),
            },
        );
        ctx.set_timer(RaftTimer::ClientRetry { seq }, self.retry);
    }

    pub(crate) fn on_message<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        msg: RaftMsg,
    ) {
        let RaftMsg::ClientReply {
            seq,
            index,
            leader,
            answer,
        } = msg
        else {
            return;
        };
        if self.current.as_ref().map(|p| p.seq) != Some(seq) {
            return; // An answer to an earlier request, or a duplicate.
        }
        match (index, leader) {
            (Some(index), _) => {
                ctx.cancel_timer(RaftTimer::ClientRetry { seq });
                self.acknowledged += 1;
                self.target = from;
                ctx.note(RaftNote::Acknowledged {
                    seq,
                    index,
                    server: self.name(from),
                    answer,
                });
                self.current = None;
                self.next(ctx);
            }
            (None, Some(leader)) if leader != self.target && leader.index() < self.servers => {
                ctx.note(RaftNote::Redirected {
                    seq,
                    from: self.name(from),
                    to: self.name(leader),
                });
                self.target = leader;
                self.send(ctx);
            }
            // No leader known there: wait for the retry timer to try the next server.
            (None, _) => {}
        }
    }

    pub(crate) fn on_timer<A: Handler>(&mut self, ctx: &mut Context<'_, A>, timer: RaftTimer) {
        let RaftTimer::ClientRetry { seq } = timer else {
            return;
        };
        if self.current.as_ref().map(|p| p.seq) != Some(seq) {
            return;
        }
        self.target = NodeId((self.target.0 + 1) % self.servers.max(1) as u32);
        ctx.note(RaftNote::Retried {
            seq,
            server: self.name(self.target),
        });
        self.send(ctx);
    }
}
