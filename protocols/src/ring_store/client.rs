//! The client role: an informed client (text 000, section 9, "cliente informado"; Redis
//! Cluster's smart client) that routes each request to the key's owner in its cached map.
//!
//! The client sends one request at a time to the first home of the key in its map (or to the
//! node a redirect named for that key). A node that does not own the key answers `Moved` with
//! the owner in its own map; the client remembers that owner for the key (Redis updates one
//! slot from a MOVED) and retries there, at most [`MAX_REDIRECTS`] times per request. The
//! whole map reaches the client only `map_delay_ms` after a rebalance ends (`MapUpdate`, resent
//! until the client acknowledges it with `MapAck`), and replaces the per-key redirects. A
//! request with no answer in `4 × rpc_timeout_ms` is given up (`GaveUp`): the owner
//! coordinates a quorum with a stand-in round, so it answers within two timeouts unless it is
//! down. A client node has this role only: it stores nothing.

use crate::ring_store::env::{Env, RingActor};
use crate::ring_store::load::{Load, Op};
use crate::ring_store::map::{Change, Map};
use crate::ring_store::msg::{RingCommand, RingMsg, RingTimer};
use crate::ring_store::notes::RingNote;
use sim_core::{Context, NodeId};
use std::collections::{BTreeMap, VecDeque};

/// Redirects one request may follow before the client gives it up (a stale owner can name
/// another stale owner; Redis clients bound this too).
pub const MAX_REDIRECTS: u32 = 3;

/// A client's state: its cached map, per-key redirects learned, the queue of operations and
/// the one in flight. The map is durable; the rest is lost in a crash.
#[derive(Clone, Debug, Hash)]
pub struct Client {
    map: Map,
    moved: BTreeMap<String, NodeId>,
    next_id: u64,
    queue: VecDeque<Op>,
    current: Option<Pending>,
    load: Option<Load>,
}

/// The request in flight: under which id, to whom, after how many redirects.
#[derive(Clone, Debug, Hash)]
struct Pending {
    id: u64,
    op: Op,
    to: NodeId,
    redirects: u32,
}

impl Client {
    /// A client that routes by `map` and has nothing to do yet.
    pub fn new(map: Map) -> Client {
        Client {
            map,
            moved: BTreeMap::new(),
            next_id: 0,
            queue: VecDeque::new(),
            current: None,
            load: None,
        }
    }

    /// The cached map.
    pub fn map(&self) -> &Map {
        &self.map
    }

    /// Forgets what a crash loses: everything but the cached map.
    pub fn crash(&mut self) {
        *self = Client::new(self.map.clone());
    }

