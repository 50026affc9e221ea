//! A rebalancing stream, source side, as data: which keys a storage node owes which new home
//! when the map moves ([`Outgoing::plan`]), cut into chunks of at most `chunk_bytes`; how far it
//! got; and what it reports when done ([`StreamReport`]). The storage node drives it (see
//! `storage`): one chunk at a time, each after its bytes' time on the wire, resent until
//! acknowledged.
//!
//! Every old home of a key streams what it holds to each new home that was not an old home, and
//! the receiver keeps the newest: a home that missed a write (W acks were enough) is not the
//! only source. The first old home of a key counts it for the figures (`owned`, `required`), so
//! the sources' sums count every key once.

use crate::ring_store::map::Map;
use crate::ring_store::msg::{Entry, RingMsg, Versioned};
use sim_core::{Instant, NodeId};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::AddAssign;

/// Keys and bytes: what a stream sent, or what data a figure counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Amount {
    /// How many keys.
    pub keys: u64,
    /// Their bytes (key, value and an 8-byte version each, as [`Entry::bytes`] counts them).
    pub bytes: u64,
}

impl AddAssign for Amount {
    fn add_assign(&mut self, other: Amount) {
        self.keys += other.keys;
        self.bytes += other.bytes;
    }
}

impl From<(u64, u64)> for Amount {
    /// From the `(keys, bytes)` pair a `StreamDone` carries on the wire.
    fn from((keys, bytes): (u64, u64)) -> Amount {
        Amount { keys, bytes }
    }
}

impl From<Amount> for (u64, u64) {
    /// To the `(keys, bytes)` pair a `StreamDone` carries on the wire.
    fn from(a: Amount) -> (u64, u64) {
        (a.keys, a.bytes)
    }
}

/// What a finished stream reports to the coordinator (`StreamDone`), kept to answer a repeated
/// `Rebalance` for the same epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StreamReport {
    /// The epoch streamed to (0: none yet).
    pub epoch: u64,
    /// What was sent.
    pub sent: Amount,
    /// The data this node was the first old home of (for the fair share).
    pub owned: Amount,
    /// Of that, the copies the change required: one per key and new home that was not an old
    /// home.
    pub required: Amount,
}

impl StreamReport {
    /// The `StreamDone` that tells the coordinator.
    pub fn message(&self) -> RingMsg {
        RingMsg::StreamDone {
            epoch: self.epoch,
            keys: self.sent.keys,
            bytes: self.sent.bytes,
            owned: self.owned.into(),
            required: self.required.into(),
        }
    }
}

/// Keys for one new home, sent as one `Transfer`.
#[derive(Clone, Debug, Hash)]
pub struct Chunk {
    /// The new home.
    pub dest: NodeId,
    /// The keys (their values are read from the store when the chunk is sent).
    pub keys: Vec<String>,
}

/// A rebalancing stream: chunks of keys for their new homes, sent one at a time, each after
/// its bytes' time on the wire (bytes / bandwidth), and kept until acknowledged.
#[derive(Clone, Debug, Hash)]
pub struct Outgoing {
    epoch: u64,
    started: Instant,
    chunks: Vec<Chunk>,
    next: usize,
    unacked: BTreeSet<u64>,
    sent: Amount,
    owned: Amount,
    required: Amount,
}

/// What a source owes for a move: per new home the keys and their sizes, and the figures.
#[derive(Default)]
struct Owed {
    by_dest: BTreeMap<NodeId, Vec<(String, u64)>>,
    owned: Amount,
    required: Amount,
}

impl Outgoing {
    /// The stream node `me` owes for the move from `old` to `new` (epoch `new.epoch()`), from
    /// what `store` holds, cut into chunks of at most `chunk_bytes` (a chunk holds one key at
    /// least).
    pub fn plan(
        store: &BTreeMap<String, Versioned>,
        (old, new): (&Map, &Map),
        me: NodeId,
        chunk_bytes: u64,
        started: Instant,
    ) -> Outgoing {
        let owed = owed(store, old, new, me);
        let chunks = owed
            .by_dest
            .into_iter()
            .flat_map(|(dest, keys)| chunks_for(dest, keys, chunk_bytes))
            .collect();
        Outgoing {
            epoch: new.epoch(),
            started,
            chunks,
            next: 0,
            unacked: BTreeSet::new(),
            sent: Amount::default(),
            owned: owed.owned,
            required: owed.required,
        }
    }

