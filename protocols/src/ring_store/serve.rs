//! Storage nodes serving clients: the owner coordinates, anyone else answers `Moved`.
//!
//! This is Dynamo's "any node coordinates, preferably the key's first home" with Redis
//! Cluster's rule for a node that is not the owner: it does not proxy, it redirects. A node
//! serves a key when it is the key's first home in its *serving* map: the old map while a
//! rebalance is under way (reads still use it; writes also go to the new homes, and the next
//! owner must ack them, so it holds every version it will number after), the new one after
//! `Cleanup`. Any other node answers `Moved` with the owner in its serving map.
//!
//! The owner numbers the key's writes one past the newest version it gave or holds, once it
//! knows the key's latest version: it has owned the key in every map since epoch 0 (no one
//! else ever numbered it), or, since it last took the key over, it read R of the key's homes
//! (a *version read*, newest wins). A new owner that was an old home may have missed
//! confirmed writes (W acks were enough), so what it holds is not enough; every confirmed
//! version is on W of the key's homes, and R + W > RF, so the version read sees the newest.

use crate::ring_store::coord::{ClientRequest, Coord, NewWrite, Resume, WaitingWrite};
use crate::ring_store::env::{Env, RingActor};
use crate::ring_store::map::Map;
use crate::ring_store::msg::RingMsg;
use crate::ring_store::storage::Storage;
use sim_core::Context;

impl Coord {
    /// A client's request: coordinate it if this node owns `key`, else redirect.
    pub fn on_request<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        asker: ClientRequest,
        key: String,
        value: Option<String>,
    ) {
        if env.is_main() {
            return;
        }
        let Some(map) = owned_map(ctx, env, storage, asker, &key) else {
            return;
        };
        let Some(value) = value else {
            let homes = map.homes(&key);
            self.start_read(ctx, env, key, homes, Some(asker), None);
            return;
        };
        if !self.knows_version(env, &key, &map) {
            let homes = map.homes(&key);
            let then = WaitingWrite {
                value,
                epoch: map.epoch(),
            };
            self.start_read(ctx, env, key, homes, Some(asker), Some(then));
            return;
        }
        let next = storage.moving().then(|| storage.map());
        let must = next.map(|m| m.homes(&key)[0]).filter(|&n| n != env.id);
        let write = NewWrite {
            key,
            value,
            map: &map,
            next,
            must,
            asker: Some(asker),
        };
        self.start_write(ctx, env, storage, write);
    }

    /// A version read answered: the newest of R homes of the map of `resume.epoch` is
    /// `resume.version`. The owner knows the key from that epoch on and numbers past it; the
    /// request is routed again, since the map may have moved meanwhile.
    pub fn resume_write<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
        resume: Resume,
    ) {
        self.learn(&resume.key, resume.version, resume.epoch);
        let value = Some(resume.value);
        self.on_request(ctx, env, storage, resume.asker, resume.key, value);
    }

    /// Whether this node knows the latest version of `key`, which it owns in `map`: it has
    /// owned the key in every map since epoch 0, or read a quorum of its homes since it last
    /// took it over. A node that knows is remembered at `map`'s epoch, to skip the replay.
    fn knows_version(&mut self, env: &Env, key: &str, map: &Map) -> bool {
        let epoch = map.epoch();
        let known = self.known_since(key);
        if known == Some(epoch) {
            return true;
        }
        let since = owned_since(env, key, map);
        let knows = since == 0 || known.is_some_and(|e| since <= e && e <= epoch);
        if knows {
            self.know(key, epoch);
        }
        knows
    }
}

/// The map by which this node serves `key`: its serving map if it owns the key there (or, with
/// the `ignore_moved` bug, the old map it owned the key in). Otherwise it answers `Moved` with
/// the owner in its serving map, and `None`.
fn owned_map<A: RingActor>(
    ctx: &mut Context<'_, A>,
    env: &Env,
    storage: &Storage,
    asker: ClientRequest,
    key: &str,
) -> Option<Map> {
    let serving = storage.serving_map();
    let owner = serving.homes(key)[0];
    if owner == env.id {
        return Some(serving.clone());
    }
    // The bug: a node that owned the key in the previous map still serves it by that map.
    let stale = env.cfg.bugs.ignore_moved
        && !storage.moving()
        && storage
            .old()
            .is_some_and(|m| m.homes(key).first() == Some(&env.id));
    if stale {
        return storage.old().cloned();
    }
    let msg = RingMsg::Moved {
        id: asker.id,
        key: key.to_string(),
        epoch: serving.epoch(),
        owner,
    };
    ctx.send(asker.client, msg);
    None
}

/// The first epoch from which this node has owned `key` in every map up to `map`'s.
fn owned_since(env: &Env, key: &str, map: &Map) -> u64 {
    let mut at = (*env.initial).clone();
    let mut since = 0;
    for (epoch, &change) in map.log().iter().enumerate() {
        if at.homes(key)[0] != env.id {
            since = epoch as u64 + 1;
        }
        at.apply(change);
    }
    since
}
