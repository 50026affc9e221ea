//! The Multi-Paxos settings of a scenario: the replicas, how a leader is elected, the timings,
//! and the bug knobs.
//!
//! Every replica is proposer, acceptor and learner at once (as in Chubby and in most
//! deployments), so the smallest cast is one line of RON: `(nodes: ["n1", "n2", "n3"])`. This
//! module also owns what parsing cannot see (names, bounds, clashing ids), reported by
//! [`validate`].

use crate::common::{MAX_MS, MAX_NODES, name_problems};
use crate::kvstore::Reads;
use crate::multipaxos::msg::Ballot;
use serde::{Deserialize, Serialize};
use sim_core::ConfigProblem;

/// A Multi-Paxos cluster and its behaviour.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiPaxosConfig {
    /// The replicas, each a proposer, an acceptor and a learner; a majority of them decides.
    /// A node's id (the low digits of its ballots) is its position, from 1.
    pub nodes: Vec<String>,
    /// How a leader is chosen (Lamport leaves it open). Default `Timeout(150, 300)`.
    #[serde(default)]
    pub election: Election,
    /// How often a leader sends a heartbeat (its commit point) and resends unanswered
    /// accepts. Default 20 ms.
    #[serde(default = "default_heartbeat_ms")]
    pub heartbeat_ms: u64,
    /// How long a would-be leader waits for a majority of promises. Default 50 ms.
    #[serde(default = "default_phase_timeout_ms")]
    pub phase_timeout_ms: u64,
    /// Ballot b = round * `round_multiplier` + node id. Default 10 (n1's first ballot is 11).
    #[serde(default = "default_multiplier")]
    pub round_multiplier: u64,
    /// Key-value clients, by name: nodes that take `Command("c1", Put("x", "1"))` (also
    /// `Get`, `Append`, `Cas`) and send each request to the leader, through the log. Default
    /// none (the lessons give values to replicas with `Submit`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<String>,
    /// A client with no answer this long after a request sends it again, to the next replica.
    /// Default 100 ms.
    #[serde(default = "default_client_retry_ms")]
    pub client_retry_ms: u64,
    /// How the leader answers a client's `Get`: `ThroughLog` (the default: the read is an
    /// entry like a write, answered once chosen and applied) or `LeaderLocal` (at once from the
    /// leader's own state machine: stale when a leader cut off from the others does not know a
    /// higher ballot has replaced it; the linearizability check catches it).
    #[serde(default, skip_serializing_if = "Reads::is_through_log")]
    pub reads: Reads,
    /// Deliberate mistakes, all off by default, to show what each rule protects.
    #[serde(default)]
    pub bugs: Bugs,
}

fn default_client_retry_ms() -> u64 {
    100
}

fn default_heartbeat_ms() -> u64 {
    20
}

fn default_phase_timeout_ms() -> u64 {
    50
}

fn default_multiplier() -> u64 {
    10
}

/// How a leader comes to be: the part of Multi-Paxos the paper leaves to the implementer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Election {
    /// A replica that hears from no leader for a time drawn in [min, max] ms (from its own
    /// random stream) runs phase 1 itself; a leader preempted by a higher ballot steps down
    /// and waits the same way. Random timeouts are what end a duel of would-be leaders.
    Timeout(u64, u64),
    /// This node runs phase 1 at the start (and again if its phase 1 times out); nobody else
    /// does unless a scenario tells it to (`Command("n2", Lead)`). The distinguished proposer
    /// of "Paxos Made Simple", for the simplest scenarios and for exhaustive search.
    Fixed(String),
}

impl Default for Election {
    fn default() -> Self {
        Election::Timeout(150, 300)
    }
}

/// Bug knobs: each breaks one rule of Multi-Paxos, so that a test, a search or a student sees
/// an invariant fire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bugs {
    /// A new leader ignores the accepted values its promises report and fills open slots with
    /// its own values (breaks one-value-per-slot: a chosen entry is overwritten).
    #[serde(default)]
    pub skip_recovery: bool,
    /// A would-be leader starts phase 2 as soon as it sends its prepares, without waiting for
    /// a majority of promises (breaks phase-2-after-phase-1).
    #[serde(default)]
    pub propose_before_promises: bool,
    /// A learner applies each entry as soon as it learns it is chosen, not in slot order
    /// (breaks applied-prefixes-agree).
    #[serde(default)]
    pub apply_out_of_order: bool,
    /// A replica told that a slot is committed takes whatever it accepted there, at any ballot,
    /// as the chosen value (breaks applied-only-if-chosen: an old leader's value, never chosen).
    #[serde(default)]
    pub commit_any_ballot: bool,
    /// The key-value state machine keeps no table of each client's last request: a retried
    /// request logged twice (its first answer lost) is applied twice, an append doubled
    /// (breaks linearizable).
    #[serde(default)]
    pub forget_requests: bool,
}

