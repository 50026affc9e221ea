//! The Paxos actor: one node that may be a proposer, an acceptor and a learner at once.
//!
//! Each role is an optional state with its own handlers; `PaxosNode` routes messages to the
//! roles that take them. Acceptor state (`promised`, `accepted`) is durable (stable storage in
//! the paper); a proposer's round counter is durable too, so that it never reuses a number; the
//! phase in progress is volatile and lost in a crash. Everything a checker needs is published as
//! a [`PaxosNote`]; nothing here reads a clock or a global.

use crate::common::NodeSet;
use crate::paxos::config::{Bugs, CountPromises, Numbering, OnTimeout, PaxosConfig, number};
use crate::paxos::msg::{Number, PaxosMsg, Proposal, Value};
use crate::paxos::notes::PaxosNote;
use serde::{Deserialize, Serialize};
use sim_core::{Actor, Context, Duration, NodeId};
use std::collections::{BTreeMap, BTreeSet};

/// What a scenario can tell a proposer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum PaxosCommand {
    /// Start a new round with the proposer's current value (RON: `Propose`).
    Propose,
    /// Make `value` the proposer's own value, then start a new round (RON: `ProposeValue("x")`).
    ProposeValue(String),
}

/// Timer tags.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PaxosTimer {
    /// The phase of round `n` did not reach a majority in time.
    Phase(Number),
    /// The back-off after a failed round is over: start the next one.
    Retry,
}

/// Who is who: the acceptors a proposer asks and a learner counts, the learners an acceptor
/// tells.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cluster {
    /// Every acceptor.
    pub acceptors: Vec<NodeId>,
    /// Every learner.
    pub learners: Vec<NodeId>,
}

impl Cluster {
    /// How many acceptors make a majority.
    pub fn majority(&self) -> usize {
        self.acceptors.len() / 2 + 1
    }
}

/// An acceptor's memory. Durable unless the `forget_promise_on_restart` bug is on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AcceptorState {
    /// The highest number promised (or accepted), if any.
    pub promised: Option<Number>,
    /// The last proposal accepted, if any.
    pub accepted: Option<Proposal>,
}

/// The phase a proposer is in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Phase {
    /// No round in progress.
    #[default]
    Idle,
    /// Phase 1 of round `n`: collecting promises.
    Preparing {
        /// The round's number.
        n: Number,
        /// Promises so far, with the accepted proposal each reported.
        promises: BTreeMap<NodeId, Option<Proposal>>,
        /// Acceptors that refused.
        nacks: NodeSet,
    },
    /// Phase 2 of round `n`: collecting accepts of `value`.
    Accepting {
        /// The round's number.
        n: Number,
        /// The value proposed.
        value: Value,
        /// Acceptors that accepted.
        accepted: NodeSet,
        /// Acceptors that refused.
        nacks: NodeSet,
    },
}

impl std::hash::Hash for Phase {
    /// Who promised, accepted or refused as sets (see `sim_core::symmetry::AsSet`).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        use sim_core::symmetry::AsSet;
        std::mem::discriminant(self).hash(state);
        match self {
            Phase::Idle => {}
            Phase::Preparing { n, promises, nacks } => {
                n.hash(state);
                AsSet(promises).hash(state);
                AsSet(nacks).hash(state);
            }
            Phase::Accepting {
                n,
                value,
                accepted,
                nacks,
            } => {
                n.hash(state);
                value.hash(state);
                AsSet(accepted).hash(state);
                AsSet(nacks).hash(state);
            }
        }
    }
}

/// A proposer's memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProposerState {
    /// Its id (the low digits of its numbers).
    pub id: u64,
    /// Numbers are `round * multiplier + id`.
    pub multiplier: u64,
    /// The value it wants chosen.
    pub value: Value,
    /// Rounds started so far (durable: a number is never reused).
    pub round: u64,
    /// The highest promise reported by a nack (the next round jumps above it under
    /// `numbering: PastHighestSeen`).
    pub highest_seen: Number,
    /// The phase in progress (volatile).
    pub phase: Phase,
}

