//! # The live ring: the consistent-hash ring as a replicated store (text 004, listings 9.15 to
//! 9.18; text 000, sections 8 and 9)
//!
//! The placement code of `partition::placement` answers *where* a key lives; this module makes that
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
//! coordinator tells every node of the old and new ring. Every old home of a key streams what
//! it holds to each new home that was not an old home, and the receiver keeps the newest: a
//! write confirmed at W acks may have missed one old home, so no single home is trusted to be
//! the source. Chunks hold at most `chunk_bytes`, each sent after its bytes' time on the wire at
//! `bandwidth_bytes_per_s` and resent until acknowledged, so a move's duration follows from its
//! bytes and shows in the trace (`Streamed`). Meanwhile writes go to the homes of both maps (W
//! acks in each) and reads use the old map. When every source has finished, every new home set
//! holds every confirmed version at W of its homes (the confirmed write's W old holders all
//! streamed it, and writes during the move had W acks among the new homes), so reads switch and
//! the nodes drop what they no longer home (`Cleanup`, resent until every node acknowledges;
//! the next change waits for that). A read still in flight on the old map that meets a node
//! that has dropped the key is answered "moved" and starts again on the reader's newer map. The
//! scheme is selectable: `Vnodes` (partitions proportional to nodes: the ring), `Partitions` (a
//! fixed table, a newcomer steals whole partitions) or `Dynamic` (below). `RebalanceDone`
//! reports the copies sent (about RF per required copy, since every old home streams) against
//! the copies the change required (one per key and new home that lacked it) and against an even
//! share, RF/N of the data: the newcomer's (a join or a split) or the leaver's. All three are
//! counted by the sources (the first old home of each key counts it), so they agree.
//!
//! **Routing.** Clients (`clients: ["c1"]`) are Redis Cluster's informed client ("cliente
//! informado", text 000 section 9) on Dynamo's storage nodes: a client caches the partition
//! map and sends each request straight to the key's owner, its first home replica, which
//! coordinates the quorum as the coordinator would and answers the client ([`serve`],
//! [`client`]). A node that does not own the key does not proxy it: it answers `Moved` with
//! the owner in its map, and the client remembers that owner for the key and retries there (at
//! most three redirects). The map reaches the clients only `map_delay_ms` after a rebalance
//! ends (and is resent until each acknowledges it), so for that long they are redirected.
//!
//! **Handover.** The owner numbers the key's writes one past the newest version it gave or
//! holds, once it knows the key's latest version: it does if it has owned the key in every map
//! since epoch 0 (no one else ever numbered it), and otherwise, before its first write of the
//! key since it took the key over, it reads R of the key's homes (a *version read*,
//! `VersionRead`; it repairs the homes that answered older, itself included) and numbers past
//! the newest. Holding is not enough: a new owner that was an old home may have missed a
//! write confirmed at W acks without it, and the rebalance streams only to new homes that were
//! not old homes. But every confirmed version is on W of the key's homes once the move is over
//! (every old home streamed what it held), and R + W > RF, so the version read sees the
//! newest (with R + W <= RF it may miss it, as any read may). During a move the old owner serves; the new owner serves from its own `Cleanup`; the
//! two overlap, so ownership is fenced rather than timed. Each node has an *era* (twice its
//! epoch, one less while it moves to it); a `Store` carries its writer's era and a replica at a
//! later era refuses it, so an old owner cannot land a write on replicas that are past the
//! handover. An old owner's write during a move goes to the next owner alone first, and to the
//! other homes only once the next owner has kept it: every version the old owner lands is on
//! the next owner, which numbers past it, and once the next owner has cleaned up it refuses the
//! old owner's writes, which then fail (the client is told `ok: false`) rather than number a
//! version twice. A replica never acknowledges a version it holds with another value. The
//! `ignore_moved` knob has an old owner serve anyway, after its cleanup: a client with a stale
//! map writes through it while others write through the real owner, and two owners number
//! the key.
//!
//! **Dynamic partitioning.** `Dynamic(split_bytes: N)` is text 000's second scheme: one hash
//! range at first; the coordinator sizes ranges from the writes it numbers, and a range past N
//! bytes splits at its midpoint, the upper half moving to the least-loaded node as a rebalance
//! of its own (epoch, stream at the bandwidth, `RebalanceDone` with its figures) ([`split`]).
//!
//! **Not modelled.** Merging ranges that shrink, and pre-splitting; clients together with the
//! dynamic scheme (their writes bypass the coordinator that sizes the ranges; validation
//! refuses the pair). Concurrent writers of one key: each key has one numbering owner at a
//! time, and mixing the coordinator's `Put`/`Load` with clients' writes of the same keys would
//! number them twice. The map itself would need consensus or gossip in a real system (text
//! 000, section 9); one coordinator orders the epochs here, and pushes the map to the clients.
//!
//! Files: [`config`] (settings, knobs, validation), [`map`] (the map at an epoch), [`msg`],
//! [`env`](mod@env) (what every role reads, and the actor bound of their handlers), the three roles,
//! each owning its state and handlers: [`storage`] (the storage role; its stream's data in
//! [`stream`]), [`coord`] (the quorum machine: the coordinator's, and an owner's for clients;
//! with [`serve`], owners serving clients, and [`split`], dynamic splits) and [`client`] (the
//! client role; its load generator, shared with the coordinator, in [`load`]); [`node`] (the
//! actor, composing the roles and routing to them), [`notes`], [`invariants`], [`expect`],
//! [`narrate`], [`protocol`]. No role module imports `node`, and the client imports neither
//! other role; the quorum machine reads the storage only through the parameter its handlers
//! take.

pub mod client;
pub mod config;
pub mod coord;
pub mod env;
pub mod expect;
pub mod invariants;
pub mod load;
pub mod map;
pub mod msg;
pub mod narrate;
pub mod node;
pub mod notes;
pub mod protocol;
pub mod serve;
pub mod split;
pub mod storage;
pub mod stream;
#[cfg(test)]
mod tests;

pub use config::{Bugs, RingConfig, Scheme};
pub use expect::RingExpect;
pub use msg::{RingCommand, RingMsg, RingTimer, Versioned};
pub use node::RingNode;
pub use notes::{RingNote, Via};
pub use protocol::LiveRing;