impl MultiPaxosConfig {
    /// Node `name`'s id: its position, from 1.
    pub fn id_of(&self, name: &str) -> Option<u64> {
        self.nodes
            .iter()
            .position(|n| n == name)
            .map(|i| i as u64 + 1)
    }

    /// Every node's name, in `NodeId` order: the replicas, then the clients.
    pub fn names(&self) -> Vec<String> {
        self.nodes.iter().chain(&self.clients).cloned().collect()
    }

    /// How many replicas make a majority.
    pub fn majority(&self) -> usize {
        self.nodes.len() / 2 + 1
    }
}

fn problem(locate: Option<&str>, message: String) -> ConfigProblem {
    ConfigProblem {
        locate: locate.map(str::to_string),
        message,
    }
}

/// Problems parsing cannot see; empty when the config is fine.
pub fn validate(config: &MultiPaxosConfig) -> Vec<ConfigProblem> {
    let roles = if config.clients.is_empty() {
        "replicas"
    } else {
        "replicas and clients"
    };
    let mut problems = name_problems(config.names(), roles);
    if config.nodes.is_empty() {
        problems.push(problem(
            Some("nodes"),
            "`nodes` is empty: list the replicas, e.g. [\"n1\", \"n2\", \"n3\"]".into(),
        ));
    }
    let all = config.nodes.len() + config.clients.len();
    if all > MAX_NODES {
        problems.push(problem(
            Some("nodes"),
            format!(
                "{all} replicas and clients: a Multi-Paxos config runs at most {MAX_NODES}; \
                 use fewer"
            ),
        ));
    }
    if config.client_retry_ms == 0 || config.client_retry_ms > MAX_MS {
        problems.push(problem(
            Some("client_retry_ms"),
            format!(
                "`client_retry_ms` {} is out of range: use 1 to {MAX_MS} ms (default 100)",
                config.client_retry_ms
            ),
        ));
    }
    if config.round_multiplier > MAX_ROUND_MULTIPLIER || config.round_multiplier == 0 {
        problems.push(problem(
            Some("round_multiplier"),
            format!(
                "`round_multiplier` {} is out of range: ballots are round * multiplier + id; \
                 use 1 to {MAX_ROUND_MULTIPLIER} (the lesson uses 10)",
                config.round_multiplier
            ),
        ));
    } else if config.nodes.len() as u64 >= config.round_multiplier {
        problems.push(problem(
            Some("round_multiplier"),
            format!(
                "{} replicas but `round_multiplier` {}: the ids 1..={} must stay below it or two \
                 nodes' ballots collide; use a multiplier above the number of nodes (100)",
                config.nodes.len(),
                config.round_multiplier,
                config.nodes.len()
            ),
        ));
    }
    for (field, ms) in [
        ("heartbeat_ms", config.heartbeat_ms),
        ("phase_timeout_ms", config.phase_timeout_ms),
    ] {
        if ms == 0 || ms > MAX_MS {
            problems.push(problem(
                Some(field),
                format!("`{field}` {ms} is out of range: use 1 to {MAX_MS} ms"),
            ));
        }
    }
    match &config.election {
        Election::Timeout(min, max) => {
            if *min == 0 || min > max || *max > MAX_MS {
                problems.push(problem(
                    Some("Timeout"),
                    format!(
                        "`Timeout({min}, {max})`: the election timeout needs 1 <= min <= max <= \
                         {MAX_MS} ms; the default is Timeout(150, 300)"
                    ),
                ));
            } else if *min <= config.heartbeat_ms {
                problems.push(problem(
                    Some("Timeout"),
                    format!(
                        "`Timeout({min}, {max})` is not above `heartbeat_ms` {}: followers would \
                         time out between heartbeats of a healthy leader; make the minimum \
                         several heartbeats long",
                        config.heartbeat_ms
                    ),
                ));
            }
        }
        Election::Fixed(name) => {
            if !config.nodes.contains(name) {
                problems.push(problem(
                    Some(&format!("\"{name}\"")),
                    format!(
                        "`Fixed(\"{name}\")`: \"{name}\" is not one of the nodes ({})",
                        config.nodes.join(", ")
                    ),
                ));
            }
        }
    }
    problems
}

/// The largest `round_multiplier` accepted: ballots stay far below `u64::MAX` within any run's
/// step limits, so they never wrap (which would break their order).
pub const MAX_ROUND_MULTIPLIER: u64 = 1_000_000_000;

/// The ballot of `round` for node `id` (saturating; see [`MAX_ROUND_MULTIPLIER`]).
pub fn ballot(round: u64, multiplier: u64, id: u64) -> Ballot {
    round.saturating_mul(multiplier).saturating_add(id)
}