impl ProposerState {
    /// The round after the current one: the next (the lesson's `ronda += 1`), or the first
    /// above every promise seen in a nack.
    fn next_round(&self, numbering: Numbering) -> u64 {
        match numbering {
            Numbering::NextRound => self.round + 1,
            Numbering::PastHighestSeen => {
                let above_seen = self.highest_seen.saturating_sub(self.id) / self.multiplier + 1;
                (self.round + 1).max(above_seen)
            }
        }
    }
}

/// Why a phase ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// Its replies are in, a majority is out of reach, or its timeout expired.
    Settled,
    /// A new `Propose` starts another round while it still waits.
    Superseded,
}

/// A learner's memory: who accepted what, and which numbers it already noted as chosen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LearnerState {
    /// Acceptors that accepted each proposal.
    pub accepts: BTreeMap<Proposal, NodeSet>,
    /// Proposal numbers already noted as chosen.
    pub noted: BTreeSet<Number>,
}

impl std::hash::Hash for LearnerState {
    /// Who accepted each proposal as a set (see `sim_core::symmetry::AsSet`).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        use sim_core::symmetry::AsSet;
        self.accepts.len().hash(state);
        for (proposal, who) in &self.accepts {
            proposal.hash(state);
            AsSet(who).hash(state);
        }
        self.noted.hash(state);
    }
}

impl LearnerState {
    /// Records an accept; returns how many acceptors accepted that proposal so far.
    fn record(&mut self, from: NodeId, proposal: Proposal) -> usize {
        let set = self.accepts.entry(proposal).or_default();
        set.insert(from);
        set.len()
    }

    fn count(&self, proposal: &Proposal) -> usize {
        self.accepts.get(proposal).map_or(0, NodeSet::len)
    }
}

/// One Paxos node and the roles it plays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaxosNode {
    /// Who the acceptors and learners are.
    pub cluster: std::sync::Arc<Cluster>,
    /// The proposer role, if this node proposes.
    pub proposer: Option<ProposerState>,
    /// The acceptor role, if this node accepts.
    pub acceptor: Option<AcceptorState>,
    /// The learner role, if this node learns.
    pub learner: Option<LearnerState>,
    /// How long a phase may take.
    pub phase_timeout: Duration,
    /// What to do when a phase fails.
    pub on_timeout: OnTimeout,
    /// When phase 1 ends.
    pub count_promises: CountPromises,
    /// How the next round is numbered.
    pub numbering: Numbering,
    /// Deliberate mistakes in force.
    pub bugs: Bugs,
}

impl std::hash::Hash for PaxosNode {
    /// The roles' state only: the cluster, timeouts, rules and bug knobs are the config's,
    /// the same in every state of a run (and the acceptors' list, in id order, would tell
    /// interchangeable acceptors apart; see `Paxos::interchangeable`).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.proposer.hash(state);
        self.acceptor.hash(state);
        self.learner.hash(state);
    }
}

impl PaxosNode {
    /// Builds node `name` of `config` (roles, ids and values from the config).
    pub fn from_config(config: &PaxosConfig, name: &str) -> Self {
        PaxosNode::of_cluster(config, name, &config.node_names())
    }

    /// Builds node `name` of `config` whose nodes are `names` in id order (computed once for
    /// a whole cluster).
    pub fn of_cluster(config: &PaxosConfig, name: &str, names: &[String]) -> Self {
        let ids = |list: &[String]| -> Vec<NodeId> {
            list.iter()
                .filter_map(|n| names.iter().position(|m| m == n))
                .map(|i| NodeId(i as u32))
                .collect()
        };
        let proposer = config.proposer_id(name).map(|id| ProposerState {
            id,
            multiplier: config.round_multiplier.max(1),
            value: config.proposer_value(name).into(),
            round: 0,
            highest_seen: 0,
            phase: Phase::Idle,
        });
        let is = |list: &[String]| list.iter().any(|n| n == name);
        PaxosNode {
            cluster: std::sync::Arc::new(Cluster {
                acceptors: ids(&config.acceptors),
                learners: ids(config.learners()),
            }),
            proposer,
            acceptor: is(&config.acceptors).then(AcceptorState::default),
            learner: is(config.learners()).then(LearnerState::default),
            phase_timeout: Duration::from_millis(config.phase_timeout_ms),
            on_timeout: config.on_timeout,
            count_promises: config.count_promises,
            numbering: config.numbering,
            bugs: config.bugs,
        }
    }

