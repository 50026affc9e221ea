//! What a Multi-Paxos scenario can expect of a finished run, and how each is checked.
//!
//! In RON: `Log(["a", "b", "c"])` (every replica applied exactly these, in order),
//! `LogHolds(["a", "b"])` (the same log everywhere, these values in any order),
//! `Applied(node: "n3", log: ["a", "b"])`, `Leader("n1")` (leads at the end),
//! `PhaseOneRuns(1)` (how many times phase 1 ran: once for a stable leader),
//! `Recovered(slot: 2, value: "b")` (a new leader re-proposed an open slot's value),
//! `PreemptedAtLeast(2)` (ballots overtaken: a duel); for the key-value store,
//! `Acknowledged(client: "c1", requests: 3)` (answers a client got) and
//! `Value(node: "n2", key: "x", value: Some("2"))` (a replica's state machine at the end). Logs,
//! leaders and values read the replicas' final state; the others read the notes.

use crate::multipaxos::MultiPaxosNode;
use crate::multipaxos::msg::Slot;
use crate::multipaxos::node::Role;
use crate::multipaxos::notes::MultiPaxosNote;
use serde::{Deserialize, Serialize};
use sim_core::Outcome;
use traces::Lang;

/// One expectation about a Multi-Paxos run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum MultiPaxosExpect {
    /// Every replica ends having applied exactly these values, in slot order.
    Log(Vec<String>),
    /// Every replica ends having applied the same log, which holds exactly these values in
    /// some order (for runs where who leads first, and so the order, depends on the seed).
    LogHolds(Vec<String>),
    /// Replica `node` ends having applied exactly `log`.
    Applied {
        /// The replica.
        node: String,
        /// Its applied log.
        log: Vec<String>,
    },
    /// `node` is the leader at the end (phase 1 done, not overtaken).
    Leader(String),
    /// Phase 1 ran exactly this many times in the whole run.
    PhaseOneRuns(u32),
    /// A new leader recovered `value` in `slot` from a promise and proposed it again.
    Recovered {
        /// The open slot.
        slot: Slot,
        /// The value recovered.
        value: String,
    },
    /// At least this many ballots were overtaken by higher ones (would-be leaders dueling).
    PreemptedAtLeast(u32),
    /// Key-value client `client` got exactly this many answers.
    Acknowledged {
        /// The client.
        client: String,
        /// Requests answered.
        requests: u64,
    },
    /// Replica `node`'s state machine ends with `key` holding `value` (`None`: never written).
    Value {
        /// The replica.
        node: String,
        /// The key.
        key: String,
        /// Its value.
        value: Option<String>,
    },
}

fn show(log: &[impl AsRef<str>]) -> String {
    let items: Vec<String> = log.iter().map(|v| format!("'{}'", v.as_ref())).collect();
    format!("[{}]", items.join(", "))
}

fn count(outcome: &Outcome<'_, MultiPaxosNode>, what: fn(&MultiPaxosNote) -> bool) -> u32 {
    outcome.notes().filter(|(_, _, n)| what(n)).count() as u32
}

/// Checks one expectation: `Ok` says what held, `Err` what was expected and what happened.
pub fn check(
    nodes: &[String],
    expect: &MultiPaxosExpect,
    outcome: &Outcome<'_, MultiPaxosNode>,
) -> Result<String, String> {
    check_in(nodes, expect, outcome, Lang::En)
}

