//! The Raft settings of a scenario file: the cast and its logs, clients, timing, and bug knobs.
//!
//! RON, with defaults for everything but the cast (this is the lesson's election-only model;
//! leave out `replication: false` and add `clients: ["c1"]` for log replication):
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
//!     replication: false,
//! )
//! ```
//!
//! [`validate`] finds what parsing cannot: impossible timings, duplicate or unknown names.

pub use crate::kvstore::Reads;
use crate::raft::log::{LastEntry, Log};
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
    /// Log replication (the default): clients' writes are appended by the leader, replicated
    /// with AppendEntries and committed by a majority. `false` is the lesson's election-only
    /// model: logs stay as given and heartbeats carry only the term, so that a stale log stays
    /// stale and the election restriction can be watched on its own (RF-1, RF-2).
    #[serde(default = "default_true")]
    pub replication: bool,
    /// Clients, by name: nodes that take `Command("c1", Put("x", "1"))` and send it to the
    /// leader (the first server until a reply names one). Default none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<String>,
    /// A client that has no answer this long after a request sends it again, to the next
    /// server. Default 200.
    #[serde(default = "default_client_retry")]
    pub client_retry_ms: u64,
    /// When a candidate counts its votes: `AtMajority` (the paper's, the default) or
    /// `AfterAllReplies` (the lesson's `raft_eleccion.py`: it waits for every RequestVote to be
    /// answered or to time out, then counts, so it takes office later and with every vote).
    #[serde(default, skip_serializing_if = "CountVotes::is_at_majority")]
    pub count_votes: CountVotes,
    /// How a leader answers a client's `Get`: `ThroughLog` (the default: the read is an entry
    /// like a write, answered once committed and applied, so it sees every write acknowledged
    /// before it) or `LeaderLocal` (answered at once from the leader's own state machine: one
    /// round trip less, and stale when a deposed leader, cut off from the others, does not
    /// know it is deposed; the linearizability check catches it).
    #[serde(default, skip_serializing_if = "Reads::is_through_log")]
    pub reads: Reads,
}

/// When a candidate counts its votes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CountVotes {
    /// At every reply: it leads as soon as a majority has voted for it (Raft's rule).
    #[default]
    AtMajority,
    /// Once every RequestVote has been answered or has timed out (`rpc_timeout_ms`), as the
    /// course's program does; a majority then makes it leader.
    AfterAllReplies,
}

impl CountVotes {
    fn is_at_majority(&self) -> bool {
        *self == CountVotes::AtMajority
    }
}

/// The most entries a node may start with (a file bounds what it makes the simulator hold).
pub const MAX_LOG: u64 = 10_000;