    // ----- proposer -------------------------------------------------------------------------

    /// Starts a new round: phase 1, `Prepare(n)` to every acceptor. A phase still waiting is
    /// ended first, noting what it achieved.
    fn start_round(&mut self, ctx: &mut Context<'_, Self>) {
        self.end_phase(ctx, Ending::Superseded);
        let timeout = self.phase_timeout;
        let numbering = self.numbering;
        let Some(p) = self.proposer.as_mut() else {
            return;
        };
        ctx.cancel_timer(PaxosTimer::Retry);
        let round = p.next_round(numbering);
        assert!(round > p.round, "a proposer's rounds only go up");
        p.round = round;
        let n = number(p.round, p.multiplier, p.id);
        p.phase = Phase::Preparing {
            n,
            promises: BTreeMap::new(),
            nacks: NodeSet::default(),
        };
        ctx.note(PaxosNote::Preparing {
            n,
            value: p.value.clone(),
        });
        ctx.set_timer(PaxosTimer::Phase(n), timeout);
        ctx.broadcast(&self.cluster.acceptors, &PaxosMsg::Prepare { n });
    }

    fn on_promise(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        n: Number,
        reported: Option<Proposal>,
    ) {
        let Some(p) = self.proposer.as_mut() else {
            return;
        };
        let Phase::Preparing {
            n: current,
            promises,
            nacks,
        } = &mut p.phase
        else {
            return;
        };
        if *current != n {
            return;
        }
        promises.insert(from, reported);
        nacks.remove(&from);
        self.settle(ctx);
    }

    /// Ends the phase in progress once its replies decide it: too many nacks for a majority;
    /// phase 1 at a majority of promises (`AtMajority`) or once every acceptor answered;
    /// phase 2 once every acceptor answered.
    fn settle(&mut self, ctx: &mut Context<'_, Self>) {
        let total = self.cluster.acceptors.len();
        let majority = self.cluster.majority();
        let Some(p) = self.proposer.as_ref() else {
            return;
        };
        let (yes, no, enough) = match &p.phase {
            Phase::Idle => return,
            Phase::Preparing {
                promises, nacks, ..
            } => (
                promises.len(),
                nacks.len(),
                self.count_promises == CountPromises::AtMajority,
            ),
            Phase::Accepting {
                accepted, nacks, ..
            } => (accepted.len(), nacks.len(), false),
        };
        let out_of_reach = no > total - majority;
        let all_answered = yes + no >= total;
        if out_of_reach || all_answered || (enough && yes >= majority) {
            self.end_phase(ctx, Ending::Settled);
        }
    }

    /// Phase 1 is over with a majority of promises: pick the value and send `Accept`s.
    fn propose(
        &mut self,
        ctx: &mut Context<'_, Self>,
        n: Number,
        promises: &BTreeMap<NodeId, Option<Proposal>>,
    ) {
        let Some(p) = self.proposer.as_mut() else {
            return;
        };
        // The heart of Paxos: propose the value of the highest-numbered accepted proposal
        // reported by the promises, or the proposer's own value if none was reported.
        let highest = promises.values().flatten().max_by_key(|(num, _)| *num);
        let value = match highest {
            Some((from_n, value)) if !self.bugs.ignore_accepted_in_promises => {
                if *value != p.value {
                    ctx.note(PaxosNote::Adopted {
                        n,
                        value: value.clone(),
                        from_n: *from_n,
                        gave_up: p.value.clone(),
                    });
                }
                value.clone()
            }
            _ => p.value.clone(),
        };
        p.phase = Phase::Accepting {
            n,
            value: value.clone(),
            accepted: NodeSet::default(),
            nacks: NodeSet::default(),
        };
        ctx.note(PaxosNote::Proposed {
            n,
            value: value.clone(),
        });
        ctx.set_timer(PaxosTimer::Phase(n), self.phase_timeout);
        ctx.broadcast(&self.cluster.acceptors, &PaxosMsg::Accept { n, value });
    }

