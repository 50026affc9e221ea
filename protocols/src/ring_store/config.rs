//! The live ring's settings in a scenario: the cast, the quorum (RF, W, R), timeouts, the
//! rebalancing scheme and bandwidth, and the bug knobs; plus [`validate`], which refuses quorums
//! that cannot work and flags the ones that allow stale reads.
//!
//! The lesson's cluster is one line of RON: `(nodes: ["n0", "n1", "n2", "n3", "n4", "n5"])`
//! (RF 3, W 2, R 2, 100 vnodes, MD5). Node names are ids into one table: ring members first, then
//! spares (nodes that can `Join` later), then the coordinator, then the clients (actors that
//! route by a cached partition map, see `client`).

use crate::partition::hash::HashFn;
use serde::{Deserialize, Serialize};
use sim_core::ConfigProblem;

/// A live consistent-hash store: storage nodes, spares, one coordinator and how they behave.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RingConfig {
    /// Storage nodes on the ring from the start (the lesson: n0..n5).
    pub nodes: Vec<String>,
    /// Storage nodes off the ring until a `Join` names them. Default none.
    #[serde(default)]
    pub spares: Vec<String>,
    /// The coordinator's name (the lesson's `Coordinador`). Default "coord".
    #[serde(default = "default_coordinator")]
    pub coordinator: String,
    /// Clients that route each request to the key's owner in their cached map and follow
    /// `Moved` redirects (Redis Cluster's informed client). Default none.
    #[serde(default)]
    pub clients: Vec<String>,
    /// How long after a rebalance ends the clients learn the new map (the push is delayed, as
    /// gossip or a watch on ZooKeeper would be). Default 200 ms.
    #[serde(default = "two_hundred")]
    pub map_delay_ms: u64,
    /// Replication factor: copies of each key, on the next RF distinct nodes clockwise. Default 3.
    #[serde(default = "three")]
    pub rf: u32,
    /// Write quorum: home-replica acks that confirm a write. Default 2.
    #[serde(default = "two")]
    pub w: u32,
    /// Read quorum: replies a read waits for before returning the newest. Default 2.
    #[serde(default = "two")]
    pub r: u32,
    /// Say yes to R + W <= RF (a teaching counterexample: reads may be stale). Default false.
    #[serde(default)]
    pub allow_stale_reads: bool,
    /// Count a stand-in's (hinted) ack toward W, as Dynamo's sloppy quorum does. Default false.
    /// Writes then survive more failures, and a read may miss them (the checker shows it).
    #[serde(default)]
    pub sloppy_quorum: bool,
    /// How keys are placed and how a membership change moves them. Default `Vnodes`.
    #[serde(default)]
    pub scheme: Scheme,
    /// Vnodes per node for `Vnodes`. Default 100 (the lesson's `Anillo(nodos, vnodos=100)`).
    #[serde(default = "hundred")]
    pub vnodes: u32,
    /// Number of fixed partitions for `Partitions`. Default 64.
    #[serde(default = "sixty_four")]
    pub partitions: u32,
    /// The hash of keys and vnode labels. Default `Md5_64` (the course's).
    #[serde(default = "md5")]
    pub hash: HashFn,
    /// How long the coordinator waits for a replica before calling it down. Default 50 ms.
    #[serde(default = "fifty")]
    pub rpc_timeout_ms: u64,
    /// How often a stand-in tries to hand a hint to its home replica. Default 100 ms.
    #[serde(default = "hundred64")]
    pub hint_retry_ms: u64,
    /// Rebalancing bandwidth of each sending node, in bytes per second. Default 2000.
    #[serde(default = "bandwidth")]
    pub bandwidth_bytes_per_s: u64,
    /// Most bytes in one transfer message. Default 256.
    #[serde(default = "chunk")]
    pub chunk_bytes: u64,
    /// Deliberate mistakes, all off by default, each caught by an invariant.
    #[serde(default)]
    pub bugs: Bugs,
}

