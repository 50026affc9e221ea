//! The Paxos settings of a scenario: roles, numbering, timeouts, and the bug knobs.
//!
//! Everything optional has a default, so the lesson's cast is three lines of RON:
//! `(proposers: ["relay-1", "relay-2"], acceptors: ["a1", "a2", "a3"])`. This module also owns
//! what parsing cannot see (duplicate names, clashing ids ...), reported by [`validate`], and the
//! derived layout (node order, ids, values) that `build` and the invariants share.

use crate::paxos::msg::Number;
use serde::{Deserialize, Serialize};
use sim_core::ConfigProblem;
use std::collections::{BTreeMap, BTreeSet};

pub use crate::common::MAX_NODES;

/// A single-decree Paxos cast and its behaviour.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaxosConfig {
    /// Nodes that propose (each proposes its own name unless `values` says otherwise).
    pub proposers: Vec<String>,
    /// Nodes that promise and accept; a majority of them decides.
    pub acceptors: Vec<String>,
    /// Nodes that learn the chosen value. Default: the proposers (as in the lesson, where the
    /// proposer counts accepts and declares the value ELEGIDO).
    #[serde(default)]
    pub learners: Option<Vec<String>>,
    /// Explicit values per proposer name; a proposer not listed proposes its own name.
    #[serde(default)]
    pub values: BTreeMap<String, String>,
    /// Explicit ids per proposer name; a proposer not listed gets its position, from 1.
    #[serde(default)]
    pub ids: BTreeMap<String, u64>,
    /// Proposal number n = round * `round_multiplier` + id. Default 10 (11, 12, 21 ...).
    #[serde(default = "default_multiplier")]
    pub round_multiplier: u64,
    /// How long a proposer waits for a majority in each phase. Default 50 ms.
    #[serde(default = "default_phase_timeout_ms")]
    pub phase_timeout_ms: u64,
    /// What a proposer does when a phase fails. Default: give up the round.
    #[serde(default)]
    pub on_timeout: OnTimeout,
    /// When phase 1 ends. Default `AfterAllReplies`: the lesson's proposer asks every acceptor
    /// and decides from all the promises it got (or those in by the phase timeout);
    /// `AtMajority` proposes at the first majority, as most implementations do.
    #[serde(default)]
    pub count_promises: CountPromises,
    /// The number of the round after a failed one. Default `NextRound` (the lesson's
    /// `ronda += 1`: 11, then 21); `PastHighestSeen` jumps above the highest promise a nack
    /// reported (11 refused with promised 22, then 31), saving rounds that would be refused.
    #[serde(default)]
    pub numbering: Numbering,
    /// Deliberate mistakes, all off by default, to show what each rule of Paxos protects.
    #[serde(default)]
    pub bugs: Bugs,
}

fn default_multiplier() -> u64 {
    10
}

fn default_phase_timeout_ms() -> u64 {
    50
}

/// What a proposer does after a phase without a majority.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum OnTimeout {
    /// Abandon the round; only a new `Propose` command starts another.
    #[default]
    GiveUp,
    /// Start a new round after a back-off drawn uniformly in [min, max] ms from the node's own
    /// random stream (random back-off is what ends a duel of proposers).
    Retry(u64, u64),
}

/// When a proposer ends phase 1 and picks the value to propose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CountPromises {
    /// Once every acceptor has answered (promise or nack), or when the phase timeout expires:
    /// the value comes from every promise that arrived, so arrival order does not decide it
    /// (the lesson's `paxos_un_valor.py`).
    #[default]
    AfterAllReplies,
    /// At the first majority of promises: faster, and the value comes from whichever promises
    /// arrived first (both are correct Paxos).
    AtMajority,
}

/// How a proposer numbers its next round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Numbering {
    /// One round more than the last: n = (round + 1) * multiplier + id (the lesson's
    /// `ronda += 1`), whatever the nacks reported.
    #[default]
    NextRound,
    /// The first round whose number is above every promise a nack reported.
    PastHighestSeen,
}

/// Bug knobs: each breaks one rule of Paxos, so a test or a student can see an invariant fire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bugs {
    /// Proposer: ignore the accepted proposals reported in promises and always propose its own
    /// value (breaks the adopt-highest-accepted rule, hence P2b).
    #[serde(default)]
    pub ignore_accepted_in_promises: bool,
    /// Acceptor: keep `promised` in volatile memory only, so a crash forgets it (breaks P1a
    /// across restarts).
    #[serde(default)]
    pub forget_promise_on_restart: bool,
    /// Acceptor: accept any `Accept`, whatever it promised (breaks P1a).
    #[serde(default)]
    pub accept_below_promise: bool,
}

impl PaxosConfig {
    /// The lesson's cast: proposers relay-1, relay-2; acceptors a1, a2, a3; everything default.
    pub fn lesson() -> Self {
        PaxosConfig {
            proposers: vec!["relay-1".into(), "relay-2".into()],
            acceptors: vec!["a1".into(), "a2".into(), "a3".into()],
            learners: None,
            values: BTreeMap::new(),
            ids: BTreeMap::new(),
            round_multiplier: default_multiplier(),
            phase_timeout_ms: default_phase_timeout_ms(),
            on_timeout: OnTimeout::GiveUp,
            count_promises: CountPromises::AfterAllReplies,
            numbering: Numbering::NextRound,
            bugs: Bugs::default(),
        }
    }

