//! # Multi-Paxos
//!
//! Single-decree Paxos chooses one value; a replicated state machine needs a sequence of them,
//! a log (text 003: "el consenso se usa para acordar el orden (entrada 1, entrada 2, entrada
//! 3...)"). **Multi-Paxos** runs one Paxos instance per log entry (a *slot*) and makes it cheap
//! with a **stable leader**: phase 1 is run once, for every slot from some index on at once,
//! and from then on each entry costs only phase 2. Every replica here is proposer, acceptor and
//! learner at once, as in Chubby.
//!
//! ## Ballots and the one promise
//!
//! A ballot is `round * 10 + node id` (n1's first is 11, n2's 12, n1's second 21), unique per
//! node. An acceptor keeps **one promise for all slots**: `Prepare(b, from)` asks it to accept
//! nothing below b in any slot from `from` on, and its `Promise` reports what it has accepted
//! in each of those slots (ballot and value).
//!
//! ## Becoming leader: phase 1 once
//!
//! A replica that hears from no leader for an election timeout (or is the configured
//! distinguished proposer, or is told to `Lead`) prepares a ballot above every one it has
//! seen, from the first slot it does not know chosen. With promises from a majority (its own
//! included) it leads, and first **recovers the open slots**: in every slot some promise
//! reported, it proposes the value accepted at the highest ballot there (single-decree Paxos's
//! rule, per slot); a slot between them that nobody reported is a gap, filled with a `no-op`
//! so that the log has no hole. Then it proposes clients' values in the next free slots.
//!
//! ## Each entry: phase 2 only
//!
//! `Accept(b, slot, value)` goes to every other acceptor, which accepts unless it has promised
//! a higher ballot, and answers `Accepted`. With a majority (the leader's own vote included)
//! the entry is **chosen**: 2(N - 1) messages an entry, the lesson's "O(N): solo fase 2 con
//! líder estable". The leader's commit point (every slot up to it is chosen) rides on its next
//! accept and on its heartbeats; a follower that accepted a slot at the leader's ballot then
//! knows that value is the chosen one (a leader proposes one value per slot in its ballot).
//! Learners **apply the log in slot order**.
//!
//! ## What the paper leaves open, filled here
//!
//! - **Electing the leader**: by election timeout (default) or a fixed leader. A higher ballot
//!   ends a leadership: the old leader learns it from a `Nack` or from a higher prepare,
//!   accept or heartbeat, and steps down. Two replicas that keep preparing over each other
//!   duel (FLP again); random timeouts end it.
//! - **Lagging and restarted replicas**: a replica whose log lacks a committed slot (its
//!   accepts were lost, or it was down) asks the leader (`CatchUp`), which sends the chosen
//!   entries (`Decided`). Acceptor and log are durable, so a restart forgets nothing but its
//!   role and the values clients gave it.
//! - **Clients**: a value given to a follower is forwarded to the leader it knows (again with
//!   every heartbeat until applied); the same text twice is one command.
//! - Not modelled: membership changes and log compaction (snapshots).
//!
//! ## Why it is safe
//!
//! Per slot, it is single-decree Paxos: a value chosen at ballot b was accepted by a majority;
//! any higher ballot's phase 1 hears of it from a member of that majority and re-proposes it.
//! Hence [`invariants`]: one value per slot, applied only if chosen, applied prefixes agree,
//! and no phase 2 before phase 1 is complete; each is broken by one of [`config::Bugs`].
//!
//! ## Map of the module
//!
//! - [`msg`]: the messages; [`notes`]: the facts replicas publish for checkers.
//! - [`node`]: the replica's state, the acceptor and the learner; [`leader`]: the proposer;
//!   [`serve`]: the key-value state machine a replica applies the log to, and its answers to
//!   clients; [`client`]: a key-value client; [`actor`]: a node, replica or client;
//!   [`handler`]: their timers and commands.
//! - [`config`]: settings and bug knobs; [`invariants`]; [`expect`]; [`narrate`]: the story.
//! - [`protocol`]: the [`MultiPaxos`] plug for scenarios.

pub mod actor;
pub mod client;
pub mod config;
pub mod expect;
pub mod handler;
pub mod invariants;
pub mod leader;
pub mod msg;
pub mod narrate;
pub mod node;
pub mod notes;
pub mod protocol;
pub mod serve;

pub use actor::MultiPaxosNode;
pub use config::{Bugs, Election, MultiPaxosConfig};
pub use expect::MultiPaxosExpect;
pub use msg::{Ballot, ClientRequest, MultiPaxosMsg, Slot, Value};
pub use node::{MultiPaxosCommand, MultiPaxosTimer, Replica};
pub use notes::MultiPaxosNote;
pub use protocol::MultiPaxos;
#[cfg(test)]
mod tests;
