//! A PBFT client: one request at a time, accepted on f + 1 matching replies.
//!
//! The client sends its request to the primary it believes in (it learns the view from
//! replies). It accepts a result once f + 1 different replicas replied with the same
//! timestamp and result: at least one of them is correct, so the result is one a correct
//! replica executed. When no result comes within the client timeout it sends the request to
//! every replica, which forward it to the primary (or resend the reply if they executed it).

use crate::pbft::msg::{PbftMsg, Reply, Request, View};
use crate::pbft::notes::PbftNote;
use crate::pbft::service::{Op, OpResult};
use crate::pbft::setup::{Ctx, Handler, PbftTimer, Shared};
use crate::pbft::sign::Signed;
use sim_core::NodeId;
use std::collections::{BTreeMap, VecDeque};

/// The request a client waits on, and the replies it has so far.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outstanding {
    /// The signed request.
    pub request: Signed<Request>,
    /// Each replica's reply: its view and result.
    pub replies: BTreeMap<NodeId, (View, OpResult)>,
}

/// A PBFT client.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Client {
    me: NodeId,
    setup: Shared,
    view: View,
    timestamp: u64,
    outstanding: Option<Outstanding>,
    queue: VecDeque<Op>,
}

impl Client {
    /// Client `me`.
    pub fn new(setup: Shared, me: NodeId) -> Client {
        Client {
            me,
            setup,
            view: 0,
            timestamp: 0,
            outstanding: None,
            queue: VecDeque::new(),
        }
    }

    /// The request it waits on.
    pub fn outstanding(&self) -> Option<&Outstanding> {
        self.outstanding.as_ref()
    }

    /// The timestamp of its last request (0: it sent none).
    pub fn timestamp(&self) -> u64 {
        self.timestamp
    }

    /// Operations not sent yet.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Whether every operation it was given has an accepted result.
    pub fn is_done(&self) -> bool {
        self.outstanding.is_none() && self.queue.is_empty()
    }

    /// The scenario asks for `op`: sent now, or after the requests before it.
    pub fn on_command<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, op: Op) {
        self.queue.push_back(op);
        if self.outstanding.is_none() {
            self.send_next(ctx);
        }
    }

    /// After a restart: the timer of the outstanding request again.
    pub fn on_start<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        if let Some(o) = &self.outstanding {
            let timestamp = o.request.body().timestamp;
            ctx.set_timer(
                PbftTimer::Retransmit { timestamp },
                self.setup.client_timeout,
            );
        }
    }

    fn send_next<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        let Some(op) = self.queue.pop_front() else {
            return;
        };
        self.timestamp += 1;
        let timestamp = self.timestamp;
        let request = Signed::new(
            ctx,
            Request {
                op: op.clone(),
                timestamp,
            },
        );
        let primary = self.setup.primary(self.view);
        ctx.note(PbftNote::Requested {
            timestamp,
            op,
            to: self.setup.name(primary).into(),
        });
        ctx.send(primary, PbftMsg::Request(request.clone()));
        ctx.set_timer(
            PbftTimer::Retransmit { timestamp },
            self.setup.client_timeout,
        );
        self.outstanding = Some(Outstanding {
            request,
            replies: BTreeMap::new(),
        });
    }

    /// A reply: counted when it is a replica's, for this client's outstanding request.
    pub fn on_message<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, msg: PbftMsg) {
        let PbftMsg::Reply(reply) = msg else {
            return;
        };
        let signer = reply.signer();
        let Reply {
            view,
            timestamp,
            client,
            result,
        } = reply.body().clone();
        let Some(o) = &mut self.outstanding else {
            return;
        };
        if client != self.me
            || !self.setup.is_replica(signer)
            || timestamp != o.request.body().timestamp
        {
            return;
        }
        o.replies.insert(signer, (view, result.clone()));
        let matching: Vec<(NodeId, View)> = o
            .replies
            .iter()
            .filter(|(_, (_, r))| *r == result)
            .map(|(&id, &(v, _))| (id, v))
            .collect();
        if matching.len() < self.setup.f + 1 {
            return;
        }
        self.view = matching.iter().map(|&(_, v)| v).max().unwrap_or(self.view);
        ctx.note(PbftNote::Accepted {
            timestamp,
            op: o.request.body().op.clone(),
            result,
            replies: matching
                .iter()
                .map(|&(id, _)| self.setup.name(id).to_string())
                .collect(),
        });
        ctx.cancel_timer(PbftTimer::Retransmit { timestamp });
        self.outstanding = None;
        self.send_next(ctx);
    }

    /// No result in time: the request goes to every replica.
    pub fn on_timer<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, timer: PbftTimer) {
        let PbftTimer::Retransmit { timestamp } = timer else {
            return;
        };
        let Some(o) = &self.outstanding else {
            return;
        };
        if o.request.body().timestamp != timestamp {
            return;
        }
        ctx.note(PbftNote::Retransmitted { timestamp });
        let replicas: Vec<NodeId> = self.setup.replica_ids().collect();
        ctx.broadcast(&replicas, &PbftMsg::Request(o.request.clone()));
        ctx.set_timer(
            PbftTimer::Retransmit { timestamp },
            self.setup.client_timeout,
        );
    }
}
