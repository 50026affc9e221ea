//! The measurements of the lesson, as pure functions over a placement and a key set: keys per
//! node, relative deviation and imbalance, keys moved and replica sets changed by a membership
//! change, and the three experiments of text 004 (durability, hot spot, Map-Reduce makespan).

use super::hash::HashFn;
use super::keys::KeySet;
use super::placement::{NodeId, Placement, Rendezvous};
use rayon::prelude::*;
use sim_core::rng::{SimRng, Stream};

/// Keys per node, indexed by [`NodeId`] (`ids` long; nodes without keys count 0).
pub fn counts(placement: &impl Placement, keys: &KeySet, ids: usize) -> Vec<u64> {
    let mut counts = vec![0u64; ids];
    for k in keys.iter() {
        counts[placement.owner(k) as usize] += 1;
    }
    counts
}

/// How even a distribution of keys over nodes is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Balance {
    /// Population standard deviation of keys per node over their mean, in % (the lesson's
    /// `desviacion_relativa`; 0 is perfect).
    pub deviation_pct: f64,
    /// Busiest node over the mean (text 004's `desbalance`; 1 is perfect).
    pub imbalance: f64,
}

/// The balance of `counts`, one entry per node that takes part (zeros included: a node that
/// gets nothing is the worst imbalance, not a node to leave out).
pub fn balance(counts: &[u64]) -> Balance {
    if counts.is_empty() {
        return Balance {
            deviation_pct: 0.0,
            imbalance: 0.0,
        };
    }
    let n = counts.len() as f64;
    let mean = counts.iter().sum::<u64>() as f64 / n;
    if mean == 0.0 {
        return Balance {
            deviation_pct: 0.0,
            imbalance: 0.0,
        };
    }
    let var = counts
        .iter()
        .map(|&c| {
            let d = c as f64 - mean;
            d * d
        })
        .sum::<f64>()
        / n;
    let max = counts.iter().copied().max().unwrap_or(0) as f64;
    Balance {
        deviation_pct: var.sqrt() / mean * 100.0,
        imbalance: max / mean,
    }
}

/// What a membership change did to a key set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Movement {
    /// Keys whose owner changed.
    pub moved: u64,
    /// Keys whose replica set changed, compared as sets (when replicas were asked for).
    pub replica_sets_changed: Option<u64>,
}

/// Compares owners (and replica sets of size `replicas`, as sets) of every key between two
/// placements, key by key. Works for every scheme; [`super::placement::Ring::diff_sorted`] is
/// the fast path for rings and [`rendezvous_movement`] computes each weight once.
pub fn movement(
    before: &impl Placement,
    after: &impl Placement,
    keys: &KeySet,
    replicas: Option<usize>,
) -> Movement {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut m = Movement {
        moved: 0,
        replica_sets_changed: replicas.map(|_| 0),
    };
    for k in keys.iter() {
        match replicas {
            None => m.moved += u64::from(before.owner(k) != after.owner(k)),
            Some(r) => {
                before.replicas(k, r.max(1), &mut a);
                after.replicas(k, r.max(1), &mut b);
                m.moved += u64::from(a.first() != b.first());
                a.sort_unstable();
                b.sort_unstable();
                if a != b {
                    *m.replica_sets_changed.as_mut().expect("replicas asked") += 1;
                }
            }
        }
    }
    m
}

/// A rendezvous membership change measured in one pass: the movement and the keys per node
/// before and after (indexed by [`NodeId`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RendezvousChange {
    /// Owners moved and replica sets changed.
    pub movement: Movement,
    /// Keys per node before the change.
    pub before: Vec<u64>,
    /// Keys per node after the change.
    pub after: Vec<u64>,
}

/// [`movement`] for rendezvous between the node lists `before` and `after` (`(id, name)`, in
/// order), hashing each `"node|key"` pair once even when a node is in both lists.
pub fn rendezvous_movement(
    hash_fn: HashFn,
    before: &[(NodeId, &str)],
    after: &[(NodeId, &str)],
    keys: &KeySet,
    replicas: Option<usize>,
) -> RendezvousChange {
    let mut union: Vec<(NodeId, &str)> = before.to_vec();
    for n in after {
        if !union.iter().any(|u| u.0 == n.0) {
            union.push(*n);
        }
    }
    let pick = |list: &[(NodeId, &str)]| -> Vec<usize> {
        list.iter()
            .map(|n| union.iter().position(|u| u.0 == n.0).expect("in the union"))
            .collect()
    };
    let (ib, ia) = (pick(before), pick(after));
    let ids = union.iter().map(|u| u.0 as usize + 1).max().unwrap_or(0);
    // Blocks of keys are independent and their tallies are sums, so the result does not depend
    // on how rayon schedules them.
    const BLOCK: usize = 1024;
    let blocks = keys.len().div_ceil(BLOCK);
    let tally = (0..blocks)
        .into_par_iter()
        .map(|blk| {
            let keys_of = blk * BLOCK..((blk + 1) * BLOCK).min(keys.len());
            rendezvous_block(hash_fn, &union, (&ib, &ia), keys, keys_of, replicas, ids)
        })
        .reduce(|| Tally::new(ids), Tally::merge);
    RendezvousChange {
        movement: Movement {
            moved: tally.moved,
            replica_sets_changed: replicas.map(|_| tally.changed),
        },
        before: tally.before,
        after: tally.after,
    }
}

/// Partial results of [`rendezvous_movement`] over a block of keys.
struct Tally {
    moved: u64,
    changed: u64,
    before: Vec<u64>,
    after: Vec<u64>,
}

