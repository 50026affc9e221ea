//! A membership change on the coordinator: vet a `Join` or `Leave`, tell the nodes of both
//! maps, wait for every source's stream, switch the map, see every node clean up; then push
//! the map to the clients, late, until each acknowledges it.

use super::Coord;
use crate::ring_store::env::{Env, RingActor};
use crate::ring_store::map::{Change, Map};
use crate::ring_store::msg::{RingMsg, RingTimer};
use crate::ring_store::notes::RingNote;
use crate::ring_store::storage::Storage;
use crate::ring_store::stream::{Amount, StreamReport};
use sim_core::{Context, Duration, Instant, NodeId};
use std::collections::BTreeSet;

/// A move to `next`, from the `Rebalance` to the last `CleanupAck`.
#[derive(Clone, Debug, Hash)]
pub(super) struct Rebalancing {
    next: Map,
    started: Instant,
    /// Sources whose `StreamDone` is awaited.
    waiting: BTreeSet<NodeId>,
    /// The nodes of both maps.
    participants: Vec<NodeId>,
    /// What the sources sent.
    moved: Amount,
    /// The data set as the sources report it: what each was the first home of.
    owned: Amount,
    /// The copies the change required, as the first old homes report them.
    required: Amount,
    /// The fair share is RF/`share` of the data set.
    share: u64,
    /// Once the streams are done: the nodes that have not acknowledged `Cleanup`.
    cleaning: Option<BTreeSet<NodeId>>,
}

impl Rebalancing {
    /// The map being moved to, while the streams run.
    pub(super) fn streaming_to(&self) -> Option<&Map> {
        self.cleaning.is_none().then_some(&self.next)
    }

    /// Counts `from`'s report; false if it was not awaited (another epoch, a repeat, or the
    /// streams are over).
    fn count(&mut self, from: NodeId, report: &StreamReport) -> bool {
        if self.next.epoch() != report.epoch || self.cleaning.is_some() {
            return false;
        }
        if !self.waiting.remove(&from) {
            return false;
        }
        self.moved += report.sent;
        self.owned += report.owned;
        self.required += report.required;
        true
    }

    /// The note of a finished move: copies sent, required and an even share, and its duration.
    fn done_note(&self, rf: u64, now: Instant) -> RingNote {
        RingNote::RebalanceDone {
            epoch: self.next.epoch(),
            moved_keys: self.moved.keys,
            moved_bytes: self.moved.bytes,
            required_keys: self.required.keys,
            required_bytes: self.required.bytes,
            share_keys: self.owned.keys * rf / self.share,
            share_bytes: self.owned.bytes * rf / self.share,
            took_ms: now.saturating_since(self.started).as_millis(),
        }
    }
}

