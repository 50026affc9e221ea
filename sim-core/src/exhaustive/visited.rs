//! The visited set of a search that keeps its way back to each state (breadth first, and
//! depth first under a bound): per fingerprint, the parent's fingerprint, the move from it and
//! the depth, in 32 bytes.
//!
//! Shards that threads lock one at a time, each an open-addressing table (linear probing,
//! fingerprint 0 for an empty slot) filled to 90 % before it grows by a quarter. The shards
//! start at staggered sizes: they fill at one pace, and started alike they would all grow at
//! once, every old table freed together. Fingerprints are already hashes, so the tables use
//! them as they are; they are only ever looked up, never iterated, so their layout cannot reach
//! any output.

use crate::kernel::{Move, MoveKind};
use std::sync::{Mutex, MutexGuard};

/// What the search remembers of a visited state: how it was reached.
#[derive(Clone, Copy)]
pub(super) struct Seen {
    pub(super) parent: u64,
    pub(super) mv: Move,
    /// Moves from the start (breadth first: the state's level).
    pub(super) depth: u32,
}

/// What reaching a state found.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    /// Never visited before.
    New,
    /// Visited, but farther from the start: worth expanding again under a depth bound.
    Closer,
    /// Visited at this distance or closer.
    Seen,
}

/// Where a search records the states it reaches: [`Visited`], or the level being made of a
/// search whose frontier is on disk (`disk::LevelMap`).
pub(super) trait Reaches: Sync {
    /// Records that `fp` is reached as `seen`, from the state at index `parent_index` of its
    /// level (which only a level on disk keeps); what it found.
    fn reach(&self, fp: u64, seen: Seen, parent_index: u64) -> Reach;
}

impl Reaches for Visited {
    fn reach(&self, fp: u64, seen: Seen, _: u64) -> Reach {
        Visited::reach(self, fp, seen)
    }
}

/// How many locks the visited set is split under: the fingerprint's top `SHARD_BITS` bits
/// pick one.
const SHARDS: usize = 1 << SHARD_BITS;
const SHARD_BITS: u32 = 6;

/// The visited states by fingerprint, and how each was reached.
pub(super) struct Visited {
    shards: Vec<Mutex<Table>>,
}

impl Default for Visited {
    fn default() -> Self {
        Visited {
            shards: (0..SHARDS)
                .map(|i| {
                    Mutex::new(Table {
                        slots: Vec::new(),
                        len: 0,
                        first: FIRST_SIZE + FIRST_SIZE / 4 * i / SHARDS,
                    })
                })
                .collect(),
        }
    }
}

impl Visited {
    fn shard(&self, fp: u64) -> MutexGuard<'_, Table> {
        self.shards[(fp >> (64 - SHARD_BITS)) as usize]
            .lock()
            .expect("a thread panicked holding the visited set")
    }

    /// How `fp` was reached, if it was.
    pub(super) fn get(&self, fp: u64) -> Option<Seen> {
        let shard = self.shard(fp);
        match shard.find(kept(fp)) {
            Ok(i) => Some(shard.slots[i].seen()),
            Err(_) => None,
        }
    }

    /// Records that `fp` is reached as `seen`. A state reached again at its own depth takes
    /// the smaller of the two (parent, move) as its way there, so the path to it does not
    /// depend on which thread came first; reached again closer to the start (depth first
    /// does that), it takes the shorter way.
    pub(super) fn reach(&self, fp: u64, seen: Seen) -> Reach {
        let mut shard = self.shard(fp);
        let fp = kept(fp);
        match shard.find(fp) {
            Ok(i) => {
                let entry = &mut shard.slots[i];
                let old = entry.seen();
                if seen.depth < old.depth {
                    *entry = Entry::new(fp, seen);
                    Reach::Closer
                } else {
                    if old.depth == seen.depth
                        && (seen.parent, seen.mv.rank()) < (old.parent, old.mv.rank())
                    {
                        *entry = Entry::new(fp, seen);
                    }
                    Reach::Seen
                }
            }
            Err(_) => {
                shard.insert_new(Entry::new(fp, seen));
                Reach::New
            }
        }
    }
}

/// What a table keeps of fingerprint `fp`: itself, but 0 (an empty slot's mark) as 1, so two
/// states merge only if their 64-bit fingerprints are 0 and 1.
fn kept(fp: u64) -> u64 {
    fp.max(1)
}

/// The smallest table, the size shard 0 starts at.
const FIRST_SIZE: usize = 64;

/// A visited state: its fingerprint and how it was reached, the move's kind (3 bits) sharing
/// a word with the depth.
#[derive(Clone, Copy, Default)]
struct Entry {
    fp: u64,
    parent: u64,
    key: u64,
    slot: u32,
    depth_and_kind: u32,
}

