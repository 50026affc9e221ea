//! The Multi-Paxos replica: one node that is proposer, acceptor and learner at once.
//!
//! The acceptor's state (its one promise for every slot, and what it accepted in each slot) and
//! the learner's log of chosen entries are durable; so is the round counter, so that a ballot
//! is never reused. The role (follower, would-be leader, leader) and the values waiting to be
//! logged are volatile, lost in a crash. This module holds the state, the acceptor and the
//! learner; the proposer's side (phase 1 once, phase 2 per entry, heartbeats) is `leader`.
//! A replica also runs the key-value state machine over its applied log and answers the
//! clients' requests (`client`).

use crate::common::{NodeSet, Shared};
use crate::kvstore::{Kv, Reads};
use crate::multipaxos::config::{Bugs, Election, MultiPaxosConfig};
use crate::multipaxos::handler::Handler;
pub use crate::multipaxos::handler::{MultiPaxosCommand, MultiPaxosTimer};
use crate::multipaxos::msg::{Ballot, CATCH_UP_BATCH, MultiPaxosMsg, Report, Slot, Value};
use crate::multipaxos::notes::{MultiPaxosNote, Source};
use sim_core::{Context, Duration, Name, NodeId, RoleClaim};
use std::collections::{BTreeMap, BTreeSet};

/// How leaders come to be, resolved for one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Candidacy {
    /// Run phase 1 after an election timeout drawn in [min, max] ms.
    Timeout(u64, u64),
    /// Run phase 1 at the start and whenever it fails (this node is `Fixed`).
    Distinguished,
    /// Never, unless told (`Lead`).
    OnCommand,
}

/// A node's read-only facts: who it is, who the others are, the timings and the bug knobs.
#[derive(Debug)]
pub struct Setup {
    /// Its id: the low digits of its ballots (its position, from 1).
    pub id: u64,
    /// Its node id (its position, from 0).
    pub me: NodeId,
    /// Every other replica.
    pub peers: Vec<NodeId>,
    /// Replicas in all.
    pub size: usize,
    /// Ballot = round * multiplier + id.
    pub multiplier: u64,
    /// The leader's period.
    pub heartbeat: Duration,
    /// How long phase 1 may take.
    pub phase_timeout: Duration,
    /// When it runs phase 1.
    pub candidacy: Candidacy,
    /// Deliberate mistakes in force.
    pub bugs: Bugs,
    /// The key-value clients, by name: client i is node `size + i`.
    pub clients: Vec<Name>,
    /// How a leader answers a client's read.
    pub reads: Reads,
}

impl Setup {
    /// How many replicas make a majority.
    pub fn majority(&self) -> usize {
        self.size / 2 + 1
    }
}

/// The acceptor's durable memory: one promise for all slots, one accepted proposal per slot.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AcceptorState {
    /// The highest ballot promised (0: none).
    pub promised: Ballot,
    /// Per slot, the ballot and value last accepted there.
    pub accepted: BTreeMap<Slot, (Ballot, Value)>,
}

/// The learner's durable log: the chosen entries and how far they were applied.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LearnerState {
    /// Every slot known chosen, with its value.
    pub chosen: BTreeMap<Slot, Value>,
    /// Every slot up to this one is chosen (0: none).
    pub committed: Slot,
    /// Every slot up to this one is applied.
    pub applied: Slot,
    /// Slots applied ahead of their turn (only under `apply_out_of_order`).
    pub applied_early: BTreeSet<Slot>,
}

/// A slot in phase 2: the value proposed and who accepted it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OpenSlot {
    /// The value proposed.
    pub value: Value,
    /// Replicas that accepted it (the leader included).
    pub acks: NodeSet,
    /// Whether a heartbeat period has begun since it was proposed: only then does the next
    /// heartbeat resend it (its replies had a whole period to come).
    pub overdue: bool,
}

/// What a replica is doing now (volatile).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Following `leader` (the node and its ballot), if it knows one.
    Follower {
        /// The leader it last heard from.
        leader: Option<(NodeId, Ballot)>,
    },
    /// Phase 1 of ballot `b` for every slot from `from` on.
    Preparing {
        /// The ballot.
        b: Ballot,
        /// The first slot covered.
        from: Slot,
        /// Promises so far, with what each reported.
        promises: BTreeMap<NodeId, Vec<Report>>,
    },
    /// Phase 1 of `b` is done: phase 2 per entry.
    Leading {
        /// The ballot.
        b: Ballot,
        /// The next free slot.
        next: Slot,
        /// Slots proposed but not yet chosen.
        open: BTreeMap<Slot, OpenSlot>,
    },
}

