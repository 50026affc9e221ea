//! The lesson's own tables (text 000: `hash_modulo.py`, `anillo_consistente.py`, exercises 1
//! and 3), computed from one key set hashed once. The CLI prints them, the tests pin them and
//! the benchmark races them against the lesson's Python.

use super::hash::HashFn;
use super::keys::{KeySet, Pattern};
use super::measure::{self, Balance, Movement};
use super::placement::{Member, NodeId, Ring};

/// The lesson's keys: `P-2026-000001` ... `P-2026-100000` under the course's MD5-64.
pub fn lesson_keys() -> KeySet {
    let pattern = Pattern::parse("P-2026-{:06}").expect("a valid pattern");
    KeySet::from_pattern(&pattern, 1..=100_000, HashFn::Md5_64)
}

/// The lesson's four inventory nodes, in its order.
pub const INVENTORY: [&str; 4] = ["inv-bcn", "inv-vlc", "inv-gir", "inv-lle"];

/// RING-1: keys moved by `hash % N` for each resize `(before, after)` of the lesson.
#[derive(Clone, Debug, PartialEq)]
pub struct ModResize {
    /// Nodes before.
    pub before: u64,
    /// Nodes after.
    pub after: u64,
    /// Keys whose node changed.
    pub moved: u64,
}

/// RING-2: one ring of the four inventory nodes with `vnodes` vnodes each.
#[derive(Clone, Debug, PartialEq)]
pub struct RingSpread {
    /// Vnodes per node.
    pub vnodes: u32,
    /// Keys per node, in [`INVENTORY`] order.
    pub counts: Vec<u64>,
    /// Deviation and imbalance of `counts`.
    pub balance: Balance,
}

/// All of the lesson's figures for one key set.
#[derive(Clone, Debug, PartialEq)]
pub struct LessonTables {
    /// How many keys were placed.
    pub keys: u64,
    /// RING-1, resizes 4->5, 5->6, 10->11, 4->8.
    pub mod_resizes: Vec<ModResize>,
    /// RING-2, vnodes 1, 10 and 150.
    pub spreads: Vec<RingSpread>,
    /// RING-2, keys moved by adding `inv-tar` to the 150-vnode ring.
    pub add_tar_moved: u64,
    /// RING-2, keys moved by removing `inv-vlc` from the 150-vnode ring.
    pub remove_vlc_moved: u64,
    /// RING-2, keys per node after removing `inv-vlc`: `inv-bcn`, `inv-gir`, `inv-lle`.
    pub after_remove_vlc: Vec<u64>,
    /// RING-3 exercise 1: `inv-bcn` weight 2, `inv-vlc` and `inv-gir` weight 1, keys per node
    /// in that order.
    pub weighted: Vec<u64>,
    /// RING-3 exercise 1: positions left after removing the weighted `inv-bcn` (must be 300).
    pub weighted_points_after_remove: usize,
    /// RING-3 exercise 1: keys of `inv-vlc` and `inv-gir` after removing `inv-bcn`.
    pub weighted_after_remove: Vec<u64>,
    /// RING-3 exercise 3: rendezvous over `n1..n5`, keys per node.
    pub rendezvous: Vec<u64>,
    /// RING-3 exercise 3: deviation of `rendezvous`.
    pub rendezvous_balance: Balance,
    /// RING-3 exercise 3: adding `n6`, primaries moved and 3-replica sets changed.
    pub rendezvous_join: Movement,
}

fn members(names: &[&str]) -> Vec<Member> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| Member::new(i as NodeId, *n))
        .collect()
}

/// Computes every table of the lesson on `keys` (MD5-64 keys give the lesson's numbers).
pub fn lesson_tables(keys: &KeySet) -> LessonTables {
    let hash_fn = keys.hash_fn();
    let hashes = keys.hashes();
    let mod_resizes = [(4u64, 5u64), (5, 6), (10, 11), (4, 8)]
        .into_iter()
        .map(|(before, after)| ModResize {
            before,
            after,
            moved: hashes.iter().filter(|&&h| h % before != h % after).count() as u64,
        })
        .collect();

    let mut sorted = hashes.to_vec();
    sorted.sort_unstable();
    let inv = members(&INVENTORY);
    let ring_counts = |ring: &Ring, ids: usize| ring.counts_sorted(&sorted, ids);
    let spreads = [1u32, 10, 150]
        .into_iter()
        .map(|vnodes| {
            let counts = ring_counts(&Ring::build(hash_fn, vnodes, &inv), 4);
            RingSpread {
                vnodes,
                balance: measure::balance(&counts),
                counts,
            }
        })
        .collect();
    let ring150 = Ring::build(hash_fn, 150, &inv);
    let mut with_tar = ring150.clone();
    with_tar.add_node(&Member::new(4, "inv-tar"));
    let mut without_vlc = ring150.clone();
    without_vlc.remove_node(1);
    let add_tar_moved = ring150.diff_sorted(&with_tar, &sorted, 1).moved;
    let remove_vlc_moved = ring150.diff_sorted(&without_vlc, &sorted, 1).moved;
    let c = ring_counts(&without_vlc, 4);
    let after_remove_vlc = vec![c[0], c[2], c[3]];

    let mut weighted_members = members(&["inv-bcn", "inv-vlc", "inv-gir"]);
    weighted_members[0].weight = 2.0;
    let mut weighted_ring = Ring::build(hash_fn, 150, &weighted_members);
    let weighted = ring_counts(&weighted_ring, 3);
    weighted_ring.remove_node(0);
    let weighted_points_after_remove = weighted_ring.points().len();
    let weighted_after_remove = ring_counts(&weighted_ring, 3)[1..].to_vec();

    let names = ["n1", "n2", "n3", "n4", "n5", "n6"];
    let five: Vec<(NodeId, &str)> = (0..5).map(|i| (i as NodeId, names[i])).collect();
    let six: Vec<(NodeId, &str)> = (0..6).map(|i| (i as NodeId, names[i])).collect();
    let change = measure::rendezvous_movement(hash_fn, &five, &six, keys, Some(3));
    let rendezvous = change.before[..5].to_vec();
    LessonTables {
        keys: keys.len() as u64,
        mod_resizes,
        spreads,
        add_tar_moved,
        remove_vlc_moved,
        after_remove_vlc,
        weighted,
        weighted_points_after_remove,
        weighted_after_remove,
        rendezvous_balance: measure::balance(&rendezvous),
        rendezvous,
        rendezvous_join: change.movement,
    }
}
