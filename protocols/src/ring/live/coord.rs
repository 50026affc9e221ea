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
//! client's request for it (see `serve`), with `Asker` naming the client to answer; a read
//! may be an owner's version read, whose answer numbers the client's write instead. Under the
//! dynamic scheme the coordinator also sizes the ranges from the writes it numbers and splits a
//! range that passes `split_bytes` (see `split`).

use crate::ring::live::client::load_op;
use crate::ring::live::map::{Change, Map};
use crate::ring::live::msg::{Entry, RingCommand, RingMsg, RingTimer, Versioned};
use crate::ring::live::node::RingNode;
use crate::ring::live::notes::RingNote;
use sim_core::{Context, Duration, Instant, NodeId};
use std::collections::{BTreeMap, BTreeSet};

/// The coordinator's state. Versions and the rebalance are durable; requests in flight are not.
#[derive(Clone, Debug, Default, Hash)]
pub struct Coord {
    /// Per key: the last version given and the entry's size in bytes.
    pub(crate) versions: BTreeMap<String, (u64, u64)>,
    /// An owner's keys whose latest version it learned from a quorum of their homes, with the
    /// epoch of the map it read by (see `serve`).
    pub(crate) known: BTreeMap<String, u64>,
    next_req: u64,
    writes: BTreeMap<u64, WriteOp>,
    reads: BTreeMap<u64, ReadOp>,
    pub(crate) rebalance: Option<Rebalancing>,
    load: Option<LoadGen>,
    /// Clients that acknowledged the map in force (the push is resent to the others).
    map_acks: BTreeSet<NodeId>,
}

impl Coord {
    /// Forgets what a crash loses: requests in flight and the load generator.
    pub(crate) fn crash(&mut self) {
        self.writes.clear();
        self.reads.clear();
        self.load = None;
    }

    /// Whether a rebalance is under way (on the coordinator), its cleanup included.
    pub(crate) fn rebalancing(&self) -> bool {
        self.rebalance.is_some()
    }

    /// The map being moved to while its streams run (not once it is in force and only the
    /// cleanup is awaited).
    pub(crate) fn moving_to(&self) -> Option<&Map> {
        self.rebalance
            .as_ref()
            .filter(|r| r.cleaning.is_none())
            .map(|r| &r.next)
    }

    fn req(&mut self) -> u64 {
        self.next_req += 1;
        self.next_req
    }
}

/// Who asked for an operation and must hear the answer: a client and its request number
/// (`None`: a scenario command on the coordinator, answered in the notes only).
pub(crate) type Asker = Option<(NodeId, u64)>;

#[derive(Clone, Debug, Hash)]
struct WriteOp {
    client: Asker,
    key: String,
    data: Versioned,
    /// Home sets that must each reach W: one normally, old and new during a rebalance.
    quorums: Vec<Vec<NodeId>>,
    targets: Vec<NodeId>,
    acked: BTreeSet<NodeId>,
    /// Stand-in -> the home it keeps the write for.
    standins: BTreeMap<NodeId, NodeId>,
    /// Homes whose stand-in acked (counted only under a sloppy quorum).
    covered: BTreeMap<NodeId, NodeId>,
    /// A node whose ack is required besides the quorums: the key's next owner while a client
    /// write runs during a rebalance, so the owner-to-be holds every version it will number
    /// after.
    must: Option<NodeId>,
    /// Sent to `must` only so far: the others get it once `must` has kept it.
    gated: bool,
    /// Nodes in placement order past the homes, where stand-ins are picked.
    walk: Vec<NodeId>,
    confirmed: bool,
    round: u8,
}

impl WriteOp {
    /// The `Store` of this write, request `req`, at the writer's `era` (to a stand-in for
    /// `hint_for`, if any).
    fn store(&self, req: u64, era: u64, hint_for: Option<NodeId>) -> RingMsg {
        RingMsg::Store {
            req,
            key: self.key.clone(),
            data: self.data.clone(),
            hint_for,
            repair: false,
            era,
        }
    }
}

