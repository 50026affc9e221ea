//! The properties every Raft election run must keep, checked from trace records alone.
//!
//! Each checker reads the notes of [`crate::raft::notes`] (and, for the term rule, the terms of
//! the messages in `send` records), so `dsim check` re-runs them on a trace file. Safety:
//! election safety (at most one leader per term), one vote per term, terms never decrease, a
//! higher term is always adopted, a leader's log is at least as up to date as a majority's.
//! Liveness, when the scenario gives a bound: a leader is in office soon after faults stop.

use crate::common::broke;
use crate::raft::log::LastEntry;
use crate::raft::log_invariants::{Change, Logs};
use crate::raft::node::RaftNode;
use crate::raft::notes::RaftNote;
use sim_core::check::hash_memory;
use sim_core::symmetry::AsSet;
use sim_core::{Broken, Name, NodeName};
use sim_core::{Duration, Event, Fault, Instant, Invariant, Kinds, Record};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::hash::Hasher;

/// Every invariant of a Raft run; the liveness bound only when given.
pub fn all(elect_within_ms: Option<u64>) -> Vec<Box<dyn Invariant<RaftNode>>> {
    let mut invariants: Vec<Box<dyn Invariant<RaftNode>>> = vec![
        Box::new(AtMostOneLeaderPerTerm::default()),
        Box::new(OneVotePerTerm::default()),
        Box::new(TermsNeverDecrease::default()),
        Box::new(AdoptHigherTerm::default()),
        Box::new(LeaderLogUpToDate::default()),
    ];
    if let Some(ms) = elect_within_ms {
        invariants.push(Box::new(LeaderWithin::new(Duration::from_millis(ms))));
    }
    invariants
}

fn note(record: &Record<RaftNode>) -> Option<(&Name, &RaftNote)> {
    match &record.event {
        Event::Note { node, note } => Some((node, note)),
        _ => None,
    }
}

/// Election safety (§5.2): at most one leader can be elected in a given term.
#[derive(Clone, Debug, Default)]
pub struct AtMostOneLeaderPerTerm {
    leaders: BTreeMap<u64, NodeName>,
}

impl Invariant<RaftNode> for AtMostOneLeaderPerTerm {
    fn name(&self) -> &'static str {
        "at-most-one-leader-per-term"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&self.leaders, state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        if let Some((node, RaftNote::BecameLeader { term, .. })) = note(record) {
            if let Some(first) = self.leaders.get(term).filter(|first| *first != node) {
                return Err(broke(
                    format!(
                        "split brain: {node} became leader of term {term}, which {first} already leads"
                    ),
                    format!(
                        "cerebro dividido: {node} es líder del término {term}, que ya lidera {first}"
                    ),
                ));
            }
            self.leaders.insert(*term, NodeName::from(node));
        }
        Ok(())
    }
}

/// One vote per term: a server votes for at most one candidate in a term (itself included,
/// when it stands).
#[derive(Clone, Debug, Default)]
pub struct OneVotePerTerm {
    votes: BTreeMap<(NodeName, u64), NodeName>,
}

impl Invariant<RaftNode> for OneVotePerTerm {
    fn name(&self) -> &'static str {
        "one-vote-per-term"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&AsSet(&self.votes), state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        let (node, term, candidate) = match note(record) {
            Some((node, RaftNote::BecameCandidate { term })) => (node, *term, node.as_str()),
            Some((node, RaftNote::VoteGranted { term, candidate })) => (node, *term, &**candidate),
            _ => return Ok(()),
        };
        let key = (NodeName::from(node), term);
        match self.votes.get(&key) {
            Some(first) if first != candidate => Err(broke(
                format!("{node} voted twice in term {term}: for {first}, then for {candidate}"),
                format!(
                    "{node} votó dos veces en el término {term}: a {first} y después a {candidate}"
                ),
            )),
            _ => {
                self.votes.insert(key, NodeName::from(candidate));
                Ok(())
            }
        }
    }
}

