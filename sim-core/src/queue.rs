//! The event queue: a min-heap ordered by (time, insertion sequence), with no ties.
//!
//! Two events at the same virtual time come out in the order they were pushed, so the order of
//! a run never depends on the heap's internals. Payloads live in a slab beside the heap, so the
//! heap moves only 16-byte keys and, once warmed up, pushing and popping allocate nothing.
//! Cancellation is not this module's job: the kernel ignores stale timer events when they pop.
//!
//! An untimed search never pops in time order: it picks each next event itself. Such a queue is
//! made [`EventQueue::unordered`]: it drops its heap, so that each of a search's millions of
//! copied states carries one buffer (the slab, whose entries keep their own time and sequence
//! number) instead of two, and taking an event out no longer rebuilds a heap.

use crate::time::Instant;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A heap key, one `u128` so that ordering two is one wide comparison and moving one is two
/// words: the time (high 64 bits), then a tie counter that grows with every push (32 bits: see
/// [`EventQueue::renumber`]), then the slot (low 32 bits, never compared in effect: the tie
/// counters of pending events differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key(u128);

impl Key {
    fn new(time: Instant, tie: u32, slot: u32) -> Self {
        Key(u128::from(time.0) << 64 | u128::from(tie) << 32 | u128::from(slot))
    }
    fn time(self) -> Instant {
        Instant((self.0 >> 64) as u64)
    }
    fn slot(self) -> u32 {
        self.0 as u32
    }
}

/// A pending event with when it falls due and its place in the insertion order.
#[derive(Clone, Debug)]
struct Entry<E> {
    time: Instant,
    seq: u64,
    event: E,
}

/// Pending events in (time, seq) order.
#[derive(Debug)]
pub struct EventQueue<E> {
    /// The keys in pop order; empty (and unused) once the queue is unordered.
    heap: BinaryHeap<Reverse<Key>>,
    slots: Vec<Option<Entry<E>>>,
    free: Vec<u32>,
    next_seq: u64,
    /// The next key's tie counter (see [`Key`]).
    next_tie: u32,
    /// Whether `heap` is kept (see [`EventQueue::unordered`]).
    ordered: bool,
}

impl<E: Clone> Clone for EventQueue<E> {
    fn clone(&self) -> Self {
        EventQueue {
            heap: self.heap.clone(),
            slots: self.slots.clone(),
            free: self.free.clone(),
            next_seq: self.next_seq,
            next_tie: self.next_tie,
            ordered: self.ordered,
        }
    }

    /// Reuses this queue's buffers (a search copies a run per seed into the last one).
    fn clone_from(&mut self, source: &Self) {
        self.heap.clone_from(&source.heap);
        self.slots.clone_from(&source.slots);
        self.free.clone_from(&source.free);
        self.next_seq = source.next_seq;
        self.next_tie = source.next_tie;
        self.ordered = source.ordered;
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            next_seq: 0,
            next_tie: 0,
            ordered: true,
        }
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops keeping the pop order: for an untimed search, which takes events out by slot
    /// ([`EventQueue::remove`]) and lists them with [`EventQueue::entries`]. Popping still
    /// works, by a scan of the pending events.
    pub fn unordered(&mut self) {
        self.heap = BinaryHeap::new();
        self.ordered = false;
    }

