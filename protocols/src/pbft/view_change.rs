//! The view change (Castro and Liskov, OSDI 1999, section 4.4): how the correct replicas
//! replace a primary that does not get requests executed, without losing what was committed.
//!
//! - A backup that knows of a request (a client asked it, or a pre-prepare carried it) arms a
//!   timer; when no request executes before it expires, the backup leaves the view (it accepts
//!   only checkpoints, view changes and new views from then on) and multicasts
//!   ⟨VIEW-CHANGE, v+1, n, C, P⟩: its last stable checkpoint n with the 2f + 1 messages C that
//!   prove it, and a prepared certificate for every request prepared above n. Its timer runs
//!   again only once 2f + 1 replicas asked for that view, and it waits twice as long for each
//!   consecutive view change, so that the cluster eventually stays in a view (section 4.5).
//! - A replica that sees f + 1 view changes for later views joins the smallest of them, even
//!   before its own timer expires (at least one of them is correct).
//! - The primary of v+1, with 2f + 1 view changes (its own among them), derives the new
//!   view's pre-prepares O: for each number between the latest stable checkpoint in them and
//!   the highest prepared number, the request of the certificate with the highest view, or a
//!   null request where none is prepared. It multicasts ⟨NEW-VIEW, v+1, V, O⟩ and enters the
//!   view.
//! - A backup checks the NEW-VIEW (its signer, every view change in V, and O against what V
//!   gives), enters the view, and prepares every request of O: the normal case takes over.
//!
//! Why nothing committed is lost: committed at a correct replica means prepared at f + 1
//! correct replicas, and any 2f + 1 view changes include one of them, whose certificate the
//! new primary must re-propose at the same number.

use crate::common::broke;
use crate::pbft::msg::{
    Certificate, Checkpoint, NULL, NewView, PbftMsg, PrePrepare, Proposal, Request, Seq, View,
    ViewChange, digest_or_null,
};
use crate::pbft::notes::PbftNote;
use crate::pbft::replica::Replica;
use crate::pbft::setup::{Ctx, Handler, PbftTimer};
use crate::pbft::sign::{Digest, Signed};
use sim_core::Broken;
use sim_core::{Duration, NodeId};
use std::collections::{BTreeMap, BTreeSet};

/// What a NEW-VIEW's O holds at one number: its digest and request (none: null).
type Derived = (Seq, Digest, Option<Signed<Request>>);

impl Replica {
    /// The view-change timeout now: T, doubled for each consecutive view change.
    /// (The doubling stops after 16 consecutive view changes: 65,536 T.)
    fn view_timeout(&self) -> Duration {
        let base = self.setup.view_change_timeout;
        if self.setup.bugs.fixed_view_change_timeout {
            return base;
        }
        Duration(base.0.saturating_mul(1u64 << self.changes.min(16)))
    }