/// currentTerm never decreases on a node, not even across a crash (it is durable).
#[derive(Clone, Debug, Default)]
pub struct TermsNeverDecrease {
    terms: BTreeMap<NodeName, u64>,
}

impl Invariant<RaftNode> for TermsNeverDecrease {
    fn name(&self) -> &'static str {
        "terms-never-decrease"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&AsSet(&self.terms), state);
    }
    fn reads(&self) -> Kinds {
        Kinds::NOTE
    }
    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        let Some((node, note)) = note(record) else {
            return Ok(());
        };
        let known = self.terms.get(node.as_str()).copied().unwrap_or(0);
        let (from, to) = match *note {
            RaftNote::Started { current_term, .. } => (current_term, current_term),
            RaftNote::TermChanged { from, to } => (from, to),
            _ => return Ok(()),
        };
        self.terms.insert(NodeName::from(node), to.max(known));
        if from < known {
            Err(broke(
                format!(
                    "{node} is at term {from}, but it had reached term {known} (currentTerm must \
                     survive restarts and only grow)"
                ),
                format!(
                    "{node} está en el término {from}, pero ya había llegado al término {known} \
                     (currentTerm debe sobrevivir a los reinicios y solo crecer)"
                ),
            ))
        } else if to < from {
            Err(broke(
                format!("{node} went back from term {from} to term {to}"),
                format!("{node} retrocedió del término {from} al término {to}"),
            ))
        } else {
            Ok(())
        }
    }
}

/// "If RPC request or response contains term T > currentTerm: set currentTerm = T, convert to
/// follower": a node handed a message of a higher term must adopt it in the same step.
#[derive(Clone, Debug, Default)]
pub struct AdoptHigherTerm {
    /// (message id, term it carries, deliveries still to come), in id order: sends come in id
    /// order, so a send appends, and a search copies a flat list.
    in_flight: Vec<(u64, u64, u32)>,
    terms: BTreeMap<NodeName, u64>,
    /// A node that must adopt a term in this step: (node, step, term, kind, sender).
    pending: Option<(NodeName, u64, u64, Cow<'static, str>, NodeName)>,
}

impl Invariant<RaftNode> for AdoptHigherTerm {
    fn name(&self) -> &'static str {
        "adopt-higher-term"
    }
    /// The terms known and the adoption still owed, by whom and of what, not by which step or
    /// message id (names, not facts: two runs reaching one state number them differently).
    /// The terms of the messages in flight are the messages' own, which the state holds.
    fn memory(&self, state: &mut dyn Hasher) {
        let pending = self
            .pending
            .as_ref()
            .map(|(node, _, term, kind, from)| (node, term, kind, from));
        hash_memory(&(AsSet(&self.terms), pending), state);
    }
    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        // An adoption owed by a step that is over: a violation, told once this record is read
        // (with the term the node kept as of that step).
        let overdue = match &self.pending {
            Some((node, step, ..)) if record.step != *step => {
                let kept = self.terms.get(node).copied().unwrap_or(0);
                self.pending.take().map(|owed| (owed, kept))
            }
            _ => None,
        };
        match &record.event {
            Event::Send { id, msg, .. } => {
                let entry = (id.0, msg.term(), 1);
                match self.in_flight.last() {
                    Some(last) if last.0 >= id.0 => match self.find(id.0) {
                        Ok(at) => self.in_flight[at] = entry,
                        Err(at) => self.in_flight.insert(at, entry),
                    },
                    _ => self.in_flight.push(entry),
                }
            }
            Event::Duplicate { id, .. } => {
                if let Ok(at) = self.find(id.0) {
                    self.in_flight[at].2 += 1;
                }
            }
            Event::Drop { id, .. } => self.arrived(id.0),
            Event::Deliver {
                id,
                from,
                to,
                msg_kind,
                ..
            } => {
                let term = self.find(id.0).ok().map(|at| self.in_flight[at].1);
                self.arrived(id.0);
                let known = self.terms.get(&**to).copied().unwrap_or(0);
                if let Some(term) = term.filter(|&t| t > known) {
                    self.pending = Some((
                        NodeName::from(to),
                        record.step,
                        term,
                        msg_kind.clone(),
                        NodeName::from(from),
                    ));
                }
            }
            Event::Note { node, note } => {
                let to = match *note {
                    RaftNote::Started { current_term, .. } => Some(current_term),
                    RaftNote::TermChanged { to, .. } => Some(to),
                    _ => None,
                };
                if let Some(to) = to {
                    self.terms.insert(NodeName::from(node), to);
                    if self
                        .pending
                        .as_ref()
                        .is_some_and(|p| *p.0 == **node && to >= p.2)
                    {
                        self.pending = None;
                    }
                }
            }
            _ => {}
        }
        match overdue {
            Some(((node, _, term, kind, from), kept)) => Err(broke(
                format!(
                    "{node} received {kind} of term {term} from {from} and kept its term {kept}"
                ),
                format!(
                    "{node} recibió {kind} del término {term} de {from} y se quedó en su término {kept}"
                ),
            )),
            None => Ok(()),
        }
    }
    fn finish(&mut self, _end: Instant) -> Result<(), Broken> {
        match self.pending.take() {
            Some((node, _, term, kind, from)) => Err(broke(
                format!(
                    "{node} received {kind} of term {term} from {from} and kept its lower term"
                ),
                format!(
                    "{node} recibió {kind} del término {term} de {from} y se quedó en su término menor"
                ),
            )),
            None => Ok(()),
        }
    }
}