    /// The epoch being streamed to.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// When the stream started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Chunk `seq`, if there is one.
    pub fn chunk(&self, seq: u64) -> Option<&Chunk> {
        self.chunks.get(seq as usize)
    }

    /// The next chunk to send, if any is left.
    pub fn upcoming(&self) -> Option<&Chunk> {
        self.chunks.get(self.next)
    }

    /// Takes the next chunk to send, now awaiting its ack; `None` when all were sent.
    pub fn start_next(&mut self) -> Option<u64> {
        if self.next >= self.chunks.len() {
            return None;
        }
        let seq = self.next as u64;
        self.next += 1;
        self.unacked.insert(seq);
        Some(seq)
    }

    /// The chunks sent and not yet acknowledged.
    pub fn unacked(&self) -> impl Iterator<Item = u64> + '_ {
        self.unacked.iter().copied()
    }

    /// Whether chunk `seq` awaits its ack.
    pub fn is_unacked(&self, seq: u64) -> bool {
        self.unacked.contains(&seq)
    }

    /// Counts a chunk's entries as sent (once, when first sent).
    pub fn count_sent(&mut self, entries: &[Entry]) {
        self.sent += Amount {
            keys: entries.len() as u64,
            bytes: entries.iter().map(Entry::bytes).sum(),
        };
    }

    /// Chunk `seq` of `epoch` was acknowledged; false if it was not awaited.
    pub fn ack(&mut self, epoch: u64, seq: u64) -> bool {
        self.epoch == epoch && self.unacked.remove(&seq)
    }

    /// Whether every chunk was sent and acknowledged.
    pub fn finished(&self) -> bool {
        self.unacked.is_empty() && self.next >= self.chunks.len()
    }

    /// What the stream reports when done.
    pub fn report(&self) -> StreamReport {
        StreamReport {
            epoch: self.epoch,
            sent: self.sent,
            owned: self.owned,
            required: self.required,
        }
    }
}

/// What `me` owes: every key it homed in `old`, for each of its homes in `new` that was not an
/// old home; the key counts for the figures if `me` was its first old home.
fn owed(store: &BTreeMap<String, Versioned>, old: &Map, new: &Map, me: NodeId) -> Owed {
    let mut owed = Owed::default();
    for (key, data) in store {
        let before = old.homes(key);
        if !before.contains(&me) {
            continue;
        }
        let bytes = Entry {
            key: key.clone(),
            data: data.clone(),
        }
        .bytes();
        let fresh: Vec<NodeId> = new
            .homes(key)
            .into_iter()
            .filter(|d| !before.contains(d))
            .collect();
        if before.first() == Some(&me) {
            let n = fresh.len() as u64;
            owed.owned += Amount { keys: 1, bytes };
            owed.required += Amount {
                keys: n,
                bytes: n * bytes,
            };
        }
        for dest in fresh {
            owed.by_dest
                .entry(dest)
                .or_default()
                .push((key.clone(), bytes));
        }
    }
    owed
}

/// `keys` (with their sizes) for `dest`, in chunks of at most `chunk_bytes` (one key at least).
fn chunks_for(dest: NodeId, keys: Vec<(String, u64)>, chunk_bytes: u64) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut chunk: Vec<String> = Vec::new();
    let mut size = 0;
    for (key, bytes) in keys {
        if !chunk.is_empty() && size + bytes > chunk_bytes {
            chunks.push(Chunk {
                dest,
                keys: std::mem::take(&mut chunk),
            });
            size = 0;
        }
        chunk.push(key);
        size += bytes;
    }
    chunks.push(Chunk { dest, keys: chunk });
    chunks
}
