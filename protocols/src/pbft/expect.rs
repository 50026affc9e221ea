//! What a PBFT scenario can expect of a finished run, and how each expectation is checked.
//!
//! In RON: `Executed(2)` (every correct replica executed sequence numbers 1 and 2, no more),
//! `NothingExecuted`, `ExecutedAt("r1", 0)` (one replica, correct or not, executed exactly
//! that many: for a replica left behind), `ClientDone("c1")` (the client accepted a result for every request it was
//! given), `Value(key: "x", value: Some("1"))` (every correct replica's service holds it),
//! `StableCheckpoint(4)` (every correct replica's low water mark reached 4). They read the
//! final states, which is what a student looks at after the run; "every correct replica" is
//! every one up at the end (a crashed one's state is not asked).

use crate::pbft::PbftNode;
use crate::pbft::config::PbftConfig;
use serde::{Deserialize, Serialize};
use sim_core::Outcome;
use traces::Lang;

/// One expectation about a PBFT run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum PbftExpect {
    /// Every correct replica executed sequence numbers 1 to this one, in order, and no more
    /// (a repeated request counts: its number was executed as a no-op).
    Executed(u64),
    /// No correct replica executed anything: progress stalled.
    NothingExecuted,
    /// This replica (correct, Byzantine or a twin) executed sequence numbers 1 to this one, and
    /// no more: to say which replicas got ahead and which were left behind.
    ExecutedAt(String, u64),
    /// The client accepted a result for every request it was given.
    ClientDone(String),
    /// Every correct replica's service maps `key` to `value` (`None`: absent).
    Value {
        /// The key.
        key: String,
        /// Its value.
        value: Option<String>,
    },
    /// Every correct replica has a stable checkpoint at this number or later.
    StableCheckpoint(u64),
}

/// Checks one expectation: `Ok` says what held, `Err` what was expected and what happened.
pub fn check(
    config: &PbftConfig,
    expect: &PbftExpect,
    outcome: &Outcome<'_, PbftNode>,
) -> Result<String, String> {
    check_in(config, expect, outcome, Lang::En)
}

