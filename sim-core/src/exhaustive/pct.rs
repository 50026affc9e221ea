//! A PCT scheduler for message passing: one random walk of an untimed run, steered by chain
//! priorities.
//!
//! PCT (Burckhardt et al., ASPLOS 2010) gives threads random priorities, always runs the
//! highest, and at d - 1 random steps lowers the running thread's priority below every other:
//! any bug that needs d ordering constraints is hit with a probability it bounds. PCTCP (Ozkan
//! et al., "Randomized Testing of Distributed Systems with Probabilistic Guarantees", OOPSLA
//! 2018) carries it to message passing, where there are no threads: the events (deliveries,
//! here also timer firings and timeline steps) are split online into chains of the causal
//! order, and chains get the priorities. The paper proves a bug of depth d is hit with
//! probability at least 1 / (w² · k^(d-1)) for a run of width w (the most events no two of
//! which are causally ordered) and k events.
//!
//! This walk does that on the untimed kernel (any event in flight may come next, as in the
//! paper's asynchronous model):
//! - **Causality** by vector clocks, one entry per node and one for the timeline: an event
//!   happens after whatever its node did before and after the event that created it (the
//!   handler that sent the message or armed the timer). A timeline step is ordered after
//!   everything before it and before everything after it.
//! - **Chains** first fit, as the paper's online partitioning: a new event joins the first chain
//!   (in the order chains were made) whose last event is done and causally before it, else
//!   starts a chain with a random priority at or above d.
//! - **Scheduling**: the event of the highest-priority chain goes next; at each of the d - 1
//!   change points `k_1..k_{d-1}` (uniform in 1..=`steps`), the chain of the event taken gets
//!   priority i (below every initial one), as PCT lowers the running thread.
//!
//! Two identical messages in flight are one event (the kernel's multiset semantics). The walk
//! ends at a violation, when nothing is left to happen, or after `max_moves` moves.

use crate::Actor;
use crate::check::Violation;
use crate::kernel::{Move, MoveKind, Sim};
use crate::rng::{SimRng, Stream};
use std::collections::BTreeMap;

/// How a PCT walk is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PctOptions {
    /// The bug depth d aimed at: d - 1 priority change points.
    pub depth: u32,
    /// The run length the change points are spread over (PCT's k): about a walk's length.
    pub steps: u32,
    /// The most moves a walk takes (runs with timers may never end by themselves).
    pub max_moves: u32,
}

/// What one walk did.
#[derive(Clone, Debug, Default)]
pub struct PctWalk {
    /// The moves taken, from the start.
    pub path: Vec<Move>,
    /// The invariants broken where the walk stopped (empty: none).
    pub violations: Vec<Violation>,
    /// How many chains the walk made: at least the run's width, so w² <= chains².
    pub chains: usize,
}

/// A causal timestamp: one count per node, and the timeline's last.
type Clock = Vec<u32>;

/// `a` raised to at least `b`, entry by entry.
fn join(a: &mut Clock, b: &Clock) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

/// Whether `a` happened before (or is) `b`.
fn before(a: &Clock, b: &Clock) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}

struct Chain {
    priority: u64,
    /// Whether its last event happened (so a new event may follow it).
    done: bool,
    /// Its last event's timestamp.
    last: Clock,
}

struct PendingEvent {
    chain: usize,
    /// The timestamp of the event that created it.
    created: Clock,
}

/// A move's event, as the walk tells events apart: a message or timer by content, the
/// timeline's steps by their count.
fn event_of(mv: Move, acts_taken: u64) -> (MoveKind, u64) {
    match mv.kind {
        MoveKind::Act => (MoveKind::Act, acts_taken),
        kind => (kind, mv.key),
    }
}

