//! The event queue: a min-heap ordered by (time, insertion sequence), with no ties.
//!
//! Two events at the same virtual time come out in the order they were pushed, so the order of
//! a run never depends on the heap's internals. Payloads live in a slab beside the heap, so the
//! heap moves only 24-byte keys and, once warmed up, pushing and popping allocate nothing.
//! Cancellation is not this module's job: the kernel ignores stale timer events when they pop.

use crate::time::Instant;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    time: Instant,
    seq: u64,
    slot: u32,
}

/// Pending events in (time, seq) order.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Key>>,
    slots: Vec<Option<E>>,
    free: Vec<u32>,
    next_seq: u64,
}

impl<E: Clone> Clone for EventQueue<E> {
    fn clone(&self) -> Self {
        EventQueue {
            heap: self.heap.clone(),
            slots: self.slots.clone(),
            free: self.free.clone(),
            next_seq: self.next_seq,
        }
    }

    /// Reuses this queue's buffers (a search copies a run per seed into the last one).
    fn clone_from(&mut self, source: &Self) {
        self.heap.clone_from(&source.heap);
        self.slots.clone_from(&source.slots);
        self.free.clone_from(&source.free);
        self.next_seq = source.next_seq;
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            next_seq: 0,
        }
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `time`; returns its sequence number.
    #[inline]
    pub fn push(&mut self, time: Instant, event: E) -> u64 {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(event);
                s
            }
            None => {
                self.slots.push(Some(event));
                (self.slots.len() - 1) as u32
            }
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Reverse(Key { time, seq, slot }));
        seq
    }

    /// Removes and returns the earliest event (ties: first pushed first).
    #[inline]
    pub fn pop(&mut self) -> Option<(Instant, E)> {
        let Reverse(key) = self.heap.pop()?;
        let event = self.slots[key.slot as usize]
            .take()
            .expect("queue slot of a live key is filled");
        self.free.push(key.slot);
        Some((key.time, event))
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse(k)| k.time)
    }

    /// How many events are pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The pending events in no particular order (allocates nothing; for counting states).
    pub fn pending(&self) -> impl Iterator<Item = &E> {
        self.slots.iter().flatten()
    }

    /// Every pending event with its slot, time and sequence number, in no particular order:
    /// what an untimed search chooses among (see `Sim::moves`).
    pub fn entries(&self) -> impl Iterator<Item = (u32, Instant, u64, &E)> {
        self.heap.iter().map(|Reverse(k)| {
            let event = self.slots[k.slot as usize]
                .as_ref()
                .expect("queue slot of a live key is filled");
            (k.slot, k.time, k.seq, event)
        })
    }

    /// The event in `slot`, if one is pending there.
    pub fn get(&self, slot: u32) -> Option<&E> {
        self.slots.get(slot as usize).and_then(Option::as_ref)
    }

    /// The event in `slot`, mutably.
    pub fn get_mut(&mut self, slot: u32) -> Option<&mut E> {
        self.slots.get_mut(slot as usize).and_then(Option::as_mut)
    }

    /// Takes the event in `slot` out of the queue, whatever its time: an untimed search picks
    /// the next event itself. Linear in the queue's length (untimed runs keep it short).
    pub fn remove(&mut self, slot: u32) -> Option<(Instant, E)> {
        let event = self.slots.get_mut(slot as usize)?.take()?;
        let mut time = Instant::ZERO;
        self.heap.retain(|Reverse(k)| {
            if k.slot == slot {
                time = k.time;
                false
            } else {
                true
            }
        });
        self.free.push(slot);
        Some((time, event))
    }

    /// The pending events in the order they will pop (allocates; for hashing and inspection).
    pub fn ordered(&self) -> Vec<(Instant, &E)> {
        let mut keys: Vec<Key> = self.heap.iter().map(|Reverse(k)| *k).collect();
        keys.sort_unstable();
        keys.into_iter()
            .map(|k| {
                (
                    k.time,
                    self.slots[k.slot as usize]
                        .as_ref()
                        .expect("queue slot of a live key is filled"),
                )
            })
            .collect()
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
    }
}
