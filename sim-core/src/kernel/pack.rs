//! A state of an untimed run as a breadth-first search keeps it between levels.
//!
//! A breadth-first level holds hundreds of thousands of states, and most of what a `Sim` holds
//! is the same in all of them (its limits, its seed, its empty trace and effect buffers) or is
//! room to grow (a node's draws stream, spare queue slots). [`Packed`] keeps only what differs
//! from state to state, at its exact size: per node its actor and facts (shared, as in the
//! run), its hash, status and timers, and its draws as a count when they are fixed; the
//! queue's slots; the network (shared with the state it was reached from when the move left it
//! alone, as it nearly always does), the invariants' memory and the counters. A search unpacks
//! a state into a spare run of the same search ([`Sim::unpack_from`]) when it expands it.
//!
//! Actors are shared between a state and the states reached from it until one changes them,
//! but two paths to the same node state make two copies of it, and a level holds many such
//! paths. An [`ActorCache`] remembers the actors packed lately by their hash, and a state's
//! actor equal to one of them (same hash, and the same state by [`Actor::same_state`], which
//! a protocol implements where its actors can say so) is packed as that one: the level then
//! holds each node state about once.

use super::{Node, NodeFacts, Pending, PendingTimer, Progress, Sim, Status, StopReason};
use crate::actor::Actor;
use crate::check::Checker;
use crate::net::Network;
use crate::oracle::Draws;
use crate::queue::PackedQueue;
use std::sync::Arc;

/// A run's state, packed (see the module's docs).
pub struct Packed<A: Actor> {
    nodes: Box<[PackedNode<A>]>,
    rest: Box<Rest<A>>,
}

/// A node as a packed state keeps it.
struct PackedNode<A: Actor> {
    actor: Arc<A>,
    facts: Arc<NodeFacts>,
    draws: PackedDraws,
    timers: Box<[PendingTimer<A::Timer>]>,
    hash: u64,
    status: Status,
    dirty: bool,
}

/// A node's draws: in an untimed run, fixed and unpinned, so only their count.
enum PackedDraws {
    Fixed(u64),
    Other(Box<Draws>),
}

/// Everything else that differs between states of one search.
struct Rest<A: Actor> {
    queue: PackedQueue<Pending<A>>,
    network: Arc<Network>,
    checker: Checker<A>,
    progress: Progress,
}

impl<A: Actor> Packed<A> {
    /// Why the run stopped, if it did (see [`Sim::stopped`]).
    pub fn stopped(&self) -> Option<StopReason> {
        self.rest.progress.stopped
    }

    /// Its network, for the states reached from it to share (see [`Sim::pack_sharing`]).
    pub fn network(&self) -> &Arc<Network> {
        &self.rest.network
    }
}

impl<A: Actor> Sim<A> {
    /// This run's state, packed (see [`Packed`]).
    pub fn pack(&self) -> Packed<A> {
        self.pack_sharing(None, None)
    }

    /// This run's state, packed, its network shared with `network` if they are the same (the
    /// network of the state it was reached from: most moves leave the network alone), and
    /// each actor that `actors` has seen packed as the one it has.
    ///
    /// It takes the run and each node apart whole, naming every field, so a field added to
    /// `Sim` or `Node` does not compile until it is packed (and unpacked, in
    /// [`Sim::unpack_from`]) or said to be the same in every state of a search.
    pub fn pack_sharing(
        &self,
        network: Option<&Arc<Network>>,
        mut actors: Option<&mut ActorCache<A>>,
    ) -> Packed<A> {
        let Sim {
            nodes,
            queue,
            network: own_network,
            checker,
            progress,
            // The same in every state of one search.
            seed: _,
            limits: _,
            stop_on_violation: _,
            trace: _,
            effects: _,
            twins: _,
            role_restarts: _,
            untimed: _,
        } = self;
        let nodes = nodes
            .iter()
            .map(|node| {
                let Node {
                    actor,
                    facts,
                    draws,
                    status,
                    timers,
                    hash,
                    dirty,
                } = node;
                PackedNode {
                    actor: match actors.as_deref_mut() {
                        Some(cache) if !dirty => cache.share(*hash, actor.shared()),
                        _ => Arc::clone(actor.shared()),
                    },
                    facts: Arc::clone(facts.shared()),
                    draws: match draws.fixed_taken() {
                        Some(taken) => PackedDraws::Fixed(taken),
                        None => PackedDraws::Other(Box::new(draws.clone())),
                    },
                    timers: timers.as_slice().into(),
                    hash: *hash,
                    status: *status,
                    dirty: *dirty,
                }
            })
            .collect();
        Packed {
            nodes,
            rest: Box::new(Rest {
                queue: queue.pack(),
                network: match network {
                    Some(shared) if **shared == *own_network => Arc::clone(shared),
                    _ => Arc::new(own_network.clone()),
                },
                checker: checker.clone(),
                progress: *progress,
            }),
        }
    }