/// The rebalancing schemes of text 000 section 8 that the live ring implements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Scheme {
    /// Partitions proportional to nodes: each node has `vnodes` points on the ring; a newcomer's
    /// points split existing arcs (Cassandra, Ketama).
    #[default]
    Vnodes,
    /// A fixed number of partitions (`partitions`), `hash % P`; a newcomer steals whole
    /// partitions from the nodes holding the most (Riak, Redis Cluster's slots).
    Partitions,
    /// Dynamic partitioning: one hash range at first; a range holding more than
    /// `split_bytes` bytes of data splits at its midpoint and the upper half moves to the
    /// least-loaded node (HBase, MongoDB). In RON: `Dynamic(split_bytes: 400)`.
    Dynamic {
        /// The size past which a range splits, in bytes (key, value and an 8-byte version per
        /// key, as the streams count them).
        split_bytes: u64,
    },
}

/// Bug knobs: each breaks one rule, so a test or a student can see an invariant fire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bugs {
    /// Stand-ins keep hints forever and never hand them over (`hints-delivered` fires).
    #[serde(default)]
    pub never_deliver_hints: bool,
    /// A rebalancing source deletes its copy when it sends it, not when the destination acks;
    /// a lost transfer then loses the key (`no-acked-write-lost`, `ownership-total`).
    #[serde(default)]
    pub delete_before_ack: bool,
    /// The coordinator counts a stand-in's ack toward W with `sloppy_quorum` off
    /// (`read-your-latest-ack` fires when the homes come back before the hint).
    #[serde(default)]
    pub count_standin_acks: bool,
    /// A node serves a client's request for a key it no longer owns, as the owner it was in
    /// the previous map, instead of answering `Moved`: a client with a stale map writes
    /// through it while others write through the real owner, so two owners number the key
    /// (one version given twice, or one below a confirmed one: `no-acked-write-lost`).
    #[serde(default)]
    pub ignore_moved: bool,
}

fn default_coordinator() -> String {
    "coord".into()
}
fn two_hundred() -> u64 {
    200
}
fn three() -> u32 {
    3
}
fn two() -> u32 {
    2
}
fn hundred() -> u32 {
    100
}
fn sixty_four() -> u32 {
    64
}
fn md5() -> HashFn {
    HashFn::Md5_64
}
fn fifty() -> u64 {
    50
}
fn hundred64() -> u64 {
    100
}
fn bandwidth() -> u64 {
    2000
}
fn chunk() -> u64 {
    256
}

impl RingConfig {
    /// The lesson's cluster (text 004, listing 9.18): n0..n5, RF 3, W 2, R 2, 100 vnodes.
    pub fn lesson() -> RingConfig {
        RingConfig {
            nodes: (0..6).map(|i| format!("n{i}")).collect(),
            spares: Vec::new(),
            coordinator: default_coordinator(),
            clients: Vec::new(),
            map_delay_ms: 200,
            rf: 3,
            w: 2,
            r: 2,
            allow_stale_reads: false,
            sloppy_quorum: false,
            scheme: Scheme::Vnodes,
            vnodes: 100,
            partitions: 64,
            hash: HashFn::Md5_64,
            rpc_timeout_ms: 50,
            hint_retry_ms: 100,
            bandwidth_bytes_per_s: 2000,
            chunk_bytes: 256,
            bugs: Bugs::default(),
        }
    }

    /// Every node name in `NodeId` order: members, spares, coordinator, clients.
    pub fn names(&self) -> Vec<String> {
        let mut names = self.nodes.clone();
        names.extend(self.spares.iter().cloned());
        names.push(self.coordinator.clone());
        names.extend(self.clients.iter().cloned());
        names
    }

    /// The coordinator's index in [`RingConfig::names`].
    pub fn coordinator_index(&self) -> usize {
        self.nodes.len() + self.spares.len()
    }

    /// The size threshold of the dynamic scheme (`None` under the others).
    pub fn split_bytes(&self) -> Option<u64> {
        match self.scheme {
            Scheme::Dynamic { split_bytes } => Some(split_bytes),
            _ => None,
        }
    }

    /// Whether stand-in acks count toward W (sloppy quorum, or the bug that does it by mistake).
    pub fn standins_count(&self) -> bool {
        self.sloppy_quorum || self.bugs.count_standin_acks
    }
}

fn problem(locate: &str, message: String) -> ConfigProblem {
    ConfigProblem {
        locate: Some(locate.to_string()),
        message,
    }
}

