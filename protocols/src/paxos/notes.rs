//! The facts Paxos nodes publish for checkers, expectations and the story.
//!
//! Invariants read only these (and the kernel's records), never an actor's state, so everything
//! a safety argument needs is here: what each acceptor promised and accepted, what each proposer
//! proposed or adopted, and what each learner learned. The notes are the trace's vocabulary, so
//! a student can edit a trace file and `dsim check` judges it with the very same checkers.

use crate::paxos::msg::{Number, Proposal, Value};
use serde::{Deserialize, Serialize};

/// A fact one Paxos node published.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PaxosNote {
    /// Proposer: phase 1 starts, `Prepare(n)` goes out, hoping to propose `value`.
    Preparing {
        /// The round's proposal number.
        n: Number,
        /// The value the proposer would like chosen (its own).
        value: Value,
    },
    /// Acceptor: promised `n`, reporting the proposal it had accepted before, if any.
    Promised {
        /// The number promised.
        n: Number,
        /// Its last accepted proposal, carried in the promise.
        accepted: Option<Proposal>,
    },
    /// Acceptor: refused a `Prepare` or `Accept` numbered `n`, having promised `promised`.
    Nacked {
        /// The refused number.
        n: Number,
        /// The acceptor's promise.
        promised: Number,
    },
    /// Acceptor: accepted proposal (`n`, `value`).
    Accepted {
        /// The proposal number.
        n: Number,
        /// The value.
        value: Value,
    },
    /// Proposer: a promise reported an accepted proposal numbered `from_n` with another value, so
    /// round `n` proposes `value` and gives up its own value `gave_up` (the heart of Paxos).
    Adopted {
        /// The round's proposal number.
        n: Number,
        /// The value adopted.
        value: Value,
        /// The number of the highest accepted proposal reported.
        from_n: Number,
        /// The proposer's own value, given up.
        gave_up: Value,
    },
    /// Proposer: phase 2 starts, `Accept(n, value)` goes out.
    Proposed {
        /// The round's proposal number.
        n: Number,
        /// The value proposed.
        value: Value,
    },
    /// Proposer: a phase ended without a majority (timeout, or too many nacks).
    PhaseFailed {
        /// 1 (prepare/promise) or 2 (accept/accepted).
        phase: u8,
        /// The round's proposal number.
        n: Number,
        /// Promises (phase 1) or accepts (phase 2) counted.
        got: u32,
        /// The majority that was needed.
        needed: u32,
        /// When the next round starts, if the proposer retries.
        retry_in_ms: Option<u64>,
    },
    /// Proposer: a new `Propose` started another round while this phase still waited; `got`
    /// promises (phase 1) or accepts (phase 2) of the `needed` majority had come in.
    Abandoned {
        /// 1 (prepare/promise) or 2 (accept/accepted).
        phase: u8,
        /// The abandoned round's proposal number.
        n: Number,
        /// Promises (phase 1) or accepts (phase 2) counted.
        got: u32,
        /// The majority that was needed.
        needed: u32,
    },
    /// Learner: a majority of acceptors accepted (`n`, `value`). Noted once per learner and
    /// number; `accepts` counts the accepts seen by then (the proposer-learner counts until its
    /// own phase 2 ends, as the lesson does), out of `of` acceptors.
    Chosen {
        /// The chosen proposal's number.
        n: Number,
        /// The chosen value.
        value: Value,
        /// Accepts counted.
        accepts: u32,
        /// Acceptors in all.
        of: u32,
    },
}
