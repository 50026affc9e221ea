//! The storage role (the lesson's `Nodo`, listing 9.16): a durable store, hints kept as a
//! stand-in, and the source and destination sides of a rebalancing stream.
//!
//! Storage is deliberately dumb: it keeps the newest version it is given ("gana la más
//! nueva"), answers reads, hands hints to their home replicas until they acknowledge, and,
//! during a rebalance, streams every key it homed to the new homes that did not, at the
//! configured bandwidth (see `stream`). Two fences keep ownership single: a replica refuses a
//! `Store` from a writer at an earlier era than its node's (see `Coord::era`), and it never
//! acknowledges a version it holds with a different value. A node that no longer homes a key
//! answers a read of it "moved". Everything here is durable: a crash loses nothing.
//!
//! The storage also holds the node's partition map: a storage node's is the newest it was told
//! of (with the old one while it moves), the coordinator's is the map in force, the one reads
//! use.

use crate::ring_store::config::RingConfig;
use crate::ring_store::env::{Env, RingActor};
use crate::ring_store::map::{Change, Map};
use crate::ring_store::msg::{Entry, RingMsg, RingTimer, Versioned};
use crate::ring_store::notes::{RingNote, Via};
use crate::ring_store::stream::{Outgoing, StreamReport};
use sim_core::{Context, Duration, NodeId};
use std::collections::BTreeMap;

/// A storage node's durable state: its map(s), its store, its hints and its stream.
#[derive(Clone, Debug, Hash)]
pub struct Storage {
    /// This node's partition map (a storage node's: the newest it was told of; the
    /// coordinator's: the map reads use).
    map: Map,
    /// The map before the last change this node was told of.
    old: Option<Map>,
    /// Between a `Rebalance` and its `Cleanup`: the old map still serves.
    moving: bool,
    /// Key -> newest version kept.
    store: BTreeMap<String, Versioned>,
    /// Hints kept as a stand-in, by home replica and key.
    hints: BTreeMap<HintSlot, Versioned>,
    /// The stream this node owes for the epoch being rebalanced to.
    outgoing: Option<Outgoing>,
    /// The last stream finished, to answer a repeated `Rebalance`.
    streamed: StreamReport,
}

/// Where a stand-in keeps a hint: for which home replica, under which key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct HintSlot {
    home: NodeId,
    key: String,
}

/// A `Store` as a replica handles it.
struct Write {
    /// The writer's request number, echoed in the ack.
    req: u64,
    /// The key.
    key: String,
    /// Version and value.
    data: Versioned,
    /// The home replica a stand-in keeps it for, if any.
    hint_for: Option<NodeId>,
    /// Read repair: kept, never acknowledged.
    repair: bool,
    /// The writer's era (a replica at a later era refuses the write).
    era: u64,
}

impl Storage {
    /// An empty store on the `initial` map.
    pub fn new(initial: &Map) -> Storage {
        Storage {
            map: initial.clone(),
            old: None,
            moving: false,
            store: BTreeMap::new(),
            hints: BTreeMap::new(),
            outgoing: None,
            streamed: StreamReport::default(),
        }
    }

    /// This node's map (see the field).
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// The map before the last change, once there was one.
    pub fn old(&self) -> Option<&Map> {
        self.old.as_ref()
    }

    /// Whether the old map still serves (between `Rebalance` and `Cleanup`).
    pub fn moving(&self) -> bool {
        self.moving
    }

    /// The map this storage node serves clients by: the old one during a rebalance.
    pub fn serving_map(&self) -> &Map {
        match (&self.old, self.moving) {
            (Some(old), true) => old,
            _ => &self.map,
        }
    }

    /// What this node stores for `key` as a home replica.
    pub fn stored(&self, key: &str) -> Option<&Versioned> {
        self.store.get(key)
    }

    /// The version this node stores for `key` (0: none).
    pub fn version_of(&self, key: &str) -> u64 {
        self.store.get(key).map_or(0, |d| d.version)
    }

    /// How many hints this node keeps for other nodes.
    pub fn hint_count(&self) -> usize {
        self.hints.len()
    }

    /// The storage's era: twice its map's epoch, one less while it moves to that epoch (see
    /// `Coord::era`, which also counts the coordinator's move).
    pub fn era(&self) -> u64 {
        (self.map.epoch() * 2).saturating_sub(u64::from(self.moving))
    }