/// Ring positions of one map (members x vnodes): `dsim ring`'s limit, 2,000 nodes of 1,000.
pub const MAX_RING_POINTS: u64 = 2_000_000;
/// Fixed partitions of the `Partitions` scheme (Redis Cluster has 16,384 slots).
pub const MAX_PARTITIONS: u32 = 1_048_576;

/// The sizes a ring config sets, each against its limit.
fn size_problems(config: &RingConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let points = u64::from(config.vnodes) * (config.nodes.len() + config.spares.len()) as u64;
    if points > MAX_RING_POINTS {
        problems.push(problem(
            "vnodes",
            format!(
                "`vnodes` {} on {} nodes makes {points} ring positions, above the limit of \
                 {MAX_RING_POINTS}: lower vnodes (the lesson uses 100)",
                config.vnodes,
                config.nodes.len() + config.spares.len()
            ),
        ));
    }
    if config.partitions > MAX_PARTITIONS {
        problems.push(problem(
            "partitions",
            format!(
                "`partitions` {} is above the limit of {MAX_PARTITIONS}: lower it (the default is 64)",
                config.partitions
            ),
        ));
    }
    problems
}

/// Problems parsing cannot see; empty when the config is fine.
///
/// R + W <= RF is refused unless `allow_stale_reads: true` says the scenario wants it: a read
/// quorum that need not overlap the write quorum is almost always a typo in a course file, and
/// the one file that wants it (stale-read.ron) says so in the config, where a reader sees it.
pub fn validate(config: &RingConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    problems.extend(crate::common::name_problems(
        config.names(),
        "nodes, spares, the coordinator and clients",
    ));
    problems.extend(size_problems(config));
    quorum_problems(config, &mut problems);
    knob_problems(config, &mut problems);
    problems
}

/// RF, W and R: each possible, and R + W > RF unless stale reads are wanted.
fn quorum_problems(config: &RingConfig, problems: &mut Vec<ConfigProblem>) {
    let (rf, w, r) = (config.rf, config.w, config.r);
    let members = config.nodes.len() as u32;
    if rf == 0 {
        problems.push(problem(
            "rf",
            "`rf` is 0: keep at least one copy, e.g. rf: 3".into(),
        ));
    }
    if rf > members {
        problems.push(problem(
            "rf",
            format!(
                "`rf` {rf} is more than the {members} nodes on the ring: lower rf or add nodes"
            ),
        ));
    }
    for (field, q) in [("w", w), ("r", r)] {
        if q == 0 {
            problems.push(problem(
                field,
                format!("`{field}` is 0: a quorum needs at least one replica, e.g. {field}: 2"),
            ));
        } else if q > rf {
            problems.push(problem(
                field,
                format!("`{field}` {q} is more than `rf` {rf}: a quorum cannot exceed the replicas; use {field} <= rf"),
            ));
        }
    }
    if w > 0 && r > 0 && r + w <= rf && !config.allow_stale_reads {
        problems.push(problem(
            "r",
            format!("r + w = {} <= rf = {rf}: read and write quorums need not overlap, so reads may be stale; raise r or w, or say `allow_stale_reads: true` if that is the point", r + w),
        ));
    }
}

/// Settings that must be positive, and the dynamic scheme with clients.
fn knob_problems(config: &RingConfig, problems: &mut Vec<ConfigProblem>) {
    let positive = [
        ("vnodes", u64::from(config.vnodes)),
        ("partitions", u64::from(config.partitions)),
        ("rpc_timeout_ms", config.rpc_timeout_ms),
        ("hint_retry_ms", config.hint_retry_ms),
        ("bandwidth_bytes_per_s", config.bandwidth_bytes_per_s),
        ("chunk_bytes", config.chunk_bytes),
        ("split_bytes", config.split_bytes().unwrap_or(1)),
    ];
    for (field, v) in positive {
        if v == 0 {
            problems.push(problem(
                field,
                format!("`{field}` is 0: it must be positive (see the defaults in FORMAT.md)"),
            ));
        }
    }
    if config.split_bytes().is_some() && !config.clients.is_empty() {
        problems.push(problem(
            "clients",
            "the dynamic scheme sizes ranges from the coordinator's writes, and clients write through the storage nodes: drop `clients` or use Vnodes or Partitions".into(),
        ));
    }
}
