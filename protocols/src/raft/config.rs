//! The Raft settings of a scenario file: the cast and its logs, timing, and bug knobs.
//!
//! RON, with defaults for everything but the cast:
//!
//! ```ron
//! (
//!     nodes: [
//!         (name: "nodo-1", log: (term: 1, index: 5)),
//!         (name: "nodo-2", entries: [1, 1, 1, 1, 1]),
//!         (name: "nodo-3", log: (term: 1, index: 3)),
//!     ],
//!     election_timeout_ms: (150, 300),
//!     heartbeat_ms: 50,
//!     rpc_timeout_ms: 50,
//!     first_deadline_ms: { "nodo-3": 120 },
//!     elect_within_ms: Some(1000),
//!     bugs: (reset_vote_on_heartbeat: true),
//! )
//! ```
//!
//! [`validate`] finds what parsing cannot: impossible timings, duplicate or unknown names.

use crate::raft::log::{FixedLog, LastEntry};
use serde::{Deserialize, Serialize};
use sim_core::ConfigProblem;
use std::collections::BTreeMap;

/// The protocol config of a Raft scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RaftConfig {
    /// The cast, in `NodeId` order.
    pub nodes: Vec<NodeSpec>,
    /// Election timeout drawn uniformly in [min, max] ms (microsecond grain) from the node's own
    /// stream, each time it is reset. Default (150, 300), the paper's and the lesson's.
    #[serde(default = "default_election_timeout")]
    pub election_timeout_ms: (u64, u64),
    /// A leader sends heartbeats (empty AppendEntries) this often. Default 50.
    #[serde(default = "default_heartbeat")]
    pub heartbeat_ms: u64,
    /// A candidate or leader that gets no reply from a peer within this notes an RPC timeout.
    /// Default 50. It never delays the vote count.
    #[serde(default = "default_rpc_timeout")]
    pub rpc_timeout_ms: u64,
    /// Pins a node's first election deadline (ms after it starts), as the lesson does with
    /// `primer_plazo` so that nodo-3 times out first. Later deadlines are random.
    #[serde(default)]
    pub first_deadline_ms: BTreeMap<String, u64>,
    /// Liveness bound: once faults stop (the last crash, restart, pause, resume, partition, heal
    /// or rule change), a leader of the highest term must be in office within this many ms.
    /// `None` (default) checks no liveness.
    #[serde(default)]
    pub elect_within_ms: Option<u64>,
    /// Deliberate mistakes, all off by default, for showing what the invariants catch.
    #[serde(default)]
    pub bugs: Bugs,
}

/// One node of the cast and its fixed log, given either as its last entry or as entry terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// The node's name ("nodo-1").
    pub name: String,
    /// The last entry of its log: `log: (term: 1, index: 5)`. Default: empty, (0, 0).
    #[serde(default)]
    pub log: LastEntry,
    /// Or the terms of its entries, index 1 first: `entries: [1, 1, 1]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<u64>,
}

impl NodeSpec {
    /// A node whose log ends at (`term`, `index`).
    pub fn new(name: &str, term: u64, index: u64) -> NodeSpec {
        NodeSpec {
            name: name.to_string(),
            log: LastEntry { term, index },
            entries: Vec::new(),
        }
    }

    /// The node's fixed log (empty if neither form is given).
    pub fn fixed_log(&self) -> FixedLog {
        if self.entries.is_empty() {
            FixedLog::new(self.log.term, self.log.index)
        } else {
            FixedLog::from_entry_terms(&self.entries)
        }
    }
}

/// The bug knobs. Each one reproduces a real mistake; each is off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Bugs {
    /// A node may vote for a second candidate in a term it already voted in.
    pub vote_twice: bool,
    /// Grants votes without the up-to-date log check: a stale log can win.
    pub skip_log_check: bool,
    /// A leader ignores a higher term carried back by heartbeat replies and stays leader.
    pub ignore_higher_term_in_replies: bool,
    /// The lesson's slip: every heartbeat, even of the current term, clears votedFor.
    pub reset_vote_on_heartbeat: bool,
    /// currentTerm and votedFor kept in memory only: a crash forgets them, so the node comes
    /// back at term 0 and may vote again in a term it already voted in.
    pub forget_term_on_restart: bool,
    /// Every election timeout is the minimum, never randomized: nodes that time out together
    /// keep splitting the vote (what Raft's randomized timeouts exist to prevent).
    pub fixed_election_timeout: bool,
}

