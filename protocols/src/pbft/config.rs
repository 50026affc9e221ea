//! The PBFT settings of a scenario: the replicas and clients, f, checkpoints and water marks,
//! which replicas are Byzantine and how, and the bug knobs.
//!
//! ```ron
//! (
//!     replicas: ["r0", "r1", "r2", "r3"],
//!     clients: ["c1"],
//!     f: 1,
//!     checkpoint_interval: 4,
//!     window: 8,
//!     client_timeout_ms: 100,
//!     view_change_timeout_ms: 150,
//!     byzantine: {"r3": [Lie]},
//! )
//! ```
//!
//! `twins: ["r0"]` adds a node `r0-twin`: a second copy of r0 running the correct code under
//! r0's identity (see `sim_core::Sim::add_twin`). Partition the two apart and to the others r0
//! equivocates or forgets what it voted; a twinned replica counts as one of the f faulty ones.
//!
//! N >= 3f + 1 is checked: a file below the bound is refused with why, unless it sets
//! `allow_below_3f1: true` to show what goes wrong. [`validate`] also bounds every size.

use serde::{Deserialize, Serialize};
use sim_core::ConfigProblem;
use std::collections::{BTreeMap, BTreeSet};

/// A PBFT cast and its behaviour.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PbftConfig {
    /// The replicas, in order: the primary of view v is `replicas[v mod N]`.
    pub replicas: Vec<String>,
    /// The clients, which send the requests the timeline's commands ask for.
    pub clients: Vec<String>,
    /// How many Byzantine replicas the cluster must tolerate.
    pub f: u32,
    /// Run even though N < 3f + 1 (to show the failure): quorums are then N - f, which two
    /// quorums can share only Byzantine replicas in. Default false: such a file is refused.
    #[serde(default)]
    pub allow_below_3f1: bool,
    /// Run even though more than f replicas are Byzantine (to show the failure). Default false.
    #[serde(default)]
    pub allow_more_than_f: bool,
    /// A replica checkpoints its state every K executed requests (K, the paper's checkpoint
    /// period). Default 4.
    #[serde(default = "default_checkpoint_interval")]
    pub checkpoint_interval: u64,
    /// L: sequence numbers run from the last stable checkpoint h to the high water mark
    /// h + L. Default 8 (twice the checkpoint interval, as the paper suggests).
    #[serde(default = "default_window")]
    pub window: u64,
    /// A client that has not accepted a result this long after sending sends the request to
    /// every replica. Default 100 ms.
    #[serde(default = "default_client_timeout_ms")]
    pub client_timeout_ms: u64,
    /// A backup waiting this long for a request it knows of to execute starts a view change;
    /// each consecutive view change waits twice as long. Default 150 ms.
    #[serde(default = "default_view_change_timeout_ms")]
    pub view_change_timeout_ms: u64,
    /// The Byzantine replicas and what each does (a list of behaviours, combined).
    #[serde(default)]
    pub byzantine: BTreeMap<String, Vec<Behaviour>>,
    /// Replicas that get a twin (Bano et al., OPODIS 2021): a node named `NAME-twin` that runs
    /// the correct code under the replica's identity. A twinned replica is faulty (it counts
    /// toward f) though neither copy has a Byzantine behaviour. Default none.
    #[serde(default)]
    pub twins: Vec<String>,
    /// Deliberate mistakes of correct replicas, all off by default.
    #[serde(default)]
    pub bugs: Bugs,
}

fn default_checkpoint_interval() -> u64 {
    4
}

fn default_window() -> u64 {
    8
}

fn default_client_timeout_ms() -> u64 {
    100
}

fn default_view_change_timeout_ms() -> u64 {
    150
}

/// What a Byzantine replica does instead of following the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Behaviour {
    /// Sends nothing at all (it still receives).
    Silent,
    /// As primary: tells different backups different requests for one sequence number (the
    /// first half of the backups gets one request, the rest the next request it receives). As
    /// a backup: pretends to be a primary and pre-prepares each request it sees at the
    /// sequence number before the one it was given. Either way it takes no side: it sends no
    /// commits of its own.
    Equivocate,
    /// Every prepare, commit and checkpoint it sends carries a digest nobody computed, and
    /// every reply a result nobody executed.
    Lie,
    /// Sends every replica again the message it received before the current one (replaying
    /// old messages, signed by their senders; each distinct message once), and as primary
    /// assigns each request a second time at the next sequence number.
    Replay,
    /// Votes (prepare and commit) for every request it is pre-prepared at a sequence number,
    /// at once and whether or not it is prepared, and for a conflicting one too: for both
    /// sides of an equivocation.
    DoubleVote,
}