    /// The learners in force (the proposers unless listed).
    pub fn learners(&self) -> &[String] {
        self.learners.as_deref().unwrap_or(&self.proposers)
    }

    /// Node names in `NodeId` order: proposers, acceptors, then learners not listed yet.
    pub fn node_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        let all = self.proposers.iter().chain(&self.acceptors);
        for name in all.chain(self.learners()) {
            if seen.insert(name.as_str()) {
                names.push(name.clone());
            }
        }
        names
    }

    /// Proposer `name`'s id (explicit, or its position from 1).
    pub fn proposer_id(&self, name: &str) -> Option<u64> {
        let position = self.proposers.iter().position(|p| p == name)?;
        Some(self.ids.get(name).copied().unwrap_or(position as u64 + 1))
    }

    /// Proposer `name`'s own value (explicit, or its name).
    pub fn proposer_value(&self, name: &str) -> String {
        self.values
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    /// How many acceptors make a majority.
    pub fn majority(&self) -> usize {
        self.acceptors.len() / 2 + 1
    }

    /// The values proposers start with (what validity allows before any `ProposeValue`).
    pub fn initial_values(&self) -> BTreeSet<String> {
        self.proposers
            .iter()
            .map(|p| self.proposer_value(p))
            .collect()
    }
}

fn quoted(name: &str) -> Option<String> {
    Some(format!("\"{name}\""))
}

fn problem(locate: Option<String>, message: String) -> ConfigProblem {
    ConfigProblem { locate, message }
}

/// Problems parsing cannot see; empty when the config is fine.
pub fn validate(config: &PaxosConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let roles = [
        ("proposers", config.proposers.as_slice()),
        ("acceptors", config.acceptors.as_slice()),
        ("learners", config.learners()),
    ];
    for (role, names) in roles {
        if names.is_empty() {
            problems.push(problem(
                Some(role.to_string()),
                format!("`{role}` is empty: list at least one node name"),
            ));
        }
        let mut seen = BTreeSet::new();
        for name in names {
            if name.is_empty() {
                problems.push(problem(
                    Some("\"\"".to_string()),
                    format!("`{role}` has an empty name: give every node a name"),
                ));
            } else if !seen.insert(name) {
                problems.push(problem(
                    quoted(name),
                    format!("\"{name}\" is listed twice in `{role}`: remove one"),
                ));
            }
        }
    }
    let proposers: BTreeSet<&String> = config.proposers.iter().collect();
    for name in config.values.keys().chain(config.ids.keys()) {
        if !proposers.contains(name) {
            problems.push(problem(
                quoted(name),
                format!("\"{name}\" has a value or id but is not a proposer: add it to `proposers` or remove the entry"),
            ));
        }
    }
    if config.round_multiplier > MAX_ROUND_MULTIPLIER {
        problems.push(problem(
            Some("round_multiplier".into()),
            format!(
                "`round_multiplier` {} is above {MAX_ROUND_MULTIPLIER}: proposal numbers would \
                 overflow; the lesson uses 10",
                config.round_multiplier
            ),
        ));
    }
    if config.round_multiplier == 0 {
        problems.push(problem(
            Some("round_multiplier".into()),
            "`round_multiplier` is 0: proposal numbers need round * multiplier + id, use 10".into(),
        ));
    }
    let mut by_id: BTreeMap<u64, &str> = BTreeMap::new();
    for name in &config.proposers {
        let Some(id) = config.proposer_id(name) else {
            continue;
        };
        if let Some(other) = by_id.insert(id, name)
            && other != name
        {
            problems.push(problem(
                quoted(name),
                format!("\"{name}\" and \"{other}\" both have id {id}: proposal numbers would collide; give each proposer its own id in `ids`"),
            ));
        }
        if config.round_multiplier > 0 && id >= config.round_multiplier {
            problems.push(problem(
                quoted(name),
                format!("\"{name}\" has id {id}, not below `round_multiplier` {}: round * multiplier + id would collide across rounds; use a smaller id or a larger multiplier", config.round_multiplier),
            ));
        }
    }
    let nodes = config.node_names().len();
    if nodes > MAX_NODES {
        problems.push(problem(
            None,
            format!("{nodes} nodes (proposers, acceptors and learners): a Paxos config runs at most {MAX_NODES}; use fewer"),
        ));
    }
    if config.phase_timeout_ms == 0 {
        problems.push(problem(
            Some("phase_timeout_ms".into()),
            "`phase_timeout_ms` is 0: a phase needs time for a round trip; use e.g. 50".into(),
        ));
    }
    if let OnTimeout::Retry(min, max) = config.on_timeout
        && min > max
    {
        problems.push(problem(
            Some("Retry".into()),
            format!("`Retry({min}, {max})`: the minimum back-off is above the maximum; swap them"),
        ));
    }
    problems
}

/// The largest `round_multiplier` accepted: numbers stay far below `u64::MAX` for any run
/// within the step limits, so proposal numbers never wrap (which would break their order).
pub const MAX_ROUND_MULTIPLIER: u64 = 1_000_000_000;

/// The proposal number of `round` for proposer `id` (saturating: with the multiplier bounded
/// by [`MAX_ROUND_MULTIPLIER`], reaching the top would take more rounds than any run has).
pub fn number(round: u64, multiplier: u64, id: u64) -> Number {
    round.saturating_mul(multiplier).saturating_add(id)
}
