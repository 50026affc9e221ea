//! Untimed stepping: the kernel's half of exhaustive exploration.
//!
//! In an untimed run the clock stands still and the search, not the queue, picks the next
//! event: any message in flight may arrive next (or, within a budget, be lost or arrive
//! twice), any pending timer of a running node may fire, and the timeline's next step may
//! happen. Each pick is a [`Move`]; the handlers, the network's cuts and rules and the checkers
//! are the very ones a timed run uses. [`Sim::untimed_hash`] says which states are the same for
//! such a search: everything that decides the future, nothing that only records the past.

use super::{Delivery, Pending, Sim, Status};
use crate::actor::{Actor, Message};
use crate::hash::{BufferHasher, hash_multiset, stable_hash};
use crate::id::{MsgId, NodeId};
use crate::net::DropReason;
use crate::symmetry::Symmetry;
use crate::trace::{Event, Kinds};
use std::borrow::Cow;
use std::hash::{Hash, Hasher};

/// What [`Sim::is_ignored`] found, remembered for one search (one thread's share of it): a
/// direct-mapped table keyed by (receiver's hash and clock, message's content hash). Good for
/// one search only: the key leaves out the config's read-only facts that actors share (a bug
/// knob), which differ between searches, never within one.
pub struct IgnoredAnswers {
    table: Vec<(u64, u64, bool)>,
}

impl IgnoredAnswers {
    /// log2 of the answers kept (4,096 of 24 bytes).
    const BITS: u32 = 12;
}

impl Default for IgnoredAnswers {
    fn default() -> Self {
        IgnoredAnswers {
            table: vec![(0, 0, false); 1 << Self::BITS],
        }
    }
}

/// A buffer for a handler's effects that a search lends each state it steps
/// ([`Sim::take_with`]), instead of every state it keeps holding one.
pub struct EffectBuffer<A: Actor>(Vec<crate::actor::Effect<A>>);

impl<A: Actor> Default for EffectBuffer<A> {
    fn default() -> Self {
        EffectBuffer(Vec::new())
    }
}

/// A delivery as [`Sim::moves`] lists it: (content hash, sequence number, queue slot, copied).
type Listed = (u64, u64, u32, bool);
/// [`Sim::moves`]'s reused vectors: the deliveries and the timers (content hash, slot) listed.
type Scratch = (Vec<Listed>, Vec<(u64, u32)>);

/// What sort of thing a [`Move`] makes happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum MoveKind {
    /// Deliver a message in flight.
    Deliver,
    /// Deliver a copy of it and leave it in flight (a message is copied at most once, as the
    /// timed network does).
    Duplicate,
    /// Lose it.
    Lose,
    /// Fire a pending timer.
    Fire,
    /// Take the timeline's next step.
    Act,
}

impl MoveKind {
    /// Every kind, by its number (`kind as u8`).
    pub(crate) const ALL: [MoveKind; 5] = [
        MoveKind::Deliver,
        MoveKind::Duplicate,
        MoveKind::Lose,
        MoveKind::Fire,
        MoveKind::Act,
    ];
}

/// One thing that may happen next in an untimed run. A move names its event by content (the
/// message's sender, receiver and payload; the timer's node and tag), so it means the same in
/// every state with the same hash, however that state's queue is laid out (a delivery is of
/// the oldest such message); the queue slot it was listed at only makes a timer quick to find
/// again in the very state it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// What it does.
    pub kind: MoveKind,
    /// The event's content hash.
    pub key: u64,
    slot: u32,
}

impl Move {
    /// Its kind, content key and queue slot: what a search stores of a move.
    pub(crate) fn parts(self) -> (MoveKind, u64, u32) {
        (self.kind, self.key, self.slot)
    }

    /// The move of these parts (see [`Move::parts`]).
    pub(crate) fn from_parts(kind: MoveKind, key: u64, slot: u32) -> Move {
        Move { kind, key, slot }
    }

    /// A stand-in for "no move" (the start of a search's paths).
    pub const ROOT: Move = Move {
        kind: MoveKind::Act,
        key: u64::MAX,
        slot: u32::MAX,
    };

    /// The order of moves that does not depend on a queue's layout.
    pub fn rank(&self) -> (MoveKind, u64) {
        (self.kind, self.key)
    }

