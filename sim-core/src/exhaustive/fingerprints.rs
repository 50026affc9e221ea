//! The visited set of a depth-first search: 64-bit fingerprints, 7 bytes each, and nothing
//! else.
//!
//! Depth-first search without a depth bound needs no way back to the start (its stack is the
//! path), so it keeps only the fingerprints, as stateright's does: an open-addressing table per
//! shard (linear probing, 0 for an empty slot), filled to 90 % before it grows by a quarter.
//! The fingerprint's top 8 bits pick the shard, so a slot keeps only the other 56, in 7 bytes:
//! the whole 64-bit fingerprint is still told apart, in 7/8 of the memory. 256 shards grow one
//! at a time, so growing never holds two copies of the whole set, and tables are made of pages
//! of one size, so that what one shard's growth frees the next one's reuses. Never iterated:
//! its layout reaches no output.

/// How many shards (the fingerprint's top 8 bits pick one).
const SHARDS: usize = 256;

/// A set of state fingerprints: the visited set of a search that keeps no way back (depth
/// first, breadth first on disk, a worker's share of a distributed search).
pub struct Fingerprints {
    shards: Vec<Table>,
}

impl Default for Fingerprints {
    fn default() -> Self {
        Fingerprints {
            shards: (0..SHARDS).map(|_| Table::default()).collect(),
        }
    }
}

impl Fingerprints {
    /// An empty set with room for about `states` fingerprints before any table grows (a
    /// search resumed from its files knows how many it will hold at once).
    pub fn with_room(states: u64) -> Self {
        let per_shard = usize::try_from(states / SHARDS as u64).unwrap_or(usize::MAX / 2);
        Fingerprints {
            shards: (0..SHARDS).map(|_| Table::with_room(per_shard)).collect(),
        }
    }

    /// Adds `fp`; whether it was new. Within a shard, a fingerprint whose low 56 bits are 0 is
    /// kept as 1 (0 marks an empty slot): two states then merge only if their 64-bit hashes
    /// differ in nothing but that.
    pub fn insert(&mut self, fp: u64) -> bool {
        self.shards[(fp >> 56) as usize].insert(kept(fp))
    }

    /// Whether `fp` is in the set (as [`Fingerprints::insert`] keeps it).
    pub fn contains(&self, fp: u64) -> bool {
        self.shards[(fp >> 56) as usize].contains(kept(fp))
    }
}

/// A set of state fingerprints that several threads fill at once: the same tables, each shard
/// behind its own lock (with 256 shards, two threads seldom want the same one).
pub(super) struct SharedFingerprints {
    shards: Vec<std::sync::Mutex<Table>>,
}

impl Default for SharedFingerprints {
    fn default() -> Self {
        SharedFingerprints {
            shards: (0..SHARDS).map(|_| Default::default()).collect(),
        }
    }
}

impl SharedFingerprints {
    /// Adds `fp`; whether it was new (see [`Fingerprints::insert`]).
    pub(super) fn insert(&self, fp: u64) -> bool {
        self.shards[(fp >> 56) as usize]
            .lock()
            .expect("a thread panicked holding a fingerprint shard")
            .insert(kept(fp))
    }
}

/// What a shard keeps of `fp`: its low 56 bits (the top 8 chose the shard), never 0.
fn kept(fp: u64) -> u64 {
    (fp & LOW_56).max(1)
}

const LOW_56: u64 = (1 << 56) - 1;

/// Bytes a slot takes.
const SLOT: usize = 7;

/// Slots a page holds: a table is made of pages of 1,792 bytes, so that every table of every
/// shard is made of blocks of one size. A table that grows frees blocks exactly like those the
/// next table to grow (on this thread or another) asks for, and the allocator hands them out
/// again at once; tables of a few sizes each would leave freed blocks no later table fits.
const PAGE_SLOTS: usize = 256;

/// One shard's table: `size` slots of 7 bytes each (a fingerprint's low 56 bits,
/// little-endian), in pages.
#[derive(Default)]
struct Table {
    pages: Vec<Box<[u8]>>,
    len: usize,
}