/// [`check`], said in `lang`.
pub fn check_in(
    nodes: &[String],
    expect: &MultiPaxosExpect,
    outcome: &Outcome<'_, MultiPaxosNode>,
    lang: Lang,
) -> Result<String, String> {
    let es = lang == Lang::Es;
    let say = |en: String, spanish: String| if es { spanish } else { en };
    let applied = |node: &str| -> Result<Vec<String>, String> {
        outcome
            .actor(node)
            .and_then(MultiPaxosNode::replica)
            .map(|a| a.applied_log().iter().map(|v| v.to_string()).collect())
            .ok_or_else(|| {
                say(
                    format!("there is no replica {node}"),
                    format!("no existe la réplica {node}"),
                )
            })
    };
    match expect {
        MultiPaxosExpect::Log(want) => {
            for node in nodes {
                let got = applied(node)?;
                if got != *want {
                    return Err(say(
                        format!(
                            "expected every replica to apply {}, but {node} applied {}",
                            show(want),
                            show(&got)
                        ),
                        format!(
                            "se esperaba que todas las réplicas aplicaran {}, pero {node} aplicó {}",
                            show(want),
                            show(&got)
                        ),
                    ));
                }
            }
            Ok(say(
                format!("every replica applied {}", show(want)),
                format!("todas las réplicas aplicaron {}", show(want)),
            ))
        }
        MultiPaxosExpect::LogHolds(want) => {
            let mut sorted = want.clone();
            sorted.sort();
            let mut first: Option<(&str, Vec<String>)> = None;
            for node in nodes {
                let got = applied(node)?;
                let mut values = got.clone();
                values.sort();
                if values != sorted {
                    return Err(say(
                        format!(
                            "expected every replica to apply {} in some order, but {node} applied {}",
                            show(want),
                            show(&got)
                        ),
                        format!(
                            "se esperaba que todas las réplicas aplicaran {} en algún orden, pero {node} aplicó {}",
                            show(want),
                            show(&got)
                        ),
                    ));
                }
                match &first {
                    Some((other, log)) if *log != got => {
                        return Err(say(
                            format!(
                                "{other} applied {} but {node} applied {}",
                                show(log),
                                show(&got)
                            ),
                            format!(
                                "{other} aplicó {} pero {node} aplicó {}",
                                show(log),
                                show(&got)
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => first = Some((node, got)),
                }
            }
            let log = first.map(|(_, log)| log).unwrap_or_default();
            Ok(say(
                format!("every replica applied {}", show(&log)),
                format!("todas las réplicas aplicaron {}", show(&log)),
            ))
        }
        MultiPaxosExpect::Applied { node, log } => {
            let got = applied(node)?;
            if got == *log {
                Ok(say(
                    format!("{node} applied {}", show(log)),
                    format!("{node} aplicó {}", show(log)),
                ))
            } else {
                Err(say(
                    format!(
                        "expected {node} to apply {}, but it applied {}",
                        show(log),
                        show(&got)
                    ),
                    format!(
                        "se esperaba que {node} aplicara {}, pero aplicó {}",
                        show(log),
                        show(&got)
                    ),
                ))
            }
        }
        MultiPaxosExpect::Leader(node) => {
            let leading = outcome
                .actor(node)
                .and_then(MultiPaxosNode::replica)
                .is_some_and(|a| matches!(a.role, Role::Leading { .. }));
            let leaders: Vec<&str> = nodes
                .iter()
                .filter(|n| {
                    outcome
                        .actor(n)
                        .and_then(MultiPaxosNode::replica)
                        .is_some_and(|a| matches!(a.role, Role::Leading { .. }))
                })
                .map(String::as_str)
                .collect();
            if leading {
                Ok(say(format!("{node} leads"), format!("{node} es el líder")))
            } else {
                let now = if leaders.is_empty() {
                    say("nobody leads".into(), "nadie es líder".into())
                } else {
                    say(
                        format!("{} leads", leaders.join(", ")),
                        format!("el líder es {}", leaders.join(", ")),
                    )
                };
                Err(say(
                    format!("expected {node} to lead at the end, but {now}"),
                    format!("se esperaba que {node} fuera el líder al final, pero {now}"),
                ))
            }
        }
        MultiPaxosExpect::PhaseOneRuns(want) => {
            let got = count(outcome, |n| matches!(n, MultiPaxosNote::Preparing { .. }));
            let times = |k: u32| match (es, k) {
                (false, 1) => "once".to_string(),
                (false, k) => format!("{k} times"),
                (true, 1) => "una vez".to_string(),
                (true, k) => format!("{k} veces"),
            };
            if got == *want {
                Ok(say(
                    format!("phase 1 ran {}", times(got)),
                    format!("la fase 1 se ejecutó {}", times(got)),
                ))
            } else {
                Err(say(
                    format!(
                        "expected phase 1 to run {}, but it ran {}",
                        times(*want),
                        times(got)
                    ),
                    format!(
                        "se esperaba que la fase 1 se ejecutara {}, pero se ejecutó {}",
                        times(*want),
                        times(got)
                    ),
                ))
            }
        }
        MultiPaxosExpect::Recovered { slot, value } => {
            let found = outcome.notes().find_map(|(_, node, n)| match n {
                MultiPaxosNote::Recovered {
                    slot: s,
                    value: v,
                    b,
                    from_b,
                } if s == slot && v.to_string() == **value => Some((node.to_string(), *b, *from_b)),
                _ => None,
            });
            match found {
                Some((node, b, from_b)) => Ok(say(
                    format!(
                        "{node} recovered '{value}' in entry {slot} (accepted at ballot {from_b}) and proposed it again at {b}"
                    ),
                    format!(
                        "{node} recuperó '{value}' en la entrada {slot} (aceptado con ballot {from_b}) y lo volvió a proponer con {b}"
                    ),
                )),
                None => Err(say(
                    format!(
                        "expected a new leader to recover '{value}' in entry {slot}, but none did"
                    ),
                    format!(
                        "se esperaba que un líder nuevo recuperara '{value}' en la entrada {slot}, pero ninguno lo hizo"
                    ),
                )),
            }
        }
        MultiPaxosExpect::PreemptedAtLeast(want) => {
            let got = count(outcome, |n| matches!(n, MultiPaxosNote::Preempted { .. }));
            if got >= *want {
                Ok(say(
                    format!("{got} ballot(s) overtaken by higher ones"),
                    format!("{got} ballot(s) superados por otros mayores"),
                ))
            } else {
                Err(say(
                    format!("expected at least {want} ballot(s) overtaken, but {got} were"),
                    format!("se esperaban al menos {want} ballot(s) superados, pero hubo {got}"),
                ))
            }
        }
        MultiPaxosExpect::Acknowledged { client, requests } => {
            let got = outcome
                .actor(client)
                .and_then(MultiPaxosNode::client)
                .map(|c| c.acknowledged())
                .ok_or_else(|| {
                    say(
                        format!("there is no client {client}"),
                        format!("no existe el cliente {client}"),
                    )
                })?;
            if got == *requests {
                Ok(say(
                    format!("{client} got {got} answer(s)"),
                    format!("{client} recibió {got} respuesta(s)"),
                ))
            } else {
                Err(say(
                    format!("expected {client} to get {requests} answer(s), but it got {got}"),
                    format!(
                        "se esperaba que {client} recibiera {requests} respuesta(s), pero recibió {got}"
                    ),
                ))
            }
        }
        MultiPaxosExpect::Value { node, key, value } => {
            let got = outcome
                .actor(node)
                .and_then(MultiPaxosNode::replica)
                .map(|r| r.kv.get(key).map(str::to_owned))
                .ok_or_else(|| {
                    say(
                        format!("there is no replica {node}"),
                        format!("no existe la réplica {node}"),
                    )
                })?;
            let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "absent".to_owned());
            if got == *value {
                Ok(say(
                    format!("{node} holds {key} = {}", show(value)),
                    format!("{node} tiene {key} = {}", show(value)),
                ))
            } else {
                Err(say(
                    format!(
                        "expected {node} to hold {key} = {}, but it holds {}",
                        show(value),
                        show(&got)
                    ),
                    format!(
                        "se esperaba que {node} tuviera {key} = {}, pero tiene {}",
                        show(value),
                        show(&got)
                    ),
                ))
            }
        }
    }
}

/// Node names an expectation mentions.
pub fn expect_nodes(expect: &MultiPaxosExpect) -> Vec<String> {
    match expect {
        MultiPaxosExpect::Applied { node, .. }
        | MultiPaxosExpect::Leader(node)
        | MultiPaxosExpect::Value { node, .. }
        | MultiPaxosExpect::Acknowledged { client: node, .. } => vec![node.clone()],
        _ => Vec::new(),
    }
}