    /// Schedules `event` at `time`; returns its sequence number.
    #[inline]
    pub fn push(&mut self, time: Instant, event: E) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        let entry = Some(Entry { time, seq, event });
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = entry;
                s
            }
            None => {
                self.slots.push(entry);
                (self.slots.len() - 1) as u32
            }
        };
        if self.ordered {
            if self.next_tie == u32::MAX {
                self.renumber();
            }
            self.heap.push(Reverse(Key::new(time, self.next_tie, slot)));
            self.next_tie += 1;
        }
        seq
    }

    /// Gives the pending keys tie counters 0, 1, 2... in their order, so that counting goes on
    /// from there: after 4 billion pushes, once in a run that long.
    #[cold]
    fn renumber(&mut self) {
        let mut keys = std::mem::take(&mut self.heap).into_sorted_vec();
        keys.reverse(); // `Reverse` sorts latest first.
        let mut tie = 0;
        for Reverse(key) in &mut keys {
            *key = Key::new(key.time(), tie, key.slot());
            tie += 1;
        }
        self.heap = keys.into();
        self.next_tie = tie;
    }

    /// Removes and returns the earliest event (ties: first pushed first).
    #[inline]
    pub fn pop(&mut self) -> Option<(Instant, E)> {
        let slot = if self.ordered {
            self.heap.pop()?.0.slot()
        } else {
            self.earliest()?.0
        };
        let entry = self.slots[slot as usize]
            .take()
            .expect("queue slot of a live key is filled");
        self.free.push(slot);
        Some((entry.time, entry.event))
    }

    /// An unordered queue's earliest event: its slot and time.
    fn earliest(&self) -> Option<(u32, Instant)> {
        self.entries()
            .min_by_key(|&(_, time, seq, _)| (time, seq))
            .map(|(slot, time, ..)| (slot, time))
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<Instant> {
        if self.ordered {
            self.heap.peek().map(|Reverse(k)| k.time())
        } else {
            self.earliest().map(|(_, time)| time)
        }
    }

    /// How many events are pending.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pending events in no particular order (allocates nothing; for counting states).
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        self.slots.iter().flatten().map(|e| &e.event)
    }

    /// Every pending event with its slot, time and sequence number, in slot order: what an
    /// untimed search chooses among (see `Sim::moves`).
    pub fn entries(&self) -> impl Iterator<Item = (u32, Instant, u64, &E)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(slot, e)| e.as_ref().map(|e| (slot as u32, e.time, e.seq, &e.event)))
    }

    /// The event in `slot`, if one is pending there.
    pub fn get(&self, slot: u32) -> Option<&E> {
        self.slots
            .get(slot as usize)
            .and_then(Option::as_ref)
            .map(|e| &e.event)
    }

    /// The event in `slot`, mutably.
    pub fn get_mut(&mut self, slot: u32) -> Option<&mut E> {
        self.slots
            .get_mut(slot as usize)
            .and_then(Option::as_mut)
            .map(|e| &mut e.event)
    }

    /// Takes the event in `slot` out of the queue, whatever its time: an untimed search picks
    /// the next event itself. Constant time in an unordered queue; linear in the queue's
    /// length in an ordered one.
    pub fn remove(&mut self, slot: u32) -> Option<(Instant, E)> {
        let entry = self.slots.get_mut(slot as usize)?.take()?;
        if self.ordered {
            self.heap.retain(|Reverse(k)| k.slot() != slot);
        }
        self.free.push(slot);
        Some((entry.time, entry.event))
    }

    /// The pending events in the order they will pop (allocates; for hashing and inspection).
    pub fn ordered(&self) -> Vec<(Instant, &E)> {
        let mut entries: Vec<(Instant, u64, &E)> = self
            .entries()
            .map(|(_, time, seq, event)| (time, seq, event))
            .collect();
        entries.sort_unstable_by_key(|&(time, seq, _)| (time, seq));
        entries
            .into_iter()
            .map(|(time, _, event)| (time, event))
            .collect()
    }
}

/// A queue's pending events as a breadth-first search stores a state between levels: exactly
/// the slots in use (free ones included, so every event keeps its slot), no spare capacity and
/// no heap. [`EventQueue::unpack_from`] makes the queue again.
#[derive(Debug)]
pub struct PackedQueue<E> {
    slots: Box<[Option<Entry<E>>]>,
    free: Box<[u32]>,
    next_seq: u64,
    ordered: bool,
}

impl<E: Clone> EventQueue<E> {
    /// This queue, packed (see [`PackedQueue`]).
    pub fn pack(&self) -> PackedQueue<E> {
        PackedQueue {
            slots: self.slots.as_slice().into(),
            free: self.free.as_slice().into(),
            next_seq: self.next_seq,
            ordered: self.ordered,
        }
    }

