//! Partitioning: which node holds which key, and what a change of membership costs.
//!
//! A distributed store splits its keys over nodes. The obvious rule, `hash % N`, balances well
//! and moves almost everything when `N` changes: going from 4 to 5 nodes moves 80 % of the keys
//! (RING-1), where the minimum is the 20 % the new node must take. The consistent-hash ring puts
//! nodes and keys on one circle of 64-bit hashes and gives each key to the first node clockwise,
//! so a join only takes the arcs in front of the newcomer; with a single position per node the
//! arcs are wildly uneven (one node of four took 70 % in the lesson), and virtual nodes (many
//! positions per node, `X#0 .. X#149`) average them out, the deviation falling about as
//! `1/sqrt(vnodes)` (RING-2). Weights give a bigger machine more vnodes. Rendezvous hashing gets
//! the same minimal movement with no ring at all: every node draws a weight per key and the
//! highest wins, and the top `r` are the replica set (RING-3). Real systems often add a level:
//! keys to a fixed table of slots, slots to nodes, so rebalancing moves whole slots. Range
//! partitioning keeps neighbouring keys together, which serves range scans and turns a skewed
//! workload into a hot spot (RING-4).
//!
//! The module is pure computation: [`hash`] names the hash functions, [`keys`] builds key sets,
//! [`placement`] holds the schemes behind one trait (reused by the live ring protocol), and
//! [`measure`] turns a placement and keys into the lesson's figures. Nothing here prints, reads
//! files or looks at the clock; every random draw comes from a seeded `SimRng` stream.

pub mod hash;
pub mod keys;
pub mod lesson;
mod md5x;
pub mod measure;
pub mod placement;
pub mod scatter;
