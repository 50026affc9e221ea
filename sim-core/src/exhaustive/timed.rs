//! From an untimed path to a timed run that replays it.
//!
//! The k-th move of the path happens at k times a spacing (a message a node sends itself
//! arrives in the same instant, as a timed run delivers it). Each message then gets the latency
//! that makes it arrive at its move, and each timer the duration that makes it fire at its
//! move; whatever is still in flight or pending when the path ends arrives or fires one
//! spacing after it. Lost messages are lost at their sending, and every draw a node made
//! answers the low end of its range, as in the search. Nothing else of the run is left to
//! chance, so a timed run of these choices takes the path's steps in the path's order.

use crate::actor::Actor;
use crate::id::{MsgId, NodeId};
use crate::kernel::{Move, Sim, Taken};
use crate::oracle::Choice;
use crate::time::{Duration, Instant};
use std::collections::BTreeMap;

/// A path made timed: the choices of a schedule, and when the timeline's steps happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedPath {
    /// The schedule: every message's fate, every timer's duration, every draw.
    pub choices: Vec<Choice>,
    /// When each timeline step the path took happens, in timeline order.
    pub act_times: Vec<Instant>,
    /// When the path's last move happens.
    pub end: Instant,
    /// The messages still in flight when the path ends (they arrive after it).
    pub late: Vec<MsgId>,
}

/// The timed form of `path` from `start` (the untimed state the search began from), moves
/// `spacing` apart.
pub fn timed<A: Actor>(start: &Sim<A>, path: &[Move], spacing: Duration) -> TimedPath {
    let mut sim = start.clone();
    let nodes: Vec<NodeId> = sim.node_ids().collect();
    // When each message was sent and each arming made (index: id - 1, arming - 1).
    let mut sent_at: Vec<Instant> = vec![Instant::ZERO; sim.messages_sent() as usize];
    let mut armed_at: Vec<Vec<Instant>> = nodes
        .iter()
        .map(|&n| vec![Instant::ZERO; sim.armed_and_drawn(n).0 as usize])
        .collect();
    let mut arrives: BTreeMap<MsgId, Instant> = BTreeMap::new();
    let mut copy_arrives: BTreeMap<MsgId, Instant> = BTreeMap::new();
    let mut lost: Vec<MsgId> = Vec::new();
    let mut fires: BTreeMap<(NodeId, u64), Instant> = BTreeMap::new();
    let mut act_times = Vec::new();
    let mut now = Instant::ZERO;
    for &mv in path {
        let own = sim.is_own_delivery(mv);
        if !own {
            now += spacing;
        }
        match sim.take(mv) {
            Taken::Delivered { id, copy: false } => {
                arrives.insert(id, now);
            }
            Taken::Delivered { id, copy: true } => {
                copy_arrives.insert(id, now);
            }
            Taken::Lost(id) => lost.push(id),
            Taken::Fired { node, arming } => {
                fires.insert((node, arming), now);
            }
            Taken::Acted => act_times.push(now),
        }
        sent_at.resize(sim.messages_sent() as usize, now);
        for (i, &n) in nodes.iter().enumerate() {
            armed_at[i].resize(sim.armed_and_drawn(n).0 as usize, now);
        }
    }
    let end = now;
    let after_end = end + spacing;
    let mut choices = Vec::new();
    let in_flight = sim.in_flight_ids();
    let in_flight_or_lost_copy = |id: MsgId| {
        in_flight.binary_search(&id).is_ok()
            || (copy_arrives.contains_key(&id) && lost.contains(&id))
    };
    for (i, &sent) in sent_at.iter().enumerate() {
        let id = MsgId(i as u64 + 1);
        // Still in flight (or copied, then lost): it arrives after the path.
        let arrival = arrives
            .get(&id)
            .copied()
            .or_else(|| in_flight_or_lost_copy(id).then_some(after_end));
        match arrival {
            Some(at) => choices.push(Choice::Latency(id, at.saturating_since(sent))),
            None if lost.contains(&id) => choices.push(Choice::Lose(id)),
            None => {} // Dropped when sent (a partition, a rule, an unknown node).
        }
        if let Some(at) = copy_arrives.get(&id) {
            choices.push(Choice::Copy(id, at.saturating_since(sent)));
        }
    }
    for (i, &node) in nodes.iter().enumerate() {
        for (a, &armed) in armed_at[i].iter().enumerate() {
            let arming = a as u64 + 1;
            // A timer the path did not fire (still pending, re-armed, cancelled, or wiped by a
            // crash) is made due after the path, so its natural duration cannot fire it early
            // in the timed run.
            let at = fires.get(&(node, arming)).copied().unwrap_or(after_end);
            choices.push(Choice::Timer(node, arming, at.saturating_since(armed)));
        }
        let drawn = sim.armed_and_drawn(node).1;
        choices.extend((1..=drawn).map(|n| Choice::Draw(node, n, 0)));
    }
    TimedPath {
        choices,
        act_times,
        end,
        late: in_flight,
    }
}
