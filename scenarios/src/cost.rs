//! Messages per decision, counted from runs: the course's comparison table ("Mensajes por
//! decisión (régimen estable)": O(N) for Paxos with a stable leader and for Raft, O(N²) for
//! PBFT) measured instead of asserted.
//!
//! Each size is an ordinary scenario (written here as text and loaded like a file, so the same
//! checks apply) run on a healthy network with one correct leader: PBFT's normal case with one
//! client's requests, single-decree Paxos with one proposer, whose phase 2 is what a stable
//! Multi-Paxos leader pays per decision (phase 1 is paid once per leader), and Raft log
//! replication with one client's writes, heartbeats far apart so that none falls between them
//! (heartbeats are what an idle leader pays, per period, not per entry), and Multi-Paxos with a
//! distinguished leader and a batch of entries (phase 1 once, then phase 2 per entry). The sends of each
//! message kind are counted from the run's records; a run that does not decide everything it
//! was given is an error, not a row.

use crate::load::load;
use crate::run::build;
use protocols::multipaxos::MultiPaxos;
use protocols::paxos::{Paxos, PaxosNote};
use protocols::pbft::Pbft;
use protocols::raft::Raft;
use sim_core::{Actor, Event, Message, Protocol, Record, TraceMode};
use std::collections::BTreeMap;

/// The sends of one run, by message kind, and how many decisions they bought.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Cost {
    /// Nodes taking part in each decision (PBFT replicas, Paxos acceptors).
    pub n: usize,
    /// Faults tolerated: PBFT's Byzantine f = (N - 1) / 3, Paxos's crashes f = (N - 1) / 2.
    pub f: usize,
    /// Decisions made: requests committed at every replica, or the one chosen value.
    pub decisions: u64,
    /// Messages sent of each kind in the whole run.
    pub sent: BTreeMap<&'static str, u64>,
}

impl Cost {
    /// Messages of `kinds` sent per decision.
    pub fn per_decision(&self, kinds: &[&str]) -> f64 {
        let total: u64 = kinds
            .iter()
            .map(|k| self.sent.get(k).copied().unwrap_or(0))
            .sum();
        total as f64 / self.decisions.max(1) as f64
    }
}

/// PBFT's agreement messages: what every request costs in the normal case.
pub const PBFT_AGREEMENT: &[&str] = &["PrePrepare", "Prepare", "Commit"];
/// The rest of PBFT's normal case: the client's request and replies, and checkpoints.
pub const PBFT_OTHER: &[&str] = &["Request", "Reply", "Checkpoint"];
/// Paxos's phase 2: what a stable leader pays per decision.
pub const PAXOS_PHASE_2: &[&str] = &["Accept", "Accepted"];
/// Paxos's phase 1: paid once per leader.
pub const PAXOS_PHASE_1: &[&str] = &["Prepare", "Promise"];
/// Multi-Paxos's phase 2: what each entry costs a stable leader.
pub const MULTIPAXOS_PHASE_2: &[&str] = &["Accept", "Accepted"];
/// Multi-Paxos's phase 1: paid once per leader, for every slot at once.
pub const MULTIPAXOS_PHASE_1: &[&str] = &["Prepare", "Promise"];
/// Raft's replication: AppendEntries carrying entries and the replies to them (counted apart
/// from heartbeats, which carry none).
pub const RAFT_REPLICATION: &[&str] = &["AppendEntries with entries", "their replies"];

/// The largest N a table may ask for (PBFT's limit of 64 nodes, with one client).
pub const MAX_N: usize = 63;
/// The most requests a PBFT row may send.
pub const MAX_REQUESTS: u64 = 1000;

/// A finished run: the simulation, its records, and its sends by kind.
type Counted<A> = (
    sim_core::Sim<A>,
    Vec<Record<A>>,
    BTreeMap<&'static str, u64>,
);

