//! The proposer's side of a replica: phase 1 once for every slot from some index on, then
//! phase 2 per entry, heartbeats that carry the commit point, and what happens when a higher
//! ballot shows up.
//!
//! The rule that makes Multi-Paxos safe is single-decree Paxos's, applied per slot: a new
//! leader proposes, in every slot that a promise reported accepted, the value accepted at the
//! highest ballot there (`become_leader`); a slot between reported ones that
//! nobody reported is a gap, filled with a no-op so that the log has no hole.

use crate::common::NodeSet;
use crate::multipaxos::config::ballot;
use crate::multipaxos::handler::Handler;
use crate::multipaxos::msg::{Ballot, MultiPaxosMsg, NO_OP, Report, Slot, Value};
use crate::multipaxos::node::{Candidacy, MultiPaxosTimer, OpenSlot, Replica, Role};
use crate::multipaxos::notes::{MultiPaxosNote, Source};
use sim_core::{Context, NodeId};
use std::collections::BTreeMap;

impl Replica {
    /// Phase 1a: a ballot above every one heard of, for every slot from the first one this
    /// node does not know chosen; its own promise counts at once.
    pub(crate) fn start_phase_1<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let setup = self.setup.clone();
        let seen = self.seen.max(self.acceptor.promised);
        self.round = (self.round + 1).max(seen / setup.multiplier + 1);
        let b = ballot(self.round, setup.multiplier, setup.id);
        let from = self.learner.committed + 1;
        ctx.cancel_timer(MultiPaxosTimer::Election);
        ctx.note(MultiPaxosNote::Preparing { b, from });
        self.seen = b;
        self.acceptor.promised = b;
        let own: Vec<Report> = self
            .acceptor
            .accepted
            .range(from..)
            .map(|(slot, (ab, v))| (*slot, *ab, v.clone()))
            .collect();
        ctx.note(MultiPaxosNote::Promised {
            b,
            reported: own.len() as u32,
        });
        let me = setup.me;
        self.role = Role::Preparing {
            b,
            from,
            promises: BTreeMap::from([(me, own)]),
        };
        ctx.set_timer(MultiPaxosTimer::Phase(b), setup.phase_timeout);
        ctx.broadcast(&setup.peers, &MultiPaxosMsg::Prepare { b, from });
        if setup.majority() == 1 || setup.bugs.propose_before_promises {
            self.become_leader(ctx);
        }
    }

    /// Phase 1b arrives: at a majority of promises, this node leads.
    pub(crate) fn on_promise<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        b: Ballot,
        accepted: Vec<Report>,
    ) {
        let majority = self.setup.majority();
        let Role::Preparing {
            b: current,
            promises,
            ..
        } = &mut self.role
        else {
            return;
        };
        if *current != b {
            return;
        }
        promises.insert(from, accepted);
        if promises.len() >= majority {
            self.become_leader(ctx);
        }
    }

    /// Phase 1 is complete: recover every open slot (the highest-ballot value a promise
    /// reported, a no-op for a gap), then propose the values waiting here.
    fn become_leader<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let Role::Preparing { b, from, promises } =
            std::mem::replace(&mut self.role, Role::Follower { leader: None })
        else {
            return;
        };
        ctx.cancel_timer(MultiPaxosTimer::Phase(b));
        // The heart of Paxos, per slot: the value accepted at the highest ballot.
        let mut recovered: BTreeMap<Slot, (Ballot, Value)> = BTreeMap::new();
        if !self.setup.bugs.skip_recovery {
            for (slot, ab, value) in promises.values().flatten() {
                let best = recovered.entry(*slot).or_insert((*ab, value.clone()));
                if *ab > best.0 {
                    *best = (*ab, value.clone());
                }
            }
        }
        ctx.note(MultiPaxosNote::Leading {
            b,
            promises: promises.len() as u32,
            of: self.setup.size as u32,
            from,
        });
        let last_known = self.learner.chosen.keys().next_back().copied().unwrap_or(0);
        let top = recovered
            .keys()
            .next_back()
            .copied()
            .unwrap_or(0)
            .max(last_known)
            .max(from - 1);
        self.role = Role::Leading {
            b,
            next: top + 1,
            open: BTreeMap::new(),
        };
        let mut announced = false;
        for slot in from..=top {
            if self.learner.chosen.contains_key(&slot) {
                continue;
            }
            announced = true;
            let value = match recovered.remove(&slot) {
                Some((from_b, value)) => {
                    ctx.note(MultiPaxosNote::Recovered {
                        b,
                        slot,
                        value: value.clone(),
                        from_b,
                    });
                    value
                }
                None => Value::from(NO_OP),
            };
            self.propose(ctx, slot, value);
        }
        for value in self.pending.clone() {
            if !self.in_log(&value) {
                announced = true;
                let slot = self.take_slot();
                self.propose(ctx, slot, value);
            }
        }
        // The others learn of the new leader from its accepts, or else from a heartbeat now,
        // before their election timers run out.
        if !announced {
            self.on_heartbeat_timer(ctx);
        } else {
            ctx.set_timer(MultiPaxosTimer::Heartbeat, self.setup.heartbeat);
        }
    }

    /// Whether `value` is already chosen or proposed here (a value is a client's command: the
    /// same text twice is the same command, logged once).
    fn in_log(&self, value: &Value) -> bool {
        let open = match &self.role {
            Role::Leading { open, .. } => open.values().any(|o| o.value == *value),
            _ => false,
        };
        open || self.learner.chosen.values().any(|v| v == value)
    }

    /// The leader's next free slot, taken.
    pub(crate) fn take_slot(&mut self) -> Slot {
        let Role::Leading { next, .. } = &mut self.role else {
            return 0;
        };
        *next += 1;
        *next - 1
    }

    /// Phase 2a of one slot: vote for it, then ask every other acceptor.
    pub(crate) fn propose<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        slot: Slot,
        value: Value,
    ) {
        let Some(b) = self.own_ballot() else {
            return;
        };
        ctx.note(MultiPaxosNote::Proposed {
            b,
            slot,
            value: value.clone(),
        });
        let mut acks = NodeSet::default();
        if self.accept(ctx, b, slot, &value) {
            acks.insert(self.setup.me);
        }
        let committed = self.learner.committed;
        if let Role::Leading { open, .. } = &mut self.role {
            open.insert(
                slot,
                OpenSlot {
                    value: value.clone(),
                    acks,
                    overdue: false,
                },
            );
        }
        let msg = MultiPaxosMsg::Accept {
            b,
            slot,
            value,
            committed,
        };
        ctx.broadcast(&self.setup.peers.clone(), &msg);
        self.count_accept(ctx, slot);
    }

    /// Phase 2b arrives at the leader.
    pub(crate) fn on_accepted<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        b: Ballot,
        slot: Slot,
        value: Value,
    ) {
        let Role::Leading {
            b: current, open, ..
        } = &mut self.role
        else {
            return;
        };
        if *current != b {
            return;
        }
        if let Some(o) = open.get_mut(&slot)
            && o.value == value
        {
            o.acks.insert(from);
        }
        self.count_accept(ctx, slot);
    }

    /// A slot with a majority of accepts is chosen: the leader learns it.
    fn count_accept<A: Handler>(&mut self, ctx: &mut Context<'_, A>, slot: Slot) {
        let majority = self.setup.majority();
        let Role::Leading { open, .. } = &mut self.role else {
            return;
        };
        let Some(o) = open.get(&slot) else {
            return;
        };
        if o.acks.len() < majority {
            return;
        }
        let value = o.value.clone();
        open.remove(&slot);
        self.learn(ctx, slot, value, Source::Majority);
    }

    /// A nack: if it names a ballot above this node's phase 1 or leadership, that is over.
    pub(crate) fn on_nack<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        b: Ballot,
        promised: Ballot,
    ) {
        if self.own_ballot() == Some(b) && promised > b {
            self.hear(ctx, promised);
        } else {
            self.seen = self.seen.max(promised);
        }
    }

    /// The leader's period: a heartbeat with the commit point to everyone, and every open
    /// slot's accept again to whoever has not answered it (a lost accept or reply).
    pub(crate) fn on_heartbeat_timer<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        let Role::Leading { b, open, .. } = &mut self.role else {
            return;
        };
        let b = *b;
        let committed = self.learner.committed;
        ctx.broadcast(
            &self.setup.peers,
            &MultiPaxosMsg::Heartbeat { b, committed },
        );
        for (slot, o) in open {
            let overdue = std::mem::replace(&mut o.overdue, true);
            if !overdue {
                continue;
            }
            for &peer in &self.setup.peers {
                if !o.acks.contains(&peer) {
                    ctx.send(
                        peer,
                        MultiPaxosMsg::Accept {
                            b,
                            slot: *slot,
                            value: o.value.clone(),
                            committed,
                        },
                    );
                }
            }
        }
        ctx.set_timer(MultiPaxosTimer::Heartbeat, self.setup.heartbeat);
    }

    /// Phase 1 of `b` ran out of time without a majority: the distinguished proposer tries
    /// again at once with a higher ballot; anyone else waits for a leader.
    pub(crate) fn on_phase_timeout<A: Handler>(&mut self, ctx: &mut Context<'_, A>, b: Ballot) {
        let Role::Preparing {
            b: current,
            promises,
            ..
        } = &self.role
        else {
            return;
        };
        if *current != b {
            return;
        }
        ctx.note(MultiPaxosNote::PhaseFailed {
            b,
            promises: promises.len() as u32,
            needed: self.setup.majority() as u32,
        });
        self.role = Role::Follower { leader: None };
        match self.setup.candidacy {
            Candidacy::Distinguished => self.start_phase_1(ctx),
            _ => self.reset_election_timer(ctx),
        }
    }

    /// A client's value (from a command, or forwarded by `via`): a leader logs it, anyone else
    /// keeps it until applied and sends it on to the leader it knows.
    pub(crate) fn submit<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        value: Value,
        via: Option<NodeId>,
    ) {
        if !self.pending.contains(&value) && !self.learner.chosen.values().any(|v| *v == value) {
            self.pending.push(value.clone());
        }
        match &self.role {
            Role::Leading { .. } if !self.in_log(&value) => {
                let slot = self.take_slot();
                self.propose(ctx, slot, value);
            }
            Role::Follower {
                leader: Some((leader, _)),
            } if Some(*leader) != via => {
                ctx.send(*leader, MultiPaxosMsg::Forward { value });
            }
            _ => {}
        }
    }
}