/// The highest term a file may give a node or an entry: far above any lesson's, and far enough
/// below `u64::MAX` that the elections of the longest run cannot overflow it.
pub const MAX_TERM: u64 = 1_000_000_000;
pub use crate::common::{MAX_MS, MAX_NODES};

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
    /// currentTerm at start: the durable term the node had reached before the scenario
    /// begins. Default: with replication, the highest term of any entry given to any node (a
    /// lower one could let it lead a term whose entries others already hold); without, 0 (the
    /// lesson's, whose logs hold entries of term 1 and whose first election is term 1).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub term: u64,
    /// This node's own election timeout range, in place of the cluster's: how a scenario
    /// scripts which node times out first after every crash, not only the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub election_timeout_ms: Option<(u64, u64)>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl NodeSpec {
    /// A node whose log ends at (`term`, `index`).
    pub fn new(name: &str, term: u64, index: u64) -> NodeSpec {
        NodeSpec {
            name: name.to_string(),
            log: LastEntry { term, index },
            entries: Vec::new(),
            term: 0,
            election_timeout_ms: None,
        }
    }

    /// A node whose log holds entries of these terms (index 1 first).
    pub fn with_entries(name: &str, terms: &[u64]) -> NodeSpec {
        NodeSpec {
            entries: terms.to_vec(),
            ..NodeSpec::new(name, 0, 0)
        }
    }

    /// The log the node starts with (empty if neither form is given). The short form
    /// `log: (term: t, index: i)` is i entries of term t. Call after [`validate`]: the length
    /// is bounded there.
    pub fn initial_log(&self) -> Log {
        if self.entries.is_empty() {
            Log::new(self.log.term, self.log.index.min(MAX_LOG))
        } else {
            Log::from_entry_terms(&self.entries)
        }
    }

    /// The terms of the entries it starts with, index 1 first.
    fn entry_terms(&self) -> Vec<u64> {
        self.initial_log().terms()
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
    /// Figure 8's bug: a leader commits by counting replicas of an entry of an older term,
    /// which a later leader can still overwrite.
    pub commit_old_terms: bool,
    /// A follower stores entries without checking that its log matches at prevLogIndex.
    pub skip_prev_log_check: bool,
    /// A follower truncates everything after prevLogIndex on every AppendEntries, even when
    /// its entries match (a late, shorter AppendEntries then erases newer entries).
    pub truncate_on_every_append: bool,
    /// A new leader discards the uncommitted tail of its own log.
    pub leader_drops_uncommitted: bool,
    /// The state machine keeps no table of each client's last request: a retried request
    /// whose first copy was applied (its answer lost) is applied again (an append twice).
    pub forget_requests: bool,
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
fn default_true() -> bool {
    true
}
fn default_client_retry() -> u64 {
    200
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
            replication: true,
            clients: Vec::new(),
            client_retry_ms: default_client_retry(),
            count_votes: CountVotes::AtMajority,
            reads: Reads::ThroughLog,
        }
    }

    /// The lesson's cast (RF-1), election only: nodo-1 and nodo-2 at (1,5), nodo-3 behind at
    /// (1,3), nodo-3's first deadline pinned at 120 ms.
    pub fn lesson() -> RaftConfig {
        let mut config = RaftConfig::new(vec![
            NodeSpec::new("nodo-1", 1, 5),
            NodeSpec::new("nodo-2", 1, 5),
            NodeSpec::new("nodo-3", 1, 3),
        ]);
        config.first_deadline_ms.insert("nodo-3".into(), 120);
        config.replication = false;
        config
    }

    /// Every node's name, in `NodeId` order: the servers, then the clients.
    pub fn names(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|n| n.name.clone())
            .chain(self.clients.iter().cloned())
            .collect()
    }

    /// The highest term of any entry the config gives any node (0 if none).
    pub fn highest_given_term(&self) -> u64 {
        self.nodes
            .iter()
            .map(|n| n.entries.last().copied().unwrap_or(n.log.term))
            .max()
            .unwrap_or(0)
    }

    /// The currentTerm node `spec` starts at (see [`NodeSpec::term`]).
    pub fn start_term(&self, spec: &NodeSpec) -> u64 {
        if self.replication {
            spec.term.max(self.highest_given_term())
        } else {
            spec.term
        }
    }

    /// The servers' names, in `NodeId` order (they come first).
    pub fn server_names(&self) -> Vec<String> {
        self.nodes.iter().map(|n| n.name.clone()).collect()
    }
}

/// Problems parsing cannot see, each saying how to fix it.
pub fn validate(config: &RaftConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    problems.extend(cluster_problems(config));
    problems.extend(client_problems(config));
    problems.extend(log_problems(config));
    // Pairwise, so only on a list within its cap: a list past it is refused below anyway, and
    // comparing 20,000 logs two by two would take the machine for a minute to say so.
    if config.nodes.len() <= MAX_NODES {
        problems.extend(log_matching_problems(config));
    }
    problems.extend(timing_problems(config));
    problems
}