#[derive(Clone, Debug, Hash)]
struct ReadOp {
    client: Asker,
    key: String,
    /// A version read: the value of the client's write that waits for it, and the epoch of the
    /// map read by (`None`: an ordinary read).
    then_write: Option<(String, u64)>,
    homes: Vec<NodeId>,
    replies: BTreeMap<NodeId, u64>,
    best: Option<Versioned>,
    repaired: BTreeMap<NodeId, u64>,
    answered: bool,
}

#[derive(Clone, Debug, Hash)]
pub(crate) struct Rebalancing {
    pub(crate) next: Map,
    started: Instant,
    waiting: BTreeSet<NodeId>,
    participants: Vec<NodeId>,
    moved_keys: u64,
    moved_bytes: u64,
    /// The data set as the sources report it: keys and bytes each was the first home of.
    owned: (u64, u64),
    /// The copies the change required, as the first old homes report them.
    required: (u64, u64),
    /// The fair share is RF/`share` of the data set.
    share: u64,
    /// Once the streams are done: the nodes that have not acknowledged `Cleanup`.
    cleaning: Option<BTreeSet<NodeId>>,
}

#[derive(Clone, Debug, Hash)]
struct LoadGen {
    keys: u32,
    ops: u32,
    every_ms: u64,
    done: u32,
}