impl Coord {
    /// A scenario's `Join` (`join`) or `Leave` of node `name`: refused with a note if it cannot
    /// be, else the move to the next epoch begins.
    pub(super) fn change<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        name: &str,
        join: bool,
    ) {
        let what = if join { "join" } else { "leave" };
        let change = match self.vet(env, storage.map(), name, join) {
            Ok(change) => change,
            Err(reason) => {
                ctx.note(RingNote::Refused {
                    command: format!("{what} {name}"),
                    reason,
                });
                return;
            }
        };
        let map = storage.map();
        let next = map.after(change);
        ctx.note(RingNote::OwnershipChanged {
            epoch: next.epoch(),
            change: format!("{what} {name}"),
            node: name.to_string(),
            members: env.names_of(&next.members()),
        });
        // The even share: the new node's fair share of the copies (a join), or the leaver's.
        let share = if join {
            next.members().len()
        } else {
            map.members().len()
        } as u64;
        self.begin(ctx, env, storage, next, share);
    }

    /// The change a `Join`/`Leave` of `name` makes to `map`, or why it cannot be made.
    fn vet(&self, env: &Env, map: &Map, name: &str, join: bool) -> Result<Change, String> {
        let Some(pos) = env.names.iter().position(|n| n == name) else {
            return Err("no such node".into());
        };
        let id = NodeId(pos as u32);
        if id == env.coordinator() {
            return Err("the coordinator stores nothing".into());
        }
        if self.rebalance.is_some() {
            return Err("a rebalance is in progress; one change at a time".into());
        }
        if join == map.is_member(id) {
            let why = if join {
                "already on the ring"
            } else {
                "not on the ring"
            };
            return Err(why.into());
        }
        if !join && map.members().len() <= env.cfg.rf as usize {
            return Err(format!(
                "the ring would have fewer than RF = {} nodes",
                env.cfg.rf
            ));
        }
        Ok(if join {
            Change::Join(id)
        } else {
            Change::Leave(id)
        })
    }

    /// Starts moving to `next`: tells the nodes of both maps, sends writes in flight to their
    /// new homes too, and waits for every source; the move is reported against RF/`share` of
    /// the data (one node's even share).
    pub fn begin<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        next: Map,
        share: u64,
    ) {
        let mut participants = storage.map().members();
        participants.extend(next.members());
        participants.sort();
        participants.dedup();
        let (epoch, change) = (next.epoch(), next.last_change());
        for &to in &participants {
            ctx.send(to, RingMsg::Rebalance { epoch, change });
        }
        ctx.set_timer(RingTimer::RebalanceRetry, env.timeouts(4));
        self.rebalance = Some(Rebalancing {
            next: next.clone(),
            started: ctx.now(),
            waiting: participants.iter().copied().collect(),
            participants,
            moved: Amount::default(),
            owned: Amount::default(),
            required: Amount::default(),
            share,
            cleaning: None,
        });
        self.extend_writes(ctx, env, storage, &next);
    }

    /// Asks the nodes that have not finished the move (or its cleanup) again.
    pub fn on_rebalance_retry<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env) {
        let Some(r) = self.rebalance.as_ref() else {
            return;
        };
        let epoch = r.next.epoch();
        let change = r.next.last_change();
        if let Some(cleaning) = &r.cleaning {
            for &to in cleaning {
                ctx.send(to, RingMsg::Cleanup { epoch });
            }
        } else {
            for &to in &r.waiting {
                ctx.send(to, RingMsg::Rebalance { epoch, change });
            }
        }
        ctx.set_timer(RingTimer::RebalanceRetry, env.timeouts(4));
    }

    /// Source `from` finished its stream. When the last has, the move is reported, the map
    /// switches (reads use the new one) and the nodes are told to clean up.
    pub(super) fn on_stream_done<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &mut Storage,
        from: NodeId,
        report: StreamReport,
    ) {
        let Some(r) = self.rebalance.as_mut() else {
            return;
        };
        if !r.count(from, &report) || !r.waiting.is_empty() {
            return;
        }
        let (epoch, now) = (report.epoch, ctx.now());
        ctx.note(r.done_note(u64::from(env.cfg.rf), now));
        // Every new home holds every version the old homes held: reads switch, and the nodes
        // may drop what they no longer home. The rebalance lasts until all of them say so.
        for &to in &r.participants {
            ctx.send(to, RingMsg::Cleanup { epoch });
        }
        r.cleaning = Some(r.participants.iter().copied().collect());
        storage.adopt(r.next.clone());
        self.map_acks.clear();
        if !env.cfg.clients.is_empty() {
            ctx.set_timer(
                RingTimer::MapPush,
                Duration::from_millis(env.cfg.map_delay_ms),
            );
        }
    }

    /// A node cleaned up after `epoch`; when all have, the next change may start.
    pub(super) fn on_cleanup_ack<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        from: NodeId,
        epoch: u64,
    ) {
        let Some(r) = self.rebalance.as_mut() else {
            return;
        };
        let Some(cleaning) = r.cleaning.as_mut() else {
            return;
        };
        if r.next.epoch() != epoch || !cleaning.remove(&from) || !cleaning.is_empty() {
            return;
        }
        self.rebalance = None;
        ctx.cancel_timer(RingTimer::RebalanceRetry);
        self.maybe_split(ctx, env, storage);
    }

    /// `map_delay_ms` after a rebalance: the clients get the map in force, and again every
    /// four timeouts until each has acknowledged it.
    pub fn on_map_push<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env, map: &Map) {
        let log = map.log().to_vec();
        let mut pending = false;
        for i in env.cfg.coordinator_index() + 1..env.names.len() {
            let to = NodeId(i as u32);
            if self.map_acks.contains(&to) {
                continue;
            }
            pending = true;
            ctx.send(to, RingMsg::MapUpdate { log: log.clone() });
        }
        if pending {
            ctx.set_timer(RingTimer::MapPush, env.timeouts(4));
        }
    }

    /// Client `from` holds the map of `epoch`; it counts if that is the map in force (`map`).
    pub(super) fn on_map_ack(&mut self, map: &Map, from: NodeId, epoch: u64) {
        if epoch == map.epoch() {
            self.map_acks.insert(from);
        }
    }
}
