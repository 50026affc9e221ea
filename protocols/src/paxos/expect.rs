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
use traces::Lang;

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

fn show(accepted: &Option<Proposal>, es: bool) -> String {
    match accepted {
        Some((n, v)) => format!("({n}, '{v}')"),
        None if es => "nada".into(),
        None => "nothing".into(),
    }
}

/// Checks one expectation: `Ok` says what held, `Err` what was expected and what happened.
pub fn check(
    config: &PaxosConfig,
    expect: &PaxosExpect,
    outcome: &Outcome<'_, PaxosNode>,
) -> Result<String, String> {
    check_in(config, expect, outcome, Lang::En)
}

/// [`check`], said in `lang` (the Spanish of the lesson's printout: `prometido=21,
/// aceptado=(21, 'relay-1')`).
pub fn check_in(
    config: &PaxosConfig,
    expect: &PaxosExpect,
    outcome: &Outcome<'_, PaxosNode>,
    lang: Lang,
) -> Result<String, String> {
    let es = lang == Lang::Es;
    let say = |en: String, spanish: String| if es { spanish } else { en };
    let learned = learned(outcome);
    match expect {
        PaxosExpect::Chosen(want) => {
            if let Some((node, n, got)) = learned.iter().find(|(_, _, v)| **v != **want) {
                return Err(say(
                    format!("expected '{want}' chosen, but {node} learned '{got}' (n={n})"),
                    format!("se esperaba '{want}' elegido, pero {node} aprendió '{got}' (n={n})"),
                ));
            }
            let who: std::collections::BTreeSet<&str> =
                learned.iter().map(|(node, _, _)| node.as_str()).collect();
            if who.is_empty() {
                return Err(say(
                    format!("expected '{want}' chosen, but no learner learned anything"),
                    format!("se esperaba '{want}' elegido, pero ningún learner aprendió nada"),
                ));
            }
            let who = who.into_iter().collect::<Vec<&str>>().join(", ");
            Ok(say(
                format!("'{want}' chosen, learned by {who}"),
                format!("'{want}' elegido, aprendido por {who}"),
            ))
        }
        PaxosExpect::SomethingChosen => {
            let Some((first, n, value)) = learned.first() else {
                return Err(say(
                    "expected some value chosen, but no learner learned anything".into(),
                    "se esperaba algún valor elegido, pero ningún learner aprendió nada".into(),
                ));
            };
            if let Some((node, m, other)) = learned.iter().find(|(_, _, v)| v != value) {
                return Err(say(
                    format!(
                        "expected one value chosen, but {first} learned '{value}' (n={n}) and \
                         {node} learned '{other}' (n={m})"
                    ),
                    format!(
                        "se esperaba un solo valor elegido, pero {first} aprendió '{value}' \
                         (n={n}) y {node} aprendió '{other}' (n={m})"
                    ),
                ));
            }
            Ok(say(
                format!("'{value}' chosen (first learned by {first} at n={n})"),
                format!("'{value}' elegido (lo aprendió primero {first} con n={n})"),
            ))
        }
        PaxosExpect::NothingChosen => {
            if let Some((node, n, v)) = learned.first() {
                return Err(say(
                    format!("expected nothing chosen, but {node} learned '{v}' (n={n})"),
                    format!("no se esperaba nada elegido, pero {node} aprendió '{v}' (n={n})"),
                ));
            }
            if let Some((n, v)) = chosen_by_acceptors(config, outcome).first() {
                return Err(say(
                    format!(
                        "expected nothing chosen, but a majority of acceptors accepted '{v}' (n={n})"
                    ),
                    format!(
                        "no se esperaba nada elegido, pero una mayoría de acceptors aceptó '{v}' (n={n})"
                    ),
                ));
            }
            Ok(say("nothing chosen".into(), "nada elegido".into()))
        }
        PaxosExpect::Learned { node, value } => {
            let mine: Vec<&(String, Number, Value)> =
                learned.iter().filter(|(who, _, _)| who == node).collect();
            match mine.iter().find(|(_, _, v)| **v != **value) {
                Some((_, n, v)) => Err(say(
                    format!("expected {node} to learn '{value}', but it learned '{v}' (n={n})"),
                    format!(
                        "se esperaba que {node} aprendiera '{value}', pero aprendió '{v}' (n={n})"
                    ),
                )),
                None if mine.is_empty() => Err(say(
                    format!("expected {node} to learn '{value}', but it learned nothing"),
                    format!("se esperaba que {node} aprendiera '{value}', pero no aprendió nada"),
                )),
                None => Ok(say(
                    format!("{node} learned '{value}'"),
                    format!("{node} aprendió '{value}'"),
                )),
            }
        }
        PaxosExpect::Acceptor {
            node,
            promised,
            accepted,
        } => {
            let Some(actor) = outcome.actor(node) else {
                return Err(say(
                    format!("expected acceptor {node}, but there is no such node"),
                    format!("se esperaba el acceptor {node}, pero no existe ese nodo"),
                ));
            };
            let Some(state) = &actor.acceptor else {
                return Err(say(
                    format!("expected {node} to be an acceptor, but it is not"),
                    format!("se esperaba que {node} fuera un acceptor, pero no lo es"),
                ));
            };
            let (promised_word, accepted_word) = if es {
                ("prometido", "aceptado")
            } else {
                ("promised", "accepted")
            };
            let want = format!(
                "{promised_word}={promised}, {accepted_word}={}",
                show(accepted, es)
            );
            let got = match state.promised {
                Some(p) => format!(
                    "{promised_word}={p}, {accepted_word}={}",
                    show(&state.accepted, es)
                ),
                None => say(
                    format!("nothing promised, accepted={}", show(&state.accepted, es)),
                    format!("nada prometido, aceptado={}", show(&state.accepted, es)),
                ),
            };
            if state.promised == Some(*promised) && state.accepted == *accepted {
                Ok(format!("{node}: {got}"))
            } else {
                Err(say(
                    format!("expected {node} {want}, but it ended with {got}"),
                    format!("se esperaba {node} {want}, pero terminó con {got}"),
                ))
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
