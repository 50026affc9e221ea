//! Dynamic partitioning on the coordinator (text 000, section 8: "una partición que supera un
//! tamaño se divide en dos"; HBase, MongoDB): sizing the ranges and deciding a split.
//!
//! The coordinator numbers every write, so it knows each key's size (key, value and an 8-byte
//! version, as the streams count it). After each write it starts, and after each rebalance
//! ends, it sums the bytes of each range; the biggest range past `split_bytes` (if any, and if
//! no rebalance is under way: one change at a time) splits at its hash midpoint and its upper
//! half goes to the least-loaded member, the one owning the fewest bytes (ties: the first in
//! the scheme's order). The split is an epoch like a join: the upper half streams to its new
//! homes at the configured bandwidth, writes go to both maps meanwhile, and `RebalanceDone`
//! reports the copies sent against the copies required (the half's copies that must land on
//! homes that lacked them) and against an even share (RF/N of the data per node), all three
//! counted by the sources as for a join.

use crate::ring_store::coord::Coord;
use crate::ring_store::env::{Env, RingActor};
use crate::ring_store::map::{Change, Map};
use crate::ring_store::notes::RingNote;
use crate::ring_store::storage::Storage;
use sim_core::{Context, NodeId};
use std::collections::BTreeMap;

/// One range's size as the coordinator sees it.
#[derive(Clone, Copy, Debug, Default)]
struct Size {
    hi: u64,
    owner: u32,
    keys: u64,
    bytes: u64,
}

/// The ranges by their first hash, with their sizes, and the bytes each member owns.
struct Sizes {
    ranges: BTreeMap<u64, Size>,
    owned: BTreeMap<NodeId, u64>,
}

impl Coord {
    /// Splits the biggest range past `split_bytes`, if any (dynamic scheme, coordinator only).
    pub fn maybe_split<A: RingActor>(
        &mut self,
        ctx: &mut Context<'_, A>,
        env: &Env,
        storage: &Storage,
    ) {
        let Some(limit) = env.cfg.split_bytes() else {
            return;
        };
        if self.rebalancing() {
            return;
        }
        let map = storage.map();
        let Some(sizes) = sizes(self, map) else {
            return;
        };
        let biggest = sizes
            .ranges
            .iter()
            .filter(|(_, s)| s.bytes > limit)
            .max_by(|a, b| a.1.bytes.cmp(&b.1.bytes).then(b.0.cmp(a.0)));
        let Some((&lo, &size)) = biggest else { return };
        let Some(at) = map.midpoint(lo) else {
            return;
        };
        let Some(to) = map
            .members()
            .into_iter()
            .min_by_key(|m| sizes.owned.get(m).copied().unwrap_or(0))
        else {
            return;
        };
        let next = map.after(Change::Split { at, to });
        let (from, to_name) = (env.name_of(NodeId(size.owner)), env.name_of(to));
        ctx.note(RingNote::Split {
            epoch: next.epoch(),
            lo,
            hi: size.hi,
            at,
            keys: size.keys,
            bytes: size.bytes,
            limit,
            from,
            to: to_name.clone(),
        });
        ctx.note(RingNote::OwnershipChanged {
            epoch: next.epoch(),
            change: format!("split at {at:016x}"),
            node: to_name,
            members: env.names_of(&next.members()),
        });
        let share = next.members().len() as u64;
        self.begin(ctx, env, storage, next, share);
    }
}

/// Sums the bytes `coord` numbered per range of `map` and per member (`None` unless the map
/// has ranges: the dynamic scheme).
fn sizes(coord: &Coord, map: &Map) -> Option<Sizes> {
    let mut ranges: BTreeMap<u64, Size> = BTreeMap::new();
    let mut owned: BTreeMap<NodeId, u64> = BTreeMap::new();
    for (key, bytes) in coord.sizes() {
        let (lo, hi, owner) = map.range_of(key)?;
        let size = ranges.entry(lo).or_insert(Size {
            hi,
            owner: owner.0,
            ..Size::default()
        });
        size.keys += 1;
        size.bytes += bytes;
        *owned.entry(owner).or_default() += bytes;
    }
    Some(Sizes { ranges, owned })
}