    /// Becomes the queue `packed` was made from, in this queue's buffers.
    pub fn unpack_from(&mut self, packed: &PackedQueue<E>) {
        <[_]>::clone_into(&packed.slots, &mut self.slots);
        <[_]>::clone_into(&packed.free, &mut self.free);
        self.next_seq = packed.next_seq;
        self.ordered = packed.ordered;
        self.heap.clear();
        if self.ordered {
            let mut keys: Vec<(Instant, u64, u32)> = self
                .entries()
                .map(|(slot, time, seq, _)| (time, seq, slot))
                .collect();
            keys.sort_unstable();
            self.heap.extend(
                (0..)
                    .zip(keys)
                    .map(|(tie, (time, _, slot))| Reverse(Key::new(time, tie, slot))),
            );
            self.next_tie = self.heap.len() as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Ties in time break by insertion order, never by payload or heap layout.
    #[test]
    fn ties_break_by_insertion_order() {
        let mut q = EventQueue::new();
        for (t, name) in [(5, "c"), (1, "a"), (5, "d"), (1, "b"), (3, "x")] {
            q.push(Instant(t), name);
        }
        let order: Vec<&str> = std::iter::from_fn(|| q.pop().map(|e| e.1)).collect();
        assert_eq!(order, ["a", "b", "x", "c", "d"]);
    }

    /// When the tie counter runs out, pending keys are renumbered and the order holds.
    #[test]
    fn tie_counters_renumber_without_reordering() {
        let mut q = EventQueue::new();
        q.next_tie = u32::MAX - 3;
        for (i, t) in [5, 1, 5, 1, 3, 5, 1].into_iter().enumerate() {
            q.push(Instant(t), i);
        }
        assert!(q.next_tie < 10, "renumbered");
        let order: Vec<usize> = std::iter::from_fn(|| q.pop().map(|e| e.1)).collect();
        assert_eq!(order, [1, 3, 6, 4, 0, 2, 5]);
    }

    proptest! {
        /// Against a dumb model: a stable sort by time of everything pushed.
        #[test]
        fn pops_in_stable_time_order(times in proptest::collection::vec(0u64..20, 0..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.push(Instant(*t), i);
            }
            let mut model: Vec<(u64, usize)> = times.iter().copied().zip(0..).collect();
            model.sort_by_key(|e| e.0);
            let got: Vec<(u64, usize)> = std::iter::from_fn(|| q.pop().map(|(t, i)| (t.0, i))).collect();
            prop_assert_eq!(got, model);
        }

        /// An unordered queue (an untimed search's) pops, peeks, lists and removes exactly as
        /// an ordered one does.
        #[test]
        fn unordered_agrees_with_ordered(
            times in proptest::collection::vec(0u64..20, 0..60),
            removed in proptest::collection::vec(0u32..60, 0..20),
        ) {
            let mut ordered = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                ordered.push(Instant(*t), i);
            }
            let mut unordered = ordered.clone();
            unordered.unordered();
            for &slot in &removed {
                prop_assert_eq!(ordered.remove(slot), unordered.remove(slot));
            }
            prop_assert_eq!(ordered.len(), unordered.len());
            prop_assert_eq!(ordered.ordered(), unordered.ordered());
            let mut a: Vec<_> = ordered.entries().map(|(s, t, q, e)| (s, t, q, *e)).collect();
            let mut b: Vec<_> = unordered.entries().map(|(s, t, q, e)| (s, t, q, *e)).collect();
            a.sort_unstable();
            b.sort_unstable();
            prop_assert_eq!(a, b);
            loop {
                prop_assert_eq!(ordered.peek_time(), unordered.peek_time());
                let (x, y) = (ordered.pop(), unordered.pop());
                prop_assert_eq!(x, y);
                if x.is_none() {
                    break;
                }
                // Pushes after pops reuse freed slots in both alike.
                if let Some((t, i)) = x.filter(|(t, i)| i % 3 == 0 && t.0 < 30) {
                    ordered.push(Instant(t.0 + 7), i + 100);
                    unordered.push(Instant(t.0 + 7), i + 100);
                }
            }
        }
    }
}