/// One Multi-Paxos replica.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Replica {
    /// Read-only facts (left out of the state's hash).
    pub setup: Shared<Setup>,
    /// The acceptor's memory (durable).
    pub acceptor: AcceptorState,
    /// The learner's log (durable).
    pub learner: LearnerState,
    /// Phase 1 runs so far (durable: a ballot is never reused).
    pub round: u64,
    /// The highest ballot heard of (durable, like the promise).
    pub seen: Ballot,
    /// What it is doing (volatile).
    pub role: Role,
    /// Clients' values given to this node and not yet applied here (volatile).
    pub pending: Vec<Value>,
    /// The key-value state machine the applied log built (durable, like the log it follows).
    pub kv: Kv,
}

impl Replica {
    /// Replica `name` of `config`.
    pub fn from_config(config: &MultiPaxosConfig, name: &str) -> Self {
        let id = config.id_of(name).unwrap_or(0);
        let peers = (0..config.nodes.len())
            .filter(|&i| i as u64 + 1 != id)
            .map(|i| NodeId(i as u32))
            .collect();
        let candidacy = match &config.election {
            Election::Timeout(min, max) => Candidacy::Timeout(*min, *max),
            Election::Fixed(leader) if leader == name => Candidacy::Distinguished,
            Election::Fixed(_) => Candidacy::OnCommand,
        };
        Replica {
            setup: Shared::new(Setup {
                id,
                me: NodeId(id.saturating_sub(1) as u32),
                peers,
                size: config.nodes.len(),
                multiplier: config.round_multiplier.max(1),
                heartbeat: Duration::from_millis(config.heartbeat_ms),
                phase_timeout: Duration::from_millis(config.phase_timeout_ms),
                candidacy,
                bugs: config.bugs,
                clients: config
                    .clients
                    .iter()
                    .map(|c| Name::from(c.as_str()))
                    .collect(),
                reads: config.reads,
            }),
            acceptor: AcceptorState::default(),
            learner: LearnerState::default(),
            round: 0,
            seen: 0,
            role: Role::Follower { leader: None },
            pending: Vec::new(),
            kv: Kv::default(),
        }
    }

    /// The ballot of the phase 1 or leadership in progress, if any.
    pub fn own_ballot(&self) -> Option<Ballot> {
        match &self.role {
            Role::Preparing { b, .. } | Role::Leading { b, .. } => Some(*b),
            Role::Follower { .. } => None,
        }
    }

    /// The leader this node follows, if it knows one.
    pub fn leader(&self) -> Option<NodeId> {
        match &self.role {
            Role::Follower { leader } => leader.map(|(l, _)| l),
            _ => None,
        }
    }

    /// The values applied, in slot order (what a client of this replica's state machine sees).
    pub fn applied_log(&self) -> Vec<Value> {
        self.learner
            .chosen
            .range(..=self.learner.applied)
            .map(|(_, v)| v.clone())
            .collect()
    }

    // ----- timers -----------------------------------------------------------------------------

