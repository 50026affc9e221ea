//! The coordinator role (the lesson's `Coordinador`, listing 9.15): versions, quorums, stand-ins
//! for silent replicas, read repair, and the orchestration of a membership change.
//!
//! A write goes to the key's RF home replicas and is confirmed at W home acks. A replica that
//! has not answered within `rpc_timeout_ms` is taken as down (a timeout, not an oracle) and the
//! next node clockwise past the replica set keeps the write as a hint for it. A read asks the RF
//! homes, answers with the newest of the first R replies, and sends the newest version to every
//! replica that answered with an older one (read repair). During a rebalance, writes go to the
//! homes of both maps and need W acks in each; reads use the old map until every source has
//! streamed its keys, then the new one. A read that meets a replica that has already cleaned
//! up ("moved") starts again on the reader's newer map. `Cleanup` is resent until every node
//! of both maps acknowledges it, and only then may the next change start.
//!
//! An owner's write during a move goes first to the key's next owner alone and to the other
//! homes only once it has kept it: every version an old owner lands anywhere is on the next
//! owner, which numbers past it.
//!
//! The same quorum machine serves clients: a storage node that owns a key coordinates a
//! client's request for it (see `serve`), with a [`ClientRequest`] naming the client to answer;
//! a read may be an owner's version read, whose answer numbers the client's write instead (a
//! [`Resume`]). Under the dynamic scheme the coordinator also sizes the ranges from the writes
//! it numbers and splits a range that passes `split_bytes` (see `split`).
//!
//! [`Coord`] owns its state; what it reads of the node's storage (the map, the version held,
//! the era) comes in as a parameter. Its handlers: writes in `write`, reads in `read`, a
//! membership change and the map's push to the clients in `membership`; this file has the
//! state, the commands, the load and the request timer.

mod membership;
mod read;
mod write;

use crate::ring_store::env::{Env, RingActor};
use crate::ring_store::load::Load;
use crate::ring_store::map::Map;
use crate::ring_store::msg::{RingCommand, RingMsg, RingTimer};
use crate::ring_store::storage::Storage;
use crate::ring_store::stream::StreamReport;
use membership::Rebalancing;
use read::ReadOp;
use sim_core::{Context, NodeId};
use std::collections::{BTreeMap, BTreeSet};
use write::WriteOp;

/// The quorum machine's state: the coordinator's, and each storage node's for the client
/// requests it owns. Versions and the rebalance are durable; requests in flight are not.
#[derive(Clone, Debug, Default, Hash)]
pub struct Coord {
    /// Per key: the last version given and the entry's size.
    versions: BTreeMap<String, Issued>,
    /// An owner's keys whose latest version it learned from a quorum of their homes, with the
    /// epoch of the map it read by (see `serve`).
    known: BTreeMap<String, u64>,
    next_req: u64,
    writes: BTreeMap<u64, WriteOp>,
    reads: BTreeMap<u64, ReadOp>,
    rebalance: Option<Rebalancing>,
    load: Option<Load>,
    /// Clients that acknowledged the map in force (the push is resent to the others).
    map_acks: BTreeSet<NodeId>,
}

/// What the coordinator last gave a key: its version, and the entry's size in bytes (key,
/// value and an 8-byte version, as the streams count it; what `split` sums).
#[derive(Clone, Copy, Debug, Default, Hash)]
struct Issued {
    version: u64,
    bytes: u64,
}

/// A client's request: who asked, under which number, and so who must hear the answer. An
/// operation without one is a scenario command on the coordinator, answered in the notes only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientRequest {
    /// The client.
    pub client: NodeId,
    /// Its request number.
    pub id: u64,
}

impl ClientRequest {
    /// Answers the client (`ok: false`: the quorum was not reached in time).
    pub fn reply<A: RingActor>(
        self,
        ctx: &mut Context<'_, A>,
        ok: bool,
        version: u64,
        value: String,
    ) {
        let msg = RingMsg::Reply {
            id: self.id,
            ok,
            version,
            value,
        };
        ctx.send(self.client, msg);
    }
}

/// A client's write waiting for a version read: its value, and the epoch of the map read by.
#[derive(Clone, Debug, Hash)]
pub struct WaitingWrite {
    /// The value to write once the key's latest version is known.
    pub value: String,
    /// The epoch of the map the version read asked the homes of.
    pub epoch: u64,
}

/// A version read answered: the client's write that waited for it, now to be numbered past
/// `version` (see `serve`).
#[derive(Clone, Debug)]
pub struct Resume {
    /// The client's request.
    pub asker: ClientRequest,
    /// The key.
    pub key: String,
    /// The value it writes.
    pub value: String,
    /// The epoch of the map the version read asked by.
    pub epoch: u64,
    /// The newest version of R homes.
    pub version: u64,
}

/// A write to start: `key = value` to its homes in `map` (and in `next` during a move, W acks
/// in each), also needing `must`'s ack if set (the key's next owner), answered to `asker`.
pub struct NewWrite<'a> {
    /// The key.
    pub key: String,
    /// The value.
    pub value: String,
    /// The map whose homes must reach W.
    pub map: &'a Map,
    /// During a move, the next map, whose homes must reach W too.
    pub next: Option<&'a Map>,
    /// A node whose ack the write needs besides the quorums, and which gets it first.
    pub must: Option<NodeId>,
    /// The client to answer, if any.
    pub asker: Option<ClientRequest>,
}

impl Coord {
    /// Forgets what a crash loses: requests in flight and the load generator.
    pub fn crash(&mut self) {
        self.writes.clear();
        self.reads.clear();
        self.load = None;
    }

