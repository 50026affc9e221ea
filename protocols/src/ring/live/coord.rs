//! The coordinator role (the lesson's `Coordinador`, listing 9.15): versions, quorums, stand-ins
//! for silent replicas, read repair, and the orchestration of a membership change.
//!
//! A write goes to the key's RF home replicas and is confirmed at W home acks. A replica that
//! has not answered within `rpc_timeout_ms` is taken as down (a timeout, not an oracle) and the
//! next node clockwise past the replica set keeps the write as a hint for it. A read asks the RF
//! homes, answers with the newest of the first R replies, and sends the newest version to every
//! replica that answered with an older one (read repair). During a rebalance, writes go to the
//! homes of both maps and need W acks in each; reads use the old map until every source has
//! streamed its keys, then the new one.

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
    versions: BTreeMap<String, (u64, u64)>,
    next_req: u64,
    writes: BTreeMap<u64, WriteOp>,
    reads: BTreeMap<u64, ReadOp>,
    rebalance: Option<Rebalancing>,
    load: Option<LoadGen>,
}

impl Coord {
    /// Forgets what a crash loses: requests in flight and the load generator.
    pub(crate) fn crash(&mut self) {
        self.writes.clear();
        self.reads.clear();
        self.load = None;
    }

    fn req(&mut self) -> u64 {
        self.next_req += 1;
        self.next_req
    }
}

#[derive(Clone, Debug, Hash)]
struct WriteOp {
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
    confirmed: bool,
    round: u8,
}

#[derive(Clone, Debug, Hash)]
struct ReadOp {
    key: String,
    homes: Vec<NodeId>,
    replies: BTreeMap<NodeId, u64>,
    best: Option<Versioned>,
    repaired: BTreeMap<NodeId, u64>,
    answered: bool,
}

#[derive(Clone, Debug, Hash)]
struct Rebalancing {
    next: Map,
    started: Instant,
    waiting: BTreeSet<NodeId>,
    participants: Vec<NodeId>,
    moved_keys: u64,
    moved_bytes: u64,
    ideal_keys: u64,
    ideal_bytes: u64,
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

    fn names_of(&self, ids: &[NodeId]) -> Vec<String> {
        ids.iter().map(|&id| self.name_of(id)).collect()
    }

    pub(crate) fn coord_start(&mut self, ctx: &mut Context<'_, Self>) {
        if self.coord.as_ref().is_some_and(|c| c.rebalance.is_some()) {
            ctx.set_timer(RingTimer::RebalanceRetry, self.timeout());
        }
    }

