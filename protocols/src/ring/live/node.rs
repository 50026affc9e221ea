//! The live ring's actor: every node is a storage node (the lesson's `Nodo`: a durable store
//! and, as a stand-in, hints), and one is also the coordinator (see `coord`); storage nodes
//! coordinate the client requests for keys they own (see `serve`), and the clients are nodes
//! with the client role only (see `client`).
//!
//! Storage is deliberately dumb, as in listing 9.16: it keeps the newest version it is given
//! ("gana la más nueva"), answers reads, hands hints to their home replicas until they
//! acknowledge, and, during a rebalance, streams every key it homed to the new homes that did
//! not, at the configured bandwidth. Two fences keep ownership single: a replica refuses a
//! `Store` from a writer at an earlier era than its own (see `RingNode::era`), and it never
//! acknowledges a version it holds with a different value. A node that no longer homes a key
//! answers a read of it "moved". Everything in a storage node is durable: a crash loses nothing.

use crate::ring::live::client::Client;
use crate::ring::live::config::RingConfig;
use crate::ring::live::coord::Coord;
use crate::ring::live::map::Map;
use crate::ring::live::msg::{Entry, RingCommand, RingMsg, RingTimer, Versioned};
use crate::ring::live::notes::{RingNote, Via};
use sim_core::{Actor, Context, Duration, Instant, NodeId};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A node of the live ring.
#[derive(Clone, Debug, Hash)]
pub struct RingNode {
    pub(crate) cfg: Arc<RingConfig>,
    pub(crate) names: Arc<Vec<String>>,
    pub(crate) id: NodeId,
    /// This node's partition map (the coordinator's: the map reads use; a storage node's: the
    /// newest it was told of; a client's: its cached map).
    pub(crate) map: Map,
    /// The map before the last change a storage node was told of.
    pub(crate) old: Option<Map>,
    /// Between a `Rebalance` and its `Cleanup`: the old map still serves.
    pub(crate) moving: bool,
    /// Durable store: key -> newest version kept.
    pub(crate) store: BTreeMap<String, Versioned>,
    /// Durable hints kept as a stand-in: (home replica, key) -> version.
    pub(crate) hints: BTreeMap<(NodeId, String), Versioned>,
    /// The stream this node owes for the epoch being rebalanced to.
    pub(crate) outgoing: Option<Outgoing>,
    /// The last stream finished (see [`Streamed`]), to answer a repeated `Rebalance`.
    pub(crate) streamed: Streamed,
    /// The quorum machine: the coordinator's, and each storage node's for client requests.
    pub(crate) coord: Option<Coord>,
    /// The client role, on clients only.
    pub(crate) client: Option<Client>,
}

/// A rebalancing stream: chunks of keys for their new homes, sent one at a time, each after
/// its bytes' time on the wire (bytes / bandwidth), and kept until acknowledged.
#[derive(Clone, Debug, Hash)]
pub(crate) struct Outgoing {
    epoch: u64,
    started: Instant,
    chunks: Vec<(NodeId, Vec<String>)>,
    next: usize,
    unacked: BTreeSet<u64>,
    keys: u64,
    bytes: u64,
    owned: (u64, u64),
    required: (u64, u64),
}

/// What a finished stream reports: its epoch, (keys, bytes) sent, (keys, bytes) owned as first
/// old home and the copies (keys, bytes) the change required of those.
pub(crate) type Streamed = (u64, (u64, u64), (u64, u64), (u64, u64));

impl RingNode {
    /// Node `id` of `config` (see [`RingConfig::names`] for the order of roles).
    pub fn new(config: &RingConfig, id: NodeId) -> RingNode {
        let names = config.names();
        let is_client = id.index() > config.coordinator_index();
        let coord = (!is_client).then(Coord::default);
        let client = is_client.then(Client::default);
        RingNode {
            cfg: Arc::new(config.clone()),
            names: Arc::new(names),
            id,
            map: Map::initial(config),
            old: None,
            moving: false,
            store: BTreeMap::new(),
            hints: BTreeMap::new(),
            outgoing: None,
            streamed: (0, (0, 0), (0, 0), (0, 0)),
            coord,
            client,
        }
    }

