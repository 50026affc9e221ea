//! The register model's settings and their checks.

use serde::{Deserialize, Serialize};
use sim_core::ConfigProblem;

/// The most servers a file may set (Paxos majorities of up to 4 of 7).
pub const MAX_SERVERS: u32 = 7;
/// The most clients: each writes its own letter, from 'A'.
pub const MAX_CLIENTS: u32 = 26;
/// The most writes a client makes before its read.
pub const MAX_PUTS: u32 = 8;

/// Settings of stateright's register model (`protocol: "register"`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegisterConfig {
    /// Paxos servers, `server-0` ... (stateright's example has 3).
    #[serde(default = "three")]
    pub servers: u32,
    /// Clients, numbered after the servers (`client-3` ...): 2 gives stateright's 16,668
    /// states, 3 its 1,194,428.
    #[serde(default = "two")]
    pub clients: u32,
    /// Writes each client makes (each after the last is acknowledged) before its one read.
    #[serde(default = "one")]
    pub put_count: u32,
    /// Deliberate mistakes, for seeing the linearizability checker catch them.
    #[serde(default)]
    pub bugs: Bugs,
}

/// Bug knobs of the register model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bugs {
    /// A leader proposes its own client's value even when a promise reports an accepted one
    /// (breaks Paxos's adopt-the-highest-accepted rule: two servers can decide two values).
    #[serde(default)]
    pub ignore_accepted: bool,
}

fn three() -> u32 {
    3
}
fn two() -> u32 {
    2
}
fn one() -> u32 {
    1
}

impl RegisterConfig {
    /// Every node's name in id order: the servers, then the clients.
    pub fn node_names(&self) -> Vec<String> {
        let servers = (0..self.servers).map(|i| format!("server-{i}"));
        let clients = (self.servers..self.servers + self.clients).map(|i| format!("client-{i}"));
        servers.chain(clients).collect()
    }
}

/// Problems parsing cannot see; empty when the config is fine.
pub fn validate(config: &RegisterConfig) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    let mut bound = |field: &str, value: u32, low: u32, high: u32, why: &str| {
        if !(low..=high).contains(&value) {
            problems.push(ConfigProblem {
                locate: Some(field.to_string()),
                message: format!("`{field}: {value}` is outside {low} to {high}: {why}"),
            });
        }
    };
    bound(
        "servers",
        config.servers,
        1,
        MAX_SERVERS,
        "a Paxos cluster needs a server, and the explorer's states grow fast",
    );
    bound(
        "clients",
        config.clients,
        1,
        MAX_CLIENTS,
        "each client writes its own letter, 'A' to 'Z'",
    );
    bound(
        "put_count",
        config.put_count,
        1,
        MAX_PUTS,
        "each client writes at least once before it reads",
    );
    problems
}
