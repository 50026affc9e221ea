//! A correct PBFT replica: the normal case (pre-prepare, prepare, commit), in-order execution,
//! replies, checkpoints and water marks (Castro and Liskov, OSDI 1999, sections 4.2 to 4.3).
//!
//! The rules, as the paper states them:
//! - the primary assigns the next sequence number to a request, within the water marks
//!   h < n <= H = h + L, and multicasts the pre-prepare with the request;
//! - a backup accepts a pre-prepare signed by the primary of its current view, for a request
//!   whose digest matches, within the water marks, unless it accepted another digest for that
//!   view and number; it then multicasts a prepare;
//! - **prepared**: the pre-prepare and 2f matching prepares from different backups (its own
//!   counts); it then multicasts a commit;
//! - **committed-local**: prepared and 2f + 1 matching commits (its own counts);
//! - requests execute in sequence order, each at most once per client timestamp, and the
//!   replica replies to the client;
//! - every K requests it multicasts a checkpoint of its state; 2f + 1 matching ones make it
//!   stable, which collects the log below it and moves the water marks.
//!
//! Quorums are [`PbftConfig::quorum`](crate::pbft::PbftConfig::quorum) (2f + 1 at N = 3f + 1). What a Byzantine replica does instead
//! is in [`crate::pbft::byzantine`]; the hooks it uses are the only places the two meet.

use crate::pbft::msg::{
    Certificate, Checkpoint, Commit, NewView, PbftMsg, PrePrepare, Prepare, Proposal, Reply,
    Request, Seq, View, ViewChange, digest_of,
};
use crate::pbft::notes::{PbftNote, Refusal};
use crate::pbft::service::{OpResult, Service};
use crate::pbft::setup::{Ctx, Faults, Handler, Shared};
use crate::pbft::sign::{Digest, Signed};
use sim_core::NodeId;
use std::collections::{BTreeMap, VecDeque};

/// What a replica's log holds for one sequence number.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Slot {
    /// The accepted pre-prepare and its request (none: the null request of a new view).
    pub pre_prepare: Option<Proposal>,
    /// Prepares received, by (view, digest) and signer: a certificate the view change can
    /// forward.
    pub prepares: BTreeMap<(View, Digest), BTreeMap<NodeId, Signed<Prepare>>>,
    /// Commits received, by (view, digest) and signer.
    pub commits: BTreeMap<(View, Digest), BTreeMap<NodeId, Signed<Commit>>>,
    /// Prepared in the pre-prepare's view.
    pub prepared: bool,
    /// The prepared certificate of the highest view this replica was prepared in: kept across
    /// view changes (a new view resets `prepared`, not this), for the next VIEW-CHANGE. A
    /// NEW-VIEW drops unexecuted slots above its proposals, certificates and all: nothing there
    /// was committed, or a quorum's view changes would have carried it.
    pub certificate: Option<Certificate>,
    /// Committed-local.
    pub committed: bool,
    /// Executed.
    pub executed: bool,
}

impl Slot {
    /// The accepted pre-prepare's (view, digest).
    pub fn assigned(&self) -> Option<(View, Digest)> {
        self.pre_prepare
            .as_ref()
            .map(|(pp, _)| (pp.body().view, pp.body().digest))
    }
}