    /// Becomes the state `packed`, in this run's buffers. This run must be one of the same
    /// search as the packed one (a copy of its start or of any state of it): what a state does
    /// not pack (the seed, the limits, the twins, the trace mode) is taken from this run.
    /// Panics if the two have different numbers of nodes.
    pub fn unpack_from(&mut self, packed: &Packed<A>) {
        // `pack_sharing` names every field of `Sim` and `Node`: one added there is added here.
        debug_assert!(
            self.untimed,
            "a packed state is an untimed run's (see `held`)"
        );
        assert_eq!(
            self.nodes.len(),
            packed.nodes.len(),
            "a state is unpacked into a run of its own search"
        );
        for (node, p) in self.nodes.iter_mut().zip(packed.nodes.iter()) {
            node.actor.set_shared(&p.actor);
            node.facts.set_shared(&p.facts);
            match &p.draws {
                PackedDraws::Fixed(taken) => node.draws.set_fixed(*taken),
                PackedDraws::Other(draws) => node.draws.clone_from(draws),
            }
            <[_]>::clone_into(&p.timers, &mut node.timers);
            node.hash = p.hash;
            node.status = p.status;
            node.dirty = p.dirty;
        }
        let rest = &*packed.rest;
        self.queue.unpack_from(&rest.queue);
        self.network.clone_from(&*rest.network);
        self.checker.clone_from(&rest.checker);
        self.progress = rest.progress;
    }
}

/// Actors packed lately, by their stable hash (see the module's docs): a direct-mapped table,
/// so looking one up costs one slot and the actors it keeps alive are bounded.
pub struct ActorCache<A: Actor> {
    slots: Vec<Option<(u64, Arc<A>)>>,
}

impl<A: Actor> Default for ActorCache<A> {
    /// An empty cache; its table is made at the first actor it is asked about.
    fn default() -> Self {
        ActorCache { slots: Vec::new() }
    }
}

impl<A: Actor> ActorCache<A> {
    /// log2 of the actors kept (16,384).
    const BITS: u32 = 14;

    /// The actor to pack for `actor`, whose stable hash is `hash`: one kept that is the same
    /// state, or else `actor` itself, kept from now on.
    fn share(&mut self, hash: u64, actor: &Arc<A>) -> Arc<A> {
        // An actor that cannot say it is the same state as itself keeps `same_state`'s
        // default: it never shares, so the cache is not even made.
        if !actor.same_state(actor) {
            return Arc::clone(actor);
        }
        if self.slots.is_empty() {
            self.slots = vec![None; 1 << Self::BITS];
        }
        let index = (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS)) as usize;
        match &self.slots[index] {
            Some((h, kept)) if *h == hash && kept.same_state(actor) => Arc::clone(kept),
            _ => {
                self.slots[index] = Some((hash, Arc::clone(actor)));
                Arc::clone(actor)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NodeId;
    use crate::kernel::{Delivery, Move, MoveKind, SimConfig};
    use crate::testing::Counter;

    /// Three counters, untimed, started (node 0's pings in flight), and their moves.
    fn three_counters() -> (Sim<Counter>, Vec<Move>) {
        let mut sim = Sim::new(SimConfig::seeded(0));
        for name in ["a", "b", "c"] {
            sim.add_node(name, Counter(0));
        }
        sim.go_untimed();
        let mut moves = Vec::new();
        sim.moves(false, false, &mut moves);
        (sim, moves)
    }

    /// The two orders of the two deliveries reach one state through separate copies of the
    /// receivers' actors; packed with one cache, the second state holds the first's.
    #[test]
    fn equal_actors_packed_with_one_cache_are_one() {
        let (start, moves) = three_counters();
        assert_eq!(moves.len(), 2);
        assert!(moves.iter().all(|m| m.kind == MoveKind::Deliver));
        let (mut one, mut other) = (start.clone(), start.clone());
        for (sim, order) in [(&mut one, [0, 1]), (&mut other, [1, 0])] {
            for i in order {
                sim.take(moves[i]);
            }
        }
        let mut h = crate::hash::BufferHasher::default();
        assert_eq!(one.untimed_hash(&mut h), other.untimed_hash(&mut h));
        let shared = |sim: &Sim<Counter>, i: usize| Arc::clone(sim.nodes[i].actor.shared());
        assert!(!Arc::ptr_eq(&shared(&one, 1), &shared(&other, 1)));
        assert!(
            Arc::ptr_eq(&shared(&one, 0), &shared(&other, 0)),
            "untouched: still shared"
        );
        let mut cache = ActorCache::default();
        let (a, b) = (
            one.pack_sharing(None, Some(&mut cache)),
            other.pack_sharing(None, Some(&mut cache)),
        );
        for (x, y) in a.nodes.iter().zip(b.nodes.iter()) {
            assert!(Arc::ptr_eq(&x.actor, &y.actor));
        }
        let mut unpacked = start.clone();
        unpacked.unpack_from(&b);
        assert_eq!(format!("{unpacked:?}"), format!("{other:?}"));
    }

    /// A delivery move means the oldest of the identical messages in flight, whichever one's
    /// slot it names: a path replayed in a state laid out otherwise delivers the same message.
    #[test]
    fn a_delivery_takes_the_oldest_identical_message() {
        let (sim, moves) = three_counters();
        let to_b = moves
            .iter()
            .find(|&&m| sim.move_site(m) == Some(NodeId(1)))
            .copied()
            .expect("a delivery to b");
        let (kind, key, _) = to_b.parts();
        // The two pings to b, oldest first.
        let mut pings: Vec<(u64, u32)> = sim
            .queue
            .entries()
            .filter(
                |(.., e)| matches!(e, Pending::Deliver(Delivery { to, .. }) if *to == NodeId(1)),
            )
            .map(|(slot, _, seq, _)| (seq, slot))
            .collect();
        pings.sort_unstable();
        assert_eq!(pings.len(), 2);
        let oldest = sim.clone().take(to_b);
        let younger_slot = Move::from_parts(kind, key, pings[1].1);
        assert_eq!(sim.clone().take(younger_slot), oldest);
    }
}