/// Bug knobs: each breaks one rule of PBFT in the correct replicas, so that an invariant can
/// be seen to catch it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bugs {
    /// Committed-local with 2f matching commits instead of 2f + 1 (quorum - 1).
    #[serde(default)]
    pub commit_with_2f: bool,
    /// Prepared with f + 1 matching prepares instead of 2f.
    #[serde(default)]
    pub prepare_with_f_plus_1: bool,
    /// Accept a pre-prepare from any replica, not only the primary of its view.
    #[serde(default)]
    pub accept_pre_prepare_from_backup: bool,
    /// Execute a committed request at once, without waiting for the lower sequence numbers.
    #[serde(default)]
    pub execute_out_of_order: bool,
    /// A new primary derives its pre-prepares from the view changes without their prepared
    /// certificates: every number gets a null request.
    #[serde(default)]
    pub new_view_drops_prepared: bool,
    /// A backup enters a new view without checking the NEW-VIEW against the view changes in it.
    #[serde(default)]
    pub enter_view_unverified: bool,
    /// View-change timeouts stay the same instead of doubling on consecutive view changes.
    #[serde(default)]
    pub fixed_view_change_timeout: bool,
}

pub use crate::common::MAX_NODES;
/// The largest checkpoint interval and window.
pub const MAX_WINDOW: u64 = 10_000;

impl PbftConfig {
    /// The identities in `NodeId` order: replicas, then clients (twins share a replica's).
    pub fn node_names(&self) -> Vec<String> {
        self.replicas.iter().chain(&self.clients).cloned().collect()
    }

    /// Every node in `NodeId` order: the identities, then the twins in `twins` order (of the
    /// entries that name a replica: [`validate`] refuses the others, where they are written).
    pub fn all_node_names(&self) -> Vec<String> {
        let mut names = self.node_names();
        names.extend(self.twinned().map(|(_, t)| twin_name(t)));
        names
    }

    /// The replica (its index) whose twin node `index` is, if it is a twin.
    pub fn twin_of(&self, index: usize) -> Option<usize> {
        let twin = index.checked_sub(self.replicas.len() + self.clients.len())?;
        self.twinned().nth(twin).map(|(replica, _)| replica)
    }

    /// The replicas `twins` names, as (index, name), in `twins` order.
    fn twinned(&self) -> impl Iterator<Item = (usize, &String)> {
        self.twins
            .iter()
            .filter_map(|t| Some((self.replicas.iter().position(|r| r == t)?, t)))
    }

    /// N, the number of replicas.
    pub fn n(&self) -> usize {
        self.replicas.len()
    }

    /// The quorum: 2f + 1 when N = 3f + 1. In general the smallest size any two of which share
    /// f + 1 replicas, ⌈(N + f + 1) / 2⌉, capped at N - f (what is left when f replicas are
    /// silent): the two are equal at N = 3f + 1, and below it the cap wins, so two quorums may
    /// share only Byzantine replicas (the failure `allow_below_3f1` shows).
    pub fn quorum(&self) -> usize {
        quorum(self.n(), self.f as usize)
    }

    /// Whether replica `name` is Byzantine.
    pub fn is_byzantine(&self, name: &str) -> bool {
        self.byzantine.get(name).is_some_and(|b| !b.is_empty())
    }

    /// Whether replica `name` is faulty: Byzantine, or twinned.
    pub fn is_faulty(&self, name: &str) -> bool {
        self.is_byzantine(name) || self.twins.iter().any(|t| t == name)
    }

    /// The correct replicas, by name.
    pub fn correct_replicas(&self) -> Vec<String> {
        self.replicas
            .iter()
            .filter(|r| !self.is_faulty(r))
            .cloned()
            .collect()
    }
}

/// The name of `replica`'s twin.
pub fn twin_name(replica: &str) -> String {
    format!("{replica}-twin")
}

/// The quorum size for `n` replicas tolerating `f` (see [`PbftConfig::quorum`]).
pub fn quorum(n: usize, f: usize) -> usize {
    (n + f + 1).div_ceil(2).min(n.saturating_sub(f)).max(1)
}

fn problem(locate: Option<String>, message: String) -> ConfigProblem {
    ConfigProblem { locate, message }
}

fn field(name: &str) -> Option<String> {
    Some(name.to_string())
}