    /// Re-arms the election timer, when this node elects itself by timeout.
    pub(crate) fn reset_election_timer<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        if let Candidacy::Timeout(min, max) = self.setup.candidacy {
            let ms = ctx.random_between(min, max);
            ctx.set_timer(MultiPaxosTimer::Election, Duration::from_millis(ms));
        }
    }

    /// Notes a ballot heard of; if it overtakes this node's own phase 1 or leadership, the node
    /// steps down (it learns of the higher ballot from a nack, or from a prepare, accept or
    /// heartbeat it sees).
    pub(crate) fn hear<A: Handler>(&mut self, ctx: &mut Context<'_, A>, b: Ballot) {
        self.seen = self.seen.max(b);
        if let Some(mine) = self.own_ballot()
            && b > mine
        {
            ctx.note(MultiPaxosNote::Preempted { b: mine, by: b });
            self.step_down(ctx);
        }
    }

    /// Back to following nobody: the leader's timers stop, the election timer starts.
    pub(crate) fn step_down<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        if let Some(b) = self.own_ballot() {
            ctx.cancel_timer(MultiPaxosTimer::Phase(b));
        }
        ctx.cancel_timer(MultiPaxosTimer::Heartbeat);
        self.role = Role::Follower { leader: None };
        self.reset_election_timer(ctx);
    }

    /// Follows `leader` at ballot `b`: the election timer restarts, and a new leader (or, with
    /// `resend`, any: a heartbeat's period is the retry of a lost forward) gets the values
    /// waiting here.
    fn follow<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        leader: NodeId,
        b: Ballot,
        resend: bool,
    ) {
        if self.own_ballot().is_some() {
            return;
        }
        let new = self.role
            != (Role::Follower {
                leader: Some((leader, b)),
            });
        self.role = Role::Follower {
            leader: Some((leader, b)),
        };
        self.reset_election_timer(ctx);
        if !(new || resend) {
            return;
        }
        for value in &self.pending {
            ctx.send(
                leader,
                MultiPaxosMsg::Forward {
                    value: value.clone(),
                },
            );
        }
    }

    // ----- acceptor ---------------------------------------------------------------------------

    /// Phase 1b: promise `b` for every slot from `from` on, reporting what was accepted there.
    fn on_prepare<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        b: Ballot,
        first: Slot,
    ) {
        self.hear(ctx, b);
        let a = &mut self.acceptor;
        // `b == promised` is the same request again (ballots are unique): answered alike.
        if b < a.promised {
            let promised = a.promised;
            ctx.note(MultiPaxosNote::Nacked { b, promised });
            ctx.send(from, MultiPaxosMsg::Nack { b, promised });
            return;
        }
        a.promised = b;
        let accepted: Vec<Report> = a
            .accepted
            .range(first..)
            .map(|(slot, (ab, v))| (*slot, *ab, v.clone()))
            .collect();
        ctx.note(MultiPaxosNote::Promised {
            b,
            reported: accepted.len() as u32,
        });
        ctx.send(from, MultiPaxosMsg::Promise { b, accepted });
        if matches!(self.role, Role::Follower { .. }) {
            self.role = Role::Follower { leader: None };
            self.reset_election_timer(ctx);
        }
    }

    /// Accepts `value` in `slot` at ballot `b` unless a higher ballot was promised; `true` if
    /// it did. The leader calls it for its own vote too.
    pub(crate) fn accept<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        b: Ballot,
        slot: Slot,
        value: &Value,
    ) -> bool {
        let a = &mut self.acceptor;
        if b < a.promised {
            return false;
        }
        a.promised = b;
        a.accepted.insert(slot, (b, value.clone()));
        ctx.note(MultiPaxosNote::Accepted {
            b,
            slot,
            value: value.clone(),
        });
        true
    }

    /// Phase 2b from a leader, with its commit point.
    fn on_accept<A: Handler>(&mut self, ctx: &mut Context<'_, A>, from: NodeId, msg: AcceptMsg) {
        let AcceptMsg {
            b,
            slot,
            value,
            committed,
        } = msg;
        self.hear(ctx, b);
        if !self.accept(ctx, b, slot, &value) {
            let promised = self.acceptor.promised;
            ctx.note(MultiPaxosNote::Nacked { b, promised });
            ctx.send(from, MultiPaxosMsg::Nack { b, promised });
            return;
        }
        ctx.send(from, MultiPaxosMsg::Accepted { b, slot, value });
        self.follow(ctx, from, b, false);
        self.learn_committed(ctx, from, b, committed);
    }

    /// A leader's heartbeat: follow it if its ballot is current, else tell it it is not.
    fn on_heartbeat<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        b: Ballot,
        upto: Slot,
    ) {
        self.hear(ctx, b);
        if b < self.acceptor.promised {
            let promised = self.acceptor.promised;
            ctx.send(from, MultiPaxosMsg::Nack { b, promised });
            return;
        }
        self.acceptor.promised = b;
        self.follow(ctx, from, b, true);
        self.learn_committed(ctx, from, b, upto);
    }

    // ----- learner ----------------------------------------------------------------------------

    /// The leader of ballot `b` says every slot up to `upto` is chosen: a slot this node
    /// accepted at `b` holds the chosen value (a leader proposes one value per slot in its
    /// ballot); at the first slot it lacks, it asks the leader for the rest.
    fn learn_committed<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        leader: NodeId,
        b: Ballot,
        upto: Slot,
    ) {
        let mut slot = self.learner.committed + 1;
        while slot <= upto {
            if !self.learner.chosen.contains_key(&slot) {
                match self.acceptor.accepted.get(&slot) {
                    Some((at, value)) if *at == b || self.setup.bugs.commit_any_ballot => {
                        let value = value.clone();
                        self.learn(ctx, slot, value, Source::Commit);
                    }
                    _ => {
                        ctx.send(leader, MultiPaxosMsg::CatchUp { from: slot });
                        return;
                    }
                }
            }
            slot += 1;
        }
    }

    /// The leader's answer to a catch-up request: chosen entries from `from` on.
    fn on_catch_up<A: Handler>(&mut self, ctx: &mut Context<'_, A>, to: NodeId, from: Slot) {
        if !matches!(self.role, Role::Leading { .. }) {
            return;
        }
        let entries: Vec<(Slot, Value)> = self
            .learner
            .chosen
            .range(from..)
            .take(CATCH_UP_BATCH)
            .map(|(s, v)| (*s, v.clone()))
            .collect();
        if !entries.is_empty() {
            ctx.send(to, MultiPaxosMsg::Decided { entries });
        }
    }

    /// Slot `slot` is chosen with `value`: logged, then applied in slot order.
    pub(crate) fn learn<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        slot: Slot,
        value: Value,
        how: Source,
    ) {
        let l = &mut self.learner;
        if l.chosen.contains_key(&slot) {
            return;
        }
        l.chosen.insert(slot, value.clone());
        while l.chosen.contains_key(&(l.committed + 1)) {
            l.committed += 1;
        }
        ctx.note(MultiPaxosNote::Chosen {
            slot,
            value: value.clone(),
            how,
        });
        if self.setup.bugs.apply_out_of_order && slot > l.applied {
            l.applied_early.insert(slot);
            self.apply(ctx, slot, value);
        }
        loop {
            let l = &mut self.learner;
            let Some(value) = l.chosen.get(&(l.applied + 1)).cloned() else {
                break;
            };
            l.applied += 1;
            let slot = l.applied;
            if !l.applied_early.remove(&slot) {
                self.apply(ctx, slot, value);
            }
        }
    }
}

