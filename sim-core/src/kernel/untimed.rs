//! Untimed stepping: the kernel's half of exhaustive exploration.
//!
//! In an untimed run the clock stands still and the search, not the queue, picks the next
//! event: any message in flight may arrive next (or, within a budget, be lost or arrive
//! twice), any pending timer of a running node may fire, and the timeline's next step may
//! happen. Each pick is a [`Move`]; the handlers, the network's cuts and rules and the checkers
//! are the very ones a timed run uses. [`Sim::untimed_hash`] says which states are the same for
//! such a search: everything that decides the future, nothing that only records the past.

use super::{Pending, Sim, Status};
use crate::actor::{Actor, Message};
use crate::hash::{BufferHasher, stable_hash};
use crate::id::{MsgId, NodeId};
use crate::net::DropReason;
use crate::trace::{Event, Kinds};
use std::borrow::Cow;
use std::hash::{Hash, Hasher};

/// One thing that may happen next in an untimed run. Slots name pending events of this very
/// state: a move is meaningful only for the `Sim` it was listed for (or an exact clone).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Deliver the message in this queue slot.
    Deliver(u32),
    /// Deliver a copy of it and leave it in flight (a message is copied at most once, as the
    /// timed network does).
    Duplicate(u32),
    /// Lose it.
    Lose(u32),
    /// Fire the timer event in this slot.
    Fire(u32),
    /// Take the timeline's next step (in this slot).
    Act(u32),
}

/// What a move did, in terms that outlive the state: what a timed replay needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// Message `id` arrived (`copy`: a network duplicate of it).
    Delivered {
        /// The message.
        id: MsgId,
        /// Whether this was the copy.
        copy: bool,
    },
    /// Message `id` was lost.
    Lost(MsgId),
    /// The node's `arming`-th timer arming fired.
    Fired {
        /// The node.
        node: NodeId,
        /// Which of its armings (from 1).
        arming: u64,
    },
    /// The timeline's next step happened.
    Acted,
}

impl<A: Actor> Sim<A> {
    /// Makes this run untimed: every pending start happens now (in node order), every link
    /// delivers once (losses and copies become moves), and from now on every node's random
    /// draw answers the low end of its range (see
    /// [`crate::oracle::Draws::fix`]). Call it once, after adding the nodes and scheduling the
    /// timeline; then drive the run with [`Sim::moves`] and [`Sim::take`].
    pub fn go_untimed(&mut self) {
        // Healthy links: losses and copies are the search's moves, never chance.
        *self.network.oracle_mut() = crate::oracle::Oracle::scripted(&[]);
        for node in &mut self.nodes {
            node.draws.fix();
        }
        let mut starts: Vec<(u64, u32)> = self
            .queue
            .entries()
            .filter(|(.., e)| matches!(e, Pending::Start(_)))
            .map(|(slot, _, seq, _)| (seq, slot))
            .collect();
        starts.sort_unstable();
        for (_, slot) in starts {
            if let Some((_, Pending::Start(node))) = self.queue.remove(slot) {
                self.steps += 1;
                self.start(node, false);
            }
        }
    }