impl AdoptHigherTerm {
    /// Where message `id` is in `in_flight` (or would go).
    fn find(&self, id: u64) -> Result<usize, usize> {
        self.in_flight.binary_search_by_key(&id, |e| e.0)
    }

    fn arrived(&mut self, id: u64) {
        if let Ok(at) = self.find(id) {
            let copies = &mut self.in_flight[at].2;
            *copies = copies.saturating_sub(1);
            if *copies == 0 {
                self.in_flight.remove(at);
            }
        }
    }
}

/// No stale leader: a leader's log is at least as up to date as the logs of a majority of the
/// cluster (itself included), judged from the `Log` notes every node publishes at start and,
/// with replication, from every change to a log since (its voters' logs cannot have moved
/// ahead of it between their votes and its election: only a leader of that term could write
/// to them).
#[derive(Clone, Debug, Default)]
pub struct LeaderLogUpToDate {
    logs: BTreeMap<NodeName, LastEntry>,
    entries: Logs,
}

impl Invariant<RaftNode> for LeaderLogUpToDate {
    fn name(&self) -> &'static str {
        "leader-log-up-to-date"
    }
    /// Each node's last entry and the logs, by node name.
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(&(AsSet(&self.logs), &self.entries), state);
    }
    /// Notes, and faults: the log ledger forgets who leads when that leader crashes.
    fn reads(&self) -> Kinds {
        Kinds::NOTE.or(Kinds::FAULT)
    }
    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        if let Change::Log { node, .. } = self.entries.observe(record) {
            let log = self.entries.of(node);
            let last = LastEntry {
                term: log.last().map_or(0, |e| e.term),
                index: log.len() as u64,
            };
            self.logs.insert(NodeName::from(node), last);
        }
        match note(record) {
            Some((
                node,
                RaftNote::Log {
                    last_term,
                    last_index,
                },
            )) => {
                let last = LastEntry {
                    term: *last_term,
                    index: *last_index,
                };
                self.logs.insert(NodeName::from(node), last);
                Ok(())
            }
            Some((node, RaftNote::BecameLeader { term, last_log, .. })) => {
                let covered = self
                    .logs
                    .values()
                    .filter(|log| last_log.is_at_least_as_up_to_date_as(**log))
                    .count();
                let majority = self.logs.len() / 2 + 1;
                if covered >= majority {
                    return Ok(());
                }
                let ahead: Vec<String> = self
                    .logs
                    .iter()
                    .filter(|(_, log)| !last_log.is_at_least_as_up_to_date_as(**log))
                    .map(|(name, log)| format!("{name} {log}"))
                    .collect();
                Err(broke(
                    format!(
                        "{node} leads term {term} with log {last_log}, behind {}: only {covered} of \
                         {} logs are not ahead of it, a majority needs {majority}",
                        ahead.join(", "),
                        self.logs.len()
                    ),
                    format!(
                        "{node} lidera el término {term} con el log {last_log}, por detrás de {}: \
                         solo {covered} de {} logs no le van por delante, y una mayoría necesita {majority}",
                        ahead.join(", "),
                        self.logs.len()
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// Liveness with a bound: after the last fault (crash, restart, pause, resume, partition, heal,
/// rule or link change; or the start), a live leader of the highest term seen must be in office
/// within `bound`. Measured from each fault, so every quiet window longer than the bound counts.
#[derive(Clone, Debug)]
pub struct LeaderWithin {
    bound: Duration,
    /// Leaders in office (not stepped down, crashed or paused), with their term.
    leaders: BTreeMap<NodeName, u64>,
    /// Leaders paused while in office: back in office when resumed (if nothing deposed them).
    paused: BTreeMap<NodeName, u64>,
    max_term: u64,
    /// When the current window started; `None` once a leader was seen in it.
    since: Option<Instant>,
}

impl LeaderWithin {
    /// A check that a leader is in office within `bound` of the last fault.
    pub fn new(bound: Duration) -> LeaderWithin {
        LeaderWithin {
            bound,
            leaders: BTreeMap::new(),
            paused: BTreeMap::new(),
            max_term: 0,
            since: Some(Instant::ZERO),
        }
    }

    fn has_leader(&self) -> bool {
        self.leaders.values().any(|&t| t == self.max_term)
    }

    fn late(&mut self, now: Instant) -> Result<(), Broken> {
        match self.since {
            Some(since) if now > since + self.bound && !self.has_leader() => {
                self.since = None; // Report a window once.
                Err(broke(
                    format!(
                        "no leader of term {} in office {} after the last fault at {since}",
                        self.max_term, self.bound
                    ),
                    format!(
                        "ningún líder del término {} en el cargo {} después del último fallo, a los {since}",
                        self.max_term, self.bound
                    ),
                ))
            }
            _ => Ok(()),
        }
    }
}

impl Invariant<RaftNode> for LeaderWithin {
    fn name(&self) -> &'static str {
        "leader-elected-within-bound"
    }
    fn memory(&self, state: &mut dyn Hasher) {
        hash_memory(
            &(
                AsSet(&self.leaders),
                AsSet(&self.paused),
                self.max_term,
                self.since,
            ),
            state,
        );
    }
    fn observe(&mut self, record: &Record<RaftNode>) -> Result<(), Broken> {
        let result = self.late(record.time);
        match &record.event {
            Event::Fault { fault } => {
                match fault {
                    Fault::Crash(node) => {
                        self.leaders.remove(&**node);
                        self.paused.remove(&**node);
                    }
                    Fault::Pause(node) => {
                        if let Some(term) = self.leaders.remove(&**node) {
                            self.paused.insert(NodeName::from(node), term);
                        }
                    }
                    Fault::Resume(node) => {
                        if let Some(term) = self.paused.remove(&**node) {
                            self.leaders.insert(NodeName::from(node), term);
                        }
                    }
                    _ => {}
                }
                self.since = Some(record.time);
            }
            Event::Note { node, note } => match *note {
                RaftNote::BecameLeader { term, .. } => {
                    self.leaders.insert(NodeName::from(node), term);
                }
                RaftNote::SteppedDown { .. } => {
                    self.leaders.remove(&**node);
                    self.paused.remove(&**node);
                }
                RaftNote::TermChanged { to, .. } => self.max_term = self.max_term.max(to),
                _ => {}
            },
            _ => {}
        }
        if self.has_leader() {
            self.since = None;
        }
        result
    }
    fn finish(&mut self, end: Instant) -> Result<(), Broken> {
        self.late(end)
    }
}