    pub(crate) fn coord_command(&mut self, ctx: &mut Context<'_, Self>, command: RingCommand) {
        if self.coord.is_none() {
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

    fn put(&mut self, ctx: &mut Context<'_, Self>, key: String, value: String) {
        let homes = self.map.homes(&key);
        let next_homes = self
            .coord
            .as_ref()
            .and_then(|c| c.rebalance.as_ref())
            .map(|r| r.next.homes(&key));
        let c = self.coord.as_mut().expect("coordinator");
        let req = c.req();
        let slot = c.versions.entry(key.clone()).or_insert((0, 0));
        slot.0 += 1;
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
        ctx.note(RingNote::WriteStarted {
            key: key.clone(),
            version: data.version,
            value: data.value.clone(),
            homes: self.names_of(&targets),
        });
        for &to in &targets {
            let msg = RingMsg::Store {
                req,
                key: key.clone(),
                data: data.clone(),
                hint_for: None,
                repair: false,
            };
            ctx.send(to, msg);
        }
        let op = WriteOp {
            key,
            data,
            quorums,
            targets,
            acked: BTreeSet::new(),
            standins: BTreeMap::new(),
            covered: BTreeMap::new(),
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

    pub(crate) fn on_store_ack(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        req: u64,
        hinted: bool,
    ) {
        let w = self.cfg.w as usize;
        let standins_count = self.cfg.standins_count();
        let Some(c) = self.coord.as_mut() else { return };
        let Some(op) = c.writes.get_mut(&req) else {
            return;
        };
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
        {
            return;
        }
        op.confirmed = true;
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
        let nodes = self.names.len();
        let map = self
            .coord
            .as_ref()
            .and_then(|c| c.rebalance.as_ref())
            .map_or_else(|| self.map.clone(), |r| r.next.clone());
        let Some(c) = self.coord.as_mut() else { return };
        let Some(op) = c.writes.get_mut(&req) else {
            return;
        };
        op.round += 1;
        if op.round == 1 {
            let silent: Vec<NodeId> = op
                .targets
                .iter()
                .filter(|t| !op.acked.contains(t))
                .copied()
                .collect();
            let walk = map.walk(&op.key, nodes);
            let mut spare = walk
                .into_iter()
                .skip(rf)
                .filter(|n| !op.targets.contains(n));
            let mut notes = Vec::new();
            for home in silent {
                let Some(standin) = spare.next() else { break };
                op.standins.insert(standin, home);
                notes.push((home, standin));
                let msg = RingMsg::Store {
                    req,
                    key: op.key.clone(),
                    data: op.data.clone(),
                    hint_for: Some(home),
                    repair: false,
                };
                ctx.send(standin, msg);
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
        let c = self.coord.as_mut().expect("coordinator");
        let req = c.req();
        ctx.note(RingNote::ReadStarted {
            req,
            key: key.clone(),
        });
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
                key,
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
    ) {
        let r = self.cfg.r as usize;
        let names = self.names.clone();
        let Some(c) = self.coord.as_mut() else { return };
        let Some(op) = c.reads.get_mut(&req) else {
            return;
        };
        if !op.homes.contains(&from) || op.replies.contains_key(&from) {
            return;
        }
        let version = data.as_ref().map_or(0, |d| d.version);
        op.replies.insert(from, version);
        if let Some(d) = data
            && op.best.as_ref().is_none_or(|b| b.version < d.version)
        {
            op.best = Some(d);
        }
        if !op.answered && op.replies.len() >= r {
            op.answered = true;
            let best = op.best.clone();
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
                    },
                );
            }
        }
        if op.replies.len() == op.homes.len() {
            c.reads.remove(&req);
            ctx.cancel_timer(RingTimer::Request(req));
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
        let key = format!("clave-{}", i % keys);
        if i < keys || (i - keys) % 2 == 1 {
            self.put(ctx, key, format!("valor-{i}"));
        } else {
            self.get(ctx, key);
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
        let mut participants = self.map.members();
        participants.extend(next.members());
        participants.sort();
        participants.dedup();
        let epoch = next.epoch();
        ctx.note(RingNote::OwnershipChanged {
            epoch,
            change: format!("{what} {name}"),
            node: name.to_string(),
            members: self.names_of(&next.members()),
        });
        // The ideal: the new node's fair share of the copies (a join), or the leaver's.
        let c = self.coord.as_ref().expect("coordinator");
        let (copies, bytes) = c
            .versions
            .values()
            .fold((0u64, 0u64), |(k, b), &(_, size)| (k + 1, b + size));
        let rf = u64::from(self.cfg.rf);
        let share = if join {
            next.members().len()
        } else {
            self.map.members().len()
        } as u64;
        for &to in &participants {
            ctx.send(to, RingMsg::Rebalance { epoch, change });
        }
        ctx.set_timer(
            RingTimer::RebalanceRetry,
            Duration::from_millis(self.cfg.rpc_timeout_ms * 4),
        );
        let c = self.coord.as_mut().expect("coordinator");
        c.rebalance = Some(Rebalancing {
            next,
            started: ctx.now(),
            waiting: participants.iter().copied().collect(),
            participants,
            moved_keys: 0,
            moved_bytes: 0,
            ideal_keys: copies * rf / share,
            ideal_bytes: bytes * rf / share,
        });
    }

    pub(crate) fn on_rebalance_retry(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(r) = self.coord.as_ref().and_then(|c| c.rebalance.as_ref()) else {
            return;
        };
        let epoch = r.next.epoch();
        let change = r.next.last_change();
        for &to in &r.waiting {
            ctx.send(to, RingMsg::Rebalance { epoch, change });
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
        keys: u64,
        bytes: u64,
    ) {
        let Some(c) = self.coord.as_mut() else { return };
        let Some(r) = c.rebalance.as_mut() else {
            return;
        };
        if r.next.epoch() != epoch || !r.waiting.remove(&from) {
            return;
        }
        r.moved_keys += keys;
        r.moved_bytes += bytes;
        if !r.waiting.is_empty() {
            return;
        }
        let r = c.rebalance.take().expect("present");
        ctx.cancel_timer(RingTimer::RebalanceRetry);
        ctx.note(RingNote::RebalanceDone {
            epoch,
            moved_keys: r.moved_keys,
            moved_bytes: r.moved_bytes,
            ideal_keys: r.ideal_keys,
            ideal_bytes: r.ideal_bytes,
            took_ms: ctx.now().saturating_since(r.started).as_millis(),
        });
        for &to in &r.participants {
            ctx.send(to, RingMsg::Cleanup { epoch });
        }
        self.map = r.next;
    }
}