    /// The moves possible now, into `out` (cleared first), in a fixed order: deliveries by
    /// content (two identical messages in flight are one move), then timers by node, then
    /// the timeline's next step. Losses and duplicates are listed only when `lose` or
    /// `duplicate` is set (the search keeps the budgets). Nothing is possible once the run
    /// stopped (a violation, a limit).
    pub fn moves(&self, lose: bool, duplicate: bool, out: &mut Vec<Move>) {
        out.clear();
        if self.stopped.is_some() {
            return;
        }
        let mut deliveries: Vec<(u64, u64, u32, bool)> = Vec::new();
        let mut timers: Vec<(u32, u64, u32)> = Vec::new();
        let mut next_action: Option<(crate::time::Instant, u64, u32)> = None;
        for (slot, at, seq, event) in self.queue.entries() {
            match event {
                Pending::Deliver {
                    from,
                    to,
                    msg,
                    copied,
                    ..
                } => deliveries.push((stable_hash(&(from, to, msg, copied)), seq, slot, *copied)),
                Pending::Timer { node, generation } => {
                    let n = &self.nodes[node.index()];
                    if n.status == Status::Up
                        && n.timers.iter().any(|t| t.generation == *generation)
                    {
                        timers.push((node.0, *generation, slot));
                    }
                }
                Pending::Action(_) => {
                    if next_action.is_none_or(|best| (at, seq) < (best.0, best.1)) {
                        next_action = Some((at, seq, slot));
                    }
                }
                Pending::Start(_) => {}
            }
        }
        // A message a node sends itself arrives at once in a timed run (before anything else
        // can happen), so it is the only move while one is pending.
        if let Some(own) = self
            .queue
            .entries()
            .filter(|(.., e)| matches!(e, Pending::Deliver { from, to, .. } if from == to))
            .min_by_key(|(_, _, seq, _)| *seq)
        {
            out.push(Move::Deliver(own.0));
            return;
        }
        deliveries.sort_unstable();
        deliveries.dedup_by_key(|d| d.0);
        for &(_, _, slot, copied) in &deliveries {
            out.push(Move::Deliver(slot));
            if duplicate && !copied {
                out.push(Move::Duplicate(slot));
            }
            if lose {
                out.push(Move::Lose(slot));
            }
        }
        timers.sort_unstable();
        out.extend(timers.iter().map(|t| Move::Fire(t.2)));
        out.extend(next_action.map(|a| Move::Act(a.2)));
    }

    /// Makes `mv` happen (one step, at the standing time); says what it did. Panics on a move
    /// that was not listed for this state.
    pub fn take(&mut self, mv: Move) -> Taken {
        let taken = self.take_one(mv);
        self.drop_stale_timers();
        taken
    }

    fn take_one(&mut self, mv: Move) -> Taken {
        match mv {
            Move::Deliver(slot) => {
                let Some((
                    _,
                    Pending::Deliver {
                        id, from, to, msg, ..
                    },
                )) = self.queue.remove(slot)
                else {
                    panic!("no message in slot {slot}");
                };
                self.steps += 1;
                self.deliver(id, from, to, msg);
                Taken::Delivered { id, copy: false }
            }
            Move::Duplicate(slot) => {
                let Some(Pending::Deliver {
                    id,
                    from,
                    to,
                    msg,
                    copied,
                }) = self.queue.get_mut(slot)
                else {
                    panic!("no message in slot {slot}");
                };
                *copied = true;
                let (id, from, to, msg) = (*id, *from, *to, msg.clone());
                self.stats.duplicated += 1;
                if self.observing(Kinds::DUPLICATE) {
                    self.emit(Event::Duplicate {
                        id,
                        from: self.nodes[from.index()].name.clone(),
                        to: self.nodes[to.index()].name.clone(),
                        msg_kind: Cow::Borrowed(msg.kind()),
                        delay: crate::time::Duration::ZERO,
                    });
                }
                self.steps += 1;
                self.in_flight += 1; // The copy was in flight too, for one instant.
                self.deliver(id, from, to, msg);
                Taken::Delivered { id, copy: true }
            }
            Move::Lose(slot) => {
                let Some((
                    _,
                    Pending::Deliver {
                        id, from, to, msg, ..
                    },
                )) = self.queue.remove(slot)
                else {
                    panic!("no message in slot {slot}");
                };
                self.steps += 1;
                self.in_flight -= 1;
                self.stats.dropped += 1;
                if self.observing(Kinds::DROP) {
                    self.emit(Event::Drop {
                        id,
                        from: self.nodes[from.index()].name.clone(),
                        to: self.nodes[to.index()].name.clone(),
                        msg_kind: Cow::Borrowed(msg.kind()),
                        reason: DropReason::Loss,
                    });
                }
                Taken::Lost(id)
            }
            Move::Fire(slot) => {
                let Some((_, Pending::Timer { node, generation })) = self.queue.remove(slot) else {
                    panic!("no timer in slot {slot}");
                };
                let arming = self.nodes[node.index()]
                    .timers
                    .iter()
                    .find(|t| t.generation == generation)
                    .map_or(0, |t| t.arming);
                let fired = self.process_timer(node, generation);
                assert!(fired, "only live timers of running nodes are moves");
                Taken::Fired { node, arming }
            }
            Move::Act(slot) => {
                let Some((_, Pending::Action(action))) = self.queue.remove(slot) else {
                    panic!("no timeline step in slot {slot}");
                };
                self.steps += 1;
                self.act(*action);
                Taken::Acted
            }
        }
    }

