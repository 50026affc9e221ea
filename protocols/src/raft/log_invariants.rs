//! The log properties of the paper's Figure 3, checked from trace records alone: leader
//! append-only, log matching, leader completeness and state machine safety.
//!
//! Every checker rebuilds the servers' logs from the notes ([`Logs`]: the entries a node
//! starts with, each entry a leader appends, each change an AppendEntries makes), so `dsim
//! check` re-runs them on a trace file. Election safety is in [`crate::raft::invariants`].

use crate::common::broke;
use crate::raft::log::Entry;
use crate::raft::node::RaftNode;
use crate::raft::notes::RaftNote;
use sim_core::check::hash_memory;
use sim_core::{Broken, Name, NodeName};
use sim_core::{Event, Fault, Invariant, Kinds, Record};
use std::collections::BTreeMap;
use std::hash::Hasher;

/// The four log invariants.
pub fn all() -> Vec<Box<dyn Invariant<RaftNode>>> {
    vec![
        Box::new(LeaderAppendOnly::default()),
        Box::new(LogMatching::default()),
        Box::new(LeaderCompleteness::default()),
        Box::new(StateMachineSafety::default()),
    ]
}

/// Every server's log as the records tell it, and which servers lead (and which term).
#[derive(Clone, Debug, Default)]
pub struct Logs {
    logs: BTreeMap<NodeName, Vec<Entry>>,
    pub(crate) leading: BTreeMap<NodeName, u64>,
}

impl std::hash::Hash for Logs {
    /// By node name, as sets (see `sim_core::symmetry::AsSet`).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        sim_core::symmetry::AsSet(&self.logs).hash(state);
        sim_core::symmetry::AsSet(&self.leading).hash(state);
    }
}

/// What a record did to the logs.
pub(crate) enum Change<'a> {
    /// `node`'s log changed; `dropped` entries were deleted from it first.
    Log { node: &'a Name, dropped: u64 },
    /// `node` became leader of `term`.
    Leader { node: &'a Name, term: u64 },
    /// Nothing the logs show.
    None,
}

impl Logs {
    /// The log of `node` (empty if unknown).
    pub fn of(&self, node: &str) -> &[Entry] {
        self.logs.get(node).map_or(&[], Vec::as_slice)
    }

    /// The term `node` leads, if it leads.
    pub fn leads(&self, node: &str) -> Option<u64> {
        self.leading.get(node).copied()
    }

    pub(crate) fn observe<'a>(&mut self, record: &'a Record<RaftNode>) -> Change<'a> {
        match &record.event {
            Event::Note { node, note } => match note {
                RaftNote::Entries { terms } => {
                    let log = terms.iter().map(|&t| Entry::given(t)).collect();
                    self.logs.insert(NodeName::from(node), log);
                    Change::Log { node, dropped: 0 }
                }
                RaftNote::Appended { index, entry } => {
                    let log = self.logs.entry(NodeName::from(node)).or_default();
                    log.truncate(index.saturating_sub(1) as usize);
                    log.push(entry.clone());
                    Change::Log { node, dropped: 0 }
                }
                RaftNote::Stored {
                    kept,
                    dropped,
                    entries,
                    ..
                } => {
                    let log = self.logs.entry(NodeName::from(node)).or_default();
                    log.truncate(*kept as usize);
                    log.extend(entries.iter().cloned());
                    Change::Log {
                        node,
                        dropped: *dropped,
                    }
                }
                RaftNote::BecameLeader { term, .. } => {
                    self.leading.insert(NodeName::from(node), *term);
                    Change::Leader { node, term: *term }
                }
                RaftNote::SteppedDown { .. } | RaftNote::Started { .. } => {
                    self.leading.remove(&**node);
                    Change::None
                }
                _ => Change::None,
            },
            Event::Fault {
                fault: Fault::Crash(node),
            } => {
                self.leading.remove(&**node);
                Change::None
            }
            _ => Change::None,
        }
    }
}

/// Leader append-only (§5.3): "a leader never overwrites or deletes entries in its log; it
/// only appends new entries".
#[derive(Clone, Debug, Default)]
pub struct LeaderAppendOnly {
    logs: Logs,
}

impl Invariant<RaftNode> for LeaderAppendOnly {
    fn name(&self) -> &'static str {
        "leader-append-only"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&self.logs, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE.or(Kinds::FAULT)
    }
    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        match self.logs.observe(record) {
            Change::Log { node, dropped } if dropped > 0 => match self.logs.leads(node) {
                Some(term) => {
                    let kept = self.logs.of(node).len() as u64;
                    Err(broke(
                        format!(
                            "{node}, leader of term {term}, deleted {dropped} entries of its own \
                             log after index {kept}"
                        ),
                        format!(
                            "{node}, líder del término {term}, borró {dropped} entradas de su \
                             propio log después del índice {kept}"
                        ),
                    ))
                }
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

/// Log matching (§5.3): "if two logs contain an entry with the same index and term, then the
/// logs are identical in all entries up through the given index".
#[derive(Clone, Debug, Default)]
pub struct LogMatching {
    logs: Logs,
}

impl Invariant<RaftNode> for LogMatching {
    fn name(&self) -> &'static str {
        "log-matching"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&self.logs, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE.or(Kinds::FAULT)
    }
    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        let Change::Log { node, .. } = self.logs.observe(record) else {
            return Ok(());
        };
        let mine = self.logs.of(node);
        for (other, theirs) in &self.logs.logs {
            if other == node {
                continue;
            }
            if let Some(message) = mismatch(node, mine, other, theirs) {
                return Err(message);
            }
        }
        Ok(())
    }
}

