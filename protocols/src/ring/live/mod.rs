//! # The live ring: the consistent-hash ring as a replicated store (text 004, listings 9.15 to
//! 9.18; text 000, sections 8 and 9)
//!
//! The placement code of `ring::placement` answers *where* a key lives; this module makes that
//! answer run. Storage nodes (`Nodo`, listing 9.16) keep a durable store `key -> (version,
//! value)` and "the newest wins"; a coordinator (`Coordinador`, listing 9.15) sends each write to
//! the key's RF home replicas, the next RF distinct physical nodes clockwise, and confirms it at W
//! acks; it reads from the homes and returns the newest of R replies. With R + W > RF every read
//! quorum meets every write quorum in at least one replica, so a read that starts after a write
//! was confirmed sees it; with R + W <= RF it need not, and `stale-read.ron` shows the read that
//! misses it.
//!
//! **Failures.** The coordinator has no oracle: a home replica that has not acked within
//! `rpc_timeout_ms` is taken as down, and the next node clockwise past the replica set (a
//! stand-in) keeps the write as a *hint* for it and retries handing it over every
//! `hint_retry_ms`, until the home acknowledges (hinted handoff). Hints do not count toward W:
//! a write confirmed by stand-ins is on nodes no read asks. A scenario can turn on Dynamo's
//! *sloppy quorum* (`sloppy_quorum: true`), and then `read-your-latest-ack` shows the price: a
//! read of the homes, back before the hint, misses a confirmed write. A read also repairs: every
//! home that answered with an older version is sent the newest ("repara las rezagadas").
//!
//! **Versions.** The one coordinator numbers each key's writes 1, 2, ... (the lesson writes v1,
//! v2). Real stores have many coordinators and cannot share a counter: Dynamo and Riak keep
//! vector clocks and hand concurrent siblings to the client; Cassandra stamps each write with
//! the client's clock and the last write wins. With a single coordinator there are no concurrent
//! versions to reconcile, so the lesson needs neither.
//!
//! **Rebalancing.** `Join("n6")` or `Leave("n2")` moves the map to a new epoch ([`map`]); the
//! coordinator tells every node of the old and new ring. Each key's first old home streams it to
//! each new home that lacks it, in chunks of at most `chunk_bytes`, each sent after its bytes'
//! time on the wire at `bandwidth_bytes_per_s` and resent until acknowledged, so a move's
//! duration follows from its bytes and shows in the trace (`Streamed`). Meanwhile writes go to
//! the homes of both maps (W acks in each) and reads use the old map; when every source has
//! finished, reads switch and the nodes drop what they no longer home (`Cleanup`). The scheme is
//! selectable: `Vnodes` (partitions proportional to nodes: the ring), `Partitions` (a fixed
//! table, a newcomer steals whole partitions) or `Dynamic` (below). `RebalanceDone` reports keys and bytes moved
//! against the ideal, the newcomer's (or leaver's) fair share RF/N of the data.
//!
//! **Routing.** Clients (`clients: ["c1"]`) are Redis Cluster's informed client ("cliente
//! informado", text 000 section 9) on Dynamo's storage nodes: a client caches the partition
//! map and sends each request straight to the key's owner, its first home replica, which
//! coordinates the quorum as the coordinator would and answers the client ([`serve`],
//! [`client`]). A node that does not own the key does not proxy it: it answers `Moved` with
//! the owner in its map, and the client remembers that owner for the key and retries there (at
//! most three redirects). The map reaches the clients only `map_delay_ms` after a rebalance
//! ends, so for that long they are redirected. The owner numbers the key's writes one past the
//! newest version it gave or holds; during a move the next owner must ack them, so versions
//! keep growing when ownership passes. The `ignore_moved` knob has an old owner serve anyway.
//!
//! **Dynamic partitioning.** `Dynamic(split_bytes: N)` is text 000's second scheme: one hash
//! range at first; the coordinator sizes ranges from the writes it numbers, and a range past N
//! bytes splits at its midpoint, the upper half moving to the least-loaded node as a rebalance
//! of its own (epoch, stream at the bandwidth, `RebalanceDone` against the ideal) ([`split`]).
//!
//! **Not modelled.** Merging ranges that shrink, and pre-splitting; clients together with the
//! dynamic scheme (their writes bypass the coordinator that sizes the ranges; validation
//! refuses the pair). Concurrent writers of one key: each key has one numbering owner at a
//! time, and mixing the coordinator's `Put`/`Load` with clients' writes of the same keys would
//! number them twice. The map itself would need consensus or gossip in a real system (text
//! 000, section 9); one coordinator orders the epochs here, and pushes the map to the clients.
//!
//! Files: [`config`] (settings, knobs, validation), [`map`] (the map at an epoch), [`msg`],
//! [`node`] (storage role and the actor), [`coord`] (coordinator role), [`serve`] (owners
//! serving clients), [`client`] (the client role), [`split`] (dynamic splits), [`notes`],
//! [`invariants`], [`expect`], [`narrate`], [`protocol`].

pub mod client;
pub mod config;
pub mod coord;
pub mod expect;
pub mod invariants;
pub mod map;
pub mod msg;
pub mod narrate;
pub mod node;
pub mod notes;
pub mod protocol;
pub mod serve;
pub mod split;
#[cfg(test)]
mod tests;

pub use config::{Bugs, RingConfig, Scheme};
pub use expect::RingExpect;
pub use msg::{RingCommand, RingMsg, RingTimer, Versioned};
pub use node::RingNode;
pub use notes::{RingNote, Via};
pub use protocol::LiveRing;

use sim_core::{NodeId, Protocol, Sim, SimConfig};

/// A simulation of `config` with its invariants installed (for tests and benchmarks).
pub fn sim(config: &RingConfig, sim_config: SimConfig) -> Sim<RingNode> {
    let mut sim = Sim::new(sim_config);
    for (i, name) in config.names().iter().enumerate() {
        sim.add_node(name, LiveRing::build(config, NodeId(i as u32)));
    }
    for invariant in LiveRing::invariants(config) {
        sim.add_invariant(invariant);
    }
    sim
}