impl Table {
    /// A table that holds `entries` below its fill limit.
    fn with_room(entries: usize) -> Table {
        let pages = (entries.saturating_mul(100) / 85).div_ceil(PAGE_SLOTS);
        Table {
            pages: (0..pages)
                .map(|_| vec![0u8; PAGE_SLOTS * SLOT].into_boxed_slice())
                .collect(),
            len: 0,
        }
    }

    fn size(&self) -> usize {
        self.pages.len() * PAGE_SLOTS
    }

    /// Adds `fp` (its low 56 bits, not 0); whether it was not there already.
    fn insert(&mut self, fp: u64) -> bool {
        if (self.len + 1) * 100 > self.size() * 90 {
            self.grow();
        }
        let inserted = place(&mut self.pages, fp);
        self.len += usize::from(inserted);
        inserted
    }

    /// Whether `fp` (its low 56 bits, not 0) is in the table.
    fn contains(&self, fp: u64) -> bool {
        let n = self.size();
        if n == 0 {
            return false;
        }
        let mut i = start(fp, n);
        loop {
            let at = (i % PAGE_SLOTS) * SLOT;
            match read(&self.pages[i / PAGE_SLOTS][at..at + SLOT]) {
                0 => return false,
                s if s == fp => return true,
                _ => i = if i + 1 == n { 0 } else { i + 1 },
            }
        }
    }

    fn grow(&mut self) {
        let size = (self.size() + self.size() / 4).max(1);
        let pages = size.div_ceil(PAGE_SLOTS);
        let old = std::mem::replace(
            &mut self.pages,
            (0..pages)
                .map(|_| vec![0u8; PAGE_SLOTS * SLOT].into_boxed_slice())
                .collect(),
        );
        for page in &old {
            for slot in page.chunks_exact(SLOT) {
                let fp = read(slot);
                if fp != 0 {
                    place(&mut self.pages, fp);
                }
            }
        }
    }
}

/// The fingerprint in a slot (0: empty).
fn read(slot: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..SLOT].copy_from_slice(slot);
    u64::from_le_bytes(word)
}

/// The slot where looking for `fp` starts in a table of `n` slots: the fingerprint's bits
/// scaled to the table (no power-of-two size needed).
fn start(fp: u64, n: usize) -> usize {
    (((fp << 8) as u128 * n as u128) >> 64) as usize
}

/// Puts `fp` (low 56 bits, not 0) in the table of `pages` (which has room); whether it was
/// not there already.
fn place(pages: &mut [Box<[u8]>], fp: u64) -> bool {
    let n = pages.len() * PAGE_SLOTS;
    let mut i = start(fp, n);
    loop {
        let at = (i % PAGE_SLOTS) * SLOT;
        let slot = &mut pages[i / PAGE_SLOTS][at..at + SLOT];
        match read(slot) {
            0 => {
                slot.copy_from_slice(&fp.to_le_bytes()[..SLOT]);
                return true;
            }
            s if s == fp => return false,
            _ => i = if i + 1 == n { 0 } else { i + 1 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fingerprint_is_new_once() {
        let mut set = Fingerprints::default();
        let fps: Vec<u64> = (0..100_000u64)
            .map(|i| crate::hash::stable_hash(&i))
            .collect();
        assert!(fps.iter().all(|&fp| set.insert(fp)));
        assert!(fps.iter().all(|&fp| !set.insert(fp)));
        assert!(fps.iter().all(|&fp| set.contains(fp)));
        assert!(!set.contains(crate::hash::stable_hash(&u64::MAX)));
        assert!(set.insert(0) && !set.insert(1), "0 is kept as 1");
        // Fingerprints that differ only in the shard's bits are told apart.
        let twins = [5u64, (1 << 56) | 5, (200 << 56) | 5];
        assert!(twins.iter().all(|&fp| set.insert(fp)));
        assert!(twins.iter().all(|&fp| !set.insert(fp)));
        let mut roomy = Fingerprints::with_room(fps.len() as u64);
        assert!(fps.iter().all(|&fp| roomy.insert(fp)));
        assert!(
            fps.iter()
                .all(|&fp| roomy.contains(fp) && !roomy.insert(fp))
        );
        let shared = SharedFingerprints::default();
        assert!(fps.iter().all(|&fp| shared.insert(fp)));
        assert!(fps.iter().all(|&fp| !shared.insert(fp)));
    }
}