    fn on_nack(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, n: Number, promised: Number) {
        let Some(p) = self.proposer.as_mut() else {
            return;
        };
        p.highest_seen = p.highest_seen.max(promised);
        // Only a real refusal counts: the acceptor promised a higher number. And an acceptor
        // that already promised or accepted in this phase cannot take it back (a late or
        // duplicated reply must not turn a yes into a no).
        if promised <= n {
            return;
        }
        let nacks = match &mut p.phase {
            Phase::Preparing {
                n: current,
                nacks,
                promises,
            } if *current == n && !promises.contains_key(&from) => nacks,
            Phase::Accepting {
                n: current,
                nacks,
                accepted,
                ..
            } if *current == n && !accepted.contains(&from) => nacks,
            _ => return,
        };
        nacks.insert(from);
        self.settle(ctx);
    }

    /// Counts an accept for the proposer's phase 2; the phase ends once every acceptor answered.
    fn count_accept(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, n: Number) {
        let Some(p) = self.proposer.as_mut() else {
            return;
        };
        let Phase::Accepting {
            n: current,
            accepted,
            nacks,
            ..
        } = &mut p.phase
        else {
            return;
        };
        if *current != n {
            return;
        }
        accepted.insert(from);
        nacks.remove(&from);
        self.settle(ctx);
    }

    /// Ends the phase in progress. Settled: phase 1 with a majority of promises goes on to
    /// phase 2; phase 2 with a majority succeeded (the proposer-learner notes the choice with
    /// every accept counted so far); anything else failed, and the proposer may retry.
    /// Superseded by a new round: a choice is still noted; anything else is abandoned.
    fn end_phase(&mut self, ctx: &mut Context<'_, Self>, why: Ending) {
        let majority = self.cluster.majority();
        let of = self.cluster.acceptors.len() as u32;
        let Some(p) = self.proposer.as_mut() else {
            return;
        };
        let phase = std::mem::take(&mut p.phase);
        let (phase_no, n, got) = match &phase {
            Phase::Idle => return,
            Phase::Preparing { n, promises, .. } => (1, *n, promises.len()),
            Phase::Accepting { n, accepted, .. } => (2, *n, accepted.len()),
        };
        ctx.cancel_timer(PaxosTimer::Phase(n));
        match phase {
            Phase::Preparing { promises, .. } if got >= majority && why == Ending::Settled => {
                return self.propose(ctx, n, &promises);
            }
            Phase::Accepting { value, .. } if got >= majority => {
                if let Some(l) = self.learner.as_mut()
                    && l.noted.insert(n)
                {
                    let accepts = l.count(&(n, value.clone())) as u32;
                    ctx.note(PaxosNote::Chosen {
                        n,
                        value,
                        accepts,
                        of,
                    });
                }
                return;
            }
            _ => {}
        }
        if why == Ending::Superseded {
            ctx.note(PaxosNote::Abandoned {
                phase: phase_no,
                n,
                got: got as u32,
                needed: majority as u32,
            });
            return;
        }
        let retry_in_ms = match self.on_timeout {
            OnTimeout::GiveUp => None,
            OnTimeout::Retry(min, max) => Some(ctx.random_between(min, max.max(min))),
        };
        ctx.note(PaxosNote::PhaseFailed {
            phase: phase_no,
            n,
            got: got as u32,
            needed: majority as u32,
            retry_in_ms,
        });
        if let Some(ms) = retry_in_ms {
            ctx.set_timer(PaxosTimer::Retry, Duration::from_millis(ms));
        }
    }

    // ----- acceptor -------------------------------------------------------------------------

    fn on_prepare(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, n: Number) {
        let Some(a) = self.acceptor.as_mut() else {
            return;
        };
        // `n > promised` is the paper's rule; `n == promised` can only be the same proposer's
        // same request again (proposal numbers are unique), answered the same way: a repeated
        // (duplicated) Prepare must not read as a refusal.
        if a.promised.is_none_or(|promised| n >= promised) {
            a.promised = Some(n);
            let accepted = a.accepted.clone();
            ctx.note(PaxosNote::Promised {
                n,
                accepted: accepted.clone(),
            });
            ctx.send(from, PaxosMsg::Promise { n, accepted });
        } else {
            let promised = a.promised.unwrap_or(0);
            ctx.note(PaxosNote::Nacked { n, promised });
            ctx.send(from, PaxosMsg::Nack { n, promised });
        }
    }