/// Problems parsing cannot see; empty when the config is fine.
pub fn validate(config: &PbftConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    for (role, names) in [("replicas", &config.replicas), ("clients", &config.clients)] {
        if names.is_empty() {
            problems.push(problem(
                field(role),
                format!("`{role}` is empty: list at least one node name"),
            ));
        }
    }
    let mut seen = BTreeSet::new();
    for name in config.replicas.iter().chain(&config.clients) {
        if name.is_empty() {
            problems.push(problem(
                Some("\"\"".into()),
                "a node has an empty name: give every node a name".into(),
            ));
        } else if !seen.insert(name) {
            problems.push(problem(
                Some(format!("\"{name}\"")),
                format!("\"{name}\" is listed twice: every replica and client needs its own name"),
            ));
        }
    }
    let replicas: BTreeSet<&String> = config.replicas.iter().collect();
    let mut twinned = BTreeSet::new();
    for name in &config.twins {
        if !replicas.contains(name) {
            problems.push(problem(
                Some(format!("\"{name}\"")),
                format!(
                    "\"{name}\" is in `twins` but is not a replica; the replicas are: {}",
                    config.replicas.join(", ")
                ),
            ));
        } else if !twinned.insert(name) {
            problems.push(problem(
                Some(format!("\"{name}\"")),
                format!("\"{name}\" is listed twice in `twins`: a replica has at most one twin"),
            ));
        } else if config.is_byzantine(name) {
            problems.push(problem(
                Some(format!("\"{name}\"")),
                format!(
                    "\"{name}\" is both Byzantine and twinned: twins run the correct code; \
                     remove it from one of `byzantine` and `twins`"
                ),
            ));
        }
        let twin = twin_name(name);
        if config.replicas.contains(&twin) || config.clients.contains(&twin) {
            problems.push(problem(
                Some(format!("\"{twin}\"")),
                format!("\"{twin}\" is the name of {name}'s twin: rename that node"),
            ));
        }
    }
    let total = config.replicas.len() + config.clients.len() + config.twins.len();
    if total > MAX_NODES {
        problems.push(problem(
            field("replicas"),
            format!(
                "{total} nodes is above the limit of {MAX_NODES}: use fewer replicas, clients or \
                 twins"
            ),
        ));
    }
    let (n, f) = (config.n(), config.f as usize);
    if n > 0 && n < 3 * f + 1 && !config.allow_below_3f1 {
        problems.push(problem(
            field("f"),
            format!(
                "f = {f} needs N >= 3f + 1 = {} replicas, and there are {n}: with fewer, two \
                 quorums can meet only in Byzantine replicas and correct ones can commit \
                 different requests. Add replicas, lower f, or set `allow_below_3f1: true` to \
                 show that failure",
                3 * f + 1
            ),
        ));
    }
    if n > 0 && n <= f {
        problems.push(problem(
            field("f"),
            format!(
                "f = {f} with {n} replicas leaves no correct replica to form a quorum: lower f"
            ),
        ));
    }
    let mut byzantine = 0;
    for (name, behaviours) in &config.byzantine {
        if !replicas.contains(name) {
            problems.push(problem(
                Some(format!("\"{name}\"")),
                format!(
                    "\"{name}\" is in `byzantine` but is not a replica; the replicas are: {}",
                    config.replicas.join(", ")
                ),
            ));
        }
        if behaviours.is_empty() {
            problems.push(problem(
                Some(format!("\"{name}\"")),
                format!("\"{name}\" has no Byzantine behaviour: list one (Silent, Equivocate, Lie, Replay, DoubleVote) or remove it"),
            ));
        } else {
            byzantine += 1;
        }
    }
    let faulty = byzantine + twinned.len();
    if faulty > f && !config.allow_more_than_f {
        problems.push(problem(
            field(if byzantine > 0 { "byzantine" } else { "twins" }),
            format!(
                "{} but f = {f}: PBFT promises nothing with more than f. Raise f (with N >= 3f + \
                 1), remove some, or set `allow_more_than_f: true` to show the failure",
                if twinned.is_empty() {
                    format!("{byzantine} Byzantine replicas")
                } else {
                    format!(
                        "{faulty} faulty replicas ({byzantine} Byzantine, {} twinned)",
                        twinned.len()
                    )
                }
            ),
        ));
    }
    if config.checkpoint_interval == 0 || config.checkpoint_interval > MAX_WINDOW {
        problems.push(problem(
            field("checkpoint_interval"),
            format!(
                "`checkpoint_interval` {} is outside 1..={MAX_WINDOW}: the paper checkpoints every \
                 K requests; use e.g. 4",
                config.checkpoint_interval
            ),
        ));
    }
    if config.window < config.checkpoint_interval || config.window > MAX_WINDOW {
        problems.push(problem(
            field("window"),
            format!(
                "`window` {} must be between `checkpoint_interval` ({}) and {MAX_WINDOW}: below \
                 the interval no checkpoint can ever become stable and the water marks never \
                 move; twice the interval is usual",
                config.window, config.checkpoint_interval
            ),
        ));
    }
    if config.view_change_timeout_ms == 0 || config.view_change_timeout_ms > crate::common::MAX_MS {
        problems.push(problem(
            field("view_change_timeout_ms"),
            format!(
                "`view_change_timeout_ms` {} is outside 1..=3600000: backups need time for a \
                 request to commit before they replace the primary; use e.g. 150",
                config.view_change_timeout_ms
            ),
        ));
    }
    if config.client_timeout_ms == 0 || config.client_timeout_ms > crate::common::MAX_MS {
        problems.push(problem(
            field("client_timeout_ms"),
            format!(
                "`client_timeout_ms` {} is outside 1..=3600000: a client needs time for a round \
                 of three phases; use e.g. 100",
                config.client_timeout_ms
            ),
        ));
    }
    problems
}