    /// The move as plain numbers (kind, key, slot), for a search that sends paths between
    /// processes or keeps them in files.
    pub fn code(self) -> MoveCode {
        (self.kind as u8, self.key, self.slot)
    }

    /// The move of a [`Move::code`]; `None` for a kind no move has. A move is meaningful only
    /// in the state it was listed for.
    pub fn from_code((kind, key, slot): MoveCode) -> Option<Move> {
        let kind = *MoveKind::ALL.get(usize::from(kind))?;
        Some(Move { kind, key, slot })
    }
}

/// A [`Move`] as plain numbers: its kind's number, its content key and its queue slot.
pub type MoveCode = (u8, u64, u32);

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

/// A message's content hash in an untimed run: what [`Move`]s name it by and the state's hash
/// holds of it (sender, receiver, payload, whether already copied).
pub(super) fn message_key<M: Hash>(from: NodeId, to: NodeId, msg: &M, copied: bool) -> u64 {
    stable_hash(&(from, to, msg, copied))
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
        self.untimed = true;
        self.queue.unordered();
        for node in &mut self.nodes {
            node.draws.fix();
            node.actor.share();
            node.facts.share();
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
                self.progress.steps += 1;
                self.start(node, false);
            }
        }
        self.refresh_hashes();
    }

    /// The moves possible now, into `out` (cleared first), in a fixed order: deliveries by
    /// content (two identical messages in flight are one move), then timers by node, then
    /// the timeline's next step. Losses and duplicates are listed only when `lose` or
    /// `duplicate` is set (the search keeps the budgets). Nothing is possible once the run
    /// stopped (a violation, a limit).
    pub fn moves(&self, lose: bool, duplicate: bool, out: &mut Vec<Move>) {
        out.clear();
        if self.progress.stopped.is_some() {
            return;
        }
        thread_local! {
            /// Reused between calls: a search lists the moves of every state it expands.
            static SCRATCH: std::cell::RefCell<Scratch> = Default::default();
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let (deliveries, timers) = &mut *scratch;
            deliveries.clear();
            timers.clear();
            self.list_moves(lose, duplicate, deliveries, timers, out);
        });
    }

    /// [`Sim::moves`], with its scratch vectors.
    fn list_moves(
        &self,
        lose: bool,
        duplicate: bool,
        deliveries: &mut Vec<Listed>,
        timers: &mut Vec<(u64, u32)>,
        out: &mut Vec<Move>,
    ) {
        let mut next_action: Option<(crate::time::Instant, u64, u32)> = None;
        for (slot, at, seq, event) in self.queue.entries() {
            match event {
                Pending::Deliver(Delivery { copied, key, .. }) => {
                    deliveries.push((*key, seq, slot, *copied));
                }
                Pending::Timer { node, generation } => {
                    let n = &self.nodes[node.index()];
                    if n.status == Status::Up
                        && let Some(t) = n.timers.iter().find(|t| t.generation == *generation)
                    {
                        timers.push((stable_hash(&(node, &t.timer)), slot));
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
            .filter(
                |(.., e)| matches!(e, Pending::Deliver(Delivery { from, to, .. }) if from == to),
            )
            .min_by_key(|(_, _, seq, _)| *seq)
            && let Pending::Deliver(Delivery { key, .. }) = own.3
        {
            out.push(Move {
                kind: MoveKind::Deliver,
                key: *key,
                slot: own.0,
            });
            return;
        }
        deliveries.sort_unstable();
        deliveries.dedup_by_key(|d| d.0);
        let at = |kind, key, slot| Move { kind, key, slot };
        for &(key, _, slot, copied) in deliveries.iter() {
            out.push(at(MoveKind::Deliver, key, slot));
            if duplicate && !copied {
                out.push(at(MoveKind::Duplicate, key, slot));
            }
            if lose {
                out.push(at(MoveKind::Lose, key, slot));
            }
        }
        timers.sort_unstable();
        out.extend(
            timers
                .iter()
                .map(|&(key, slot)| at(MoveKind::Fire, key, slot)),
        );
        out.extend(next_action.map(|a| at(MoveKind::Act, 0, a.2)));
    }

    /// [`Sim::take`] of a move [`Sim::moves`] listed for this very state (a search's copy of
    /// the state it listed moves for), with the handler's effect buffer lent by `buffer` and
    /// given back after: the states a search keeps then carry no buffer of their own, and the
    /// move's event is where it was listed.
    pub fn take_with(&mut self, mv: Move, buffer: &mut EffectBuffer<A>) -> Taken {
        std::mem::swap(&mut self.effects, &mut buffer.0);
        let slot = self.locate(mv, true);
        let taken = self.take_at(mv.kind, slot);
        std::mem::swap(&mut self.effects, &mut buffer.0);
        taken
    }

    /// Makes `mv` happen (one step, at the standing time); says what it did. Panics on a move
    /// that was not listed for this state.
    pub fn take(&mut self, mv: Move) -> Taken {
        let slot = self.find(mv);
        self.take_at(mv.kind, slot)
    }

    /// Makes the event in `slot` happen as `kind` says.
    fn take_at(&mut self, kind: MoveKind, slot: u32) -> Taken {
        let taken = self.take_one(kind, slot);
        self.drop_stale_timers();
        self.refresh_hashes();
        taken
    }

    /// The slot of `mv`'s event in this state: the oldest event with its content (for a timer,
    /// where it was listed, if that timer is still there). Panics if there is none.
    fn find(&self, mv: Move) -> u32 {
        self.locate(mv, false)
    }

    /// [`Sim::find`]; `listed_here` says `mv` was listed for this very state (or an exact copy
    /// of it), where its slot holds the oldest event with its content, so it is taken as it is.
    fn locate(&self, mv: Move, listed_here: bool) -> u32 {
        let key_at = |slot: u32| -> Option<u64> {
            match self.queue.get(slot)? {
                Pending::Deliver(Delivery { key, .. }) => matches!(
                    mv.kind,
                    MoveKind::Deliver | MoveKind::Duplicate | MoveKind::Lose
                )
                .then_some(*key),
                Pending::Timer { node, generation } => {
                    let n = &self.nodes[node.index()];
                    let t = n.timers.iter().find(|t| t.generation == *generation)?;
                    (mv.kind == MoveKind::Fire && n.status == Status::Up)
                        .then(|| stable_hash(&(node, &t.timer)))
                }
                Pending::Action(_) => (mv.kind == MoveKind::Act).then_some(0),
                Pending::Start(_) => None,
            }
        };
        // A timer's content names it alone (one per node and tag), so its slot can be
        // trusted; a delivery's names every identical message in flight, and a move means the
        // oldest of them (as `Sim::moves` lists it), whichever one's slot it was listed at: a
        // path replayed from the start reaches states laid out unlike those it was listed in.
        let trusted = mv.kind == MoveKind::Fire || (listed_here && mv.kind != MoveKind::Act);
        if trusted && key_at(mv.slot) == Some(mv.key) {
            return mv.slot;
        }
        if mv.kind == MoveKind::Act {
            // The timeline's next step: the earliest pending one.
            return self
                .queue
                .entries()
                .filter(|(.., e)| matches!(e, Pending::Action(_)))
                .min_by_key(|&(_, at, seq, _)| (at, seq))
                .map(|(slot, ..)| slot)
                .expect("a timeline step is pending");
        }
        // The oldest such event, as `Sim::moves` lists it.
        self.queue
            .entries()
            .filter(|&(slot, ..)| key_at(slot) == Some(mv.key))
            .min_by_key(|&(_, _, seq, _)| seq)
            .map(|(slot, ..)| slot)
            .unwrap_or_else(|| panic!("no event for {mv:?} in this state"))
    }

    /// Takes the message in `slot` out of the queue.
    fn take_message(&mut self, slot: u32) -> Delivery<A::Msg> {
        match self.queue.remove(slot) {
            Some((_, Pending::Deliver(delivery))) => delivery,
            _ => panic!("no message in slot {slot}"),
        }
    }

    fn take_one(&mut self, kind: MoveKind, slot: u32) -> Taken {
        match kind {
            MoveKind::Deliver => {
                let delivery = self.take_message(slot);
                let id = delivery.id;
                self.progress.steps += 1;
                self.deliver(delivery);
                Taken::Delivered { id, copy: false }
            }
            MoveKind::Duplicate => {
                let Some(Pending::Deliver(original)) = self.queue.get_mut(slot) else {
                    panic!("no message in slot {slot}");
                };
                original.copied = true;
                original.key = message_key(original.from, original.to, &original.msg, true);
                let copy = original.clone();
                let Delivery { id, from, to, .. } = copy;
                self.progress.stats.duplicated += 1;
                self.progress.steps += 1;
                if self.observing(Kinds::DUPLICATE) {
                    self.emit(Event::Duplicate {
                        id,
                        from: self.nodes[from.index()].name.clone(),
                        to: self.nodes[to.index()].name.clone(),
                        msg_kind: Cow::Borrowed(copy.msg.kind()),
                        delay: crate::time::Duration::ZERO,
                    });
                }
                self.progress.in_flight += 1; // The copy was in flight too, for one instant.
                self.deliver(copy);
                Taken::Delivered { id, copy: true }
            }
            MoveKind::Lose => {
                let Delivery {
                    id, from, to, msg, ..
                } = self.take_message(slot);
                self.progress.steps += 1;
                self.progress.in_flight -= 1;
                self.drop_message(id, from, to, msg.kind(), DropReason::Loss);
                Taken::Lost(id)
            }
            MoveKind::Fire => {
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
            MoveKind::Act => {
                let Some((_, Pending::Action(action))) = self.queue.remove(slot) else {
                    panic!("no timeline step in slot {slot}");
                };
                self.progress.steps += 1;
                self.act(*action);
                Taken::Acted
            }
        }
    }

    /// Takes again the hash of every actor a step may have changed.
    fn refresh_hashes(&mut self) {
        for node in &mut self.nodes {
            if node.dirty {
                node.hash = stable_hash(&node.actor);
                node.dirty = false;
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
    /// `h` is reused between calls.
    pub fn untimed_hash(&self, h: &mut BufferHasher) -> u64 {
        self.hash_state(None, h)
    }

    /// The state's hash up to a renaming of `symmetry`'s interchangeable nodes: the smallest of
    /// [`Sim::untimed_hash`] and that hash taken of each renamed copy of the state (see
    /// [`crate::symmetry`]). Two states that are renamings of each other hash alike.
    pub fn symmetric_hash(&self, symmetry: &Symmetry, h: &mut BufferHasher) -> u64 {
        let own = self.untimed_hash(h);
        symmetry.smallest(own, |renaming| self.hash_state(Some(renaming), h))
    }

    /// [`Sim::untimed_hash`] itself (`renaming` `None`: the hashes the kernel keeps of each
    /// actor and message are used), or that of the state with node `i` renamed `renaming[i]`
    /// (the renaming in force while this runs): node `j`'s part is then that of the node
    /// renamed `j`, and every kept hash is taken again, since the ids and names inside are
    /// renamed.
    fn hash_state(&self, renaming: Option<&[u32]>, h: &mut BufferHasher) -> u64 {
        h.clear();
        let h = &mut *h;
        for j in 0..self.nodes.len() {
            let node = match renaming {
                None => {
                    let node = &self.nodes[j];
                    debug_assert!(!node.dirty, "take() refreshes every changed actor's hash");
                    node.hash.hash(h);
                    node
                }
                Some(r) => {
                    let i = r.iter().position(|&r| r as usize == j).unwrap_or(j);
                    let node = &self.nodes[i];
                    stable_hash(&*node.actor).hash(h);
                    node
                }
            };
            self.hash_node_rest(node, h);
        }
        let messages = self.queue.pending().filter_map(|pending| match pending {
            Pending::Deliver(Delivery { key, .. }) if renaming.is_none() => Some(*key),
            Pending::Deliver(Delivery {
                from,
                to,
                msg,
                copied,
                ..
            }) => Some(message_key(*from, *to, msg, *copied)),
            _ => None,
        });
        hash_multiset(messages, h);
        let actions = self
            .queue
            .pending()
            .filter(|p| matches!(p, Pending::Action(_)))
            .count();
        self.hash_rest(actions as u64, h)
    }

    /// A node's part of the state's hash after its actor's: status, clock, timers.
    fn hash_node_rest(&self, node: &super::Node<A>, h: &mut BufferHasher) {
        node.status.hash(h);
        node.clock.hash(h);
        if self.role_restarts {
            node.crashed_claim.hash(h);
        }
        let timers = node
            .timers
            .iter()
            .map(|t| stable_hash(&(&t.timer, t.overdue)));
        hash_multiset(timers, h);
    }

    /// The end of the state's hash, after the messages in flight: the timeline steps left,
    /// the network, the invariants' memory.
    fn hash_rest(&self, actions: u64, h: &mut BufferHasher) -> u64 {
        actions.hash(h);
        self.network.hash(h);
        self.checker.memory(h);
        self.progress.stopped.is_some().hash(h);
        h.finish()
    }

    /// Every message in flight as (sender, receiver, content), in no particular order: what a
    /// `sometimes` property reads ("a `GetOk` with a value is on its way").
    pub fn messages_in_flight(&self) -> impl Iterator<Item = (NodeId, NodeId, &A::Msg)> {
        self.queue.pending().filter_map(|p| match p {
            Pending::Deliver(Delivery { from, to, msg, .. }) => Some((*from, *to, msg)),
            _ => None,
        })
    }

    /// Whether `mv` delivers a message its receiver would ignore: its handler would leave its
    /// state as it was (by hash) and ask for nothing (no send, no timer, no note). With
    /// stateright's semantics (`exhaustive::Options::ignored_wait`) such a delivery is no
    /// move at all: the message stays in flight, for a later state that may want it. The
    /// handler runs on a copy of the receiver; nothing here changes. Within one search the
    /// answer depends only on the receiver's state and clock and on the message, so `answers`
    /// remembers it: a search asks again and again about the same stuck messages at the same
    /// receivers. `mv` is one [`Sim::moves`] listed for this very state.
    pub fn is_ignored(&self, mv: Move, answers: &mut IgnoredAnswers) -> bool {
        if mv.kind != MoveKind::Deliver {
            return false;
        }
        let listed = self.locate(mv, true);
        let Some(Pending::Deliver(Delivery { from, to, msg, .. })) = self.queue.get(listed) else {
            return false;
        };
        let node = &self.nodes[to.index()];
        if node.status != Status::Up {
            return false;
        }
        debug_assert!(
            !node.dirty,
            "an untimed run's state: every actor hash is current"
        );
        let clock = node.clock;
        let receiver = node.hash
            ^ (clock.skew_ns as u64).rotate_left(21)
            ^ (clock.drift_ppm as u64).rotate_left(42);
        let index = ((receiver ^ mv.key.rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            >> (64 - IgnoredAnswers::BITS)) as usize;
        let (r, k, known) = answers.table[index];
        if r == receiver && k == mv.key {
            return known;
        }
        let mut actor = A::clone(&node.actor);
        let mut draws = node.draws.clone();
        let mut effects = Vec::new();
        let local = clock.local(self.progress.now);
        let mut ctx = crate::actor::Context::new(
            node.identity,
            self.progress.now,
            local,
            &mut draws,
            &mut effects,
        );
        actor.on_message(&mut ctx, self.nodes[from.index()].identity, msg.clone());
        let ignored = effects.is_empty() && stable_hash(&actor) == node.hash;
        answers.table[index] = (receiver, mv.key, ignored);
        ignored
    }

    /// The messages in flight, by id (ascending; a duplicated one once).
    pub fn in_flight_ids(&self) -> Vec<MsgId> {
        let mut ids: Vec<MsgId> = self
            .queue
            .pending()
            .filter_map(|p| match p {
                Pending::Deliver(Delivery { id, .. }) => Some(*id),
                _ => None,
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// The node where `mv` happens: a delivery's (or loss's) receiver, a timer's owner; `None`
    /// for a timeline step, which may touch any node.
    pub fn move_site(&self, mv: Move) -> Option<NodeId> {
        match self.queue.get(self.find(mv))? {
            Pending::Deliver(Delivery { to, .. }) => Some(*to),
            Pending::Timer { node, .. } => Some(*node),
            Pending::Action(_) | Pending::Start(_) => None,
        }
    }

    /// Whether `mv` delivers a message a node sent itself.
    pub fn is_own_delivery(&self, mv: Move) -> bool {
        mv.kind == MoveKind::Deliver
            && matches!(
                self.queue.get(self.find(mv)),
                Some(Pending::Deliver(Delivery { from, to, .. })) if from == to
            )
    }

    /// How many messages the run has sent: message ids up to this one exist.
    pub fn messages_sent(&self) -> u64 {
        self.progress.next_msg
    }

    /// How many timers `node` has armed, and how many random draws it has made.
    pub fn armed_and_drawn(&self, node: NodeId) -> (u64, u64) {
        let n = &self.nodes[node.index()];
        (n.armings.armed(), n.draws.taken())
    }
}
