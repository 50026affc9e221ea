//! Writes: numbering, sending to the homes (the next owner first during a move), counting acks
//! against W in every home set, stand-ins for silent homes, and failure after two timeouts.

use super::{ClientRequest, Coord, NewWrite};
use crate::ring_store::env::{Env, RingActor};
use crate::ring_store::map::Map;
use crate::ring_store::msg::{Entry, RingMsg, RingTimer, Versioned};
use crate::ring_store::notes::RingNote;
use crate::ring_store::storage::Storage;
use sim_core::{Context, NodeId};
use std::collections::{BTreeMap, BTreeSet};

/// A write in flight.
#[derive(Clone, Debug, Hash)]
pub(super) struct WriteOp {
    asker: Option<ClientRequest>,
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

impl Coord {
    /// A scenario's write on the coordinator: its map's homes, and the next map's during a
    /// rebalance; then, under the dynamic scheme, a split if the key's range grew too big.
    pub(super) fn put<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        key: String,
        value: String,
    ) {
        let next = self.moving_to().cloned();
        let write = NewWrite {
            key,
            value,
            map: storage.map(),
            next: next.as_ref(),
            must: None,
            asker: None,
        };
        self.start_write(ctx, env, storage, write);
        self.maybe_split(ctx, env, storage);
    }

    /// Starts `write`, numbered one past the newest version this node gave or holds.
    pub fn start_write<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        write: NewWrite<'_>,
    ) {
        let walk = write
            .next
            .unwrap_or(write.map)
            .walk(&write.key, env.names.len());
        let (quorums, targets) = homes_of(&write);
        let req = self.req();
        let data = self.number(&write.key, write.value, storage.version_of(&write.key));
        ctx.note(RingNote::WriteStarted {
            key: write.key.clone(),
            version: data.version,
            value: data.value.clone(),
            homes: env.names_of(&targets),
        });
        let op = WriteOp {
            asker: write.asker,
            key: write.key,
            data,
            quorums,
            targets,
            acked: BTreeSet::new(),
            standins: BTreeMap::new(),
            covered: BTreeMap::new(),
            must: write.must,
            gated: write.must.is_some(),
            walk,
            confirmed: false,
            round: 0,
        };
        op.send_first(ctx, req, self.era(storage));
        self.writes.insert(req, op);
        ctx.set_timer(RingTimer::Request(req), env.timeout());
    }

    /// The next version of `key`: one past the newest this node gave or `held`.
    fn number(&mut self, key: &str, value: String, held: u64) -> Versioned {
        let slot = self.versions.entry(key.to_string()).or_default();
        let before = slot.version;
        slot.version = slot.version.max(held) + 1;
        assert!(
            slot.version > before && slot.version > held,
            "a new version numbers past every version given or seen"
        );
        let data = Versioned {
            version: slot.version,
            value,
        };
        slot.bytes = Entry {
            key: key.to_string(),
            data: data.clone(),
        }
        .bytes();
        data
    }

    /// The map moves to `next` while writes are in flight: each is also sent to its new homes
    /// and needs W acks there too, so no write sent under the old map misses the stream.
    pub fn extend_writes<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        next: &Map,
    ) {
        let era = self.era(storage);
        for (&req, op) in self.writes.iter_mut() {
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
            op.walk = next.walk(&op.key, env.names.len());
        }
    }

    /// A replica (or, `hinted`, a stand-in) kept write `req`: at W in every home set (and the
    /// next owner's ack, if needed) the write is confirmed; once every target acked it is done.
    pub(super) fn on_store_ack<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        from: NodeId,
        req: u64,
        hinted: bool,
    ) {
        let era = self.era(storage);
        let Some(op) = self.writes.get_mut(&req) else {
            return;
        };
        if op.gated && !hinted && op.must == Some(from) {
            // The next owner kept it: now the other homes.
            op.ungate(ctx, req, era, from);
        }
        if !op.count_ack(from, hinted) || op.confirmed {
            return;
        }
        let standins_count = env.cfg.standins_count();
        if !op.quorum_met(env.cfg.w as usize, standins_count) {
            return;
        }
        op.confirm(ctx, env, standins_count);
        if op.acked.len() == op.targets.len() {
            self.writes.remove(&req);
            ctx.cancel_timer(RingTimer::Request(req));
        }
    }

    /// First timeout: a stand-in for every silent home. Second: the write failed if not
    /// confirmed by then.
    pub(super) fn write_timeout<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        req: u64,
    ) {
        let era = self.era(storage);
        let Some(op) = self.writes.get_mut(&req) else {
            return;
        };
        op.round += 1;
        if op.round == 1 && op.gated {
            // The next owner has not kept it: nothing else is sent (it fails next round).
            ctx.set_timer(RingTimer::Request(req), env.timeout());
            return;
        }
        if op.round == 1 {
            op.send_to_standins(ctx, env, req, era);
            ctx.set_timer(RingTimer::Request(req), env.timeout());
            return;
        }
        let op = self.writes.remove(&req).expect("present");
        if !op.confirmed {
            op.fail(ctx, env);
        }
    }
}

