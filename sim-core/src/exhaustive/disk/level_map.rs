//! The level a search with its frontier on disk is making: each state first reached in it,
//! and its way there.
//!
//! While a level is expanded, the states of earlier levels are only looked up (their
//! fingerprints, [`Fingerprints`]), and each new one goes into this map with the parent and
//! move that reached it. A state reached from several parents keeps the smallest (parent
//! fingerprint, move), the rule [`super::super::visited::Visited`] follows, so the way to each
//! state, and therefore every path reported, is the in-memory search's, whatever the order in
//! which threads got there. Shards under their own locks, as the visited set's.

use crate::exhaustive::fingerprints::Fingerprints;
use crate::exhaustive::visited::{Reach, Reaches, Seen};
use crate::kernel::Move;
use std::sync::Mutex;

/// How a new state of the level was reached.
#[derive(Clone, Copy, Debug)]
pub(super) struct Way {
    /// The parent's index in the level expanded.
    pub(super) parent: u32,
    pub(super) parent_fp: u64,
    pub(super) mv: Move,
}

/// log2 of the map's shards.
const SHARD_BITS: u32 = 6;

/// The states first reached in the level being made (see the module's docs).
pub(super) struct LevelMap<'a> {
    earlier: &'a Fingerprints,
    shards: Vec<Mutex<Table>>,
}

impl<'a> LevelMap<'a> {
    /// An empty level after the states in `earlier`.
    pub(super) fn new(earlier: &'a Fingerprints) -> Self {
        LevelMap {
            earlier,
            shards: (0..1 << SHARD_BITS).map(|_| Mutex::default()).collect(),
        }
    }

    /// The level's states, sorted by parent (then by move and fingerprint): the order of its
    /// file, in which replaying it walks the levels below forward only.
    pub(super) fn into_sorted(self) -> Vec<(u64, Way)> {
        let mut all = Vec::new();
        for shard in self.shards {
            let shard = shard
                .into_inner()
                .expect("a thread panicked making a level");
            all.reserve(shard.len);
            all.extend(shard.slots.into_iter().flatten());
        }
        all.sort_unstable_by_key(|(fp, way)| (way.parent, way.mv.rank(), *fp));
        all
    }
}

impl Reaches for LevelMap<'_> {
    fn reach(&self, fp: u64, seen: Seen, parent_index: u64) -> Reach {
        if self.earlier.contains(fp) {
            return Reach::Seen;
        }
        let way = Way {
            parent: u32::try_from(parent_index).expect("a level holds fewer than 2^32 states"),
            parent_fp: seen.parent,
            mv: seen.mv,
        };
        let mut shard = self.shards[(fp >> (64 - SHARD_BITS)) as usize]
            .lock()
            .expect("a thread panicked making a level");
        shard.reach(fp, way)
    }
}

/// One shard: an open-addressing table (linear probing) of fingerprints and their ways,
/// filled to 90 % before it doubles. Only looked up while the level is made, then emptied
/// into a sorted list: its layout reaches no output.
#[derive(Default)]
struct Table {
    slots: Vec<Option<(u64, Way)>>,
    len: usize,
}

impl Table {
    /// Records `fp` reached by `way`: new, or seen (its way the smaller of the two).
    fn reach(&mut self, fp: u64, way: Way) -> Reach {
        if (self.len + 1) * 10 > self.slots.len() * 9 {
            self.grow();
        }
        let i = self.find(fp);
        match &mut self.slots[i] {
            Some((_, old)) => {
                if (way.parent_fp, way.mv.rank()) < (old.parent_fp, old.mv.rank()) {
                    *old = way;
                }
                Reach::Seen
            }
            empty => {
                *empty = Some((fp, way));
                self.len += 1;
                Reach::New
            }
        }
    }

    /// The slot of `fp`, or the empty one where it goes.
    fn find(&self, fp: u64) -> usize {
        let n = self.slots.len();
        // The fingerprint's bits below the shard's, scaled to the table.
        let mut i = (((fp << SHARD_BITS) as u128 * n as u128) >> 64) as usize;
        loop {
            match &self.slots[i] {
                Some((f, _)) if *f != fp => i = if i + 1 == n { 0 } else { i + 1 },
                _ => return i,
            }
        }
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.slots, vec![None; size]);
        for (fp, way) in old.into_iter().flatten() {
            let i = self.find(fp);
            self.slots[i] = Some((fp, way));
        }
    }
}