/// The deepest a visited state can be (29 bits of depth; a search holds far fewer states).
const MAX_DEPTH: u32 = (1 << 29) - 1;

impl Entry {
    fn new(fp: u64, seen: Seen) -> Entry {
        debug_assert!(seen.depth <= MAX_DEPTH, "a search is never this deep");
        let (kind, key, slot) = seen.mv.parts();
        Entry {
            fp,
            parent: seen.parent,
            key,
            slot,
            depth_and_kind: (seen.depth.min(MAX_DEPTH) << 3) | kind as u32,
        }
    }

    fn seen(&self) -> Seen {
        let kind = MoveKind::ALL[(self.depth_and_kind & 7) as usize];
        Seen {
            parent: self.parent,
            mv: Move::from_parts(kind, self.key, self.slot),
            depth: self.depth_and_kind >> 3,
        }
    }
}

/// One shard's table.
struct Table {
    slots: Vec<Entry>,
    len: usize,
    /// The size of its first table.
    first: usize,
}

impl Table {
    /// The slot holding `fp` (`Ok`), or the empty slot where it would go (`Err`).
    fn find(&self, fp: u64) -> Result<usize, usize> {
        let n = self.slots.len();
        if n == 0 {
            return Err(0);
        }
        // The fingerprint's bits below the shard's, scaled to the table.
        let mut i = (((fp << SHARD_BITS) as u128 * n as u128) >> 64) as usize;
        loop {
            match self.slots[i].fp {
                0 => return Err(i),
                f if f == fp => return Ok(i),
                _ => i = if i + 1 == n { 0 } else { i + 1 },
            }
        }
    }

    /// Adds `entry`, whose fingerprint is not in the table.
    fn insert_new(&mut self, entry: Entry) {
        if (self.len + 1) * 100 > self.slots.len() * 90 {
            self.grow();
        }
        let Err(i) = self.find(entry.fp) else {
            unreachable!("a new fingerprint is not in the table")
        };
        self.slots[i] = entry;
        self.len += 1;
    }

    fn grow(&mut self) {
        let size = (self.slots.len() + self.slots.len() / 4).max(self.first);
        let old = std::mem::replace(&mut self.slots, vec![Entry::default(); size]);
        for entry in old.into_iter().filter(|e| e.fp != 0) {
            let Err(i) = self.find(entry.fp) else {
                unreachable!("fingerprints in a table are distinct")
            };
            self.slots[i] = entry;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(parent: u64, depth: u32, kind: MoveKind) -> Seen {
        Seen {
            parent,
            mv: Move::from_parts(kind, parent.wrapping_mul(3), depth * 7),
            depth,
        }
    }

    /// Every state is new once, is found again with the way it was reached (each move kind
    /// and deep depths survive the packing), and a shorter or smaller way replaces it.
    #[test]
    fn states_are_kept_with_their_way_there() {
        let visited = Visited::default();
        let fps: Vec<u64> = (0..50_000u64)
            .map(|i| crate::hash::stable_hash(&i))
            .collect();
        for (i, &fp) in fps.iter().enumerate() {
            let kind = MoveKind::ALL[i % 5];
            let s = seen(i as u64, (i as u32) * 1000 % MAX_DEPTH, kind);
            assert!(visited.reach(fp, s) == Reach::New);
        }
        for (i, &fp) in fps.iter().enumerate() {
            let got = visited.get(fp).expect("visited");
            let want = seen(
                i as u64,
                (i as u32) * 1000 % MAX_DEPTH,
                MoveKind::ALL[i % 5],
            );
            assert_eq!(
                (got.parent, got.mv, got.depth),
                (want.parent, want.mv, want.depth)
            );
        }
        assert!(visited.get(12345).is_none());
        let fp = fps[7];
        let old = visited.get(fp).unwrap();
        assert!(visited.reach(fp, seen(u64::MAX, old.depth + 1, MoveKind::Act)) == Reach::Seen);
        assert!(visited.reach(fp, seen(0, old.depth, MoveKind::Deliver)) == Reach::Seen);
        assert_eq!(
            visited.get(fp).unwrap().parent,
            0,
            "the smaller way, at one depth"
        );
        assert!(visited.reach(fp, seen(5, 1, MoveKind::Fire)) == Reach::Closer);
        assert_eq!(visited.get(fp).unwrap().depth, 1);
        assert!(visited.reach(0, seen(1, 1, MoveKind::Lose)) == Reach::New);
        assert!(
            visited.get(0).is_some() && visited.get(1).is_some(),
            "0 is kept as 1"
        );
    }
}