/// Names (servers' and clients', empty or repeated) and clients: only with replication, a
/// bounded cast.
fn client_problems(config: &RaftConfig) -> Vec<ConfigProblem> {
    let mut problems = crate::common::name_problems(config.names(), "servers and clients");
    if !config.clients.is_empty() && !config.replication {
        problems.push(ConfigProblem {
            locate: Some("clients".into()),
            message: "clients write to the log, but `replication: false` keeps every log fixed: \
                      drop `replication: false` or the clients"
                .into(),
        });
    }
    if config.nodes.len() + config.clients.len() > MAX_NODES {
        problems.push(ConfigProblem {
            locate: Some("nodes".into()),
            message: format!(
                "{} servers and clients: a Raft config runs at most {MAX_NODES}; use fewer",
                config.nodes.len() + config.clients.len()
            ),
        });
    }
    if config.client_retry_ms == 0 || config.client_retry_ms > MAX_MS {
        problems.push(ConfigProblem {
            locate: Some("client_retry_ms".into()),
            message: format!(
                "client_retry_ms {} is out of range: give 1 to {MAX_MS} ms, e.g. 200",
                config.client_retry_ms
            ),
        });
    }
    problems
}

/// The logs a scenario gives must already agree where they share an entry: entries are given
/// by term only, so two logs with an entry of the same index and term must have the same terms
/// before it (the log matching property, §5.3).
fn log_matching_problems(config: &RaftConfig) -> Vec<ConfigProblem> {
    let logs: Vec<(&str, Vec<u64>)> = config
        .nodes
        .iter()
        .filter(|n| n.log.index <= MAX_LOG && n.entries.len() as u64 <= MAX_LOG)
        .map(|n| (n.name.as_str(), n.entry_terms()))
        .collect();
    let mut problems = Vec::new();
    for (i, (a, la)) in logs.iter().enumerate() {
        for (b, lb) in &logs[i + 1..] {
            let shared = la.len().min(lb.len());
            let last_same = (0..shared).rev().find(|&k| la[k] == lb[k]);
            if let Some(k) = last_same
                && la[..k] != lb[..k]
            {
                problems.push(ConfigProblem {
                    locate: Some(format!("\"{b}\"")),
                    message: format!(
                        "the logs of \"{a}\" {la:?} and \"{b}\" {lb:?} both hold an entry of \
                         term {} at index {} but differ before it, which no Raft run can produce \
                         (log matching); make them agree up to that index",
                        la[k],
                        k + 1
                    ),
                });
            }
        }
    }
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

/// Each node's log: one way to give it, terms in order, bounded.
fn log_problems(config: &RaftConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let mut problem = |locate: Option<String>, message: String| {
        problems.push(ConfigProblem { locate, message });
    };
    for node in &config.nodes {
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
        if node.log.index > MAX_LOG || node.entries.len() as u64 > MAX_LOG {
            problem(
                Some(format!("\"{}\"", node.name)),
                format!(
                    "node \"{}\" starts with more than {MAX_LOG} entries: give a shorter log",
                    node.name
                ),
            );
        }
        let highest = node
            .term
            .max(node.log.term)
            .max(node.entries.iter().copied().max().unwrap_or(0));
        if highest > MAX_TERM {
            problem(
                Some(format!("{highest}")),
                format!(
                    "node \"{}\" is given term {highest}, above the limit of {MAX_TERM}: terms \
                     count elections, and the lessons' are single digits",
                    node.name
                ),
            );
            continue;
        }
        let last = node.initial_log().last();
        let floor = if config.replication {
            config.highest_given_term()
        } else {
            last.term
        };
        if node.term != 0 && node.term < floor {
            let why = if config.replication {
                "with replication every node starts at least at the highest term of any given \
                 entry, or it could lead a term whose entries others already hold"
            } else {
                "a node has seen at least the term of every entry it holds"
            };
            problem(
                Some(format!("\"{}\"", node.name)),
                format!(
                    "node \"{}\" starts at term {} below term {floor}: {why}; give term: {floor} \
                     or more, or leave it out",
                    node.name, node.term
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

/// Timeouts: election timeouts ordered and positive (the cluster's and each node's own),
/// heartbeats well below them, nothing longer than an hour.
fn timing_problems(config: &RaftConfig) -> Vec<ConfigProblem> {
    let mut problems = range_problems(
        "election_timeout_ms",
        "election_timeout_ms",
        config.election_timeout_ms,
        config.heartbeat_ms,
    );
    for node in &config.nodes {
        if let Some(range) = node.election_timeout_ms {
            problems.extend(range_problems(
                &format!("\"{}\"", node.name),
                &format!("node \"{}\"'s election_timeout_ms", node.name),
                range,
                config.heartbeat_ms,
            ));
        }
    }
    let mut problem = |locate: &str, message: String| {
        problems.push(ConfigProblem {
            locate: Some(locate.into()),
            message,
        });
    };
    if config.heartbeat_ms == 0 {
        problem(
            "heartbeat_ms",
            "heartbeat_ms is 0: a leader would send heartbeats in a busy loop; use e.g. 50".into(),
        );
    }
    if config.rpc_timeout_ms == 0 {
        problem(
            "rpc_timeout_ms",
            "rpc_timeout_ms is 0: every RPC would time out at once; use e.g. 50".into(),
        );
    }
    let longest = [
        config.election_timeout_ms.1,
        config.heartbeat_ms,
        config.rpc_timeout_ms,
        config.elect_within_ms.unwrap_or(0),
    ]
    .into_iter()
    .chain(config.first_deadline_ms.values().copied())
    .chain(
        config
            .nodes
            .iter()
            .filter_map(|n| n.election_timeout_ms.map(|r| r.1)),
    )
    .max()
    .unwrap_or(0);
    if longest > MAX_MS {
        problem(
            "election_timeout_ms",
            format!(
                "a timing of {longest} ms: Raft timings here are at most {MAX_MS} ms (an hour)"
            ),
        );
    }
    problems
}

/// One election timeout range: ordered, positive, above the heartbeat period.
fn range_problems(
    locate: &str,
    what: &str,
    (min, max): (u64, u64),
    heartbeat_ms: u64,
) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let mut problem = |message: String| {
        problems.push(ConfigProblem {
            locate: Some(locate.into()),
            message,
        });
    };
    if min > max {
        problem(format!(
            "{what} ({min}, {max}): the minimum is above the maximum; swap them"
        ));
    }
    if min == 0 {
        problem(format!(
            "{what} starts at 0: a node would stand for election at once, forever; use at least \
             a few heartbeats, e.g. (150, 300)"
        ));
    } else if heartbeat_ms > 0 && heartbeat_ms >= min {
        problem(format!(
            "heartbeat_ms {heartbeat_ms} is not below the shortest election timeout {min} of \
             {what}: followers would time out between heartbeats and depose a healthy leader; \
             make heartbeats much shorter than the election timeout (the paper: an order of \
             magnitude)"
        ));
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
        assert_eq!(config.nodes[1].initial_log(), Log::new(1, 5));
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
        assert!(text.iter().any(|m| m.contains("\"nodo-1\" is used twice")));
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

    // Goal: replication configs that cannot run are refused with a fix. Method: clients in
    // the election-only model, a client named like a server, logs that break log matching, a
    // term below the log's, a log too long. Proves: one problem each, saying what to change.
    #[test]
    fn validate_reports_impossible_replication_configs() {
        let mut config = RaftConfig::new(vec![
            NodeSpec::with_entries("s1", &[1, 1, 2]),
            NodeSpec::with_entries("s2", &[1, 2, 2]),
            NodeSpec {
                term: 1,
                ..NodeSpec::with_entries("s3", &[1, 3])
            },
        ]);
        config.clients = vec!["c1".into(), "s1".into()];
        config.replication = false;
        let problems = validate(&config);
        let text: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(problems.len(), 4, "{text:#?}");
        assert!(text.iter().any(|m| m.contains("drop `replication: false`")));
        assert!(text.iter().any(|m| m.contains("\"s1\" is used twice")));
        assert!(
            text.iter()
                .any(|m| m.contains("both hold an entry of term 2 at index 3"))
        );
        assert!(
            text.iter()
                .any(|m| m.contains("starts at term 1 below term 3"))
        );
        let long = RaftConfig::new(vec![NodeSpec::new("s1", 1, MAX_LOG + 1)]);
        let problems = validate(&long);
        assert!(
            problems
                .iter()
                .any(|p| p.message.contains("more than 10000 entries")),
            "{problems:?}"
        );
        assert_eq!(long.nodes[0].initial_log().last_index(), MAX_LOG);
    }
}
