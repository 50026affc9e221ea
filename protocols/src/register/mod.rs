//! # A linearizable register on single-decree Paxos: stateright's `examples/paxos.rs`
//!
//! The model stateright (0.31) checks in its own Paxos example, with the same messages, the
//! same rules and the same clients, so that `dsim explore register/stateright-paxos
//! --exhaustive` can be held against stateright's pinned counts (16,668 unique states with 2
//! clients, 1,194,428 with 3): an external check of the explorer, on the strongest Rust
//! model checker's own model.
//!
//! **Servers** (`server-0` ...) run single-decree Paxos, one term per client request. A server
//! that gets a `Put` while it has no proposal starts a term: the next round with its own id as
//! the ballot, a `Prepare` to its peers (its own promise counted at once: stateright simulates
//! the self-sends). A peer promises a higher ballot (`Prepared`, with what it accepted). At
//! exactly a majority of promises the leader proposes the accepted proposal of the highest
//! ballot among them, else its client's, and sends `Accept`; a peer accepts a ballot at least
//! its own (`Accepted`). At exactly a majority of accepts the leader has decided: it tells its
//! peers (`Decided`) and its client (`PutOk`). A decided server answers `Get` with the decided
//! value and ignores everything else; an undecided one ignores `Get` (the value may be decided
//! elsewhere).
//!
//! **Clients** (`client-3` ... after the servers, numbered on from them as stateright's ids
//! are) each `Put` once (client i writes the letter `'A' + (i - servers)`, to server `i mod
//! servers`) and, once it is acknowledged, `Get` from the next server; `put_count` sets how
//! many writes come before the read. Each invocation and return is a note, and the
//! [`invariants::Linearizable`] checker keeps the clients' history (ghost state, part of every
//! explored state) and asks [`crate::linearizability`] whether a sequential register explains it.
//!
//! **The semantics that decide the count**, copied from stateright and each a setting of the
//! explorer rather than a trick of this model: the network is a multiset of message contents
//! (two equal messages in flight are one delivery choice), messages are neither lost nor
//! copied (budgets 0), and a delivery that its receiver ignores (its state unchanged, nothing
//! sent) is no transition at all: the message stays in flight, as in stateright's
//! `src/actor/model.rs` (see `Protocol::IGNORED_MESSAGES_WAIT`). A timed `dsim run` of the
//! same file delivers every message once, ignored or not, as a network does.
//!
//! Modules: [`msg`], [`node`] (the server and the client), [`config`], [`invariants`],
//! [`protocol`] (the model and the story).

pub mod config;
pub mod invariants;
pub mod msg;
pub mod node;
pub mod protocol;

#[cfg(test)]
mod tests;

pub use config::RegisterConfig;
pub use msg::RegisterMsg;
pub use node::{RegisterNode, RegisterNote};
pub use protocol::RegisterPaxos;
