//! The visited set of a depth-first search: 8-byte fingerprints and nothing else.
//!
//! Depth-first search without a depth bound needs no way back to the start (its stack is the
//! path), so it keeps only the fingerprints, as stateright's does: an open-addressing table of
//! `u64` per shard (linear probing, 0 for an empty slot), filled to 90 % before it grows by a
//! quarter. 256 shards grow one at a time and through the same sizes, so growing never holds
//! two copies of the whole set, and a shard's old table is soon reused by the next to grow.
//! Never iterated: its layout reaches no output.

/// How many shards (the fingerprint's top 8 bits pick one).
const SHARDS: usize = 256;

/// A set of state fingerprints.
pub(super) struct Fingerprints {
    shards: Vec<Table>,
}

#[derive(Default)]
struct Table {
    slots: Vec<u64>,
    len: usize,
}

impl Default for Fingerprints {
    fn default() -> Self {
        Fingerprints {
            shards: (0..SHARDS).map(|_| Table::default()).collect(),
        }
    }
}

impl Fingerprints {
    /// Adds `fp`; whether it was new. Fingerprint 0 is kept as 1 (0 marks an empty slot): two
    /// states then merge only if their 64-bit hashes are 0 and 1.
    pub(super) fn insert(&mut self, fp: u64) -> bool {
        let fp = fp.max(1);
        self.shards[(fp >> 56) as usize].insert(fp)
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
        let fp = fp.max(1);
        self.shards[(fp >> 56) as usize]
            .lock()
            .expect("a thread panicked holding a fingerprint shard")
            .insert(fp)
    }
}

impl Table {
    fn insert(&mut self, fp: u64) -> bool {
        if (self.len + 1) * 100 > self.slots.len() * 90 {
            self.grow();
        }
        let inserted = place(&mut self.slots, fp);
        self.len += usize::from(inserted);
        inserted
    }

    fn grow(&mut self) {
        let size = (self.slots.len() + self.slots.len() / 4).max(64);
        let mut slots = vec![0u64; size];
        for &fp in self.slots.iter().filter(|&&fp| fp != 0) {
            place(&mut slots, fp);
        }
        self.slots = slots;
    }
}

/// Puts `fp` in `slots` (which has room); whether it was not there already.
fn place(slots: &mut [u64], fp: u64) -> bool {
    let n = slots.len();
    // The bits below the shard's, scaled to the table (no power-of-two size needed).
    let mut i = (((fp << 8) as u128 * n as u128) >> 64) as usize;
    loop {
        match slots[i] {
            0 => {
                slots[i] = fp;
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
        assert!(set.insert(0) && !set.insert(1), "0 is kept as 1");
        let shared = SharedFingerprints::default();
        assert!(fps.iter().all(|&fp| shared.insert(fp)));
        assert!(fps.iter().all(|&fp| !shared.insert(fp)));
    }
}