    /// Whether a rebalance is under way (on the coordinator), its cleanup included.
    pub fn rebalancing(&self) -> bool {
        self.rebalance.is_some()
    }

    /// The map being moved to while its streams run (not once it is in force and only the
    /// cleanup is awaited).
    pub fn moving_to(&self) -> Option<&Map> {
        self.rebalance.as_ref().and_then(Rebalancing::streaming_to)
    }

    /// This node's era: twice its map's epoch, one less while it moves to that epoch (the old
    /// map still serving); the coordinator's is its next map's during a rebalance. Writes carry
    /// the writer's era and a replica refuses one from an earlier era: an owner that has not
    /// learned of a handover cannot land writes on replicas that have.
    pub fn era(&self, storage: &Storage) -> u64 {
        if let Some(next) = self.moving_to() {
            return next.epoch() * 2 - 1;
        }
        storage.era()
    }

    fn req(&mut self) -> u64 {
        self.next_req += 1;
        self.next_req
    }

    /// Coordinator traffic from `from`: replicas' and sources' answers, a client's request,
    /// and the clients' acks of the map.
    pub fn on_message<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &mut Storage,
        from: NodeId,
        msg: RingMsg,
    ) {
        match msg {
            RingMsg::StoreAck { req, hinted } => {
                self.on_store_ack(ctx, env, storage, from, req, hinted);
            }
            RingMsg::ReadReply { req, data, moved } => {
                if moved {
                    self.on_moved_reply(ctx, storage, from, req);
                } else {
                    self.on_read_reply(ctx, env, storage, from, req, data);
                }
            }
            RingMsg::StreamDone {
                epoch,
                keys,
                bytes,
                owned,
                required,
            } => {
                let report = StreamReport {
                    epoch,
                    sent: (keys, bytes).into(),
                    owned: owned.into(),
                    required: required.into(),
                };
                self.on_stream_done(ctx, env, storage, from, report);
            }
            RingMsg::CleanupAck { epoch } => self.on_cleanup_ack(ctx, env, storage, from, epoch),
            RingMsg::Request { id, key, value } => {
                let asker = ClientRequest { client: from, id };
                self.on_request(ctx, env, storage, asker, key, value);
            }
            RingMsg::MapAck { epoch } => self.on_map_ack(storage.map(), from, epoch),
            // Not coordinator traffic: the node routes it to the storage or drops it.
            _ => {}
        }
    }

    /// After a restart: the rebalance's retries, and the coordinator's push of the map.
    pub fn on_start<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env, map: &Map) {
        if self.rebalance.is_some() {
            ctx.set_timer(RingTimer::RebalanceRetry, env.timeout());
        }
        if env.is_main() && !env.cfg.clients.is_empty() && map.epoch() > 0 {
            ctx.set_timer(RingTimer::MapPush, env.timeout());
        }
    }

    /// A scenario's command (the coordinator's only).
    pub fn on_command<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        command: RingCommand,
    ) {
        if !env.is_main() {
            return;
        }
        match command {
            RingCommand::Put { key, value } => self.put(ctx, env, storage, key, value),
            RingCommand::Get { key } => self.get(ctx, env, storage, key),
            RingCommand::Join(name) => self.change(ctx, env, storage, &name, true),
            RingCommand::Leave(name) => self.change(ctx, env, storage, &name, false),
            RingCommand::Load {
                keys,
                ops,
                every_ms,
            } => {
                self.load = Some(Load::new(keys, ops, every_ms));
                self.on_load_tick(ctx, env, storage);
            }
        }
    }

    /// The next operation of the coordinator's load.
    pub fn on_load_tick<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
    ) {
        let Some(load) = self.load.as_mut() else {
            return;
        };
        let Some(op) = load.next_op() else { return };
        if load.more() {
            ctx.set_timer(RingTimer::Load, load.every());
        }
        match op.value {
            Some(value) => self.put(ctx, env, storage, op.key, value),
            None => self.get(ctx, env, storage, op.key),
        }
    }

    /// Request `req` has waited a timeout: a write moves to its next round, a read fails.
    pub fn on_request_timeout<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        req: u64,
    ) {
        if self.writes.contains_key(&req) {
            self.write_timeout(ctx, env, storage, req);
            return;
        }
        if let Some(op) = self.reads.remove(&req) {
            op.time_out(ctx, env, req);
        }
    }

    // ----- what an owner knows of its keys (see `serve`) -------------------------------------

    /// The epoch from which this owner knows `key`'s latest version, if it does.
    pub fn known_since(&self, key: &str) -> Option<u64> {
        self.known.get(key).copied()
    }

    /// This owner knows `key`'s latest version at `epoch`.
    pub fn know(&mut self, key: &str, epoch: u64) {
        self.known.insert(key.to_string(), epoch);
    }

    /// A version read of `key` at `epoch` saw `version` as the newest: number past it, and
    /// know the key from that epoch on (or from a later one already known).
    pub fn learn(&mut self, key: &str, version: u64, epoch: u64) {
        let slot = self.versions.entry(key.to_string()).or_default();
        slot.version = slot.version.max(version);
        let known = self.known.entry(key.to_string()).or_insert(epoch);
        *known = (*known).max(epoch);
    }

    /// Every key this coordinator numbered, with its entry's size in bytes (see `split`).
    pub fn sizes(&self) -> impl Iterator<Item = (&str, u64)> {
        self.versions.iter().map(|(k, i)| (k.as_str(), i.bytes))
    }
}