    /// This node's name.
    pub fn name(&self) -> &str {
        &self.names[self.id.index()]
    }

    /// What this node stores for `key` as a home replica.
    pub fn stored(&self, key: &str) -> Option<&Versioned> {
        self.store.get(key)
    }

    /// How many hints this node keeps for other nodes.
    pub fn hint_count(&self) -> usize {
        self.hints.len()
    }

    /// The epoch of this node's map.
    pub fn epoch(&self) -> u64 {
        self.map.epoch()
    }

    pub(crate) fn name_of(&self, id: NodeId) -> String {
        self.names[id.index()].clone()
    }

    pub(crate) fn coordinator(&self) -> NodeId {
        NodeId(self.cfg.coordinator_index() as u32)
    }

    /// Whether this node is the coordinator.
    pub(crate) fn is_main(&self) -> bool {
        self.id == self.coordinator()
    }

    /// The map this storage node serves clients by: the old one during a rebalance.
    pub(crate) fn serving_map(&self) -> &Map {
        match (&self.old, self.moving) {
            (Some(old), true) => old,
            _ => &self.map,
        }
    }

    /// This node's era: twice its map's epoch, one less while it moves to that epoch (the old
    /// map still serving). The coordinator's is its next map's during a rebalance. Writes carry
    /// the writer's era and a replica refuses one from an earlier era: an owner that has not
    /// learned of a handover cannot land writes on replicas that have.
    pub(crate) fn era(&self) -> u64 {
        if let Some(next) = self.coord.as_ref().and_then(|c| c.moving_to()) {
            return next.epoch() * 2 - 1;
        }
        (self.map.epoch() * 2).saturating_sub(u64::from(self.moving))
    }

    /// Whether this node homes `key` now: in its map, or in the old one while moving.
    fn homes_now(&self, key: &str) -> bool {
        self.map.homes(key).contains(&self.id)
            || (self.moving
                && self
                    .old
                    .as_ref()
                    .is_some_and(|m| m.homes(key).contains(&self.id)))
    }

    /// Keeps `data` for `key` if newer than what is there; notes it. True if kept.
    fn keep(&mut self, ctx: &mut Context<'_, Self>, key: &str, data: &Versioned, via: Via) -> bool {
        if self
            .store
            .get(key)
            .is_some_and(|d| d.version >= data.version)
        {
            return false;
        }
        self.store.insert(key.to_string(), data.clone());
        ctx.note(RingNote::Stored {
            key: key.to_string(),
            version: data.version,
            node: self.name().to_string(),
            hinted: false,
            via,
        });
        true
    }

    fn on_store(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        (req, key, data, hint_for, repair, era): (
            u64,
            String,
            Versioned,
            Option<NodeId>,
            bool,
            u64,
        ),
    ) {
        let hinted = hint_for.is_some();
        if era < self.era() {
            // Fenced: the writer has not learned of a map change this node has.
            return;
        }
        let held = match hint_for {
            Some(home) => self.hints.get(&(home, key.clone())),
            None => self.store.get(&key),
        };
        if held.is_some_and(|d| d.version == data.version && d.value != data.value) {
            // Two values under one version: keep the first, and do not confirm the second.
            return;
        }
        if let Some(home) = hint_for {
            let slot = (home, key.clone());
            if self
                .hints
                .get(&slot)
                .is_none_or(|d| d.version < data.version)
            {
                ctx.note(RingNote::Stored {
                    key,
                    version: data.version,
                    node: self.name().to_string(),
                    hinted: true,
                    via: Via::Handoff,
                });
                self.hints.insert(slot, data);
            }
            if !self.cfg.bugs.never_deliver_hints {
                ctx.set_timer(RingTimer::HintRetry, self.hint_retry());
            }
        } else {
            let via = if repair { Via::Repair } else { Via::Write };
            self.keep(ctx, &key, &data, via);
        }
        if !repair {
            ctx.send(from, RingMsg::StoreAck { req, hinted });
        }
    }

    fn hint_retry(&self) -> Duration {
        Duration::from_millis(self.cfg.hint_retry_ms)
    }