/// Where two logs break log matching: the highest index with the same term whose prefixes
/// differ.
fn mismatch(a: &str, la: &[Entry], b: &str, lb: &[Entry]) -> Option<Broken> {
    let shared = la.len().min(lb.len());
    let same = (0..shared).rev().find(|&k| la[k].term == lb[k].term)?;
    let differ = (0..=same).find(|&k| la[k] != lb[k])?;
    let (term, at, differ_at) = (la[same].term, same + 1, differ + 1);
    let (ea, eb) = (&la[differ], &lb[differ]);
    Some(broke(
        format!(
            "{a} and {b} both hold an entry of term {term} at index {at}, but their logs differ \
             at index {differ_at}: {ea} in {a}, {eb} in {b}"
        ),
        format!(
            "{a} y {b} tienen una entrada del término {term} en el índice {at}, pero sus logs \
             difieren en el índice {differ_at}: {ea} en {a}, {eb} en {b}"
        ),
    ))
}

/// Leader completeness (§5.4): "if a log entry is committed in a given term, then that entry
/// will be present in the logs of the leaders for all higher-numbered terms".
#[derive(Clone, Debug, Default)]
pub struct LeaderCompleteness {
    logs: Logs,
    /// Index -> (the entry committed there, the term it was committed in).
    committed: BTreeMap<u64, (Entry, u64)>,
}

impl Invariant<RaftNode> for LeaderCompleteness {
    fn name(&self) -> &'static str {
        "leader-completeness"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&(&self.logs, &self.committed), state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE.or(Kinds::FAULT)
    }
    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        if let Event::Note {
            node,
            note: RaftNote::Committed { index, term, .. },
        } = &record.event
        {
            let mut newly = Vec::new();
            for (i, entry) in (1..=*index).zip(self.logs.of(node)) {
                if let std::collections::btree_map::Entry::Vacant(slot) = self.committed.entry(i) {
                    slot.insert((entry.clone(), *term));
                    newly.push(i);
                }
            }
            // A leader of a higher term already in office must hold what is committed now.
            let leaders: Vec<(NodeName, u64)> = self
                .logs
                .leading
                .iter()
                .filter(|(_, t)| **t > *term)
                .map(|(n, t)| (n.clone(), *t))
                .collect();
            for (leader, leads) in leaders {
                self.holds_committed(&leader, leads, &newly)?;
            }
        }
        let Change::Leader { node, term } = self.logs.observe(record) else {
            return Ok(());
        };
        let all: Vec<u64> = self.committed.keys().copied().collect();
        self.holds_committed(node, term, &all)
    }
}

impl LeaderCompleteness {
    /// Whether `node`, leader of `term`, holds the committed entries at `indexes` that were
    /// committed in a lower term.
    fn holds_committed(&self, node: &str, term: u64, indexes: &[u64]) -> Result<(), Broken> {
        let log = self.logs.of(node);
        for index in indexes {
            let Some((entry, in_term)) = self.committed.get(index) else {
                continue;
            };
            let at = usize::try_from(index - 1).ok().and_then(|i| log.get(i));
            if *in_term < term && at != Some(entry) {
                let has = at.map_or_else(|| "nothing".to_string(), |e| e.to_string());
                let tiene = at.map_or_else(|| "nada".to_string(), |e| e.to_string());
                return Err(broke(
                    format!(
                        "{node}, leader of term {term}, lacks entry {index} ({entry}), committed in \
                         term {in_term}: its log has {has} there"
                    ),
                    format!(
                        "a {node}, líder del término {term}, le falta la entrada {index} ({entry}), \
                         confirmada en el término {in_term}: su log tiene ahí {tiene}"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// State machine safety (§5.4.3): "if a server has applied a log entry at a given index to
/// its state machine, no other server will ever apply a different log entry for the same
/// index".
#[derive(Clone, Debug, Default)]
pub struct StateMachineSafety {
    /// Index -> (the entry first applied there, by whom).
    applied: BTreeMap<u64, (Entry, NodeName)>,
}

impl Invariant<RaftNode> for StateMachineSafety {
    fn name(&self) -> &'static str {
        "state-machine-safety"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&self.applied, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        let Event::Note {
            node,
            note: RaftNote::Applied { first, entries },
        } = &record.event
        else {
            return Ok(());
        };
        for (index, entry) in (*first..).zip(entries) {
            match self.applied.get(&index) {
                Some((earlier, by)) if earlier != entry => {
                    return Err(broke(
                        format!(
                            "{node} applied {entry} at index {index}, but {by} applied {earlier} there"
                        ),
                        format!(
                            "{node} aplicó {entry} en el índice {index}, pero {by} aplicó ahí {earlier}"
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    self.applied
                        .insert(index, (entry.clone(), NodeName::from(node)));
                }
            }
        }
        Ok(())
    }
}