    fn arm_view_timer<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        self.timer = Some(self.view);
        ctx.set_timer(
            PbftTimer::ViewChange { view: self.view },
            self.view_timeout(),
        );
    }

    fn cancel_view_timer<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        if let Some(view) = self.timer.take() {
            ctx.cancel_timer(PbftTimer::ViewChange { view });
        }
    }

    /// A backup now knows of request (client, timestamp): unless it executed it, it waits for
    /// it, with its timer running.
    pub(crate) fn await_request<A: Handler>(
        &mut self,
        ctx: Ctx<'_, '_, A>,
        client: NodeId,
        timestamp: u64,
    ) {
        let done = self
            .replies
            .get(&client)
            .is_some_and(|r| r.body().timestamp >= timestamp);
        if done || self.setup.primary(self.view) == self.me {
            return;
        }
        self.awaiting.insert((client, timestamp));
        if self.timer.is_none() {
            self.arm_view_timer(ctx);
        }
    }

    /// A request executed: the view makes progress, so the timeout is back to T, and the timer
    /// restarts if the backup still waits for other requests.
    pub(crate) fn executed_one<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        self.changes = 0;
        if !self.active {
            return;
        }
        self.cancel_view_timer(ctx);
        if !self.awaiting.is_empty() && self.setup.primary(self.view) != self.me {
            self.arm_view_timer(ctx);
        }
    }

    /// A replica's timer.
    pub fn on_timer<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, timer: PbftTimer) {
        if self.faults.silent {
            return;
        }
        if let PbftTimer::ViewChange { view } = timer
            && self.timer == Some(view)
            && view == self.view
        {
            self.timer = None;
            self.start_view_change(ctx, view + 1);
        }
    }

    /// The prepared certificates above the last stable checkpoint: for each number, the one
    /// of the highest view this replica was prepared in.
    fn certificates(&self) -> Vec<Certificate> {
        self.log
            .range(self.low + 1..)
            .filter_map(|(_, slot)| slot.certificate.clone())
            .collect()
    }

    /// Leaves the current view for `view`: multicasts VIEW-CHANGE and waits for its NEW-VIEW.
    pub(crate) fn start_view_change<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, view: View) {
        self.cancel_view_timer(ctx);
        self.view = view;
        self.active = false;
        self.changes = self.changes.saturating_add(1);
        let prepared = self.certificates();
        ctx.note(PbftNote::ViewChangeStarted {
            view,
            stable: self.low,
            prepared: prepared.iter().map(|c| c.pre_prepare.body().seq).collect(),
        });
        let vc = Signed::new(
            ctx,
            ViewChange {
                view,
                stable: self.low,
                proof: self.stable_proof.clone(),
                prepared,
            },
        );
        self.multicast(ctx, &PbftMsg::ViewChange(vc.clone()));
        self.view_changes
            .entry(view)
            .or_default()
            .insert(self.me, vc);
        self.arm_when_quorum_moved(ctx);
        self.try_new_view(ctx);
    }

    /// A replica in a view change arms its timer only once a quorum (itself included) asked
    /// for the same view (the paper's first liveness rule): a replica alone cannot run ahead
    /// through views, and the new primary gets its whole timeout to send NEW-VIEW.
    fn arm_when_quorum_moved<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        let moved = self.view_changes.get(&self.view).map_or(0, BTreeMap::len);
        if !self.active && self.timer.is_none() && moved >= self.setup.quorum {
            self.arm_view_timer(ctx);
        }
    }

    /// Whether a checkpoint proof shows `stable` stable: 2f + 1 matching messages from
    /// different replicas (nothing is needed for 0).
    fn valid_proof(&self, stable: Seq, proof: &[Signed<Checkpoint>]) -> bool {
        if stable == 0 {
            return true;
        }
        let mut by_state: BTreeMap<Digest, BTreeSet<NodeId>> = BTreeMap::new();
        for c in proof {
            if c.body().seq == stable && self.setup.is_replica(c.signer()) {
                by_state
                    .entry(c.body().state)
                    .or_default()
                    .insert(c.signer());
            }
        }
        by_state.values().any(|who| who.len() >= self.setup.quorum)
    }

    /// Whether a prepared certificate is one: a pre-prepare its view's primary signed for this
    /// request, within the window above `stable`, of a view before `view`, with 2f matching
    /// prepares from different backups.
    fn valid_certificate(&self, c: &Certificate, stable: Seq, view: View) -> bool {
        let PrePrepare {
            view: v,
            seq,
            digest,
        } = *c.pre_prepare.body();
        let primary = self.setup.primary(v);
        let backups: BTreeSet<NodeId> = c
            .prepares
            .iter()
            .filter(|p| {
                let b = p.body();
                b.view == v && b.seq == seq && b.digest == digest && p.signer() != primary
            })
            .map(Signed::signer)
            .filter(|&r| self.setup.is_replica(r))
            .collect();
        c.pre_prepare.signer() == primary
            && v < view
            && digest_or_null(&c.request) == digest
            && c.request
                .as_ref()
                .is_none_or(|r| self.setup.is_client(r.signer()))
            && seq > stable
            && seq <= stable.saturating_add(self.setup.window)
            && backups.len() + 1 >= self.setup.quorum
    }

    /// Why a VIEW-CHANGE is not valid, if it is not.
    fn check_view_change(&self, vc: &Signed<ViewChange>) -> Result<(), Broken> {
        let body = vc.body();
        if !self.setup.is_replica(vc.signer()) {
            return Err(broke(
                "it is not signed by a replica".into(),
                "no la firma una réplica".into(),
            ));
        }
        let n = self.setup.replicas as usize;
        let increasing = body
            .prepared
            .windows(2)
            .all(|w| w[0].pre_prepare.body().seq < w[1].pre_prepare.body().seq);
        let sized = body.proof.len() <= n
            && body.prepared.len() as u64 <= self.setup.window
            && body.prepared.iter().all(|c| c.prepares.len() <= n);
        if !increasing || !sized {
            return Err(broke(
                "its certificates are repeated, out of order or oversized".into(),
                "sus certificados están repetidos, desordenados o son demasiado grandes".into(),
            ));
        }
        if !self.valid_proof(body.stable, &body.proof) {
            let stable = body.stable;
            return Err(broke(
                format!("its checkpoint {stable} has no valid proof"),
                format!("su checkpoint {stable} no tiene una prueba válida"),
            ));
        }
        if let Some(c) = body
            .prepared
            .iter()
            .find(|c| !self.valid_certificate(c, body.stable, body.view))
        {
            let seq = c.pre_prepare.body().seq;
            return Err(broke(
                format!("its certificate for n={seq} does not check out"),
                format!("su certificado para n={seq} no es válido"),
            ));
        }
        Ok(())
    }

    /// A VIEW-CHANGE: kept if valid; f + 1 for later views make this replica join; the new
    /// primary builds its NEW-VIEW once it has a quorum.
    pub(crate) fn on_view_change<A: Handler>(
        &mut self,
        ctx: Ctx<'_, '_, A>,
        vc: Signed<ViewChange>,
    ) {
        let view = vc.body().view;
        let signer = vc.signer();
        if signer == self.me || self.check_view_change(&vc).is_err() {
            return;
        }
        if view < self.view || (view == self.view && self.active) {
            // A late view change for the current view: its sender missed the NEW-VIEW, which
            // the primary sends again. (A replica that timed out into the next view instead
            // comes back only with the others: f + 1 view changes move them.)
            if view == self.view
                && self.setup.primary(view) == self.me
                && let Some(nv) = &self.new_view
            {
                ctx.send(signer, PbftMsg::NewView(nv.clone()));
            }
            return;
        }
        // One view change per signer, its highest: a Byzantine replica cannot fill memory
        // with view changes for ever higher views.
        if self
            .view_changes
            .range(view + 1..)
            .any(|(_, by)| by.contains_key(&signer))
        {
            return;
        }
        for by in self.view_changes.values_mut() {
            by.remove(&signer);
        }
        self.view_changes.retain(|_, by| !by.is_empty());
        self.view_changes
            .entry(view)
            .or_default()
            .insert(signer, vc);
        // f + 1 replicas ask for later views: join the smallest, as often as that holds.
        loop {
            let later: BTreeSet<NodeId> = self
                .view_changes
                .range(self.view + 1..)
                .flat_map(|(_, by)| by.keys().copied())
                .filter(|&r| r != self.me)
                .collect();
            if later.len() <= self.setup.f {
                break;
            }
            let smallest = *self
                .view_changes
                .range(self.view + 1..)
                .next()
                .expect("some later view")
                .0;
            self.start_view_change(ctx, smallest);
        }
        self.arm_when_quorum_moved(ctx);
        self.try_new_view(ctx);
    }

    /// What the view changes `vcs` give for the new view: a request for every number prepared
    /// above the latest stable checkpoint in them (the highest view's), null for the gaps.
    fn derive(&self, vcs: &[Signed<ViewChange>]) -> (Seq, Vec<Derived>) {
        let low = vcs.iter().map(|vc| vc.body().stable).max().unwrap_or(0);
        let mut best: BTreeMap<Seq, (View, Digest, Option<Signed<Request>>)> = BTreeMap::new();
        for c in vcs.iter().flat_map(|vc| &vc.body().prepared) {
            let PrePrepare { view, seq, digest } = *c.pre_prepare.body();
            if seq <= low {
                continue;
            }
            if best.get(&seq).is_none_or(|(v, _, _)| view > *v) {
                best.insert(seq, (view, digest, c.request.clone()));
            }
        }
        let high = best.keys().next_back().copied().unwrap_or(low).max(low);
        let drop = self.setup.bugs.new_view_drops_prepared || self.faults.lie;
        let derived = (low + 1..=high)
            .map(|seq| match best.get(&seq) {
                Some((_, digest, request)) if !drop => (seq, *digest, request.clone()),
                _ => (seq, NULL, None),
            })
            .collect();
        (low, derived)
    }

    /// The new primary, with a quorum of view changes (its own included): NEW-VIEW.
    fn try_new_view<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        let view = self.view;
        if self.active || self.setup.primary(view) != self.me {
            return;
        }
        let Some(by) = self.view_changes.get(&view) else {
            return;
        };
        if !by.contains_key(&self.me) || by.len() < self.setup.quorum {
            return;
        }
        let mut used: Vec<Signed<ViewChange>> = vec![by[&self.me].clone()];
        used.extend(
            by.iter()
                .filter(|(r, _)| **r != self.me)
                .map(|(_, vc)| vc.clone())
                .take(self.setup.quorum - 1),
        );
        let (_, derived) = self.derive(&used);
        let pre_prepares: Vec<Proposal> = derived
            .into_iter()
            .map(|(seq, digest, request)| {
                (Signed::new(ctx, PrePrepare { view, seq, digest }), request)
            })
            .collect();
        let nv = Signed::new(
            ctx,
            NewView {
                view,
                view_changes: used,
                pre_prepares,
            },
        );
        self.multicast(ctx, &PbftMsg::NewView(nv.clone()));
        self.enter_view(ctx, nv);
    }

    /// Why a NEW-VIEW does not check out, if it does not.
    fn check_new_view(&self, nv: &Signed<NewView>) -> Result<(), Broken> {
        let body = nv.body();
        let signers: BTreeSet<NodeId> = body.view_changes.iter().map(Signed::signer).collect();
        if signers.len() < self.setup.quorum || signers.len() != body.view_changes.len() {
            let (held, quorum) = (signers.len(), self.setup.quorum);
            return Err(broke(
                format!("it holds {held} distinct view changes, not {quorum}"),
                format!("trae {held} view changes distintos, no {quorum}"),
            ));
        }
        for vc in &body.view_changes {
            if vc.body().view != body.view {
                let other = vc.body().view;
                return Err(broke(
                    format!("a view change in it is for view {other}"),
                    format!("uno de sus view changes es de la vista {other}"),
                ));
            }
            self.check_view_change(vc)?;
        }
        let (_, derived) = self.derive(&body.view_changes);
        let offered: Vec<Derived> = body
            .pre_prepares
            .iter()
            .map(|(pp, request)| (pp.body().seq, pp.body().digest, request.clone()))
            .collect();
        if offered != derived {
            return Err(broke(
                "its pre-prepares are not what its view changes give".into(),
                "sus pre-prepares no son los que se deducen de sus view changes".into(),
            ));
        }
        if let Some((pp, _)) = body.pre_prepares.iter().find(|(pp, request)| {
            pp.signer() != nv.signer()
                || pp.body().view != body.view
                || pp.body().digest != digest_or_null(request)
        }) {
            let seq = pp.body().seq;
            return Err(broke(
                format!("its pre-prepare for n={seq} is not its own"),
                format!("su pre-prepare para n={seq} no es suyo"),
            ));
        }
        Ok(())
    }

    /// A NEW-VIEW: entered if its primary signed it and it checks out.
    pub(crate) fn on_new_view<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, nv: Signed<NewView>) {
        let view = nv.body().view;
        if view < self.view || (view == self.view && self.active) {
            return;
        }
        let primary = self.setup.primary(view);
        let verdict = if nv.signer() != primary {
            let name = self.setup.name(primary);
            Err(broke(
                format!("the primary of view {view} is {name}"),
                format!("el primario de la vista {view} es {name}"),
            ))
        } else if self.setup.bugs.enter_view_unverified {
            Ok(())
        } else {
            self.check_new_view(&nv)
        };
        match verdict {
            Ok(()) => self.enter_view(ctx, nv),
            Err(why) => ctx.note(PbftNote::NewViewRefused {
                view,
                from: self.setup.name(nv.signer()).into(),
                why_es: why.text_in("es").to_string(),
                why: why.text,
            }),
        }
    }

    /// Enters the NEW-VIEW's view: its stable checkpoint if this replica has reached it, its
    /// pre-prepares in the log, prepares for them (backups), and the normal case again.
    fn enter_view<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>, nv: Signed<NewView>) {
        let body = nv.body().clone();
        let view = body.view;
        self.cancel_view_timer(ctx);
        self.view = view;
        self.active = true;
        self.view_changes = self.view_changes.split_off(&(view + 1));
        if let Some(vc) = body.view_changes.iter().max_by_key(|vc| vc.body().stable) {
            let (stable, proof) = (vc.body().stable, vc.body().proof.clone());
            if stable > self.low && self.executed >= stable {
                self.collect_up_to(stable, proof);
            }
        }
        let (min_s, _) = self.derive(&body.view_changes);
        let high = body
            .pre_prepares
            .last()
            .map_or(min_s, |(pp, _)| pp.body().seq)
            .max(min_s);
        self.floor = self.floor.max(min_s);
        self.log.retain(|&seq, slot| seq <= high || slot.executed);
        let mut installed = Vec::new();
        let mut covered = Vec::new();
        for (pp, request) in &body.pre_prepares {
            let seq = pp.body().seq;
            if seq <= self.low {
                covered.push(seq);
                continue;
            }
            let slot = self.log.entry(seq).or_default();
            slot.pre_prepare = Some((pp.clone(), request.clone()));
            slot.prepared = false;
            slot.committed = false;
            installed.push((seq, pp.body().digest));
        }
        // The next number a primary of this view assigns follows the proposals (never one below
        // them, which may be committed; never one above, which would leave a gap).
        self.next_seq = high.max(self.low);
        ctx.note(PbftNote::NewViewEntered {
            view,
            primary: self.setup.name(nv.signer()).into(),
            from: body
                .view_changes
                .iter()
                .map(|vc| self.setup.name(vc.signer()).to_string())
                .collect(),
            proposals: installed.clone(),
            covered,
            built: nv.signer() == self.me && self.setup.primary(view) == self.me,
        });
        self.new_view = Some(nv);
        let primary = self.setup.primary(view) == self.me;
        for &(seq, digest) in &installed {
            if !primary {
                self.send_prepare(ctx, view, seq, digest);
            }
            self.advance(ctx, seq);
        }
        if primary {
            self.awaiting.clear();
            self.assign_queued(ctx);
        } else if !self.awaiting.is_empty() {
            self.arm_view_timer(ctx);
        }
    }
}

impl Replica {
    /// A crash cancels the timers: forget the armed one, so that it is armed again.
    pub fn on_crash(&mut self) {
        self.timer = None;
    }

    /// After a restart: the view-change timer again, if the replica waits for something.
    pub fn on_start<A: Handler>(&mut self, ctx: Ctx<'_, '_, A>) {
        if self.faults.silent {
            return;
        }
        if !self.active {
            self.arm_when_quorum_moved(ctx);
        } else if !self.awaiting.is_empty() && self.setup.primary(self.view) != self.me {
            self.arm_view_timer(ctx);
        }
    }
}
