//! The set of abstract states a search has reached, grown batch by batch.
//!
//! A search adds a sorted batch of state hashes after every batch of seeds and asks how many
//! distinct ones it holds. One sorted list merged with each batch costs the whole list per
//! batch (quadratic in the batches: a million Paxos swarm seeds reach 269 million states in
//! 245 batches); here the set is a few sorted runs of doubling sizes, as a log-structured
//! merge tree keeps them: a batch is filtered against each run by galloping search, which
//! costs the batch's length times the log of the gap, and two runs merge only when they grow
//! to the same size, so every hash is copied O(log n) times in all.

/// Distinct state hashes, as disjoint sorted runs whose sizes at least double from the newest
/// to the oldest.
#[derive(Clone, Debug, Default)]
pub struct StateSet {
    runs: Vec<Vec<u64>>,
    len: usize,
}

impl StateSet {
    /// An empty set.
    pub fn new() -> Self {
        StateSet::default()
    }

    /// How many distinct hashes it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `batch` (sorted, without repeats) and returns the hashes that were not yet in the
    /// set, sorted.
    pub fn insert_sorted(&mut self, batch: &[u64]) -> Vec<u64> {
        debug_assert!(batch.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
        let mut fresh = batch.to_vec();
        for run in &self.runs {
            fresh = absent_from(run, &fresh);
            if fresh.is_empty() {
                return fresh;
            }
        }
        self.len += fresh.len();
        self.runs.push(fresh.clone());
        // Merge the newest run into the one before while it is at least half that one's size.
        while self.runs.len() >= 2 {
            let n = self.runs.len();
            if self.runs[n - 1].len() * 2 < self.runs[n - 2].len() {
                break;
            }
            let newest = self.runs.pop().expect("two runs");
            let older = self.runs.pop().expect("two runs");
            self.runs.push(merge_disjoint(&older, &newest));
        }
        fresh
    }
}

/// The hashes of `wanted` (sorted) that `run` (sorted) does not hold: galloping from the last
/// place found, so a short list against a long run costs its length times the log of the gaps.
fn absent_from(run: &[u64], wanted: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(wanted.len());
    let mut rest = run;
    for &h in wanted {
        // Gallop: the first bound past h, then a binary search below it.
        let mut step = 1;
        while step < rest.len() && rest[step - 1] < h {
            step *= 2;
        }
        let window = &rest[..step.min(rest.len())];
        let at = window.partition_point(|&x| x < h);
        rest = &rest[at..];
        if rest.first() != Some(&h) {
            out.push(h);
        }
    }
    out
}

/// Two sorted lists with no hash in common as one sorted list.
fn merge_disjoint(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] < b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// The set counts and reports exactly what a BTreeSet would, batch after batch.
        #[test]
        fn matches_a_btreeset(batches in prop::collection::vec(
            prop::collection::btree_set(0u64..2000, 0..300), 0..40)) {
            let mut set = StateSet::new();
            let mut model = BTreeSet::new();
            for batch in batches {
                let batch: Vec<u64> = batch.into_iter().collect();
                let fresh = set.insert_sorted(&batch);
                let expected: Vec<u64> =
                    batch.iter().copied().filter(|h| !model.contains(h)).collect();
                model.extend(batch.iter().copied());
                prop_assert_eq!(fresh, expected);
                prop_assert_eq!(set.len(), model.len());
            }
            // The runs stay few: their sizes at least double towards the oldest.
            prop_assert!(set.runs.len() <= 64 - (set.len().max(1)).leading_zeros() as usize + 1);
        }
    }

    #[test]
    fn galloping_finds_hashes_at_both_ends() {
        let run: Vec<u64> = (0..1000).map(|i| i * 2).collect();
        assert_eq!(
            absent_from(&run, &[0, 1, 998, 1998, 1999, 5000]),
            vec![1, 1999, 5000]
        );
        assert_eq!(absent_from(&[], &[3, 4]), vec![3, 4]);
    }
}
