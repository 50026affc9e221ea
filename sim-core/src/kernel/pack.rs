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

use super::{NetStats, Node, NodeFacts, Pending, PendingTimer, Sim, Status, StopReason};
use crate::actor::Actor;
use crate::check::{Checker, Violation};
use crate::net::Network;
use crate::oracle::Draws;
use crate::queue::PackedQueue;
use crate::time::Instant;
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

impl PackedDraws {
    /// The draws themselves.
    fn unpacked(&self) -> Draws {
        match self {
            PackedDraws::Fixed(taken) => {
                let mut draws = Draws::seeded(0, crate::rng::Stream::Network);
                draws.set_fixed(*taken);
                draws
            }
            PackedDraws::Other(draws) => Draws::clone(draws),
        }
    }
}

/// Everything else that differs between states of one search.
struct Rest<A: Actor> {
    queue: PackedQueue<Pending<A>>,
    network: Arc<Network>,
    checker: Checker<A>,
    now: Instant,
    steps: u64,
    steps_this_instant: u64,
    next_msg: u64,
    next_generation: u64,
    in_flight: usize,
    stats: NetStats,
    stopped: Option<StopReason>,
}

impl<A: Actor> Packed<A> {
    /// Why the run stopped, if it did (see [`Sim::stopped`]).
    pub fn stopped(&self) -> Option<StopReason> {
        self.rest.stopped
    }

    /// The violations found so far (see [`Sim::violations`]).
    pub fn violations(&self) -> &[Violation] {
        self.rest.checker.violations()
    }

    /// Its network, for the states reached from it to share (see [`Sim::pack_sharing`]).
    pub fn network(&self) -> &Arc<Network> {
        &self.rest.network
    }
}

impl<A: Actor> Sim<A> {
    /// This run's state, packed (see [`Packed`]).
    pub fn pack(&self) -> Packed<A> {
        self.pack_sharing(None)
    }

    /// This run's state, packed, its network shared with `network` if they are the same (the
    /// network of the state it was reached from: most moves leave the network alone).
    pub fn pack_sharing(&self, network: Option<&Arc<Network>>) -> Packed<A> {
        let nodes = self
            .nodes
            .iter()
            .map(|n| PackedNode {
                actor: Arc::clone(&n.actor),
                facts: Arc::clone(&n.facts),
                draws: match n.draws.fixed_taken() {
                    Some(taken) => PackedDraws::Fixed(taken),
                    None => PackedDraws::Other(Box::new(n.draws.clone())),
                },
                timers: n.timers.as_slice().into(),
                hash: n.hash,
                status: n.status,
                dirty: n.dirty,
            })
            .collect();
        Packed {
            nodes,
            rest: Box::new(Rest {
                queue: self.queue.pack(),
                network: match network {
                    Some(shared) if **shared == self.network => Arc::clone(shared),
                    _ => Arc::new(self.network.clone()),
                },
                checker: self.checker.clone(),
                now: self.now,
                steps: self.steps,
                steps_this_instant: self.steps_this_instant,
                next_msg: self.next_msg,
                next_generation: self.next_generation,
                in_flight: self.in_flight,
                stats: self.stats,
                stopped: self.stopped,
            }),
        }
    }

    /// Becomes the state `packed`, in this run's buffers. This run must be one of the same
    /// search as the packed one (a copy of its start or of any state of it): what a state does
    /// not pack (the seed, the limits, the twins, the trace mode) is taken from this run.
    pub fn unpack_from(&mut self, packed: &Packed<A>) {
        self.nodes.truncate(packed.nodes.len());
        for (i, p) in packed.nodes.iter().enumerate() {
            if i == self.nodes.len() {
                self.nodes.push(Node {
                    actor: Arc::clone(&p.actor),
                    facts: Arc::clone(&p.facts),
                    draws: p.draws.unpacked(),
                    status: p.status,
                    timers: Vec::new(),
                    hash: p.hash,
                    dirty: p.dirty,
                });
            }
            let node = &mut self.nodes[i];
            if !Arc::ptr_eq(&node.actor, &p.actor) {
                node.actor = Arc::clone(&p.actor);
            }
            if !Arc::ptr_eq(&node.facts, &p.facts) {
                node.facts = Arc::clone(&p.facts);
            }
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
        self.now = rest.now;
        self.steps = rest.steps;
        self.steps_this_instant = rest.steps_this_instant;
        self.next_msg = rest.next_msg;
        self.next_generation = rest.next_generation;
        self.in_flight = rest.in_flight;
        self.stats = rest.stats;
        self.stopped = rest.stopped;
    }
}