/// [`check`], said in `lang` (the course's Spanish: `réplica`, `ejecutó`, `punto de control`).
pub fn check_in(
    config: &PbftConfig,
    expect: &PbftExpect,
    outcome: &Outcome<'_, PbftNode>,
    lang: Lang,
) -> Result<String, String> {
    let es = lang == Lang::Es;
    let say = |en: String, spanish: String| if es { spanish } else { en };
    let correct = config.correct_replicas();
    // A replica down at the end (crashed, paused) is not asked: its state says nothing of
    // what the running replicas agreed on.
    let replicas = || {
        correct.iter().filter_map(|name| {
            let id = outcome.sim.node_id(name)?;
            if outcome.sim.status(id) != sim_core::Status::Up {
                return None;
            }
            Some((name.as_str(), outcome.sim.actor(id).replica()?))
        })
    };
    let executed = |name: &str, n: u64| {
        say(
            format!("{name} executed {n}"),
            format!("{name} ejecutó {n}"),
        )
    };
    let (and, but) = if es { (", ", "pero") } else { (", ", "but") };
    match expect {
        PbftExpect::Executed(n) => {
            let off: Vec<String> = replicas()
                .filter(|(_, r)| r.executed() != *n)
                .map(|(name, r)| executed(name, r.executed()))
                .collect();
            if off.is_empty() {
                Ok(say(
                    format!("every correct replica executed {n} request(s)"),
                    format!("cada réplica correcta ejecutó {n} petición(es)"),
                ))
            } else {
                Err(say(
                    format!("expected every correct replica to execute {n} request(s)"),
                    format!("se esperaba que cada réplica correcta ejecutara {n} petición(es)"),
                ) + &format!(", {but} {}", off.join(and)))
            }
        }
        PbftExpect::NothingExecuted => {
            let busy: Vec<String> = replicas()
                .filter(|(_, r)| r.executed() > 0)
                .map(|(name, r)| executed(name, r.executed()))
                .collect();
            if busy.is_empty() {
                Ok(say(
                    "no correct replica executed anything".into(),
                    "ninguna réplica correcta ejecutó nada".into(),
                ))
            } else {
                Err(say(
                    "expected nothing executed".into(),
                    "se esperaba que no se ejecutara nada".into(),
                ) + &format!(", {but} {}", busy.join(and)))
            }
        }
        PbftExpect::ExecutedAt(name, n) => {
            let Some(replica) = outcome.actor(name).and_then(PbftNode::replica) else {
                return Err(say(
                    format!("expected replica {name}, but there is no such replica"),
                    format!("se esperaba la réplica {name}, pero no existe"),
                ));
            };
            if replica.executed() == *n {
                Ok(say(
                    format!("{name} executed {n} request(s)"),
                    format!("{name} ejecutó {n} petición(es)"),
                ))
            } else {
                Err(say(
                    format!(
                        "expected {name} to execute {n} request(s), but it executed {}",
                        replica.executed()
                    ),
                    format!(
                        "se esperaba que {name} ejecutara {n} petición(es), pero ejecutó {}",
                        replica.executed()
                    ),
                ))
            }
        }
        PbftExpect::ClientDone(name) => {
            let Some(client) = outcome.actor(name).and_then(PbftNode::client) else {
                return Err(say(
                    format!("expected client {name}, but there is no such client"),
                    format!("se esperaba el cliente {name}, pero no existe"),
                ));
            };
            if client.is_done() {
                Ok(say(
                    format!("{name} accepted a result for every request"),
                    format!("{name} aceptó un resultado para cada petición"),
                ))
            } else {
                let waiting = client.queued() + usize::from(client.outstanding().is_some());
                Err(say(
                    format!(
                        "expected {name} to be done, but {waiting} request(s) have no accepted result"
                    ),
                    format!(
                        "se esperaba que {name} terminara, pero {waiting} petición(es) no tienen \
                         resultado aceptado"
                    ),
                ))
            }
        }
        PbftExpect::Value { key, value } => {
            let show = |v: Option<&str>| match v {
                Some(v) => format!("'{v}'"),
                None if es => "ausente".to_string(),
                None => "absent".to_string(),
            };
            let off: Vec<String> = replicas()
                .filter(|(_, r)| r.service().get(key) != value.as_deref())
                .map(|(name, r)| {
                    let got = show(r.service().get(key));
                    say(format!("{name} has {got}"), format!("{name} tiene {got}"))
                })
                .collect();
            let want = show(value.as_deref());
            if off.is_empty() {
                Ok(say(
                    format!("{key} is {want} at every correct replica"),
                    format!("{key} vale {want} en cada réplica correcta"),
                ))
            } else {
                Err(say(
                    format!("expected {key} to be {want} at every correct replica"),
                    format!("se esperaba que {key} valiera {want} en cada réplica correcta"),
                ) + &format!(", {but} {}", off.join(and)))
            }
        }
        PbftExpect::StableCheckpoint(n) => {
            let off: Vec<String> = replicas()
                .filter(|(_, r)| r.low_water_mark() < *n)
                .map(|(name, r)| {
                    let at = r.low_water_mark();
                    say(
                        format!("{name}'s is {at}"),
                        format!("el de {name} está en {at}"),
                    )
                })
                .collect();
            if off.is_empty() {
                Ok(say(
                    format!("every correct replica has a stable checkpoint at {n} or later"),
                    format!(
                        "cada réplica correcta tiene un punto de control estable en {n} o después"
                    ),
                ))
            } else {
                Err(say(
                    format!("expected a stable checkpoint at {n} or later everywhere"),
                    format!("se esperaba un punto de control estable en {n} o después en todas"),
                ) + &format!(", {but} {}", off.join(and)))
            }
        }
    }
}

/// Node names an expectation mentions.
pub fn expect_nodes(expect: &PbftExpect) -> Vec<String> {
    match expect {
        PbftExpect::ClientDone(name) | PbftExpect::ExecutedAt(name, _) => vec![name.clone()],
        _ => Vec::new(),
    }
}
