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
    match expect {
        PbftExpect::Executed(n) => {
            let off: Vec<String> = replicas()
                .filter(|(_, r)| r.executed() != *n)
                .map(|(name, r)| format!("{name} executed {}", r.executed()))
                .collect();
            if off.is_empty() {
                Ok(format!("every correct replica executed {n} request(s)"))
            } else {
                Err(format!(
                    "expected every correct replica to execute {n} request(s), but {}",
                    off.join(", ")
                ))
            }
        }
        PbftExpect::NothingExecuted => {
            let busy: Vec<String> = replicas()
                .filter(|(_, r)| r.executed() > 0)
                .map(|(name, r)| format!("{name} executed {}", r.executed()))
                .collect();
            if busy.is_empty() {
                Ok("no correct replica executed anything".into())
            } else {
                Err(format!(
                    "expected nothing executed, but {}",
                    busy.join(", ")
                ))
            }
        }
        PbftExpect::ExecutedAt(name, n) => {
            let Some(replica) = outcome.actor(name).and_then(PbftNode::replica) else {
                return Err(format!(
                    "expected replica {name}, but there is no such replica"
                ));
            };
            if replica.executed() == *n {
                Ok(format!("{name} executed {n} request(s)"))
            } else {
                Err(format!(
                    "expected {name} to execute {n} request(s), but it executed {}",
                    replica.executed()
                ))
            }
        }
        PbftExpect::ClientDone(name) => {
            let Some(client) = outcome.actor(name).and_then(PbftNode::client) else {
                return Err(format!(
                    "expected client {name}, but there is no such client"
                ));
            };
            if client.is_done() {
                Ok(format!("{name} accepted a result for every request"))
            } else {
                let waiting = client.queued() + usize::from(client.outstanding().is_some());
                Err(format!(
                    "expected {name} to be done, but {waiting} request(s) have no accepted result"
                ))
            }
        }
        PbftExpect::Value { key, value } => {
            let show = |v: Option<&str>| v.map_or("absent".to_string(), |v| format!("'{v}'"));
            let off: Vec<String> = replicas()
                .filter(|(_, r)| r.service().get(key) != value.as_deref())
                .map(|(name, r)| format!("{name} has {}", show(r.service().get(key))))
                .collect();
            if off.is_empty() {
                Ok(format!(
                    "{key} is {} at every correct replica",
                    show(value.as_deref())
                ))
            } else {
                Err(format!(
                    "expected {key} to be {} at every correct replica, but {}",
                    show(value.as_deref()),
                    off.join(", ")
                ))
            }
        }
        PbftExpect::StableCheckpoint(n) => {
            let off: Vec<String> = replicas()
                .filter(|(_, r)| r.low_water_mark() < *n)
                .map(|(name, r)| format!("{name}'s is {}", r.low_water_mark()))
                .collect();
            if off.is_empty() {
                Ok(format!(
                    "every correct replica has a stable checkpoint at {n} or later"
                ))
            } else {
                Err(format!(
                    "expected a stable checkpoint at {n} or later everywhere, but {}",
                    off.join(", ")
                ))
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