/// An `Accept`'s fields, handed over as one.
struct AcceptMsg {
    b: Ballot,
    slot: Slot,
    value: Value,
    committed: Slot,
}

/// The replica's handlers, called by the actor that hosts it
/// ([`crate::multipaxos::actor::MultiPaxosNode`]).
impl Replica {
    /// Its role now: "leader" or "candidate" at its ballot, nothing as a follower.
    pub fn claim(&self) -> Option<RoleClaim> {
        match &self.role {
            Role::Leading { b, .. } => Some(RoleClaim {
                role: "leader",
                epoch: *b,
            }),
            Role::Preparing { b, .. } => Some(RoleClaim {
                role: "candidate",
                epoch: *b,
            }),
            Role::Follower { .. } => None,
        }
    }

    pub(crate) fn on_start<A: Handler>(&mut self, ctx: &mut Context<'_, A>) {
        match self.setup.candidacy {
            Candidacy::Timeout(..) => self.reset_election_timer(ctx),
            Candidacy::Distinguished => self.start_phase_1(ctx),
            Candidacy::OnCommand => {}
        }
    }

    pub(crate) fn on_message<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        from: NodeId,
        msg: MultiPaxosMsg,
    ) {
        use MultiPaxosMsg as M;
        match msg {
            M::Prepare { b, from: first } => self.on_prepare(ctx, from, b, first),
            M::Promise { b, accepted } => self.on_promise(ctx, from, b, accepted),
            M::Nack { b, promised } => self.on_nack(ctx, b, promised),
            M::Accept {
                b,
                slot,
                value,
                committed,
            } => self.on_accept(
                ctx,
                from,
                AcceptMsg {
                    b,
                    slot,
                    value,
                    committed,
                },
            ),
            M::Accepted { b, slot, value } => self.on_accepted(ctx, from, b, slot, value),
            M::Heartbeat { b, committed } => self.on_heartbeat(ctx, from, b, committed),
            M::CatchUp { from: first } => self.on_catch_up(ctx, from, first),
            M::Decided { entries } => {
                for (slot, value) in entries {
                    self.learn(ctx, slot, value, Source::CatchUp);
                }
            }
            M::Forward { value } => self.submit(ctx, value, Some(from)),
            M::Request { request } => self.on_request(ctx, request),
            M::Reply { .. } => {}
        }
    }

    pub(crate) fn on_timer<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        timer: MultiPaxosTimer,
    ) {
        match timer {
            MultiPaxosTimer::Election => {
                if matches!(self.role, Role::Follower { .. }) {
                    self.start_phase_1(ctx);
                }
            }
            MultiPaxosTimer::Heartbeat => self.on_heartbeat_timer(ctx),
            MultiPaxosTimer::Phase(b) => self.on_phase_timeout(ctx, b),
            MultiPaxosTimer::ClientRetry { .. } => {}
        }
    }

    pub(crate) fn on_command<A: Handler>(
        &mut self,
        ctx: &mut Context<'_, A>,
        command: MultiPaxosCommand,
    ) {
        match command {
            MultiPaxosCommand::Submit(value) => self.submit(ctx, value.as_str().into(), None),
            MultiPaxosCommand::Lead => {
                if let Some(b) = self.own_ballot() {
                    ctx.cancel_timer(MultiPaxosTimer::Phase(b));
                    ctx.cancel_timer(MultiPaxosTimer::Heartbeat);
                    self.role = Role::Follower { leader: None };
                }
                self.start_phase_1(ctx);
            }
            // A client's command: refused before a run starts (`command_problem`).
            _ => {}
        }
    }

    pub(crate) fn on_crash(&mut self) {
        self.role = Role::Follower { leader: None };
        self.pending.clear();
    }
}
