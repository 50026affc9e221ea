//! # Lease-based leader election with fencing tokens (text 003, "Sistemas que lo implementan y
//! su uso en Kilómetro Cero", `relay_lider.py`, exercise 3)
//!
//! Three instances of the outbox relay race for one key on a linearizable store (etcd): each
//! gets a lease with a TTL and tries the transaction "create the key if it does not exist, with
//! my lease". One wins; it works a round, refreshes its lease, sleeps, and again. The others
//! read the key and wait on a watch for its deletion. A leader that dies (kill -9) stops
//! refreshing, so its lease expires by the store's clock within the TTL and the key goes; one
//! that shuts down cleanly revokes at once.
//!
//! **The window.** A leader cut off from the store cannot refresh; it stops the moment a
//! refresh fails (no answer within the RPC timeout), and as a safety net at its last good
//! refresh + TTL - margin by its own clock. Its lease expires at the store TTL after the last
//! refresh, and only then can another win: if the old one stopped first, there are never two
//! leaders at once. But a leader that does not check its refresh, one whose clock runs slow (its
//! safety net fires late), or one paused mid-work (a long garbage collection) for longer than
//! the TTL left acts after it lost the lease: two relays act as leader at once, **split
//! brain** ([`invariants`]). Leases cannot close that window; **fencing** can make it harmless:
//! the key's `mod_revision` grows with every winner, the leader writes it with every write,
//! and the resource rejects a write whose token is lower than one it has seen.
//!
//! Modules: [`config`] (the settings and their checks), [`msg`] (etcd's calls), [`store`],
//! [`relay`], [`resource`], [`node`] (the actor), [`notes`], [`invariants`], [`expect`],
//! [`narrate`] (the story, English and the lesson's Spanish), [`timeline`] (exercise 3's
//! solution: a lost leadership step by step, from the last renewal), [`protocol`] (the wiring).

pub mod config;
pub mod expect;
pub mod invariants;
pub mod msg;
pub mod narrate;
pub mod node;
pub mod notes;
pub mod protocol;
pub mod relay;
pub mod resource;
pub mod setup;
pub mod store;
pub mod timeline;

#[cfg(test)]
mod tests;

pub use config::{Bugs, LeaseConfig};
pub use expect::LeaseExpect;
pub use msg::LeaseMsg;
pub use node::{LeaseCommand, LeaseNode};
pub use notes::LeaseNote;
pub use protocol::Lease;