impl Tally {
    fn new(ids: usize) -> Tally {
        Tally {
            moved: 0,
            changed: 0,
            before: vec![0; ids],
            after: vec![0; ids],
        }
    }

    fn merge(mut self, other: Tally) -> Tally {
        self.moved += other.moved;
        self.changed += other.changed;
        for (x, y) in self.before.iter_mut().zip(&other.before) {
            *x += y;
        }
        for (x, y) in self.after.iter_mut().zip(&other.after) {
            *x += y;
        }
        self
    }
}

/// One block of [`rendezvous_movement`]: every `"node|key"` weight of the block in one batch.
fn rendezvous_block(
    hash_fn: HashFn,
    union: &[(NodeId, &str)],
    (ib, ia): (&[usize], &[usize]),
    keys: &KeySet,
    block: std::ops::Range<usize>,
    replicas: Option<usize>,
    ids: usize,
) -> Tally {
    let r = replicas.unwrap_or(1).max(1);
    let mut tally = Tally::new(ids);
    let mut text = String::new();
    let mut ends = Vec::new();
    for i in block {
        let key = keys.get(i).text;
        for (_, name) in union {
            text.push_str(name);
            text.push('|');
            text.push_str(key);
            ends.push(text.len());
        }
    }
    let mut start = 0;
    let msgs: Vec<&[u8]> = ends
        .iter()
        .map(|&end| {
            let m = &text.as_bytes()[start..end];
            start = end;
            m
        })
        .collect();
    let mut w = Vec::with_capacity(msgs.len());
    hash_fn.hash_many(&msgs, &mut w);
    let (mut wb, mut wa) = (Vec::new(), Vec::new());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for row in w.chunks(union.len().max(1)) {
        wb.clear();
        wb.extend(ib.iter().map(|&i| (union[i].0, row[i])));
        wa.clear();
        wa.extend(ia.iter().map(|&i| (union[i].0, row[i])));
        Rendezvous::top(&wb, r, &mut a);
        Rendezvous::top(&wa, r, &mut b);
        if let (Some(&x), Some(&y)) = (a.first(), b.first()) {
            tally.before[x as usize] += 1;
            tally.after[y as usize] += 1;
        }
        tally.moved += u64::from(a.first() != b.first());
        if replicas.is_some() {
            a.sort_unstable();
            b.sort_unstable();
            tally.changed += u64::from(a != b);
        }
    }
    tally
}

/// Monte Carlo durability (text 004, figure 9.8): each of `partitions` partitions puts `rf`
/// replicas on distinct random nodes of `nodes`; in each of `trials` trials every node fails
/// independently with probability `p_ppm` parts per million. Returns the fraction of
/// (partition, trial) pairs that lost every replica; about `p^rf`.
pub fn durability(nodes: u64, partitions: u64, rf: u64, p_ppm: u64, trials: u64, seed: u64) -> f64 {
    let rf = rf.clamp(1, nodes.max(1));
    let mut rng = SimRng::new(seed, Stream::Faults);
    let mut lost = 0u64;
    let mut down = vec![false; nodes as usize];
    let mut pool: Vec<u64> = (0..nodes).collect();
    for _ in 0..trials {
        for d in down.iter_mut() {
            *d = rng.below(1_000_000) < p_ppm;
        }
        for _ in 0..partitions {
            // A partial Fisher-Yates draws rf distinct nodes.
            let mut all_down = true;
            for i in 0..rf as usize {
                let j = i + rng.below(nodes - i as u64) as usize;
                pool.swap(i, j);
                all_down &= down[pool[i] as usize];
            }
            lost += u64::from(all_down);
        }
    }
    lost as f64 / (partitions * trials).max(1) as f64
}

/// Load per worker of a Map-Reduce shuffle: word `w` (with `counts[w]` occurrences, named by
/// `name(w)`) goes to reducer `hash(name) % workers` (text 004, listing 9.9).
pub fn reducer_loads(
    counts: &[u64],
    workers: usize,
    hash_fn: HashFn,
    name: impl Fn(usize) -> String,
) -> Vec<u64> {
    let mut loads = vec![0u64; workers.max(1)];
    let n = loads.len() as u64;
    for (w, &c) in counts.iter().enumerate() {
        if c > 0 {
            loads[(hash_fn.hash_str(&name(w)) % n) as usize] += c;
        }
    }
    loads
}

/// The makespan of a shuffle as a fraction of the total work: the busiest reducer's share.
pub fn makespan_fraction(loads: &[u64]) -> f64 {
    let total: u64 = loads.iter().sum();
    if total == 0 {
        return 0.0;
    }
    *loads.iter().max().expect("non-empty") as f64 / total as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balance_is_population_deviation_and_max_over_mean() {
        let b = balance(&[10, 20, 30]);
        assert!((b.deviation_pct - 40.824_829).abs() < 1e-5, "{b:?}");
        assert!((b.imbalance - 1.5).abs() < 1e-12);
        assert_eq!(balance(&[5, 5]).deviation_pct, 0.0);
    }

    #[test]
    fn durability_falls_as_p_to_the_rf() {
        let p = 0.3f64;
        for rf in [1u64, 2, 3] {
            let got = durability(100, 200, rf, 300_000, 400, 1);
            let want = p.powi(rf as i32);
            assert!((got / want - 1.0).abs() < 0.15, "rf {rf}: {got} vs {want}");
        }
    }

    #[test]
    fn makespan_is_the_busiest_share() {
        assert_eq!(makespan_fraction(&[1, 3]), 0.75);
        let loads = reducer_loads(&[10, 0, 5], 2, HashFn::Xxh3, |w| format!("w{w}"));
        assert_eq!(loads.iter().sum::<u64>(), 15);
    }
}
