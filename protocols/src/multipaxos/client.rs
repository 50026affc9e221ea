//! A key-value client of the Multi-Paxos log: one request at a time, sent to the replica it
//! believes leads; a replica that does not lead names the leader it follows, and a request
//! with no answer in time goes again to the next replica (in order, so that runs replay).
//!
//! A request is answered when the leader has applied it (or by any replica that already has,
//! to a retry). A retry keeps the request's number, so however often the request is logged the
//! state machine applies it once ([`crate::kvstore::Kv`]). Each request is a `Requested` note
//! (the call) and each answer an `Acknowledged` note (the return): the history
//! [`crate::kvstore::history`] checks.

use crate::linearizability::KvOp;
use crate::multipaxos::config::MultiPaxosConfig;
use crate::multipaxos::handler::Handler;
use crate::multipaxos::handler::{MultiPaxosCommand, MultiPaxosTimer};
use crate::multipaxos::msg::{ClientRequest, MultiPaxosMsg};
use crate::multipaxos::notes::MultiPaxosNote;
use sim_core::{Context, Duration, Name, NodeId};
use std::collections::VecDeque;
use std::sync::Arc;

/// A client node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    /// Every node's name, by `NodeId` (the replicas, then the clients).
    names: Arc<[Name]>,
    /// Its own name.
    me: Name,
    /// How many nodes are replicas (ids `0..replicas`).
    replicas: usize,
    retry: Duration,
    /// Operations the scenario asked for and not yet sent.
    queue: VecDeque<KvOp>,
    /// The request in flight.
    current: Option<Arc<ClientRequest>>,
    next_seq: u64,
    /// The replica it sends to: the first, until a reply names the leader.
    target: NodeId,
    acknowledged: u64,
}

impl Client {
    /// Client `name` of `config`.
    pub fn new(config: &MultiPaxosConfig, name: &str) -> Client {
        Client {
            names: config
                .names()
                .iter()
                .map(|n| Name::from(n.as_str()))
                .collect(),
            me: Name::from(name),
            replicas: config.nodes.len(),
            retry: Duration::from_millis(config.client_retry_ms),
            queue: VecDeque::new(),
            current: None,
            next_seq: 1,
            target: NodeId(0),
            acknowledged: 0,
        }
    }

    /// Requests answered so far.
    pub fn acknowledged(&self) -> u64 {
        self.acknowledged
    }

    /// The operation waiting for its answer or to be sent, if any.
    pub fn waiting(&self) -> Option<&KvOp> {
        self.current
            .as_ref()
            .map(|r| &r.op)
            .or_else(|| self.queue.front())
    }

    fn name(&self, id: NodeId) -> Name {
        self.names
            .get(id.index())
            .cloned()
            .unwrap_or_else(|| Name::from(id.to_string().as_str()))
    }

    /// A restarted client sends its unanswered request again.
    pub(crate) fn on_start<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        if self.current.is_some() {
            self.send(ctx);
        }
    }

    pub(crate) fn on_command<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        command: MultiPaxosCommand,
    ) {
        let op = match command {
            MultiPaxosCommand::Put(key, value) => KvOp::Put(key, value),
            MultiPaxosCommand::Get(key) => KvOp::Get(key),
            MultiPaxosCommand::Append(key, value) => KvOp::Append(key, value),
            MultiPaxosCommand::Cas(key, expected, value) => KvOp::Cas(key, expected, value),
            // A replica's command: refused before a run starts (`command_problem`).
            MultiPaxosCommand::Submit(_) | MultiPaxosCommand::Lead => return,
        };
        self.queue.push_back(op);
        if self.current.is_none() {
            self.next(ctx);
        }
    }

    /// Starts the next queued operation, if any.
    fn next<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let Some(op) = self.queue.pop_front() else {
            return;
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        ctx.note(MultiPaxosNote::Requested {
            seq,
            server: self.name(self.target),
            op: op.clone(),
        });
        self.current = Some(Arc::new(ClientRequest {
            client: self.me.clone(),
            seq,
            op,
        }));
        self.send(ctx);
    }

    fn send<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let Some(request) = &self.current else { return };
        let seq = request.seq;
        let request = request.clone();
        ctx.send(self.target, MultiPaxosMsg::Request { request });
        ctx.set_timer(MultiPaxosTimer::ClientRetry { seq }, self.retry);
    }

    pub(crate) fn on_message<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        msg: MultiPaxosMsg,
    ) {
        let MultiPaxosMsg::Reply {
            seq,
            slot,
            leader,
            answer,
        } = msg
        else {
            return;
        };
        if self.current.as_ref().map(|r| r.seq) != Some(seq) {
            return; // An answer to an earlier request, or a duplicate.
        }
        match (slot, leader) {
            (Some(slot), _) => {
                ctx.cancel_timer(MultiPaxosTimer::ClientRetry { seq });
                self.acknowledged += 1;
                self.target = from;
                ctx.note(MultiPaxosNote::Acknowledged {
                    seq,
                    slot,
                    server: self.name(from),
                    answer,
                });
                self.current = None;
                self.next(ctx);
            }
            (None, Some(leader)) if leader != self.target && leader.index() < self.replicas => {
                ctx.note(MultiPaxosNote::Redirected {
                    seq,
                    from: self.name(from),
                    to: self.name(leader),
                });
                self.target = leader;
                self.send(ctx);
            }
            // No leader known there: the retry timer tries the next replica.
            (None, _) => {}
        }
    }

    pub(crate) fn on_timer<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        timer: MultiPaxosTimer,
    ) {
        let MultiPaxosTimer::ClientRetry { seq } = timer else {
            return;
        };
        if self.current.as_ref().map(|r| r.seq) != Some(seq) {
            return;
        }
        self.target = NodeId((self.target.0 + 1) % self.replicas.max(1) as u32);
        ctx.note(MultiPaxosNote::Retried {
            seq,
            server: self.name(self.target),
        });
        self.send(ctx);
    }
}