fn default_election_timeout() -> (u64, u64) {
    (150, 300)
}
fn default_heartbeat() -> u64 {
    50
}
fn default_rpc_timeout() -> u64 {
    50
}

impl RaftConfig {
    /// The given cast with every default: the lesson's timing, no pins, no bugs.
    pub fn new(nodes: Vec<NodeSpec>) -> RaftConfig {
        RaftConfig {
            nodes,
            election_timeout_ms: default_election_timeout(),
            heartbeat_ms: default_heartbeat(),
            rpc_timeout_ms: default_rpc_timeout(),
            first_deadline_ms: BTreeMap::new(),
            elect_within_ms: None,
            bugs: Bugs::default(),
        }
    }

    /// The lesson's cast (RF-1): nodo-1 and nodo-2 at (1,5), nodo-3 behind at (1,3), nodo-3's
    /// first deadline pinned at 120 ms.
    pub fn lesson() -> RaftConfig {
        let mut config = RaftConfig::new(vec![
            NodeSpec::new("nodo-1", 1, 5),
            NodeSpec::new("nodo-2", 1, 5),
            NodeSpec::new("nodo-3", 1, 3),
        ]);
        config.first_deadline_ms.insert("nodo-3".into(), 120);
        config
    }

    /// The node names, in `NodeId` order.
    pub fn names(&self) -> Vec<String> {
        self.nodes.iter().map(|n| n.name.clone()).collect()
    }
}

/// Problems parsing cannot see, each saying how to fix it.
pub fn validate(config: &RaftConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    problems.extend(cluster_problems(config));
    problems.extend(log_problems(config));
    problems.extend(timing_problems(config));
    problems
}

/// The cluster: nodes listed, the liveness bound, pinned deadlines naming nodes.
fn cluster_problems(config: &RaftConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let mut problem = |locate: Option<String>, message: String| {
        problems.push(ConfigProblem { locate, message });
    };
    if config.nodes.is_empty() {
        problem(
            Some("nodes".into()),
            "no nodes: list at least one, e.g. nodes: [(name: \"nodo-1\", log: (term: 1, index: 5))]"
                .into(),
        );
    }
    if config.elect_within_ms == Some(0) {
        problem(
            Some("elect_within_ms".into()),
            "elect_within_ms is 0: no election takes no time; give the bound a leader must be \
             elected within, e.g. elect_within_ms: 1000"
                .into(),
        );
    }
    for name in config.first_deadline_ms.keys() {
        if !config.nodes.iter().any(|n| &n.name == name) {
            problem(
                Some(format!("\"{name}\"")),
                format!(
                    "first_deadline_ms pins \"{name}\", which is not a node; the nodes are {}",
                    config.names().join(", ")
                ),
            );
        }
    }
    problems
}

/// Each node's name and log: unique names, one way to give a log, terms in order.
fn log_problems(config: &RaftConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let mut problem = |locate: Option<String>, message: String| {
        problems.push(ConfigProblem { locate, message });
    };
    let mut seen = std::collections::BTreeSet::new();
    for node in &config.nodes {
        if !seen.insert(node.name.as_str()) {
            problem(
                Some(format!("\"{}\"", node.name)),
                format!(
                    "node name \"{}\" appears twice: give each node its own name",
                    node.name
                ),
            );
        }
        if node.log != LastEntry::default() && !node.entries.is_empty() {
            problem(
                Some(format!("\"{}\"", node.name)),
                format!(
                    "node \"{}\" gives both `log` and `entries`: keep one of them",
                    node.name
                ),
            );
        }
        if let Some(w) = node.entries.windows(2).find(|w| w[1] < w[0]) {
            problem(
                Some("entries".into()),
                format!(
                    "node \"{}\" has entries of terms {:?}: a Raft log's terms never decrease \
                     (term {} follows term {}); list them in order",
                    node.name, node.entries, w[1], w[0]
                ),
            );
        }
        if node.entries.contains(&0) {
            problem(
                Some("entries".into()),
                format!(
                    "node \"{}\" has an entry of term 0: entries belong to terms 1 and up",
                    node.name
                ),
            );
        }
        let last = node.log;
        if (last.index == 0) != (last.term == 0) {
            problem(
                Some(format!("\"{}\"", node.name)),
                format!(
                    "node \"{}\" has log {last}: an empty log is (term: 0, index: 0), a non-empty \
                     one has a term and an index of at least 1",
                    node.name
                ),
            );
        }
    }
    problems
}