/// A PBFT replica.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Replica {
    pub(crate) me: NodeId,
    pub(crate) setup: Shared,
    pub(crate) faults: Faults,
    pub(crate) view: View,
    /// Primary: the last sequence number assigned.
    pub(crate) next_seq: Seq,
    /// Primary: requests waiting for room under the high water mark.
    pub(crate) queue: VecDeque<Signed<Request>>,
    pub(crate) log: BTreeMap<Seq, Slot>,
    /// h, the sequence number of the last stable checkpoint.
    pub(crate) low: Seq,
    /// The last sequence number executed in order.
    pub(crate) executed: Seq,
    pub(crate) service: Service,
    /// The last reply sent to each client (exactly-once, and resent on a retransmission).
    pub(crate) replies: BTreeMap<NodeId, Signed<Reply>>,
    /// Checkpoint messages received above h, by sequence number, state digest and signer.
    pub(crate) checkpoints: BTreeMap<Seq, BTreeMap<Digest, BTreeMap<NodeId, Signed<Checkpoint>>>>,
    /// The proof of the last stable checkpoint (what a view change sends).
    pub(crate) stable_proof: Vec<Signed<Checkpoint>>,
    /// Byzantine memory: the message received before the current one (replays).
    pub(crate) previous: Option<PbftMsg>,
    /// Byzantine memory: a number told to the first half of the backups only (equivocation).
    pub(crate) split: Option<Seq>,
    /// Byzantine memory: the messages replayed already (by stable hash), each replayed once.
    pub(crate) replayed: std::collections::BTreeSet<u64>,
    /// In normal operation in `view` (false from sending a VIEW-CHANGE for it until its
    /// NEW-VIEW is accepted).
    pub(crate) active: bool,
    /// VIEW-CHANGE messages received (valid ones only), by view and signer.
    pub(crate) view_changes: BTreeMap<View, BTreeMap<NodeId, Signed<ViewChange>>>,
    /// The NEW-VIEW this replica sent or accepted last.
    pub(crate) new_view: Option<Signed<NewView>>,
    /// Consecutive view changes without a request executed: the timeout doubles with each.
    pub(crate) changes: u32,
    /// Requests (client, timestamp) a backup knows of and has not executed: while there are
    /// some, its view-change timer runs.
    pub(crate) awaiting: std::collections::BTreeSet<(NodeId, u64)>,
    /// The view whose view-change timer is armed, if one is.
    pub(crate) timer: Option<View>,
    /// The latest stable checkpoint of the last NEW-VIEW: a replica that has not reached it
    /// accepts no pre-prepare at or below it (those numbers were decided without it).
    pub(crate) floor: Seq,
}

impl Replica {
    /// Replica `me`, with `faults` (none: a correct replica).
    pub fn new(setup: Shared, me: NodeId, faults: Faults) -> Replica {
        Replica {
            me,
            setup,
            faults,
            view: 0,
            next_seq: 0,
            queue: VecDeque::new(),
            log: BTreeMap::new(),
            low: 0,
            executed: 0,
            service: Service::default(),
            replies: BTreeMap::new(),
            checkpoints: BTreeMap::new(),
            stable_proof: Vec::new(),
            previous: None,
            split: None,
            replayed: std::collections::BTreeSet::new(),
            active: true,
            view_changes: BTreeMap::new(),
            new_view: None,
            changes: 0,
            awaiting: std::collections::BTreeSet::new(),
            timer: None,
            floor: 0,
        }
    }

    /// The current view.
    pub fn view(&self) -> View {
        self.view
    }

    /// Whether this replica is the primary of its view, in normal operation.
    pub fn is_primary(&self) -> bool {
        self.active && self.setup.primary(self.view) == self.me
    }

    /// The last sequence number executed in order.
    pub fn executed(&self) -> Seq {
        self.executed
    }

    /// The low water mark h (the last stable checkpoint).
    pub fn low_water_mark(&self) -> Seq {
        self.low
    }

    /// The service state.
    pub fn service(&self) -> &Service {
        &self.service
    }

    /// The log, by sequence number (entries at or below h are collected).
    pub fn log(&self) -> &BTreeMap<Seq, Slot> {
        &self.log
    }

    fn in_window(&self, seq: Seq) -> bool {
        seq > self.low && seq <= self.low.saturating_add(self.setup.window)
    }

    /// Every replica but this one.
    pub(crate) fn others(&self) -> Vec<NodeId> {
        self.setup.replica_ids().filter(|&r| r != self.me).collect()
    }

    /// Sends `msg` to every other replica.
    pub(crate) fn multicast<A: Handler>(&self, ctx: Ctx<'_, '_, A>, msg: &PbftMsg) {
        ctx.broadcast(&self.others(), msg);
    }

