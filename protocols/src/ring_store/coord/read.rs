//! Reads: ask the homes, answer with the newest of the first R replies (or, for an owner's
//! version read, resume the client's write), repair the replicas that answered older, and
//! start again on the newer map when a replica answers "moved".

use super::{ClientRequest, Coord, Resume, WaitingWrite};
use crate::ring_store::env::{Env, RingActor};
use crate::ring_store::msg::{RingMsg, RingTimer, Versioned};
use crate::ring_store::notes::RingNote;
use crate::ring_store::storage::Storage;
use sim_core::{Context, NodeId};
use std::collections::BTreeMap;

/// A read in flight.
#[derive(Clone, Debug, Hash)]
pub(super) struct ReadOp {
    asker: Option<ClientRequest>,
    key: String,
    /// A version read: the client's write that waits for it (`None`: an ordinary read).
    then_write: Option<WaitingWrite>,
    homes: Vec<NodeId>,
    /// Who replied, with the version each holds (0: nothing).
    replies: BTreeMap<NodeId, u64>,
    best: Option<Versioned>,
    /// Replicas sent the newest by read repair, with the version sent.
    repaired: BTreeMap<NodeId, u64>,
    answered: bool,
}

impl Coord {
    /// A scenario's read on the coordinator, from the homes in its map.
    pub(super) fn get<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        key: String,
    ) {
        let homes = storage.map().homes(&key);
        self.start_read(ctx, env, key, homes, None, None);
    }

    /// Starts a read of `key` from `homes`, answered at R replies; with `then_write`, a
    /// version read whose answer numbers the client's write instead (see `serve`).
    pub fn start_read<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        key: String,
        homes: Vec<NodeId>,
        asker: Option<ClientRequest>,
        then_write: Option<WaitingWrite>,
    ) {
        let req = self.req();
        if then_write.is_none() {
            ctx.note(RingNote::ReadStarted {
                req,
                key: key.clone(),
            });
        }
        let op = ReadOp {
            asker,
            key,
            then_write,
            homes,
            replies: BTreeMap::new(),
            best: None,
            repaired: BTreeMap::new(),
            answered: false,
        };
        op.ask(ctx, req);
        self.reads.insert(req, op);
        ctx.set_timer(RingTimer::Request(req), env.timeout());
    }

    /// A home replied `data` to read `req`: counted; at R replies the read is answered; the
    /// stale replicas are repaired; when every home replied the read is done. A version read's
    /// answer resumes the client's write (see `serve`).
    pub(super) fn on_read_reply<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        from: NodeId,
        req: u64,
        data: Option<Versioned>,
    ) {
        let era = self.era(storage);
        let Some(op) = self.reads.get_mut(&req) else {
            return;
        };
        if !op.awaits(from) {
            return;
        }
        op.count(from, data);
        let resume = op.answer(ctx, env, req);
        op.repair(ctx, env, req, era);
        if op.replies.len() == op.homes.len() {
            self.reads.remove(&req);
            ctx.cancel_timer(RingTimer::Request(req));
        }
        if let Some(resume) = resume {
            self.resume_write(ctx, env, storage, resume);
        }
    }

    /// A home answered read `req` "moved": it cleaned up after a move this read started
    /// before. Ask the key's homes in this node's newer map instead (if it has one; else the
    /// reply is not counted and the read times out).
    pub(super) fn on_moved_reply<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        storage: &Storage,
        from: NodeId,
        req: u64,
    ) {
        let Some(op) = self.reads.get_mut(&req) else {
            return;
        };
        if !op.awaits(from) {
            return;
        }
        let homes = storage.map().homes(&op.key);
        if homes == op.homes || op.answered {
            return;
        }
        op.homes = homes;
        op.replies.clear();
        op.best = None;
        op.repaired.clear();
        op.ask(ctx, req);
    }
}

impl ReadOp {
    /// Sends `Read` to every home.
    fn ask<A: RingActor>(&self, ctx: &mut Context<'_, A>, req: u64) {
        for &to in &self.homes {
            let msg = RingMsg::Read {
                req,
                key: self.key.clone(),
            };
            ctx.send(to, msg);
        }
    }

    /// Whether a reply from `from` counts: a home that has not replied yet.
    fn awaits(&self, from: NodeId) -> bool {
        self.homes.contains(&from) && !self.replies.contains_key(&from)
    }

    /// Counts `from`'s reply, keeping the newest version seen.
    fn count(&mut self, from: NodeId, data: Option<Versioned>) {
        let version = data.as_ref().map_or(0, |d| d.version);
        self.replies.insert(from, version);
        if let Some(d) = data
            && self.best.as_ref().is_none_or(|b| b.version < d.version)
        {
            self.best = Some(d);
        }
    }

    /// At the R-th reply: a version read notes the newest version and returns the write to
    /// resume; an ordinary read answers the client and notes the result.
    fn answer<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        req: u64,
    ) -> Option<Resume> {
        if self.answered || self.replies.len() < env.cfg.r as usize {
            return None;
        }
        self.answered = true;
        let version = self.best.as_ref().map_or(0, |b| b.version);
        let from: Vec<NodeId> = self.replies.keys().copied().collect();
        if let Some(waiting) = &self.then_write {
            ctx.note(RingNote::VersionRead {
                key: self.key.clone(),
                version,
                from: env.names_of(&from),
            });
            return self.asker.map(|asker| Resume {
                asker,
                key: self.key.clone(),
                value: waiting.value.clone(),
                epoch: waiting.epoch,
                version,
            });
        }
        let value = self
            .best
            .as_ref()
            .map_or(String::new(), |b| b.value.clone());
        if let Some(asker) = self.asker {
            asker.reply(ctx, true, version, value.clone());
        }
        ctx.note(RingNote::ReadResult {
            req,
            key: self.key.clone(),
            version,
            value,
            from: env.names_of(&from),
        });
        None
    }

    /// Read repair, once answered: every replica that answered older than the newest seen
    /// (and was not already sent it) gets the newest.
    fn repair<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env, req: u64, era: u64) {
        if !self.answered {
            return;
        }
        let Some(best) = self.best.clone() else {
            return;
        };
        let stale: Vec<(NodeId, u64)> = self
            .replies
            .iter()
            .filter(|&(n, &v)| {
                v < best.version && self.repaired.get(n).is_none_or(|&s| s < best.version)
            })
            .map(|(&n, &v)| (n, v))
            .collect();
        for (node, had) in stale {
            self.repaired.insert(node, best.version);
            ctx.note(RingNote::Repairing {
                key: self.key.clone(),
                node: env.name_of(node),
                had,
                version: best.version,
            });
            let msg = RingMsg::Store {
                req,
                key: self.key.clone(),
                data: best.clone(),
                hint_for: None,
                repair: true,
                era,
            };
            ctx.send(node, msg);
        }
    }

    /// The read timed out: if unanswered, it failed.
    pub(super) fn time_out<A: RingActor>(self, ctx: &mut Context<'_, A>, env: &Env, req: u64) {
        if self.answered {
            return;
        }
        if let Some(asker) = self.asker {
            asker.reply(ctx, false, 0, String::new());
        }
        ctx.note(RingNote::ReadFailed {
            req,
            key: self.key,
            got: self.replies.len() as u32,
            needed: env.cfg.r,
        });
    }
}