    /// Takes out of the queue the timer events that were re-armed or cancelled since: a timed
    /// run skips them when they pop, but an untimed one pops nothing, and every copy of the
    /// state would carry them.
    fn drop_stale_timers(&mut self) {
        let stale: Vec<u32> = self
            .queue
            .entries()
            .filter(|(.., e)| match e {
                Pending::Timer { node, generation } => !self.nodes[node.index()]
                    .timers
                    .iter()
                    .any(|t| t.generation == *generation),
                _ => false,
            })
            .map(|(slot, ..)| slot)
            .collect();
        for slot in stale {
            self.queue.remove(slot);
        }
    }

    /// A stable hash of what decides an untimed run's future: every actor's state, status
    /// and clock, each node's pending timers (as a set), the multiset of messages in flight
    /// (sender, receiver, content, whether already copied), how many timeline steps remain,
    /// the network's cuts and rules, what the invariants remember, and whether the run
    /// stopped. Not in it: times, step and message counters, the random streams, statistics.
    /// `scratch` and `h` are reused between calls.
    pub fn untimed_hash(&self, scratch: &mut Vec<u64>, h: &mut BufferHasher) -> u64 {
        h.clear();
        let h = &mut *h;
        for node in &self.nodes {
            node.actor.hash(h);
            node.status.hash(h);
            node.clock.hash(h);
            scratch.clear();
            scratch.extend(
                node.timers
                    .iter()
                    .map(|t| stable_hash(&(&t.timer, t.overdue))),
            );
            scratch.sort_unstable();
            scratch.hash(h);
        }
        scratch.clear();
        let mut actions = 0u64;
        for pending in self.queue.pending() {
            match pending {
                Pending::Deliver {
                    from,
                    to,
                    msg,
                    copied,
                    ..
                } => scratch.push(stable_hash(&(from, to, msg, copied))),
                Pending::Action(_) => actions += 1,
                Pending::Start(_) | Pending::Timer { .. } => {}
            }
        }
        scratch.sort_unstable();
        scratch.hash(h);
        actions.hash(h);
        self.network.hash(h);
        self.checker.memory(h);
        self.stopped.is_some().hash(h);
        h.finish()
    }

    /// The messages in flight, by id (ascending; a duplicated one once).
    pub fn in_flight_ids(&self) -> Vec<MsgId> {
        let mut ids: Vec<MsgId> = self
            .queue
            .pending()
            .filter_map(|p| match p {
                Pending::Deliver { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The timers pending on running or paused nodes, as (node, which arming).
    pub fn pending_armings(&self) -> Vec<(NodeId, u64)> {
        self.node_ids()
            .flat_map(|id| {
                self.nodes[id.index()]
                    .timers
                    .iter()
                    .map(move |t| (id, t.arming))
            })
            .collect()
    }

    /// Whether `mv` delivers a message a node sent itself.
    pub fn is_own_delivery(&self, mv: Move) -> bool {
        match mv {
            Move::Deliver(slot) => matches!(
                self.queue.get(slot),
                Some(Pending::Deliver { from, to, .. }) if from == to
            ),
            _ => false,
        }
    }

    /// How many messages the run has sent: message ids up to this one exist.
    pub fn messages_sent(&self) -> u64 {
        self.next_msg
    }

    /// How many timers `node` has armed, and how many random draws it has made.
    pub fn armed_and_drawn(&self, node: NodeId) -> (u64, u64) {
        let n = &self.nodes[node.index()];
        (n.armings.armed(), n.draws.taken())
    }
}