    /// Handles one message (a silent replica ignores everything).
    pub fn on_message<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, from: NodeId, msg: PbftMsg) {
        if self.faults.silent {
            return;
        }
        if self.faults.replay {
            self.replay(ctx, &msg);
        }
        match msg {
            PbftMsg::Request(request) => self.on_request(ctx, from, request),
            PbftMsg::PrePrepare(pp, request) => self.on_pre_prepare(ctx, pp, request),
            PbftMsg::Prepare(p) => self.on_prepare(ctx, p),
            PbftMsg::Commit(c) => self.on_commit(ctx, c),
            PbftMsg::Checkpoint(c) => self.on_checkpoint(ctx, c),
            PbftMsg::ViewChange(vc) => self.on_view_change(ctx, vc),
            PbftMsg::NewView(nv) => self.on_new_view(ctx, nv),
            PbftMsg::Reply(_) => {}
        }
    }

    fn on_request<A: Handler>(
        &mut self,
        ctx: Ctx<'_, '_, A>,
        from: NodeId,
        request: Signed<Request>,
    ) {
        let client = request.signer();
        if !self.setup.is_client(client) {
            return;
        }
        if self.asked_again(from, &request) {
            self.resend_unsettled(ctx);
        }
        if let Some(last) = self.replies.get(&client)
            && request.body().timestamp <= last.body().timestamp
        {
            if request.body().timestamp == last.body().timestamp {
                ctx.send(client, PbftMsg::Reply(last.clone()));
            }
            return;
        }
        if self.is_primary() {
            self.admit(ctx, request);
        } else if self.active {
            if from == client {
                self.await_request(ctx, client, request.body().timestamp);
            }
            let primary = self.setup.primary(self.view);
            ctx.note(PbftNote::Forwarded {
                client: self.setup.name(client).into(),
                timestamp: request.body().timestamp,
                to: self.setup.name(primary).into(),
            });
            ctx.send(primary, PbftMsg::Request(request));
        }
    }

    /// Whether `request` is a client asking again: a backup hears it from the client itself
    /// (clients ask the primary first), or the replica knows it already (executed, assigned,
    /// or queued).
    fn asked_again(&self, from: NodeId, request: &Signed<Request>) -> bool {
        let client = request.signer();
        if from == client && !self.is_primary() {
            return true;
        }
        let executed = self
            .replies
            .get(&client)
            .is_some_and(|r| r.body().timestamp >= request.body().timestamp);
        executed || self.holds(digest_of(request))
    }

    /// Whether the request with `digest` is in the log (assigned) or queued for assignment.
    fn holds(&self, digest: Digest) -> bool {
        self.queue.iter().any(|r| digest_of(r) == digest)
            || self
                .log
                .values()
                .any(|slot| slot.assigned().is_some_and(|(_, d)| d == digest))
    }

    /// A client that asks again (its request reached every replica after its timeout) may be
    /// waiting on a message that was lost. The replica sends again what it sent for every
    /// slot still in its log (the primary its pre-prepares, every replica its prepares and
    /// commits) and its latest checkpoint, so that a slot, a window or an execution stuck on a
    /// lost message moves on. The paper retransmits until messages arrive; this ties the
    /// retransmission to the client's timeout, so that a run still goes quiet. The log holds
    /// at most L slots, so this is bounded. There is no state transfer: a replica that missed
    /// what the others have collected under a stable checkpoint stays behind.
    fn resend_unsettled<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        let primary = self.is_primary();
        let mut again: Vec<PbftMsg> = Vec::new();
        let mut seqs = Vec::new();
        for (&seq, slot) in &self.log {
            let Some((view, d)) = slot.assigned() else {
                continue;
            };
            if view != self.view {
                continue;
            }
            seqs.push(seq);
            // An equivocator keeps its two stories apart: it never tells one to everybody.
            if primary
                && !self.faults.equivocate
                && let Some((pp, Some(request))) = slot.pre_prepare.clone()
            {
                again.push(PbftMsg::PrePrepare(pp, request));
            }
            if let Some(p) = slot.prepares.get(&(view, d)).and_then(|m| m.get(&self.me)) {
                again.push(PbftMsg::Prepare(p.clone()));
            }
            if let Some(c) = slot.commits.get(&(view, d)).and_then(|m| m.get(&self.me)) {
                again.push(PbftMsg::Commit(c.clone()));
            }
        }
        let checkpoint = self
            .checkpoints
            .values()
            .rev()
            .flat_map(|by_state| by_state.values())
            .find_map(|by| by.get(&self.me))
            .or_else(|| self.stable_proof.iter().find(|c| c.signer() == self.me));
        if let Some(c) = checkpoint {
            again.push(PbftMsg::Checkpoint(c.clone()));
        }
        // Mid view change: its VIEW-CHANGE may have been lost (a primary that gets it late
        // for its current view answers with its NEW-VIEW).
        if !self.active
            && let Some(vc) = self
                .view_changes
                .get(&self.view)
                .and_then(|by| by.get(&self.me))
        {
            again.push(PbftMsg::ViewChange(vc.clone()));
        }
        if again.is_empty() {
            return;
        }
        ctx.note(PbftNote::Resent {
            seqs,
            messages: count(again.len()),
        });
        for msg in &again {
            self.multicast(ctx, msg);
        }
    }

    /// Primary: queues a request not seen yet and assigns what fits under the high water mark.
    fn admit<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, request: Signed<Request>) {
        if self.holds(digest_of(&request)) {
            return;
        }
        self.queue.push_back(request);
        self.assign_queued(ctx);
    }

    /// Primary: assigns queued requests the next sequence numbers while they fit.
    pub(crate) fn assign_queued<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        while self.is_primary() && self.in_window(self.next_seq + 1) {
            let Some(request) = self.queue.pop_front() else {
                return;
            };
            if self.faults.equivocate {
                self.equivocate(ctx, request);
                continue;
            }
            let to = self.others();
            let digest = digest_of(&request);
            let seq = self.assign(ctx, request.clone(), &to);
            if self.faults.double_vote {
                self.double_vote(ctx, self.view, seq, digest);
            }
            if self.faults.replay && self.in_window(self.next_seq + 1) {
                self.reassign(ctx, request);
            }
        }
    }

    /// Primary: assigns the next sequence number to `request`, logs the pre-prepare and sends it
    /// to `to`. Returns the number.
    pub(crate) fn assign<A: Handler>(
        &mut self,
        ctx: Ctx<'_, '_, A>,
        request: Signed<Request>,
        to: &[NodeId],
    ) -> Seq {
        self.next_seq += 1;
        let seq = self.next_seq;
        let body = PrePrepare {
            view: self.view,
            seq,
            digest: digest_of(&request),
        };
        let pp = Signed::new(ctx, body);
        ctx.broadcast(to, &PbftMsg::PrePrepare(pp.clone(), request.clone()));
        self.log_pre_prepare(ctx, pp, request, true);
        seq
    }

    /// Logs an accepted (or, as primary, `issued`) pre-prepare and notes it.
    pub(crate) fn log_pre_prepare<A: Handler>(
        &mut self,
        ctx: Ctx<'_, '_, A>,
        pp: Signed<PrePrepare>,
        request: Signed<Request>,
        issued: bool,
    ) {
        let body = pp.body().clone();
        ctx.note(PbftNote::PrePrepared {
            view: body.view,
            seq: body.seq,
            digest: body.digest,
            primary: self.setup.name(pp.signer()).into(),
            issued,
            client: self.setup.name(request.signer()).into(),
            timestamp: request.body().timestamp,
            op: request.body().op.clone(),
        });
        let slot = self.log.entry(body.seq).or_default();
        if slot.assigned().is_some_and(|(view, _)| view != body.view) {
            // Another view's assignment: its prepared and committed flags were about it.
            slot.prepared = false;
            slot.committed = false;
        }
        slot.pre_prepare = Some((pp, Some(request)));
    }

    /// Why a pre-prepare cannot be accepted, if it cannot; `Ok(false)` for a copy of the one
    /// accepted already.
    fn judge(&self, pp: &Signed<PrePrepare>, request: &Signed<Request>) -> Result<bool, Refusal> {
        let body = pp.body();
        if !self.active {
            return Err(Refusal::OtherView { current: self.view });
        }
        if body.view != self.view {
            return Err(Refusal::OtherView { current: self.view });
        }
        let primary = self.setup.primary(body.view);
        if pp.signer() != primary && !self.setup.bugs.accept_pre_prepare_from_backup {
            return Err(Refusal::NotPrimary {
                primary: self.setup.name(primary).into(),
            });
        }
        if digest_of(request) != body.digest || !self.setup.is_client(request.signer()) {
            return Err(Refusal::BadRequest);
        }
        if !self.in_window(body.seq) || body.seq <= self.floor {
            return Err(Refusal::OutsideWindow {
                low: self.low,
                high: self.low.saturating_add(self.setup.window),
            });
        }
        match self.log.get(&body.seq).and_then(Slot::assigned) {
            Some((view, digest)) if view == body.view && digest != body.digest => {
                Err(Refusal::Conflicting {
                    accepted: digest,
                    offered: body.digest,
                })
            }
            Some((view, _)) if view == body.view => Ok(false),
            _ => Ok(true),
        }
    }

    fn on_pre_prepare<A: Handler>(
        &mut self,
        ctx: Ctx<'_, '_, A>,
        pp: Signed<PrePrepare>,
        request: Signed<Request>,
    ) {
        if pp.signer() == self.me {
            return;
        }
        match self.judge(&pp, &request) {
            Err(why) => {
                let PrePrepare { view, seq, digest } = *pp.body();
                let conflicting = matches!(why, Refusal::Conflicting { .. });
                ctx.note(PbftNote::Refused {
                    view,
                    seq,
                    from: self.setup.name(pp.signer()).into(),
                    why,
                });
                if conflicting && self.faults.double_vote {
                    self.double_vote(ctx, view, seq, digest);
                }
            }
            Ok(false) => {}
            Ok(true) => {
                let PrePrepare { view, seq, digest } = *pp.body();
                let waits = (request.signer(), request.body().timestamp);
                self.log_pre_prepare(ctx, pp, request.clone(), false);
                self.await_request(ctx, waits.0, waits.1);
                if self.faults.equivocate {
                    self.pose_as_primary(ctx, seq, request);
                }
                if self.faults.double_vote {
                    self.double_vote(ctx, view, seq, digest);
                } else {
                    self.send_prepare(ctx, view, seq, digest);
                }
                self.advance(ctx, seq);
            }
        }
    }

    /// Sends a prepare for (view, seq, digest) (forged if lying) and logs it as its own.
    pub(crate) fn send_prepare<A: Handler>(
        &mut self,
        ctx: Ctx<'_, '_, A>,
        view: View,
        seq: Seq,
        digest: Digest,
    ) {
        let digest = self.maybe_forge(ctx, seq, digest);
        let p = Signed::new(ctx, Prepare { view, seq, digest });
        self.multicast(ctx, &PbftMsg::Prepare(p.clone()));
        self.store_prepare(p);
    }

    /// Sends a commit for (view, seq, digest) (forged if lying) and logs it as its own.
    pub(crate) fn send_commit<A: Handler>(
        &mut self,
        ctx: Ctx<'_, '_, A>,
        view: View,
        seq: Seq,
        digest: Digest,
    ) {
        let digest = self.maybe_forge(ctx, seq, digest);
        let c = Signed::new(ctx, Commit { view, seq, digest });
        self.multicast(ctx, &PbftMsg::Commit(c.clone()));
        self.store_commit(c);
    }

    fn store_prepare(&mut self, p: Signed<Prepare>) {
        let Prepare { view, seq, digest } = *p.body();
        let slot = self.log.entry(seq).or_default();
        slot.prepares
            .entry((view, digest))
            .or_default()
            .entry(p.signer())
            .or_insert(p);
    }

    fn store_commit(&mut self, c: Signed<Commit>) {
        let Commit { view, seq, digest } = *c.body();
        let slot = self.log.entry(seq).or_default();
        slot.commits
            .entry((view, digest))
            .or_default()
            .entry(c.signer())
            .or_insert(c);
    }

    /// Whether a vote of (view, seq) from `signer` may enter the log.
    fn admissible(&self, view: View, seq: Seq, signer: NodeId) -> bool {
        self.active && view == self.view && self.in_window(seq) && self.setup.is_replica(signer)
    }

    fn on_prepare<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, p: Signed<Prepare>) {
        let Prepare { view, seq, .. } = *p.body();
        if self.admissible(view, seq, p.signer()) {
            self.store_prepare(p);
            self.advance(ctx, seq);
        }
    }

    fn on_commit<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, c: Signed<Commit>) {
        let Commit { view, seq, .. } = *c.body();
        if self.admissible(view, seq, c.signer()) {
            self.store_commit(c);
            self.advance(ctx, seq);
        }
    }

    /// Matching prepares that make prepared: 2f (quorum - 1), or f + 1 with the bug.
    fn prepares_needed(&self) -> usize {
        if self.setup.bugs.prepare_with_f_plus_1 {
            self.setup.f + 1
        } else {
            self.setup.quorum - 1
        }
    }

    /// Matching commits that make committed-local: 2f + 1 (the quorum), or 2f with the bug.
    fn commits_needed(&self) -> usize {
        if self.setup.bugs.commit_with_2f {
            self.setup.quorum - 1
        } else {
            self.setup.quorum
        }
    }

    /// Moves slot `seq` on as far as its messages allow: prepared, committed-local, executed.
    pub(crate) fn advance<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, seq: Seq) {
        let Some(slot) = self.log.get(&seq) else {
            return;
        };
        let Some((view, digest)) = slot.assigned() else {
            return;
        };
        if view != self.view {
            return;
        }
        let primary = self.setup.primary(view);
        if !slot.prepared {
            let prepares = slot
                .prepares
                .get(&(view, digest))
                .map_or(0, |by| by.keys().filter(|&&r| r != primary).count());
            if prepares < self.prepares_needed() {
                return;
            }
            let slot = self.log.get_mut(&seq).expect("present");
            slot.prepared = true;
            if let Some((pp, request)) = &slot.pre_prepare {
                let prepares = slot.prepares[&(view, digest)]
                    .iter()
                    .filter(|(r, _)| **r != primary)
                    .map(|(_, p)| p.clone())
                    .collect();
                slot.certificate = Some(Certificate {
                    pre_prepare: pp.clone(),
                    request: request.clone(),
                    prepares,
                });
            }
            ctx.note(PbftNote::Prepared {
                view,
                seq,
                digest,
                prepares: count(prepares),
            });
            // A double voter has voted already; an equivocator takes neither side.
            if !self.faults.double_vote && !self.faults.equivocate {
                self.send_commit(ctx, view, seq, digest);
            }
        }
        let slot = &self.log[&seq];
        if slot.committed {
            return;
        }
        let commits = slot.commits.get(&(view, digest)).map_or(0, BTreeMap::len);
        if commits < self.commits_needed() {
            return;
        }
        self.log.get_mut(&seq).expect("present").committed = true;
        ctx.note(PbftNote::Committed {
            view,
            seq,
            digest,
            commits: count(commits),
        });
        self.execute_committed(ctx);
    }

    /// Executes what is committed, in sequence order (or at once, with the bug).
    fn execute_committed<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        if self.setup.bugs.execute_out_of_order {
            let ready: Vec<Seq> = self
                .log
                .iter()
                .filter(|(_, s)| s.committed && !s.executed)
                .map(|(&n, _)| n)
                .collect();
            for seq in ready {
                self.execute(ctx, seq);
            }
            while self
                .log
                .get(&(self.executed + 1))
                .is_some_and(|s| s.executed)
            {
                self.executed += 1;
            }
            return;
        }
        while self
            .log
            .get(&(self.executed + 1))
            .is_some_and(|s| s.committed && !s.executed)
        {
            self.execute(ctx, self.executed + 1);
            self.executed += 1;
        }
    }

    /// Executes request `seq` (at most once per client timestamp) and replies.
    fn execute<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, seq: Seq) {
        let slot = self.log.get_mut(&seq).expect("committed slots are logged");
        slot.executed = true;
        let (pp, request) = slot
            .pre_prepare
            .clone()
            .expect("committed slots are assigned");
        let Some(request) = request else {
            ctx.note(PbftNote::ExecutedNull { seq });
            self.executed_one(ctx);
            if seq.is_multiple_of(self.setup.checkpoint_interval) {
                self.checkpoint(ctx, seq);
            }
            return;
        };
        let client = request.signer();
        let Request { op, timestamp } = request.body().clone();
        let last = self.replies.get(&client).map(|r| r.body().timestamp);
        let again = last.is_some_and(|t| t >= timestamp);
        let result: OpResult = if again {
            let old = self.replies[&client].clone();
            if old.body().timestamp == timestamp {
                ctx.send(client, PbftMsg::Reply(old.clone()));
            }
            old.body().result.clone()
        } else {
            let result = self.service.apply(&op);
            let sent = self.maybe_lie_in_result(result.clone());
            let reply = Signed::new(
                ctx,
                Reply {
                    view: self.view,
                    timestamp,
                    client,
                    result: sent,
                },
            );
            ctx.send(client, PbftMsg::Reply(reply.clone()));
            self.replies.insert(client, reply);
            result
        };
        ctx.note(PbftNote::Executed {
            seq,
            digest: pp.body().digest,
            client: self.setup.name(client).into(),
            timestamp,
            op,
            result,
            again,
        });
        self.awaiting.retain(|&(c, t)| c != client || t > timestamp);
        self.executed_one(ctx);
        if seq.is_multiple_of(self.setup.checkpoint_interval) {
            self.checkpoint(ctx, seq);
        }
    }

    /// The digest of the state a checkpoint certifies: the service and the last reply to each
    /// client (the paper's checkpoint includes both).
    fn state_digest(&self) -> Digest {
        let replied: Vec<(NodeId, u64)> = self
            .replies
            .iter()
            .map(|(&c, r)| (c, r.body().timestamp))
            .collect();
        Digest::of(&(self.service.digest(), replied))
    }

    fn checkpoint<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, seq: Seq) {
        let state = self.state_digest();
        let state = self.maybe_forge(ctx, seq, state);
        let c = Signed::new(ctx, Checkpoint { seq, state });
        self.multicast(ctx, &PbftMsg::Checkpoint(c.clone()));
        self.store_checkpoint(c);
        self.try_stabilize(ctx, seq);
    }

    fn store_checkpoint(&mut self, c: Signed<Checkpoint>) {
        let Checkpoint { seq, state } = *c.body();
        self.checkpoints
            .entry(seq)
            .or_default()
            .entry(state)
            .or_default()
            .entry(c.signer())
            .or_insert(c);
    }

    fn on_checkpoint<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, c: Signed<Checkpoint>) {
        let seq = c.body().seq;
        if self.in_window(seq) && self.setup.is_replica(c.signer()) {
            self.store_checkpoint(c);
            self.try_stabilize(ctx, seq);
        }
    }

    /// Makes checkpoint `seq` stable once a quorum agrees with this replica's own state there.
    /// There is no state transfer: a replica that has not executed `seq` yet waits until it
    /// has and its own checkpoint is among the matching ones.
    fn try_stabilize<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, seq: Seq) {
        if seq <= self.low {
            return;
        }
        let Some(by_state) = self.checkpoints.get(&seq) else {
            return;
        };
        let Some((&state, proof)) = by_state
            .iter()
            .find(|(_, by)| by.contains_key(&self.me) && by.len() >= self.setup.quorum)
        else {
            return;
        };
        let proof: Vec<Signed<Checkpoint>> = proof.values().cloned().collect();
        ctx.note(PbftNote::CheckpointStable {
            seq,
            state,
            checkpoints: count(proof.len()),
        });
        self.collect_up_to(seq, proof);
        self.assign_queued(ctx);
    }

    /// Makes checkpoint `seq` (proved by `proof`) the low water mark: the log and the
    /// checkpoint messages up to it are collected.
    pub(crate) fn collect_up_to(&mut self, seq: Seq, proof: Vec<Signed<Checkpoint>>) {
        self.stable_proof = proof;
        self.low = seq;
        self.log = self.log.split_off(&(seq + 1));
        self.checkpoints = self.checkpoints.split_off(&(seq + 1));
        self.next_seq = self.next_seq.max(seq);
    }

    /// The result a reply carries: the true one, unless this replica lies.
    fn maybe_lie_in_result(&self, result: OpResult) -> OpResult {
        if self.faults.lie {
            Some(format!("{}?", result.as_deref().unwrap_or_default()).into())
        } else {
            result
        }
    }
}

/// A count for a note.
pub(crate) fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