/// Timeouts: election timeouts ordered and positive, heartbeats well below them.
fn timing_problems(config: &RaftConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let mut problem = |locate: Option<String>, message: String| {
        problems.push(ConfigProblem { locate, message });
    };
    let (min, max) = config.election_timeout_ms;
    if min > max {
        problem(
            Some("election_timeout_ms".into()),
            format!(
                "election_timeout_ms ({min}, {max}): the minimum is above the maximum; swap them"
            ),
        );
    }
    if min == 0 {
        problem(
            Some("election_timeout_ms".into()),
            "election_timeout_ms starts at 0: a node would stand for election at once, forever; \
             use at least a few heartbeats, e.g. (150, 300)"
                .into(),
        );
    }
    if config.heartbeat_ms == 0 {
        problem(
            Some("heartbeat_ms".into()),
            "heartbeat_ms is 0: a leader would send heartbeats in a busy loop; use e.g. 50".into(),
        );
    } else if config.heartbeat_ms >= min {
        problem(
            Some("heartbeat_ms".into()),
            format!(
                "heartbeat_ms {} is not below the shortest election timeout {min}: followers \
                 would time out between heartbeats and depose a healthy leader; make heartbeats \
                 much shorter than the election timeout (the paper: an order of magnitude)",
                config.heartbeat_ms
            ),
        );
    }
    if config.rpc_timeout_ms == 0 {
        problem(
            Some("rpc_timeout_ms".into()),
            "rpc_timeout_ms is 0: every RPC would time out at once; use e.g. 50".into(),
        );
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    // Goal: the documented RON form parses, with defaults. Method: parse the module doc's
    // example and a minimal one. Proves: the syntax the scenario files use is the one we accept.
    #[test]
    fn ron_with_defaults() {
        let text = r#"(
            nodes: [
                (name: "nodo-1", log: (term: 1, index: 5)),
                (name: "nodo-2", entries: [1, 1, 1, 1, 1]),
                (name: "nodo-3", log: (term: 1, index: 3)),
            ],
            first_deadline_ms: { "nodo-3": 120 },
            bugs: (reset_vote_on_heartbeat: true),
        )"#;
        let config: RaftConfig = ron::from_str(text).unwrap();
        assert_eq!(config.election_timeout_ms, (150, 300));
        assert_eq!(config.heartbeat_ms, 50);
        assert_eq!(config.nodes[1].fixed_log(), FixedLog::new(1, 5));
        assert!(config.bugs.reset_vote_on_heartbeat && !config.bugs.vote_twice);
        assert!(validate(&config).is_empty());
        let err = ron::from_str::<RaftConfig>("(nodes: [], heartbeat: 5)");
        assert!(err.is_err(), "unknown fields are refused");
    }

    // Goal: impossible configs are reported with a fix. Method: break each rule once.
    // Proves: validate sees min > max, slow heartbeats, duplicates and unknown pins.
    #[test]
    fn validate_reports_impossible_configs() {
        let mut config = RaftConfig::lesson();
        config.nodes.push(NodeSpec::new("nodo-1", 1, 1));
        config.election_timeout_ms = (300, 150);
        config.heartbeat_ms = 400;
        config.first_deadline_ms.insert("nodo-9".into(), 10);
        let problems = validate(&config);
        let text: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(problems.len(), 4, "{text:#?}");
        assert!(text.iter().any(|m| m.contains("appears twice")));
        assert!(text.iter().any(|m| m.contains("swap them")));
        assert!(
            text.iter()
                .any(|m| m.contains("not below the shortest election timeout"))
        );
        assert!(
            text.iter()
                .any(|m| m.contains("\"nodo-9\", which is not a node"))
        );
        assert!(validate(&RaftConfig::lesson()).is_empty());
    }
}
