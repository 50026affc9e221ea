//! The client role: an informed client (text 000, section 9, "cliente informado"; Redis
//! Cluster's smart client) that routes each request to the key's owner in its cached map.
//!
//! The client sends one request at a time to the first home of the key in its map (or to the
//! node a redirect named for that key). A node that does not own the key answers `Moved` with
//! the owner in its own map; the client remembers that owner for the key (Redis updates one
//! slot from a MOVED) and retries there, at most [`MAX_REDIRECTS`] times per request. The
//! whole map reaches the client only `map_delay_ms` after a rebalance ends (`MapUpdate`, resent
//! until the client acknowledges it with `MapAck`), and replaces the per-key redirects. A request with no answer in `4 × rpc_timeout_ms` is given
//! up (`GaveUp`): the owner coordinates a quorum with a stand-in round, so it answers within
//! two timeouts unless it is down.

use crate::ring::live::map::Map;
use crate::ring::live::msg::{RingCommand, RingMsg, RingTimer};
use crate::ring::live::node::RingNode;
use crate::ring::live::notes::RingNote;
use sim_core::{Context, Duration, NodeId};
use std::collections::{BTreeMap, VecDeque};

/// Redirects one request may follow before the client gives it up (a stale owner can name
/// another stale owner; Redis clients bound this too).
pub const MAX_REDIRECTS: u32 = 3;

/// A client's state: per-key redirects learned, the queue of operations and the one in flight.
/// Its cached map is the node's `map`.
#[derive(Clone, Debug, Default, Hash)]
pub struct Client {
    moved: BTreeMap<String, NodeId>,
    next_id: u64,
    queue: VecDeque<(String, Option<String>)>,
    current: Option<Pending>,
    load: Option<(u32, u32, u64, u32)>,
}

#[derive(Clone, Debug, Hash)]
struct Pending {
    id: u64,
    key: String,
    value: Option<String>,
    to: NodeId,
    redirects: u32,
}

/// The `i`-th operation of a `Load` over `keys` keys: first a write of each key, then reads
/// and writes in turn (`None`: a read). Shared by the coordinator's and the clients' loads.
pub(crate) fn load_op(i: u32, keys: u32) -> (String, Option<String>) {
    let key = format!("clave-{}", i % keys);
    if i < keys || (i - keys) % 2 == 1 {
        (key, Some(format!("valor-{i}")))
    } else {
        (key, None)
    }
}

impl RingNode {
    fn client_timeout(&self) -> Duration {
        Duration::from_millis(self.cfg.rpc_timeout_ms * 4)
    }

    pub(crate) fn client_command(&mut self, ctx: &mut Context<'_, Self>, command: RingCommand) {
        let Some(c) = self.client.as_mut() else {
            return;
        };
        match command {
            RingCommand::Put { key, value } => c.queue.push_back((key, Some(value))),
            RingCommand::Get { key } => c.queue.push_back((key, None)),
            RingCommand::Load {
                keys,
                ops,
                every_ms,
            } => {
                c.load = Some((keys.max(1), ops, every_ms, 0));
                self.on_client_load(ctx);
                return;
            }
            RingCommand::Join(_) | RingCommand::Leave(_) => return,
        }
        self.client_next(ctx);
    }

    pub(crate) fn on_client_load(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(c) = self.client.as_mut() else {
            return;
        };
        let Some((keys, ops, every, done)) = c.load.as_mut() else {
            return;
        };
        if *done >= *ops {
            return;
        }
        let op = load_op(*done, *keys);
        *done += 1;
        if *done < *ops {
            ctx.set_timer(RingTimer::ClientLoad, Duration::from_millis(*every));
        }
        c.queue.push_back(op);
        self.client_next(ctx);
    }

