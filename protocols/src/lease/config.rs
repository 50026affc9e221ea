//! The lease scenario's settings: the store, the relays that race for the key, the protected
//! resource, the lease's timings and the bug knobs.
//!
//! ```ron
//! (
//!     store: "etcd",
//!     relays: ["relay-1", "relay-2", "relay-3"],
//!     resource: "db",
//!     key: "/km0/lider/relay-outbox",
//!     ttl_ms: 10000,           // TTL_SEGUNDOS = 10
//!     renew_every_ms: 1000,    // time.sleep(1) between two rounds of work and refresh
//!     rpc_timeout_ms: 500,     // a call to the store without an answer this long has failed
//!     work_ms: 100,            // how long a round of work takes before its write lands
//!     safety_margin_ms: 1000,  // stop at the last refresh + TTL - this, by the relay's clock
//!     fencing: false,          // writes carry the leader's token; the resource checks it
//! )
//! ```
//!
//! [`validate`] refuses a TTL of 0, a renewal period or RPC timeout at or above the TTL (the
//! lease would expire between two renewals, or before a failed renewal is noticed), and bounds
//! every size.

use serde::{Deserialize, Serialize};
use sim_core::ConfigProblem;

/// A lease-election cast and its timings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaseConfig {
    /// The coordination store (etcd): linearizable, one node. Default "etcd".
    #[serde(default = "default_store")]
    pub store: String,
    /// The instances that race for the key (the lesson's three relays).
    pub relays: Vec<String>,
    /// The protected resource (the database the leader writes to). Default "db".
    #[serde(default = "default_resource")]
    pub resource: String,
    /// The key the relays race for.
    #[serde(default = "default_key")]
    pub key: String,
    /// The lease's time to live, by the store's clock. Default 10 s.
    #[serde(default = "default_ttl_ms")]
    pub ttl_ms: u64,
    /// The leader's loop: a round of work, a refresh, then this long asleep. Default 1 s.
    #[serde(default = "default_renew_every_ms")]
    pub renew_every_ms: u64,
    /// A call to the store (grant, transaction, refresh, get) with no answer this long has
    /// failed. Default 500 ms.
    #[serde(default = "default_rpc_timeout_ms")]
    pub rpc_timeout_ms: u64,
    /// How long a round of work takes: its write to the resource is sent at its end. Default
    /// 100 ms.
    #[serde(default = "default_work_ms")]
    pub work_ms: u64,
    /// The relay's safety net: it stops leading at its last successful refresh + TTL - this
    /// margin, judged by its own clock, even if no refresh has failed yet. Default 1 s.
    #[serde(default = "default_safety_margin_ms")]
    pub safety_margin_ms: u64,
    /// Writes carry the leader's fencing token (its key's `mod_revision`), and the resource
    /// rejects one lower than the highest it has seen. Default false, as in `relay_lider.py`.
    #[serde(default)]
    pub fencing: bool,
    /// Deliberate mistakes, all off by default.
    #[serde(default)]
    pub bugs: Bugs,
}

/// Bug knobs: each breaks one rule so that an invariant can be seen to catch it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bugs {
    /// The relay never looks at its refresh's outcome: a refresh with no answer, or one that
    /// says the lease is gone, counts as a success, so it leads on (and its safety net moves on
    /// with it).
    #[serde(default)]
    pub unchecked_refresh: bool,
    /// The resource accepts every write, whatever its token: fencing configured but not
    /// enforced (no effect without `fencing: true`).
    #[serde(default)]
    pub resource_ignores_tokens: bool,
    /// The store expires a lease at half its TTL.
    #[serde(default)]
    pub early_expiry: bool,
}

fn default_store() -> String {
    "etcd".into()
}
fn default_resource() -> String {
    "db".into()
}
fn default_key() -> String {
    "/km0/lider/relay-outbox".into()
}
fn default_ttl_ms() -> u64 {
    10_000
}
fn default_renew_every_ms() -> u64 {
    1_000
}
fn default_rpc_timeout_ms() -> u64 {
    500
}
fn default_work_ms() -> u64 {
    100
}
fn default_safety_margin_ms() -> u64 {
    1_000
}

/// The most relays a file may list.
pub const MAX_RELAYS: usize = 32;
pub use crate::common::MAX_MS;
/// The longest key.
pub const MAX_KEY: usize = 256;

impl LeaseConfig {
    /// Node names in `NodeId` order: the store, the relays, the resource.
    pub fn node_names(&self) -> Vec<String> {
        std::iter::once(self.store.clone())
            .chain(self.relays.iter().cloned())
            .chain(std::iter::once(self.resource.clone()))
            .collect()
    }
}

fn problem(locate: &str, message: String) -> ConfigProblem {
    ConfigProblem {
        locate: Some(locate.to_string()),
        message,
    }
}

/// Problems parsing cannot see; empty when the config is fine.
pub fn validate(config: &LeaseConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    if config.relays.is_empty() {
        problems.push(problem(
            "relays",
            "`relays` is empty: list the instances that race for the key".into(),
        ));
    }
    if config.relays.len() > MAX_RELAYS {
        problems.push(problem(
            "relays",
            format!(
                "{} relays is above the limit of {MAX_RELAYS}",
                config.relays.len()
            ),
        ));
    }
    problems.extend(crate::common::name_problems(
        config.node_names(),
        "the store, every relay and the resource",
    ));
    if config.key.is_empty() || config.key.len() > MAX_KEY {
        problems.push(problem(
            "key",
            format!("`key` must be 1 to {MAX_KEY} characters, e.g. \"/km0/lider/relay-outbox\""),
        ));
    }
    let timings = [
        ("ttl_ms", config.ttl_ms),
        ("renew_every_ms", config.renew_every_ms),
        ("rpc_timeout_ms", config.rpc_timeout_ms),
        ("work_ms", config.work_ms),
        ("safety_margin_ms", config.safety_margin_ms),
    ];
    for (field, value) in timings {
        if value > MAX_MS {
            problems.push(problem(
                field,
                format!("`{field}` {value} is above the limit of {MAX_MS} (one hour)"),
            ));
        }
    }
    if config.ttl_ms == 0 {
        problems.push(problem(
            "ttl_ms",
            "`ttl_ms` is 0: a lease that expires at once elects nobody; the lesson uses 10000"
                .into(),
        ));
    }
    for (field, value) in [
        ("renew_every_ms", config.renew_every_ms),
        ("rpc_timeout_ms", config.rpc_timeout_ms),
    ] {
        if value == 0 {
            problems.push(problem(
                field,
                format!("`{field}` is 0: a relay needs some time between its calls"),
            ));
        }
    }
    // Each of these must stay below the TTL, for the reason given.
    let below_ttl = [
        (
            "renew_every_ms",
            config.renew_every_ms,
            "the lease would expire between two refreshes of a healthy leader; renew a few \
             times per TTL (the lesson: every 1-3 s for 10 s)",
        ),
        (
            "rpc_timeout_ms",
            config.rpc_timeout_ms,
            "the lease could expire before a failed refresh is even noticed; use a timeout \
             well under the TTL",
        ),
        (
            "safety_margin_ms",
            config.safety_margin_ms,
            "the relay would stop the moment it wins",
        ),
    ];
    for (field, value, why) in below_ttl {
        if config.ttl_ms > 0 && value >= config.ttl_ms {
            problems.push(problem(
                field,
                format!(
                    "`{field}` {value} is not below `ttl_ms` {}: {why}",
                    config.ttl_ms
                ),
            ));
        }
    }
    problems
}
