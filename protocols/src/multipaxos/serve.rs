//! The replica's key-value state machine and its clients: every replica applies the log in
//! slot order to its [`crate::kvstore::Kv`] (a client's request takes effect once, however often it was
//! logged); the leader answers a request once it has applied it, any replica answers a retry
//! it has already applied, and a replica that does not lead names the leader it follows. With
//! `reads: LeaderLocal`, a leader answers reads from its own map without logging them.

use crate::kvstore::{Answer, OpRef, Reads};
use crate::linearizability::KvOp;
use crate::multipaxos::handler::Handler;
use crate::multipaxos::msg::{ClientRequest, MultiPaxosMsg, Slot, Value};
use crate::multipaxos::node::{Replica, Role};
use crate::multipaxos::notes::MultiPaxosNote;
use sim_core::{Context, NodeId};
use std::sync::Arc;

impl Replica {
    /// Applies `slot`'s `value` to the state machine: a client's request takes effect (once
    /// per client and number), and a leader answers the client.
    pub(crate) fn apply<A: Handler>(&mut self, ctx: &mut Context<'_, A>, slot: Slot, value: Value) {
        ctx.note(MultiPaxosNote::Applied {
            slot,
            value: value.clone(),
        });
        self.pending.retain(|p| *p != value);
        let Value::Request(request) = value else {
            return;
        };
        let forget = self.setup.bugs.forget_requests;
        let op = OpRef::from(&request.op);
        let (at, answer) = self
            .kv
            .apply(&request.client, request.seq, op, slot, forget);
        if matches!(self.role, Role::Leading { .. }) {
            self.reply(ctx, &request, Some(at), answer);
        }
    }

    /// Answers `request`'s client: applied at `slot` with `answer`, or (no slot) not here.
    fn reply<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        request: &ClientRequest,
        slot: Option<Slot>,
        answer: Answer,
    ) {
        let Some(i) = self.setup.clients.iter().position(|c| *c == request.client) else {
            return;
        };
        let leader = if slot.is_none() { self.leader() } else { None };
        let to = NodeId((self.setup.size + i) as u32);
        let seq = request.seq;
        ctx.send(
            to,
            MultiPaxosMsg::Reply {
                seq,
                slot,
                leader,
                answer,
            },
        );
    }

    /// A client's request: answered at once if already applied here (a retry whose answer
    /// was lost), logged by a leader unless it is in phase 2 already, and otherwise refused
    /// with the name of the leader this replica follows. With `reads: LeaderLocal` a leader
    /// answers a read from its own state machine, asking nobody whether it still leads.
    pub(crate) fn on_request<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        request: Arc<ClientRequest>,
    ) {
        if let KvOp::Get(key) = &request.op
            && self.setup.reads == Reads::LeaderLocal
            && matches!(self.role, Role::Leading { .. })
        {
            let answer = self.kv.read(key);
            self.reply(ctx, &request, Some(self.learner.applied), answer);
            return;
        }
        if !self.setup.bugs.forget_requests
            && let Some((at, answer)) = self.kv.applied_at(&request.client, request.seq)
        {
            self.reply(ctx, &request, Some(at), answer);
            return;
        }
        let value = Value::Request(request);
        match &self.role {
            Role::Leading { open, .. } => {
                if !open.values().any(|o| o.value == value) {
                    let slot = self.take_slot();
                    self.propose(ctx, slot, value);
                }
            }
            Role::Follower { .. } | Role::Preparing { .. } => {
                let Value::Request(request) = &value else {
                    return;
                };
                self.reply(ctx, request, None, Answer::Written);
            }
        }
    }
}
