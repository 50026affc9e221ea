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

use crate::ring::live::map::Map;
use crate::ring::live::msg::RingMsg;
use crate::ring::live::node::RingNode;
use sim_core::{Context, NodeId};

impl RingNode {
    /// A client's request: coordinate it if this node owns `key`, else redirect.
    pub(crate) fn on_request(
        &mut self,
        ctx: &mut Context<'_, Self>,
        from: NodeId,
        (id, key, value): (u64, String, Option<String>),
    ) {
        if self.coord.is_none() || self.is_main() {
            return;
        }
        let serving = self.serving_map().clone();
        let owner = serving.homes(&key)[0];
        // The bug: a node that owned the key in the previous map still serves it by that map.
        let stale = self.cfg.bugs.ignore_moved
            && !self.moving
            && self
                .old
                .as_ref()
                .is_some_and(|m| m.homes(&key).first() == Some(&self.id));
        if owner != self.id && !stale {
            let msg = RingMsg::Moved {
                id,
                key,
                epoch: serving.epoch(),
                owner,
            };
            ctx.send(from, msg);
            return;
        }
        let map = if owner == self.id {
            serving
        } else {
            self.old.clone().expect("checked")
        };
        let client = Some((from, id));
        let Some(value) = value else {
            let homes = map.homes(&key);
            self.start_read(ctx, key, homes, client, None);
            return;
        };
        if !self.knows_version(&key, &map) {
            let homes = map.homes(&key);
            let then = Some((value, map.epoch()));
            self.start_read(ctx, key, homes, client, then);
            return;
        }
        let next = self.moving.then(|| self.map.clone());
        let must = next
            .as_ref()
            .map(|m| m.homes(&key)[0])
            .filter(|&n| n != self.id);
        self.start_write(ctx, (key, value), &map, next.as_ref(), must, client);
    }

    /// A version read of `key` answered: the newest of R homes of the map of `epoch` is
    /// `version`. The owner knows the key from that epoch on and numbers past it; the request
    /// is routed again, since the map may have moved meanwhile.
    pub(crate) fn resume_write(
        &mut self,
        ctx: &mut Context<'_, Self>,
        (client, id): (NodeId, u64),
        (key, value): (String, String),
        (epoch, version): (u64, u64),
    ) {
        let Some(c) = self.coord.as_mut() else { return };
        let slot = c.versions.entry(key.clone()).or_insert((0, 0));
        slot.0 = slot.0.max(version);
        let known = c.known.entry(key.clone()).or_insert(epoch);
        *known = (*known).max(epoch);
        self.on_request(ctx, client, (id, key, Some(value)));
    }

    /// Whether this node knows the latest version of `key`, which it owns in `map`: it has
    /// owned the key in every map since epoch 0, or read a quorum of its homes since it last
    /// took it over. A node that knows is remembered at `map`'s epoch, to skip the replay.
    fn knows_version(&mut self, key: &str, map: &Map) -> bool {
        let epoch = map.epoch();
        let known = self.coord.as_ref().and_then(|c| c.known.get(key).copied());
        if known == Some(epoch) {
            return true;
        }
        let since = self.owned_since(key, map);
        let knows = since == 0 || known.is_some_and(|e| since <= e && e <= epoch);
        if knows && let Some(c) = self.coord.as_mut() {
            c.known.insert(key.to_string(), epoch);
        }
        knows
    }

    /// The first epoch from which this node has owned `key` in every map up to `map`'s.
    fn owned_since(&self, key: &str, map: &Map) -> u64 {
        let mut at = Map::initial(&self.cfg);
        let mut since = 0;
        for (epoch, &change) in map.log().iter().enumerate() {
            if at.homes(key)[0] != self.id {
                since = epoch as u64 + 1;
            }
            at.apply(change);
        }
        since
    }
}
