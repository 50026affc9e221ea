//! Storage nodes serving clients: the owner coordinates, anyone else answers `Moved`.
//!
//! This is Dynamo's "any node coordinates, preferably the key's first home" with Redis
//! Cluster's rule for a node that is not the owner: it does not proxy, it redirects. A node
//! serves a key when it is the key's first home in its *serving* map: the old map while a
//! rebalance is under way (reads still use it; writes also go to the new homes, and the next
//! owner must ack them, so it holds every version it will number after), the new one after
//! `Cleanup`. The owner numbers the key's writes one past the newest version it gave or holds:
//! with one owner at a time and the next owner acking every write of the move, versions only
//! grow. Any other node answers `Moved` with the owner in its serving map.

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
            let msg = crate::ring::live::msg::RingMsg::Moved {
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
        let next = self.moving.then(|| self.map.clone());
        let client = Some((from, id));
        match value {
            Some(value) => {
                let must = next
                    .as_ref()
                    .map(|m| m.homes(&key)[0])
                    .filter(|&n| n != self.id);
                self.start_write(ctx, (key, value), &map, next.as_ref(), must, client);
            }
            None => {
                let homes = map.homes(&key);
                self.start_read(ctx, key, homes, client);
            }
        }
    }
}
