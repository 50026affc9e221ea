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

use crate::ring::live::map::Change;
use crate::ring::live::node::RingNode;
use crate::ring::live::notes::RingNote;
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

impl RingNode {
    /// Splits the biggest range past `split_bytes`, if any (dynamic scheme, coordinator only).
    pub(crate) fn maybe_split(&mut self, ctx: &mut Context<'_, Self>) {
        let Some(limit) = self.cfg.split_bytes() else {
            return;
        };
        let Some(c) = self.coord.as_ref() else { return };
        if c.rebalancing() {
            return;
        }
        let mut ranges: BTreeMap<u64, Size> = BTreeMap::new();
        let mut owned: BTreeMap<NodeId, u64> = BTreeMap::new();
        for (key, &(_, bytes)) in &c.versions {
            let Some((lo, hi, owner)) = self.map.range_of(key) else {
                return;
            };
            let size = ranges.entry(lo).or_insert(Size {
                hi,
                owner: owner.0,
                ..Size::default()
            });
            size.keys += 1;
            size.bytes += bytes;
            *owned.entry(owner).or_default() += bytes;
        }
        let biggest = ranges
            .iter()
            .filter(|(_, s)| s.bytes > limit)
            .max_by(|a, b| a.1.bytes.cmp(&b.1.bytes).then(b.0.cmp(a.0)));
        let Some((&lo, &size)) = biggest else { return };
        let Some(at) = self.map.midpoint(lo) else {
            return;
        };
        let members = self.map.members();
        let Some(&to) = members
            .iter()
            .min_by_key(|m| owned.get(m).copied().unwrap_or(0))
        else {
            return;
        };
        let next = self.map.after(Change::Split { at, to });
        let epoch = next.epoch();
        let (from, to_name) = (self.name_of(NodeId(size.owner)), self.name_of(to));
        ctx.note(RingNote::Split {
            epoch,
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
            epoch,
            change: format!("split at {at:016x}"),
            node: to_name,
            members: self.names_of(&next.members()),
        });
        let share = next.members().len() as u64;
        self.begin(ctx, next, share);
    }
}