    /// A scenario's `Put`, `Get` or `Load` (a client ignores membership commands).
    pub fn on_command<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        command: RingCommand,
    ) {
        match command {
            RingCommand::Put { key, value } => self.queue.push_back(Op {
                key,
                value: Some(value),
            }),
            RingCommand::Get { key } => self.queue.push_back(Op { key, value: None }),
            RingCommand::Load {
                keys,
                ops,
                every_ms,
            } => {
                self.load = Some(Load::new(keys, ops, every_ms));
                self.on_load(ctx, env);
                return;
            }
            RingCommand::Join(_) | RingCommand::Leave(_) => return,
        }
        self.next(ctx, env);
    }

    /// The next operation of the load joins the queue.
    pub fn on_load<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env) {
        let Some(load) = self.load.as_mut() else {
            return;
        };
        let Some(op) = load.next_op() else { return };
        if load.more() {
            ctx.set_timer(RingTimer::ClientLoad, load.every());
        }
        self.queue.push_back(op);
        self.next(ctx, env);
    }

    /// An owner's or a node's answer to the request in flight, or the coordinator's map.
    pub fn on_message<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        from: NodeId,
        msg: RingMsg,
    ) {
        match msg {
            RingMsg::Reply {
                id,
                ok,
                version,
                value,
            } => {
                let Some(p) = self.in_flight(id) else { return };
                let note = RingNote::Answered {
                    client: env.name().to_string(),
                    key: p.op.key.clone(),
                    write: p.op.value.is_some(),
                    ok,
                    version,
                    value,
                    node: env.name_of(from),
                };
                self.finish(ctx, env, note);
            }
            RingMsg::Moved {
                id,
                key,
                epoch,
                owner,
            } => {
                let Some(attempt) = self.redirect(ctx, id, &key, owner) else {
                    return;
                };
                ctx.note(RingNote::Redirected {
                    client: env.name().to_string(),
                    key: key.clone(),
                    from: env.name_of(from),
                    to: env.name_of(owner),
                    epoch,
                    attempt,
                });
                self.retry(ctx, env, key, attempt);
            }
            RingMsg::MapUpdate { log } => self.on_map_update(ctx, env, from, &log),
            // A client is no replica and coordinates nothing: the rest is not for it.
            _ => {}
        }
    }

    /// The request in flight, if its id is `id`.
    fn in_flight(&self, id: u64) -> Option<&Pending> {
        self.current.as_ref().filter(|p| p.id == id)
    }

    /// Starts the next queued operation if none is in flight.
    fn next<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env) {
        if self.current.is_some() {
            return;
        }
        let Some(op) = self.queue.pop_front() else {
            return;
        };
        let to = match self.moved.get(&op.key) {
            Some(&owner) => owner,
            None => self.map.homes(&op.key)[0],
        };
        self.current = Some(Pending {
            id: 0,
            op,
            to,
            redirects: 0,
        });
        self.send(ctx, env);
    }

    /// Sends the request in flight (again) under a fresh id, to its current target.
    fn send<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env) {
        self.next_id += 1;
        let id = self.next_id;
        let Some(p) = self.current.as_mut() else {
            return;
        };
        p.id = id;
        let msg = RingMsg::Request {
            id,
            key: p.op.key.clone(),
            value: p.op.value.clone(),
        };
        ctx.send(p.to, msg);
        ctx.set_timer(RingTimer::ClientTimeout(id), env.timeouts(4));
    }

    /// The request in flight is over (`note` says how); the next one starts.
    fn finish<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env, note: RingNote) {
        if let Some(p) = self.current.take() {
            ctx.cancel_timer(RingTimer::ClientTimeout(p.id));
        }
        ctx.note(note);
        self.next(ctx, env);
    }

    /// The request in flight, if its id is `id`, was redirected to `owner` for `key`: it
    /// goes there next, and so does every later request for `key`. The attempt's number.
    fn redirect<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        id: u64,
        key: &str,
        owner: NodeId,
    ) -> Option<u32> {
        let p = self.current.as_mut().filter(|p| p.id == id)?;
        ctx.cancel_timer(RingTimer::ClientTimeout(id));
        p.redirects += 1;
        p.to = owner;
        self.moved.insert(key.to_string(), owner);
        Some(p.redirects)
    }

    /// Sends the redirected request again, unless this was one redirect too many.
    fn retry<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        key: String,
        attempt: u32,
    ) {
        if attempt > MAX_REDIRECTS {
            let note = RingNote::GaveUp {
                client: env.name().to_string(),
                key,
                reason: format!("more than {MAX_REDIRECTS} redirects"),
            };
            return self.finish(ctx, env, note);
        }
        self.send(ctx, env);
    }

    /// Request `id` got no answer in time: give it up.
    pub fn on_timeout<A: RingActor>(&mut self, ctx: &mut Context<'_, A>, env: &Env, id: u64) {
        let Some(p) = self.in_flight(id) else { return };
        let note = RingNote::GaveUp {
            client: env.name().to_string(),
            key: p.op.key.clone(),
            reason: format!("no answer from {} in time", env.name_of(p.to)),
        };
        self.finish(ctx, env, note);
    }

    /// The coordinator's map, as its log: acknowledged, and learned if newer than the cache
    /// (the per-key redirects are then forgotten).
    fn on_map_update<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        from: NodeId,
        log: &[Change],
    ) {
        let epoch = log.len() as u64;
        ctx.send(from, RingMsg::MapAck { epoch });
        if epoch <= self.map.epoch() {
            return;
        }
        self.moved.clear();
        self.map = Map::replay(&env.initial, log);
        ctx.note(RingNote::MapLearned {
            client: env.name().to_string(),
            epoch: self.map.epoch(),
        });
    }
}
