//! # Single-decree Paxos
//!
//! Several **proposers** want one value chosen (in the lesson: relay-1 and relay-2 each want to
//! lead the outbox relay); **acceptors** (a1, a2, a3) vote; **learners** find out what was
//! chosen. A value is *chosen* when a majority of acceptors accepted the same proposal. Messages
//! may be lost, delayed or duplicated and nodes may crash, yet no two different values may ever
//! be chosen. This module follows Lamport's "Paxos Made Simple" and uses its names.
//!
//! ## Proposal numbers
//!
//! Every proposal has a number n, unique and totally ordered. Here n = round * 10 + proposer id
//! (relay-1's first round is 11, relay-2's is 12, relay-1's second is 21), so two proposers
//! never use the same number. The next round is the next number (the lesson's `ronda += 1`); with
//! `numbering: PastHighestSeen` a proposer that hears of a higher promise jumps above it.
//!
//! ## Phase 1: prepare and promise
//!
//! The proposer sends `Prepare(n)` to every acceptor. An acceptor that has promised nothing
//! higher **promises** n: it will never again accept a proposal numbered below n (P1a), and it
//! reports the highest-numbered proposal it has already accepted, if any. Otherwise it answers
//! `Nack` with what it promised. A `Prepare(n)` equal to the promise can only be the same
//! request again (numbers are unique to a proposer and round): a network duplicate gets the same
//! promise, so duplication never turns a yes into a no. The proposer counts a nack only when it
//! names a higher promise, and each acceptor once.
//!
//! ## Phase 2: accept and accepted
//!
//! Phase 1 ends when every acceptor has answered or the phase timeout expires (the lesson's rule;
//! `count_promises: AtMajority` ends it at the first majority). With promises from a majority,
//! the proposer picks the value. **This is the heart of Paxos:**
//! if any promise reported an accepted proposal, it must propose the value of the one with the
//! highest number (it *adopts* it and gives up its own); only if none reported anything may it
//! propose its own value. It sends `Accept(n, value)`; an acceptor accepts unless it has promised
//! a higher number meanwhile (n equal to its promise is accepted), and tells the proposer and
//! every learner `Accepted(n, value)`. A learner that counts a majority of accepts for the same n
//! has learned the chosen value.
//!
//! ## Why it is safe
//!
//! Suppose v was chosen with number n: a majority accepted (n, v). Any proposal numbered m > n
//! needs promises from a majority, and two majorities share an acceptor; that acceptor reports
//! an accepted proposal numbered at least n, and by induction every proposal between n and m
//! carries v, so the adopt-highest rule forces m to carry v too (P2b). Hence **agreement**:
//! once chosen, always the same value. **Validity** is immediate: only proposed values travel.
//! Acceptors must keep `promised` and `accepted` on stable storage: an acceptor that forgets a
//! promise after a restart breaks P1a (see the bug knobs in [`config::Bugs`]).
//!
//! ## What it does not promise
//!
//! Termination. Two proposers can keep preparing higher numbers, each invalidating the other's
//! promises before its accepts land (a livelock, FLP in action). Random back-off
//! ([`OnTimeout::Retry`]) or a distinguished proposer ends the duel.
//!
//! ## Map of the module
//!
//! - [`msg`]: the messages (`Prepare`, `Promise`, `Nack`, `Accept`, `Accepted`).
//! - [`node`]: the actor [`PaxosNode`] with its proposer, acceptor and learner roles.
//! - [`notes`]: the facts nodes publish for checkers ([`PaxosNote`]).
//! - [`config`]: the scenario settings and bug knobs ([`PaxosConfig`]).
//! - [`invariants`]: agreement, validity, chosen-value-is-stable, from records only.
//! - [`expect`]: what a scenario can expect of the outcome ([`PaxosExpect`]).
//! - [`narrate`]: the story in English and in the lesson's Spanish.
//! - [`protocol`]: the [`Paxos`] plug for scenarios.

pub mod config;
pub mod expect;
pub mod invariants;
pub mod measure;
pub mod msg;
pub mod narrate;
pub mod node;
pub mod notes;
pub mod protocol;

pub use config::{Bugs, OnTimeout, PaxosConfig};
pub use expect::PaxosExpect;
pub use invariants::{Agreement, ChosenValueIsStable, Validity};
pub use msg::{Number, PaxosMsg, Proposal};
pub use node::{PaxosCommand, PaxosNode, PaxosTimer};
pub use notes::PaxosNote;
pub use protocol::Paxos;
#[cfg(test)]
mod tests;