/// Runs `source` (a scenario of protocol `P`) at seed 0 and counts its sends by kind.
fn count_sends<P: Protocol>(name: &str, source: &str) -> Result<Counted<P::Actor>, String> {
    let prep = load::<P>(name, source).map_err(|problems| {
        problems
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let mut sim = build(&prep, 0);
    sim.set_trace(TraceMode::Memory(Vec::new()));
    let report = sim.run();
    if let Some(v) = report.violations.first() {
        return Err(format!("{name}: {} broke: {}", v.invariant, v.message));
    }
    let mut sent = BTreeMap::new();
    for kind in <P::Actor as Actor>::Msg::KINDS {
        sent.insert(*kind, 0);
    }
    let records = sim.take_records();
    for record in &records {
        if let Event::Send { msg, .. } = &record.event {
            *sent.entry(msg.kind()).or_insert(0) += 1;
        }
    }
    Ok((sim, records, sent))
}

fn quoted(names: impl Iterator<Item = String>) -> String {
    names
        .map(|n| format!("\"{n}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// PBFT with `n` replicas (f = (n - 1) / 3) and one client sending `requests` puts in a row.
pub fn pbft(n: usize, requests: u64) -> Result<Cost, String> {
    if !(4..=MAX_N).contains(&n) {
        return Err(format!(
            "PBFT needs 4 to {MAX_N} replicas (N >= 3f + 1 with f >= 1), not {n}"
        ));
    }
    if !(1..=MAX_REQUESTS).contains(&requests) {
        return Err(format!("1 to {MAX_REQUESTS} requests, not {requests}"));
    }
    let f = (n - 1) / 3;
    let steps: String = (0..requests)
        .map(|i| format!("At(0, Command(\"c1\", Put(\"k{i}\", \"{i}\"))), "))
        .collect();
    let source = format!(
        "Scenario(description: \"cost: PBFT N={n}\", protocol: \"pbft\", \
         config: (replicas: [{}], clients: [\"c1\"], f: {f}), \
         network: (latency: Fixed(1)), timeline: [{steps}], stop: (max_time_ms: 600000))",
        quoted((0..n).map(|i| format!("r{i}")))
    );
    let name = format!("pbft N={n}");
    let (sim, _, sent) = count_sends::<Pbft>(&name, &source)?;
    let behind: Vec<String> = sim
        .node_ids()
        .filter_map(|id| {
            let replica = sim.actor(id).replica()?;
            (replica.executed() != requests)
                .then(|| format!("{} executed {}", sim.name(id), replica.executed()))
        })
        .collect();
    if !behind.is_empty() {
        return Err(format!(
            "{name}: not every request committed everywhere ({})",
            behind.join(", ")
        ));
    }
    Ok(Cost {
        n,
        f,
        decisions: requests,
        sent,
    })
}

/// Single-decree Paxos with `n` acceptors (f = (n - 1) / 2) and one proposer.
pub fn paxos(n: usize) -> Result<Cost, String> {
    if !(1..=MAX_N).contains(&n) {
        return Err(format!("Paxos needs 1 to {MAX_N} acceptors, not {n}"));
    }
    let source = format!(
        "Scenario(description: \"cost: Paxos N={n}\", protocol: \"paxos\", \
         config: (proposers: [\"p1\"], acceptors: [{}]), network: (latency: Fixed(1)), \
         timeline: [At(0, Command(\"p1\", Propose))], stop: (max_time_ms: 600000))",
        quoted((1..=n).map(|i| format!("a{i}")))
    );
    let name = format!("paxos N={n}");
    let (_, records, sent) = count_sends::<Paxos>(&name, &source)?;
    let chosen =
        sim_core::trace::notes(&records).any(|(_, _, n)| matches!(n, PaxosNote::Chosen { .. }));
    if !chosen {
        return Err(format!("{name}: nothing was chosen"));
    }
    Ok(Cost {
        n,
        f: (n - 1) / 2,
        decisions: 1,
        sent,
    })
}

/// Multi-Paxos with `n` replicas (f = (n - 1) / 2), n1 the distinguished leader, and
/// `entries` values given to the leader at once: phase 1 runs once, then each entry is one
/// phase 2.
pub fn multipaxos(n: usize, entries: u64) -> Result<Cost, String> {
    if !(1..=MAX_N).contains(&n) {
        return Err(format!("Multi-Paxos needs 1 to {MAX_N} replicas, not {n}"));
    }
    if !(1..=MAX_REQUESTS).contains(&entries) {
        return Err(format!("1 to {MAX_REQUESTS} entries, not {entries}"));
    }
    let steps: String = (0..entries)
        .map(|i| format!("At(10, Command(\"n1\", Submit(\"v{i}\"))), "))
        .collect();
    let source = format!(
        "Scenario(description: \"cost: Multi-Paxos N={n}\", protocol: \"multipaxos\", \
         config: (nodes: [{}], election: Fixed(\"n1\"), round_multiplier: 100), \
         network: (latency: Fixed(1)), timeline: [{steps}], stop: (max_time_ms: 200))",
        quoted((1..=n).map(|i| format!("n{i}")))
    );
    let name = format!("multipaxos N={n}");
    let (sim, _, sent) = count_sends::<MultiPaxos>(&name, &source)?;
    let behind: Vec<String> = sim
        .node_ids()
        .filter_map(|id| {
            let applied = sim.actor(id).replica()?.learner.applied;
            (applied != entries).then(|| format!("{} applied {applied}", sim.name(id)))
        })
        .collect();
    if !behind.is_empty() {
        return Err(format!(
            "{name}: not every entry applied everywhere ({})",
            behind.join(", ")
        ));
    }
    Ok(Cost {
        n,
        f: (n - 1) / 2,
        decisions: entries,
        sent,
    })
}

/// Raft log replication with `n` servers (f = (n - 1) / 2) and one client writing `writes`
/// times in a row through the leader.
pub fn raft(n: usize, writes: u64) -> Result<Cost, String> {
    if !(1..=MAX_N).contains(&n) {
        return Err(format!("Raft needs 1 to {MAX_N} servers, not {n}"));
    }
    if !(1..=MAX_REQUESTS).contains(&writes) {
        return Err(format!("1 to {MAX_REQUESTS} writes, not {writes}"));
    }
    let steps: String = (0..writes)
        .map(|i| format!("At(10, Command(\"c1\", Put(\"k{i}\", \"{i}\"))), "))
        .collect();
    let source = format!(
        "Scenario(description: \"cost: Raft N={n}\", protocol: \"raft\", \
         config: (nodes: [{}], clients: [\"c1\"], election_timeout_ms: (60000, 60000), \
         heartbeat_ms: 30000, first_deadline_ms: {{\"s1\": 1}}), \
         network: (latency: Fixed(1)), timeline: [{steps}], stop: (max_time_ms: 20000))",
        (1..=n)
            .map(|i| format!("(name: \"s{i}\")"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let name = format!("raft N={n}");
    let (_, records, _) = count_sends::<Raft>(&name, &source)?;
    let figures = protocols::raft::replication_measure::replication(&records);
    if figures.acknowledged != writes || figures.committed != writes {
        return Err(format!(
            "{name}: {} of {writes} writes committed and answered",
            figures.acknowledged
        ));
    }
    Ok(Cost {
        n,
        f: (n - 1) / 2,
        decisions: writes,
        sent: BTreeMap::from([
            (RAFT_REPLICATION[0], figures.appends),
            (RAFT_REPLICATION[1], figures.replies),
        ]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts are the protocols' own arithmetic: PBFT's primary pre-prepares to N - 1
    /// backups, each backup prepares to the N - 1 others, every replica commits to the N - 1
    /// others; Paxos's proposer sends N accepts and gets N accepted; Raft's leader sends each
    /// entry to N - 1 followers and gets N - 1 replies. So PBFT's agreement costs 2N (N - 1)
    /// messages a request, quadratic, Paxos's phase 2 2N and Raft's 2(N - 1), linear.
    #[test]
    fn counted_messages_follow_each_protocols_arithmetic() {
        for n in [4, 7, 10] {
            let cost = pbft(n, 4).unwrap();
            assert_eq!(cost.sent["PrePrepare"], 4 * (n as u64 - 1), "N={n}");
            assert_eq!(cost.sent["Prepare"], 4 * (n as u64 - 1).pow(2), "N={n}");
            assert_eq!(cost.sent["Commit"], 4 * n as u64 * (n as u64 - 1), "N={n}");
            let per = cost.per_decision(PBFT_AGREEMENT);
            assert_eq!(per, (2 * n * (n - 1)) as f64, "N={n}");
            let paxos = paxos(n).unwrap();
            assert_eq!(paxos.per_decision(PAXOS_PHASE_2), 2.0 * n as f64, "N={n}");
            assert_eq!(paxos.per_decision(PAXOS_PHASE_1), 2.0 * n as f64, "N={n}");
            let raft = raft(n, 4).unwrap();
            assert_eq!(
                raft.per_decision(RAFT_REPLICATION),
                2.0 * (n - 1) as f64,
                "N={n}"
            );
        }
        // Multi-Paxos: the leader votes itself and asks the N - 1 others, once for phase 1
        // and once per entry for phase 2: 2(N - 1) each, Raft's count.
        for n in [3, 5, 7] {
            let multi = multipaxos(n, 4).unwrap();
            let expected = 2.0 * (n - 1) as f64;
            assert_eq!(multi.per_decision(MULTIPAXOS_PHASE_2), expected, "N={n}");
            assert_eq!(
                multi.sent["Prepare"] + multi.sent["Promise"],
                2 * (n as u64 - 1),
                "N={n}"
            );
        }
        assert!(multipaxos(0, 1).is_err());
        assert!(raft(0, 1).is_err());
        assert!(pbft(3, 1).is_err());
        assert!(pbft(4, 0).is_err());
        assert!(paxos(0).is_err());
    }
}