impl RingNode {
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.cfg.rpc_timeout_ms)
    }

    pub(crate) fn names_of(&self, ids: &[NodeId]) -> Vec<String> {
        ids.iter().map(|&id| self.name_of(id)).collect()
    }

    pub(crate) fn coord_start(&mut self, ctx: &mut Context<'_, Self>) {
        if self.coord.as_ref().is_some_and(|c| c.rebalance.is_some()) {
            ctx.set_timer(RingTimer::RebalanceRetry, self.timeout());
        }
        if self.is_main() && !self.cfg.clients.is_empty() && self.map.epoch() > 0 {
            ctx.set_timer(RingTimer::MapPush, self.timeout());
        }
    }

    pub(crate) fn coord_command(&mut self, ctx: &mut Context<'_, Self>, command: RingCommand) {
        if !self.is_main() {
            return;
        }
        match command {
            RingCommand::Put { key, value } => self.put(ctx, key, value),
            RingCommand::Get { key } => self.get(ctx, key),
            RingCommand::Join(name) => self.change(ctx, &name, true),
            RingCommand::Leave(name) => self.change(ctx, &name, false),
            RingCommand::Load {
                keys,
                ops,
                every_ms,
            } => {
                let c = self.coord.as_mut().expect("coordinator");
                c.load = Some(LoadGen {
                    keys: keys.max(1),
                    ops,
                    every_ms,
                    done: 0,
                });
                self.on_load_tick(ctx);
            }
        }
    }

    // ----- writes ---------------------------------------------------------------------------

    /// A scenario's write on the coordinator: its map's homes, and the next map's during a
    /// rebalance; then, under the dynamic scheme, a split if the key's range grew too big.
    fn put(&mut self, ctx: &mut Context<'_, Self>, key: String, value: String) {
        let next = self.coord.as_ref().and_then(|c| c.moving_to()).cloned();
        let map = self.map.clone();
        self.start_write(ctx, (key, value), &map, next.as_ref(), None, None);
        self.maybe_split(ctx);
    }

    /// Starts a write of `key = value` to its homes in `map` (and in `next`, W acks in each),
    /// numbered one past the newest version this node gave or holds.
    pub(crate) fn start_write(
        &mut self,
        ctx: &mut Context<'_, Self>,
        (key, value): (String, String),
        map: &Map,
        next: Option<&Map>,
        must: Option<NodeId>,
        client: Asker,
    ) {
        let homes = map.homes(&key);
        let next_homes = next.map(|m| m.homes(&key));
        let walk = next.unwrap_or(map).walk(&key, self.names.len());
        let held = self.store.get(&key).map_or(0, |d| d.version);
        let c = self.coord.as_mut().expect("coordinator");
        let req = c.req();
        let slot = c.versions.entry(key.clone()).or_insert((0, 0));
        slot.0 = slot.0.max(held) + 1;
        let data = Versioned {
            version: slot.0,
            value,
        };
        slot.1 = Entry {
            key: key.clone(),
            data: data.clone(),
        }
        .bytes();
        let mut targets = homes.clone();
        let mut quorums = vec![homes];
        if let Some(next) = next_homes {
            targets.extend(next.iter().filter(|n| !quorums[0].contains(n)));
            quorums.push(next);
        }
        if let Some(m) = must
            && !targets.contains(&m)
        {
            targets.push(m);
        }
        ctx.note(RingNote::WriteStarted {
            key: key.clone(),
            version: data.version,
            value: data.value.clone(),
            homes: self.names_of(&targets),
        });
        let era = self.era();
        let gated = must.is_some();
        for &to in &targets {
            if gated && Some(to) != must {
                continue;
            }
            let msg = RingMsg::Store {
                req,
                key: key.clone(),
                data: data.clone(),
                hint_for: None,
                repair: false,
                era,
            };
            ctx.send(to, msg);
        }
        let op = WriteOp {
            client,
            key,
            data,
            quorums,
            targets,
            acked: BTreeSet::new(),
            standins: BTreeMap::new(),
            covered: BTreeMap::new(),
            must,
            gated,
            walk,
            confirmed: false,
            round: 0,
        };
        self.coord
            .as_mut()
            .expect("coordinator")
            .writes
            .insert(req, op);
        ctx.set_timer(RingTimer::Request(req), self.timeout());
    }

    /// The map moves to `next` while writes are in flight: each is also sent to its new homes
    /// and needs W acks there too, so no write sent under the old map misses the stream.
    pub(crate) fn extend_writes(&mut self, ctx: &mut Context<'_, Self>, next: &Map) {
        let nodes = self.names.len();
        let era = self.era();
        let Some(c) = self.coord.as_mut() else { return };
        for (&req, op) in c.writes.iter_mut() {
            let homes = next.homes(&op.key);
            for &to in &homes {
                if op.targets.contains(&to) {
                    continue;
                }
                op.targets.push(to);
                if !op.gated {
                    ctx.send(to, op.store(req, era, None));
                }
            }
            if !op.quorums.contains(&homes) {
                op.quorums.push(homes);
            }
            op.walk = next.walk(&op.key, nodes);
        }
    }

    pub(crate) fn on_store_ack(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        req: u64,
        hinted: bool,
    ) {
        let w = self.cfg.w as usize;
        let standins_count = self.cfg.standins_count();
        let era = self.era();
        let Some(c) = self.coord.as_mut() else { return };
        let Some(op) = c.writes.get_mut(&req) else {
            return;
        };
        if op.gated && !hinted && op.must == Some(from) {
            // The next owner kept it: now the other homes.
            op.gated = false;
            for &to in op.targets.iter().filter(|&&t| t != from) {
                ctx.send(to, op.store(req, era, None));
            }
        }
        if hinted {
            let Some(&home) = op.standins.get(&from) else {
                return;
            };
            op.covered.insert(home, from);
        } else {
            op.acked.insert(from);
        }
        if op.confirmed {
            return;
        }
        let counts = |home: &NodeId| {
            op.acked.contains(home) || (standins_count && op.covered.contains_key(home))
        };
        if !op
            .quorums
            .iter()
            .all(|q| q.iter().filter(|h| counts(h)).count() >= w)
            || op.must.is_some_and(|m| !op.acked.contains(&m))
        {
            return;
        }
        op.confirmed = true;
        if let Some((client, id)) = op.client {
            let reply = RingMsg::Reply {
                id,
                ok: true,
                version: op.data.version,
                value: String::new(),
            };
            ctx.send(client, reply);
        }
        let mut by = Vec::new();
        let mut standins = Vec::new();
        for home in &op.targets {
            if op.acked.contains(home) {
                by.push(*home);
            } else if standins_count && let Some(&s) = op.covered.get(home) {
                by.push(s);
                standins.push(s);
            }
        }
        let note = RingNote::Acked {
            key: op.key.clone(),
            version: op.data.version,
            value: op.data.value.clone(),
            by: by
                .iter()
                .map(|&id| self.names[id.index()].clone())
                .collect(),
            standins: standins
                .iter()
                .map(|&id| self.names[id.index()].clone())
                .collect(),
        };
        ctx.note(note);
        let done = op.acked.len() == op.targets.len();
        if done {
            c.writes.remove(&req);
            ctx.cancel_timer(RingTimer::Request(req));
        }
    }

    /// First timeout: a stand-in for every silent home. Second: the write failed if not
    /// confirmed by then.
    fn write_timeout(&mut self, ctx: &mut Context<'_, Self>, req: u64) {
        let w = self.cfg.w;
        let rf = self.cfg.rf as usize;
        let era = self.era();
        let Some(c) = self.coord.as_mut() else { return };
        let Some(op) = c.writes.get_mut(&req) else {
            return;
        };
        op.round += 1;
        if op.round == 1 && op.gated {
            // The next owner has not kept it: nothing else is sent (it fails next round).
            ctx.set_timer(RingTimer::Request(req), self.timeout());
            return;
        }
        if op.round == 1 {
            let silent: Vec<NodeId> = op
                .targets
                .iter()
                .filter(|t| !op.acked.contains(t))
                .copied()
                .collect();
            let mut spare = op
                .walk
                .clone()
                .into_iter()
                .skip(rf)
                .filter(|n| !op.targets.contains(n));
            let mut notes = Vec::new();
            for home in silent {
                let Some(standin) = spare.next() else { break };
                op.standins.insert(standin, home);
                notes.push((home, standin));
                ctx.send(standin, op.store(req, era, Some(home)));
            }
            let (key, version) = (op.key.clone(), op.data.version);
            for (home, standin) in notes {
                ctx.note(RingNote::HintSent {
                    key: key.clone(),
                    version,
                    home: self.names[home.index()].clone(),
                    standin: self.names[standin.index()].clone(),
                });
            }
            ctx.set_timer(RingTimer::Request(req), self.timeout());
            return;
        }
        let op = c.writes.remove(&req).expect("present");
        if !op.confirmed {
            if let Some((client, id)) = op.client {
                let reply = RingMsg::Reply {
                    id,
                    ok: false,
                    version: op.data.version,
                    value: String::new(),
                };
                ctx.send(client, reply);
            }
            let acks = op.quorums[0]
                .iter()
                .filter(|h| op.acked.contains(h))
                .count() as u32;
            ctx.note(RingNote::WriteFailed {
                key: op.key,
                version: op.data.version,
                acks,
                needed: w,
            });
        }
    }

    // ----- reads ----------------------------------------------------------------------------

    fn get(&mut self, ctx: &mut Context<'_, Self>, key: String) {
        let homes = self.map.homes(&key);
        self.start_read(ctx, key, homes, None, None);
    }

    /// Starts a read of `key` from `homes`, answered at R replies; with `then_write`, a
    /// version read whose answer numbers the client's write instead (see `serve`).
    pub(crate) fn start_read(
        &mut self,
        ctx: &mut Context<'_, Self>,
        key: String,
        homes: Vec<NodeId>,
        client: Asker,
        then_write: Option<(String, u64)>,
    ) {
        let c = self.coord.as_mut().expect("coordinator");
        let req = c.req();
        if then_write.is_none() {
            ctx.note(RingNote::ReadStarted {
                req,
                key: key.clone(),
            });
        }
        for &to in &homes {
            ctx.send(
                to,
                RingMsg::Read {
                    req,
                    key: key.clone(),
                },
            );
        }
        c.reads.insert(
            req,
            ReadOp {
                client,
                key,
                then_write,
                homes,
                replies: BTreeMap::new(),
                best: None,
                repaired: BTreeMap::new(),
                answered: false,
            },
        );
        ctx.set_timer(RingTimer::Request(req), self.timeout());
    }

    pub(crate) fn on_read_reply(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        req: u64,
        data: Option<Versioned>,
        moved: bool,
    ) {
        let r = self.cfg.r as usize;
        let names = self.names.clone();
        let era = self.era();
        let homes_now = self
            .coord
            .as_ref()
            .and_then(|c| c.reads.get(&req))
            .map(|op| self.map.homes(&op.key));
        let mut resume = None;
        let Some(c) = self.coord.as_mut() else { return };
        let Some(op) = c.reads.get_mut(&req) else {
            return;
        };
        if !op.homes.contains(&from) || op.replies.contains_key(&from) {
            return;
        }
        if moved {
            // The replica cleaned up after a move this read started before: ask the key's
            // homes in this node's newer map instead (if it has one; else the reply is not
            // counted and the read times out).
            let Some(homes) = homes_now.filter(|h| *h != op.homes) else {
                return;
            };
            if op.answered {
                return;
            }
            op.homes = homes;
            op.replies.clear();
            op.best = None;
            op.repaired.clear();
            for &to in &op.homes {
                let msg = RingMsg::Read {
                    req,
                    key: op.key.clone(),
                };
                ctx.send(to, msg);
            }
            return;
        }
        let version = data.as_ref().map_or(0, |d| d.version);
        op.replies.insert(from, version);
        if let Some(d) = data
            && op.best.as_ref().is_none_or(|b| b.version < d.version)
        {
            op.best = Some(d);
        }
        if !op.answered && op.replies.len() >= r && op.then_write.is_some() {
            op.answered = true;
            let version = op.best.as_ref().map_or(0, |b| b.version);
            let from = op.replies.keys().map(|id| names[id.index()].clone());
            ctx.note(RingNote::VersionRead {
                key: op.key.clone(),
                version,
                from: from.collect(),
            });
            resume = op.client.zip(op.then_write.clone()).map(|a| (a, version));
        }
        if !op.answered && op.replies.len() >= r {
            op.answered = true;
            let best = op.best.clone();
            if let Some((client, id)) = op.client {
                let reply = RingMsg::Reply {
                    id,
                    ok: true,
                    version: best.as_ref().map_or(0, |b| b.version),
                    value: best.as_ref().map_or(String::new(), |b| b.value.clone()),
                };
                ctx.send(client, reply);
            }
            ctx.note(RingNote::ReadResult {
                req,
                key: op.key.clone(),
                version: best.as_ref().map_or(0, |b| b.version),
                value: best.map_or(String::new(), |b| b.value),
                from: op
                    .replies
                    .keys()
                    .map(|id| names[id.index()].clone())
                    .collect(),
            });
        }
        // Read repair: every replica that answered older than the newest seen gets the newest.
        if op.answered
            && let Some(best) = op.best.clone()
        {
            let stale: Vec<(NodeId, u64)> = op
                .replies
                .iter()
                .filter(|&(n, &v)| {
                    v < best.version && op.repaired.get(n).is_none_or(|&s| s < best.version)
                })
                .map(|(&n, &v)| (n, v))
                .collect();
            for (node, had) in stale {
                op.repaired.insert(node, best.version);
                ctx.note(RingNote::Repairing {
                    key: op.key.clone(),
                    node: names[node.index()].clone(),
                    had,
                    version: best.version,
                });
                ctx.send(
                    node,
                    RingMsg::Store {
                        req,
                        key: op.key.clone(),
                        data: best.clone(),
                        hint_for: None,
                        repair: true,
                        era,
                    },
                );
            }
        }
        let key = op.key.clone();
        if op.replies.len() == op.homes.len() {
            c.reads.remove(&req);
            ctx.cancel_timer(RingTimer::Request(req));
        }
        if let Some((((client, id), (value, epoch)), version)) = resume {
            self.resume_write(ctx, (client, id), (key, value), (epoch, version));
        }
    }

    pub(crate) fn on_request_timeout(&mut self, ctx: &mut Context<'_, Self>, req: u64) {
        let Some(c) = self.coord.as_mut() else { return };
        if c.writes.contains_key(&req) {
            self.write_timeout(ctx, req);
            return;
        }
        let Some(op) = c.reads.remove(&req) else {
            return;
        };
        if !op.answered {
            if let Some((client, id)) = op.client {
                let reply = RingMsg::Reply {
                    id,
                    ok: false,
                    version: 0,
                    value: String::new(),
                };
                ctx.send(client, reply);
            }
            ctx.note(RingNote::ReadFailed {
                req,
                key: op.key,
                got: op.replies.len() as u32,
                needed: self.cfg.r,
            });
        }
    }

    // ----- load -----------------------------------------------------------------------------

    pub(crate) fn on_load_tick(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(load) = self.coord.as_mut().and_then(|c| c.load.as_mut()) else {
            return;
        };
        if load.done >= load.ops {
            return;
        }
        let i = load.done;
        load.done += 1;
        let (keys, every) = (load.keys, load.every_ms);
        if load.done < load.ops {
            ctx.set_timer(RingTimer::Load, Duration::from_millis(every));
        }
        match load_op(i, keys) {
            (key, Some(value)) => self.put(ctx, key, value),
            (key, None) => self.get(ctx, key),
        }
    }

    // ----- membership -----------------------------------------------------------------------

    fn change(&mut self, ctx: &mut Context<'_, Self>, name: &str, join: bool) {
        let what = if join { "join" } else { "leave" };
        let refuse = |ctx: &mut Context<'_, Self>, reason: String| {
            ctx.note(RingNote::Refused {
                command: format!("{what} {name}"),
                reason,
            });
        };
        let Some(pos) = self.names.iter().position(|n| n == name) else {
            return refuse(ctx, "no such node".into());
        };
        let id = NodeId(pos as u32);
        if id == self.coordinator() {
            return refuse(ctx, "the coordinator stores nothing".into());
        }
        if self.coord.as_ref().is_some_and(|c| c.rebalance.is_some()) {
            return refuse(
                ctx,
                "a rebalance is in progress; one change at a time".into(),
            );
        }
        if join == self.map.is_member(id) {
            let why = if join {
                "already on the ring"
            } else {
                "not on the ring"
            };
            return refuse(ctx, why.into());
        }
        if !join && self.map.members().len() <= self.cfg.rf as usize {
            return refuse(
                ctx,
                format!("the ring would have fewer than RF = {} nodes", self.cfg.rf),
            );
        }
        let change = if join {
            Change::Join(id)
        } else {
            Change::Leave(id)
        };
        let next = self.map.after(change);
        let epoch = next.epoch();
        ctx.note(RingNote::OwnershipChanged {
            epoch,
            change: format!("{what} {name}"),
            node: name.to_string(),
            members: self.names_of(&next.members()),
        });
        // The even share: the new node's fair share of the copies (a join), or the leaver's.
        let share = if join {
            next.members().len()
        } else {
            self.map.members().len()
        } as u64;
        self.begin(ctx, next, share);
    }

    /// Starts moving to `next`: tells the nodes of both maps, sends writes in flight to their
    /// new homes too, and waits for every source; the move is reported against RF/`share` of
    /// the data (one node's even share).
    pub(crate) fn begin(&mut self, ctx: &mut Context<'_, Self>, next: Map, share: u64) {
        let mut participants = self.map.members();
        participants.extend(next.members());
        participants.sort();
        participants.dedup();
        let (epoch, change) = (next.epoch(), next.last_change());
        for &to in &participants {
            ctx.send(to, RingMsg::Rebalance { epoch, change });
        }
        ctx.set_timer(
            RingTimer::RebalanceRetry,
            Duration::from_millis(self.cfg.rpc_timeout_ms * 4),
        );
        let c = self.coord.as_mut().expect("coordinator");
        c.rebalance = Some(Rebalancing {
            next: next.clone(),
            started: ctx.now(),
            waiting: participants.iter().copied().collect(),
            participants,
            moved_keys: 0,
            moved_bytes: 0,
            owned: (0, 0),
            required: (0, 0),
            share,
            cleaning: None,
        });
        self.extend_writes(ctx, &next);
    }

    pub(crate) fn on_rebalance_retry(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(r) = self.coord.as_ref().and_then(|c| c.rebalance.as_ref()) else {
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
        ctx.set_timer(
            RingTimer::RebalanceRetry,
            Duration::from_millis(self.cfg.rpc_timeout_ms * 4),
        );
    }

    pub(crate) fn on_stream_done(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        epoch: u64,
        (keys, bytes): (u64, u64),
        (owned, required): ((u64, u64), (u64, u64)),
    ) {
        let Some(c) = self.coord.as_mut() else { return };
        let Some(r) = c.rebalance.as_mut() else {
            return;
        };
        if r.next.epoch() != epoch || r.cleaning.is_some() || !r.waiting.remove(&from) {
            return;
        }
        r.moved_keys += keys;
        r.moved_bytes += bytes;
        r.owned = (r.owned.0 + owned.0, r.owned.1 + owned.1);
        r.required = (r.required.0 + required.0, r.required.1 + required.1);
        if !r.waiting.is_empty() {
            return;
        }
        let rf = u64::from(self.cfg.rf);
        ctx.note(RingNote::RebalanceDone {
            epoch,
            moved_keys: r.moved_keys,
            moved_bytes: r.moved_bytes,
            required_keys: r.required.0,
            required_bytes: r.required.1,
            share_keys: r.owned.0 * rf / r.share,
            share_bytes: r.owned.1 * rf / r.share,
            took_ms: ctx.now().saturating_since(r.started).as_millis(),
        });
        // Every new home holds every version the old homes held: reads switch, and the nodes
        // may drop what they no longer home. The rebalance lasts until all of them say so.
        for &to in &r.participants {
            ctx.send(to, RingMsg::Cleanup { epoch });
        }
        r.cleaning = Some(r.participants.iter().copied().collect());
        self.map = r.next.clone();
        c.map_acks.clear();
        if !self.cfg.clients.is_empty() {
            ctx.set_timer(
                RingTimer::MapPush,
                Duration::from_millis(self.cfg.map_delay_ms),
            );
        }
    }

    /// A node cleaned up after `epoch`; when all have, the next change may start.
    pub(crate) fn on_cleanup_ack(&mut self, ctx: &mut Context<'_, Self>, from: NodeId, epoch: u64) {
        let Some(c) = self.coord.as_mut() else { return };
        let Some(r) = c.rebalance.as_mut() else {
            return;
        };
        let Some(cleaning) = r.cleaning.as_mut() else {
            return;
        };
        if r.next.epoch() != epoch || !cleaning.remove(&from) || !cleaning.is_empty() {
            return;
        }
        c.rebalance = None;
        ctx.cancel_timer(RingTimer::RebalanceRetry);
        self.maybe_split(ctx);
    }

    /// `map_delay_ms` after a rebalance: the clients get the map in force, and again every
    /// four timeouts until each has acknowledged it.
    pub(crate) fn on_map_push(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(c) = self.coord.as_ref() else { return };
        let log = self.map.log().to_vec();
        let mut pending = false;
        for i in self.cfg.coordinator_index() + 1..self.names.len() {
            let to = NodeId(i as u32);
            if c.map_acks.contains(&to) {
                continue;
            }
            pending = true;
            ctx.send(to, RingMsg::MapUpdate { log: log.clone() });
        }
        if pending {
            ctx.set_timer(
                RingTimer::MapPush,
                Duration::from_millis(self.cfg.rpc_timeout_ms * 4),
            );
        }
    }

    /// A client holds the map of `epoch`.
    pub(crate) fn on_map_ack(&mut self, from: NodeId, epoch: u64) {
        let current = self.map.epoch();
        if let Some(c) = self.coord.as_mut()
            && epoch == current
        {
            c.map_acks.insert(from);
        }
    }
}