    fn on_accept(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, n: Number, value: Value) {
        let Some(a) = self.acceptor.as_mut() else {
            return;
        };
        let allowed = a.promised.is_none_or(|promised| n >= promised);
        if allowed || self.bugs.accept_below_promise {
            let before = a.promised;
            a.promised = Some(a.promised.map_or(n, |p| p.max(n)));
            assert!(a.promised >= before, "a promise never goes down");
            a.accepted = Some((n, value.clone()));
            ctx.note(PaxosNote::Accepted {
                n,
                value: value.clone(),
            });
            let msg = PaxosMsg::Accepted { n, value };
            ctx.send(from, msg.clone());
            for &learner in &self.cluster.learners {
                if learner != from {
                    ctx.send(learner, msg.clone());
                }
            }
        } else {
            let promised = a.promised.unwrap_or(0);
            ctx.note(PaxosNote::Nacked { n, promised });
            ctx.send(from, PaxosMsg::Nack { n, promised });
        }
    }

    // ----- learner (and the proposer's count) ----------------------------------------------

    fn on_accepted(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, n: Number, value: Value) {
        if !self.cluster.acceptors.contains(&from) {
            return;
        }
        let count = self
            .learner
            .as_mut()
            .map(|l| l.record(from, (n, value.clone())));
        self.count_accept(ctx, from, n);
        let majority = self.cluster.majority();
        let of = self.cluster.acceptors.len() as u32;
        let own_phase_open = self.proposer.as_ref().is_some_and(
            |p| matches!(&p.phase, Phase::Accepting { n: current, .. } if *current == n),
        );
        let (Some(l), Some(count)) = (self.learner.as_mut(), count) else {
            return;
        };
        // A proposer-learner reports its own round when its phase 2 ends (see `end_phase`),
        // with every accept counted by then, as the lesson does.
        if count >= majority && !own_phase_open && l.noted.insert(n) {
            ctx.note(PaxosNote::Chosen {
                n,
                value,
                accepts: count as u32,
                of,
            });
        }
    }
}

impl Actor for PaxosNode {
    type Msg = PaxosMsg;
    type Timer = PaxosTimer;
    type Note = PaxosNote;
    type Command = PaxosCommand;

    fn same_state(&self, other: &Self) -> bool {
        self == other
    }

    fn on_start(&mut self, _ctx: &mut Context<'_, Self>) {}

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: PaxosMsg) {
        match msg {
            PaxosMsg::Prepare { n } => self.on_prepare(ctx, from, n),
            PaxosMsg::Promise { n, accepted } => self.on_promise(ctx, from, n, accepted),
            PaxosMsg::Nack { n, promised } => self.on_nack(ctx, from, n, promised),
            PaxosMsg::Accept { n, value } => self.on_accept(ctx, from, n, value),
            PaxosMsg::Accepted { n, value } => self.on_accepted(ctx, from, n, value),
        }
    }

    fn on_timer(&mut self, ctx: &mut Context<'_, Self>, timer: PaxosTimer) {
        match timer {
            PaxosTimer::Retry => self.start_round(ctx),
            PaxosTimer::Phase(n) => {
                let current = self.proposer.as_ref().and_then(|p| match p.phase {
                    Phase::Preparing { n, .. } | Phase::Accepting { n, .. } => Some(n),
                    Phase::Idle => None,
                });
                if current == Some(n) {
                    self.end_phase(ctx, Ending::Settled);
                }
            }
        }
    }

    fn on_command(&mut self, ctx: &mut Context<'_, Self>, command: PaxosCommand) {
        let Some(p) = self.proposer.as_mut() else {
            return;
        };
        if let PaxosCommand::ProposeValue(value) = command {
            p.value = value.into();
        }
        self.start_round(ctx);
    }

    fn on_crash(&mut self) {
        if let Some(p) = self.proposer.as_mut() {
            p.phase = Phase::Idle;
        }
        if let Some(a) = self.acceptor.as_mut()
            && self.bugs.forget_promise_on_restart
        {
            a.promised = None;
        }
    }
}
