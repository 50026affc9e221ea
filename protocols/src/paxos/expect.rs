//! What a Paxos scenario can expect of a finished run, and how each expectation is checked.
//!
//! In RON: `Chosen("relay-1")`, `SomethingChosen`, `NothingChosen`, `Learned(node: "relay-2", value: "relay-1")`,
//! `Acceptor(node: "a2", promised: 21, accepted: Some((21, "relay-1")))`. Outcomes of choice
//! read the records (learners' `Chosen` notes, acceptors' `Accepted` notes); the acceptor
//! expectation reads the acceptor's final state, which is what the lesson prints at the end.

use crate::paxos::PaxosNode;
use crate::paxos::config::PaxosConfig;
use crate::paxos::invariants::AcceptLedger;
use crate::paxos::msg::{Number, Proposal, Value};
use crate::paxos::notes::PaxosNote;
use serde::{Deserialize, Serialize};
use sim_core::Outcome;

/// One expectation about a Paxos run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum PaxosExpect {
    /// At least one learner learned a value, and every learner that learned, learned this one.
    Chosen(String),
    /// Some value was chosen (whichever: a duel's winner depends on the seed), and every learner
    /// that learned, learned the same one.
    SomethingChosen,
    /// No learner learned anything and no majority of acceptors accepted the same proposal.
    NothingChosen,
    /// Learner `node` learned `value`.
    Learned {
        /// The learner.
        node: String,
        /// The value it must have learned.
        value: String,
    },
    /// Acceptor `node` ends with this promise and this accepted proposal.
    Acceptor {
        /// The acceptor.
        node: String,
        /// Its final promise.
        promised: Number,
        /// Its final accepted proposal (`None`: it never accepted).
        accepted: Option<Proposal>,
    },
}

/// Every learner's `Chosen` notes: (learner, n, value), in order.
fn learned(outcome: &Outcome<'_, PaxosNode>) -> Vec<(String, Number, Value)> {
    outcome
        .notes()
        .filter_map(|(_, node, note)| match note {
            PaxosNote::Chosen { n, value, .. } => Some((node.to_string(), *n, value.clone())),
            _ => None,
        })
        .collect()
}

/// Proposals a majority of acceptors accepted, from their `Accepted` notes.
fn chosen_by_acceptors(config: &PaxosConfig, outcome: &Outcome<'_, PaxosNode>) -> Vec<Proposal> {
    let mut ledger = AcceptLedger::new(&config.acceptors);
    for (_, node, note) in outcome.notes() {
        if let PaxosNote::Accepted { n, value } = note {
            ledger.accept(node, *n, value);
        }
    }
    ledger.chosen()
}

fn show(accepted: &Option<Proposal>) -> String {
    match accepted {
        Some((n, v)) => format!("({n}, '{v}')"),
        None => "nothing".into(),
    }
}

/// Checks one expectation: `Ok` says what held, `Err` what was expected and what happened.
pub fn check(
    config: &PaxosConfig,
    expect: &PaxosExpect,
    outcome: &Outcome<'_, PaxosNode>,
) -> Result<String, String> {
    let learned = learned(outcome);
    match expect {
        PaxosExpect::Chosen(want) => {
            if let Some((node, n, got)) = learned.iter().find(|(_, _, v)| **v != **want) {
                return Err(format!(
                    "expected '{want}' chosen, but {node} learned '{got}' (n={n})"
                ));
            }
            let who: std::collections::BTreeSet<&str> =
                learned.iter().map(|(node, _, _)| node.as_str()).collect();
            if who.is_empty() {
                return Err(format!(
                    "expected '{want}' chosen, but no learner learned anything"
                ));
            }
            let who: Vec<&str> = who.into_iter().collect();
            Ok(format!("'{want}' chosen, learned by {}", who.join(", ")))
        }
        PaxosExpect::SomethingChosen => {
            let Some((first, n, value)) = learned.first() else {
                return Err("expected some value chosen, but no learner learned anything".into());
            };
            if let Some((node, m, other)) = learned.iter().find(|(_, _, v)| v != value) {
                return Err(format!(
                    "expected one value chosen, but {first} learned '{value}' (n={n}) and {node} \
                     learned '{other}' (n={m})"
                ));
            }
            Ok(format!(
                "'{value}' chosen (first learned by {first} at n={n})"
            ))
        }
        PaxosExpect::NothingChosen => {
            if let Some((node, n, v)) = learned.first() {
                return Err(format!(
                    "expected nothing chosen, but {node} learned '{v}' (n={n})"
                ));
            }
            if let Some((n, v)) = chosen_by_acceptors(config, outcome).first() {
                return Err(format!(
                    "expected nothing chosen, but a majority of acceptors accepted '{v}' (n={n})"
                ));
            }
            Ok("nothing chosen".into())
        }
        PaxosExpect::Learned { node, value } => {
            let mine: Vec<&(String, Number, Value)> =
                learned.iter().filter(|(who, _, _)| who == node).collect();
            match mine.iter().find(|(_, _, v)| **v != **value) {
                Some((_, n, v)) => Err(format!(
                    "expected {node} to learn '{value}', but it learned '{v}' (n={n})"
                )),
                None if mine.is_empty() => Err(format!(
                    "expected {node} to learn '{value}', but it learned nothing"
                )),
                None => Ok(format!("{node} learned '{value}'")),
            }
        }
        PaxosExpect::Acceptor {
            node,
            promised,
            accepted,
        } => {
            let Some(actor) = outcome.actor(node) else {
                return Err(format!(
                    "expected acceptor {node}, but there is no such node"
                ));
            };
            let Some(state) = &actor.acceptor else {
                return Err(format!("expected {node} to be an acceptor, but it is not"));
            };
            let want = format!("promised={promised}, accepted={}", show(accepted));
            let got = match state.promised {
                Some(p) => format!("promised={p}, accepted={}", show(&state.accepted)),
                None => format!("nothing promised, accepted={}", show(&state.accepted)),
            };
            if state.promised == Some(*promised) && state.accepted == *accepted {
                Ok(format!("{node}: {got}"))
            } else {
                Err(format!("expected {node} {want}, but it ended with {got}"))
            }
        }
    }
}

/// Node names an expectation mentions.
pub fn expect_nodes(expect: &PaxosExpect) -> Vec<String> {
    match expect {
        PaxosExpect::Learned { node, .. } | PaxosExpect::Acceptor { node, .. } => {
            vec![node.clone()]
        }
        PaxosExpect::Chosen(_) | PaxosExpect::SomethingChosen | PaxosExpect::NothingChosen => {
            Vec::new()
        }
    }
}