/// One PCT walk from `start` (an untimed run: see [`Sim::go_untimed`]), its priorities and
/// change points drawn from `seed`.
pub fn pct_walk<A: Actor>(start: &Sim<A>, seed: u64, options: &PctOptions) -> PctWalk {
    let mut sim = start.clone();
    let mut rng = SimRng::new(seed, Stream::Scheduler);
    let depth = options.depth.max(1);
    let change_points: Vec<u32> = (0..depth - 1)
        .map(|_| rng.between(1, u64::from(options.steps.max(1))) as u32)
        .collect();
    let nodes = sim.node_count();
    let timeline = nodes;
    let mut node_clocks: Vec<Clock> = vec![vec![0; nodes + 1]; nodes];
    let mut last: Clock = vec![0; nodes + 1];
    let mut chains: Vec<Chain> = Vec::new();
    let mut pending: BTreeMap<(MoveKind, u64), PendingEvent> = BTreeMap::new();
    let mut acts_taken = 0u64;
    let mut moves = Vec::new();
    let mut walk = PctWalk::default();
    let mut present: Vec<(MoveKind, u64)> = Vec::new();
    for step in 1..=options.max_moves {
        sim.moves(false, false, &mut moves);
        if moves.is_empty() {
            break;
        }
        // Events that went (a cancelled timer, a message to a crashed node) leave; new ones,
        // all made by the last move, join a chain.
        present.clear();
        present.extend(moves.iter().map(|&mv| event_of(mv, acts_taken)));
        pending.retain(|e, _| present.contains(e));
        for &event in &present {
            if pending.contains_key(&event) {
                continue;
            }
            let chain = match chains.iter().position(|c| c.done && before(&c.last, &last)) {
                Some(i) => i,
                None => {
                    chains.push(Chain {
                        priority: rng.between(u64::from(depth), u64::MAX / 2),
                        done: true,
                        last: vec![0; nodes + 1],
                    });
                    chains.len() - 1
                }
            };
            chains[chain].done = false;
            pending.insert(
                event,
                PendingEvent {
                    chain,
                    created: last.clone(),
                },
            );
        }
        let Some(index) = (0..moves.len())
            .max_by_key(|&i| (chains[pending[&present[i]].chain].priority, usize::MAX - i))
        else {
            break;
        };
        let mv = moves[index];
        let event = pending
            .remove(&present[index])
            .expect("every move is pending");
        if let Some(i) = change_points.iter().position(|&k| k == step) {
            chains[event.chain].priority = i as u64 + 1;
        }
        let stamp = match sim.move_site(mv) {
            Some(node) => {
                let clock = &mut node_clocks[node.index()];
                join(clock, &event.created);
                clock[node.index()] += 1;
                clock.clone()
            }
            None => {
                let mut clock = last.clone();
                for c in &node_clocks {
                    join(&mut clock, c);
                }
                clock[timeline] += 1;
                for c in &mut node_clocks {
                    join(c, &clock);
                }
                clock
            }
        };
        if mv.kind == MoveKind::Act {
            acts_taken += 1;
        }
        sim.take(mv);
        walk.path.push(mv);
        let chain = &mut chains[event.chain];
        chain.done = true;
        chain.last = stamp.clone();
        last = stamp;
        if !sim.violations().is_empty() {
            walk.violations = sim.violations().to_vec();
            break;
        }
        if sim.stopped().is_some() {
            break;
        }
    }
    if walk.violations.is_empty() && sim.stopped().is_none() {
        sim.moves(false, false, &mut moves);
        if moves.is_empty() {
            // Nothing left to happen: the end-of-run checks too.
            walk.violations = sim.finish().violations;
        }
    }
    walk.chains = chains.len();
    walk
}

/// The probability PCTCP's theorem promises for a bug of depth `depth` in runs of at most
/// `events` events whose width is at most `width`: 1 / (width² · events^(depth-1)).
pub fn pct_bound(width: usize, events: usize, depth: u32) -> f64 {
    let w = width.max(1) as f64;
    let k = events.max(1) as f64;
    1.0 / (w * w * k.powi(depth.saturating_sub(1) as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_order_what_happened_before() {
        let a = vec![1, 0, 0];
        let b = vec![1, 2, 0];
        assert!(before(&a, &b) && !before(&b, &a));
        let mut c = vec![0, 0, 3];
        join(&mut c, &b);
        assert_eq!(c, vec![1, 2, 3]);
        assert!(!before(&c, &b) && before(&b, &c));
    }

    #[test]
    fn the_bound_is_the_papers_formula() {
        assert_eq!(pct_bound(2, 10, 1), 0.25);
        assert_eq!(pct_bound(2, 10, 3), 1.0 / (4.0 * 100.0));
    }
}
