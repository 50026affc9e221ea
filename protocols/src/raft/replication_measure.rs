//! A run's replication figures, read from records like the invariants: how long a client
//! waits for its answer, how many replication messages each committed entry costs (2(N-1) in
//! the steady state: one AppendEntries and one reply per follower), and how many committed
//! entries were later overwritten (0 for correct Raft).

use crate::raft::log::Entry;
use crate::raft::log_invariants::Logs;
use crate::raft::{RaftMsg, RaftNode, RaftNote};
use sim_core::{Event, Instant, Record};
use std::collections::{BTreeMap, BTreeSet};
use traces::{Lang, Measure};

/// The replication figures of a run (all zero when no client wrote).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replication {
    /// Writes clients sent.
    pub requested: u64,
    /// Writes acknowledged.
    pub acknowledged: u64,
    /// Total time from each acknowledged write's request to its answer, in ns.
    pub waited_ns: u64,
    /// AppendEntries carrying entries, and the replies to them (`appends + replies`).
    pub messages: u64,
    /// AppendEntries carrying entries.
    pub appends: u64,
    /// Replies to them.
    pub replies: u64,
    /// Client entries committed (each index once, with what was first committed there).
    pub committed: u64,
    /// Committed entries later deleted from a log and replaced by a different one.
    pub committed_lost: u64,
}

impl Replication {
    /// Mean time from request to answer, in ns.
    pub fn mean_wait_ns(&self) -> Option<u64> {
        self.waited_ns.checked_div(self.acknowledged)
    }
    /// Replication messages per committed entry, rounded.
    pub fn messages_per_entry(&self) -> Option<u64> {
        (self.committed > 0).then(|| (self.messages + self.committed / 2) / self.committed)
    }
}

/// Reads a run's replication figures from its records.
pub fn replication(records: &[Record<RaftNode>]) -> Replication {
    let mut f = Replication::default();
    let mut logs = Logs::default();
    let mut asked: BTreeMap<(&str, u64), Instant> = BTreeMap::new();
    // Message ids of AppendEntries carrying entries, and (node, step) of their deliveries.
    let mut carrying: BTreeSet<u64> = BTreeSet::new();
    let mut answering: Option<(&str, u64)> = None;
    let mut committed: BTreeMap<u64, Entry> = BTreeMap::new();
    let mut lost: BTreeSet<u64> = BTreeSet::new();
    for r in records {
        let before: Option<(String, Vec<Entry>)> = match &r.event {
            Event::Note {
                node,
                note: RaftNote::Stored { .. },
            } => Some((node.to_string(), logs.of(node).to_vec())),
            _ => None,
        };
        logs.observe(r);
        match &r.event {
            Event::Send { id, msg, from, .. } => match msg {
                RaftMsg::AppendEntries { entries, .. } if !entries.is_empty() => {
                    carrying.insert(id.0);
                    f.appends += 1;
                    f.messages += 1;
                }
                RaftMsg::AppendEntriesReply { .. } if answering == Some((from, r.step)) => {
                    f.replies += 1;
                    f.messages += 1;
                }
                _ => {}
            },
            Event::Deliver { id, to, .. } if carrying.contains(&id.0) => {
                answering = Some((to, r.step));
            }
            Event::Note { node, note } => match note {
                RaftNote::Requested { seq, .. } => {
                    f.requested += 1;
                    asked.insert((node, *seq), r.time);
                }
                RaftNote::Acknowledged { seq, .. } => {
                    if let Some(at) = asked.remove(&(&**node, *seq)) {
                        f.acknowledged += 1;
                        f.waited_ns += r.time.saturating_since(at).as_nanos();
                    }
                }
                RaftNote::Committed { index, .. } => {
                    for (i, entry) in (1..=*index).zip(logs.of(node)) {
                        committed.entry(i).or_insert_with(|| entry.clone());
                    }
                }
                RaftNote::Stored { kept, dropped, .. } if *dropped > 0 => {
                    let (_, old) = before.expect("taken above for Stored");
                    let now = logs.of(node);
                    for i in
                        kept.saturating_add(1)..=kept.saturating_add(*dropped).min(old.len() as u64)
                    {
                        let was = old.get(i as usize - 1);
                        let is = now.get(i as usize - 1);
                        if committed
                            .get(&i)
                            .is_some_and(|c| Some(c) == was && was != is)
                        {
                            lost.insert(i);
                        }
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    f.committed = committed.values().filter(|e| e.write.is_some()).count() as u64;
    f.committed_lost = lost.len() as u64;
    f
}

/// The figures a sweep aggregates, when clients wrote (none otherwise).
pub fn measures(records: &[Record<RaftNode>]) -> Vec<Measure> {
    let f = replication(records);
    if f.requested == 0 {
        return Vec::new();
    }
    vec![
        Measure::nanos("request_to_answer", f.mean_wait_ns()),
        Measure::count("messages_per_entry", f.messages_per_entry()),
        Measure::count("committed_lost", Some(f.committed_lost)),
    ]
}

/// The story's closing line on replication, when clients wrote.
pub fn summary(records: &[Record<RaftNode>], lang: Lang) -> Vec<String> {
    let f = replication(records);
    if f.requested == 0 {
        return Vec::new();
    }
    let es = lang == Lang::Es;
    let wait = f
        .mean_wait_ns()
        .map(|ns| sim_core::Duration(ns).to_string());
    let per = f.messages_per_entry();
    let mut out = vec![match (es, wait) {
        (false, Some(w)) => format!(
            "{} of {} writes answered, after {w} on average",
            f.acknowledged, f.requested
        ),
        (false, None) => format!("none of {} writes answered", f.requested),
        (true, Some(w)) => format!(
            "{} de {} escrituras respondidas, tras {w} de media",
            f.acknowledged, f.requested
        ),
        (true, None) => format!("ninguna de {} escrituras respondida", f.requested),
    }];
    if let Some(per) = per {
        out.push(if es {
            format!(
                "{per} mensajes de replicación por entrada confirmada ({} mensajes, {} entradas)",
                f.messages, f.committed
            )
        } else {
            format!(
                "{per} replication messages per committed entry ({} messages, {} {})",
                f.messages,
                f.committed,
                if f.committed == 1 { "entry" } else { "entries" }
            )
        });
    }
    out.push(match (f.committed_lost, es) {
        (0, false) => "no committed entry was lost".to_string(),
        (0, true) => "ninguna entrada confirmada se perdió".to_string(),
        (1, false) => "1 committed entry was overwritten (lost)".to_string(),
        (n, false) => format!("{n} committed entries were overwritten (lost)"),
        (1, true) => "1 entrada confirmada se sobreescribió (perdida)".to_string(),
        (n, true) => format!("{n} entradas confirmadas se sobreescribieron (perdidas)"),
    });
    out
}