    /// Starts the next queued operation if none is in flight.
    fn client_next(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(c) = self.client.as_mut() else {
            return;
        };
        if c.current.is_some() {
            return;
        }
        let Some((key, value)) = c.queue.pop_front() else {
            return;
        };
        let to = match c.moved.get(&key) {
            Some(&owner) => owner,
            None => self.map.homes(&key)[0],
        };
        let c = self.client.as_mut().expect("client");
        c.current = Some(Pending {
            id: 0,
            key,
            value,
            to,
            redirects: 0,
        });
        self.client_send(ctx);
    }

    /// Sends the request in flight (again) under a fresh id, to its current target.
    fn client_send(&mut self, ctx: &mut Context<'_, Self>) {
        let timeout = self.client_timeout();
        let Some(c) = self.client.as_mut() else {
            return;
        };
        c.next_id += 1;
        let id = c.next_id;
        let Some(p) = c.current.as_mut() else { return };
        p.id = id;
        let msg = RingMsg::Request {
            id,
            key: p.key.clone(),
            value: p.value.clone(),
        };
        ctx.send(p.to, msg);
        ctx.set_timer(RingTimer::ClientTimeout(id), timeout);
    }

    fn client_finish(&mut self, ctx: &mut Context<'_, Self>, note: RingNote) {
        let Some(c) = self.client.as_mut() else {
            return;
        };
        if let Some(p) = c.current.take() {
            ctx.cancel_timer(RingTimer::ClientTimeout(p.id));
        }
        ctx.note(note);
        self.client_next(ctx);
    }

    pub(crate) fn on_reply(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        id: u64,
        (ok, version, value): (bool, u64, String),
    ) {
        let Some(p) = self.client.as_ref().and_then(|c| c.current.as_ref()) else {
            return;
        };
        if p.id != id {
            return;
        }
        let note = RingNote::Answered {
            client: self.name().to_string(),
            key: p.key.clone(),
            write: p.value.is_some(),
            ok,
            version,
            value,
            node: self.name_of(from),
        };
        self.client_finish(ctx, note);
    }

    pub(crate) fn on_moved(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        (id, key, epoch, owner): (u64, String, u64, NodeId),
    ) {
        let me = self.name().to_string();
        let (from_name, owner_name) = (self.name_of(from), self.name_of(owner));
        let Some(c) = self.client.as_mut() else {
            return;
        };
        let Some(p) = c.current.as_mut() else { return };
        if p.id != id {
            return;
        }
        ctx.cancel_timer(RingTimer::ClientTimeout(id));
        p.redirects += 1;
        p.to = owner;
        let attempt = p.redirects;
        c.moved.insert(key.clone(), owner);
        ctx.note(RingNote::Redirected {
            client: me.clone(),
            key: key.clone(),
            from: from_name,
            to: owner_name,
            epoch,
            attempt,
        });
        if attempt > MAX_REDIRECTS {
            let reason = format!("more than {MAX_REDIRECTS} redirects");
            let note = RingNote::GaveUp {
                client: me,
                key,
                reason,
            };
            return self.client_finish(ctx, note);
        }
        self.client_send(ctx);
    }

    pub(crate) fn on_client_timeout(&mut self, ctx: &mut Context<'_, Self>, id: u64) {
        let Some(p) = self.client.as_ref().and_then(|c| c.current.as_ref()) else {
            return;
        };
        if p.id != id {
            return;
        }
        let note = RingNote::GaveUp {
            client: self.name().to_string(),
            key: p.key.clone(),
            reason: format!("no answer from {} in time", self.name_of(p.to)),
        };
        self.client_finish(ctx, note);
    }

    pub(crate) fn on_map_update(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        log: &[crate::ring::live::map::Change],
    ) {
        let Some(c) = self.client.as_mut() else {
            return;
        };
        let epoch = log.len() as u64;
        ctx.send(from, RingMsg::MapAck { epoch });
        if epoch <= self.map.epoch() {
            return;
        }
        c.moved.clear();
        self.map = Map::replay(&self.cfg, log);
        ctx.note(RingNote::MapLearned {
            client: self.name().to_string(),
            epoch: self.map.epoch(),
        });
    }
}