    fn retry_hints(&mut self, ctx: &mut Context<'_, Self>) {
        if self.hints.is_empty() || self.cfg.bugs.never_deliver_hints {
            return;
        }
        for ((home, key), data) in &self.hints {
            let msg = RingMsg::Handoff {
                key: key.clone(),
                data: data.clone(),
            };
            ctx.send(*home, msg);
        }
        ctx.set_timer(RingTimer::HintRetry, self.hint_retry());
    }

    fn on_handoff_ack(
        &mut self,
        ctx: &mut Context<'_, Self>,
        home: NodeId,
        key: String,
        version: u64,
    ) {
        let slot = (home, key);
        if self.hints.get(&slot).is_some_and(|d| d.version <= version) {
            let data = self.hints.remove(&slot).expect("checked");
            ctx.note(RingNote::HintDelivered {
                key: slot.1,
                version: data.version,
                home: self.name_of(home),
                standin: self.name().to_string(),
            });
        }
    }

    // ----- rebalancing, source side ---------------------------------------------------------

    fn on_rebalance(
        &mut self,
        ctx: &mut Context<'_, Self>,
        epoch: u64,
        change: crate::ring::live::map::Change,
    ) {
        if epoch == self.streamed.0 && epoch > 0 {
            let (_, (keys, bytes), owned, required) = self.streamed;
            let msg = RingMsg::StreamDone {
                epoch,
                keys,
                bytes,
                owned,
                required,
            };
            ctx.send(self.coordinator(), msg);
            return;
        }
        if epoch != self.map.epoch() + 1 {
            return;
        }
        let old = self.map.clone();
        self.map.apply(change);
        self.old = Some(old.clone());
        self.moving = true;
        let next = self.map.clone();
        self.extend_writes(ctx, &next);
        // Every old home of a key streams what it holds to each new home that was not an old
        // home, and the receiver keeps the newest: a home that missed a write (W acks were
        // enough) is not the only source. The first old home counts the key for the figures.
        let mut owed: BTreeMap<NodeId, Vec<(String, u64)>> = BTreeMap::new();
        let (mut owned, mut required) = ((0, 0), (0, 0));
        for (key, data) in &self.store {
            let before = old.homes(key);
            if !before.contains(&self.id) {
                continue;
            }
            let bytes = Entry {
                key: key.clone(),
                data: data.clone(),
            }
            .bytes();
            let fresh: Vec<NodeId> = self
                .map
                .homes(key)
                .into_iter()
                .filter(|d| !before.contains(d))
                .collect();
            if before.first() == Some(&self.id) {
                let n = fresh.len() as u64;
                owned = (owned.0 + 1, owned.1 + bytes);
                required = (required.0 + n, required.1 + n * bytes);
            }
            for dest in fresh {
                owed.entry(dest).or_default().push((key.clone(), bytes));
            }
        }
        let mut chunks = Vec::new();
        for (dest, keys) in owed {
            let mut chunk: Vec<String> = Vec::new();
            let mut size = 0;
            for (key, bytes) in keys {
                if !chunk.is_empty() && size + bytes > self.cfg.chunk_bytes {
                    chunks.push((dest, std::mem::take(&mut chunk)));
                    size = 0;
                }
                chunk.push(key);
                size += bytes;
            }
            chunks.push((dest, chunk));
        }
        let out = Outgoing {
            epoch,
            started: ctx.now(),
            chunks,
            next: 0,
            unacked: BTreeSet::new(),
            keys: 0,
            bytes: 0,
            owned,
            required,
        };
        self.outgoing = Some(out);
        self.pace_next(ctx);
    }

    /// The entries of chunk `i` as the store holds them now.
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
    fn pace_next(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(out) = &self.outgoing else { return };
        if let Some((_, keys)) = out.chunks.get(out.next) {
            let bytes: u64 = self.entries(keys).iter().map(Entry::bytes).sum();
            ctx.set_timer(RingTimer::Pace, self.wire_time(bytes));
        } else if out.unacked.is_empty() {
            self.finish_stream(ctx);
        }
    }

