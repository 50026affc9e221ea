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
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
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
    shards: Vec<Mutex<HashMap<u64, Way, BuildHasherDefault<Spread>>>>,
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
            all.reserve(shard.len());
            all.extend(shard);
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
        match shard.entry(fp) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(way);
                Reach::New
            }
            std::collections::hash_map::Entry::Occupied(mut slot) => {
                let old = slot.get();
                if (way.parent_fp, way.mv.rank()) < (old.parent_fp, old.mv.rank()) {
                    slot.insert(way);
                }
                Reach::Seen
            }
        }
    }
}

/// A hasher for keys that are fingerprints already: it only spreads their bits (the shard took
/// the top ones, and the table's tags read the top ones too).
#[derive(Default)]
struct Spread(u64);

impl Hasher for Spread {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, fp: u64) {
        self.0 = fp.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}