    /// The coordinator's map moves on to `map` once every stream of the move is done (it
    /// stores nothing; its storage holds only the map reads use).
    pub fn adopt(&mut self, map: Map) {
        self.map = map;
    }

    /// Whether this node homes `key` now: in its map, or in the old one while moving.
    fn homes_now(&self, me: NodeId, key: &str) -> bool {
        self.map.homes(key).contains(&me)
            || (self.moving
                && self
                    .old
                    .as_ref()
                    .is_some_and(|m| m.homes(key).contains(&me)))
    }

    /// After a restart: hints to hand over again, and the stream where it stopped.
    pub fn on_start<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env) {
        if !self.hints.is_empty() && !env.cfg.bugs.never_deliver_hints {
            ctx.set_timer(RingTimer::HintRetry, hint_retry(env));
        }
        if let Some(out) = &self.outgoing {
            for seq in out.unacked() {
                ctx.set_timer(RingTimer::Resend(seq), env.timeout());
            }
            self.pace_next(ctx, env);
        }
    }

    // ----- replica ---------------------------------------------------------------------------

    /// Replica traffic from `from`, this node being at `node_era` (see `Coord::era`): writes,
    /// reads, handoffs, a stream's chunks and acks, and the cleanup after a move.
    pub fn on_message<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        node_era: u64,
        from: NodeId,
        msg: RingMsg,
    ) {
        match msg {
            RingMsg::Store {
                req,
                key,
                data,
                hint_for,
                repair,
                era,
            } => {
                let write = Write {
                    req,
                    key,
                    data,
                    hint_for,
                    repair,
                    era,
                };
                self.on_store(ctx, env, from, node_era, write);
            }
            RingMsg::Read { req, key } => self.on_read(ctx, env, from, req, key),
            RingMsg::Handoff { key, data } => self.on_handoff(ctx, env, from, key, data),
            RingMsg::HandoffAck { key, version } => {
                self.on_handoff_ack(ctx, env, from, key, version);
            }
            RingMsg::Transfer {
                epoch,
                seq,
                entries,
            } => self.on_transfer(ctx, env, from, epoch, seq, entries),
            RingMsg::TransferAck { epoch, seq } => self.on_transfer_ack(ctx, env, epoch, seq),
            RingMsg::Cleanup { epoch } => self.on_cleanup(ctx, env, from, epoch),
            // Not replica traffic: the node routes it to the quorum machine or drops it.
            _ => {}
        }
    }

    /// Keeps `data` for `key` if newer than what is there; notes it. True if kept.
    fn keep<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        key: &str,
        data: &Versioned,
        via: Via,
    ) -> bool {
        if self
            .store
            .get(key)
            .is_some_and(|d| d.version >= data.version)
        {
            return false;
        }
        let replaced = self.store.insert(key.to_string(), data.clone());
        assert!(
            replaced.is_none_or(|old| old.version < data.version),
            "a replica only ever keeps a newer version"
        );
        ctx.note(RingNote::Stored {
            key: key.to_string(),
            version: data.version,
            node: env.name().to_string(),
            hinted: false,
            via,
        });
        true
    }

    /// A writer's `Store`, this node being at `node_era`: kept (as a hint for `hint_for`, if
    /// any) unless fenced, and acknowledged unless it is read repair.
    fn on_store<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        from: NodeId,
        node_era: u64,
        write: Write,
    ) {
        if write.era < node_era {
            // Fenced: the writer has not learned of a map change this node has.
            return;
        }
        let held = match write.hint_for {
            Some(home) => self.hints.get(&HintSlot {
                home,
                key: write.key.clone(),
            }),
            None => self.store.get(&write.key),
        };
        let data = &write.data;
        if held.is_some_and(|d| d.version == data.version && d.value != data.value) {
            // Two values under one version: keep the first, and do not confirm the second.
            return;
        }
        let hinted = write.hint_for.is_some();
        let (req, repair) = (write.req, write.repair);
        if let Some(home) = write.hint_for {
            self.keep_hint(ctx, env, home, write.key, write.data);
        } else {
            let via = if repair { Via::Repair } else { Via::Write };
            self.keep(ctx, env, &write.key, &write.data, via);
        }
        if !repair {
            ctx.send(from, RingMsg::StoreAck { req, hinted });
        }
    }

    /// Keeps a write for `home` as a hint if newer than the hint held, and (re)arms the retry.
    fn keep_hint<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        home: NodeId,
        key: String,
        data: Versioned,
    ) {
        let slot = HintSlot {
            home,
            key: key.clone(),
        };
        if self
            .hints
            .get(&slot)
            .is_none_or(|d| d.version < data.version)
        {
            ctx.note(RingNote::Stored {
                key,
                version: data.version,
                node: env.name().to_string(),
                hinted: true,
                via: Via::Handoff,
            });
            self.hints.insert(slot, data);
        }
        if !env.cfg.bugs.never_deliver_hints {
            ctx.set_timer(RingTimer::HintRetry, hint_retry(env));
        }
    }

    /// A reader asks for `key`: what this node holds, or "moved" if it no longer homes it.
    fn on_read<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        from: NodeId,
        req: u64,
        key: String,
    ) {
        let moved = !self.homes_now(env.id, &key);
        let data = (!moved).then(|| self.store.get(&key).cloned()).flatten();
        ctx.send(from, RingMsg::ReadReply { req, data, moved });
    }

    // ----- hinted handoff --------------------------------------------------------------------

    /// Hands every hint to its home replica (again), until each acknowledges.
    pub fn retry_hints<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env) {
        if self.hints.is_empty() || env.cfg.bugs.never_deliver_hints {
            return;
        }
        for (slot, data) in &self.hints {
            let msg = RingMsg::Handoff {
                key: slot.key.clone(),
                data: data.clone(),
            };
            ctx.send(slot.home, msg);
        }
        ctx.set_timer(RingTimer::HintRetry, hint_retry(env));
    }

    /// A stand-in hands over the write this home missed: kept if newer, and acknowledged with
    /// the version now held.
    fn on_handoff<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        from: NodeId,
        key: String,
        data: Versioned,
    ) {
        self.keep(ctx, env, &key, &data, Via::Handoff);
        let version = self.version_of(&key);
        ctx.send(from, RingMsg::HandoffAck { key, version });
    }

    /// `home` holds `version` of `key` or newer: the hint for it is delivered.
    fn on_handoff_ack<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        home: NodeId,
        key: String,
        version: u64,
    ) {
        let slot = HintSlot { home, key };
        if self.hints.get(&slot).is_some_and(|d| d.version <= version) {
            let data = self.hints.remove(&slot).expect("checked");
            ctx.note(RingNote::HintDelivered {
                key: slot.key,
                version: data.version,
                home: env.name_of(home),
                standin: env.name().to_string(),
            });
        }
    }

    // ----- rebalancing, source side ----------------------------------------------------------

    /// The coordinator says the map moves to `epoch` by `change`. A repeat of the last move
    /// streamed is answered with its report again; the next epoch moves this node's map (true:
    /// the caller then extends the writes in flight and starts the stream); any other is
    /// ignored.
    pub fn move_to<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        epoch: u64,
        change: Change,
    ) -> bool {
        if epoch == self.streamed.epoch && epoch > 0 {
            ctx.send(env.coordinator(), self.streamed.message());
            return false;
        }
        if epoch != self.map.epoch() + 1 {
            return false;
        }
        let old = self.map.clone();
        self.map.apply(change);
        self.old = Some(old);
        self.moving = true;
        true
    }

    /// Starts the stream this node owes for the move it just began (see [`Outgoing::plan`]).
    pub fn start_stream<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env) {
        let old = self.old.as_ref().expect("moving");
        let out = Outgoing::plan(
            &self.store,
            (old, &self.map),
            env.id,
            env.cfg.chunk_bytes,
            ctx.now(),
        );
        self.outgoing = Some(out);
        self.pace_next(ctx, env);
    }

    /// The entries of a chunk's keys as the store holds them now.
    fn entries(&self, keys: &[String]) -> Vec<Entry> {
        keys.iter()
            .filter_map(|k| {
                self.store.get(k).map(|d| Entry {
                    key: k.clone(),
                    data: d.clone(),
                })
            })
            .collect()
    }

    /// Arms the pacing timer for the next chunk (its bytes' time on the wire), or finishes.
    fn pace_next<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env) {
        let Some(out) = &self.outgoing else { return };
        if let Some(chunk) = out.upcoming() {
            let bytes: u64 = self.entries(&chunk.keys).iter().map(Entry::bytes).sum();
            ctx.set_timer(RingTimer::Pace, wire_time(&env.cfg, bytes));
        } else if out.finished() {
            self.finish_stream(ctx, env);
        }
    }

    /// Sends chunk `seq` (`first`: for the first time, so it counts as sent) and arms its
    /// resend.
    fn send_chunk<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        seq: u64,
        first: bool,
    ) {
        let Some(out) = &self.outgoing else { return };
        let Some(chunk) = out.chunk(seq).cloned() else {
            return;
        };
        let epoch = out.epoch();
        let entries = self.entries(&chunk.keys);
        if first {
            let out = self.outgoing.as_mut().expect("checked");
            out.count_sent(&entries);
        }
        if first && env.cfg.bugs.delete_before_ack {
            for e in &entries {
                if !self.map.homes(&e.key).contains(&env.id) {
                    self.drop_key(ctx, env, &e.key);
                }
            }
        }
        let msg = RingMsg::Transfer {
            epoch,
            seq,
            entries,
        };
        ctx.send(chunk.dest, msg);
        ctx.set_timer(RingTimer::Resend(seq), env.timeouts(2));
    }

    /// The current chunk has taken its time on the wire: send it, and pace the next.
    pub fn on_pace<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env) {
        let Some(seq) = self.outgoing.as_mut().and_then(Outgoing::start_next) else {
            return;
        };
        self.send_chunk(ctx, env, seq, true);
        self.pace_next(ctx, env);
    }

    /// Chunk `seq` was not acknowledged in time: send it again if it still awaits its ack.
    pub fn on_resend<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env, seq: u64) {
        let pending = self.outgoing.as_ref().is_some_and(|o| o.is_unacked(seq));
        if pending {
            self.send_chunk(ctx, env, seq, false);
        }
    }

    /// A destination kept chunk `seq` of `epoch`; the last ack finishes the stream.
    fn on_transfer_ack<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        epoch: u64,
        seq: u64,
    ) {
        let Some(out) = self.outgoing.as_mut() else {
            return;
        };
        if !out.ack(epoch, seq) {
            return;
        }
        ctx.cancel_timer(RingTimer::Resend(seq));
        if out.finished() {
            self.finish_stream(ctx, env);
        }
    }

    /// Every chunk was acknowledged: note the stream and report it to the coordinator.
    fn finish_stream<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env) {
        let Some(out) = self.outgoing.take() else {
            return;
        };
        let report = out.report();
        if report.sent.keys > 0 {
            ctx.note(RingNote::Streamed {
                epoch: report.epoch,
                keys: report.sent.keys,
                bytes: report.sent.bytes,
                took_ms: ctx.now().saturating_since(out.started()).as_millis(),
            });
        }
        self.streamed = report;
        ctx.send(env.coordinator(), report.message());
    }

    fn drop_key<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env, key: &str) {
        if let Some(data) = self.store.remove(key) {
            ctx.note(RingNote::Deleted {
                key: key.to_string(),
                version: data.version,
                node: env.name().to_string(),
            });
        }
    }

    /// The move to `epoch` is over: drop what this node no longer homes, and say so (the
    /// coordinator resends `Cleanup` until every node of both maps has).
    fn on_cleanup<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        from: NodeId,
        epoch: u64,
    ) {
        if epoch > self.map.epoch() {
            return;
        }
        ctx.send(from, RingMsg::CleanupAck { epoch });
        if epoch != self.map.epoch() || !self.moving {
            return;
        }
        self.moving = false;
        let gone: Vec<String> = self
            .store
            .keys()
            .filter(|k| !self.map.homes(k).contains(&env.id))
            .cloned()
            .collect();
        for key in gone {
            self.drop_key(ctx, env, &key);
        }
    }

    // ----- rebalancing, destination side -----------------------------------------------------

    /// A source's chunk: keep the newest of each entry, and acknowledge it.
    fn on_transfer<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        from: NodeId,
        epoch: u64,
        seq: u64,
        entries: Vec<Entry>,
    ) {
        for e in entries {
            self.keep(ctx, env, &e.key, &e.data, Via::Stream);
        }
        ctx.send(from, RingMsg::TransferAck { epoch, seq });
    }
}

/// How often a stand-in tries to hand a hint over (`hint_retry_ms`).
fn hint_retry(env: &Env) -> Duration {
    Duration::from_millis(env.cfg.hint_retry_ms)
}

/// bytes / bandwidth, in integer nanoseconds.
fn wire_time(cfg: &RingConfig, bytes: u64) -> Duration {
    let ns = u128::from(bytes) * 1_000_000_000 / u128::from(cfg.bandwidth_bytes_per_s);
    Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
}