    /// bytes / bandwidth, in integer nanoseconds.
    pub(crate) fn wire_time(&self, bytes: u64) -> Duration {
        let ns = u128::from(bytes) * 1_000_000_000 / u128::from(self.cfg.bandwidth_bytes_per_s);
        Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }

    fn send_chunk(&mut self, ctx: &mut Context<'_, Self>, seq: u64, first: bool) {
        let Some(out) = &self.outgoing else { return };
        let Some((dest, keys)) = out.chunks.get(seq as usize).cloned() else {
            return;
        };
        let epoch = out.epoch;
        let entries = self.entries(&keys);
        if first {
            let bytes: u64 = entries.iter().map(Entry::bytes).sum();
            let out = self.outgoing.as_mut().expect("checked");
            out.keys += entries.len() as u64;
            out.bytes += bytes;
        }
        if first && self.cfg.bugs.delete_before_ack {
            for e in &entries {
                if !self.map.homes(&e.key).contains(&self.id) {
                    self.drop_key(ctx, &e.key);
                }
            }
        }
        ctx.send(
            dest,
            RingMsg::Transfer {
                epoch,
                seq,
                entries,
            },
        );
        let resend = Duration::from_millis(self.cfg.rpc_timeout_ms * 2);
        ctx.set_timer(RingTimer::Resend(seq), resend);
    }

    fn on_pace(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(out) = self.outgoing.as_mut() else {
            return;
        };
        if out.next >= out.chunks.len() {
            return;
        }
        let seq = out.next as u64;
        out.next += 1;
        out.unacked.insert(seq);
        self.send_chunk(ctx, seq, true);
        self.pace_next(ctx);
    }

    fn on_transfer_ack(&mut self, ctx: &mut Context<'_, Self>, epoch: u64, seq: u64) {
        let Some(out) = self.outgoing.as_mut() else {
            return;
        };
        if out.epoch != epoch || !out.unacked.remove(&seq) {
            return;
        }
        ctx.cancel_timer(RingTimer::Resend(seq));
        if out.unacked.is_empty() && out.next >= out.chunks.len() {
            self.finish_stream(ctx);
        }
    }

    fn finish_stream(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(out) = self.outgoing.take() else {
            return;
        };
        if out.keys > 0 {
            ctx.note(RingNote::Streamed {
                epoch: out.epoch,
                keys: out.keys,
                bytes: out.bytes,
                took_ms: ctx.now().saturating_since(out.started).as_millis(),
            });
        }
        self.streamed = (out.epoch, (out.keys, out.bytes), out.owned, out.required);
        let msg = RingMsg::StreamDone {
            epoch: out.epoch,
            keys: out.keys,
            bytes: out.bytes,
            owned: out.owned,
            required: out.required,
        };
        ctx.send(self.coordinator(), msg);
    }

    fn drop_key(&mut self, ctx: &mut Context<'_, Self>, key: &str) {
        if let Some(data) = self.store.remove(key) {
            ctx.note(RingNote::Deleted {
                key: key.to_string(),
                version: data.version,
                node: self.name().to_string(),
            });
        }
    }

    /// The move to `epoch` is over: drop what this node no longer homes, and say so (the
    /// coordinator resends `Cleanup` until every node of both maps has).
    fn on_cleanup(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, epoch: u64) {
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
            .filter(|k| !self.map.homes(k).contains(&self.id))
            .cloned()
            .collect();
        for key in gone {
            self.drop_key(ctx, &key);
        }
    }

    // ----- rebalancing, destination side ----------------------------------------------------

    fn on_transfer(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        epoch: u64,
        seq: u64,
        entries: Vec<Entry>,
    ) {
        for e in entries {
            self.keep(ctx, &e.key, &e.data, Via::Stream);
        }
        ctx.send(from, RingMsg::TransferAck { epoch, seq });
    }
}

impl Actor for RingNode {
    type Msg = RingMsg;
    type Timer = RingTimer;
    type Note = RingNote;
    type Command = RingCommand;

    fn on_start(&mut self, ctx: &mut Context<'_, Self>) {
        if !self.hints.is_empty() && !self.cfg.bugs.never_deliver_hints {
            ctx.set_timer(RingTimer::HintRetry, self.hint_retry());
        }
        if let Some(out) = &self.outgoing {
            let resend = Duration::from_millis(self.cfg.rpc_timeout_ms);
            for &seq in &out.unacked {
                ctx.set_timer(RingTimer::Resend(seq), resend);
            }
            self.pace_next(ctx);
        }
        self.coord_start(ctx);
    }