/// A write's home sets (its map's, and the next map's during a move) and every node it goes to
/// (the homes, then `must` if it is none of them).
fn homes_of(write: &NewWrite<'_>) -> (Vec<Vec<NodeId>>, Vec<NodeId>) {
    let homes = write.map.homes(&write.key);
    let mut targets = homes.clone();
    let mut quorums = vec![homes];
    if let Some(next) = write.next.map(|m| m.homes(&write.key)) {
        targets.extend(next.iter().filter(|n| !quorums[0].contains(n)));
        quorums.push(next);
    }
    if let Some(m) = write.must
        && !targets.contains(&m)
    {
        targets.push(m);
    }
    (quorums, targets)
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

    /// The first sends: to every target, or to `must` alone while gated.
    fn send_first<A: RingActor>(&self, ctx: &mut Context<'_, A>, req: u64, era: u64) {
        for &to in &self.targets {
            if self.gated && Some(to) != self.must {
                continue;
            }
            ctx.send(to, self.store(req, era, None));
        }
    }

    /// The next owner (`from`) kept it: the other targets get it now.
    fn ungate<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, req: u64, era: u64, from: NodeId) {
        self.gated = false;
        for &to in self.targets.iter().filter(|&&t| t != from) {
            ctx.send(to, self.store(req, era, None));
        }
    }

    /// Counts an ack from `from`; false if it names a stand-in this write did not pick.
    fn count_ack(&mut self, from: NodeId, hinted: bool) -> bool {
        if !hinted {
            self.acked.insert(from);
            return true;
        }
        let Some(&home) = self.standins.get(&from) else {
            return false;
        };
        self.covered.insert(home, from);
        true
    }

    /// Whether every home set has W acks (a stand-in's counting for its home if
    /// `standins_count`) and `must`, if any, has acked.
    fn quorum_met(&self, w: usize, standins_count: bool) -> bool {
        let counts = |home: &NodeId| {
            self.acked.contains(home) || (standins_count && self.covered.contains_key(home))
        };
        self.quorums
            .iter()
            .all(|q| q.iter().filter(|h| counts(h)).count() >= w)
            && self.must.is_none_or(|m| self.acked.contains(&m))
    }

    /// Confirmed: the client hears it, and the note names who holds it (stand-ins apart).
    fn confirm<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env, standins_count: bool) {
        self.confirmed = true;
        if let Some(asker) = self.asker {
            asker.reply(ctx, true, self.data.version, String::new());
        }
        let mut by = Vec::new();
        let mut standins = Vec::new();
        for home in &self.targets {
            if self.acked.contains(home) {
                by.push(*home);
            } else if standins_count && let Some(&s) = self.covered.get(home) {
                by.push(s);
                standins.push(s);
            }
        }
        ctx.note(RingNote::Acked {
            key: self.key.clone(),
            version: self.data.version,
            value: self.data.value.clone(),
            by: env.names_of(&by),
            standins: env.names_of(&standins),
            w: env.cfg.w,
            home_sets: self.quorums.len() as u32,
        });
    }

    /// The first timeout: each silent target gets a stand-in, the next node of the walk past
    /// the homes that is no target, which keeps the write as a hint for it.
    fn send_to_standins<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        req: u64,
        era: u64,
    ) {
        let silent: Vec<NodeId> = self
            .targets
            .iter()
            .filter(|t| !self.acked.contains(t))
            .copied()
            .collect();
        let mut spare = self
            .walk
            .clone()
            .into_iter()
            .skip(env.cfg.rf as usize)
            .filter(|n| !self.targets.contains(n));
        let mut picked = Vec::new();
        for home in silent {
            let Some(standin) = spare.next() else { break };
            self.standins.insert(standin, home);
            picked.push((home, standin));
            ctx.send(standin, self.store(req, era, Some(home)));
        }
        for (home, standin) in picked {
            ctx.note(RingNote::HintSent {
                key: self.key.clone(),
                version: self.data.version,
                home: env.name_of(home),
                standin: env.name_of(standin),
            });
        }
    }

    /// The second timeout without confirmation: the write failed.
    fn fail<A: RingActor>(self, ctx: &mut Context<'_, A>, env: &Env) {
        if let Some(asker) = self.asker {
            asker.reply(ctx, false, self.data.version, String::new());
        }
        let acks = self.quorums[0]
            .iter()
            .filter(|h| self.acked.contains(h))
            .count() as u32;
        ctx.note(RingNote::WriteFailed {
            key: self.key,
            version: self.data.version,
            acks,
            needed: env.cfg.w,
        });
    }
}
