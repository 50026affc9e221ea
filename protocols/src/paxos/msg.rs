//! The messages Paxos roles exchange through the simulated network, in the paper's words.
//!
//! Phase 1 is `Prepare` / `Promise`, phase 2 is `Accept` / `Accepted`; an acceptor that refuses
//! either request answers `Nack` with the number it has promised, so that the proposer can jump
//! above it in its next round. This module only describes payloads; who sends what is `node`.

use serde::{Deserialize, Serialize};

/// A proposal number: `round * multiplier + proposer id`, unique per proposer and round.
pub type Number = u64;

/// A value as proposed, accepted and chosen: interned text, as node names are (see
/// [`sim_core::Name`]), so that the many copies a round makes (in every `Accept`, every
/// `Accepted`, every acceptor's memory and note) are a pointer copy each, with no allocation
/// and no reference count, and telling two values apart is one comparison. Values come from
/// the config and the scenario's commands, so the texts kept are few. It reads and writes as
/// a plain string.
pub type Value = sim_core::Name;

/// A proposal as an acceptor remembers it: the number it was accepted with, and its value.
pub type Proposal = (Number, Value);

/// One Paxos message.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PaxosMsg {
    /// Phase 1a, proposer to acceptors: "promise not to accept anything numbered below `n`".
    Prepare {
        /// The proposal number of the round.
        n: Number,
    },
    /// Phase 1b, acceptor to proposer: the promise, with the last proposal it accepted, if any.
    Promise {
        /// The number promised (the proposer's `n`).
        n: Number,
        /// The highest-numbered proposal this acceptor accepted before promising.
        accepted: Option<Proposal>,
    },
    /// Acceptor to proposer: the `Prepare` or `Accept` numbered `n` was refused because the
    /// acceptor already promised `promised`.
    Nack {
        /// The refused number.
        n: Number,
        /// What the acceptor has promised instead.
        promised: Number,
    },
    /// Phase 2a, proposer to acceptors: "accept this value with number `n`".
    Accept {
        /// The proposal number of the round.
        n: Number,
        /// The value proposed (adopted from the promises, or the proposer's own).
        value: Value,
    },
    /// Phase 2b, acceptor to the proposer and to every learner: "I accepted (`n`, `value`)".
    Accepted {
        /// The accepted number.
        n: Number,
        /// The accepted value.
        value: Value,
    },
}

sim_core::message!(PaxosMsg {
    Prepare,
    Promise,
    Nack,
    Accept,
    Accepted
});