    fn on_message(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, msg: RingMsg) {
        match msg {
            RingMsg::Store {
                req,
                key,
                data,
                hint_for,
                repair,
                era,
            } => self.on_store(ctx, from, (req, key, data, hint_for, repair, era)),
            RingMsg::Read { req, key } => {
                let moved = !self.homes_now(&key);
                let data = (!moved).then(|| self.store.get(&key).cloned()).flatten();
                ctx.send(from, RingMsg::ReadReply { req, data, moved });
            }
            RingMsg::Handoff { key, data } => {
                self.keep(ctx, &key, &data, Via::Handoff);
                let version = self.store.get(&key).map_or(0, |d| d.version);
                ctx.send(from, RingMsg::HandoffAck { key, version });
            }
            RingMsg::HandoffAck { key, version } => self.on_handoff_ack(ctx, from, key, version),
            RingMsg::Rebalance { epoch, change } => self.on_rebalance(ctx, epoch, change),
            RingMsg::Transfer {
                epoch,
                seq,
                entries,
            } => self.on_transfer(ctx, from, epoch, seq, entries),
            RingMsg::TransferAck { epoch, seq } => self.on_transfer_ack(ctx, epoch, seq),
            RingMsg::Cleanup { epoch } => self.on_cleanup(ctx, from, epoch),
            RingMsg::CleanupAck { epoch } => self.on_cleanup_ack(ctx, from, epoch),
            RingMsg::StoreAck { req, hinted } => self.on_store_ack(ctx, from, req, hinted),
            RingMsg::ReadReply { req, data, moved } => {
                self.on_read_reply(ctx, from, req, data, moved);
            }
            RingMsg::StreamDone {
                epoch,
                keys,
                bytes,
                owned,
                required,
            } => self.on_stream_done(ctx, from, epoch, (keys, bytes), (owned, required)),
            RingMsg::Request { id, key, value } => self.on_request(ctx, from, (id, key, value)),
            RingMsg::Reply {
                id,
                ok,
                version,
                value,
            } => self.on_reply(ctx, from, id, (ok, version, value)),
            RingMsg::Moved {
                id,
                key,
                epoch,
                owner,
            } => self.on_moved(ctx, from, (id, key, epoch, owner)),
            RingMsg::MapUpdate { log } => self.on_map_update(ctx, from, &log),
            RingMsg::MapAck { epoch } => self.on_map_ack(from, epoch),
        }
    }

    fn on_timer(&mut self, ctx: &mut Context<'_, Self>, timer: RingTimer) {
        match timer {
            RingTimer::HintRetry => self.retry_hints(ctx),
            RingTimer::Pace => self.on_pace(ctx),
            RingTimer::Resend(seq) => {
                let pending = self
                    .outgoing
                    .as_ref()
                    .is_some_and(|o| o.unacked.contains(&seq));
                if pending {
                    self.send_chunk(ctx, seq, false);
                }
            }
            RingTimer::Request(req) => self.on_request_timeout(ctx, req),
            RingTimer::Load => self.on_load_tick(ctx),
            RingTimer::RebalanceRetry => self.on_rebalance_retry(ctx),
            RingTimer::MapPush => self.on_map_push(ctx),
            RingTimer::ClientLoad => self.on_client_load(ctx),
            RingTimer::ClientTimeout(id) => self.on_client_timeout(ctx, id),
        }
    }

    fn on_command(&mut self, ctx: &mut Context<'_, Self>, command: RingCommand) {
        if self.client.is_some() {
            self.client_command(ctx, command);
        } else {
            self.coord_command(ctx, command);
        }
    }

    fn on_crash(&mut self) {
        // Storage is durable; only requests in flight (and a client's queue) are lost.
        if let Some(c) = self.coord.as_mut() {
            c.crash();
        }
        if let Some(c) = self.client.as_mut() {
            *c = Client::default();
        }
    }
}
